/* Cross-rank collective matching (include/ovtrace/analysis/collectives.h).
 *
 * Linear in the comm kernels where the trace allows it: a lane's rows are sorted, so a
 * one-row lane yields its kernels in start order without sorting; kernels are scattered
 * into runs (channel, rank) by a counting sort, and the k-th kernels of a channel's runs
 * are aligned by position. Only Seq-keyed channels and multi-row lanes sort. */
#include "ovtrace/analysis/collectives.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "edges.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/base/map.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/parfor.h"

#define DEFAULT_OFFSET_LIMIT 50000 /* ns: 50 us of clock offset makes waits unreliable */

/* ---- small helpers -------------------------------------------------------------------- */

static void swap_i64(int64_t *a, int64_t *b) {
    int64_t x = *a;
    *a = *b;
    *b = x;
}

/* k-th smallest of a[0..n) (reorders a). */
static int64_t select_i64(int64_t *a, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t pivot = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) {
                swap_i64(&a[i], &a[j]);
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}

/* Lower median. */
static int64_t median_i64(int64_t *a, size_t n) { return n ? select_i64(a, n, (n - 1) / 2) : 0; }

static int32_t rank_index(const int32_t *ranks, size_t n, int32_t rank) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ranks[mid] < rank) lo = mid + 1;
        else hi = mid;
    }
    return (int32_t)lo;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Event indices by start, then index; ctx: the events (qsort_r: no global, so
 * Coll_analyze may run on two models at once, as the lazy overview's load does). */
static int cmp_ev(const TraceEvent *ev, uint32_t x, uint32_t y) {
    int64_t sx = ev[x].ts, sy = ev[y].ts;
    if (sx != sy) return sx < sy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_ev_start(const void *a, const void *b, void *ev) {
    return cmp_ev(ev, *(const uint32_t *)a, *(const uint32_t *)b);
}

typedef struct {
    uint32_t ev, name;
} EvName;

static int cmp_evname(const void *a, const void *b, void *ev) {
    return cmp_ev(ev, ((const EvName *)a)->ev, ((const EvName *)b)->ev);
}

/* ---- channels --------------------------------------------------------------------------- */

/* A channel's key for CollCtx.ch_ids: a hash of what identifies it; equal keys are
 * told apart by comparing the channels themselves. */
static uint64_t channel_key(bool by_group, int64_t stream, uint32_t group) {
    return by_group ? Hash_u64(((uint64_t)group << 1) | 1) : Hash_u64((uint64_t)stream << 1) ^ (uint64_t)stream;
}

/* The channel of a stream or a group, added when new. A map, not a scan: one NCCL
 * kernel on each of 200k streams is 200k channels. */
static uint32_t channel_find(CollReport *R, U64Map *ids, size_t *cap, bool by_group, int64_t stream, uint32_t group) {
    uint64_t key = channel_key(by_group, stream, group);
    size_t pos = U64Map_start(ids, key);
    for (uint32_t c; (c = U64Map_next(ids, key, &pos)) != U64MAP_NONE;) {
        const CollChannel *C = &R->channels[c];
        if (C->by_group == by_group && (by_group ? C->group == group : C->stream == stream)) return c;
    }
    GROW(R->channels, *cap, R->n_channels + 1);
    R->channels[R->n_channels] = (CollChannel){by_group, true, by_group ? -1 : stream, by_group ? group : 0};
    U64Map_add(ids, key, (uint32_t)R->n_channels);
    return (uint32_t)R->n_channels++;
}

/* ---- matching ----------------------------------------------------------------------------- */

typedef struct {
    CollReport *R;
    size_t cap_inst, cap_mem, cap_slot;
    const int32_t *ranks;   /* slot -> rank */
    const uint32_t *ev;     /* items: event index */
    const int64_t *ts, *end;
    const uint32_t *name;   /* items: collective name */
    uint32_t *item_member;  /* items: member index, or COLL_NONE (NULL: not kept) */
    uint32_t *mslot;        /* members: rank slot */
} Matcher;

/* Adds an instance from items idx[0..n) (distinct rank slots sl[] in increasing order,
 * n >= 2, names agree). One pass: members stay in rank order. */
static void add_instance(Matcher *M, uint32_t channel, uint64_t seq, const uint32_t *idx, const uint32_t *sl, size_t n) {
    CollReport *R = M->R;
    GROW(R->inst, M->cap_inst, R->n_inst + 1);
    GROW(R->members, M->cap_mem, R->n_members + n);
    GROW(M->mslot, M->cap_slot, R->n_members + n);
    uint32_t ii = (uint32_t)R->n_inst++;
    CollMember *mb = &R->members[R->n_members];
    uint32_t *ms = &M->mslot[R->n_members];
    int64_t last = INT64_MIN, first = INT64_MAX, min_end = INT64_MAX, max_end = INT64_MIN;
    size_t last_k = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t it = idx[k];
        int64_t st = M->ts[it], en = M->end[it];
        mb[k] = (CollMember){M->ev[it], ii, M->ranks[sl[k]], st, en, 0, 0};
        ms[k] = sl[k];
        if (st >= last) { /* ties: the higher rank (later slot) */
            last = st;
            last_k = k;
        }
        if (st < first) first = st;
        if (en < min_end) min_end = en;
        if (en > max_end) max_end = en;
        if (M->item_member) M->item_member[it] = (uint32_t)(R->n_members + k);
    }
    for (size_t k = 0; k < n; k++) {
        mb[k].wait = last - mb[k].start;
        mb[k].transfer = mb[k].end - last;
        if (mb[k].transfer < 0) R->negative_transfers++;
    }
    CollInstance *I = &R->inst[ii];
    *I = (CollInstance){M->name[idx[0]], channel, seq, (uint32_t)R->n_members, (uint32_t)n, mb[last_k].rank,
                        (uint32_t)last_k, first, last, last - first, max_end - min_end};
    R->n_members += n;
}

/* Checks items idx[0..n) (one per rank slot) and adds them as an instance, or counts them. */
static void consider(Matcher *M, uint32_t channel, uint64_t seq, const uint32_t *idx, const uint32_t *sl, size_t n,
                     bool dup_rank) {
    if (n < 2) {
        M->R->unmatched += n;
        return;
    }
    bool agree = !dup_rank;
    for (size_t k = 1; k < n && agree; k++) agree = M->name[idx[k]] == M->name[idx[0]];
    if (!agree) {
        M->R->mismatched += n;
        return;
    }
    add_instance(M, channel, seq, idx, sl, n);
}

typedef struct {
    int64_t seq;
    uint32_t slot;
    uint32_t item;
    int64_t ts;
} SeqItem;

static int cmp_seq(const void *a, const void *b) {
    const SeqItem *x = a, *y = b;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    if (x->slot != y->slot) return x->slot < y->slot ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->item < y->item ? -1 : x->item > y->item;
}

/* ---- analysis ---------------------------------------------------------------------------- */

static int cmp_name_count(const void *a, const void *b) {
    const CollName *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* by_event: member indices sorted by event, by two 16-bit radix passes over (event <<
 * 32 | member) keys read in order (members are at most 2^32). */
static void build_index(CollReport *R) {
    size_t n = R->n_members;
    uint64_t *a = xmalloc((n + 1) * sizeof *a), *b = xmalloc((n + 1) * sizeof *b);
    size_t *cnt = xmalloc(65536 * sizeof *cnt);
    for (size_t i = 0; i < n; i++) a[i] = (uint64_t)R->members[i].event << 32 | i;
    for (int pass = 0; pass < 2; pass++) {
        int sh = 32 + pass * 16;
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(a[i] >> sh) & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) b[cnt[(a[i] >> sh) & 0xffff]++] = a[i];
        uint64_t *x = a;
        a = b;
        b = x;
    }
    uint32_t *idx = xmalloc((n + 1) * sizeof *idx);
    for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)a[i];
    free(a);
    free(b);
    free(cnt);
    R->by_event = idx;
}

