/* The schedule description of a DeepSeek-style MoE step (include/ovtrace/kernels/schedule.h):
 * an explicit op list with streams and cross-stream dependencies, plus the cost model
 * that gives each op its FLOPs and bytes. Shared by the simulator and the CUDA
 * workload. */
#include "ovtrace/kernels/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ScheduleParams_setLink(ScheduleParams *p, SchedLink link) {
    p->link = link;
    p->link_gbps = link == SCHED_LINK_IB ? 50.0 : 160.0;
}

void ScheduleParams_default(ScheduleParams *p, SchedMode mode) {
    memset(p, 0, sizeof *p);
    p->mode = mode;
    p->total_sms = 132;
    p->comm_sms = 20;
    p->experts = 256;
    p->topk = 8;
    p->ep_ranks = 64;
    p->hidden = 7168;
    p->moe_ffn = 2048;
    p->shared_ffn = 2048;
    p->tflops = 500.0;
    p->hbm_gbps = 3350.0;
    p->full_bw_sms = 20;
    p->launch_us = 5.0;
    p->dispatch_bytes_per_elem = 1;
    p->combine_bytes_per_elem = 2;
    if (mode == SCHED_DECODE) {
        p->tokens = 128;
        p->layers = 8;
        p->kv_len = 4096;
    } else {
        p->tokens = 4096;
        p->layers = 4;
        p->kv_len = 0;
    }
    ScheduleParams_setLink(p, SCHED_LINK_NVLINK);
}

static const char *MODE_NAMES[] = {"prefill", "decode", "serial"};

const char *SchedMode_name(SchedMode m) { return m < SCHED__MODES ? MODE_NAMES[m] : "?"; }
const char *SchedLink_name(SchedLink l) { return l == SCHED_LINK_IB ? "ib" : "nvlink"; }

int SchedMode_parse(const char *s) {
    for (int i = 0; i < SCHED__MODES; i++)
        if (!strcmp(s, MODE_NAMES[i])) return i;
    return -1;
}

int SchedLink_parse(const char *s) {
    if (!strcmp(s, "nvlink")) return SCHED_LINK_NVLINK;
    if (!strcmp(s, "ib")) return SCHED_LINK_IB;
    return -1;
}

bool ScheduleParams_validate(const ScheduleParams *p, char *err, size_t errlen) {
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            snprintf(err, errlen, __VA_ARGS__);                                                                        \
            return false;                                                                                              \
        }                                                                                                              \
    } while (0)
    CHECK(p->mode >= 0 && p->mode < SCHED__MODES, "unknown mode");
    CHECK(p->total_sms >= 2 && p->total_sms <= 1024, "total SMs must be in 2..1024");
    CHECK(p->comm_sms >= 1 && p->comm_sms < p->total_sms, "--comm-sms must be in 1..%d (of %d SMs)",
          p->total_sms - 1, p->total_sms);
    CHECK(p->tokens >= 1 && p->tokens <= 1 << 20, "--tokens must be in 1..1048576");
    CHECK(p->layers >= 1 && p->layers <= 1000, "--layers must be in 1..1000");
    CHECK(p->experts >= 1 && p->experts <= 65536, "--experts must be in 1..65536");
    CHECK(p->topk >= 1 && p->topk <= p->experts, "--topk must be in 1..experts (%d)", p->experts);
    CHECK(p->ep_ranks >= 1 && p->ep_ranks <= 65536, "EP ranks must be in 1..65536");
    CHECK(p->hidden >= 1 && p->hidden <= 1 << 18, "--hidden must be in 1..262144");
    CHECK(p->moe_ffn >= 1 && p->shared_ffn >= 0, "bad FFN sizes");
    CHECK(p->link_gbps > 0 && p->tflops > 0 && p->hbm_gbps > 0, "bandwidths and TFLOP/s must be positive");
    CHECK(p->full_bw_sms >= 1, "full-bandwidth SMs must be positive");
    CHECK(p->launch_us >= 0, "launch cost must be >= 0");
#undef CHECK
    return true;
}

