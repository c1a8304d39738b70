/* Trace_finish against a deliberately simple reference model written here from the
 * documented semantics (nothing from trace.c is reused): randomized traces built through
 * the public API (several sources, CPU and GPU lanes, heavy overlap and nesting, equal
 * timestamps, zero durations, counters, B-without-E events, flow points and correlation
 * ids, events appended sorted, as interleaved sorted streams, shuffled, reversed), plus
 * hand-written edge cases whose expected results are spelled out, plus one trace with
 * lanes big enough that the layout runs on several threads. Every trace is also finished
 * on 4 threads with FinishOptions.parallel_min = 1 (lanes and flow points in parallel however
 * small) and must come out identical to the byte (lanes and groups field by field: they
 * have padding).
 *
 * The reference model:
 *  - t_max: max end over events, a B-without-E event (EVF_NO_DUR) counting as ts; such
 *    events then get dur = t_max - ts. end = ts + dur, counters (value, not dur): ts.
 *  - per lane, events in (ts, longer first (counters 0), append order) take the lowest
 *    sub-row whose last end <= their start; the lane is stored by (depth, ts, longer
 *    first, append order); lanes keep their events; one Row per depth.
 *  - a flow point binds on the lane with its (source, pid, tid) (first in lane order if
 *    several): enclosing -> the deepest event with start <= ts <= end (the later one in
 *    the row on a tie), otherwise the event with the smallest start >= ts (lowest depth,
 *    then row order); among the events that qualify equally (enclosing: all containing
 *    ts; otherwise all at that smallest start) the same rule prefers those whose corr is
 *    the point's id. Points with equal (source, cat, id), ordered by ph (s, t, f), ts,
 *    append order, link consecutive bound points on different events.
 *  - launches / GPU ops with corr != 0 that are no endpoint of an "ac2g" flow above,
 *    grouped by (source, corr): the group's first launch gets an ac2g flow (id = corr)
 *    to each GPU op of the group.
 *  - flows sorted by (from, to, cat, id); flow_by_to by (to, flow index); Trace_partner
 *    follows the first ac2g/async flow out of the event, else the first one into it. */
#include "testutil.h"

#define PUSH(arr, n, cap, val)                                          \
    do {                                                                \
        if ((n) == (cap)) {                                             \
            (cap) = (cap) ? 2 * (cap) : 16;                             \
            (arr) = realloc((arr), (cap) * sizeof *(arr));              \
            assert_non_null(arr);                                       \
        }                                                               \
        (arr)[(n)++] = (val);                                           \
    } while (0)

static void *zalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz);
    assert_non_null(p);
    return p;
}

/* ---------- random numbers (splitmix64: same sequence everywhere) ---------- */

typedef struct {
    uint64_t s;
} Rng;

static uint64_t rnext(Rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t rbelow(Rng *r, uint64_t n) { return n ? rnext(r) % n : 0; }
static bool rchance(Rng *r, unsigned pct) { return rbelow(r, 100) < pct; }

/* ---------- strings every trace interns first, in this order ---------- */

#define N_NAMES 8
#define N_CATS 4
#define N_SKEYS 3
static const char *CATS[N_CATS] = {"ac2g", "fwdbwd", "async", "user_flow"};

typedef struct {
    uint32_t name[N_NAMES];
    uint32_t cat[N_CATS]; /* cat[0] is "ac2g", cat[2] "async" */
    int64_t skey[N_SKEYS]; /* string pid/tid keys */
} Ids;

static void prelude(Trace *t, Ids *ids) {
    memset(ids, 0, sizeof *ids);
    for (int i = 0; i < N_NAMES; i++) {
        char b[16];
        int n = snprintf(b, sizeof b, "op_%d", i);
        ids->name[i] = StrTab_intern(t->strings, b, (size_t)n);
    }
    for (int i = 0; i < N_CATS; i++) ids->cat[i] = StrTab_intern(t->strings, CATS[i], strlen(CATS[i]));
    for (int i = 0; i < N_SKEYS; i++) {
        char b[16];
        int n = snprintf(b, sizeof b, "strkey_%d", i);
        ids->skey[i] = Trace_stringKey(t, b, (size_t)n);
    }
}

static const Ids *ids(void) {
    static Ids g;
    static bool set;
    if (!set) {
        Trace *t = Trace_new();
        prelude(t, &g);
        Trace_free(t);
        set = true;
    }
    return &g;
}

/* ---------- trace specification: what is fed to the public API ---------- */

typedef struct {
    bool gpu;
    uint32_t source;
    int64_t a, b;     /* GPU: device, stream; CPU: pid, tid */
    int64_t pid, tid; /* GPU: the pid/tid passed along; CPU: = a, b */
} LaneReq;

typedef struct {
    uint32_t source;
    int64_t pid, tid, ts;
    uint64_t id;
    uint32_t cat;
    char ph;
    bool enc;
} PointSpec;

typedef struct {
    uint32_t n_sources;
    LaneReq *lr; /* lane requests in call order (repeats allowed) */
    size_t n_lr, cap_lr;
    TraceEvent *ev; /* append order; .lane is an index into lr */
    size_t n_ev, cap_ev;
    PointSpec *fp; /* flow points in call order */
    size_t n_fp, cap_fp;
} Spec;

static void spec_free(Spec *s) {
    free(s->lr);
    free(s->ev);
    free(s->fp);
    memset(s, 0, sizeof *s);
}

static uint32_t spec_cpu(Spec *s, uint32_t source, int64_t pid, int64_t tid) {
    PUSH(s->lr, s->n_lr, s->cap_lr, ((LaneReq){false, source, pid, tid, pid, tid}));
    return (uint32_t)(s->n_lr - 1);
}

static uint32_t spec_gpu(Spec *s, uint32_t source, int64_t dev, int64_t stream, int64_t pid, int64_t tid) {
    PUSH(s->lr, s->n_lr, s->cap_lr, ((LaneReq){true, source, dev, stream, pid, tid}));
    return (uint32_t)(s->n_lr - 1);
}

/* Appends an event; src is its unique tracking id. Returns its append index. */
static size_t spec_ev(Spec *s, uint32_t lr, int64_t ts, int64_t dur, EventKind kind, uint32_t corr, uint64_t src) {
    TraceEvent e;
    memset(&e, 0, sizeof e);
    e.ts = ts;
    e.dur = dur;
    e.src = src;
    e.name = ids()->name[src % N_NAMES];
    e.corr = corr;
    e.lane = lr;
    e.kind = kind;
    e.cls = (unsigned)(src % CLASS__COUNT);
    PUSH(s->ev, s->n_ev, s->cap_ev, e);
    return s->n_ev - 1;
}

static void spec_fp(Spec *s, uint32_t source, int64_t pid, int64_t tid, int64_t ts, uint64_t id, uint32_t cat, char ph,
                    bool enc) {
    PUSH(s->fp, s->n_fp, s->cap_fp, ((PointSpec){source, pid, tid, ts, id, cat, ph, enc}));
}

static Trace *build(const Spec *s) {
    Trace *t = Trace_new();
    Ids x;
    prelude(t, &x);
    assert_memory_equal(&x, ids(), sizeof x);
    for (uint32_t i = 0; i < s->n_sources; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "source-%u", i);
        assert_int_equal(Trace_addSource(t, nm), i);
    }
    uint32_t *lid = zalloc(s->n_lr, sizeof *lid);
    for (size_t i = 0; i < s->n_lr; i++) {
        const LaneReq *l = &s->lr[i];
        lid[i] = l->gpu ? Trace_gpuLane(t, l->source, l->a, l->b, l->pid, l->tid) : Trace_cpuLane(t, l->source, l->a, l->b);
    }
    for (size_t i = 0; i < s->n_ev; i++) {
        TraceEvent e = s->ev[i];
        e.lane = lid[e.lane];
        assert_int_equal(Trace_append(t, &e), i);
    }
    for (size_t i = 0; i < s->n_fp; i++) {
        const PointSpec *p = &s->fp[i];
        Trace_addFlowPoint(t, p->source, p->pid, p->tid, p->ts, p->id, p->cat, p->ph, p->enc);
    }
    free(lid);
    return t;
}

/* ---------- the reference model ---------- */

typedef struct {
    bool gpu;
    uint32_t source;
    int64_t a, b, pid, tid; /* pid/tid of the first request */
    uint32_t fin;           /* index in the finished trace's lanes */
} RLane;

typedef struct {
    uint32_t fin, depth;
    int64_t ts, sdur; /* sdur: duration for ordering (counters: 0) */
    size_t a;         /* append index */
} RefKey;

static int cmp_lane_time(const void *x, const void *y) {
    const RefKey *p = x, *q = y;
    if (p->fin != q->fin) return p->fin < q->fin ? -1 : 1;
    if (p->ts != q->ts) return p->ts < q->ts ? -1 : 1;
    if (p->sdur != q->sdur) return p->sdur > q->sdur ? -1 : 1;
    return p->a < q->a ? -1 : p->a > q->a;
}

static int cmp_final(const void *x, const void *y) {
    const RefKey *p = x, *q = y;
    if (p->fin != q->fin) return p->fin < q->fin ? -1 : 1;
    if (p->depth != q->depth) return p->depth < q->depth ? -1 : 1;
    return cmp_lane_time(x, y);
}

static int cmp_flow(const void *x, const void *y) {
    const Flow *p = x, *q = y;
    if (p->from != q->from) return p->from < q->from ? -1 : 1;
    if (p->to != q->to) return p->to < q->to ? -1 : 1;
    if (p->cat != q->cat) return p->cat < q->cat ? -1 : 1;
    return p->id < q->id ? -1 : p->id > q->id;
}

static int cmp_u64(const void *x, const void *y) {
    uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
    return p < q ? -1 : p > q;
}

