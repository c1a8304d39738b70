/* Export on DeepSeek's real trace: the full export reloads to the same events, flows
 * and overlap figures (0.9632, comm 113,030 us); stream 27 gives exactly its 40 GPU
 * events; a 10 ms window gives exactly the events intersecting it. Exit 77 (skipped)
 * when the trace is not there. */
#include "export_common.h"

/* ------------------------------------------------------------------ DeepSeek */

static Trace *deepseek(void) { return load1(OVTRACE_DEEPSEEK); }

static void test_deepseek_full(void **state) {
    (void)state;
    Trace *a = deepseek();
    ExportFilter f = ExportFilter_all();
    ExportResult res;
    export_ok(a, &f, path_in("ds.json.zst"), &res);
    Trace *b = load1(path_in("ds.json.zst"));
    assert_reloads_to(a, NULL, b, true);
    assert_same_stats(a, b);
    OverlapFilter of = OverlapFilter_all();
    OverlapReport *r = Overlap_compute(b, &of);
    assert_true(r->total.has_comm);
    assert_true(r->total.ratio > 0.96315 && r->total.ratio < 0.96325); /* 0.9632 */
    assert_int_equal((r->total.comm + 500) / 1000, 113030);            /* us */
    OverlapReport_free(r);
    /* top-level keys survive */
    assert_string_equal(b->sources[0].trace_name,
                        "traces/prof_ep64_tp1_varsm_hidden7168_seqlen4096.json (ovtrace export: all events)");
    assert_int_equal(b->sources[0].world_size, 64);
    Trace_free(b);
    Trace_free(a);
}

static void test_deepseek_filtered(void **state) {
    (void)state;
    Trace *a = deepseek();
    /* stream 27: 40 GPU events */
    ExportFilter f = ExportFilter_all();
    f.stream = 27;
    size_t n_ref;
    uint8_t *ref = select_ref(a, &f, &n_ref);
    assert_int_equal(n_ref, 40);
    ExportResult res;
    export_ok(a, &f, path_in("s27.json"), &res);
    assert_int_equal(res.events_written, 40);
    Trace *b = load1(path_in("s27.json"));
    assert_int_equal(b->n_events, 40);
    for (size_t i = 0; i < b->n_events; i++) assert_true(b->lanes[b->events[i].lane].gpu);
    assert_reloads_to(a, ref, b, true);
    Trace_free(b);
    free(ref);
    /* one 10 ms window, 30 ms into the trace */
    f = ExportFilter_all();
    f.t0 = a->t_min + 30000000;
    f.t1 = f.t0 + 10000000;
    ref = select_ref(a, &f, &n_ref);
    assert_true(n_ref > 100);
    export_ok(a, &f, path_in("w.json.gz"), &res);
    b = load1(path_in("w.json.gz"));
    assert_int_equal(b->n_events, n_ref);
    assert_reloads_to(a, ref, b, true);
    Trace_free(b);
    free(ref);
    /* the window's comm kernels with their launches */
    f.class_mask = 1u << CLASS_COMM;
    f.with_launches = true;
    export_ok(a, &f, path_in("wl.json"), &res);
    b = load1(path_in("wl.json"));
    size_t gpu = 0, launches = 0;
    for (size_t i = 0; i < b->n_events; i++) {
        gpu += b->events[i].cls == CLASS_COMM;
        launches += b->events[i].kind == KIND_RUNTIME || b->events[i].kind == KIND_DRIVER;
    }
    assert_true(gpu > 0);
    assert_int_equal(gpu + launches, b->n_events);
    assert_true(launches > 0 && launches <= gpu);
    Trace_free(b);
    Trace_free(a);
}

int main(void) {
    if (access(OVTRACE_DEEPSEEK, R_OK) != 0) {
        fprintf(stderr, "skipped: %s not found\n", OVTRACE_DEEPSEEK);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_deepseek_full, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_deepseek_filtered, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
