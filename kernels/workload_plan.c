/* Host-side plan of the CUDA MoE workload (workload_plan.h). */
#include "workload_plan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push(WlPlan *p, size_t *cap, WlAction a) {
    if (p->n_acts == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        p->acts = realloc(p->acts, *cap * sizeof *p->acts);
        if (!p->acts) abort();
    }
    p->acts[p->n_acts++] = a;
}

uint64_t WlPlan_pairBytes(uint64_t total, int gpus, int from, int to) {
    if (gpus < 2 || from == to) return 0;
    uint64_t peers = (uint64_t)gpus - 1;
    uint64_t j = (uint64_t)((to - from - 1 + 2 * gpus) % gpus); /* 0..gpus-2: which share */
    return total / peers + (j < total % peers ? 1 : 0);
}

/* The grouped all-to-all of one dispatch/combine op on this rank: a send to and a receive
 * from every peer, starting with the next rank. */
static void push_all_to_all(WlPlan *p, size_t *cap, const SchedOp *op, uint32_t i, uint64_t total) {
    int n = p->cfg.gpus, me = p->cfg.rank;
    push(p, cap, (WlAction){.kind = WL_NCCL_GROUP_START, .stream = op->stream, .op = i});
    uint64_t sent = 0, received = 0;
    for (int k = 1; k < n; k++) {
        int peer = (me + k) % n;
        uint64_t out = WlPlan_pairBytes(total, n, me, peer), in = WlPlan_pairBytes(total, n, peer, me);
        push(p, cap,
             (WlAction){.kind = WL_NCCL_SEND, .stream = op->stream, .op = i, .peer = peer, .offset = sent, .bytes = out});
        push(p, cap,
             (WlAction){.kind = WL_NCCL_RECV, .stream = op->stream, .op = i, .peer = peer, .offset = received, .bytes = in});
        sent += out;
        received += in;
    }
    push(p, cap, (WlAction){.kind = WL_NCCL_GROUP_END, .stream = op->stream, .op = i});
}

WlPlan *WlPlan_build(const Schedule *sch, char *err, size_t errlen) { return WlPlan_buildFor(sch, NULL, err, errlen); }

WlPlan *WlPlan_buildFor(const Schedule *sch, const WlPlanConfig *cfg, char *err, size_t errlen) {
    if (!sch || !sch->n_ops) {
        snprintf(err, errlen, "empty schedule");
        return NULL;
    }
    WlPlanConfig c = cfg ? *cfg : (WlPlanConfig){.gpus = 1};
    if (c.gpus < 1 || c.gpus > 1024 || c.rank < 0 || c.rank >= c.gpus) {
        snprintf(err, errlen, "bad GPU count %d or rank %d", c.gpus, c.rank);
        return NULL;
    }
    if (!(c.imbalance >= 0 && c.imbalance <= 10)) {
        snprintf(err, errlen, "--imbalance must be in 0..10");
        return NULL;
    }
    bool nccl = c.gpus > 1;
    WlPlan *p = calloc(1, sizeof *p);
    if (!p) abort();
    p->sch = sch;
    p->cfg = c;
    p->shape = calloc(sch->n_ops, sizeof *p->shape);
    p->event_of = malloc(sch->n_ops * sizeof *p->event_of);
    if (!p->shape || !p->event_of) abort();
    const ScheduleParams *sp = &sch->p;
    double heavy = 1 + c.imbalance;
    for (size_t i = 0; i < sch->n_ops; i++) {
        const SchedOp *op = &sch->ops[i];
        WlOpShape *s = &p->shape[i];
        s->name = op->name;
        s->target_ns = Schedule_opWorkNs(sch, op) - sp->launch_us * 1e3;
        if (s->target_ns < 1000) s->target_ns = 1000;
        switch (op->kind) {
        case SCHED_OP_COMPUTE:
            s->kernel = WL_K_GEMM;
            s->flops = op->flops;
            s->grid = 0;
            if (op->phase == SCHED_PH_EXPERT) {
                s->target_ns *= heavy;
                s->grid = WlPlan_expertGrid(sp);
            }
            break;
        case SCHED_OP_COMM_KERNEL: {
            s->kernel = WL_K_COMM;
            s->bytes = op->link_bytes * heavy;
            s->grid = sp->comm_sms;
            double frac = (double)sp->comm_sms / sp->full_bw_sms;
            s->link_gbps = sp->link_gbps * (frac > 1 ? 1 : frac);
            break;
        }
        case SCHED_OP_COPY:
            s->kernel = WL_K_COPY;
            s->bytes = op->link_bytes * heavy;
            s->link_gbps = sp->link_gbps;
            break;
        }
        if (op->kind != SCHED_OP_COMPUTE) {
            if (nccl) { /* the real transfer: whole bytes, not paced, NCCL picks its CTAs */
                s->kernel = WL_K_NCCL;
                s->bytes = (double)(uint64_t)(s->bytes + 0.5);
                s->grid = 0;
                s->link_gbps = 0;
            }
            uint64_t b = (uint64_t)s->bytes + 1;
            if (b > p->max_op_bytes) p->max_op_bytes = b;
        }
        p->event_of[i] = op->is_dep_target ? (int32_t)p->n_events++ : -1;
    }
    size_t cap = 0;
    for (size_t i = 0; i < sch->n_ops; i++) {
        const SchedOp *op = &sch->ops[i];
        uint32_t oi = (uint32_t)i;
        push(p, &cap, (WlAction){.kind = WL_NVTX_PUSH, .stream = op->stream, .op = oi});
        for (uint32_t d = 0; d < op->n_deps; d++) {
            const SchedDep *dep = &op->deps[d];
            /* same stream, same step: stream order already holds it */
            bool prev = (dep->flags & SCHED_DEP_PREV_STEP) != 0;
            if (!prev && sch->ops[dep->op].stream == op->stream) continue;
            push(p, &cap, (WlAction){.kind = WL_WAIT, .stream = op->stream, .op = oi, .dep = dep->op, .prev_step = prev});
        }
        if (p->shape[i].kernel == WL_K_NCCL) push_all_to_all(p, &cap, op, oi, (uint64_t)p->shape[i].bytes);
        else push(p, &cap, (WlAction){.kind = WL_LAUNCH, .stream = op->stream, .op = oi});
        if (op->is_dep_target) push(p, &cap, (WlAction){.kind = WL_RECORD, .stream = op->stream, .op = oi});
        push(p, &cap, (WlAction){.kind = WL_NVTX_POP, .stream = op->stream, .op = oi});
    }
    p->tokens_per_step = 2.0 * sp->tokens * c.gpus;
    return p;
}