static int ph_rank(char ph) { return ph == 's' ? 0 : ph == 't' ? 1 : 2; }
static bool is_launch(unsigned k) { return k == KIND_RUNTIME || k == KIND_DRIVER; }
static bool is_gpu_op(unsigned k) { return k == KIND_KERNEL || k == KIND_MEMCPY || k == KIND_MEMSET; }

#define NONE SIZE_MAX

/* What the reference predicts, in final positions (it predicts those too). */
typedef struct {
    size_t n;
    size_t *pos_of; /* append index -> final position */
    size_t *at;     /* final position -> append index */
    uint32_t *depth;
    int64_t *end;
    RLane *rl;
    size_t n_rl;
    uint32_t *lr_lane; /* lane request -> rl */
    size_t *pt_ev;     /* flow point -> final position of its event, NONE */
    Flow *flows;
    size_t n_flows, cap_flows;
    int64_t t_min, t_max;
} Ref;

static void ref_free(Ref *r) {
    free(r->pos_of);
    free(r->at);
    free(r->depth);
    free(r->end);
    free(r->rl);
    free(r->lr_lane);
    free(r->pt_ev);
    free(r->flows);
}

/* Builds the reference for spec s; the lane order (not what is tested here) is read from
 * the finished trace t. Fails on lanes that do not match the requests. */
static void reference(const Spec *s, const Trace *t, Ref *R, const char *what) {
    memset(R, 0, sizeof *R);
    size_t n = s->n_ev;
    R->n = n;
    /* lanes: one per distinct (source, gpu, key), remembering the first pid/tid */
    R->rl = zalloc(s->n_lr, sizeof *R->rl);
    R->lr_lane = zalloc(s->n_lr, sizeof *R->lr_lane);
    for (size_t i = 0; i < s->n_lr; i++) {
        const LaneReq *q = &s->lr[i];
        size_t k;
        for (k = 0; k < R->n_rl; k++)
            if (R->rl[k].gpu == q->gpu && R->rl[k].source == q->source && R->rl[k].a == q->a && R->rl[k].b == q->b) break;
        if (k == R->n_rl) R->rl[R->n_rl++] = (RLane){q->gpu, q->source, q->a, q->b, q->pid, q->tid, 0};
        R->lr_lane[i] = (uint32_t)k;
    }
    if (t->n_lanes != R->n_rl) fail_msg("%s: %zu lanes, want %zu", what, t->n_lanes, R->n_rl);
    for (size_t k = 0; k < R->n_rl; k++) {
        RLane *l = &R->rl[k];
        size_t hits = 0;
        for (size_t f = 0; f < t->n_lanes; f++) {
            const Lane *x = &t->lanes[f];
            if (x->source == l->source && x->gpu == l->gpu &&
                (l->gpu ? x->device == l->a && x->stream == l->b : x->pid == l->a && x->tid == l->b)) {
                l->fin = (uint32_t)f;
                hits++;
            }
        }
        if (hits != 1) fail_msg("%s: lane %zu found %zu times", what, k, hits);
        const Lane *x = &t->lanes[l->fin];
        if (x->pid != l->pid || x->tid != l->tid)
            fail_msg("%s: lane %zu has pid/tid %lld/%lld, created with %lld/%lld", what, k, (long long)x->pid,
                     (long long)x->tid, (long long)l->pid, (long long)l->tid);
    }
    /* extent; B without E runs to the end */
    R->t_min = INT64_MAX;
    R->t_max = INT64_MIN;
    for (size_t a = 0; a < n; a++) {
        const TraceEvent *e = &s->ev[a];
        int64_t end = e->kind == KIND_COUNTER || (e->flags & EVF_NO_DUR) ? e->ts : e->ts + e->dur;
        if (e->ts < R->t_min) R->t_min = e->ts;
        if (end > R->t_max) R->t_max = end;
    }
    if (n == 0) R->t_min = R->t_max = 0;
    RefKey *k = zalloc(n, sizeof *k);
    R->end = zalloc(n, sizeof *R->end);
    for (size_t a = 0; a < n; a++) {
        const TraceEvent *e = &s->ev[a];
        int64_t dur = e->kind == KIND_COUNTER ? 0 : (e->flags & EVF_NO_DUR) ? R->t_max - e->ts : e->dur;
        R->end[a] = e->ts + dur;
        k[a] = (RefKey){R->rl[R->lr_lane[e->lane]].fin, 0, e->ts, dur, a};
    }
    /* greedy interval partitioning, lane by lane */
    if (n > 1) qsort(k, n, sizeof *k, cmp_lane_time);
    R->depth = zalloc(n, sizeof *R->depth);
    int64_t *row_end = zalloc(n, sizeof *row_end);
    size_t rows = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || k[i].fin != k[i - 1].fin) rows = 0;
        size_t d = 0;
        while (d < rows && row_end[d] > k[i].ts) d++;
        if (d == rows) rows++;
        row_end[d] = R->end[k[i].a];
        k[i].depth = (uint32_t)d;
        R->depth[k[i].a] = (uint32_t)d;
    }
    free(row_end);
    if (n > 1) qsort(k, n, sizeof *k, cmp_final);
    R->pos_of = zalloc(n, sizeof *R->pos_of);
    R->at = zalloc(n, sizeof *R->at);
    for (size_t p = 0; p < n; p++) {
        R->at[p] = k[p].a;
        R->pos_of[k[p].a] = p;
    }
    free(k);

    /* flow points: each to an event, brute force over its lane (lane_lo: its first position) */
    size_t *lane_lo = zalloc(t->n_lanes, sizeof *lane_lo);
    for (size_t p = n; p-- > 0;) lane_lo[R->rl[R->lr_lane[s->ev[R->at[p]].lane]].fin] = p;
    R->pt_ev = zalloc(s->n_fp, sizeof *R->pt_ev);
    for (size_t i = 0; i < s->n_fp; i++) {
        const PointSpec *f = &s->fp[i];
        uint32_t lane = UINT32_MAX;
        for (size_t l = 0; l < R->n_rl; l++)
            if (R->rl[l].source == f->source && R->rl[l].pid == f->pid && R->rl[l].tid == f->tid && R->rl[l].fin < lane)
                lane = R->rl[l].fin;
        /* pass 0: every event; pass 1: only events whose corr is the point's id (and,
         * for a next-slice point, that start where pass 0's pick starts) */
        size_t best = NONE, geo = NONE;
        for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) geo = best, best = NONE;
        for (size_t p = lane == UINT32_MAX ? n : lane_lo[lane]; p < n && R->rl[R->lr_lane[s->ev[R->at[p]].lane]].fin == lane;
             p++) {
            size_t a = R->at[p];
            const TraceEvent *e = &s->ev[a];
            if (pass == 1 && (!e->corr || e->corr != f->id || (!f->enc && (geo == NONE || e->ts != s->ev[geo].ts))))
                continue;
            if (f->enc) {
                if (!(e->ts <= f->ts && f->ts <= R->end[a])) continue;
                if (best == NONE || R->depth[a] > R->depth[best] ||
                    (R->depth[a] == R->depth[best] && R->pos_of[a] > R->pos_of[best]))
                    best = a;
            } else {
                if (e->ts < f->ts) continue;
                const TraceEvent *b = best == NONE ? NULL : &s->ev[best];
                if (!b || e->ts < b->ts || (e->ts == b->ts && R->depth[a] < R->depth[best]) ||
                    (e->ts == b->ts && R->depth[a] == R->depth[best] && R->pos_of[a] < R->pos_of[best]))
                    best = a;
            }
        }
        }
        if (best == NONE) best = geo;
        R->pt_ev[i] = best == NONE ? NONE : R->pos_of[best];
    }
    free(lane_lo);
    /* chains */
    bool *done = zalloc(s->n_fp, sizeof *done);
    size_t *chain = zalloc(s->n_fp, sizeof *chain);
    for (size_t i = 0; i < s->n_fp; i++) {
        if (done[i]) continue;
        size_t m = 0;
        for (size_t j = i; j < s->n_fp; j++)
            if (!done[j] && s->fp[j].source == s->fp[i].source && s->fp[j].cat == s->fp[i].cat &&
                s->fp[j].id == s->fp[i].id) {
                done[j] = true;
                chain[m++] = j;
            }
        for (size_t x = 1; x < m; x++) /* insertion sort by (ph, ts, append order) */
            for (size_t y = x; y > 0; y--) {
                const PointSpec *p = &s->fp[chain[y - 1]], *q = &s->fp[chain[y]];
                bool swap = ph_rank(q->ph) < ph_rank(p->ph) || (ph_rank(q->ph) == ph_rank(p->ph) && q->ts < p->ts);
                if (!swap) break; /* equal keys keep append order (chain[] is in append order) */
                size_t tmp = chain[y];
                chain[y] = chain[y - 1];
                chain[y - 1] = tmp;
            }
        size_t prev = NONE;
        for (size_t x = 0; x < m; x++) {
            size_t ev = R->pt_ev[chain[x]];
            if (ev == NONE) continue;
            if (prev != NONE && ev != prev)
                PUSH(R->flows, R->n_flows, R->cap_flows,
                     ((Flow){(uint32_t)prev, (uint32_t)ev, s->fp[chain[x]].cat, (uint32_t)s->fp[chain[x]].id}));
            prev = ev;
        }
    }
    free(done);
    free(chain);
    /* correlation ids, for events no ac2g flow above touches */
    bool *bound = zalloc(n, sizeof *bound);
    for (size_t i = 0; i < R->n_flows; i++)
        if (R->flows[i].cat == ids()->cat[0]) bound[R->flows[i].from] = bound[R->flows[i].to] = true;
    size_t *cand = zalloc(n, sizeof *cand), n_cand = 0;
    for (size_t p = 0; p < n; p++) {
        const TraceEvent *e = &s->ev[R->at[p]];
        if (e->corr && !bound[p] && (is_launch(e->kind) || is_gpu_op(e->kind))) cand[n_cand++] = p;
    }
    bool *grouped = zalloc(n_cand, sizeof *grouped);
    for (size_t i = 0; i < n_cand; i++) {
        if (grouped[i]) continue;
        const TraceEvent *e = &s->ev[R->at[cand[i]]];
        uint32_t src = R->rl[R->lr_lane[e->lane]].source;
        size_t launch = NONE;
        for (size_t j = i; j < n_cand; j++) {
            const TraceEvent *x = &s->ev[R->at[cand[j]]];
            if (x->corr != e->corr || R->rl[R->lr_lane[x->lane]].source != src) continue;
            grouped[j] = true;
            if (launch == NONE && is_launch(x->kind)) launch = cand[j]; /* cand[] ascends */
        }
        if (launch == NONE) continue;
        for (size_t j = i; j < n_cand; j++) {
            const TraceEvent *x = &s->ev[R->at[cand[j]]];
            if (x->corr == e->corr && R->rl[R->lr_lane[x->lane]].source == src && is_gpu_op(x->kind))
                PUSH(R->flows, R->n_flows, R->cap_flows, ((Flow){(uint32_t)launch, (uint32_t)cand[j], ids()->cat[0], e->corr}));
        }
    }
    free(grouped);
    free(cand);
    free(bound);
    if (R->n_flows > 1) qsort(R->flows, R->n_flows, sizeof *R->flows, cmp_flow);
}

