/* GPU only (label "gpu"; exit 77 without a driver): the real collectors end to end.
 *  1. in-process: ovtrace-workload --collect streams CUPTI events into a shared ring set;
 *  2. injected:   ovtrace-workload without --collect, under CUDA_INJECTION64_PATH =
 *                 libovtrace_inject.so.
 * Each run: the store gets the schedule's kernels with the simulator's names on three
 * streams, launches partnered with their kernels, NVTX ranges, no drops. These run the
 * one-GPU emulation (--gpus 1) on any machine.
 *  3. --gpus 2 (skipped unless two GPUs and NCCL are there): every GPU runs the schedule,
 *     dispatch/combine are NCCL send/recv kernels, classified as communication. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/collector/launch.h"
#include "ovtrace/live/live.h"
#include "ovtrace/kernels/schedule.h"
#include "workload_plan.h"

#ifndef WORKLOAD_BIN
#error WORKLOAD_BIN and INJECT_LIB must be defined
#endif

static size_t count(const Trace *t, const char *name, EventKind k) {
    size_t n = 0;
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == k && !strcmp(Trace_name(t, &t->events[i]), name)) n++;
    return n;
}

/* The workload's own plan for `--mode mode --layers LAYERS`: how many ops of a phase one
 * step launches. */
#define LAYERS 2
#define STEPS 4 /* --warmup 1 + --steps 3 */
static size_t per_step(const char *mode, SchedPhase phase) {
    ScheduleParams p;
    ScheduleParams_default(&p, (SchedMode)SchedMode_parse(mode));
    p.layers = LAYERS;
    char err[256];
    Schedule *sch = Schedule_build(&p, err, sizeof err);
    if (!sch) fail_msg("%s", err);
    WlPlan *plan = WlPlan_build(sch, err, sizeof err);
    if (!plan) fail_msg("%s", err);
    size_t n = WlPlan_opCount(plan, phase);
    WlPlan_free(plan);
    Schedule_free(sch);
    return n;
}

static void run(bool inject, const char *mode) {
    RingSet *set = RingSet_create_shared(NULL);
    LiveStore *store = LiveStore_new(set, NULL);
    char *argv[] = {WORKLOAD_BIN, "--mode", (char *)mode, "--steps", "3", "--warmup", "1", "--layers", "2",
                    "--gpus", "1", inject ? NULL : "--collect", NULL};
    _Static_assert(STEPS == 1 + 3 && LAYERS == 2, "the arguments above");
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
    size_t attn = count(t, "moe::attn_proj(moe::GemmArgs)", KIND_KERNEL);
    printf("%s %s: %zu events, %zu attn kernels\n", inject ? "injected" : "in-process", mode, t->n_events, attn);
    /* the steps' and the FLOP-rate calibration's, which runs after the collector started */
    assert_int_equal(attn, STEPS * per_step(mode, SCHED_PH_ATTN) + WL_CALIBRATION_GEMMS);
    assert_int_equal(count(t, "moe::expert_gemm(moe::GemmArgs)", KIND_KERNEL),
                     STEPS * per_step(mode, SCHED_PH_EXPERT) + WL_CALIBRATION_GEMMS);
    if (strcmp(mode, "decode") != 0) /* decode's all-to-all is copies */
        assert_int_equal(count(t, SCHED_NAME_DISPATCH_NVL, KIND_KERNEL), STEPS * per_step(mode, SCHED_PH_DISPATCH));
    assert_true(count(t, "mb0/attn", KIND_ANNOTATION) >= STEPS * per_step(mode, SCHED_PH_ATTN) / 2);
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

static void test_two_gpus_nccl(void **s) {
    (void)s;
    RingSet *set = RingSet_create_shared(NULL);
    LiveStore *store = LiveStore_new(set, NULL);
    char *argv[] = {WORKLOAD_BIN, "--mode", "prefill", "--steps", "3", "--warmup", "1", "--layers", "2",
                    "--gpus", "2", "--collect", NULL};
    LaunchConfig cfg;
    LaunchConfig_default(&cfg);
    cfg.argv = argv;
    char err[512];
    Launch *l = Launch_start(&cfg, set, err, sizeof err);
    if (!l) fail_msg("%s", err);
    while (!Launch_poll(l))
        if (!LiveStore_drain(store, 0)) usleep(1000);
    LiveStore_drain(store, 0);
    int rc = Launch_exitCode(l);
    if (rc == 3) { /* fewer than two GPUs, or no NCCL: the workload said which on stderr */
        Launch_free(l);
        LiveStore_free(store);
        RingSet_free(set);
        skip();
    }
    assert_int_equal(rc, 0);
    Trace *t = LiveStore_snapshot(store, SIZE_MAX, INT64_MIN);
    CommRules *rules = CommRules_default();
    Classify_trace(t, rules);
    size_t per_gpu = STEPS * per_step("prefill", SCHED_PH_ATTN) + WL_CALIBRATION_GEMMS;
    size_t attn[2] = {0}, sendrecv[2] = {0}, comm_lane[2] = {SIZE_MAX, SIZE_MAX};
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->kind != KIND_KERNEL) continue;
        size_t lane = Trace_laneOf(t, i);
        const Lane *ln = &t->lanes[lane];
        assert_true(ln->device == 0 || ln->device == 1);
        const char *name = Trace_name(t, e);
        if (strstr(name, "SendRecv")) { /* ncclDevKernel_SendRecv(...) (NCCL >= 2.19) */
            sendrecv[ln->device]++;
            assert_int_equal(e->cls, CLASS_COMM);
            /* all on one stream per GPU: the comm stream */
            if (comm_lane[ln->device] == SIZE_MAX) comm_lane[ln->device] = lane;
            assert_int_equal(lane, comm_lane[ln->device]);
        }
        assert_null(strstr(name, "dpsk::ep")); /* no emulation kernels */
    }
    for (size_t i = 0; i < t->n_events; i++) { /* compute is never on the comm stream */
        const TraceEvent *e = &t->events[i];
        if (e->kind != KIND_KERNEL || strcmp(Trace_name(t, e), "moe::attn_proj(moe::GemmArgs)") != 0) continue;
        const Lane *ln = &t->lanes[Trace_laneOf(t, i)];
        attn[ln->device]++;
        assert_true(Trace_laneOf(t, i) != comm_lane[ln->device]);
    }
    printf("2 GPUs: %zu events; attn %zu/%zu, SendRecv %zu/%zu\n", t->n_events, attn[0], attn[1], sendrecv[0],
           sendrecv[1]);
    for (int d = 0; d < 2; d++) {
        assert_int_equal(attn[d], per_gpu);
        assert_true(sendrecv[d] >= 2 * per_gpu); /* dispatch + combine; NCCL may split a group */
    }
    /* mb0's half of the dispatches, on each of the 2 GPU threads */
    assert_true(count(t, "mb0/dispatch", KIND_ANNOTATION) >= 2 * STEPS * per_step("prefill", SCHED_PH_DISPATCH) / 2);
    assert_int_equal(LiveStore_stats(store).ring_drops, 0);
    CommRules_free(rules);
    Trace_free(t);
    Launch_free(l);
    LiveStore_free(store);
    RingSet_free(set);
}

int main(void) {
    char msg[512];
    if (!Launch_cudaDriver(msg, sizeof msg)) {
        printf("SKIP: %s\n", msg);
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inprocess), cmocka_unit_test(test_injected),
                                       cmocka_unit_test(test_two_gpus_nccl)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