int ScheduleParams_json(const ScheduleParams *p, char *buf, size_t n) {
    return snprintf(buf, n,
                    "{\"mode\": \"%s\", \"total_sms\": %d, \"comm_sms\": %d, \"tokens\": %d, \"layers\": %d, "
                    "\"experts\": %d, \"topk\": %d, \"ep_ranks\": %d, \"hidden\": %d, \"moe_ffn\": %d, "
                    "\"shared_ffn\": %d, \"kv_len\": %d, \"link\": \"%s\", \"link_gbps\": %g, \"tflops\": %g, "
                    "\"hbm_gbps\": %g, \"full_bw_sms\": %d, \"launch_us\": %g, \"micro_batches\": 2}",
                    SchedMode_name(p->mode), p->total_sms, p->comm_sms, p->tokens, p->layers, p->experts, p->topk,
                    p->ep_ranks, p->hidden, p->moe_ffn, p->shared_ffn, p->kv_len, SchedLink_name(p->link),
                    p->link_gbps, p->tflops, p->hbm_gbps, p->full_bw_sms, p->launch_us);
}

const char *SchedPhase_name(SchedPhase ph) {
    static const char *N[] = {"attn", "gate", "dispatch", "expert", "combine", "shared"};
    return ph < SCHED_PH__COUNT ? N[ph] : "?";
}

/* ---- FLOPs and bytes per op ------------------------------------------------------- */

static void fill_costs(const ScheduleParams *p, SchedOp *op) {
    double T = p->tokens, h = p->hidden, E = p->experts, k = p->topk;
    double remote = p->ep_ranks > 1 ? (double)(p->ep_ranks - 1) / p->ep_ranks : 0.0;
    double local_experts = E / p->ep_ranks < 1 ? 1 : E / p->ep_ranks;
    switch (op->phase) {
    case SCHED_PH_ATTN: {
        /* q, k, v, o projections (4 h x h, FP8 weights) + scores and values over the
         * context (causal in prefill: half the square) + decode reads the KV cache
         * (MLA: ~1152 bytes per cached token and layer). */
        double ctx = p->mode == SCHED_DECODE ? p->kv_len : T * 0.5;
        op->flops = 2.0 * T * h * 4.0 * h + 4.0 * T * ctx * h;
        op->hbm_bytes = 4.0 * h * h + 2.0 * T * h * 2.0;
        if (p->mode == SCHED_DECODE) op->hbm_bytes += T * (double)p->kv_len * 1152.0;
        break;
    }
    case SCHED_PH_GATE:
        op->flops = 2.0 * T * h * E;
        op->hbm_bytes = h * E * 2.0 + T * h * 2.0;
        break;
    case SCHED_PH_EXPERT:
        /* balanced routing: this rank computes as many token-expert pairs as it sends */
        op->flops = 2.0 * T * k * 3.0 * h * p->moe_ffn;
        op->hbm_bytes = local_experts * 3.0 * h * p->moe_ffn + T * k * h * 3.0;
        break;
    case SCHED_PH_SHARED:
        op->flops = 2.0 * T * 3.0 * h * p->shared_ffn;
        op->hbm_bytes = 3.0 * h * p->shared_ffn + T * h * 4.0;
        break;
    case SCHED_PH_DISPATCH: op->link_bytes = T * k * h * p->dispatch_bytes_per_elem * remote; break;
    case SCHED_PH_COMBINE: op->link_bytes = T * k * h * p->combine_bytes_per_elem * remote; break;
    default: break;
    }
}

double Schedule_opWorkNs(const Schedule *s, const SchedOp *op) {
    const ScheduleParams *p = &s->p;
    double launch = p->launch_us * 1e3;
    switch (op->kind) {
    case SCHED_OP_COMPUTE: {
        double c = op->flops / (p->tflops * 1e12) * 1e9, m = op->hbm_bytes / (p->hbm_gbps * 1e9) * 1e9;
        return (c > m ? c : m) + launch;
    }
    case SCHED_OP_COMM_KERNEL: {
        double frac = (double)p->comm_sms / p->full_bw_sms;
        if (frac > 1) frac = 1;
        return op->link_bytes / (p->link_gbps * 1e9 * frac) * 1e9 + launch;
    }
    case SCHED_OP_COPY: return op->link_bytes / (p->link_gbps * 1e9) * 1e9 + launch;
    }
    return launch;
}

/* ---- building the op list --------------------------------------------------------- */