static void describe(const Trace *t, size_t p, char *buf, size_t len) {
    const TraceEvent *e = &t->events[p];
    snprintf(buf, len, "pos %zu: src %llu ts %lld dur %lld depth %u lane %u kind %u", p, (unsigned long long)e->src,
             (long long)e->ts, (long long)e->dur, (unsigned)e->depth, (unsigned)e->lane, (unsigned)e->kind);
}

/* Checks a finished trace t built from s against the reference. */
static void check_model(const Spec *s, const Trace *t, const char *what) {
    assert_null(t->build);
    size_t n = s->n_ev;
    if (t->n_events != n) fail_msg("%s: %zu events, want %zu", what, t->n_events, n);
    Ref R;
    reference(s, t, &R, what);
    if (t->t_min != R.t_min || t->t_max != R.t_max)
        fail_msg("%s: extent [%lld, %lld], want [%lld, %lld]", what, (long long)t->t_min, (long long)t->t_max,
                 (long long)R.t_min, (long long)R.t_max);
    /* 1. every appended event exactly once */
    uint64_t *got = zalloc(n, sizeof *got), *want = zalloc(n, sizeof *want);
    for (size_t i = 0; i < n; i++) got[i] = t->events[i].src, want[i] = s->ev[i].src;
    if (n > 1) qsort(got, n, sizeof *got, cmp_u64);
    if (n > 1) qsort(want, n, sizeof *want, cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) fail_msg("%s: the finished events are not the appended ones (src %llu vs %llu)", what,
                                        (unsigned long long)got[i], (unsigned long long)want[i]);
    free(got);
    free(want);
    /* 2. order, lane, depth, duration; everything else untouched */
    for (size_t p = 0; p < n; p++) {
        size_t a = R.at[p];
        TraceEvent e = s->ev[a];
        e.lane = R.rl[R.lr_lane[e.lane]].fin;
        e.depth = R.depth[a];
        if (e.flags & EVF_NO_DUR) e.dur = R.t_max - e.ts;
        if (memcmp(&e, &t->events[p], sizeof e) != 0) {
            char b[160];
            describe(t, p, b, sizeof b);
            fail_msg("%s: event at %s; want src %llu ts %lld dur %lld depth %u lane %u (append #%zu)", what, b,
                     (unsigned long long)e.src, (long long)e.ts, (long long)e.dur, (unsigned)e.depth, (unsigned)e.lane, a);
        }
    }
    /* lanes and rows */
    size_t at = 0, row = 0;
    for (uint32_t l = 0; l < t->n_lanes; l++) {
        const Lane *L = &t->lanes[l];
        size_t cnt = 0;
        uint32_t nd = 0;
        while (at + cnt < n && t->events[at + cnt].lane == l) {
            if ((uint32_t)t->events[at + cnt].depth + 1 > nd) nd = (uint32_t)t->events[at + cnt].depth + 1;
            cnt++;
        }
        if (L->first != at || L->count != cnt || L->first_row != row || L->n_rows != nd)
            fail_msg("%s: lane %u: events %zu+%zu rows %u+%u, want %zu+%zu rows %zu+%u", what, l, L->first, L->count,
                     L->first_row, L->n_rows, at, cnt, row, nd);
        size_t e = at;
        for (uint32_t d = 0; d < nd; d++, row++) {
            const Row *r = &t->rows[row];
            size_t c = 0;
            while (e + c < at + cnt && t->events[e + c].depth == d) c++;
            if (row >= t->n_rows || r->lane != l || r->depth != d || r->first != e || r->count != c)
                fail_msg("%s: row %zu (lane %u depth %u) covers %zu+%zu, want %zu+%zu", what, row, l, d, r->first,
                         r->count, e, c);
            for (size_t j = e + 1; j < e + c; j++)
                if (t->events[j].ts < t->events[j - 1].ts || TraceEvent_end(&t->events[j - 1]) > t->events[j].ts)
                    fail_msg("%s: row %zu not sorted/disjoint at %zu", what, row, j);
            e += c;
        }
        at += cnt;
    }
    if (at != n || row != t->n_rows) fail_msg("%s: lanes cover %zu events / %zu rows of %zu / %zu", what, at, row, n, t->n_rows);
    /* 3-5. flows */
    if (t->n_flows != R.n_flows) {
        size_t i = 0;
        while (i < t->n_flows && i < R.n_flows && !cmp_flow(&t->flows[i], &R.flows[i])) i++;
        const Flow *g = i < t->n_flows ? &t->flows[i] : NULL, *w = i < R.n_flows ? &R.flows[i] : NULL;
        fail_msg("%s: %zu flows, want %zu; first difference at %zu: got %d->%d cat %d id %u, want %d->%d cat %d id %u", what,
                 t->n_flows, R.n_flows, i, g ? (int)g->from : -1, g ? (int)g->to : -1, g ? (int)g->cat : -1,
                 g ? g->id : 0, w ? (int)w->from : -1, w ? (int)w->to : -1, w ? (int)w->cat : -1, w ? w->id : 0);
    }
    for (size_t i = 0; i < R.n_flows; i++)
        if (cmp_flow(&t->flows[i], &R.flows[i]))
            fail_msg("%s: flow %zu is %u->%u cat %u id %u, want %u->%u cat %u id %u", what, i, t->flows[i].from,
                     t->flows[i].to, t->flows[i].cat, t->flows[i].id, R.flows[i].from, R.flows[i].to, R.flows[i].cat,
                     R.flows[i].id);
    bool *seen = zalloc(t->n_flows, sizeof *seen);
    for (size_t i = 0; i < t->n_flows; i++) {
        uint32_t f = t->flow_by_to[i];
        if (f >= t->n_flows || seen[f]) fail_msg("%s: flow_by_to is not a permutation", what);
        seen[f] = true;
        if (i > 0) {
            uint32_t g = t->flow_by_to[i - 1];
            if (t->flows[g].to > t->flows[f].to || (t->flows[g].to == t->flows[f].to && g > f))
                fail_msg("%s: flow_by_to out of order at %zu", what, i);
        }
    }
    free(seen);
    /* Trace_partner on a sample */
    size_t step = n > 400 ? n / 400 : 1;
    for (size_t p = 0; p < n; p += step) {
        size_t want_p = NONE;
        for (size_t i = 0; i < R.n_flows; i++) {
            const Flow *f = &R.flows[i];
            if (f->from == p && (f->cat == ids()->cat[0] || f->cat == ids()->cat[2]) && (want_p == NONE || f->to < want_p))
                want_p = f->to;
        }
        for (size_t i = 0; i < R.n_flows && want_p == NONE; i++) {
            const Flow *f = &R.flows[i];
            if (f->to == p && (f->cat == ids()->cat[0] || f->cat == ids()->cat[2])) want_p = f->from; /* min from */
        }
        size_t got_p = Trace_partner(t, p);
        if (got_p != want_p) fail_msg("%s: Trace_partner(%zu) = %zd, want %zd", what, p, (ssize_t)got_p, (ssize_t)want_p);
    }
    ref_free(&R);
}

/* Two finishes of the same input must agree to the byte. */
static void check_same(const Trace *a, const Trace *b, const char *what) {
    assert_int_equal(a->n_events, b->n_events);
    assert_int_equal(a->n_lanes, b->n_lanes);
    assert_int_equal(a->n_rows, b->n_rows);
    assert_int_equal(a->n_groups, b->n_groups);
    assert_int_equal(a->n_flows, b->n_flows);
    assert_int_equal(a->t_min, b->t_min);
    assert_int_equal(a->t_max, b->t_max);
    if (a->n_events && memcmp(a->events, b->events, a->n_events * sizeof *a->events))
        fail_msg("%s: events differ between thread counts", what);
    if (a->n_rows && memcmp(a->rows, b->rows, a->n_rows * sizeof *a->rows)) fail_msg("%s: rows differ", what);
    if (a->n_flows && memcmp(a->flows, b->flows, a->n_flows * sizeof *a->flows)) fail_msg("%s: flows differ", what);
    if (a->n_flows && memcmp(a->flow_by_to, b->flow_by_to, a->n_flows * sizeof *a->flow_by_to))
        fail_msg("%s: flow_by_to differs", what);
    for (size_t i = 0; i < a->n_lanes; i++) { /* field by field: Lane has padding */
        const Lane *x = &a->lanes[i], *y = &b->lanes[i];
        if (x->gpu != y->gpu || x->rank != y->rank || x->source != y->source || x->pid != y->pid || x->tid != y->tid ||
            x->device != y->device || x->stream != y->stream || x->name != y->name || x->sort_index != y->sort_index ||
            x->group != y->group || x->first != y->first || x->count != y->count || x->first_row != y->first_row ||
            x->n_rows != y->n_rows)
            fail_msg("%s: lane %zu differs between thread counts", what, i);
    }
    for (size_t i = 0; i < a->n_groups; i++) {
        const Group *x = &a->groups[i], *y = &b->groups[i];
        if (x->gpu != y->gpu || x->rank != y->rank || x->source != y->source || x->id != y->id || x->name != y->name ||
            x->label != y->label || x->sort_index != y->sort_index || x->first_lane != y->first_lane ||
            x->n_lanes != y->n_lanes)
            fail_msg("%s: group %zu differs between thread counts", what, i);
    }
}

