/* Counter series and the loader keeping every series of a counter event
 * (every series, not only the first 16). Expected values come
 * from the hand-built fixtures: tests/data/kineto-memory.json holds Kineto-shaped
 * "[memory]" instants with known totals. */
#include <locale.h>

#include "testutil.h"
#include "ovtrace/analysis/counters.h"

static const CounterSeries *series(const CounterSet *cs, const Trace *t, const char *name) {
    for (size_t i = 0; i < cs->n; i++)
        if (!strcmp(StrTab_get(t->strings, cs->s[i].name), name)) return &cs->s[i];
    return NULL;
}

/* 40 series in one counter object, args in both orders (before and after "ph"). */
static void all_series_kept(void **state) {
    (void)state;
    enum { N = 40 };
    char *json = malloc(64 * 1024), args[8192];
    size_t o = 0;
    o += (size_t)snprintf(args + o, sizeof args - o, "{");
    for (int k = 0; k < N; k++) o += (size_t)snprintf(args + o, sizeof args - o, "%s\"s%02d\":%d", k ? "," : "", k, k * 10 + 1);
    snprintf(args + o, sizeof args - o, "}");
    snprintf(json, 64 * 1024,
             "[{\"ph\":\"C\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":5,\"args\":%s},"
             "{\"args\":%s,\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":6,\"ph\":\"C\"}]",
             args, args);
    Trace *t = tu_load_ok(json);
    assert_int_equal(t->n_events, 2 * N);
    for (int k = 0; k < N; k++) {
        char nm[16];
        snprintf(nm, sizeof nm, "c.s%02d", k);
        long i = tu_find(t, nm);
        assert_true(i >= 0);
        assert_true(t->events[i].value == k * 10 + 1);
        snprintf(nm, sizeof nm, "d.s%02d", k);
        i = tu_find(t, nm);
        assert_true(i >= 0);
        assert_true(t->events[i].value == k * 10 + 1);
    }
    CounterSet *cs = CounterSet_build(t);
    assert_int_equal(cs->n, 2 * N);
    CounterSet_free(cs);
    Trace_free(t);
    free(json);
}

static void kineto_memory(void **state) {
    (void)state;
    const char *paths[] = {OVTRACE_TESTDATA "/kineto-memory.json"};
    char err[512];
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    assert_non_null(t);
    CounterSet *cs = CounterSet_build(t);
    /* GPU 0, GPU 1 and CPU: 3 series each */
    assert_int_equal(cs->n, 9);
    const CounterSeries *a0 = series(cs, t, "[memory] GPU 0 Total Allocated");
    const CounterSeries *r0 = series(cs, t, "[memory] GPU 0 Total Reserved");
    const CounterSeries *b0 = series(cs, t, "[memory] GPU 0 Bytes");
    const CounterSeries *a1 = series(cs, t, "[memory] GPU 1 Total Allocated");
    const CounterSeries *ac = series(cs, t, "[memory] CPU Total Allocated");
    assert_non_null(a0), assert_non_null(r0), assert_non_null(b0), assert_non_null(a1), assert_non_null(ac);
    const double M = 1048576;
    assert_int_equal(a0->n, 4);
    double want[] = {1 * M, 3 * M, 2 * M, 0};
    for (size_t i = 0; i < 4; i++) assert_true(Counter_value(t, a0, i) == want[i]);
    assert_true(a0->bytes);
    /* shown under the GPU group of its device, on a lane of counters only */
    assert_int_equal(a0->device, 0);
    assert_true(t->groups[a0->group].gpu);
    assert_int_equal(t->groups[a0->group].id, 0);
    assert_int_equal(t->groups[a1->group].id, 1);
    assert_true(cs->lane_only[a0->lane]);
    assert_false(t->groups[ac->group].gpu);
    assert_int_equal(ac->device, -1);
    /* statistics over the samples in a range: [150 us, 350 us) holds 3 MiB and 2 MiB */
    CounterStats st;
    /* the first sample, before the first op (102 us), after the file's baseTimeNanoseconds */
    const int64_t base = INT64_C(1700000000000000000);
    assert_int_equal(t->t_min, base + 100000);
    assert_true(Counter_stats(t, a0, base + 150000, base + 350000, &st));
    assert_int_equal(st.n, 2);
    assert_true(st.min == 2 * M && st.max == 3 * M && st.mean == 2.5 * M && st.last == 2 * M);
    assert_true(Counter_stats(t, b0, 0, INT64_MAX, &st));
    assert_true(st.min == -2 * M && st.max == 2 * M && st.mean == 0);
    assert_false(Counter_stats(t, a0, base + 401000, base + 500000, &st));
    /* value in effect: the last sample at or before */
    double v;
    assert_false(Counter_valueAt(t, a0, base + 99999, &v));
    assert_true(Counter_valueAt(t, a0, base + 100000, &v) && v == 1 * M);
    assert_true(Counter_valueAt(t, a0, base + 299999, &v) && v == 3 * M);
    assert_true(Counter_valueAt(t, r0, base + 10000000, &v) && v == 4 * M);
    char buf[32];
    Counter_format(3 * M, true, buf, sizeof buf);
    assert_string_equal(buf, "3.00 MiB");
    Counter_format(-512, true, buf, sizeof buf);
    assert_string_equal(buf, "-512 B");
    Counter_format(12.5, false, buf, sizeof buf);
    assert_string_equal(buf, "12.5");
    /* the kernels and CPU ops are untouched; the instants became samples, not kept twice */
    assert_true(tu_find(t, "[memory]") < 0);
    assert_int_equal(t->n_events, 8 + 4 + 7 * 3);
    CounterSet_free(cs);
    Trace_free(t);
}

