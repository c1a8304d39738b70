/* GPU only (label "gpu"; exit 77 without a driver): the real collectors end to end.
 *  1. in-process: ovtrace-workload --collect streams CUPTI events into a shared ring set;
 *  2. injected:   ovtrace-workload without --collect, under CUDA_INJECTION64_PATH =
 *                 libovtrace_inject.so.
 * Each run: the store gets the schedule's kernels with the simulator's names on three
 * streams, launches partnered with their kernels, NVTX ranges, no drops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/launch.h"
#include "ovtrace/live.h"
#include "ovtrace/schedule.h"

#ifndef WORKLOAD_BIN
#error WORKLOAD_BIN and INJECT_LIB must be defined
#endif

static size_t count(const Trace *t, const char *name, EventKind k) {
    size_t n = 0;
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == k && !strcmp(Trace_name(t, &t->events[i]), name)) n++;
    return n;
}

static void run(bool inject, const char *mode) {
    RingSet *set = RingSet_create_shared(NULL);
    LiveStore *store = LiveStore_new(set, NULL);
    char *argv[] = {WORKLOAD_BIN, "--mode", (char *)mode, "--steps", "3", "--warmup", "1", "--layers", "2",
                    inject ? NULL : "--collect", NULL};
    LaunchConfig cfg;
    LaunchConfig_default(&cfg);
    cfg.argv = argv;
    cfg.inject = inject;
    cfg.inject_lib = INJECT_LIB;
    char err[512];
    Launch *l = Launch_start(&cfg, set, err, sizeof err);
    if (!l) fail_msg("%s", err);
    while (!Launch_poll(l))
        if (!LiveStore_drain(store, 0)) usleep(1000);
    LiveStore_drain(store, 0);
    assert_int_equal(Launch_exitCode(l), 0);
    Trace *t = LiveStore_snapshot(store, SIZE_MAX, INT64_MIN);
    int steps = 4; /* warmup + measured */
    size_t attn = count(t, "moe::attn_proj(moe::GemmArgs)", KIND_KERNEL);
    printf("%s %s: %zu events, %zu attn kernels\n", inject ? "injected" : "in-process", mode, t->n_events, attn);
    assert_int_equal(attn, (size_t)steps * 2 * 2);
    if (strcmp(mode, "decode") != 0)
        assert_int_equal(count(t, SCHED_NAME_DISPATCH_NVL, KIND_KERNEL), (size_t)steps * 2 * 2);
    assert_true(count(t, "mb0/attn", KIND_ANNOTATION) >= (size_t)steps * 2);
    size_t partnered = 0, kernels = 0;
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == KIND_KERNEL) {
            kernels++;
            partnered += Trace_partner(t, i) != SIZE_MAX;
        }
    assert_int_equal(partnered, kernels);
    assert_int_equal(LiveStore_stats(store).ring_drops, 0);
    Trace_free(t);
    Launch_free(l);
    LiveStore_free(store);
    RingSet_free(set);
}

static void test_inprocess(void **s) {
    (void)s;
    run(false, "prefill");
    run(false, "decode");
}
static void test_injected(void **s) {
    (void)s;
    run(true, "serial");
}

int main(void) {
    char msg[512];
    if (!Launch_cudaDriver(msg, sizeof msg)) {
        printf("SKIP: %s\n", msg);
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inprocess), cmocka_unit_test(test_injected)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