/* Finishes t on `threads` threads; par_all: even when lanes are small (by default only
 * a second lane of 32Ki items makes Trace_finish start threads). */
static void finish(Trace *t, int threads, bool par_all) {
    Trace_finishWith(t, &(FinishOptions){.threads = threads, .parallel_min = par_all ? 1 : 0});
}

/* Builds s three times, finishes on 1 and on `threads` threads (lanes and flow points in
 * parallel whatever their size; events moved in place and gathered), checks all. Returns the 1-thread trace for further
 * checks (caller frees). */
static Trace *run_spec(const Spec *s, int threads, const char *what) {
    Trace *a = build(s), *b = build(s), *c = build(s);
    finish(a, 1, false);
    finish(b, threads, true);
    /* as after a mapped input at least as large as the events: they are gathered into
     * a second array rather than moved in place */
    Trace_noteMapped(c, UINT64_MAX);
    finish(c, threads, true);
    check_model(s, a, what);
    check_same(a, b, what);
    check_same(a, c, what);
    Trace_free(b);
    Trace_free(c);
    return a;
}

/* Final position of the event with this src. */
static size_t pos_of_src(const Trace *t, uint64_t src) {
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].src == src) return i;
    fail_msg("src %llu not found", (unsigned long long)src);
    return NONE;
}

/* Is there a flow src_from -> src_to with this cat and id? */
static bool has_flow(const Trace *t, uint64_t from, uint64_t to, uint32_t cat, uint32_t id) {
    size_t f = pos_of_src(t, from), g = pos_of_src(t, to);
    for (size_t i = 0; i < t->n_flows; i++)
        if (t->flows[i].from == f && t->flows[i].to == g && t->flows[i].cat == cat && t->flows[i].id == id) return true;
    return false;
}

/* ---------- randomized traces ---------- */

typedef struct {
    Rng *r;
    Spec *s;
    int64_t base, span, grid;
    size_t want;
    size_t max_fp; /* 0: no cap */
} Gen;

static int64_t rdur(Gen *g) {
    Rng *r = g->r;
    switch (rbelow(r, 6)) {
    case 0: return 0;
    case 1: return g->grid * (int64_t)rbelow(r, 4);
    case 2: return (int64_t)rbelow(r, (uint64_t)g->span / 50 + 1);
    case 3: return (int64_t)rbelow(r, (uint64_t)g->span / 4 + 1);
    case 4: return (int64_t)rbelow(r, (uint64_t)g->span * 2 + 1);
    default: return g->grid * (int64_t)(1 + rbelow(r, 20));
    }
}

static int64_t rts(Gen *g) { return g->base + g->grid * (int64_t)rbelow(g->r, (uint64_t)(g->span / g->grid) + 1); }

/* One event on lane request lr; the kind fits the lane most of the time. */
static void gen_event(Gen *g, uint32_t lr, int64_t ts, int64_t dur) {
    Rng *r = g->r;
    bool gpu = g->s->lr[lr].gpu;
    EventKind k;
    unsigned x = (unsigned)rbelow(r, 100);
    if (gpu)
        k = x < 35 ? KIND_KERNEL : x < 55 ? KIND_MEMCPY : x < 65 ? KIND_MEMSET : x < 75 ? KIND_SYNC
          : x < 85 ? KIND_GPU_ANNOTATION : x < 90 ? KIND_COUNTER : x < 95 ? KIND_RUNTIME : KIND_OTHER;
    else
        k = x < 25 ? KIND_RUNTIME : x < 35 ? KIND_DRIVER : x < 55 ? KIND_CPU_OP : x < 65 ? KIND_PYTHON
          : x < 73 ? KIND_ANNOTATION : x < 80 ? KIND_INSTANT : x < 87 ? KIND_COUNTER : x < 93 ? KIND_OTHER : KIND_KERNEL;
    uint32_t corr = 0;
    uint64_t ncorr = g->want / 4 + 2;
    if ((is_launch(k) || is_gpu_op(k)) ? rchance(r, 75) : rchance(r, 10)) corr = (uint32_t)(1 + rbelow(r, ncorr));
    if (rchance(r, 3)) corr = 0xffffffffu - (uint32_t)rbelow(r, 2);
    size_t i = spec_ev(g->s, lr, ts, k == KIND_INSTANT ? 0 : dur, k, corr, 0);
    TraceEvent *e = &g->s->ev[i];
    e->name = ids()->name[rbelow(r, N_NAMES)];
    e->cls = (unsigned)rbelow(r, CLASS__COUNT);
    if (k == KIND_COUNTER) {
        static const double V[] = {0.0, -0.0, 1.5, -3.25, 1e300, -1e300, 4096.0, 7e-300};
        e->value = rchance(r, 50) ? V[rbelow(r, 8)] : (double)(int64_t)rnext(r) / 1024.0;
    } else if (rchance(r, 4)) { /* B without E: the loader's dur is meaningless */
        e->flags |= EVF_NO_DUR;
        e->dur = rchance(r, 50) ? 0 : (int64_t)rbelow(r, 1000000);
    }
    if (k == KIND_MEMCPY && rchance(r, 30)) e->flags |= EVF_MEMCPY_P2P;
}

/* Properly nested intervals inside [lo, hi] (children may touch each other and the
 * parent's ends). */
static void gen_nest(Gen *g, uint32_t lr, int64_t lo, int64_t hi, int level) {
    Rng *r = g->r;
    int64_t cur = lo;
    while (g->s->n_ev < g->want && cur <= hi) {
        int64_t st = cur + (rchance(r, 40) ? 0 : (int64_t)rbelow(r, (uint64_t)(hi - cur) / 3 + 1));
        int64_t en = rchance(r, 20) ? hi : st + (int64_t)rbelow(r, (uint64_t)(hi - st) + 1);
        gen_event(g, lr, st, en - st);
        if (level < 10 && en > st && rchance(r, 60)) gen_nest(g, lr, st, en, level + 1);
        if (rchance(r, 10)) break;
        cur = en > cur ? en : cur + 1 + (int64_t)rbelow(r, 3);
    }
}

static int cmp_ts_stable(const void *x, const void *y) {
    const TraceEvent *p = x, *q = y;
    if (p->ts != q->ts) return p->ts < q->ts ? -1 : 1;
    return p->src < q->src ? -1 : p->src > q->src; /* src = generation order here */
}

static void shuffle_ev(Rng *r, TraceEvent *ev, size_t n) {
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rbelow(r, i);
        TraceEvent x = ev[i - 1];
        ev[i - 1] = ev[j];
        ev[j] = x;
    }
}

/* Reorders the events as a profiler might have written them. */
static int reorder(Rng *r, Spec *s) {
    size_t n = s->n_ev;
    TraceEvent *ev = s->ev;
    for (size_t i = 0; i < n; i++) ev[i].src = i;
    int mode = (int)rbelow(r, 7);
    switch (mode) {
    case 0: break; /* generation order: nested bursts in pre-order, random ones anywhere */
    case 1:
        if (n > 1) qsort(ev, n, sizeof *ev, cmp_ts_stable);
        break;
    case 2: {     /* k sorted streams, interleaved */
        size_t k = 2 + (size_t)rbelow(r, rchance(r, 70) ? 8 : 30);
        uint32_t *stream = zalloc(n, sizeof *stream);
        TraceEvent *out = zalloc(n, sizeof *out);
        size_t *cnt = zalloc(k, sizeof *cnt), *head = zalloc(k, sizeof *head);
        for (size_t i = 0; i < n; i++) stream[i] = (uint32_t)rbelow(r, k);
        if (n > 1) qsort(ev, n, sizeof *ev, cmp_ts_stable);
        TraceEvent **per = zalloc(k, sizeof *per);
        for (size_t j = 0; j < k; j++) per[j] = zalloc(n, sizeof **per);
        for (size_t i = 0; i < n; i++) per[stream[i]][cnt[stream[i]]++] = ev[i];
        for (size_t o = 0; o < n; o++) {
            size_t j;
            do j = (size_t)rbelow(r, k);
            while (head[j] == cnt[j]);
            out[o] = per[j][head[j]++];
        }
        if (n) memcpy(ev, out, n * sizeof *ev);
        for (size_t j = 0; j < k; j++) free(per[j]);
        free(per);
        free(stream);
        free(out);
        free(cnt);
        free(head);
        break;
    }
    case 3: shuffle_ev(r, ev, n); break;
    case 4: /* nearly sorted: some events a few places late */
        if (n > 1) qsort(ev, n, sizeof *ev, cmp_ts_stable);
        for (size_t m = rbelow(r, n / 8 + 2); m-- > 0 && n > 1;) {
            size_t i = (size_t)rbelow(r, n - 1), j = i + 1 + (size_t)rbelow(r, 6);
            if (j >= n) j = n - 1;
            TraceEvent x = ev[i];
            ev[i] = ev[j];
            ev[j] = x;
        }
        break;
    case 5: /* reversed */
        if (n > 1) qsort(ev, n, sizeof *ev, cmp_ts_stable);
        for (size_t i = 0; i < n / 2; i++) {
            TraceEvent x = ev[i];
            ev[i] = ev[n - 1 - i];
            ev[n - 1 - i] = x;
        }
        break;
    default: /* lane by lane, each sorted */
        if (n > 1) qsort(ev, n, sizeof *ev, cmp_ts_stable);
        {
            TraceEvent *out = zalloc(n, sizeof *out);
            size_t o = 0;
            for (size_t l = 0; l < s->n_lr; l++)
                for (size_t i = 0; i < n; i++)
                    if (ev[i].lane == l) out[o++] = ev[i];
            if (n) memcpy(ev, out, n * sizeof *ev);
            free(out);
        }
        break;
    }
    /* tracking ids unrelated to the append order, so ties cannot be broken by src */
    uint64_t *perm = zalloc(n, sizeof *perm);
    for (size_t i = 0; i < n; i++) perm[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rbelow(r, i);
        uint64_t x = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = x;
    }
    for (size_t i = 0; i < n; i++) ev[i].src = perm[i] * 1000003u + 17u;
    free(perm);
    return mode;
}

