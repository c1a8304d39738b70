/* Overlap math on hand-built traces, checked against a brute-force per-ns count. */
#include "testutil.h"
#include "ovtrace/analysis/overlap.h"

typedef struct {
    int64_t s, e;
    int stream;
    const char *name;
} Iv;

/* Builds a 1-device trace; "comm" names go through the DeepEP rule. */
static Trace *build(const Iv *iv, size_t n) {
    Trace *t = Trace_new();
    uint32_t src = Trace_addSource(t, "mem");
    for (size_t i = 0; i < n; i++) {
        TraceEvent e = {0};
        e.ts = iv[i].s;
        e.dur = iv[i].e - iv[i].s;
        e.src = TRACE_NO_SRC;
        bool mem = !strcmp(iv[i].name, "memcpy");
        e.kind = mem ? KIND_MEMCPY : KIND_KERNEL;
        e.name = StrTab_intern(t->strings, iv[i].name, strlen(iv[i].name));
        e.lane = Trace_gpuLane(t, src, 0, iv[i].stream, 0, iv[i].stream);
        Trace_append(t, &e);
    }
    Trace_finish(t);
    CommRules *r = CommRules_default();
    Classify_trace(t, r);
    CommRules_free(r);
    return t;
}

#define COMM "dpsk::ep::internode::combine<1>(int)"

/* What runs at nanosecond x: comm, compute (*k) and memory (*m). */
static void at_ns(const Iv *iv, size_t n, int64_t x, bool *c, bool *k, bool *m) {
    *c = *k = *m = false;
    for (size_t i = 0; i < n; i++) {
        if (x < iv[i].s || x >= iv[i].e) continue;
        if (!strcmp(iv[i].name, COMM)) *c = true;
        else if (!strcmp(iv[i].name, "memcpy")) *m = true;
        else *k = true;
    }
}

static void brute(const Iv *iv, size_t n, int64_t t0, int64_t t1, int64_t out[6]) {
    /* comm, compute, overlap, memory, busy, window */
    memset(out, 0, 6 * sizeof *out);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t x = t0; x < t1; x++) {
        bool c, k, m;
        at_ns(iv, n, x, &c, &k, &m);
        out[0] += c;
        out[1] += k;
        out[2] += c && k;
        out[3] += m;
        out[4] += c || k || m;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t s = iv[i].s > t0 ? iv[i].s : t0, e = iv[i].e < t1 ? iv[i].e : t1;
        if (iv[i].e <= t0 || iv[i].s >= t1) continue;
        if (s < lo) lo = s;
        if (e > hi) hi = e;
    }
    out[5] = hi > lo ? hi - lo : 0;
}

static void check(const Iv *iv, size_t n, int64_t t0, int64_t t1) {
    Trace *t = build(iv, n);
    OverlapFilter f = OverlapFilter_all();
    f.t0 = t0;
    f.t1 = t1;
    OverlapReport *R = Overlap_compute(t, &f);
    int64_t want[6];
    brute(iv, n, t0, t1, want);
    assert_int_equal(R->n_devices, 1);
    const DeviceFigures *d = &R->devices[0];
    assert_int_equal(d->comm, want[0]);
    assert_int_equal(d->compute, want[1]);
    assert_int_equal(d->overlap, want[2]);
    assert_int_equal(d->exposed, want[0] - want[2]);
    assert_int_equal(d->memory, want[3]);
    assert_int_equal(d->busy, want[4]);
    assert_int_equal(d->window, want[5]);
    assert_int_equal(d->idle, want[5] - want[4]);
    if (want[0]) assert_true(d->ratio == (double)want[2] / (double)want[0]);
    assert_int_equal(d->has_comm, want[0] > 0);
    OverlapReport_free(R);
    Trace_free(t);
}

static void nested_touching_disjoint(void **state) {
    (void)state;
    const Iv iv[] = {
        {0, 100, 7, "gemm"},      /* compute */
        {10, 20, 7, "inner"},     /* nested in gemm on the same stream: a sub-row */
        {100, 130, 7, "gemm2"},   /* touches gemm */
        {90, 150, 27, COMM},      /* partly hidden */
        {150, 160, 27, COMM},     /* touching, fully exposed */
        {200, 210, 27, COMM},     /* disjoint, exposed */
        {205, 230, 23, "gemm3"},  /* hides half of it */
        {240, 250, 7, "memcpy"},  /* memory only */
        {300, 300, 7, "zero"},    /* zero length */
    };
    size_t n = sizeof iv / sizeof iv[0];
    check(iv, n, 0, 400);
    check(iv, n, 95, 205);
    check(iv, n, 125, 126);
    /* whole trace (open range) equals the covering range */
    Trace *t = build(iv, n);
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *R = Overlap_compute(t, &f);
    assert_int_equal(R->devices[0].comm, 60 + 10 + 10);
    assert_int_equal(R->devices[0].overlap, 40 + 5);
    assert_int_equal(R->devices[0].window, 300);
    assert_int_equal(R->n_kernels, 6); /* distinct kernel names; memcpy excluded */
    assert_string_equal(StrTab_get(t->strings, R->kernels[0].name), "gemm");
    OverlapReport_free(R);
    Trace_free(t);
}

