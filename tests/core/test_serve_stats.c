/* Serving figures from a hand-built trace: every expected value below is
 * worked out by hand from the events, independently of the simulator. */
#include "testutil.h"
#include "ovtrace/analysis/counters.h"
#include "ovtrace/analysis/serve_stats.h"

/* steps at 0, 10, 20, 40 us lasting 10 us each (window 0..50 us); batch 2, 4, 4, 6
 * (16 tokens); queue 3, 1, 0, 0; memory 100, 300, 200, 400 bytes; five requests of 5,
 * 15, 25, 35, 45 us (the last ends at 60 us, after the window). */
static const char *TRACE =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve::step\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve::step\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve::step\",\"pid\":1,\"tid\":2,\"ts\":20,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve::step\",\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":10},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 batch size\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"[serve] GPU 0 batch size\":2}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 batch size\",\"pid\":1,\"tid\":1,\"ts\":10,\"args\":{\"[serve] GPU 0 batch size\":4}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 batch size\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"[serve] GPU 0 batch size\":4}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 batch size\",\"pid\":1,\"tid\":1,\"ts\":40,\"args\":{\"[serve] GPU 0 batch size\":6}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 queue length\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"[serve] GPU 0 queue length\":3}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 queue length\",\"pid\":1,\"tid\":1,\"ts\":10,\"args\":{\"[serve] GPU 0 queue length\":1}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 queue length\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"[serve] GPU 0 queue length\":0}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 queue length\",\"pid\":1,\"tid\":1,\"ts\":40,\"args\":{\"[serve] GPU 0 queue length\":0}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 memory in use\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"[serve] GPU 0 memory in use\":100}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 memory in use\",\"pid\":1,\"tid\":1,\"ts\":10,\"args\":{\"[serve] GPU 0 memory in use\":300}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 memory in use\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"[serve] GPU 0 memory in use\":200}},"
    "{\"ph\":\"C\",\"name\":\"[serve] GPU 0 memory in use\",\"pid\":1,\"tid\":1,\"ts\":40,\"args\":{\"[serve] GPU 0 memory in use\":400}},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve::request\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":5},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve::request\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":15},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve::request\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":25},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve::request\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":35},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"serve::request\",\"pid\":1,\"tid\":3,\"ts\":15,\"dur\":45}"
    "]}";

static void figures(void **state) {
    (void)state;
    Trace *t = tu_load_ok(TRACE);
    CounterSet *cs = CounterSet_build(t);
    ServeStats s;
    assert_true(ServeStats_compute(t, cs, INT64_MIN, INT64_MAX, &s));
    assert_int_equal(s.steps, 4);
    assert_int_equal(s.window_ns, 50000);
    assert_true(s.tokens == 16);
    assert_true(s.throughput == 16 * 1e9 / 50000); /* 320,000 tokens/s */
    assert_true(s.mean_batch == 4 && s.max_batch == 6);
    assert_true(s.mean_queue == 1);
    assert_true(s.memory_max == 400 && s.memory_mean == 250);
    assert_int_equal(s.requests, 5);
    /* nearest rank over 5, 15, 25, 35, 45 us: p50 = the 3rd (25), p99 = the 5th (45) */
    assert_int_equal(s.latency_p50_ns, 25000);
    assert_int_equal(s.latency_p99_ns, 45000);
    assert_int_equal(s.latency_max_ns, 45000);
    assert_true(s.latency_mean_ns == 25000);
    /* a range [10 us, 30 us): steps 2 and 3 (window 10..30), batch 4 + 4; requests ending in
     * it: 15, 25 us */
    assert_true(ServeStats_compute(t, cs, 10000, 30000, &s));
    assert_int_equal(s.steps, 2);
    assert_int_equal(s.window_ns, 20000);
    assert_true(s.tokens == 8 && s.throughput == 8 * 1e9 / 20000);
    assert_int_equal(s.requests, 2);
    assert_int_equal(s.latency_p50_ns, 15000);
    assert_int_equal(s.latency_p99_ns, 25000);
    /* no step in [55 us, 100 us): no figures */
    assert_false(ServeStats_compute(t, cs, 55000, 100000, &s));
    CounterSet_free(cs);
    Trace_free(t);
}

/* the counters alone, without serve::step ranges, are not a serving run */
static void not_serving(void **state) {
    (void)state;
    Trace *t = tu_load_ok("[{\"ph\":\"C\",\"name\":\"[serve] GPU 0 batch size\",\"pid\":1,\"tid\":1,\"ts\":0,"
                          "\"args\":{\"[serve] GPU 0 batch size\":2}}]");
    CounterSet *cs = CounterSet_build(t);
    ServeStats s;
    assert_false(ServeStats_compute(t, cs, INT64_MIN, INT64_MAX, &s));
    CounterSet_free(cs);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figures),
        cmocka_unit_test(not_serving),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
