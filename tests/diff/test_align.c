/* Align_assignRuns / Align_runs / Compare_figures on the shipped pair (tests/data/diff):
 * run A's files start at 1000 us on their clock, run B's at 5,001,000 us; the first
 * ProfilerStep#1 starts there too. Figures as worked out in tests/diff/cli.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ovtrace/analysis/align.h"
#include "ovtrace/read/load.h"
#include "compare.h"

#define D OVTRACE_TESTDATA "/diff"

static Trace *load_pair(uint32_t *run_of, const char *const *const *rp, const size_t *np) {
    const char *files[] = {D "/a-r0.json", D "/a-r1.json", D "/b-r0.json", D "/b-r1.json"};
    LoadOptions lo = {.cache = -1};
    char err[512];
    Trace *t = Load_files(files, 4, &lo, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(t->n_sources, 4);
    assert_true(Align_assignRuns(t, rp, np, 2, run_of, err, sizeof err));
    return t;
}

static const char *const RA[] = {D "/a-r0.json", D "/a-r1.json"}, *const RB[] = {D "/b-r0.json", D "/b-r1.json"};
static const char *const *const RP[] = {RA, RB};
static const size_t NP[] = {2, 2};
static const char *const NAMES[] = {"A", "B"};

static int64_t first_kernel_ts(const Trace *t, uint32_t source) {
    int64_t m = INT64_MAX;
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == KIND_KERNEL && t->lanes[t->events[i].lane].source == source && t->events[i].ts < m)
            m = t->events[i].ts;
    return m;
}

/* Kineto labels each GPU process "GPU N", which the header already says: the run's
 * label replaces it rather than repeat it ("A rank0.json", not "A rank0.json  GPU 0"). */
static void test_kineto_gpu_label(void **state) {
    (void)state;
    const char *files[] = {OVTRACE_TESTDATA "/moe-ep/rank0.json", OVTRACE_TESTDATA "/moe-ep/rank1.json"};
    const char *const ra[] = {files[0]}, *const rb[] = {files[1]};
    const char *const *const rp[] = {ra, rb};
    const size_t np[] = {1, 1};
    LoadOptions lo = {.cache = -1};
    char err[512];
    Trace *t = Load_files(files, 2, &lo, err, sizeof err);
    assert_non_null(t);
    uint32_t run_of[2];
    int64_t off[2];
    assert_true(Align_assignRuns(t, rp, np, 2, run_of, err, sizeof err));
    assert_true(Align_runs(t, run_of, 2, NAMES, ALIGN_START, NULL, off, err, sizeof err));
    size_t k = 0;
    for (size_t g = 0; g < t->n_groups; g++) {
        if (!t->groups[g].gpu) continue;
        const char *want = t->groups[g].source == 0 ? "A rank0.json" : "B rank1.json";
        assert_string_equal(StrTab_get(t->strings, t->groups[g].label), want);
        k++;
    }
    assert_int_equal(k, 2);
    Trace_free(t);
}