void WlPlan_free(WlPlan *p) {
    if (!p) return;
    free(p->acts);
    free(p->shape);
    free(p->event_of);
    free(p);
}

void WlStepGate_init(WlStepGate *g, int ranks) {
    pthread_mutex_init(&g->mu, NULL);
    g->ranks = ranks > 0 ? ranks : 1;
    g->stop_at = LONG_MAX;
    g->committed = calloc((size_t)g->ranks, sizeof *g->committed);
    if (!g->committed) abort();
}

void WlStepGate_free(WlStepGate *g) {
    free(g->committed);
    g->committed = NULL;
    pthread_mutex_destroy(&g->mu);
}

bool WlStepGate_pass(WlStepGate *g, int rank, long step, bool stop) {
    pthread_mutex_lock(&g->mu);
    if (stop && g->stop_at == LONG_MAX) {
        long most = 0;
        for (int r = 0; r < g->ranks; r++)
            if (g->committed[r] > most) most = g->committed[r];
        g->stop_at = most;
    }
    bool go = step < g->stop_at;
    if (go && g->committed[rank] < step + 1) g->committed[rank] = step + 1;
    pthread_mutex_unlock(&g->mu);
    return go;
}

long WlStepGate_stopAt(WlStepGate *g) {
    pthread_mutex_lock(&g->mu);
    long s = g->stop_at;
    pthread_mutex_unlock(&g->mu);
    return s;
}

int WlPlan_expertGrid(const ScheduleParams *p) {
    return p->mode == SCHED_PREFILL ? p->total_sms - p->comm_sms : p->total_sms;
}

size_t WlPlan_opCount(const WlPlan *p, SchedPhase phase) {
    size_t n = 0;
    for (size_t i = 0; i < p->sch->n_ops; i++) n += p->sch->ops[i].phase == phase;
    return n;
}

bool WlPlan_deviceSupported(int major, int minor, char *why, size_t n) {
    if (major >= WL_MIN_CC_MAJOR) return true;
    snprintf(why, n,
             "compute capability %d.%d is not supported: the workload is built for %d.0 and newer (Hopper, "
             "Blackwell: sm_%d0 code and compute_%d0 PTX); use 'ovtrace live --simulate' on this GPU",
             major, minor, WL_MIN_CC_MAJOR, WL_MIN_CC_MAJOR, WL_MIN_CC_MAJOR);
    return false;
}

const char *WlPlan_kernelSymbol(const SchedOp *op) {
    switch (op->phase) {
    case SCHED_PH_ATTN: return "moe::attn_proj(";
    case SCHED_PH_GATE: return "moe::gate(";
    case SCHED_PH_EXPERT: return "moe::expert_gemm(";
    case SCHED_PH_SHARED: return "moe::shared_expert(";
    default: return op->name; /* comm kernels carry the full DeepEP-style signature */
    }
}
