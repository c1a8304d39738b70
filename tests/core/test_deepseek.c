/* DeepSeek's real training trace (EP64, rank 0, H800): the reference figures. */
#include "testutil.h"
#include "ovtrace/analysis/overlap.h"

static Trace *T;

static int setup(void **state) {
    (void)state;
    char err[512];
    const char *p[] = {OVTRACE_DEEPSEEK};
    T = Load_files(p, 1, NULL, err, sizeof err);
    if (!T) fprintf(stderr, "%s\n", err);
    return T ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    Trace_free(T);
    return 0;
}

static void exact_reference_figures(void **state) {
    (void)state;
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *R = Overlap_compute(T, &f);
    assert_int_equal(R->n_devices, 1);
    const DeviceFigures *d = &R->devices[0];
    assert_int_equal(d->comm, INT64_C(113030000));
    assert_int_equal(d->compute, INT64_C(124338000));
    assert_int_equal(d->overlap, INT64_C(108868000));
    assert_int_equal(d->exposed, INT64_C(4162000));
    assert_int_equal(d->window, INT64_C(129012000));
    assert_int_equal(d->idle, INT64_C(497000));
    char ratio[16];
    snprintf(ratio, sizeof ratio, "%.4f", d->ratio);
    assert_string_equal(ratio, "0.9632");
    assert_int_equal(d->n_streams, 3);
    OverlapReport_free(R);
}

static void model_shape(void **state) {
    (void)state;
    assert_int_equal(T->sources[0].rank, 0);
    assert_int_equal(T->sources[0].world_size, 64);
    size_t gpu = 0, comm = 0, s27 = 0, layout = 0, flows_ac2g = 0;
    for (size_t i = 0; i < T->n_events; i++) {
        const TraceEvent *e = &T->events[i];
        const Lane *l = &T->lanes[e->lane];
        if (!l->gpu) continue;
        gpu++;
        comm += e->cls == CLASS_COMM;
        s27 += l->stream == 27;
        if (strstr(Trace_name(T, e), "get_dispatch_layout")) {
            layout++;
            assert_int_equal(e->cls, CLASS_COMPUTE);
        }
        if (strstr(Trace_name(T, e), "dpsk::ep::internode::")) assert_int_equal(e->cls, CLASS_COMM);
    }
    assert_int_equal(gpu, 963 + 12 + 8);
    assert_int_equal(comm, 32);
    assert_int_equal(s27, 40);
    assert_int_equal(layout, 4);
    for (size_t i = 0; i < T->n_flows; i++) flows_ac2g += !strcmp(StrTab_get(T->strings, T->flows[i].cat), "ac2g");
    assert_int_equal(flows_ac2g, 983); /* every GPU op is tied to its launch */
    /* stream lanes named by metadata, in sort order */
    assert_true(T->lanes[0].gpu && T->lanes[1].gpu && T->lanes[2].gpu);
    assert_int_equal(T->lanes[0].stream, 7);
    assert_int_equal(T->lanes[2].stream, 27);
    assert_string_equal(StrTab_get(T->strings, T->lanes[0].name), "stream 7 ");
    assert_string_equal(StrTab_get(T->strings, T->groups[0].label), "GPU 0");
    /* memory budget: <= 64 B per trace record, strings and indexes included */
    size_t records = 14240;
    assert_true(Trace_memoryBytes(T) <= records * 64);
}

static void range_figures_add_up(void **state) {
    (void)state;
    /* splitting the window in two gives the same totals */
    OverlapFilter a = OverlapFilter_all(), b = OverlapFilter_all(), all = OverlapFilter_all();
    int64_t mid = T->t_min + 60000000;
    a.t1 = mid;
    b.t0 = mid;
    OverlapReport *Ra = Overlap_compute(T, &a), *Rb = Overlap_compute(T, &b), *R = Overlap_compute(T, &all);
    assert_int_equal(Ra->devices[0].comm + Rb->devices[0].comm, R->devices[0].comm);
    assert_int_equal(Ra->devices[0].overlap + Rb->devices[0].overlap, R->devices[0].overlap);
    assert_int_equal(Ra->devices[0].busy + Rb->devices[0].busy, R->devices[0].busy);
    OverlapReport_free(Ra);
    OverlapReport_free(Rb);
    OverlapReport_free(R);
}

int main(void) {
    if (tu_skip_if_missing(OVTRACE_DEEPSEEK)) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_reference_figures),
        cmocka_unit_test(model_shape),
        cmocka_unit_test(range_figures_add_up),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
