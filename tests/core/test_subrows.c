/* Sub-row assignment: Trace_finish gives each event the lowest
 * sub-row whose last event ended at or before its start, in (ts, longer first, append
 * order) order per lane. Checked against a brute-force greedy written here (a
 * quadratic scan) on identical, nested, staircase and random
 * intervals, several lanes, zero durations and counters; plus big lanes whose answer
 * is known in closed form (1.1M identical intervals: event k on row k, capped at the
 * last row; 600k nested: depth k), which take minutes with a quadratic scan (the
 * ctest TIMEOUT in core.cmake, far above the ~1 s they take, catches one; the time
 * itself is measured by bench/subrows_bench). */
#include "testutil.h"

#define MAX_DEPTH 0xfffffu /* TraceEvent.depth is 20 bits: deeper events share the last row */

typedef struct {
    uint64_t s;
} Rng;

static uint64_t rnext(Rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rbelow(Rng *r, uint64_t n) { return n ? rnext(r) % n : 0; }

typedef struct {
    TraceEvent *ev; /* append order; src = append index */
    size_t n, cap;
} Spec;

static void add(Spec *s, uint32_t lane, EventKind kind, int64_t ts, int64_t dur) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->ev = realloc(s->ev, s->cap * sizeof *s->ev);
        assert_non_null(s->ev);
    }
    TraceEvent e = {0};
    e.lane = lane;
    e.kind = kind;
    e.ts = ts;
    e.dur = dur;
    if (kind == KIND_COUNTER) e.value = (double)dur;
    e.src = s->n;
    s->ev[s->n++] = e;
}

/* ---- the brute-force reference ---- */

static const TraceEvent *g_ev; /* qsort has no context */

static int64_t ref_dur(const TraceEvent *e) { return e->kind == KIND_COUNTER ? 0 : e->dur; }

static int cmp_ref(const void *a, const void *b) {
    const TraceEvent *x = &g_ev[*(const size_t *)a], *y = &g_ev[*(const size_t *)b];
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (ref_dur(x) != ref_dur(y)) return ref_dur(x) > ref_dur(y) ? -1 : 1; /* longer first */
    return x->src < y->src ? -1 : 1;
}

/* depth[src] for every event; rows[lane] = sub-rows used (uncapped) */
static void reference(const Spec *s, uint32_t n_lanes, uint32_t *depth, size_t *rows) {
    size_t *order = malloc((s->n ? s->n : 1) * sizeof *order);
    int64_t *row_end = malloc((s->n ? s->n : 1) * sizeof *row_end);
    for (size_t i = 0; i < s->n; i++) order[i] = i;
    g_ev = s->ev;
    qsort(order, s->n, sizeof *order, cmp_ref);
    for (uint32_t l = 0; l < n_lanes; l++) rows[l] = 0;
    for (size_t i = 0; i < s->n; i++) {
        const TraceEvent *e = &s->ev[order[i]];
        size_t *nr = &rows[e->lane], d = 0;
        while (d < *nr && row_end[d] > e->ts) d++; /* the lowest row free at e->ts */
        if (d == *nr) (*nr)++;
        row_end[d] = e->ts + ref_dur(e);
        depth[e->src] = (uint32_t)(d < MAX_DEPTH ? d : MAX_DEPTH);
    }
    free(order);
    free(row_end);
}

/* Builds spec s on n_lanes CPU lanes of one source, finishes it on `threads` threads. */
static Trace *build(const Spec *s, uint32_t n_lanes, int threads) {
    Trace *t = Trace_new();
    uint32_t src = Trace_addSource(t, "test");
    uint32_t *lane = malloc(n_lanes * sizeof *lane);
    for (uint32_t l = 0; l < n_lanes; l++) lane[l] = Trace_cpuLane(t, src, 1, (int64_t)l + 1);
    for (size_t i = 0; i < s->n; i++) {
        TraceEvent e = s->ev[i];
        e.lane = lane[e.lane];
        Trace_append(t, &e);
    }
    free(lane);
    Trace_finishThreads(t, threads);
    return t;
}