typedef struct {
    Schedule *s;
    size_t cap;
    int32_t last_compute; /* index of the previous compute op in program order, -1 none */
    char *err;
    size_t errlen;
} Builder;

static const char *op_name(const ScheduleParams *p, SchedPhase ph) {
    bool ib = p->link == SCHED_LINK_IB;
    switch (ph) {
    case SCHED_PH_ATTN: return SCHED_NAME_ATTN;
    case SCHED_PH_GATE: return SCHED_NAME_GATE;
    case SCHED_PH_EXPERT: return SCHED_NAME_EXPERT;
    case SCHED_PH_SHARED: return SCHED_NAME_SHARED;
    case SCHED_PH_DISPATCH:
        return p->mode == SCHED_DECODE ? SCHED_NAME_DISPATCH_COPY : ib ? SCHED_NAME_DISPATCH : SCHED_NAME_DISPATCH_NVL;
    case SCHED_PH_COMBINE:
        return p->mode == SCHED_DECODE ? SCHED_NAME_COMBINE_COPY : ib ? SCHED_NAME_COMBINE : SCHED_NAME_COMBINE_NVL;
    default: return "?";
    }
}

static void add_dep(SchedOp *op, uint32_t target, uint32_t flags) {
    for (uint32_t i = 0; i < op->n_deps; i++)
        if (op->deps[i].op == target && (op->deps[i].flags & SCHED_DEP_PREV_STEP) == (flags & SCHED_DEP_PREV_STEP))
            return;
    if (op->n_deps < SCHED_MAX_DEPS) op->deps[op->n_deps++] = (SchedDep){target, flags};
}

/* Appends an op; a compute op also gets an ORDER dep on the previous compute op when
 * that one runs on another stream (one GEMM owns the SMs at a time). */
static SchedOp *add_op(Builder *B, int layer, int mb, SchedPhase ph, int stream) {
    Schedule *s = B->s;
    if (s->n_ops == B->cap) {
        B->cap = B->cap ? B->cap * 2 : 64;
        s->ops = realloc(s->ops, B->cap * sizeof *s->ops);
        if (!s->ops) abort();
    }
    SchedOp *op = &s->ops[s->n_ops];
    memset(op, 0, sizeof *op);
    op->index = (uint32_t)s->n_ops++;
    op->layer = layer;
    op->mb = mb;
    op->phase = ph;
    op->stream = stream;
    bool comm = ph == SCHED_PH_DISPATCH || ph == SCHED_PH_COMBINE;
    op->kind = !comm ? SCHED_OP_COMPUTE : s->p.mode == SCHED_DECODE ? SCHED_OP_COPY : SCHED_OP_COMM_KERNEL;
    op->name = op_name(&s->p, ph);
    op->sms = op->kind == SCHED_OP_COMPUTE ? s->p.total_sms : op->kind == SCHED_OP_COMM_KERNEL ? s->p.comm_sms : 0;
    snprintf(op->nvtx, sizeof op->nvtx, "mb%d/%s", mb, SchedPhase_name(ph));
    fill_costs(&s->p, op);
    if (op->kind == SCHED_OP_COMPUTE) {
        if (B->last_compute >= 0 && s->ops[B->last_compute].stream != stream)
            add_dep(op, (uint32_t)B->last_compute, SCHED_DEP_ORDER);
        B->last_compute = (int32_t)op->index;
    }
    return op;
}