/* A "[memory]" instant with none of the known keys stays an instant. */
static void memory_without_totals(void **state) {
    (void)state;
    Trace *t = tu_load_ok("[{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":5,\"s\":\"t\",\"args\":{\"Addr\":7}}]");
    assert_int_equal(t->n_events, 1);
    assert_int_equal(t->events[0].kind, KIND_INSTANT);
    assert_int_equal(t->n_lanes, 1);
    Trace_free(t);
}

/* Counter values are the nearest doubles to what the file says, at any magnitude and
 * precision (a sample of 9.5e15 bytes, a utilisation of 0.0004), in a locale with a
 * decimal comma too; one beyond a double's range is counted as skipped, never dropped
 * silently. */
static void values_exact_and_counted(void **state) {
    (void)state;
    const char *json =
        "[{\"ph\":\"C\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":5,"
        "\"args\":{\"big\":9.5e15,\"tiny\":0.0004,\"neg\":-2.5E-7,\"frac\":123456789.123456,\"huge\":1e400}}]";
    static const struct { const char *name; double v; } want[] = {
        {"c.big", 9.5e15}, {"c.tiny", 0.0004}, {"c.neg", -2.5e-7}, {"c.frac", 123456789.123456}};
    for (int pass = 0; pass < 2; pass++) {
        /* the second pass in a decimal-comma locale, where one is installed */
        if (pass == 1 && !setlocale(LC_NUMERIC, "de_DE.UTF-8") && !setlocale(LC_NUMERIC, "fr_FR.UTF-8")) break;
        Trace *t = tu_load_ok(json);
        assert_int_equal(t->n_events, 4);
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            long i = tu_find(t, want[k].name);
            assert_true(i >= 0);
            assert_true(t->events[i].value == want[k].v);
        }
        assert_true(tu_find(t, "c.huge") < 0);
        assert_int_equal(t->diag.skipped, 1);
        Trace_free(t);
    }
    setlocale(LC_NUMERIC, "C");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_series_kept),
        cmocka_unit_test(kineto_memory),
        cmocka_unit_test(memory_without_totals),
        cmocka_unit_test(values_exact_and_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
