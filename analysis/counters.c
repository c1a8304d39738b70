/* Counter series (see counters.h): one pass over the events groups counter samples by
 * (lane, name) in a hash table, then each series is sorted by time. */
#include "ovtrace/analysis/counters.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/map.h"

typedef struct {
    int64_t ts;
    uint32_t ev;
} Sample;

static int sample_cmp(const void *a, const void *b) {
    const Sample *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

typedef struct {
    int32_t rank;
    const char *name;
    CounterSeries s;
} Keyed;

static int keyed_cmp(const void *a, const void *b) {
    const Keyed *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->s.lane < y->s.lane ? -1 : x->s.lane > y->s.lane;
}

/* The GPU group a "[memory] GPU N ..." (Kineto) or "[serve] GPU N ..." (serving
 * simulator and workload) series belongs to, or UINT32_MAX. */
static uint32_t memory_group(const Trace *t, const Lane *l, const char *name, int64_t *device) {
    static const char P[] = "[memory] GPU ", Q[] = "[serve] GPU ";
    size_t n = !strncmp(name, P, sizeof P - 1) ? sizeof P - 1 : !strncmp(name, Q, sizeof Q - 1) ? sizeof Q - 1 : 0;
    if (!n) return UINT32_MAX;
    char *end;
    long long d = strtoll(name + n, &end, 10);
    if (end == name + n) return UINT32_MAX;
    *device = d;
    for (uint32_t g = 0; g < t->n_groups; g++) {
        const Group *G = &t->groups[g];
        if (G->gpu && G->source == l->source && G->id == d) return g;
    }
    return UINT32_MAX;
}

CounterSet *CounterSet_build(const Trace *t) {
    CounterSet *cs = xcalloc(1, sizeof *cs);
    cs->lane_only = xcalloc(t->n_lanes ? t->n_lanes : 1, sizeof *cs->lane_only);
    cs->row_only = xcalloc(t->n_rows ? t->n_rows : 1, sizeof *cs->row_only);
    size_t n_samples = 0;
    for (size_t i = 0; i < t->n_events; i++) n_samples += t->events[i].kind == KIND_COUNTER;
    if (!n_samples) return cs;
    U64Map series; /* (lane, name) -> series index */
    U64Map_init(&series, 64);
    uint32_t *sid = xcalloc(n_samples, sizeof *sid);
    size_t *count = NULL, cap_count = 0, cap_s = 0, k = 0;
    size_t *lane_ctr = xcalloc(t->n_lanes ? t->n_lanes : 1, sizeof *lane_ctr);
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->kind != KIND_COUNTER) continue;
        lane_ctr[e->lane]++;
        uint64_t key = (uint64_t)e->lane << 32 | e->name;
        uint32_t v = U64Map_get(&series, key);
        if (v == U64MAP_NONE) {
            GROW(cs->s, cap_s, cs->n + 1);
            GROW(count, cap_count, cs->n + 1);
            CounterSeries *s = &cs->s[cs->n];
            memset(s, 0, sizeof *s);
            s->lane = e->lane;
            s->name = e->name;
            s->device = -1;
            const Lane *l = &t->lanes[e->lane];
            const char *nm = StrTab_get(t->strings, e->name);
            size_t ln = strlen(nm);
            s->bytes = !strncmp(nm, "[memory] ", 9) || (ln >= 14 && !strcmp(nm + ln - 14, " memory in use"));
            s->group = memory_group(t, l, nm, &s->device);
            if (s->group == UINT32_MAX) s->group = l->group;
            count[cs->n] = 0;
            v = (uint32_t)cs->n++;
            U64Map_add(&series, key, v);
        }
        count[v]++;
        sid[k++] = v;
    }
    for (uint32_t l = 0; l < t->n_lanes; l++) cs->lane_only[l] = t->lanes[l].count && lane_ctr[l] == t->lanes[l].count;
    for (size_t r = 0; r < t->n_rows; r++) {
        const Row *R = &t->rows[r];
        bool only = R->count > 0;
        for (size_t i = R->first; only && i < R->first + R->count; i++) only = t->events[i].kind == KIND_COUNTER;
        cs->row_only[r] = only;
    }
    cs->pool = xcalloc(n_samples, sizeof *cs->pool);
    Sample *tmp = xcalloc(n_samples, sizeof *tmp);
    size_t *at = xcalloc(cs->n, sizeof *at);
    for (size_t j = 0, off = 0; j < cs->n; j++) at[j] = off, off += count[j];
    k = 0;
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == KIND_COUNTER) tmp[at[sid[k++]]++] = (Sample){t->events[i].ts, (uint32_t)i};
    for (size_t j = 0, off = 0; j < cs->n; j++) {
        qsort(tmp + off, count[j], sizeof *tmp, sample_cmp);
        for (size_t q = 0; q < count[j]; q++) cs->pool[off + q] = tmp[off + q].ev;
        cs->s[j].ev = cs->pool + off;
        cs->s[j].n = count[j];
        off += count[j];
    }
    /* listed by rank, then name: the same order whatever the lane order of the source */
    Keyed *kd = xcalloc(cs->n, sizeof *kd);
    for (size_t j = 0; j < cs->n; j++)
        kd[j] = (Keyed){t->lanes[cs->s[j].lane].rank, StrTab_get(t->strings, cs->s[j].name), cs->s[j]};
    qsort(kd, cs->n, sizeof *kd, keyed_cmp);
    for (size_t j = 0; j < cs->n; j++) cs->s[j] = kd[j].s;
    free(kd);
    free(tmp);
    free(at);
    U64Map_free(&series);
    free(sid);
    free(count);
    free(lane_ctr);
    return cs;
}

void CounterSet_free(CounterSet *cs) {
    if (!cs) return;
    free(cs->s);
    free(cs->pool);
    free(cs->lane_only);
    free(cs->row_only);
    free(cs);
}

size_t Counter_lowerBound(const Trace *t, const CounterSeries *s, int64_t ts) {
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (t->events[s->ev[m]].ts < ts) lo = m + 1;
        else hi = m;
    }
    return lo;
}

bool Counter_valueAt(const Trace *t, const CounterSeries *s, int64_t ts, double *v) {
    size_t j = ts == INT64_MAX ? s->n : Counter_lowerBound(t, s, ts + 1); /* first sample after ts */
    if (!j) return false;
    *v = Counter_value(t, s, j - 1);
    return true;
}

bool Counter_stats(const Trace *t, const CounterSeries *s, int64_t t0, int64_t t1, CounterStats *out) {
    memset(out, 0, sizeof *out);
    size_t j = Counter_lowerBound(t, s, t0);
    double sum = 0;
    for (; j < s->n && t->events[s->ev[j]].ts < t1; j++) {
        double v = Counter_value(t, s, j);
        if (!out->n || v < out->min) out->min = v;
        if (!out->n || v > out->max) out->max = v;
        sum += v;
        out->last = v;
        out->n++;
    }
    if (out->n) out->mean = sum / (double)out->n;
    return out->n > 0;
}

void Counter_format(double v, bool bytes, char *buf, size_t n) {
    if (!bytes) {
        snprintf(buf, n, "%.6g", v);
        return;
    }
    static const char *U[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double a = v < 0 ? -v : v;
    int u = 0;
    while (a >= 1024 && u < 5) a /= 1024, u++;
    if (u == 0) snprintf(buf, n, "%.0f B", v);
    else snprintf(buf, n, "%.2f %s", v < 0 ? -a : a, U[u]);
}
