/* Cross-rank collective matching (include/ovtrace/collectives.h).
 *
 * Linear in the comm kernels where the trace allows it: a lane's rows are sorted, so a
 * one-row lane yields its kernels in start order without sorting; kernels are scattered
 * into runs (channel, rank) by a counting sort, and the k-th kernels of a channel's runs
 * are aligned by position. Only Seq-keyed channels and multi-row lanes sort. */
#include "ovtrace/collectives.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collargs.h"
#include "ovtrace/overlap.h"
#include "util.h"

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

static const TraceEvent *g_events; /* for the qsort comparators below (single-threaded) */

static int cmp_ev(uint32_t x, uint32_t y) {
    int64_t sx = g_events[x].ts, sy = g_events[y].ts;
    if (sx != sy) return sx < sy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_ev_start(const void *a, const void *b) { return cmp_ev(*(const uint32_t *)a, *(const uint32_t *)b); }

typedef struct {
    uint32_t ev, name;
} EvName;

static int cmp_evname(const void *a, const void *b) {
    return cmp_ev(((const EvName *)a)->ev, ((const EvName *)b)->ev);
}

/* ---- channels --------------------------------------------------------------------------- */

static uint32_t channel_find(CollReport *R, size_t *cap, bool by_group, int64_t stream, uint32_t group) {
    for (size_t c = 0; c < R->n_channels; c++) {
        const CollChannel *C = &R->channels[c];
        if (C->by_group == by_group && (by_group ? C->group == group : C->stream == stream)) return (uint32_t)c;
    }
    GROW(R->channels, *cap, R->n_channels + 1);
    R->channels[R->n_channels] = (CollChannel){by_group, true, by_group ? -1 : stream, by_group ? group : 0};
    return (uint32_t)R->n_channels++;
}

/* ---- matching ----------------------------------------------------------------------------- */

typedef struct {
    const Trace *t;
    CollReport *R;
    size_t cap_inst, cap_mem;
    const uint32_t *ev;   /* items: event index */
    const uint32_t *name; /* items: collective name */
} Matcher;

/* Adds an instance from items idx[0..n) (distinct ranks, n >= 2, names agree). */
static void add_instance(Matcher *M, uint32_t channel, uint64_t seq, const uint32_t *idx, const int32_t *rk, size_t n) {
    CollReport *R = M->R;
    const TraceEvent *E = M->t->events;
    GROW(R->inst, M->cap_inst, R->n_inst + 1);
    GROW(R->members, M->cap_mem, R->n_members + n);
    uint32_t ii = (uint32_t)R->n_inst++;
    CollMember *mb = &R->members[R->n_members];
    for (size_t k = 0; k < n; k++) {
        const TraceEvent *e = &E[M->ev[idx[k]]];
        CollMember m = {M->ev[idx[k]], ii, rk[k], e->ts, e->ts + e->dur, 0, 0};
        /* insertion by (start, rank): members arrive nearly sorted */
        size_t j = k;
        while (j > 0 && (mb[j - 1].start > m.start || (mb[j - 1].start == m.start && mb[j - 1].rank > m.rank))) {
            mb[j] = mb[j - 1];
            j--;
        }
        mb[j] = m;
    }
    int64_t last = mb[n - 1].start, min_end = INT64_MAX, max_end = INT64_MIN;
    for (size_t k = 0; k < n; k++) {
        mb[k].wait = last - mb[k].start;
        mb[k].transfer = mb[k].end - last;
        if (mb[k].transfer < 0) R->negative_transfers++;
        if (mb[k].end < min_end) min_end = mb[k].end;
        if (mb[k].end > max_end) max_end = mb[k].end;
    }
    CollInstance *I = &R->inst[ii];
    *I = (CollInstance){M->name[idx[0]], channel, seq, (uint32_t)R->n_members, (uint32_t)n, mb[n - 1].rank,
                        mb[0].start, last, last - mb[0].start, max_end - min_end};
    R->n_members += n;
}

/* Checks items idx[0..n) (one per rank) and adds them as an instance, or counts them. */
static void consider(Matcher *M, uint32_t channel, uint64_t seq, const uint32_t *idx, const int32_t *rk, size_t n,
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
    add_instance(M, channel, seq, idx, rk, n);
}

typedef struct {
    int64_t seq;
    int32_t rank;
    uint32_t item;
    int64_t ts;
} SeqItem;

static int cmp_seq(const void *a, const void *b) {
    const SeqItem *x = a, *y = b;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->item < y->item ? -1 : x->item > y->item;
}

/* ---- analysis ---------------------------------------------------------------------------- */

typedef struct {
    uint32_t name;
    int64_t skew;
} NameSkew;

static int cmp_nameskew(const void *a, const void *b) {
    const NameSkew *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return x->skew < y->skew ? -1 : x->skew > y->skew;
}

static int cmp_name_count(const void *a, const void *b) {
    const CollName *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* by_event: member indices sorted by event, by two 16-bit radix passes over the event
 * index (members are at most 2^32). */
static void build_index(CollReport *R) {
    size_t n = R->n_members;
    uint32_t *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    size_t *cnt = xmalloc(65536 * sizeof *cnt);
    for (size_t i = 0; i < n; i++) a[i] = (uint32_t)i;
    for (int pass = 0; pass < 2; pass++) {
        int sh = pass * 16;
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(R->members[a[i]].event >> sh) & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) b[cnt[(R->members[a[i]].event >> sh) & 0xffff]++] = a[i];
        uint32_t *x = a;
        a = b;
        b = x;
    }
    free(b);
    free(cnt);
    R->by_event = a;
}

CollReport *Coll_analyze(const Trace *t, const CollOptions *o) {
    CollOptions opt = o ? *o : CollOptions_default();
    int64_t limit = opt.offset_limit > 0 ? opt.offset_limit : DEFAULT_OFFSET_LIMIT;
    CollReport *R = xcalloc(1, sizeof *R);
    R->strings = StrTab_new();

    /* ranks of GPU lanes */
    int32_t *ranks = xmalloc((t->n_lanes + 1) * sizeof *ranks);
    size_t nr = 0;
    for (size_t l = 0; l < t->n_lanes; l++)
        if (t->lanes[l].gpu) ranks[nr++] = t->lanes[l].rank;
    qsort(ranks, nr, sizeof *ranks, cmp_i32);
    size_t u = 0;
    for (size_t i = 0; i < nr; i++)
        if (!u || ranks[u - 1] != ranks[i]) ranks[u++] = ranks[i];
    nr = u;
    R->n_ranks = nr;
    R->ranks = xcalloc(nr, sizeof *R->ranks);
    for (size_t i = 0; i < nr; i++) R->ranks[i].rank = ranks[i];

    /* comm kernels, lane by lane in start order */
    size_t n = 0;
    for (size_t l = 0; l < t->n_lanes; l++) {
        const Lane *L = &t->lanes[l];
        if (!L->gpu) continue;
        for (size_t i = L->first; i < L->first + L->count; i++)
            n += t->events[i].kind == KIND_KERNEL && t->events[i].cls == CLASS_COMM;
    }
    uint32_t *ev = xmalloc((n + 1) * sizeof *ev);
    uint32_t *lane_of = xmalloc((n + 1) * sizeof *lane_of);
    size_t k = 0;
    g_events = t->events;
    for (size_t l = 0; l < t->n_lanes; l++) {
        const Lane *L = &t->lanes[l];
        if (!L->gpu) continue;
        size_t k0 = k;
        for (size_t i = L->first; i < L->first + L->count; i++)
            if (t->events[i].kind == KIND_KERNEL && t->events[i].cls == CLASS_COMM) {
                ev[k] = (uint32_t)i;
                lane_of[k++] = (uint32_t)l;
            }
        if (L->n_rows > 1 && k - k0 > 1) qsort(ev + k0, k - k0, sizeof *ev, cmp_ev_start);
        R->ranks[rank_index(ranks, nr, L->rank)].kernels += k - k0;
    }
    R->comm_kernels = n;

    CollArgs *args = NULL;
    if (opt.use_args && n && nr > 1) {
        args = xmalloc(n * sizeof *args);
        R->args_read = CollArgs_fetch(t, ev, n, args, R->strings);
    }

    /* channel and name per item */
    uint32_t *name = xmalloc((n + 1) * sizeof *name);
    int64_t *seq = xmalloc((n + 1) * sizeof *seq);
    uint32_t *chan = xmalloc((n + 1) * sizeof *chan);
    size_t cap_ch = 0;
    uint32_t cached_lane = UINT32_MAX, cached_ch = 0;
    for (size_t i = 0; i < n; i++) {
        const TraceEvent *e = &t->events[ev[i]];
        const CollArgs *a = args ? &args[i] : NULL;
        if (a && a->group != COLLARGS_NONE) {
            chan[i] = channel_find(R, &cap_ch, true, 0, a->group);
        } else {
            if (lane_of[i] != cached_lane) {
                cached_lane = lane_of[i];
                cached_ch = channel_find(R, &cap_ch, false, t->lanes[cached_lane].stream, 0);
            }
            chan[i] = cached_ch;
        }
        name[i] = a && a->coll != COLLARGS_NONE ? (COLL_ARGNAME | a->coll) : e->name;
        seq[i] = a ? a->seq : -1;
        if (seq[i] < 0) R->channels[chan[i]].by_seq = false;
    }
    free(args);

    /* runs (channel, rank) by a stable counting sort; a run fed by two lanes re-sorts */
    size_t nc = R->n_channels, n_runs = nc * nr;
    size_t *start = xcalloc(n_runs + 1, sizeof *start);
    uint32_t *run_lane = xmalloc((n_runs + 1) * sizeof *run_lane);
    bool *run_mixed = xcalloc(n_runs + 1, sizeof *run_mixed);
    for (size_t r = 0; r < n_runs; r++) run_lane[r] = UINT32_MAX;
    uint32_t *run = xmalloc((n + 1) * sizeof *run);
    for (size_t i = 0; i < n; i++) {
        uint32_t ri = (uint32_t)(chan[i] * nr + (size_t)rank_index(ranks, nr, t->lanes[lane_of[i]].rank));
        run[i] = ri;
        start[ri + 1]++;
        if (run_lane[ri] == UINT32_MAX) run_lane[ri] = lane_of[i];
        else if (run_lane[ri] != lane_of[i]) run_mixed[ri] = true;
    }
    for (size_t r = 0; r < n_runs; r++) start[r + 1] += start[r];
    uint32_t *order = xmalloc((n + 1) * sizeof *order); /* items in run order */
    {
        size_t *fill = xmalloc((n_runs + 1) * sizeof *fill);
        memcpy(fill, start, (n_runs + 1) * sizeof *fill);
        for (size_t i = 0; i < n; i++) order[fill[run[i]]++] = (uint32_t)i;
        free(fill);
    }
    free(run);
    free(chan);
    /* item arrays permuted into run order */
    uint32_t *pev = xmalloc((n + 1) * sizeof *pev), *pname = xmalloc((n + 1) * sizeof *pname);
    int64_t *pseq = xmalloc((n + 1) * sizeof *pseq);
    for (size_t i = 0; i < n; i++) {
        pev[i] = ev[order[i]];
        pname[i] = name[order[i]];
        pseq[i] = seq[order[i]];
    }
    free(order);
    free(ev);
    free(name);
    free(seq);
    free(lane_of);
    for (size_t r = 0; r < n_runs; r++)
        if (run_mixed[r] && !R->channels[r / nr].by_seq) {
            /* sort the run's (event, name) pairs by the event's start */
            size_t a = start[r], b = start[r + 1];
            EvName *pr = xmalloc((b - a) * sizeof *pr);
            for (size_t i = a; i < b; i++) pr[i - a] = (EvName){pev[i], pname[i]};
            qsort(pr, b - a, sizeof *pr, cmp_evname);
            for (size_t i = a; i < b; i++) {
                pev[i] = pr[i - a].ev;
                pname[i] = pr[i - a].name;
            }
            free(pr);
        }
    free(run_mixed);
    free(run_lane);

    Matcher M = {t, R, 0, 0, pev, pname};
    uint32_t *idx = xmalloc((nr + 1) * sizeof *idx);
    int32_t *rk = xmalloc((nr + 1) * sizeof *rk);
    for (size_t c = 0; c < nc; c++) {
        if (!R->channels[c].by_seq) {
            size_t K = 0;
            for (size_t ri = 0; ri < nr; ri++) {
                size_t len = start[c * nr + ri + 1] - start[c * nr + ri];
                if (len > K) K = len;
            }
            for (size_t kk = 0; kk < K; kk++) {
                size_t m = 0;
                for (size_t ri = 0; ri < nr; ri++) {
                    size_t a = start[c * nr + ri], b = start[c * nr + ri + 1];
                    if (kk < b - a) {
                        idx[m] = (uint32_t)(a + kk);
                        rk[m++] = ranks[ri];
                    }
                }
                consider(&M, (uint32_t)c, kk, idx, rk, m, false);
            }
        } else {
            size_t a = start[c * nr], b = start[(c + 1) * nr];
            SeqItem *S = xmalloc((b - a + 1) * sizeof *S);
            for (size_t ri = 0; ri < nr; ri++)
                for (size_t i = start[c * nr + ri]; i < start[c * nr + ri + 1]; i++)
                    S[i - a] = (SeqItem){pseq[i], ranks[ri], (uint32_t)i, t->events[pev[i]].ts};
            qsort(S, b - a, sizeof *S, cmp_seq);
            for (size_t i = 0; i < b - a;) {
                size_t j = i, m = 0;
                bool dup = false;
                uint32_t *gi = xmalloc((b - a + 1) * sizeof *gi);
                int32_t *gr = xmalloc((b - a + 1) * sizeof *gr);
                while (j < b - a && S[j].seq == S[i].seq) {
                    if (m && gr[m - 1] == S[j].rank) dup = true;
                    gi[m] = S[j].item;
                    gr[m++] = S[j].rank;
                    j++;
                }
                consider(&M, (uint32_t)c, (uint64_t)S[i].seq, gi, gr, m, dup);
                free(gi);
                free(gr);
                i = j;
            }
            free(S);
        }
    }
    free(idx);
    free(rk);
    free(start);
    free(pev);
    free(pname);
    free(pseq);

    /* per rank: sums, last arrivals; clock offsets from ends */
    int64_t *ends = NULL, *dev_of = xmalloc((R->n_members + 1) * sizeof *dev_of);
    size_t cap_ends = 0;
    int64_t *spreads = xmalloc((R->n_inst + 1) * sizeof *spreads);
    for (size_t i = 0; i < R->n_inst; i++) {
        const CollInstance *I = &R->inst[i];
        CollMember *mb = &R->members[I->first];
        GROW(ends, cap_ends, I->n);
        for (size_t j = 0; j < I->n; j++) ends[j] = mb[j].end;
        int64_t med = median_i64(ends, I->n);
        int64_t others = 0;
        for (size_t j = 0; j < I->n; j++) {
            CollRank *cr = &R->ranks[rank_index(ranks, nr, mb[j].rank)];
            int64_t dur = mb[j].end - mb[j].start;
            int64_t w = mb[j].wait < dur ? mb[j].wait : dur;
            cr->matched++;
            cr->comm += dur;
            cr->wait += w;
            cr->transfer += dur - w;
            others += mb[j].wait;
            dev_of[I->first + j] = mb[j].end - med;
        }
        if (I->skew > 0) { /* all at once: nobody arrived last */
            CollRank *lr = &R->ranks[rank_index(ranks, nr, I->last_rank)];
            lr->arrived_last++;
            lr->waited_for += others;
        }
        spreads[i] = I->end_spread;
    }
    free(ends);
    /* offsets: each rank's deviations gathered into one segment, then a median */
    {
        size_t *seg = xcalloc(nr + 1, sizeof *seg);
        for (size_t i = 0; i < R->n_members; i++) seg[rank_index(ranks, nr, R->members[i].rank) + 1]++;
        for (size_t r = 0; r < nr; r++) seg[r + 1] += seg[r];
        int64_t *dv = xmalloc((R->n_members + 1) * sizeof *dv);
        size_t *fill = xmalloc((nr + 1) * sizeof *fill);
        memcpy(fill, seg, (nr + 1) * sizeof *fill);
        for (size_t i = 0; i < R->n_members; i++) dv[fill[rank_index(ranks, nr, R->members[i].rank)]++] = dev_of[i];
        for (size_t r = 0; r < nr; r++) {
            R->ranks[r].clock_offset = median_i64(dv + seg[r], seg[r + 1] - seg[r]);
            int64_t a = R->ranks[r].clock_offset < 0 ? -R->ranks[r].clock_offset : R->ranks[r].clock_offset;
            if (a > R->max_clock_offset) R->max_clock_offset = a;
        }
        free(fill);
        free(dv);
        free(seg);
    }
    free(dev_of);
    if (R->n_inst) {
        R->median_end_spread = median_i64(spreads, R->n_inst);
        for (size_t i = 0; i < R->n_inst; i++)
            if (spreads[i] > R->max_end_spread) R->max_end_spread = spreads[i];
    }
    free(spreads);
    if (R->max_clock_offset > limit) {
        const CollRank *worst = NULL;
        for (size_t r = 0; r < nr; r++) {
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

    /* per collective name: count, median and max skew */
    NameSkew *ns = xmalloc((R->n_inst + 1) * sizeof *ns);
    for (size_t i = 0; i < R->n_inst; i++) ns[i] = (NameSkew){R->inst[i].name, R->inst[i].skew};
    qsort(ns, R->n_inst, sizeof *ns, cmp_nameskew);
    size_t cap_names = 0;
    for (size_t i = 0; i < R->n_inst;) {
        size_t j = i;
        while (j < R->n_inst && ns[j].name == ns[i].name) j++;
        GROW(R->names, cap_names, R->n_names + 1);
        R->names[R->n_names++] = (CollName){ns[i].name, j - i, ns[i + (j - i - 1) / 2].skew, ns[j - 1].skew};
        i = j;
    }
    free(ns);
    if (R->n_names > 1) qsort(R->names, R->n_names, sizeof *R->names, cmp_name_count);
    free(ranks);
    build_index(R);
    return R;
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

bool Coll_waitPart(const CollReport *r, size_t idx, int64_t *ws, int64_t *we) {
    const CollMember *m = Coll_memberOf(r, idx);
    if (!m) return false;
    int64_t dur = m->end - m->start;
    *ws = m->start;
    *we = m->start + (m->wait < dur ? m->wait : dur);
    return true;
}

/* ---- exposed comm split by cause ----------------------------------------------------------- */

typedef struct {
    int64_t t;
    int8_t delta;
    uint8_t cls; /* 0 compute, 1 wait, 2 other comm */
} Edge;

static int cmp_edge(const void *a, const void *b) {
    const Edge *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

static void push(Edge **E, size_t *n, size_t *cap, int64_t s, int64_t e, int64_t t0, int64_t t1, int cls) {
    if (s < t0) s = t0;
    if (e > t1) e = t1;
    if (e <= s) return;
    GROW(*E, *cap, *n + 2);
    (*E)[(*n)++] = (Edge){s, +1, (uint8_t)cls};
    (*E)[(*n)++] = (Edge){e, -1, (uint8_t)cls};
}

CollDeviceSplit *Coll_deviceSplit(const Trace *t, const CollReport *r, int64_t t0, int64_t t1, int32_t rank,
                                  size_t *n_out) {
    CollDeviceSplit *out = NULL;
    size_t n = 0, cap = 0, ne = 0, cap_e = 0;
    Edge *E = NULL;
    for (uint32_t g = 0; g < t->n_groups; g++) {
        const Group *G = &t->groups[g];
        if (!G->gpu || (rank != INT32_MIN && G->rank != rank)) continue;
        ne = 0;
        bool any = false;
        for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
            const Lane *l = &t->lanes[li];
            for (uint32_t k = 0; k < l->n_rows; k++) {
                const Row *row = &t->rows[l->first_row + k];
                for (size_t i = Row_lowerBound(t, row, t0); i < row->first + row->count; i++) {
                    const TraceEvent *e = &t->events[i];
                    if (e->ts >= t1) break;
                    if (!Overlap_counts(e)) continue;
                    any = true;
                    int64_t end = TraceEvent_end(e), ws, we;
                    if (e->cls == CLASS_COMPUTE) push(&E, &ne, &cap_e, e->ts, end, t0, t1, 0);
                    else if (e->cls != CLASS_COMM) continue;
                    else if (e->kind == KIND_KERNEL && Coll_waitPart(r, i, &ws, &we)) {
                        push(&E, &ne, &cap_e, ws, we, t0, t1, 1);
                        push(&E, &ne, &cap_e, we, end, t0, t1, 2);
                    } else {
                        push(&E, &ne, &cap_e, e->ts, end, t0, t1, 2);
                    }
                }
            }
        }
        if (!any) continue;
        GROW(out, cap, n + 1);
        CollDeviceSplit *D = &out[n++];
        memset(D, 0, sizeof *D);
        D->group = g;
        D->rank = G->rank;
        D->device = G->id;
        if (ne > 1) qsort(E, ne, sizeof *E, cmp_edge);
        int cnt[3] = {0, 0, 0};
        for (size_t i = 0; i < ne;) {
            int64_t at = E[i].t;
            while (i < ne && E[i].t == at) {
                cnt[E[i].cls] += E[i].delta;
                i++;
            }
            if (i == ne) break;
            int64_t d = E[i].t - at;
            bool comp = cnt[0] > 0, wait = cnt[1] > 0, other = cnt[2] > 0;
            if (wait || other) D->comm += d;
            if (other) D->transfer += d;
            else if (wait) D->wait += d;
            if (!comp) {
                if (other) D->exposed_transfer += d;
                else if (wait) D->exposed_wait += d;
            }
        }
        D->exposed = D->exposed_wait + D->exposed_transfer;
    }
    free(E);
    *n_out = n;
    return out;
}
