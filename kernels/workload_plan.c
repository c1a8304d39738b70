/* Host-side plan of the CUDA MoE workload (workload_plan.h). */
#include "workload_plan.h"

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

WlPlan *WlPlan_build(const Schedule *sch, char *err, size_t errlen) {
    if (!sch || !sch->n_ops) {
        snprintf(err, errlen, "empty schedule");
        return NULL;
    }
    WlPlan *p = calloc(1, sizeof *p);
    if (!p) abort();
    p->sch = sch;
    p->shape = calloc(sch->n_ops, sizeof *p->shape);
    p->event_of = malloc(sch->n_ops * sizeof *p->event_of);
    if (!p->shape || !p->event_of) abort();
    const ScheduleParams *sp = &sch->p;
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
            break;
        case SCHED_OP_COMM_KERNEL: {
            s->kernel = WL_K_COMM;
            s->bytes = op->link_bytes;
            s->grid = sp->comm_sms;
            double frac = (double)sp->comm_sms / sp->full_bw_sms;
            s->link_gbps = sp->link_gbps * (frac > 1 ? 1 : frac);
            break;
        }
        case SCHED_OP_COPY:
            s->kernel = WL_K_COPY;
            s->bytes = op->link_bytes;
            s->link_gbps = sp->link_gbps;
            break;
        }
        p->event_of[i] = op->is_dep_target ? (int32_t)p->n_events++ : -1;
    }
    size_t cap = 0;
    for (size_t i = 0; i < sch->n_ops; i++) {
        const SchedOp *op = &sch->ops[i];
        push(p, &cap, (WlAction){WL_NVTX_PUSH, op->stream, (uint32_t)i, 0, false});
        for (uint32_t d = 0; d < op->n_deps; d++) {
            const SchedDep *dep = &op->deps[d];
            /* same stream, same step: stream order already holds it */
            bool prev = (dep->flags & SCHED_DEP_PREV_STEP) != 0;
            if (!prev && sch->ops[dep->op].stream == op->stream) continue;
            push(p, &cap, (WlAction){WL_WAIT, op->stream, (uint32_t)i, dep->op, prev});
        }
        push(p, &cap, (WlAction){WL_LAUNCH, op->stream, (uint32_t)i, 0, false});
        if (op->is_dep_target) push(p, &cap, (WlAction){WL_RECORD, op->stream, (uint32_t)i, 0, false});
        push(p, &cap, (WlAction){WL_NVTX_POP, op->stream, (uint32_t)i, 0, false});
    }
    p->tokens_per_step = 2.0 * sp->tokens;
    return p;
}

void WlPlan_free(WlPlan *p) {
    if (!p) return;
    free(p->acts);
    free(p->shape);
    free(p->event_of);
    free(p);
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
