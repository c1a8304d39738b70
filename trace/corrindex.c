/* Events by (lane, correlation id): an open-addressing table of each key's first event,
 * the rest chained; 8 bytes per indexed event plus the table. */
#include "corrindex.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct CorrIndex {
    uint32_t *ev;   /* indexed events, in event order */
    uint32_t *next; /* next item with the same key, UINT32_MAX at the end */
    uint32_t *slot; /* item + 1 of each key's first event, 0 = empty */
    size_t mask;
};

static size_t key_hash(uint32_t lane, uint32_t corr) {
    uint64_t h = ((uint64_t)lane << 32 | corr) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h ^ (h >> 31));
}

CorrIndex *CorrIndex_build(const Trace *t) {
    size_t n = 0;
    for (size_t i = 0; i < t->n_events; i++) n += t->events[i].corr != 0;
    if (!n || t->n_events > UINT32_MAX) return NULL;
    CorrIndex *ci = xcalloc(1, sizeof *ci);
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    ci->mask = cap - 1;
    ci->ev = xmalloc(n * sizeof *ci->ev);
    ci->next = xmalloc(n * sizeof *ci->next);
    ci->slot = xcalloc(cap, sizeof *ci->slot);
    uint32_t *tail = xmalloc(n * sizeof *tail); /* per key head item: its last item */
    size_t k = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (!e->corr) continue;
        ci->ev[k] = (uint32_t)i;
        ci->next[k] = UINT32_MAX;
        size_t h = key_hash(e->lane, e->corr) & ci->mask;
        for (;;) {
            uint32_t s = ci->slot[h];
            if (!s) {
                ci->slot[h] = (uint32_t)k + 1;
                tail[k] = (uint32_t)k;
                break;
            }
            const TraceEvent *x = &t->events[ci->ev[s - 1]];
            if (x->lane == e->lane && x->corr == e->corr) {
                ci->next[tail[s - 1]] = (uint32_t)k;
                tail[s - 1] = (uint32_t)k;
                break;
            }
            h = (h + 1) & ci->mask;
        }
        k++;
    }
    free(tail);
    return ci;
}

void CorrIndex_free(CorrIndex *ci) {
    if (!ci) return;
    free(ci->ev);
    free(ci->next);
    free(ci->slot);
    free(ci);
}

size_t CorrIndex_bind(const CorrIndex *ci, const Trace *t, uint32_t lane, uint64_t id, int64_t ts, bool enclosing) {
    if (!ci || !id || id > UINT32_MAX) return SIZE_MAX;
    size_t h = key_hash(lane, (uint32_t)id) & ci->mask;
    uint32_t s;
    while ((s = ci->slot[h]) != 0) {
        const TraceEvent *x = &t->events[ci->ev[s - 1]];
        if (x->lane == lane && x->corr == id) break;
        h = (h + 1) & ci->mask;
    }
    if (!s) return SIZE_MAX;
    size_t best = SIZE_MAX;
    for (uint32_t k = s - 1; k != UINT32_MAX; k = ci->next[k]) {
        size_t i = ci->ev[k];
        const TraceEvent *e = &t->events[i];
        if (enclosing) {
            if (e->ts > ts || TraceEvent_end(e) < ts) continue;
            /* events are laid out by (depth, ts): a larger index is deeper or later */
            if (best == SIZE_MAX || i > best) best = i;
        } else {
            if (e->ts < ts) continue;
            const TraceEvent *b = best == SIZE_MAX ? NULL : &t->events[best];
            if (!b || e->ts < b->ts || (e->ts == b->ts && i < best)) best = i;
        }
    }
    return best;
}