/* Every event's depth as the reference says, one Row per depth, rows sorted and disjoint
 * (below the depth cap). depth: NULL to take it from closed-form `want`. */
static void check(const Spec *s, uint32_t n_lanes, const uint32_t *depth, const size_t *rows, const char *what) {
    for (int threads = 1; threads <= 3; threads += 2) {
        Trace *t = build(s, n_lanes, threads);
        assert_int_equal(t->n_events, s->n);
        assert_int_equal(t->n_lanes, n_lanes);
        for (uint32_t ln = 0; ln < t->n_lanes; ln++) {
            const Lane *L = &t->lanes[ln];
            uint32_t l = (uint32_t)(L->tid - 1); /* the spec's lane */
            size_t want_rows = rows[l] > MAX_DEPTH + 1 ? MAX_DEPTH + 1 : rows[l];
            if (L->n_rows != want_rows)
                fail_msg("%s: lane %u has %u sub-rows, want %zu", what, l, L->n_rows, want_rows);
            for (uint32_t k = 0; k < L->n_rows; k++) {
                const Row *r = &t->rows[L->first_row + k];
                assert_int_equal(r->depth, k);
                for (size_t i = r->first; i < r->first + r->count; i++) {
                    const TraceEvent *e = &t->events[i];
                    if (e->depth != depth[e->src])
                        fail_msg("%s: event %llu (ts %lld dur %lld) on sub-row %u, want %u", what,
                                 (unsigned long long)e->src, (long long)e->ts, (long long)e->dur, (unsigned)e->depth,
                                 depth[e->src]);
                    assert_int_equal(e->depth, k);
                    if (i > r->first && k < MAX_DEPTH && TraceEvent_end(&t->events[i - 1]) > e->ts)
                        fail_msg("%s: sub-row %u of lane %u overlaps at event %llu", what, k, l,
                                 (unsigned long long)e->src);
                }
            }
        }
        Trace_free(t);
    }
}

static void check_reference(const Spec *s, uint32_t n_lanes, const char *what) {
    uint32_t *depth = malloc((s->n ? s->n : 1) * sizeof *depth);
    size_t rows[16];
    assert_true(n_lanes <= 16);
    reference(s, n_lanes, depth, rows);
    check(s, n_lanes, depth, rows, what);
    free(depth);
}

static void identical(void **state) {
    (void)state;
    Spec s = {0};
    for (int k = 0; k < 3000; k++) add(&s, 0, KIND_CPU_OP, 500, 1000);
    check_reference(&s, 1, "identical");
    free(s.ev);
}

static void nested(void **state) {
    (void)state;
    Spec s = {0};
    /* shuffled appends: the order comes from the sort, not from the source */
    Rng r = {7};
    int64_t k_of[3000];
    for (int k = 0; k < 3000; k++) k_of[k] = k;
    for (int k = 2999; k > 0; k--) {
        int j = (int)rbelow(&r, (uint64_t)k + 1);
        int64_t x = k_of[k];
        k_of[k] = k_of[j];
        k_of[j] = x;
    }
    for (int i = 0; i < 3000; i++) add(&s, 0, KIND_CPU_OP, k_of[i] * 10, (6000 - 2 * k_of[i]) * 10);
    /* properly nested: the depth is the nesting level, k */
    uint32_t *depth = malloc(s.n * sizeof *depth);
    size_t rows[1];
    reference(&s, 1, depth, rows);
    for (size_t i = 0; i < s.n; i++) assert_int_equal(depth[i], (uint32_t)k_of[i]);
    check(&s, 1, depth, rows, "nested");
    free(depth);
    free(s.ev);
}