/* The pid/tid the lane of request lr remembers (its first request). */
static const LaneReq *first_req(const Spec *s, uint32_t lr) {
    const LaneReq *q = &s->lr[lr];
    for (size_t i = 0; i < lr; i++) {
        const LaneReq *p = &s->lr[i];
        if (p->gpu == q->gpu && p->source == q->source && p->a == q->a && p->b == q->b) return p;
    }
    return q;
}

static int64_t point_ts(Gen *g, const TraceEvent *e) {
    Rng *r = g->r;
    int64_t end = e->kind == KIND_COUNTER ? e->ts : e->ts + e->dur;
    switch (rbelow(r, 9)) {
    case 0: case 1: return e->ts;
    case 2: return end;
    case 3: return e->ts - 1;
    case 4: return e->ts + 1;
    case 5: return e->kind == KIND_COUNTER || e->dur <= 0 ? e->ts : e->ts + (int64_t)rbelow(r, (uint64_t)e->dur + 1);
    case 6: return g->base - 100;
    case 7: return g->base + 3 * g->span + 100;
    default: return rts(g);
    }
}

static void gen_points(Gen *g) {
    Rng *r = g->r;
    Spec *s = g->s;
    size_t n = s->n_ev, target = n == 0 ? (size_t)rbelow(r, 12) : (size_t)rbelow(r, n / 2 + 8);
    if (g->max_fp && target > g->max_fp) target = g->max_fp;
    while (s->n_fp < target) {
        if (n > 0 && rchance(r, 25)) { /* a Kineto-like ac2g pair: launch -> GPU op */
            const TraceEvent *op = &s->ev[rbelow(r, n)];
            if (!is_gpu_op(op->kind) || !op->corr) continue;
            uint32_t src = s->lr[op->lane].source;
            size_t start = (size_t)rbelow(r, n), j;
            const TraceEvent *ln = NULL;
            for (j = 0; j < n && !ln; j++) {
                const TraceEvent *x = &s->ev[(start + j) % n];
                if (is_launch(x->kind) && x->corr == op->corr && s->lr[x->lane].source == src) ln = x;
            }
            if (!ln) continue;
            const LaneReq *a = first_req(s, ln->lane), *b = first_req(s, op->lane);
            uint64_t id = rchance(r, 90) ? op->corr : op->corr | (1ull << 40);
            /* one random draw per statement: argument evaluation order is unspecified */
            int64_t ts = rchance(r, 85) ? ln->ts : point_ts(g, ln);
            spec_fp(s, src, a->pid, a->tid, ts, id, ids()->cat[0], 's', true);
            if (rchance(r, 10)) {
                ts = point_ts(g, op);
                bool enc = rchance(r, 50);
                spec_fp(s, src, b->pid, b->tid, ts, id, ids()->cat[0], 't', enc);
            }
            ts = rchance(r, 85) ? op->ts : point_ts(g, op);
            bool enc = rchance(r, 70);
            spec_fp(s, src, b->pid, b->tid, ts, id, ids()->cat[0], 'f', enc);
            continue;
        }
        uint32_t src = rchance(r, 5) ? s->n_sources : (uint32_t)rbelow(r, s->n_sources);
        uint32_t cat = ids()->cat[rbelow(r, N_CATS)];
        uint64_t id;
        switch (rbelow(r, 4)) {
        case 0: id = rnext(r); break;
        case 1: /* equal low 32 bits */
            id = (1 + rbelow(r, 3)) << 32;
            id |= 1 + rbelow(r, 8);
            break;
        default: id = 1 + rbelow(r, n / 8 + 3); break;                      /* shared across chains */
        }
        size_t len = rchance(r, 4) ? 17 + (size_t)rbelow(r, 30) : 1 + (size_t)rbelow(r, 5); /* long: sorted apart */
        bool odd = rchance(r, 25);
        for (size_t k = 0; k < len; k++) {
            char ph = odd ? "stf"[rbelow(r, 3)] : k == 0 ? 's' : k == len - 1 ? 'f' : 't';
            int64_t pid = 4242, tid = 1, ts = rts(g);
            if (n > 0 && rchance(r, 90)) {
                const TraceEvent *e = &s->ev[rbelow(r, n)];
                for (int tries = 0; tries < 4 && s->lr[e->lane].source != src; tries++) e = &s->ev[rbelow(r, n)];
                const LaneReq *q = first_req(s, e->lane);
                if (rchance(r, 95)) {
                    pid = q->pid;
                    tid = q->tid;
                } else if (rchance(r, 50)) { /* the lane's device/stream, which only matches by chance */
                    pid = q->a;
                    tid = q->b;
                }
                ts = point_ts(g, e);
            } else if (s->n_lr && rchance(r, 50)) {
                const LaneReq *q = first_req(s, (uint32_t)rbelow(r, s->n_lr));
                pid = q->pid;
                tid = q->tid;
            }
            spec_fp(s, src, pid, tid, ts, id, cat, ph, rchance(r, 50));
        }
    }
    /* append order of the points */
    size_t m = s->n_fp;
    switch (rbelow(r, 4)) {
    case 0: break;
    case 1:
        for (size_t i = m; i > 1; i--) {
            size_t j = (size_t)rbelow(r, i);
            PointSpec x = s->fp[i - 1];
            s->fp[i - 1] = s->fp[j];
            s->fp[j] = x;
        }
        break;
    default: /* runs of the same pid/tid (case 2) or all by time (case 3): insertion, stable */
    {
        bool by_lane = rchance(r, 50);
        for (size_t i = 1; i < m; i++)
            for (size_t j = i; j > 0; j--) {
                const PointSpec *p = &s->fp[j - 1], *q = &s->fp[j];
                int c = 0;
                if (by_lane) {
                    if (p->source != q->source) c = p->source < q->source ? -1 : 1;
                    else if (p->pid != q->pid) c = p->pid < q->pid ? -1 : 1;
                    else if (p->tid != q->tid) c = p->tid < q->tid ? -1 : 1;
                }
                if (!c && p->ts != q->ts) c = p->ts < q->ts ? -1 : 1;
                if (c <= 0) break;
                PointSpec x = s->fp[j];
                s->fp[j] = s->fp[j - 1];
                s->fp[j - 1] = x;
            }
        break;
    }
    }
}

static void gen_spec(Spec *s, uint64_t seed, int *mode) {
    Rng rr = {seed * 0x2545f4914f6cdd1dull + 0x1234};
    Rng *r = &rr;
    memset(s, 0, sizeof *s);
    Gen g = {.r = r, .s = s};
    unsigned sz = (unsigned)rbelow(r, 100);
    g.want = sz < 5 ? (size_t)rbelow(r, 4) : sz < 55 ? 1 + (size_t)rbelow(r, 300)
           : sz < 90 ? 300 + (size_t)rbelow(r, 1200) : 1500 + (size_t)rbelow(r, 2500);
    static const int64_t BASES[] = {0, -5000, 1000000000, 1700000000000000000};
    g.base = BASES[rbelow(r, 4)];
    static const int64_t GRIDS[] = {1, 1, 10, 1000};
    g.grid = GRIDS[rbelow(r, 4)];
    uint64_t dens = rbelow(r, 3);
    g.span = g.grid * (int64_t)(g.want + 10) * (dens == 0 ? 1 : dens == 1 ? 10 : 200);
    /* lanes */
    s->n_sources = 1 + (uint32_t)rbelow(r, 3);
    const Ids *I = ids();
    for (uint32_t src = 0; src < s->n_sources; src++) {
        for (uint64_t c = rbelow(r, 4); c-- > 0;) {
            static const int64_t PIDS[] = {100, 200, 0};
            int64_t pid = rchance(r, 15) ? I->skey[0] : PIDS[rbelow(r, 3)];
            int64_t tid = rchance(r, 15) ? I->skey[1 + rbelow(r, 2)] : rchance(r, 15) ? pid : 1 + (int64_t)rbelow(r, 8);
            spec_cpu(s, src, pid, tid);
        }
        for (uint64_t c = rbelow(r, 4); c-- > 0;) {
            int64_t dev = (int64_t)rbelow(r, 2), stream = 7 + (int64_t)rbelow(r, 3);
            int64_t pid = rchance(r, 80) ? dev : 100, tid = rchance(r, 80) ? stream : 1 + (int64_t)rbelow(r, 8);
            spec_gpu(s, src, dev, stream, pid, tid);
            if (rchance(r, 15)) spec_gpu(s, src, dev, stream, pid + 5, tid + 5); /* same lane, other pid/tid */
        }
    }
    if (s->n_lr == 0 && (g.want > 0 || rchance(r, 50))) spec_cpu(s, 0, 100, 1);
    /* events */
    uint32_t hot = (uint32_t)rbelow(r, s->n_lr ? s->n_lr : 1);
    while (s->n_ev < g.want) {
        uint32_t lr = rchance(r, 40) ? hot : (uint32_t)rbelow(r, s->n_lr);
        unsigned x = (unsigned)rbelow(r, 100);
        if (x < 25) {
            int64_t lo = rts(&g), len = rdur(&g);
            len += (int64_t)rbelow(r, 50);
            gen_nest(&g, lr, lo, lo + len, 0);
        } else if (x < 40 && s->n_ev > 0) { /* relative to an earlier event: copies, touching, zero length */
            const TraceEvent e = s->ev[rbelow(r, s->n_ev)];
            int64_t end = e.kind == KIND_COUNTER ? e.ts : e.ts + e.dur;
            switch (rbelow(r, 5)) {
            case 0: gen_event(&g, e.lane, e.ts, e.kind == KIND_COUNTER ? 0 : e.dur); break;
            case 1: gen_event(&g, e.lane, e.ts, 0); break;
            case 2: gen_event(&g, e.lane, end, 0); break;
            case 3: gen_event(&g, e.lane, end, rdur(&g)); break;
            default: {
                int64_t d = rdur(&g);
                gen_event(&g, e.lane, e.ts - d, d);
            }
            }
        } else {
            int64_t ts = rts(&g), dur = rdur(&g);
            gen_event(&g, lr, ts, dur);
        }
    }
    *mode = reorder(r, s);
    gen_points(&g);
}