/* ---- the analysis, phase by phase -------------------------------------------------------
 * Items are the comm kernels, held in arrays indexed alike (event, name, start, end,
 * Seq); runs are the items of one (channel, rank slot), run r = channel * nr + slot.
 * Each phase frees what no later phase reads. */

/* A lane's comm kernels: items [a, b), on rank slot `slot`. */
typedef struct {
    uint32_t lane, slot;
    size_t a, b;
} Seg;

/* What the phases of one Coll_analyze share. */
typedef struct {
    const Trace *t;
    const CollOptions *o;
    CollReport *R;
    int32_t *ranks;       /* rank slot -> rank: the GPU lanes' ranks, sorted, distinct */
    size_t nr;
    size_t n;             /* items */
    uint32_t *ev, *name;  /* event index, collective name (COLL_ARGNAME) */
    int64_t *ts, *end;
    int64_t *seq;         /* the Seq arg or -1 (NULL: no args) */
    bool any_src;         /* some item's args can be read from a source */
    bool ev_sorted;       /* items in event-index order: the member index comes for free */
    Seg *seg;             /* one per lane with comm kernels, in item order */
    size_t n_seg;
    CollArgs *args;       /* per item (NULL: none fetched) */
    uint32_t *chan;       /* per item (NULL: no group args, the segment's seg_chan) */
    uint32_t *seg_chan;   /* per segment: its stream channel, or COLL_NONE */
    size_t cap_ch;        /* R->channels' capacity */
    U64Map ch_ids;        /* channel key -> index in R->channels (the names phase) */
    size_t *run_off, *run_len; /* run r: items [run_off[r], run_off[r] + run_len[r]) */
    uint32_t *mslot;      /* members: rank slot */
    int64_t *dev_of;      /* members: end - the instance's median end */
    int64_t *spreads;     /* instances: end spread */
} CollCtx;

/* start: the report, with the device split's worker count resolved. */
static void start(CollCtx *c) {
    c->R = xcalloc(1, sizeof *c->R);
    c->R->strings = StrTab_new();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c->R->threads = c->o->threads > 0 ? c->o->threads : cores > 0 ? (int)cores : 1;
}

/* The rank slots: the distinct ranks of GPU lanes, sorted. */
static void rank_slots(CollCtx *c) {
    const Trace *t = c->t;
    int32_t *ranks = xmalloc((t->n_lanes + 1) * sizeof *ranks);
    size_t nr = 0;
    for (size_t l = 0; l < t->n_lanes; l++)
        if (t->lanes[l].gpu) ranks[nr++] = t->lanes[l].rank;
    qsort(ranks, nr, sizeof *ranks, cmp_i32);
    size_t u = 0;
    for (size_t i = 0; i < nr; i++)
        if (!u || ranks[u - 1] != ranks[i]) ranks[u++] = ranks[i];
    c->ranks = ranks;
    c->nr = u;
    c->R->n_ranks = u;
    c->R->ranks = xcalloc(u, sizeof *c->R->ranks);
    for (size_t i = 0; i < u; i++) c->R->ranks[i].rank = ranks[i];
}

/* Items [a, b) of a lane whose rows overlap, put in start order. */
static void sort_items(CollCtx *c, size_t a, size_t b) {
    TraceEvent *events = c->t->events;
    qsort_r(c->ev + a, b - a, sizeof *c->ev, cmp_ev_start, events);
    for (size_t i = a; i < b; i++) {
        const TraceEvent *e = &events[c->ev[i]];
        c->name[i] = e->name;
        c->ts[i] = e->ts;
        c->end[i] = e->ts + e->dur;
    }
    c->ev_sorted = false;
}

/* Appends GPU lane l's comm kernels to the items, in start order, as one segment. */
static void lane_items(CollCtx *c, uint32_t l) {
    const Trace *t = c->t;
    const Lane *L = &t->lanes[l];
    uint32_t *ev = c->ev, *name = c->name;
    int64_t *ts = c->ts, *end = c->end;
    size_t k0 = c->n, n = k0;
    bool any_src = c->any_src, ev_sorted = c->ev_sorted;
    for (size_t i = L->first; i < L->first + L->count; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->kind != KIND_KERNEL || e->cls != CLASS_COMM) continue;
        any_src |= e->src != TRACE_NO_SRC;
        if (n && ev[n - 1] > i) ev_sorted = false;
        ev[n] = (uint32_t)i;
        name[n] = e->name;
        ts[n] = e->ts;
        end[n++] = e->ts + e->dur;
    }
    c->n = n;
    c->any_src = any_src;
    c->ev_sorted = ev_sorted;
    if (n == k0) return;
    if (L->n_rows > 1 && n - k0 > 1) sort_items(c, k0, n);
    uint32_t slot = (uint32_t)rank_index(c->ranks, c->nr, L->rank);
    c->R->ranks[slot].kernels += n - k0;
    c->seg[c->n_seg++] = (Seg){l, slot, k0, n};
}

/* gather: the rank slots, then the comm kernels, lane by lane, into the item arrays (the
 * events are read once, in memory order). */
static void gather(CollCtx *c) {
    const Trace *t = c->t;
    rank_slots(c);
    size_t upper = 0;
    for (size_t l = 0; l < t->n_lanes; l++)
        if (t->lanes[l].gpu) upper += t->lanes[l].count;
    /* sized for every GPU event: pages past the comm kernels are never touched */
    c->ev = xmalloc((upper + 1) * sizeof *c->ev);
    c->name = xmalloc((upper + 1) * sizeof *c->name);
    c->ts = xmalloc((upper + 1) * sizeof *c->ts);
    c->end = xmalloc((upper + 1) * sizeof *c->end);
    c->seg = xmalloc((t->n_lanes + 1) * sizeof *c->seg);
    c->ev_sorted = true;
    for (size_t l = 0; l < t->n_lanes; l++)
        if (t->lanes[l].gpu) lane_items(c, (uint32_t)l);
    c->R->comm_kernels = c->n;
}

