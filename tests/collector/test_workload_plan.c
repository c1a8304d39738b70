/* The CUDA workload's host-side plan (kernels/workload_plan.c) against the simulator
 * (live/simulate.c), both driven by the one Schedule: the same GPU ops, on the same
 * streams, in the same order, with the same names; every cross-stream dependency is
 * waited on through an event recorded after its producer; NVTX ranges wrap each op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/live/live.h"
#include "ovtrace/kernels/schedule.h"
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

/* SMs the simulator takes from compute while a comm kernel runs beside it: those of the
 * comm kernels on a stream other than a compute op's (none in serial mode, where they
 * share the one stream, nor in decode, whose all-to-all is copies). */
static int overlapping_comm_sms(const Schedule *sch) {
    int held = 0;
    for (size_t i = 0; i < sch->n_ops; i++) {
        const SchedOp *c = &sch->ops[i];
        if (c->kind != SCHED_OP_COMM_KERNEL) continue;
        bool beside = false;
        for (size_t j = 0; j < sch->n_ops; j++)
            beside |= sch->ops[j].kind == SCHED_OP_COMPUTE && sch->ops[j].stream != c->stream;
        if (beside && c->sms > held) held = c->sms;
    }
    return held;
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
            /* the SM split: experts hold exactly the SMs the simulator leaves compute
             * while a comm kernel runs (prefill), all SMs when none is held */
            if (want == WL_K_GEMM && op->phase == SCHED_PH_EXPERT)
                assert_int_equal(plan->shape[a->op].grid, sch->p.total_sms - overlapping_comm_sms(sch));
            else if (want == WL_K_GEMM) assert_int_equal(plan->shape[a->op].grid, 0);
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

    /* per phase: one launch per op (what the GPU test expects the workload to launch);
     * attention once per layer and micro-batch */
    size_t all = 0;
    for (int ph = 0; ph < SCHED_PH__COUNT; ph++) {
        size_t launches = 0;
        for (size_t k = 0; k < plan->n_acts; k++)
            launches += plan->acts[k].kind == WL_LAUNCH && sch->ops[plan->acts[k].op].phase == (SchedPhase)ph;
        assert_int_equal(WlPlan_opCount(plan, (SchedPhase)ph), launches);
        all += launches;
    }
    assert_int_equal(all, sch->n_ops);
    assert_int_equal(WlPlan_opCount(plan, SCHED_PH_ATTN), 2 * (size_t)sc.params.layers);
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

/* ---- more than one GPU: the NCCL all-to-all ---------------------------------------------- */

static WlPlan *plan_for(const Schedule *sch, int gpus, int rank, double imbalance) {
    WlPlanConfig c = {.gpus = gpus, .rank = rank, .imbalance = imbalance};
    char err[256];
    WlPlan *p = WlPlan_buildFor(sch, &c, err, sizeof err);
    if (!p) fail_msg("%s", err);
    return p;
}

/* bytes[from][to] of each comm op, filled from every rank's SENDs and checked against the
 * RECVs: NCCL needs rank r's send to p to match p's receive from r (same count). */
typedef struct {
    uint64_t *sent; /* [op][from][to] */
    int gpus;
    size_t n_ops;
} PairTable;

static uint64_t *pair_at(PairTable *t, uint32_t op, int from, int to) {
    return &t->sent[((size_t)op * (size_t)t->gpus + (size_t)from) * (size_t)t->gpus + (size_t)to];
}

/* Rank `rank`'s plan against the one-GPU plan of the same schedule: action for action the
 * same, except that each comm LAUNCH is a group of one send and one receive per peer on
 * the same stream, moving the emulated bytes in all. Returns the comm ops' order. */
static size_t check_rank(const Schedule *sch, const WlPlan *one, const WlPlan *pl, PairTable *pairs, uint32_t *order) {
    int n = pl->cfg.gpus, me = pl->cfg.rank;
    int comm_stream = sch->p.mode == SCHED_SERIAL ? SCHED_STREAM_MB0 : SCHED_STREAM_COMM;
    size_t j = 0, n_groups = 0;
    assert_int_equal(pl->n_events, one->n_events);
    assert_true(pl->tokens_per_step == 2.0 * sch->p.tokens * n);
    for (size_t i = 0; i < one->n_acts; i++) {
        const WlAction *a = &one->acts[i];
        const SchedOp *op = &sch->ops[a->op];
        assert_true(j < pl->n_acts);
        const WlAction *b = &pl->acts[j];
        bool comm = a->kind == WL_LAUNCH && op->kind != SCHED_OP_COMPUTE;
        if (!comm) { /* NVTX, waits, records, compute launches: unchanged */
            assert_int_equal(b->kind, a->kind);
            assert_int_equal(b->stream, a->stream);
            assert_int_equal(b->op, a->op);
            assert_int_equal(b->dep, a->dep);
            assert_int_equal(b->prev_step, a->prev_step);
            if (a->kind == WL_LAUNCH) assert_int_equal(pl->shape[a->op].kernel, WL_K_GEMM);
            j++;
            continue;
        }
        /* comm: on the comm stream (prefill, decode) or the one stream (serial) */
        assert_int_equal(a->stream, comm_stream);
        assert_int_equal(pl->shape[a->op].kernel, WL_K_NCCL);
        uint64_t emulated = (uint64_t)(one->shape[a->op].bytes + 0.5);
        assert_true(one->shape[a->op].bytes > 0);
        assert_int_equal((uint64_t)pl->shape[a->op].bytes, emulated);
        assert_true(emulated < pl->max_op_bytes);
        assert_int_equal(b->kind, WL_NCCL_GROUP_START);
        assert_int_equal(b->stream, comm_stream);
        assert_int_equal(b->op, a->op);
        j++;
        uint64_t sent = 0, received = 0;
        bool *seen = calloc((size_t)n, sizeof *seen);
        for (int k = 0; k < 2 * (n - 1); k++, j++) {
            const WlAction *x = &pl->acts[j];
            assert_int_equal(x->kind, k % 2 ? WL_NCCL_RECV : WL_NCCL_SEND);
            assert_int_equal(x->stream, comm_stream);
            assert_int_equal(x->op, a->op);
            assert_true(x->peer >= 0 && x->peer < n && x->peer != me);
            assert_true(x->bytes > 0);
            if (x->kind == WL_NCCL_SEND) {
                assert_false(seen[x->peer]);
                seen[x->peer] = true;
                assert_int_equal(x->offset, sent); /* packed, in order */
                sent += x->bytes;
                *pair_at(pairs, a->op, me, x->peer) = x->bytes;
            } else {
                assert_int_equal(x->offset, received);
                received += x->bytes;
            }
        }
        free(seen);
        assert_int_equal(sent, emulated);     /* per-peer shares sum to the emulated bytes */
        assert_int_equal(received, emulated); /* and so do the receives (same load everywhere) */
        assert_int_equal(pl->acts[j].kind, WL_NCCL_GROUP_END);
        assert_int_equal(pl->acts[j].op, a->op);
        j++;
        order[n_groups++] = a->op;
    }
    assert_int_equal(j, pl->n_acts);
    return n_groups;
}

static void check_nccl(SchedMode mode, SchedLink link, int gpus, double imbalance) {
    ScheduleParams p;
    ScheduleParams_default(&p, mode);
    ScheduleParams_setLink(&p, link);
    p.layers = 2;
    p.tokens = 333; /* odd sizes: shares that do not divide evenly */
    p.hidden = 1027;
    Schedule *sch = Schedule_build(&p, NULL, 0);
    assert_non_null(sch);
    WlPlan *one = plan_for(sch, 1, 0, imbalance);
    bool uneven = false;
    for (size_t i = 0; i < sch->n_ops; i++)
        if (sch->ops[i].kind != SCHED_OP_COMPUTE) uneven |= (uint64_t)(one->shape[i].bytes + 0.5) % (uint64_t)(gpus - 1) != 0;
    assert_true(uneven || gpus == 2);
    PairTable pairs = {calloc(sch->n_ops * (size_t)gpus * (size_t)gpus, sizeof(uint64_t)), gpus, sch->n_ops};
    uint32_t *order0 = calloc(sch->n_ops, sizeof *order0), *order = calloc(sch->n_ops, sizeof *order);
    size_t groups0 = 0;
    WlPlan **plans = calloc((size_t)gpus, sizeof *plans);
    for (int r = 0; r < gpus; r++) {
        plans[r] = plan_for(sch, gpus, r, imbalance);
        size_t g = check_rank(sch, one, plans[r], &pairs, r ? order : order0);
        if (r == 0) groups0 = g;
        /* every rank issues its groups for the same ops in the same order (NCCL matches them) */
        else {
            assert_int_equal(g, groups0);
            assert_memory_equal(order, order0, g * sizeof *order);
        }
    }
    assert_int_equal(groups0, (size_t)p.layers * 2 * 2); /* dispatch + combine per layer and mb */
    for (int r = 0; r < gpus; r++)
        for (size_t i = 0; i < plans[r]->n_acts; i++) {
            const WlAction *x = &plans[r]->acts[i];
            if (x->kind == WL_NCCL_RECV) assert_int_equal(x->bytes, *pair_at(&pairs, x->op, x->peer, r));
        }
    for (int r = 0; r < gpus; r++) WlPlan_free(plans[r]);
    free(plans);
    free(order0);
    free(order);
    free(pairs.sent);
    WlPlan_free(one);
    Schedule_free(sch);
}

static void test_nccl_plans(void **state) {
    (void)state;
    int gpus[] = {2, 3, 8};
    for (size_t g = 0; g < 3; g++) {
        check_nccl(SCHED_PREFILL, SCHED_LINK_NVLINK, gpus[g], 0);
        check_nccl(SCHED_PREFILL, SCHED_LINK_IB, gpus[g], 0.5);
        check_nccl(SCHED_DECODE, SCHED_LINK_NVLINK, gpus[g], 0);
        check_nccl(SCHED_SERIAL, SCHED_LINK_NVLINK, gpus[g], 0.3);
    }
}

/* --imbalance: the routed experts and the all-to-all of every op get (1+F) x the load. */
static void test_imbalance(void **state) {
    (void)state;
    ScheduleParams p;
    ScheduleParams_default(&p, SCHED_PREFILL);
    Schedule *sch = Schedule_build(&p, NULL, 0);
    WlPlan *base = plan_for(sch, 1, 0, 0), *heavy = plan_for(sch, 1, 0, 0.5);
    for (size_t i = 0; i < sch->n_ops; i++) {
        const SchedOp *op = &sch->ops[i];
        const WlOpShape *b = &base->shape[i], *h = &heavy->shape[i];
        if (op->kind != SCHED_OP_COMPUTE) {
            assert_true(b->bytes == op->link_bytes);
            assert_true(fabs(h->bytes - 1.5 * op->link_bytes) < 1e-6 * op->link_bytes);
        } else if (op->phase == SCHED_PH_EXPERT) {
            assert_true(fabs(h->target_ns - 1.5 * b->target_ns) < 1e-9 * b->target_ns);
        } else {
            assert_true(h->target_ns == b->target_ns);
        }
    }
    WlPlan_free(base);
    WlPlan_free(heavy);
    Schedule_free(sch);
}

/* A stop request reaches the GPU threads at different steps: whatever the interleaving,
 * every thread runs the same number of steps, at least as many as any had started. */
static void test_step_gate(void **state) {
    (void)state;
    srand(7);
    for (int trial = 0; trial < 2000; trial++) {
        int ranks = 1 + rand() % 4;
        WlStepGate g;
        WlStepGate_init(&g, ranks);
        long next[4] = {0}, ran_before_stop = 0;
        bool done[4] = {false}, stop = false;
        int stop_after = rand() % 40; /* asks before the signal */
        for (int asks = 0;; asks++) {
            int live = 0;
            for (int r = 0; r < ranks; r++) live += !done[r];
            if (!live) break;
            int r = rand() % ranks;
            if (done[r]) continue;
            if (asks == stop_after) {
                stop = true;
                for (int k = 0; k < ranks; k++) ran_before_stop = next[k] > ran_before_stop ? next[k] : ran_before_stop;
            }
            if (WlStepGate_pass(&g, r, next[r], stop)) next[r]++;
            else done[r] = true;
            assert_true(next[r] < 1000);
        }
        for (int r = 0; r < ranks; r++) assert_int_equal(next[r], WlStepGate_stopAt(&g));
        assert_true(WlStepGate_stopAt(&g) >= ran_before_stop);
        WlStepGate_free(&g);
    }
    /* no stop: every step passes */
    WlStepGate g;
    WlStepGate_init(&g, 2);
    for (long s = 0; s < 100; s++) assert_true(WlStepGate_pass(&g, (int)(s & 1), s / 2, false));
    assert_true(WlStepGate_stopAt(&g) == LONG_MAX);
    WlStepGate_free(&g);
}

/* The binary's sm_90 code and compute_90 PTX: 9.0 and newer run, older GPUs are refused
 * with the reason. */
static void test_device_support(void **state) {
    (void)state;
    char why[256] = "";
    assert_true(WlPlan_deviceSupported(9, 0, why, sizeof why));
    assert_true(WlPlan_deviceSupported(10, 0, why, sizeof why));
    assert_true(WlPlan_deviceSupported(12, 0, why, sizeof why));
    assert_string_equal(why, "");
    assert_false(WlPlan_deviceSupported(8, 0, why, sizeof why));
    assert_non_null(strstr(why, "compute capability 8.0"));
    assert_non_null(strstr(why, "--simulate"));
    assert_false(WlPlan_deviceSupported(8, 9, why, sizeof why));
}

static void test_pair_bytes_and_bad_configs(void **state) {
    (void)state;
    /* 10 bytes over 3 peers: 4 + 3 + 3, whoever sends */
    for (int from = 0; from < 4; from++) {
        uint64_t sum = 0, sizes[4] = {0};
        for (int to = 0; to < 4; to++) sum += sizes[to] = WlPlan_pairBytes(10, 4, from, to);
        assert_int_equal(sum, 10);
        assert_int_equal(sizes[from], 0);
        for (int to = 0; to < 4; to++)
            if (to != from) assert_true(sizes[to] == 3 || sizes[to] == 4);
    }
    assert_int_equal(WlPlan_pairBytes(10, 1, 0, 0), 0);
    ScheduleParams p;
    ScheduleParams_default(&p, SCHED_DECODE);
    Schedule *sch = Schedule_build(&p, NULL, 0);
    char err[128];
    WlPlanConfig bad[] = {{.gpus = 0}, {.gpus = 4, .rank = 4}, {.gpus = 2, .rank = -1}, {.gpus = 2, .imbalance = -1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        assert_null(WlPlan_buildFor(sch, &bad[i], err, sizeof err));
        assert_true(err[0] != 0);
    }
    Schedule_free(sch);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefill),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_serial),
        cmocka_unit_test(test_kernel_symbols),
        cmocka_unit_test(test_nccl_plans),
        cmocka_unit_test(test_imbalance),
        cmocka_unit_test(test_pair_bytes_and_bad_configs),
        cmocka_unit_test(test_device_support),
        cmocka_unit_test(test_step_gate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