static void randomized(void **state) {
    (void)state;
    size_t total = 0, max_n = 0, flows = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        Spec s;
        int mode;
        gen_spec(&s, seed, &mode);
        char what[64];
        snprintf(what, sizeof what, "seed %llu (%zu events, order %d)", (unsigned long long)seed, s.n_ev, mode);
        Trace *t = run_spec(&s, 4, what);
        total += s.n_ev;
        flows += t->n_flows;
        if (s.n_ev > max_n) max_n = s.n_ev;
        Trace_free(t);
        spec_free(&s);
    }
    fprintf(stderr, "randomized: 300 traces, %zu events (max %zu), %zu flows\n", total, max_n, flows);
}

/* ---------- hand-written cases ---------- */

static void empty(void **state) {
    (void)state;
    Spec s = {0};
    Trace *t = run_spec(&s, 4, "no sources");
    assert_int_equal(t->n_events, 0);
    assert_int_equal(t->t_min, 0);
    assert_int_equal(t->t_max, 0);
    Trace_free(t);
    /* lanes without events, flow points with nothing to bind to */
    s.n_sources = 2;
    spec_cpu(&s, 0, 1, 1);
    spec_gpu(&s, 1, 0, 7, 0, 7);
    spec_fp(&s, 0, 1, 1, 5, 9, ids()->cat[1], 's', true);
    spec_fp(&s, 0, 1, 1, 6, 9, ids()->cat[1], 'f', false);
    spec_fp(&s, 1, 0, 7, 6, 9, ids()->cat[0], 'f', false);
    t = run_spec(&s, 4, "lanes without events");
    assert_int_equal(t->n_lanes, 2);
    assert_int_equal(t->n_rows, 0);
    assert_int_equal(t->n_flows, 0);
    Trace_free(t);
    spec_free(&s);
}

/* Depths, ties and flow binding at interval boundaries, worked out by hand. src values
 * run against the append order so that ties cannot be settled by src. */
static void boundaries(void **state) {
    (void)state;
    Spec s = {.n_sources = 1};
    uint32_t L = spec_cpu(&s, 0, 100, 1);
    spec_ev(&s, L, 10, 10, KIND_CPU_OP, 0, 50); /* a0: d0 */
    spec_ev(&s, L, 0, 10, KIND_CPU_OP, 0, 40);  /* a1: d0, first */
    spec_ev(&s, L, 10, 0, KIND_CPU_OP, 0, 30);  /* a2: d2 (rows 0 and 1 end at 20) */
    spec_ev(&s, L, 10, 10, KIND_CPU_OP, 0, 20); /* a3: same as a0, appended later: d1 */
    spec_ev(&s, L, 5, 0, KIND_CPU_OP, 0, 10);   /* a4: inside a1: d1 */
    spec_ev(&s, L, 30, 0, KIND_INSTANT, 0, 9);  /* b0: d0 after a0 */
    spec_ev(&s, L, 30, 0, KIND_INSTANT, 0, 8);  /* b1: d0 after b0 (end 30 <= 30) */
    uint32_t c = ids()->cat[1];
    /* X: s encloses 10 -> deepest containing 10 is a2; f: next start >= 6 is ts 10, lowest depth: a0 */
    spec_fp(&s, 0, 100, 1, 6, 1, c, 'f', false);
    spec_fp(&s, 0, 100, 1, 10, 1, c, 's', true);
    /* Y: s at 25 binds nothing, t@5 -> a4, t@30 -> b1 (the later of two in a row), f@31 nothing */
    spec_fp(&s, 0, 100, 1, 31, 2, c, 'f', false);
    spec_fp(&s, 0, 100, 1, 30, 2, c, 't', true);
    spec_fp(&s, 0, 100, 1, 5, 2, c, 't', true);
    spec_fp(&s, 0, 100, 1, 25, 2, c, 's', true);
    /* Z: both ends on b1: no flow; W: next start >= 30 is b0 (first in its row) */
    spec_fp(&s, 0, 100, 1, 30, 3, c, 's', true);
    spec_fp(&s, 0, 100, 1, 30, 3, c, 'f', true);
    spec_fp(&s, 0, 100, 1, 30, 4, c, 's', false);
    spec_fp(&s, 0, 100, 1, 20, 4, c, 'f', true); /* encloses 20: a0 (d0) and a3 (d1): a3 */
    Trace *t = run_spec(&s, 4, "boundaries");
    static const uint64_t order[] = {40, 50, 9, 8, 10, 20, 30}; /* (depth, ts, longer, append) */
    static const unsigned depth[] = {0, 0, 0, 0, 1, 1, 2};
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(t->events[i].src, order[i]);
        assert_int_equal(t->events[i].depth, depth[i]);
    }
    assert_int_equal(t->n_rows, 3);
    assert_int_equal(t->n_flows, 3);
    assert_true(has_flow(t, 30, 50, c, 1));
    assert_true(has_flow(t, 10, 8, c, 2));
    assert_true(has_flow(t, 9, 20, c, 4));
    Trace_free(t);
    spec_free(&s);
}

/* Correlation flows: first launch of a (source, corr) group, ac2g points taking over,
 * other categories not, sources kept apart. */
static void correlation(void **state) {
    (void)state;
    Spec s = {.n_sources = 2};
    uint32_t cpu = spec_cpu(&s, 0, 100, 1), gpu = spec_gpu(&s, 0, 0, 7, 0, 7);
    uint32_t cpu1 = spec_cpu(&s, 1, 100, 1), gpu1 = spec_gpu(&s, 1, 0, 7, 0, 7);
    spec_ev(&s, cpu, 0, 5, KIND_RUNTIME, 5, 1);  /* R1: first launch of 5 */
    spec_ev(&s, cpu, 10, 5, KIND_DRIVER, 5, 2);  /* R2: a second launch of 5: no flows */
    spec_ev(&s, gpu, 20, 5, KIND_KERNEL, 5, 3);  /* K1 */
    spec_ev(&s, gpu, 30, 5, KIND_MEMCPY, 5, 4);  /* M1 */
    spec_ev(&s, gpu, 40, 5, KIND_SYNC, 5, 5);    /* not a GPU op */
    spec_ev(&s, gpu1, 20, 5, KIND_KERNEL, 5, 6); /* source 1: no launch of 5 there */
    spec_ev(&s, cpu, 50, 5, KIND_RUNTIME, 6, 7); /* L6 -> K6 by an ac2g chain only */
    spec_ev(&s, gpu, 60, 5, KIND_KERNEL, 6, 8);
    spec_ev(&s, cpu, 70, 5, KIND_RUNTIME, 7, 9); /* L7 -> K7a by chain; K7b then has no free launch */
    spec_ev(&s, gpu, 80, 5, KIND_KERNEL, 7, 10);
    spec_ev(&s, gpu, 90, 5, KIND_KERNEL, 7, 11);
    spec_ev(&s, cpu, 100, 5, KIND_RUNTIME, 8, 12); /* L8 -> K8: fwdbwd does not stop ac2g */
    spec_ev(&s, gpu, 110, 5, KIND_KERNEL, 8, 13);
    spec_ev(&s, cpu1, 120, 5, KIND_CPU_OP, 9, 14); /* not a launch */
    spec_ev(&s, gpu1, 130, 5, KIND_KERNEL, 9, 15);
    uint32_t ac2g = ids()->cat[0], fb = ids()->cat[1];
    spec_fp(&s, 0, 0, 7, 60, 6, ac2g, 'f', true);
    spec_fp(&s, 0, 100, 1, 52, 6, ac2g, 's', true);
    spec_fp(&s, 0, 100, 1, 70, 7, ac2g, 's', true);
    spec_fp(&s, 0, 0, 7, 80, 7, ac2g, 'f', true);
    spec_fp(&s, 0, 100, 1, 100, 8, fb, 's', true);
    spec_fp(&s, 0, 0, 7, 110, 8, fb, 'f', true);
    Trace *t = run_spec(&s, 4, "correlation");
    assert_int_equal(t->n_flows, 6);
    assert_true(has_flow(t, 1, 3, ac2g, 5));
    assert_true(has_flow(t, 1, 4, ac2g, 5));
    assert_true(has_flow(t, 7, 8, ac2g, 6));
    assert_true(has_flow(t, 9, 10, ac2g, 7));
    assert_true(has_flow(t, 12, 13, fb, 8));
    assert_true(has_flow(t, 12, 13, ac2g, 8));
    assert_int_equal(Trace_partner(t, pos_of_src(t, 3)), pos_of_src(t, 1));
    assert_int_equal(Trace_partner(t, pos_of_src(t, 4)), pos_of_src(t, 1));
    assert_int_equal(Trace_partner(t, pos_of_src(t, 5)), SIZE_MAX);
    assert_int_equal(Trace_partner(t, pos_of_src(t, 6)), SIZE_MAX);
    assert_int_equal(Trace_partner(t, pos_of_src(t, 11)), SIZE_MAX);
    assert_int_equal(Trace_partner(t, pos_of_src(t, 2)), SIZE_MAX);
    Trace_free(t);
    spec_free(&s);
}