/* args: the items' group, name and Seq args, from the caller's CollArgsFn; only with two
 * ranks or more (one has nothing to match) and items that have a source. */
static void fetch_args(CollCtx *c) {
    if (!c->o->args || !c->n || c->nr <= 1 || !c->any_src) return;
    c->args = xmalloc(c->n * sizeof *c->args);
    c->R->args_read = c->o->args(c->o->args_ctx, c->t, c->ev, c->n, c->args, c->R->strings);
}

/* The items' names and Seq from their args; true if some item has a group arg. */
static bool names_from_args(CollCtx *c) {
    const CollArgs *args = c->args;
    bool any_group = false;
    c->seq = xmalloc((c->n + 1) * sizeof *c->seq);
    for (size_t i = 0; i < c->n; i++) {
        any_group |= args[i].group != COLLARGS_NONE;
        if (args[i].coll != COLLARGS_NONE) c->name[i] = COLL_ARGNAME | args[i].coll;
        c->seq[i] = args[i].seq;
    }
    return any_group;
}

/* A segment's stream channel, which exists only if one of its kernels has no group arg. */
static void stream_channels(CollCtx *c, bool any_group) {
    c->seg_chan = xmalloc((c->n_seg + 1) * sizeof *c->seg_chan);
    for (size_t sg = 0; sg < c->n_seg; sg++) {
        const Seg *S = &c->seg[sg];
        bool need = !any_group;
        for (size_t i = S->a; i < S->b && !need; i++) need = c->args[i].group == COLLARGS_NONE;
        c->seg_chan[sg] = need ? channel_find(c->R, &c->ch_ids, &c->cap_ch, false, c->t->lanes[S->lane].stream, 0) : COLL_NONE;
    }
}

/* Each item's channel: its group's, else its segment's stream channel. */
static void group_channels(CollCtx *c) {
    const CollArgs *args = c->args;
    c->chan = xmalloc((c->n + 1) * sizeof *c->chan);
    uint32_t last_group = COLLARGS_NONE, last_ch = 0;
    for (size_t sg = 0; sg < c->n_seg; sg++)
        for (size_t i = c->seg[sg].a; i < c->seg[sg].b; i++) {
            if (args[i].group == COLLARGS_NONE) {
                c->chan[i] = c->seg_chan[sg];
                continue;
            }
            if (args[i].group != last_group) {
                last_group = args[i].group;
                last_ch = channel_find(c->R, &c->ch_ids, &c->cap_ch, true, 0, last_group);
            }
            c->chan[i] = last_ch;
        }
}

/* names: names and Seq from the args, and a channel per item (per lane without group
 * args); a channel is keyed by Seq only when every kernel of it has one. */
static void channels(CollCtx *c) {
    bool any_group = c->args && names_from_args(c);
    U64Map_init(&c->ch_ids, c->n_seg);
    stream_channels(c, any_group);
    if (any_group) group_channels(c);
    U64Map_free(&c->ch_ids);
    free(c->args);
    c->args = NULL;
    for (size_t sg = 0; sg < c->n_seg; sg++)
        for (size_t i = c->seg[sg].a; i < c->seg[sg].b; i++)
            if (!c->seq || c->seq[i] < 0) c->R->channels[c->chan ? c->chan[i] : c->seg_chan[sg]].by_seq = false;
}

/* Where every run is one lane's whole segment (the usual case: no group args, one lane
 * per rank and stream), the segments are the runs, in place; false otherwise. */
static bool runs_in_place(CollCtx *c) {
    if (c->chan) return false;
    for (size_t sg = 0; sg < c->n_seg; sg++) {
        size_t r = c->seg_chan[sg] * c->nr + c->seg[sg].slot;
        if (c->run_len[r]) return false;
        c->run_off[r] = c->seg[sg].a;
        c->run_len[r] = c->seg[sg].b - c->seg[sg].a;
    }
    return true;
}

/* Moves the items, in every item array, into their runs (item i into run[i]), each run
 * filled in item order from its run_off. */
static void permute_items(CollCtx *c, const uint32_t *run) {
    size_t n = c->n, n_runs = c->R->n_channels * c->nr;
    size_t *fill = xmalloc((n_runs + 1) * sizeof *fill);
    memcpy(fill, c->run_off, (n_runs + 1) * sizeof *fill);
    uint32_t *pev = xmalloc((n + 1) * sizeof *pev), *pname = xmalloc((n + 1) * sizeof *pname);
    int64_t *pts = xmalloc((n + 1) * sizeof *pts), *pend = xmalloc((n + 1) * sizeof *pend);
    int64_t *pseq = c->seq ? xmalloc((n + 1) * sizeof *pseq) : NULL;
    for (size_t i = 0; i < n; i++) {
        size_t j = fill[run[i]]++;
        pev[j] = c->ev[i];
        pname[j] = c->name[i];
        pts[j] = c->ts[i];
        pend[j] = c->end[i];
        if (pseq) pseq[j] = c->seq[i];
    }
    free(fill);
    free(c->ev);
    free(c->name);
    free(c->ts);
    free(c->end);
    free(c->seq);
    c->ev = pev;
    c->name = pname;
    c->ts = pts;
    c->end = pend;
    c->seq = pseq;
}

/* A stable counting sort of the items into their runs. Returns, per run, whether two
 * lanes feed it. */
static bool *runs_permute(CollCtx *c) {
    size_t n = c->n, nr = c->nr, n_runs = c->R->n_channels * nr;
    size_t *run_off = c->run_off, *run_len = c->run_len;
    uint32_t *run = xmalloc((n + 1) * sizeof *run);
    uint32_t *run_lane = xmalloc((n_runs + 1) * sizeof *run_lane);
    bool *run_mixed = xcalloc(n_runs + 1, sizeof *run_mixed);
    for (size_t r = 0; r < n_runs; r++) run_lane[r] = UINT32_MAX;
    memset(run_len, 0, (n_runs + 1) * sizeof *run_len);
    for (size_t sg = 0; sg < c->n_seg; sg++)
        for (size_t i = c->seg[sg].a; i < c->seg[sg].b; i++) {
            uint32_t r = (uint32_t)((c->chan ? c->chan[i] : c->seg_chan[sg]) * nr + c->seg[sg].slot);
            run[i] = r;
            run_len[r]++;
            if (run_lane[r] == UINT32_MAX) run_lane[r] = c->seg[sg].lane;
            else if (run_lane[r] != c->seg[sg].lane) run_mixed[r] = true;
        }
    free(run_lane);
    size_t sum = 0;
    for (size_t r = 0; r < n_runs; r++) {
        run_off[r] = sum;
        sum += run_len[r];
    }
    permute_items(c, run);
    free(run);
    return run_mixed;
}