static void randomized_against_brute_force(void **state) {
    (void)state;
    srand(1234);
    for (int round = 0; round < 40; round++) {
        Iv iv[24];
        size_t n = 1 + (size_t)(rand() % 24);
        static const char *names[] = {"a", "b", COMM, "memcpy"};
        for (size_t i = 0; i < n; i++) {
            int64_t s = rand() % 500, len = rand() % 80;
            iv[i] = (Iv){s, s + len, (int[]){7, 23, 27}[rand() % 3], names[rand() % 4]};
        }
        check(iv, n, 0, 600);
        check(iv, n, rand() % 200, 300 + rand() % 200);
    }
}

static void no_comm_is_not_nan(void **state) {
    (void)state;
    const Iv iv[] = {{0, 10, 7, "gemm"}};
    Trace *t = build(iv, 1);
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *R = Overlap_compute(t, &f);
    assert_false(R->devices[0].has_comm);
    assert_true(R->devices[0].ratio == 0.0);
    OverlapReport_free(R);
    Trace_free(t);
}

static void band_states(void **state) {
    (void)state;
    const Iv iv[] = {
        {0, 100, 7, "gemm"},  /* cols 0-9 compute */
        {50, 150, 27, COMM},  /* 50-99 hidden, 100-149 exposed */
        {160, 170, 7, "memcpy"},
    };
    Trace *t = build(iv, 3);
    int64_t out[20 * BAND__COUNT];
    Overlap_band(t, 0, 0, 200, 20, out);
    for (int c = 0; c < 20; c++) {
        int64_t total = 0;
        int best = 0;
        for (int s = 0; s < BAND__COUNT; s++) {
            total += out[c * BAND__COUNT + s];
            if (out[c * BAND__COUNT + s] > out[c * BAND__COUNT + best]) best = s;
        }
        assert_int_equal(total, 10); /* every ns of the slice is accounted for */
        int want = c < 5 ? BAND_COMPUTE : c < 10 ? BAND_HIDDEN : c < 15 ? BAND_EXPOSED : c == 16 ? BAND_MEMORY
                                                                                             : BAND_IDLE;
        if (best != want) fail_msg("column %d: state %d, want %d", c, best, want);
    }
    /* columns narrower than a ns still account exactly */
    int64_t fine[7 * BAND__COUNT];
    Overlap_band(t, 0, 48, 52, 7, fine);
    int64_t sum = 0;
    for (int i = 0; i < 7 * BAND__COUNT; i++) sum += fine[i];
    assert_int_equal(sum, 4);
    Trace_free(t);
}

/* Each ns of [t0, t1) in the band's column floor((x - t0) * ncols / (t1 - t0)), under
 * its state: the band equals that count exactly, for spans the columns do not divide
 * and for more columns than ns; with a few rows (walked side by side) and with more
 * rows than the sweep takes (the edges). */
static void band_columns_per_ns(void **state) {
    (void)state;
    enum { N = 60, NESTED = 20 };
    Iv iv[N + NESTED];
    uint64_t x = 99;
    for (size_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t s = (int64_t)(x >> 33) % 900, len = 1 + (int64_t)(x >> 20) % 80;
        int k = (int)(x >> 60) % 3;
        iv[i] = (Iv){s, s + len, k == 0 ? 7 : k == 1 ? 27 : 9, k == 0 ? "gemm" : k == 1 ? COMM : "memcpy"};
    }
    for (size_t i = 0; i < NESTED; i++) iv[N + i] = (Iv){300 + (int64_t)i, 700 - (int64_t)i, 5, "gemm"};
    const struct {
        int64_t t0, t1;
        int ncols;
    } cases[] = {{0, 1000, 7}, {13, 977, 160}, {100, 103, 11}, {-50, 950, 333}, {400, 401, 3}};
    for (size_t n_iv = N; n_iv <= N + NESTED; n_iv += NESTED) {
        Trace *t = build(iv, n_iv);
        assert_true(n_iv == N ? t->n_rows <= 16 : t->n_rows > 16); /* the sweep, then the edges */
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            int64_t t0 = cases[c].t0, t1 = cases[c].t1;
            int n = cases[c].ncols;
            int64_t *got = calloc((size_t)n * BAND__COUNT, sizeof *got);
            int64_t *want = calloc((size_t)n * BAND__COUNT, sizeof *want);
            Overlap_band(t, 0, t0, t1, n, got);
            for (int64_t ns = t0; ns < t1; ns++) {
                bool cm, k, m;
                at_ns(iv, n_iv, ns, &cm, &k, &m);
                int st = cm ? (k ? BAND_HIDDEN : BAND_EXPOSED) : k ? BAND_COMPUTE : m ? BAND_MEMORY : BAND_IDLE;
                int col = (int)((ns - t0) * n / (t1 - t0));
                want[col * BAND__COUNT + st]++;
            }
            for (int i = 0; i < n * BAND__COUNT; i++)
                if (got[i] != want[i])
                    fail_msg("%zu intervals, case %zu column %d state %d: %lld, want %lld", n_iv, c, i / BAND__COUNT,
                             i % BAND__COUNT, (long long)got[i], (long long)want[i]);
            free(got);
            free(want);
        }
        Trace_free(t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nested_touching_disjoint),
        cmocka_unit_test(randomized_against_brute_force),
        cmocka_unit_test(no_comm_is_not_nan),
        cmocka_unit_test(band_states),
        cmocka_unit_test(band_columns_per_ns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
