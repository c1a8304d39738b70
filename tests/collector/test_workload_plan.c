/* The CUDA workload's host-side plan (kernels/workload_plan.c) against the simulator
 * (live/simulate.c), both driven by the one Schedule: the same GPU ops, on the same
 * streams, in the same order, with the same names; every cross-stream dependency is
 * waited on through an event recorded after its producer; NVTX ranges wrap each op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/live.h"
#include "ovtrace/schedule.h"
#include "workload_plan.h"

typedef struct {
    int64_t stream;
    int64_t ts;
    char name[160];
    uint8_t kind;
} SimOp;

typedef struct {
    SimOp *ops;
    size_t n, cap;
} SimOps;

static void collect(const RingRecord *r, const char *name, void *ctx) {
    SimOps *s = ctx;
    if (r->kind != RING_KIND_KERNEL && r->kind != RING_KIND_MEMCPY) return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->ops = realloc(s->ops, s->cap * sizeof *s->ops);
    }
    SimOp *o = &s->ops[s->n++];
    o->stream = r->stream;
    o->ts = r->ts_ns;
    o->kind = r->kind;
    snprintf(o->name, sizeof o->name, "%s", name);
}

static int by_stream_ts(const void *a, const void *b) {
    const SimOp *x = a, *y = b;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void check_mode(SchedMode mode, SchedLink link) {
    SimConfig sc;
    SimConfig_default(&sc, mode);
    sc.params.layers = 3;
    ScheduleParams_setLink(&sc.params, link);
    sc.jitter = 0;
    char err[256];
    Schedule *sch = Schedule_build(&sc.params, err, sizeof err);
    if (!sch) fail_msg("%s", err);
    WlPlan *plan = WlPlan_build(sch, err, sizeof err);
    if (!plan) fail_msg("%s", err);

    /* the simulator, one step */
    SimOps sim = {0};
    assert_true(Simulator_run(&sc, 1, collect, &sim, err, sizeof err));
    assert_int_equal(sim.n, sch->n_ops);
    qsort(sim.ops, sim.n, sizeof *sim.ops, by_stream_ts);

    /* the plan's launches per stream, in issue order (= execution order on a stream) */
    size_t checked = 0;
    for (int s = 0; s < sch->n_streams; s++) {
        int64_t sid = sch->streams[s].id;
        size_t k = 0;
        while (k < sim.n && sim.ops[k].stream != sid) k++;
        for (size_t i = 0; i < plan->n_acts; i++) {
            const WlAction *a = &plan->acts[i];
            if (a->kind != WL_LAUNCH || a->stream != s) continue;
            const SchedOp *op = &sch->ops[a->op];
            assert_true(k < sim.n);
            assert_int_equal(sim.ops[k].stream, sid);
            assert_string_equal(sim.ops[k].name, op->name);
            assert_string_equal(plan->shape[a->op].name, op->name);
            /* kernel vs copy agree with the simulator's record kinds */
            WlKernel want = op->kind == SCHED_OP_COMPUTE ? WL_K_GEMM : op->kind == SCHED_OP_COPY ? WL_K_COPY : WL_K_COMM;
            assert_int_equal(plan->shape[a->op].kernel, want);
            assert_int_equal(sim.ops[k].kind, want == WL_K_COPY ? RING_KIND_MEMCPY : RING_KIND_KERNEL);
            if (want == WL_K_COMM) assert_int_equal(plan->shape[a->op].grid, sch->p.comm_sms);
            if (want == WL_K_GEMM) assert_true(plan->shape[a->op].target_ns > 0);
            k++;
            checked++;
        }
        assert_true(k == sim.n || sim.ops[k].stream != sid); /* nothing left on this stream */
    }
    assert_int_equal(checked, sch->n_ops);

    /* each op: PUSH, WAITs for its cross-stream deps, LAUNCH, RECORD if a target, POP */
    bool *recorded = calloc(sch->n_ops, sizeof *recorded);
    size_t i = 0;
    for (size_t o = 0; o < sch->n_ops; o++) {
        const SchedOp *op = &sch->ops[o];
        assert_true(i < plan->n_acts);
        assert_int_equal(plan->acts[i].kind, WL_NVTX_PUSH);
        assert_int_equal(plan->acts[i].op, o);
        i++;
        uint32_t waits = 0;
        while (plan->acts[i].kind == WL_WAIT) {
            const WlAction *w = &plan->acts[i++];
            assert_int_equal(w->op, o);
            assert_int_equal(w->stream, op->stream);
            assert_true(plan->event_of[w->dep] >= 0);
            /* a same-step wait targets an event recorded earlier in this step */
            if (!w->prev_step) assert_true(recorded[w->dep]);
            waits++;
        }
        uint32_t cross = 0;
        for (uint32_t d = 0; d < op->n_deps; d++)
            cross += (op->deps[d].flags & SCHED_DEP_PREV_STEP) || sch->ops[op->deps[d].op].stream != op->stream;
        assert_int_equal(waits, cross);
        assert_int_equal(plan->acts[i].kind, WL_LAUNCH);
        assert_int_equal(plan->acts[i].op, o);
        i++;
        if (op->is_dep_target) {
            assert_int_equal(plan->acts[i].kind, WL_RECORD);
            assert_int_equal(plan->acts[i].stream, op->stream);
            recorded[o] = true;
            i++;
        }
        assert_int_equal(plan->acts[i].kind, WL_NVTX_POP);
        i++;
        assert_true(strncmp(op->nvtx, "mb", 2) == 0);
    }
    assert_int_equal(i, plan->n_acts);
    assert_true(plan->tokens_per_step == 2.0 * sch->p.tokens);
    free(recorded);
    free(sim.ops);
    WlPlan_free(plan);
    Schedule_free(sch);
}

static void test_prefill(void **state) {
    (void)state;
    check_mode(SCHED_PREFILL, SCHED_LINK_NVLINK);
    check_mode(SCHED_PREFILL, SCHED_LINK_IB);
}
static void test_decode(void **state) {
    (void)state;
    check_mode(SCHED_DECODE, SCHED_LINK_NVLINK);
}
static void test_serial(void **state) {
    (void)state;
    check_mode(SCHED_SERIAL, SCHED_LINK_NVLINK);
}

/* The CUDA kernels' demangled names (what CUPTI reports) begin with the schedule's
 * names; the comm kernels' are equal (checked on the binary by collector.kernel_names). */
static void test_kernel_symbols(void **state) {
    (void)state;
    ScheduleParams p;
    ScheduleParams_default(&p, SCHED_PREFILL);
    Schedule *sch = Schedule_build(&p, NULL, 0);
    for (size_t i = 0; i < sch->n_ops; i++) {
        const SchedOp *op = &sch->ops[i];
        const char *sym = WlPlan_kernelSymbol(op);
        if (op->kind == SCHED_OP_COMPUTE) {
            assert_int_equal(strncmp(sym, op->name, strlen(op->name)), 0);
            assert_int_equal(sym[strlen(op->name)], '(');
        } else {
            assert_string_equal(sym, op->name);
        }
    }
    Schedule_free(sch);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefill),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_serial),
        cmocka_unit_test(test_kernel_symbols),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