/* A run that two lanes feed, matched by position, is put in start order. */
static void sort_mixed_runs(CollCtx *c, const bool *run_mixed) {
    TraceEvent *events = c->t->events;
    size_t nr = c->nr, n_runs = c->R->n_channels * nr;
    for (size_t r = 0; r < n_runs; r++) {
        if (!run_mixed[r] || c->R->channels[r / nr].by_seq) continue;
        size_t a = c->run_off[r], b = a + c->run_len[r];
        EvName *pr = xmalloc((b - a) * sizeof *pr);
        for (size_t i = a; i < b; i++) pr[i - a] = (EvName){c->ev[i], c->name[i]};
        qsort_r(pr, b - a, sizeof *pr, cmp_evname, events);
        for (size_t i = a; i < b; i++) {
            c->ev[i] = pr[i - a].ev;
            c->name[i] = pr[i - a].name;
            c->ts[i] = events[c->ev[i]].ts;
            c->end[i] = c->ts[i] + events[c->ev[i]].dur;
        }
        free(pr);
    }
}

/* runs: the items of each (channel, rank slot), in place where the segments are the
 * runs, else permuted into runs by a stable counting sort. */
static void runs(CollCtx *c) {
    size_t n_runs = c->R->n_channels * c->nr;
    c->run_off = xcalloc(n_runs + 1, sizeof *c->run_off);
    c->run_len = xcalloc(n_runs + 1, sizeof *c->run_len);
    if (!runs_in_place(c)) {
        c->ev_sorted = false;
        bool *run_mixed = runs_permute(c);
        sort_mixed_runs(c, run_mixed);
        free(run_mixed);
    }
    free(c->chan);
    free(c->seg_chan);
    free(c->seg);
    c->chan = c->seg_chan = NULL;
    c->seg = NULL;
}

/* Channel ch without Seq: the k-th items of its runs form instance k. idx/sl: room for
 * one item per rank slot. */
static void match_by_position(const CollCtx *c, Matcher *M, size_t ch, uint32_t *idx, uint32_t *sl) {
    size_t n = c->n, nr = c->nr;
    const size_t *run_off = c->run_off + ch * nr, *run_len = c->run_len + ch * nr;
    const uint32_t *ev = c->ev, *name = c->name;
    const int64_t *ts = c->ts, *end = c->end;
    size_t K = 0;
    for (size_t ri = 0; ri < nr; ri++)
        if (run_len[ri] > K) K = run_len[ri];
    for (size_t kk = 0; kk < K; kk++) {
        size_t m = 0;
        for (size_t ri = 0; ri < nr; ri++)
            if (kk < run_len[ri]) {
                size_t it = run_off[ri] + kk;
                idx[m] = (uint32_t)it;
                sl[m++] = (uint32_t)ri;
                /* one stream per rank is more than the hardware prefetcher follows */
                if (it + 32 < n) {
                    __builtin_prefetch(&ts[it + 16]);
                    __builtin_prefetch(&end[it + 16]);
                    __builtin_prefetch(&ev[it + 32]);
                    __builtin_prefetch(&name[it + 32]);
                }
            }
        consider(M, (uint32_t)ch, kk, idx, sl, m, false);
    }
}

/* Channel ch keyed by Seq: the items with one Seq form an instance (a Seq twice on one
 * rank makes it a mismatch). */
static void match_by_seq(const CollCtx *c, Matcher *M, size_t ch, uint32_t *idx, uint32_t *sl) {
    size_t nr = c->nr;
    const size_t *run_off = c->run_off + ch * nr, *run_len = c->run_len + ch * nr;
    size_t cnt = 0;
    for (size_t ri = 0; ri < nr; ri++) cnt += run_len[ri];
    SeqItem *S = xmalloc((cnt + 1) * sizeof *S);
    size_t m0 = 0;
    for (size_t ri = 0; ri < nr; ri++)
        for (size_t i = run_off[ri]; i < run_off[ri] + run_len[ri]; i++)
            S[m0++] = (SeqItem){c->seq[i], (uint32_t)ri, (uint32_t)i, c->ts[i]};
    qsort(S, cnt, sizeof *S, cmp_seq);
    for (size_t i = 0; i < cnt;) {
        size_t j = i, m = 0;
        bool dup = false;
        while (j < cnt && S[j].seq == S[i].seq) {
            if (m && sl[m - 1] == S[j].slot) dup = true;
            idx[m] = S[j].item;
            sl[m++] = S[j].slot;
            j++;
        }
        consider(M, (uint32_t)ch, (uint64_t)S[i].seq, idx, sl, m, dup);
        i = j;
    }
    free(S);
}

/* The item arrays and runs, once matched. */
static void free_items(CollCtx *c) {
    free(c->run_off);
    free(c->run_len);
    free(c->ev);
    free(c->name);
    free(c->ts);
    free(c->end);
    free(c->seq);
    c->run_off = c->run_len = NULL;
    c->ev = c->name = NULL;
    c->ts = c->end = c->seq = NULL;
}

/* The member index from each item's member (COLL_NONE: unmatched) when the items were
 * in event order: their members then are too. */
static void members_by_event(CollReport *R, const uint32_t *item_member, size_t n) {
    R->by_event = xmalloc((R->n_members + 1) * sizeof *R->by_event);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (item_member[i] != COLL_NONE) R->by_event[k++] = item_member[i];
}

/* match: the instances, channel by channel; the items are then no longer needed. */
static void match(CollCtx *c) {
    CollReport *R = c->R;
    size_t n = c->n, nr = c->nr;
    Matcher M = {R, 0, 0, 0, c->ranks, c->ev, c->ts, c->end, c->name, NULL, NULL};
    /* sized once: every member is an item and an instance has two or more */
    GROW(R->members, M.cap_mem, n + 1);
    GROW(M.mslot, M.cap_slot, n + 1);
    GROW(R->inst, M.cap_inst, n / 2 + 1);
    if (c->ev_sorted) {
        M.item_member = xmalloc((n + 1) * sizeof *M.item_member);
        memset(M.item_member, 0xff, (n + 1) * sizeof *M.item_member);
    }
    uint32_t *idx = xmalloc((n + nr + 1) * sizeof *idx);
    uint32_t *sl = xmalloc((n + nr + 1) * sizeof *sl);
    for (size_t ch = 0; ch < R->n_channels; ch++) {
        if (R->channels[ch].by_seq) match_by_seq(c, &M, ch, idx, sl);
        else match_by_position(c, &M, ch, idx, sl);
    }
    free(idx);
    free(sl);
    free_items(c);
    c->mslot = M.mslot;
    if (M.item_member) members_by_event(R, M.item_member, n);
    free(M.item_member);
}