Schedule *Schedule_build(const ScheduleParams *p, char *err, size_t errlen) {
    char tmp[8];
    if (!err) {
        err = tmp;
        errlen = sizeof tmp;
    }
    if (!ScheduleParams_validate(p, err, errlen)) return NULL;
    Schedule *s = calloc(1, sizeof *s);
    if (!s) abort();
    s->p = *p;
    Builder B = {s, 0, -1, err, errlen};
    if (p->mode == SCHED_SERIAL) {
        s->n_streams = 1;
        s->streams[0] = (SchedStream){7, "serial", 0};
        for (int L = 0; L < p->layers; L++)
            for (int mb = 0; mb < 2; mb++) {
                add_op(&B, L, mb, SCHED_PH_ATTN, SCHED_STREAM_MB0);
                add_op(&B, L, mb, SCHED_PH_GATE, SCHED_STREAM_MB0);
                add_op(&B, L, mb, SCHED_PH_DISPATCH, SCHED_STREAM_MB0);
                add_op(&B, L, mb, SCHED_PH_EXPERT, SCHED_STREAM_MB0);
                add_op(&B, L, mb, SCHED_PH_COMBINE, SCHED_STREAM_MB0);
                add_op(&B, L, mb, SCHED_PH_SHARED, SCHED_STREAM_MB0);
            }
        return s;
    }
    s->n_streams = 3;
    s->streams[SCHED_STREAM_MB0] = (SchedStream){7, "mb0 compute", 0};
    s->streams[SCHED_STREAM_MB1] = (SchedStream){8, "mb1 compute", 0};
    s->streams[SCHED_STREAM_COMM] = (SchedStream){20, "comm", -1};
    /* Per layer, program order (C0/C1: compute streams of mb0/mb1, K: comm stream):
     *   C0 attn0 gate0 | K dispatch0 | C1 attn1 gate1 | K dispatch1 |
     *   C0 shared0 expert0 | K combine0 | C1 shared1 expert1 | K combine1
     * dispatch0 runs under attn1/gate1/shared0, dispatch1 under shared0/expert0,
     * combine0 under shared1/expert1, combine1 under the next layer's attn0/gate0.
     * Decode has the same order with copy-engine transfers: the wait for a transfer
     * sits after the compute issued behind it. */
    int32_t prev_combine[2] = {-1, -1};
    for (int L = 0; L < p->layers; L++) {
        int32_t disp[2];
        for (int mb = 0; mb < 2; mb++) {
            int cs = mb == 0 ? SCHED_STREAM_MB0 : SCHED_STREAM_MB1;
            SchedOp *a = add_op(&B, L, mb, SCHED_PH_ATTN, cs);
            /* input of this layer = output of the previous layer's combine; the first
             * layer waits on the previous step's last combine (added below) */
            if (prev_combine[mb] >= 0) add_dep(a, (uint32_t)prev_combine[mb], SCHED_DEP_DATA);
            uint32_t gate = add_op(&B, L, mb, SCHED_PH_GATE, cs)->index;
            SchedOp *d = add_op(&B, L, mb, SCHED_PH_DISPATCH, SCHED_STREAM_COMM);
            add_dep(d, gate, SCHED_DEP_DATA);
            disp[mb] = (int32_t)d->index;
        }
        for (int mb = 0; mb < 2; mb++) {
            int cs = mb == 0 ? SCHED_STREAM_MB0 : SCHED_STREAM_MB1;
            add_op(&B, L, mb, SCHED_PH_SHARED, cs);
            SchedOp *e = add_op(&B, L, mb, SCHED_PH_EXPERT, cs);
            add_dep(e, (uint32_t)disp[mb], SCHED_DEP_DATA);
            uint32_t ei = e->index;
            SchedOp *c = add_op(&B, L, mb, SCHED_PH_COMBINE, SCHED_STREAM_COMM);
            add_dep(c, ei, SCHED_DEP_DATA);
            prev_combine[mb] = (int32_t)c->index;
        }
    }
    /* Step boundary: the first attention of each micro-batch waits on the previous
     * step's last combine of that micro-batch, and the first compute op on the
     * previous step's last compute op (ORDER). */
    for (size_t i = 0; i < s->n_ops; i++) {
        SchedOp *op = &s->ops[i];
        if (op->layer != 0 || op->phase != SCHED_PH_ATTN) continue;
        add_dep(op, (uint32_t)prev_combine[op->mb], SCHED_DEP_DATA | SCHED_DEP_PREV_STEP);
        if (op->mb == 0 && B.last_compute >= 0 && s->ops[B.last_compute].stream != op->stream)
            add_dep(op, (uint32_t)B.last_compute, SCHED_DEP_ORDER | SCHED_DEP_PREV_STEP);
    }
    for (size_t i = 0; i < s->n_ops; i++)
        for (uint32_t d = 0; d < s->ops[i].n_deps; d++) s->ops[s->ops[i].deps[d].op].is_dep_target = true;
    return s;
}

void Schedule_free(Schedule *s) {
    if (!s) return;
    free(s->ops);
    free(s);
}