/* B without E, counters whose value bits would be a huge or negative duration. */
static void no_dur_and_counters(void **state) {
    (void)state;
    Spec s = {.n_sources = 1};
    uint32_t L = spec_cpu(&s, 0, 100, 1);
    spec_ev(&s, L, 0, 100, KIND_CPU_OP, 0, 1);
    size_t b = spec_ev(&s, L, 50, 1000000000, KIND_CPU_OP, 0, 2); /* dur ignored */
    s.ev[b].flags = EVF_NO_DUR;
    size_t c1 = spec_ev(&s, L, 200, 0, KIND_COUNTER, 0, 3);
    s.ev[c1].value = 1e300;
    size_t c2 = spec_ev(&s, L, 200, 0, KIND_COUNTER, 0, 4);
    s.ev[c2].value = -1e300;
    spec_ev(&s, L, 200, 5, KIND_CPU_OP, 0, 5);
    b = spec_ev(&s, L, 300, 7, KIND_CPU_OP, 0, 6);
    s.ev[b].flags = EVF_NO_DUR;
    Trace *t = run_spec(&s, 4, "no_dur");
    assert_int_equal(t->t_min, 0);
    assert_int_equal(t->t_max, 300);
    assert_int_equal(t->events[pos_of_src(t, 2)].dur, 250);
    assert_int_equal(t->events[pos_of_src(t, 6)].dur, 0);
    /* at 200: the 5 ns op first (longer than a counter), then the counters in append order */
    size_t p5 = pos_of_src(t, 5), p3 = pos_of_src(t, 3), p4 = pos_of_src(t, 4);
    assert_true(t->events[p5].depth <= t->events[p3].depth);
    assert_true(p3 < p4);
    Trace_free(t);
    spec_free(&s);
}

/* Chains are keyed by the full 64-bit id and by source; flows keep the low 32 bits. GPU
 * lanes bind by the pid/tid they were created with. */
static void ids_and_lanes(void **state) {
    (void)state;
    Spec s = {.n_sources = 2};
    uint32_t g = spec_gpu(&s, 0, 0, 7, 0, 7);
    spec_gpu(&s, 0, 0, 7, 5, 5); /* the same lane: keeps pid 0 tid 7 */
    uint32_t g1 = spec_gpu(&s, 1, 0, 7, 0, 7);
    for (int i = 0; i < 4; i++) spec_ev(&s, g, 10 * i, 5, KIND_KERNEL, 0, (uint64_t)i + 1);
    spec_ev(&s, g1, 0, 5, KIND_KERNEL, 0, 11);
    spec_ev(&s, g1, 10, 5, KIND_KERNEL, 0, 12);
    uint32_t c = ids()->cat[3];
    spec_fp(&s, 0, 0, 7, 0, 0x100000007ull, c, 's', true);
    spec_fp(&s, 0, 0, 7, 30, 0x200000007ull, c, 'f', true);
    spec_fp(&s, 0, 0, 7, 10, 0x100000007ull, c, 'f', true);
    spec_fp(&s, 0, 0, 7, 20, 0x200000007ull, c, 's', true);
    spec_fp(&s, 1, 0, 7, 10, 0x100000007ull, c, 'f', true); /* source 1: its own chain of one */
    spec_fp(&s, 0, 5, 5, 25, 99, c, 's', true);             /* pid/tid of the second request: no lane */
    spec_fp(&s, 0, 0, 7, 35, 99, c, 'f', true);
    Trace *t = run_spec(&s, 4, "ids_and_lanes");
    assert_int_equal(t->n_flows, 2);
    assert_true(has_flow(t, 1, 2, c, 7));
    assert_true(has_flow(t, 3, 4, c, 7));
    Trace_free(t);
    spec_free(&s);
}

/* Lanes big enough (70k events each; the second largest decides) that the layout runs
 * on several threads by default: sorted, interleaved streams, shuffled and nested
 * lanes. */
static void big_lanes_threads(void **state) {
    (void)state;
    Rng rr = {77};
    Rng *r = &rr;
    Spec s = {.n_sources = 2};
    uint32_t lanes[4] = {spec_cpu(&s, 0, 100, 1), spec_gpu(&s, 0, 0, 7, 0, 7), spec_cpu(&s, 1, 100, 2),
                         spec_gpu(&s, 1, 1, 8, 1, 8)};
    const size_t per = 70000;
    Gen g = {.r = r, .s = &s, .base = 1000, .span = 7000000, .grid = 10, .want = 4 * per};
    TraceEvent *lane_ev[4];
    for (int l = 0; l < 4; l++) {
        size_t before = s.n_ev;
        g.want = before + per;
        if (l == 3)
            while (s.n_ev < g.want) {
                int64_t lo = rts(&g);
                gen_nest(&g, lanes[l], lo, lo + 2000, 0);
            }
        else
            while (s.n_ev < g.want) {
                int64_t ts = rts(&g), dur = rdur(&g) / 100;
                gen_event(&g, lanes[l], ts, dur);
            }
        lane_ev[l] = zalloc(per, sizeof *lane_ev[l]);
        memcpy(lane_ev[l], s.ev + before, per * sizeof *s.ev);
        for (size_t i = 0; i < per; i++) lane_ev[l][i].src = i;
        if (l == 0 || l == 1) qsort(lane_ev[l], per, sizeof *s.ev, cmp_ts_stable);
        if (l == 2) shuffle_ev(r, lane_ev[l], per);
        if (l == 1) { /* 4 sorted streams, dealt round robin in bursts */
            TraceEvent *out = zalloc(per, sizeof *out);
            size_t o = 0;
            for (size_t k = 0; k < 4; k++)
                for (size_t i = k; i < per; i += 4) out[o++] = lane_ev[l][i];
            size_t q = per / 4, h[4] = {0, q, 2 * q, 3 * q}, e[4] = {q, 2 * q, 3 * q, per};
            for (size_t i = 0; i < per;) {
                size_t k = (size_t)rbelow(r, 4);
                for (size_t b = 1 + (size_t)rbelow(r, 8); b-- > 0 && h[k] < e[k]; i++) lane_ev[l][i] = out[h[k]++];
            }
            free(out);
        }
    }
    /* interleave the lanes, each keeping its own order */
    size_t head[4] = {0};
    for (size_t i = 0; i < 4 * per; i++) {
        size_t l;
        do l = (size_t)rbelow(r, 4);
        while (head[l] == per);
        s.ev[i] = lane_ev[l][head[l]++];
        s.ev[i].src = i * 7919u % (4 * per) * 16u + (uint64_t)l; /* unique, unrelated to order */
    }
    for (int l = 0; l < 4; l++) free(lane_ev[l]);
    g.max_fp = 600; /* the reference binds by brute force */
    gen_points(&g);
    for (size_t i = 0; i < s.n_ev; i++) /* few correlation ids: the reference groups in O(n^2) */
        if (rbelow(r, 100) >= 2) s.ev[i].corr = 0;
    Trace *t = run_spec(&s, 4, "big lanes, 4 threads");
    Trace *b = build(&s);
    finish(b, 8, false); /* the default threshold: lanes in parallel, flow points not */
    check_same(t, b, "big lanes, 8 threads");
    Trace_free(b);
    Trace_free(t);
    spec_free(&s);
}

/* Flow points keep their times and ids whatever the distance between one point and
 * the previous on its thread: times 9.4e18 ns apart (more than INT64_MAX) and ids at
 * both ends of the 64-bit range, on a launch thread and a GPU stream. */
static void far_apart_points(void **state) {
    (void)state;
    Trace *t = Trace_new();
    uint32_t src = Trace_addSource(t, "far");
    uint32_t cpu = Trace_cpuLane(t, src, 1, 1), gpu = Trace_gpuLane(t, src, 0, 7, 0, 7);
    const int64_t T[2] = {-4700000000000000000, 4700000000000000000};
    const uint64_t id[2] = {UINT64_MAX, 1};
    uint32_t cat = StrTab_intern(t->strings, "ac2g", 4);
    for (int k = 0; k < 2; k++) {
        TraceEvent e = {0};
        e.ts = T[k];
        e.dur = 10;
        e.src = TRACE_NO_SRC;
        e.lane = cpu;
        e.kind = KIND_RUNTIME;
        Trace_append(t, &e);
        e.ts = T[k] + 5;
        e.dur = 1;
        e.lane = gpu;
        e.kind = KIND_KERNEL;
        Trace_append(t, &e);
    }
    for (int k = 0; k < 2; k++) {
        Trace_addFlowPoint(t, src, 1, 1, T[k] + 1, id[k], cat, 's', true);
        Trace_addFlowPoint(t, src, 0, 7, T[k] + 5, id[k], cat, 'f', true);
    }
    Trace_finish(t);
    assert_int_equal(t->n_flows, 2);
    for (size_t i = 0; i < 2; i++) {
        const Flow *f = &t->flows[i];
        const TraceEvent *a = &t->events[f->from], *b = &t->events[f->to];
        assert_int_equal(a->kind, KIND_RUNTIME);
        assert_int_equal(b->kind, KIND_KERNEL);
        assert_int_equal(b->ts, a->ts + 5);
        assert_int_equal(f->id, (uint32_t)id[a->ts > 0]);
    }
    Trace_free(t);
}

/* Lanes as made for labels_and_groups: device and stream, or pid and tid. */
typedef struct {
    bool gpu;
    uint32_t source;
    int64_t a, b;
} MadeLane;