/* Instance i's part of the rank sums (rank_sums); ends: room for its members' ends. */
static void instance_sums(CollCtx *c, size_t i, int64_t *ends) {
    CollReport *R = c->R;
    const CollInstance *I = &R->inst[i];
    const CollMember *mb = &R->members[I->first];
    const uint32_t *mslot = c->mslot + I->first;
    for (size_t j = 0; j < I->n; j++) ends[j] = mb[j].end;
    int64_t med = median_i64(ends, I->n);
    int64_t others = 0;
    for (size_t j = 0; j < I->n; j++) {
        CollRank *cr = &R->ranks[mslot[j]];
        int64_t dur = mb[j].end - mb[j].start;
        int64_t w = mb[j].wait < dur ? mb[j].wait : dur;
        cr->matched++;
        cr->comm += dur;
        cr->wait += w;
        cr->transfer += dur - w;
        others += mb[j].wait;
        c->dev_of[I->first + j] = mb[j].end - med;
    }
    if (I->skew > 0) { /* all at once: nobody arrived last */
        CollRank *lr = &R->ranks[mslot[I->last]];
        lr->arrived_last++;
        lr->waited_for += others;
    }
    c->spreads[i] = I->end_spread;
}

/* sums: per rank, the matched kernels' comm, wait and transfer, the instances it
 * arrived last in and the waits that cost the others; per member its end's distance
 * from the instance's median end, per instance its end spread. */
static void rank_sums(CollCtx *c) {
    CollReport *R = c->R;
    c->dev_of = xmalloc((R->n_members + 1) * sizeof *c->dev_of);
    c->spreads = xmalloc((R->n_inst + 1) * sizeof *c->spreads);
    int64_t *ends = NULL;
    size_t cap_ends = 0;
    for (size_t i = 0; i < R->n_inst; i++) {
        GROW(ends, cap_ends, R->inst[i].n);
        instance_sums(c, i, ends);
    }
    free(ends);
}

/* Each rank's clock offset: the median of its members' deviations, gathered into one
 * segment per rank. */
static void rank_offsets(CollCtx *c) {
    CollReport *R = c->R;
    size_t nr = c->nr;
    const uint32_t *mslot = c->mslot;
    size_t *rseg = xcalloc(nr + 1, sizeof *rseg);
    for (size_t i = 0; i < R->n_members; i++) rseg[mslot[i] + 1]++;
    for (size_t r = 0; r < nr; r++) rseg[r + 1] += rseg[r];
    int64_t *dv = xmalloc((R->n_members + 1) * sizeof *dv);
    size_t *fill = xmalloc((nr + 1) * sizeof *fill);
    memcpy(fill, rseg, (nr + 1) * sizeof *fill);
    for (size_t i = 0; i < R->n_members; i++) dv[fill[mslot[i]]++] = c->dev_of[i];
    for (size_t r = 0; r < nr; r++) {
        R->ranks[r].clock_offset = median_i64(dv + rseg[r], rseg[r + 1] - rseg[r]);
        int64_t a = R->ranks[r].clock_offset < 0 ? -R->ranks[r].clock_offset : R->ranks[r].clock_offset;
        if (a > R->max_clock_offset) R->max_clock_offset = a;
    }
    free(fill);
    free(dv);
    free(rseg);
}

/* The median and largest end spread of the instances. */
static void end_spreads(CollCtx *c) {
    CollReport *R = c->R;
    if (!R->n_inst) return;
    R->median_end_spread = median_i64(c->spreads, R->n_inst);
    for (size_t i = 0; i < R->n_inst; i++)
        if (c->spreads[i] > R->max_end_spread) R->max_end_spread = c->spreads[i];
}

/* Flags waits as unreliable when a clock offset passes the limit, or when more than one
 * kernel in 20 ends before the last rank arrived. */
static void judge_clocks(CollCtx *c) {
    CollReport *R = c->R;
    int64_t limit = c->o->offset_limit > 0 ? c->o->offset_limit : DEFAULT_OFFSET_LIMIT;
    if (R->max_clock_offset > limit) {
        const CollRank *worst = NULL;
        for (size_t r = 0; r < c->nr; r++) {
            int64_t a = R->ranks[r].clock_offset < 0 ? -R->ranks[r].clock_offset : R->ranks[r].clock_offset;
            if (a == R->max_clock_offset && !worst) worst = &R->ranks[r];
        }
        R->unreliable = true;
        snprintf(R->unreliable_why, sizeof R->unreliable_why,
                 "rank %d's clock looks offset by %+.1f us (collective ends disagree); waits are not reliable",
                 worst->rank, (double)worst->clock_offset / 1e3);
    } else if (R->n_members && R->negative_transfers * 20 > R->n_members) {
        R->unreliable = true;
        snprintf(R->unreliable_why, sizeof R->unreliable_why,
                 "%zu of %zu kernels end before the last rank arrived; clocks disagree, waits are not reliable",
                 R->negative_transfers, R->n_members);
    }
}

/* offsets: clock offsets per rank, end spreads, and whether the waits can be trusted. */
static void clock_offsets(CollCtx *c) {
    rank_offsets(c);
    free(c->dev_of);
    free(c->mslot);
    c->dev_of = NULL;
    c->mslot = NULL;
    end_spreads(c);
    free(c->spreads);
    c->spreads = NULL;
    judge_clocks(c);
}

/* The distinct names of the instances, in order of first appearance, with their counts;
 * returns each instance's index in R->names. */
static uint32_t *name_buckets(CollReport *R) {
    U64Map by_name; /* name -> index in R->names */
    U64Map_init(&by_name, 64);
    uint32_t *bucket = xmalloc((R->n_inst + 1) * sizeof *bucket);
    size_t cap_names = 0;
    for (size_t i = 0; i < R->n_inst; i++) {
        uint32_t nm = R->inst[i].name;
        uint32_t k = U64Map_get(&by_name, nm);
        if (k == U64MAP_NONE) {
            k = (uint32_t)R->n_names;
            U64Map_add(&by_name, nm, k);
            GROW(R->names, cap_names, R->n_names + 1);
            R->names[R->n_names++] = (CollName){nm, 0, 0, 0};
        }
        bucket[i] = k;
        R->names[k].count++;
    }
    U64Map_free(&by_name);
    return bucket;
}

/* names (the second): per collective name, its count and median and max skew (each
 * name's skews gathered into one segment), by count descending. */