/* Siblings and children, 4 levels: each op's depth is its level. */
static void call_tree(Spec *s, uint32_t lane, int64_t lo, int64_t hi, int level, Rng *r) {
    if (level == 4 || hi - lo < 8) return;
    int64_t at = lo;
    while (at < hi) {
        int64_t len = 1 + (int64_t)rbelow(r, (uint64_t)(hi - at));
        add(s, lane, KIND_CPU_OP, at, len);
        call_tree(s, lane, at, at + len, level + 1, r);
        at += len + (int64_t)rbelow(r, 3);
    }
}

static void tree(void **state) {
    (void)state;
    Spec s = {0};
    Rng r = {11};
    call_tree(&s, 0, 0, 100000, 0, &r);
    check_reference(&s, 1, "call tree");
    free(s.ev);
}

static void staircase(void **state) {
    (void)state;
    Spec s = {0};
    for (int k = 0; k < 4000; k++) add(&s, 0, KIND_CPU_OP, k * 3, 400 + (k % 7) * 50);
    check_reference(&s, 1, "staircase");
    free(s.ev);
}

/* Random intervals on a coarse grid (many equal starts and ends), zero durations,
 * counters, several lanes, appended in random order. */
static void randomized(void **state) {
    (void)state;
    size_t total = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        Rng r = {seed};
        Spec s = {0};
        uint32_t n_lanes = 1 + (uint32_t)rbelow(&r, 4);
        size_t n = 1 + rbelow(&r, 2500);
        int64_t span = 1 + (int64_t)rbelow(&r, 5000), grid = 1 + (int64_t)rbelow(&r, 50);
        for (size_t i = 0; i < n; i++) {
            uint32_t lane = (uint32_t)rbelow(&r, n_lanes);
            int64_t ts = grid * (int64_t)rbelow(&r, (uint64_t)span);
            int64_t dur;
            switch (rbelow(&r, 5)) {
            case 0: dur = 0; break;
            case 1: dur = grid * (int64_t)rbelow(&r, 4); break;
            case 2: dur = grid * (int64_t)rbelow(&r, (uint64_t)span); break;
            default: dur = (int64_t)rbelow(&r, (uint64_t)(grid * span / 10 + 1)); break;
            }
            add(&s, lane, rbelow(&r, 20) == 0 ? KIND_COUNTER : KIND_CPU_OP, ts, dur);
        }
        char what[64];
        snprintf(what, sizeof what, "random seed %llu (%zu events)", (unsigned long long)seed, n);
        check_reference(&s, n_lanes, what);
        total += n;
        free(s.ev);
    }
    fprintf(stderr, "randomized: 60 traces, %zu events\n", total);
}

/* Big lanes with a closed-form answer (the quadratic scan took minutes on these). */
static void big_identical(void **state) {
    (void)state;
    Spec s = {0};
    size_t n = 1100000;
    for (size_t k = 0; k < n; k++) add(&s, 0, KIND_CPU_OP, 1000, 5000);
    uint32_t *depth = malloc(n * sizeof *depth);
    for (size_t k = 0; k < n; k++) depth[k] = (uint32_t)(k < MAX_DEPTH ? k : MAX_DEPTH); /* ties: append order */
    size_t rows[1] = {n};
    check(&s, 1, depth, rows, "1.1M identical");
    free(depth);
    free(s.ev);
}

static void big_nested(void **state) {
    (void)state;
    Spec s = {0};
    size_t n = 600000;
    for (size_t k = 0; k < n; k++) add(&s, 0, KIND_CPU_OP, (int64_t)k, (int64_t)(2 * n - 2 * k));
    uint32_t *depth = malloc(n * sizeof *depth);
    for (size_t k = 0; k < n; k++) depth[k] = (uint32_t)k;
    size_t rows[1] = {n};
    check(&s, 1, depth, rows, "600k nested");
    free(depth);
    free(s.ev);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical),     cmocka_unit_test(nested),     cmocka_unit_test(tree),
        cmocka_unit_test(staircase),     cmocka_unit_test(randomized), cmocka_unit_test(big_identical),
        cmocka_unit_test(big_nested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