/* Lanes without a thread_name on a few thousand processes: each lane's label is
 * "stream N", "thread N" or its string tid (its first 47 bytes), the one string of that
 * text; labels new to the model take ids in the order their lanes were made, whatever
 * order the lanes end up in; every lane is in the group of its device or pid, and each
 * group's lanes are contiguous. Once with no string like a label in the model, once
 * with an event named "stream 8". */
static void labels_and_groups(void **state) {
    (void)state;
    enum { N_PROC = 3000, MAX = N_PROC + 64 };
    MadeLane *made = test_malloc(MAX * sizeof *made);
    for (int named = 0; named < 2; named++) {
        Trace *t = Trace_new();
        uint32_t src[2] = {Trace_addSource(t, "a.json"), Trace_addSource(t, "b.json")};
        if (named) StrTab_intern(t->strings, "stream 8", 8); /* an event name */
        char longer[64];
        memset(longer, 'w', 60);
        longer[60] = '\0';
        int64_t str_tid[2] = {-1 - (int64_t)StrTab_intern(t->strings, "worker", 6),
                              -1 - (int64_t)StrTab_intern(t->strings, longer, 60)};
        size_t n = 0;
        for (int64_t st = 40; st >= 0; st -= 4) made[n++] = (MadeLane){true, src[0], 0, st}; /* out of order */
        for (int64_t st = 0; st <= 8; st += 4) made[n++] = (MadeLane){true, src[1], 1, st};   /* labels again */
        made[n++] = (MadeLane){true, src[1], 1, -1};
        made[n++] = (MadeLane){true, src[0], 0, (int64_t)1 << 40}; /* beyond the lane count */
        made[n++] = (MadeLane){true, src[1], 0, (int64_t)1 << 40};
        for (int i = 0; i < N_PROC; i++) made[n++] = (MadeLane){false, src[i % 2], 1000 + i, 1 + i % 5};
        made[n++] = (MadeLane){false, src[0], 7, str_tid[0]};
        made[n++] = (MadeLane){false, src[1], 7, str_tid[1]};
        made[n++] = (MadeLane){true, src[1], 1, INT64_MIN};
        for (size_t i = 0; i < n; i++) {
            const MadeLane *m = &made[i];
            uint32_t lane = m->gpu ? Trace_gpuLane(t, m->source, m->a, m->b, m->a, 1)
                                   : Trace_cpuLane(t, m->source, m->a, m->b);
            Trace_append(t, &(TraceEvent){.ts = (int64_t)i, .dur = 1, .lane = lane,
                                          .kind = m->gpu ? KIND_KERNEL : KIND_CPU_OP});
        }
        size_t n0 = StrTab_count(t->strings);
        Trace_finishWith(t, &(FinishOptions){.threads = 1});
        assert_int_equal(t->n_lanes, n);
        /* the ids expected: a text already in the model keeps its id, a new one takes the
         * next id at its first lane */
        char (*text)[64] = test_malloc(n * sizeof *text);
        uint32_t *want = test_malloc(n * sizeof *want);
        uint32_t next = (uint32_t)n0;
        for (size_t i = 0; i < n; i++) {
            const MadeLane *m = &made[i];
            if (!m->gpu && m->b < 0)
                snprintf(text[i], sizeof text[i], "%.47s", StrTab_get(t->strings, (uint32_t)(-1 - m->b)));
            else snprintf(text[i], sizeof text[i], "%s %lld", m->gpu ? "stream" : "thread", (long long)m->b);
            uint32_t id = StrTab_find(t->strings, text[i], strlen(text[i]));
            assert_int_not_equal(id, STRTAB_NONE);
            want[i] = id;
            if (id >= n0) {
                size_t j = 0;
                while (j < i && strcmp(text[j], text[i])) j++;
                if (j == i) assert_int_equal(id, next++);
            }
        }
        size_t n_groups = 0;
        for (size_t i = 0; i < n; i++) { /* distinct (source, gpu, device|pid) */
            size_t j = 0;
            while (j < i && !(made[j].gpu == made[i].gpu && made[j].source == made[i].source && made[j].a == made[i].a)) j++;
            n_groups += j == i;
        }
        assert_int_equal(t->n_groups, n_groups);
        for (size_t k = 0; k < t->n_lanes; k++) {
            const Lane *l = &t->lanes[k];
            size_t i = 0;
            while (i < n && !(made[i].gpu == l->gpu && made[i].source == l->source &&
                              made[i].a == (l->gpu ? l->device : l->pid) && made[i].b == (l->gpu ? l->stream : l->tid)))
                i++;
            assert_true(i < n);
            if (l->name != want[i]) fail_msg("lane %s: name id %u, not %u", text[i], l->name, want[i]);
            assert_string_equal(StrTab_get(t->strings, l->name), text[i]);
            const Group *G = &t->groups[l->group];
            assert_true(G->gpu == l->gpu && G->source == l->source && G->id == made[i].a);
            assert_true(k >= G->first_lane && k < G->first_lane + G->n_lanes);
        }
        test_free(text);
        test_free(want);
        Trace_free(t);
    }
    test_free(made);
}

/* FinishOptions.step's hook for cancelled: raises the cancel request as step *ctx starts. */
typedef struct {
    FinishStep at;
    atomic_int cancel;
} CancelAt;

static void cancel_at_step(void *ctx, FinishStep step, size_t events, size_t lanes, size_t flow_points) {
    (void)events, (void)lanes, (void)flow_points;
    CancelAt *c = ctx;
    if (step == c->at) c->cancel = 1;
}

/* Many flows over many events (past 65,536: the flow index's second radix pass), two
 * from each launch whose chains come out in hash order: flows must be ordered by (from,
 * to, cat, id), flow_by_to by (to, flow), on one thread and on two. */
static void many_flows_ordered(void **state) {
    (void)state;
    enum { LAUNCHES = 40000 };
    for (int threads = 1; threads <= 2; threads++) {
        Trace *t = Trace_new();
        uint32_t src = Trace_addSource(t, "many-flows");
        uint32_t cat = StrTab_intern(t->strings, "fwdbwd", 6), name = StrTab_intern(t->strings, "k", 1);
        uint32_t cpu = Trace_cpuLane(t, src, 1, 1), gpu = Trace_gpuLane(t, src, 0, 7, 0, 7);
        for (int k = 0; k < LAUNCHES; k++) {
            int64_t at = 1000 * (int64_t)k;
            TraceEvent l = {.ts = at, .dur = 5, .src = (uint64_t)k * 3, .kind = KIND_RUNTIME, .name = name, .lane = cpu};
            Trace_append(t, &l);
            for (int j = 0; j < 2; j++) {
                TraceEvent e = {.ts = at + 100 + 100 * j, .dur = 50, .src = (uint64_t)k * 3 + 1 + (uint64_t)j,
                                .kind = KIND_KERNEL, .name = name, .lane = gpu};
                Trace_append(t, &e);
                uint64_t id = 2 * (uint64_t)k + (uint64_t)(1 - j); /* the second op's chain has the smaller id */
                Trace_addFlowPoint(t, src, 1, 1, at + 1, id, cat, 's', true);
                Trace_addFlowPoint(t, src, 0, 7, at + 100 + 100 * j, id, cat, 'f', false);
            }
        }
        Trace_finishThreads(t, threads);
        assert_int_equal(t->n_flows, 2 * LAUNCHES);
        for (size_t i = 0; i < t->n_flows; i++) {
            const Flow *f = &t->flows[i];
            assert_int_equal(t->events[f->from].kind, KIND_RUNTIME);
            assert_int_equal(t->events[f->to].kind, KIND_KERNEL);
            if (i > 0 && cmp_flow(&t->flows[i - 1], f) >= 0) fail_msg("flows out of order at %zu", i);
            if (i > 0) {
                uint32_t g = t->flow_by_to[i - 1], h = t->flow_by_to[i];
                if (t->flows[g].to > t->flows[h].to || (t->flows[g].to == t->flows[h].to && g > h))
                    fail_msg("flow_by_to out of order at %zu", i);
            }
        }
        Trace_free(t);
    }
}

/* A cancel request stops Trace_finishWith after the step under way: raised as the
 * layout starts, no lane is laid out; as the flows start, none is bound. The model is
 * then freed (the sanitizer build checks nothing leaks); never raised, it finishes. */
static void cancelled(void **state) {
    (void)state;
    Spec s = {.n_sources = 1};
    uint32_t g = spec_gpu(&s, 0, 0, 7, 0, 7);
    for (int i = 0; i < 4; i++) spec_ev(&s, g, 10 * i, 5, KIND_KERNEL, 0, (uint64_t)i + 1);
    uint32_t c = ids()->cat[3];
    spec_fp(&s, 0, 0, 7, 0, 1, c, 's', true);
    spec_fp(&s, 0, 0, 7, 10, 1, c, 'f', true);
    for (int at = 0; at < 3; at++) {
        CancelAt ca = {at == 0 ? FINISH_SORT : at == 1 ? FINISH_FLOWS : (FinishStep)-1, 0};
        Trace *t = build(&s);
        bool done = Trace_finishWith(t, &(FinishOptions){.threads = 2, .parallel_min = 1, .step = cancel_at_step,
                                                         .step_ctx = &ca, .cancel = &ca.cancel});
        assert_int_equal(done, at == 2);
        assert_int_equal(t->n_rows, at == 0 ? 0 : 1);
        assert_int_equal(t->n_flows, at == 2 ? 1 : 0);
        Trace_free(t);
    }
    spec_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty),
        cmocka_unit_test(boundaries),
        cmocka_unit_test(correlation),
        cmocka_unit_test(no_dur_and_counters),
        cmocka_unit_test(ids_and_lanes),
        cmocka_unit_test(randomized),
        cmocka_unit_test(big_lanes_threads),
        cmocka_unit_test(far_apart_points),
        cmocka_unit_test(labels_and_groups),
        cmocka_unit_test(many_flows_ordered),
        cmocka_unit_test(cancelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