static void name_skews(CollCtx *c) {
    CollReport *R = c->R;
    uint32_t *bucket = name_buckets(R);
    size_t *off = xcalloc(R->n_names + 1, sizeof *off);
    for (size_t k = 0; k < R->n_names; k++) off[k + 1] = off[k] + R->names[k].count;
    int64_t *sk = xmalloc((R->n_inst + 1) * sizeof *sk);
    size_t *fill = xmalloc((R->n_names + 1) * sizeof *fill);
    memcpy(fill, off, (R->n_names + 1) * sizeof *fill);
    for (size_t i = 0; i < R->n_inst; i++) sk[fill[bucket[i]]++] = R->inst[i].skew;
    for (size_t k = 0; k < R->n_names; k++) {
        int64_t *x = sk + off[k], mx = INT64_MIN;
        for (size_t j = 0; j < R->names[k].count; j++)
            if (x[j] > mx) mx = x[j];
        R->names[k].max_skew = mx;
        R->names[k].median_skew = median_i64(x, R->names[k].count);
    }
    free(fill);
    free(sk);
    free(off);
    free(bucket);
    if (R->n_names > 1) qsort(R->names, R->n_names, sizeof *R->names, cmp_name_count);
}

/* index: the member index by event, unless the matching kept it. */
static void member_index(CollCtx *c) {
    if (!c->R->by_event) build_index(c->R);
}

static double mono_s(void) { /* CPU time: the step costs, not the machine's load */
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The phases in order, with the names CollOptions.timing reports their CPU time by. */
static const struct {
    const char *name;
    void (*run)(CollCtx *c);
} PHASES[] = {
    {"start", start},
    {"gather", gather},
    {"args", fetch_args},
    {"names", channels},
    {"runs", runs},
    {"match", match},
    {"sums", rank_sums},
    {"offsets", clock_offsets},
    {"names", name_skews},
    {"index", member_index},
};

CollReport *Coll_analyze(const Trace *t, const CollOptions *o) {
    CollOptions opt = o ? *o : CollOptions_default();
    CollCtx c = {.t = t, .o = &opt};
    double t_last = opt.timing ? mono_s() : 0;
    for (size_t i = 0; i < sizeof PHASES / sizeof PHASES[0]; i++) {
        PHASES[i].run(&c);
        if (opt.timing) {
            double now = mono_s();
            fprintf(opt.timing, "coll %-8s %.3f s\n", PHASES[i].name, now - t_last);
            t_last = now;
        }
    }
    free(c.ranks);
    return c.R;
}

void CollReport_free(CollReport *r) {
    if (!r) return;
    StrTab_free(r->strings);
    free(r->inst);
    free(r->members);
    free(r->by_event);
    free(r->channels);
    free(r->ranks);
    free(r->names);
    free(r);
}

const char *Coll_nameStr(const Trace *t, const CollReport *r, uint32_t name) {
    return name & COLL_ARGNAME ? StrTab_get(r->strings, name & ~COLL_ARGNAME) : StrTab_get(t->strings, name);
}

const CollMember *Coll_memberOf(const CollReport *r, size_t idx) {
    size_t lo = 0, hi = r->n_members;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->members[r->by_event[mid]].event < idx) lo = mid + 1;
        else hi = mid;
    }
    return lo < r->n_members && r->members[r->by_event[lo]].event == idx ? &r->members[r->by_event[lo]] : NULL;
}

const CollMember *Coll_memberFrom(const CollReport *r, size_t idx, size_t *cursor) {
    size_t lo = *cursor, n = r->n_members;
    if (lo > n || (lo > 0 && r->members[r->by_event[lo - 1]].event >= idx)) lo = 0; /* went back */
    size_t step = 1, hi = lo; /* gallop forward: the next member is usually near */
    while (hi < n && r->members[r->by_event[hi]].event < idx) {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    if (hi > n) hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->members[r->by_event[mid]].event < idx) lo = mid + 1;
        else hi = mid;
    }
    *cursor = lo;
    /* a walk's next members are far apart in members[]: fetched ahead */
    if (lo + 8 < n) __builtin_prefetch(&r->members[r->by_event[lo + 8]]);
    return lo < n && r->members[r->by_event[lo]].event == idx ? &r->members[r->by_event[lo]] : NULL;
}

const CollRank *Coll_rank(const CollReport *r, int32_t rank) {
    for (size_t i = 0; i < r->n_ranks; i++)
        if (r->ranks[i].rank == rank) return &r->ranks[i];
    return NULL;
}

const CollRank *Coll_straggler(const CollReport *r) {
    const CollRank *best = NULL;
    for (size_t i = 0; i < r->n_ranks; i++) {
        const CollRank *c = &r->ranks[i];
        if (!c->arrived_last) continue;
        if (!best || c->arrived_last > best->arrived_last ||
            (c->arrived_last == best->arrived_last && c->waited_for > best->waited_for))
            best = c;
    }
    return best;
}

void Coll_arrivals(const CollReport *r, int64_t t0, int64_t t1, CollArrivals *out) {
    memset(out, 0, sizeof *out);
    out->last = xcalloc(r->n_ranks + 1, sizeof *out->last);
    out->waited_for = xcalloc(r->n_ranks + 1, sizeof *out->waited_for);
    for (size_t i = 0; i < r->n_inst; i++) {
        const CollInstance *I = &r->inst[i];
        if (I->last_start < t0 || I->last_start >= t1) continue;
        out->n_inst++;
        if (I->skew == 0) continue; /* all at once: nobody arrived last */
        size_t ri = (size_t)(Coll_rank(r, I->last_rank) - r->ranks);
        out->last[ri]++;
        for (uint32_t j = 0; j < I->n; j++) out->waited_for[ri] += r->members[I->first + j].wait;
    }
    out->straggler = -1;
    for (size_t k = 0; k < r->n_ranks; k++) {
        if (!out->last[k]) continue;
        int b = out->straggler;
        if (b < 0 || out->last[k] > out->last[b] ||
            (out->last[k] == out->last[b] && out->waited_for[k] > out->waited_for[b]))
            out->straggler = (int)k;
    }
}

void CollArrivals_free(CollArrivals *a) {
    free(a->last);
    free(a->waited_for);
    a->last = NULL;
    a->waited_for = NULL;
}

void Coll_formatSpan(char *b, size_t n, int64_t ns) {
    double a = (double)(ns < 0 ? -ns : ns);
    const char *sign = ns < 0 ? "-" : "";
    if (a >= 1e9) snprintf(b, n, "%s%.2f s", sign, a / 1e9);
    else if (a >= 1e6) snprintf(b, n, "%s%.1f ms", sign, a / 1e6);
    else if (a >= 1e3) snprintf(b, n, "%s%.1f us", sign, a / 1e3);
    else snprintf(b, n, "%s%.0f ns", sign, a);
}