static void test_start(void **state) {
    (void)state;
    uint32_t run_of[4];
    Trace *t = load_pair(run_of, RP, NP);
    assert_int_equal(run_of[0], 0);
    assert_int_equal(run_of[1], 0);
    assert_int_equal(run_of[2], 1);
    assert_int_equal(run_of[3], 1);
    int64_t off[2];
    char err[256];
    assert_true(Align_runs(t, run_of, 2, NAMES, ALIGN_START, NULL, off, err, sizeof err));
    assert_int_equal(off[0], 1000000);       /* ProfilerStep#1 at 1000 us */
    assert_int_equal(off[1], 5001000000LL);  /* B's clock */
    assert_int_equal(t->t_min, 0);
    assert_int_equal(t->t_max, 200000);
    assert_int_equal(first_kernel_ts(t, 0), 20000);  /* rank 0 gemm at 1020 us */
    assert_int_equal(first_kernel_ts(t, 2), 20000);
    assert_int_equal(first_kernel_ts(t, 1), 15000);
    /* groups: A above B for each rank, labelled */
    const char *want[] = {"A a-r0.json", "B b-r0.json", "A a-r1.json", "B b-r1.json"};
    size_t k = 0;
    for (size_t g = 0; g < t->n_groups; g++) {
        if (!t->groups[g].gpu) continue;
        assert_true(k < 4);
        assert_string_equal(StrTab_get(t->strings, t->groups[g].label), want[k++]);
    }
    assert_int_equal(k, 4);
    DeviceFigures f[2];
    size_t nd[2];
    Compare_figures(t, run_of, 2, INT64_MIN, INT64_MAX, f, nd);
    assert_int_equal(nd[0], 2);
    assert_int_equal(f[0].window, 355000);
    assert_int_equal(f[0].compute, 205000);
    assert_int_equal(f[0].overlap, 65000);
    assert_int_equal(f[1].comm, 180000);
    assert_int_equal(f[1].exposed, 106000);
    /* step 1 only (first 100 us of each run): A r0 [20,70) x [40,90), r1 [15,65) x [60,100) */
    Compare_figures(t, run_of, 2, 0, 100000, f, nd);
    assert_int_equal(f[0].comm, 90000);
    assert_int_equal(f[0].overlap, 35000);
    assert_int_equal(f[1].comm, 90000); /* B r1's comm [60,110) is cut at 100 */
    assert_int_equal(f[1].overlap, 45000);
    /* kernel changes over everything, then over step 2 only ([100, 200) us) */
    CompareKernel kc[8];
    size_t n = Compare_kernelChanges(t, run_of, 0, INT64_MAX, kc, 8);
    assert_int_equal(n, 5);
    assert_string_equal(StrTab_get(t->strings, kc[0].name), "void gemm<float>(float*)");
    assert_int_equal(kc[0].count[0], 4);
    assert_int_equal(kc[0].count[1], 3);
    assert_int_equal(kc[0].total[1] - kc[0].total[0], -50000);
    assert_string_equal(StrTab_get(t->strings, kc[1].name), "void gemm<__half>(__half*)");
    n = Compare_kernelChanges(t, run_of, 100000, 200000, kc, 2); /* only the top 2 kept */
    assert_int_equal(n, 2);
    assert_int_equal(kc[0].total[0], 100000); /* gemm<float>: 2 x 50 us in A, 1 in B */
    assert_int_equal(kc[0].total[1], 50000);
    assert_string_equal(StrTab_get(t->strings, kc[1].name), "void gemm<__half>(__half*)");
    Trace_free(t);
}

static void test_step_and_errors(void **state) {
    (void)state;
    uint32_t run_of[4];
    Trace *t = load_pair(run_of, RP, NP);
    int64_t off[2];
    char err[256];
    /* the second launch of each run (a regex mark): 1020 us and 5,001,020 us */
    assert_true(Align_runs(t, run_of, 2, NAMES, ALIGN_STEP, "^cudaLaunchKernel$", off, err, sizeof err));
    assert_int_equal(off[0], 1010000);
    assert_int_equal(off[1], 5001010000LL);
    assert_int_equal(first_kernel_ts(t, 0), 10000);
    assert_false(Align_runs(t, run_of, 2, NAMES, ALIGN_STEP, "^no such$", off, err, sizeof err));
    assert_non_null(strstr(err, "run A has no event matching --step"));
    assert_false(Align_runs(t, run_of, 2, NAMES, ALIGN_STEP, "(", off, err, sizeof err));
    Trace_free(t);
    /* a directory ("dir/" too) takes its files in order; the same file may be both runs */
    const char *const da[] = {D "/"}, *const db[] = {D "/a-r0.json"};
    const char *const *const rp2[] = {da, db};
    const size_t np2[] = {1, 1};
    const char *files[] = {D "/", D "/a-r0.json"};
    LoadOptions lo = {.cache = -1};
    t = Load_files(files, 2, &lo, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(t->n_sources, 5);
    uint32_t run5[5];
    if (!Align_assignRuns(t, rp2, np2, 2, run5, err, sizeof err)) fail_msg("%s", err);
    for (int i = 0; i < 4; i++) assert_int_equal(run5[i], 0);
    assert_int_equal(run5[4], 1);
    const char *const dc[] = {"/elsewhere"};
    const char *const *const rp3[] = {da, dc};
    assert_false(Align_assignRuns(t, rp3, np2, 2, run5, err, sizeof err));
    assert_non_null(strstr(err, "/elsewhere: no trace"));
    Trace_free(t);
    files[0] = D "/a-r0.json";
    t = Load_files(files, 1, &lo, err, sizeof err);
    assert_non_null(t);
    const char *const *const rp4[] = {db, db}; /* two runs, one source */
    assert_false(Align_assignRuns(t, rp4, np2, 2, run5, err, sizeof err));
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start),
        cmocka_unit_test(test_kineto_gpu_label),
        cmocka_unit_test(test_step_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
