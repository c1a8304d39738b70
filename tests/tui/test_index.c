/* The per-row index against brute force (each summary bucket exactly, columns within
 * two buckets), and the band summary against Overlap_band. */
#include "tui_fixture.h"

#include "ovtrace/analysis/overlap.h"
#include "tindex.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* one GPU lane of n disjoint events with random gaps, plus a comm lane */
static Trace *random_trace(size_t n) {
    Fix f = Fix_new();
    uint32_t l = Fix_gpu(&f, 0, 7), m = Fix_gpu(&f, 0, 27);
    int64_t ts = 0;
    for (size_t i = 0; i < n; i++) {
        ts += (int64_t)(rnd() % 50);
        int64_t d = 1 + (int64_t)(rnd() % 100);
        Fix_add(&f, l, ts, d, "k", KIND_KERNEL, CLASS_COMPUTE);
        ts += d;
    }
    int64_t end = ts;
    ts = 0;
    while (ts < end) {
        ts += (int64_t)(rnd() % 400);
        int64_t d = 1 + (int64_t)(rnd() % 300);
        Fix_add(&f, m, ts, d, "combine", KIND_KERNEL, CLASS_COMM);
        ts += d;
    }
    Trace_finish(f.t);
    return f.t;
}

static int64_t brute(const Trace *t, const Row *r, int64_t a, int64_t b, uint32_t *n) {
    int64_t cov = 0;
    *n = 0;
    for (size_t i = r->first; i < r->first + r->count; i++) {
        const TraceEvent *e = &t->events[i];
        int64_t s = e->ts > a ? e->ts : a, en = TraceEvent_end(e) < b ? TraceEvent_end(e) : b;
        if (en > s) cov += en - s;
        if (TraceEvent_end(e) > a && e->ts < b) (*n)++;
    }
    return cov;
}

static void test_row_columns_exact(void **state) {
    (void)state;
    Trace *t = random_trace(20000);
    TraceIndex *x = TraceIndex_build(t);
    uint32_t row = 0;
    for (uint32_t i = 0; i < t->n_rows; i++)
        if (t->rows[i].count == 20000) row = i;
    const Row *r = &t->rows[row];
    ColumnInfo cols[300];
    int checked_dense = 0, checked_sparse = 0;
    for (int iter = 0; iter < 300; iter++) {
        int W = 50 + (int)(rnd() % 250);
        int64_t span = 1 + (int64_t)(rnd() % (uint64_t)(t->t_max - t->t_min));
        if (iter % 3 == 0) span = 1 + (int64_t)(rnd() % 20000); /* deep zoom */
        int64_t t0 = t->t_min + (int64_t)(rnd() % (uint64_t)(t->t_max - t->t_min));
        int64_t t1 = t0 + span;
        TraceIndex_rowColumns(x, t, row, t0, t1, W, cols);
        for (int c = 0; c < W; c++) {
            int64_t a = TraceIndex_colTime(t0, t1, W, c), b = TraceIndex_colTime(t0, t1, W, c + 1);
            uint32_t n;
            int64_t want = brute(t, r, a, b, &n);
            if (cols[c].n == UINT32_MAX) {
                /* bucket summary: within two buckets of the truth */
                int64_t bw = (t->t_max - t->t_min) / (20000 / 8) + 2;
                assert_true(llabs(cols[c].cov - want) <= 2 * bw);
                checked_dense++;
            } else {
                assert_int_equal(cols[c].cov, want);
                assert_int_equal(cols[c].n, n);
                checked_sparse++;
            }
        }
    }
    assert_true(checked_dense > 0);
    assert_true(checked_sparse > 0);
    TraceIndex_free(x);
    Trace_free(t);
}

/* Every summary bucket of a long row holds exactly the busy time of its span, for rows
 * with gaps, with events across many buckets, and with starts on bucket edges. */
static void test_row_buckets_exact(void **state) {
    (void)state;
    for (int shape = 0; shape < 3; shape++) {
        Fix f = Fix_new();
        uint32_t l = Fix_gpu(&f, 0, 7);
        int64_t ts = 1000;
        for (size_t i = 0; i < 9000; i++) {
            int64_t gap = shape == 1 && i % 500 == 0 ? 100000 : (int64_t)(rnd() % 50);
            int64_t d = shape == 2 && i % 300 == 0 ? 5000 : 1 + (int64_t)(rnd() % 100);
            ts += gap;
            Fix_add(&f, l, ts, d, "k", KIND_KERNEL, CLASS_COMPUTE);
            ts += d;
        }
        Trace_finish(f.t);
        const Trace *t = f.t;
        TraceIndex *x = TraceIndex_build(t);
        int buckets = 0;
        for (uint32_t row = 0; row < t->n_rows; row++) {
            int64_t a, b, busy;
            for (uint32_t k = 0; (busy = TraceIndex_rowBucket(x, row, k, &a, &b)) >= 0; k++, buckets++) {
                uint32_t n;
                int64_t want = brute(t, &t->rows[row], a, b, &n);
                if (busy != want) fail_msg("shape %d row %u bucket %u [%lld, %lld): %lld ns, brute force %lld", shape,
                                           row, k, (long long)a, (long long)b, (long long)busy, (long long)want);
            }
        }
        assert_true(buckets >= 1000); /* 9000 events: a bucket per 8 */
        TraceIndex_free(x);
        Trace_free(f.t);
    }
}

static void test_band_summary(void **state) {
    (void)state;
    Trace *t = random_trace(30000);
    TraceIndex *x = TraceIndex_build(t);
    /* bytes per event stay in the budget */
    assert_true(TraceIndex_bytes(x) <= t->n_events * 24);
    int W = 200;
    int64_t *fast = calloc((size_t)W * BAND__COUNT, sizeof *fast), *exact = calloc((size_t)W * BAND__COUNT, sizeof *exact);
    for (int iter = 0; iter < 20; iter++) {
        int64_t t0 = t->t_min, t1 = t->t_max;
        if (iter) {
            t0 = t->t_min + (int64_t)(rnd() % (uint64_t)((t->t_max - t->t_min) / 2));
            t1 = t0 + (t->t_max - t->t_min) / (1 + iter % 4);
        }
        TraceIndex_band(x, t, 0, t0, t1, W, fast);
        Overlap_band(t, 0, t0, t1, W, exact);
        int64_t sf[BAND__COUNT] = {0}, se[BAND__COUNT] = {0};
        for (int c = 0; c < W; c++)
            for (int s = 0; s < BAND__COUNT; s++) {
                sf[s] += fast[c * BAND__COUNT + s];
                se[s] += exact[c * BAND__COUNT + s];
            }
        int64_t bw = (t->t_max - t->t_min) / ((int64_t)t->n_events / 8) + 2;
        for (int s = 0; s < BAND__COUNT; s++) {
            if (iter == 0) assert_int_equal(sf[s], se[s]); /* fit-all: exact */
            else assert_true(llabs(sf[s] - se[s]) <= 2 * bw);
        }
    }
    /* the ratio at fit-all equals the stats figure */
    double ratio;
    assert_true(TraceIndex_ratio(x, t, 0, t->t_min, t->t_max, &ratio));
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *R = Overlap_compute(t, &f);
    assert_true(R->devices[0].has_comm);
    assert_true(ratio > R->devices[0].ratio - 1e-9 && ratio < R->devices[0].ratio + 1e-9);
    OverlapReport_free(R);
    free(fast);
    free(exact);
    TraceIndex_free(x);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_columns_exact),
        cmocka_unit_test(test_row_buckets_exact),
        cmocka_unit_test(test_band_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