void Coll_stragglerLine(const CollReport *r, const CollArrivals *a, bool in_range, char *buf, size_t n) {
    if (a->straggler < 0) {
        snprintf(buf, n, "straggler: none (no matched collectives%s)", in_range ? " in the range" : "");
        return;
    }
    char h[32];
    Coll_formatSpan(h, sizeof h, a->waited_for[a->straggler]);
    snprintf(buf, n,
             "straggler: rank %d arrived last in %zu of %zu collectives; others waited %s for it (summed over the "
             "ranks that waited)",
             r->ranks[a->straggler].rank, a->last[a->straggler], a->n_inst, h);
}

static bool wait_part(const CollMember *m, int64_t *ws, int64_t *we) {
    if (!m) return false;
    int64_t dur = m->end - m->start;
    *ws = m->start;
    *we = m->start + (m->wait < dur ? m->wait : dur);
    return true;
}

bool Coll_waitPart(const CollReport *r, size_t idx, int64_t *ws, int64_t *we) {
    return wait_part(Coll_memberOf(r, idx), ws, we);
}

bool Coll_waitPartFrom(const CollReport *r, size_t idx, size_t *cursor, int64_t *ws, int64_t *we) {
    return wait_part(Coll_memberFrom(r, idx, cursor), ws, we);
}

/* ---- exposed comm split by cause ----------------------------------------------------------- */

/* First position in by_event whose member's event is >= idx. */
static size_t member_cursor(const CollReport *r, size_t idx) {
    size_t lo = 0, hi = r->n_members;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->members[r->by_event[mid]].event < idx) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void push(Edge **E, size_t *n, size_t *cap, int64_t s, int64_t e, int64_t t0, int64_t t1, int cls) {
    if (s < t0) s = t0;
    if (e > t1) e = t1;
    if (e <= s) return;
    GROW(*E, *cap, *n + 2);
    (*E)[(*n)++] = (Edge){s, +1, (uint8_t)cls};
    (*E)[(*n)++] = (Edge){e, -1, (uint8_t)cls};
}

/* Time d with the classes' counts cnt (compute, wait part, the rest of comm) into D. */
static void split_add(CollDeviceSplit *D, const int *cnt, int64_t d) {
    bool comp = cnt[0] > 0, wait = cnt[1] > 0, other = cnt[2] > 0;
    if (wait || other) D->comm += d;
    if (other) D->transfer += d;
    else if (wait) D->wait += d;
    if (!comp) {
        if (other) D->exposed_transfer += d;
        else if (wait) D->exposed_wait += d;
    }
}

/* The matched member of comm kernel i, moving *mc (a by_event position) forward. */
static const CollMember *member_at(const CollReport *r, size_t i, size_t *mc) {
    size_t k = *mc;
    while (k < r->n_members && r->members[r->by_event[k]].event < i) k++;
    /* a row's members are far apart in members[]: the next ones fetched ahead */
    if (k + 8 < r->n_members) __builtin_prefetch(&r->members[r->by_event[k + 8]]);
    *mc = k;
    return k < r->n_members && r->members[r->by_event[k]].event == i ? &r->members[r->by_event[k]] : NULL;
}

/* One GPU group's split over [t0, t1) by edges: every row's intervals pushed, sorted,
 * swept; false when it has no counted event there. S->a / S->b: the worker's edge
 * buffer and Edges_sort's scratch. */
static bool split_edges(const Trace *t, const CollReport *r, const Group *G, int64_t t0, int64_t t1, ParScratch *S,
                        CollDeviceSplit *D) {
    Edge **E = (Edge **)&S->a, **scratch = (Edge **)&S->b;
    size_t ne = 0;
    bool any = false;
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
        const Lane *l = &t->lanes[li];
        for (uint32_t k = 0; k < l->n_rows; k++) {
            const Row *row = &t->rows[l->first_row + k];
            size_t i0 = Row_lowerBound(t, row, t0), mc = member_cursor(r, i0);
            for (size_t i = i0; i < row->first + row->count; i++) {
                const TraceEvent *e = &t->events[i];
                if (e->ts >= t1) break;
                if (!Overlap_counts(e)) continue;
                any = true;
                int64_t end = TraceEvent_end(e);
                if (e->cls == CLASS_COMPUTE) {
                    push(E, &ne, &S->cap_a, e->ts, end, t0, t1, 0);
                    continue;
                }
                if (e->cls != CLASS_COMM) continue;
                const CollMember *m = member_at(r, i, &mc);
                if (m) {
                    int64_t w = m->wait < e->dur ? m->wait : e->dur, we = e->ts + w;
                    push(E, &ne, &S->cap_a, e->ts, we, t0, t1, 1);
                    push(E, &ne, &S->cap_a, we, end, t0, t1, 2);
                } else {
                    push(E, &ne, &S->cap_a, e->ts, end, t0, t1, 2);
                }
            }
        }
    }
    if (!any) return false;
    Edges_sort(*E, ne, scratch, &S->cap_b);
    int cnt[3] = {0, 0, 0};
    for (size_t i = 0; i < ne;) {
        int64_t at = (*E)[i].t;
        while (i < ne && (*E)[i].t == at) {
            cnt[(*E)[i].cls] += (*E)[i].delta;
            i++;
        }
        if (i == ne) break;
        split_add(D, cnt, (*E)[i].t - at);
    }
    return true;
}

/* Rows the sweep walks side by side; a group with more takes the edges. */
enum { SWEEP_MAX_ROWS = 16 };

/* One row's intervals in time order, one at a time: [s, e) of class cls (as the
 * edges'), started (on) or not yet. A matched kernel is its wait part, then the rest
 * (pend). */
typedef struct {
    const TraceEvent *ev; /* t->events */
    size_t i, end;        /* next event of the row, the row's end */
    size_t mc;            /* member cursor (by_event position) */
    int64_t s, e;
    int cls;
    bool on;
    bool pend; /* [pend_s, pend_e) comes next, class 2 */
    int64_t pend_s, pend_e;
} RowSweep;

/* Sets the row's interval to [s, e) clipped to [t0, t1); false when that is empty. */
static bool rs_set(RowSweep *w, int64_t s, int64_t e, int cls, int64_t t0, int64_t t1) {
    if (s < t0) s = t0;
    if (e > t1) e = t1;
    if (e <= s) return false;
    w->s = s;
    w->e = e;
    w->cls = cls;
    w->on = false;
    return true;
}

/* The row's next non-empty interval; false when the row has none left before t1.
 * *any: a counted event was met. */
static bool rs_next(RowSweep *w, const CollReport *r, int64_t t0, int64_t t1, bool *any) {
    for (;;) {
        if (w->pend) {
            w->pend = false;
            if (rs_set(w, w->pend_s, w->pend_e, 2, t0, t1)) return true;
        }
        if (w->i >= w->end) return false;
        size_t i = w->i++;
        const TraceEvent *e = &w->ev[i];
        if (e->ts >= t1) {
            w->i = w->end;
            return false;
        }
        if (!Overlap_counts(e)) continue;
        *any = true;
        int64_t end = TraceEvent_end(e);
        if (e->cls == CLASS_COMPUTE) {
            if (rs_set(w, e->ts, end, 0, t0, t1)) return true;
            continue;
        }
        if (e->cls != CLASS_COMM) continue;
        const CollMember *m = member_at(r, i, &w->mc);
        if (!m) {
            if (rs_set(w, e->ts, end, 2, t0, t1)) return true;
            continue;
        }
        int64_t we = e->ts + (m->wait < e->dur ? m->wait : e->dur);
        w->pend = true;
        w->pend_s = we;
        w->pend_e = end;
        if (rs_set(w, e->ts, we, 1, t0, t1)) return true;
    }
}

/* The next time one of the rows' intervals starts or ends. */
static int64_t sweep_next_time(const RowSweep *rs, size_t n) {
    int64_t T = INT64_MAX;
    for (size_t k = 0; k < n; k++) {
        int64_t x = rs[k].on ? rs[k].e : rs[k].s;
        if (x < T) T = x;
    }
    return T;
}

/* One GPU group's split over [t0, t1) by a sweep over its rows side by side: a row's
 * events are sorted and disjoint, so its intervals come in time order and the rows
 * merge without edges. Returns -1 (D partly summed) for more than SWEEP_MAX_ROWS rows or a
 * row out of order (the edges take it), else whether a counted event was met. */
static int split_sweep(const Trace *t, const CollReport *r, const Group *G, int64_t t0, int64_t t1,
                       CollDeviceSplit *D) {
    RowSweep rs[SWEEP_MAX_ROWS];
    memset(rs, 0, sizeof rs); /* gcc's -O2 with ASan cannot tell the first n are set */
    size_t n = 0, rows = 0;
    bool any = false;
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) rows += t->lanes[li].n_rows;
    if (rows > SWEEP_MAX_ROWS) return -1;
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
        const Lane *l = &t->lanes[li];
        for (uint32_t k = 0; k < l->n_rows; k++) {
            const Row *row = &t->rows[l->first_row + k];
            size_t i0 = Row_lowerBound(t, row, t0);
            rs[n] = (RowSweep){.ev = t->events, .i = i0, .end = row->first + row->count, .mc = member_cursor(r, i0)};
            if (rs_next(&rs[n], r, t0, t1, &any)) n++;
        }
    }
    int cnt[3] = {0, 0, 0};
    int64_t by_state[8] = {0}; /* time per (compute, wait part, rest of comm) present */
    int64_t at = sweep_next_time(rs, n);
    while (n) {
        /* every start and end at `at`; a row's next interval may start there too */
        for (size_t k = 0; k < n;) {
            RowSweep *w = &rs[k];
            if (!w->on && w->s == at) {
                cnt[w->cls]++;
                w->on = true;
            }
            if (!w->on || w->e != at) {
                k++;
                continue;
            }
            cnt[w->cls]--;
            if (!rs_next(w, r, t0, t1, &any)) {
                rs[k] = rs[--n];
                continue;
            }
            if (w->s < at) return -1; /* overlaps the interval before it: not a row */
        }
        if (!n) break;
        int64_t next = sweep_next_time(rs, n);
        by_state[(cnt[0] > 0) | (cnt[1] > 0) << 1 | (cnt[2] > 0) << 2] += next - at;
        at = next;
    }
    for (int st = 0; st < 8; st++) {
        int c[3] = {st & 1, st >> 1 & 1, st >> 2 & 1};
        split_add(D, c, by_state[st]);
    }
    return any;
}

/* One GPU group's split over [t0, t1); false when it has no counted event there. */
static bool split_group(const Trace *t, const CollReport *r, uint32_t g, int64_t t0, int64_t t1, ParScratch *S,
                        CollDeviceSplit *D) {
    const Group *G = &t->groups[g];
    memset(D, 0, sizeof *D);
    int swept = split_sweep(t, r, G, t0, t1, D);
    if (swept < 0) {
        memset(D, 0, sizeof *D);
        swept = split_edges(t, r, G, t0, t1, S, D);
    }
    if (!swept) return false;
    D->group = g;
    D->rank = G->rank;
    D->device = G->id;
    D->exposed = D->exposed_wait + D->exposed_transfer;
    return true;
}

typedef struct {
    const Trace *t;
    const CollReport *r;
    int64_t t0, t1;
    const uint32_t *groups; /* candidate GPU groups, in group order */
    CollDeviceSplit *res;   /* per candidate */
    bool *has;              /* per candidate: had events */
} SplitJob;

static void split_item(void *ctx, uint32_t k, ParScratch *S) {
    SplitJob *J = ctx;
    J->has[k] = split_group(J->t, J->r, J->groups[k], J->t0, J->t1, S, &J->res[k]);
}

static size_t group_events(const Trace *t, uint32_t g) {
    size_t n = 0;
    const Group *G = &t->groups[g];
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) n += t->lanes[li].count;
    return n;
}

/* Each GPU group's edges are independent: the groups run on CollReport.threads workers
 * (largest first) when there is enough to share, and come out in group order either way. */
CollDeviceSplit *Coll_deviceSplit(const Trace *t, const CollReport *r, int64_t t0, int64_t t1, int32_t rank,
                                  size_t *n_out) {
    uint32_t *groups = xmalloc((t->n_groups ? t->n_groups : 1) * sizeof *groups);
    size_t *size = xmalloc((t->n_groups ? t->n_groups : 1) * sizeof *size);
    size_t ng = 0, total = 0;
    for (uint32_t g = 0; g < t->n_groups; g++) {
        const Group *G = &t->groups[g];
        if (!G->gpu || (rank != INT32_MIN && G->rank != rank)) continue;
        size[ng] = group_events(t, g);
        total += size[ng];
        groups[ng++] = g;
    }
    SplitJob J = {t, r, t0, t1, groups, xcalloc(ng ? ng : 1, sizeof *J.res), xcalloc(ng ? ng : 1, sizeof *J.has)};
    uint32_t *order = ParFor_largestFirst(size, ng);
    int threads = r->threads > 0 ? r->threads : 1;
    if (ng < 2 || total < (1u << 15)) threads = 1; /* not worth a thread */
    ParFor_run(order, ng, threads, split_item, &J);
    size_t n = 0;
    for (size_t k = 0; k < ng; k++)
        if (J.has[k]) J.res[n++] = J.res[k];
    free(order);
    free(J.has);
    free(size);
    free(groups);
    *n_out = n;
    if (!n) {
        free(J.res);
        return NULL;
    }
    return J.res;
}
