/* The ONE schedule description of a DeepSeek-style MoE step with two micro-batches.
 *
 * Pure C, no CUDA. Both the simulator (live/simulate.c) and the real CUDA workload
 * (kernels/) iterate the same op list, so simulated and real traces have the
 * same shape and names:
 *
 *   for each op in Schedule.ops (program order = host launch order):
 *       for each dep d in op.deps: cudaStreamWaitEvent(stream[op.stream], done_event[d])
 *       launch op on stream[op.stream]   (kernel, or a copy for SCHED_OP_COPY)
 *       if op.is_dep_target: cudaEventRecord(done_event[op.index], stream[op.stream])
 *
 * Ops on one stream run in list order (CUDA stream semantics); deps are the only
 * cross-stream edges. A dep with SCHED_DEP_PREV_STEP refers to the op of that index
 * in the PREVIOUS step (the step loop is back to back; in the first step such deps
 * are ignored). Nothing else orders execution: the simulator adds no hidden logic.
 *
 * Per layer and micro-batch: attention, gate, dispatch (all-to-all), routed-expert
 * GEMMs, combine, shared expert. Streams: one compute stream per micro-batch and one
 * comm stream, ordered so that micro-batch 0's dispatch/combine runs under
 * micro-batch 1's compute and vice versa. See docs/live.md. */
#ifndef OVTRACE_SCHEDULE_H
#define OVTRACE_SCHEDULE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { SCHED_PREFILL, SCHED_DECODE, SCHED_SERIAL, SCHED__MODES } SchedMode;
typedef enum { SCHED_LINK_NVLINK, SCHED_LINK_IB } SchedLink;

typedef struct {
    SchedMode mode;
    int total_sms;      /* SMs of the GPU (132, H100/H800 SXM) */
    int comm_sms;       /* prefill: SMs a dispatch/combine kernel holds (default 20) */
    int tokens;         /* tokens per micro-batch on this GPU */
    int layers;         /* MoE layers per step */
    int experts;        /* routed experts (global) */
    int topk;           /* experts per token */
    int ep_ranks;       /* expert-parallel ranks the experts are spread over */
    int hidden;         /* model hidden size */
    int moe_ffn;        /* routed expert intermediate size */
    int shared_ffn;     /* shared expert intermediate size (0: no shared expert) */
    int kv_len;         /* decode: attended context length; prefill attends to `tokens` */
    SchedLink link;
    double link_gbps;   /* GB/s of the link (160 NVLink, 50 IB unless overridden) */
    double tflops;      /* assumed dense TFLOP/s of the whole GPU */
    double hbm_gbps;    /* HBM bandwidth, GB/s (weight reads bound decode GEMMs) */
    int full_bw_sms;    /* prefill: comm SMs needed for full link bandwidth */
    double launch_us;   /* fixed per-kernel cost, us */
    int dispatch_bytes_per_elem; /* 1: FP8 dispatch (DeepEP) */
    int combine_bytes_per_elem;  /* 2: BF16 combine */
} ScheduleParams;

/* Defaults for a mode (DeepSeek-V3-like sizes, scaled to stay fast to simulate). */
void ScheduleParams_default(ScheduleParams *p, SchedMode mode);
/* Sets link and link_gbps (160 / 50). */
void ScheduleParams_setLink(ScheduleParams *p, SchedLink link);
bool ScheduleParams_validate(const ScheduleParams *p, char *err, size_t errlen);
const char *SchedMode_name(SchedMode m);
const char *SchedLink_name(SchedLink l);
/* "prefill" | "decode" | "serial" -> mode; -1 if unknown. */
int SchedMode_parse(const char *s);
/* "nvlink" | "ib" -> link; -1 if unknown. */
int SchedLink_parse(const char *s);
/* The parameters as a JSON object text (for recording metadata). Returns chars
 * written (snprintf semantics). */
int ScheduleParams_json(const ScheduleParams *p, char *buf, size_t n);

typedef enum {
    SCHED_PH_ATTN,
    SCHED_PH_GATE,
    SCHED_PH_DISPATCH,
    SCHED_PH_EXPERT,
    SCHED_PH_COMBINE,
    SCHED_PH_SHARED,
    SCHED_PH__COUNT
} SchedPhase;

typedef enum {
    SCHED_OP_COMPUTE,     /* GEMM-like kernel on the compute SMs */
    SCHED_OP_COMM_KERNEL, /* all-to-all kernel holding comm_sms SMs (prefill, serial) */
    SCHED_OP_COPY,        /* all-to-all on the copy engine, no SMs (decode) */
} SchedOpKind;

/* Stream roles. Serial mode uses only SCHED_STREAM_MB0. */
enum { SCHED_STREAM_MB0, SCHED_STREAM_MB1, SCHED_STREAM_COMM, SCHED_MAX_STREAMS };

typedef struct {
    int64_t id;         /* CUDA-like stream id used in traces (7, 8, 20) */
    const char *name;   /* "mb0 compute", "mb1 compute", "comm" */
    int priority;       /* 0 normal, -1 high (cudaStreamCreateWithPriority) */
} SchedStream;

enum {
    SCHED_DEP_DATA = 0,          /* consumer needs the producer's output */
    SCHED_DEP_ORDER = 1u << 0,   /* only keeps compute kernels of both micro-batches
                                    from running at once (one GEMM owns the SMs) */
    SCHED_DEP_PREV_STEP = 1u << 1,
};

#define SCHED_MAX_DEPS 4

typedef struct {
    uint32_t op;   /* index into Schedule.ops */
    uint32_t flags; /* SCHED_DEP_* */
} SchedDep;

typedef struct {
    uint32_t index;
    int layer;
    int mb;              /* micro-batch 0/1 */
    SchedPhase phase;
    SchedOpKind kind;
    int stream;          /* SCHED_STREAM_* */
    const char *name;    /* kernel name as it appears in traces (static storage) */
    char nvtx[24];       /* "mb0/attn" */
    double flops;        /* compute ops */
    double hbm_bytes;    /* weights + activations read/written (compute ops) */
    double link_bytes;   /* comm ops: bytes over the link */
    int sms;             /* SMs held while running: comm_sms for comm kernels, 0 copies,
                            total_sms for compute (shared with running comm kernels) */
    uint32_t n_deps;
    SchedDep deps[SCHED_MAX_DEPS];
    bool is_dep_target;  /* some op waits on this one: record an event after it */
} SchedOp;

typedef struct {
    ScheduleParams p;
    int n_streams;
    SchedStream streams[SCHED_MAX_STREAMS];
    size_t n_ops;
    SchedOp *ops;
} Schedule;

/* Builds one step. NULL (message in err) if the parameters are invalid. */
Schedule *Schedule_build(const ScheduleParams *p, char *err, size_t errlen);
void Schedule_free(Schedule *s);
const char *SchedPhase_name(SchedPhase ph);

/* Cost model (docs/live.md). Duration in ns of op when it runs alone with avail_sms
 * SMs (compute) or with its own SMs (comm), before jitter. */
double Schedule_opWorkNs(const Schedule *s, const SchedOp *op);

/* Kernel names. Comm names match CommRules_default (DeepEP-like). */
#define SCHED_NAME_ATTN "moe::attn_proj"
#define SCHED_NAME_GATE "moe::gate"
#define SCHED_NAME_EXPERT "moe::expert_gemm"
#define SCHED_NAME_SHARED "moe::shared_expert"
#define SCHED_NAME_DISPATCH "void dpsk::ep::internode::dispatch<8, 20>(dpsk::ep::DispatchArgs)"
#define SCHED_NAME_COMBINE "void dpsk::ep::internode::combine<8, 20>(dpsk::ep::CombineArgs)"
#define SCHED_NAME_DISPATCH_NVL "void dpsk::ep::intranode::dispatch<8, 20>(dpsk::ep::DispatchArgs)"
#define SCHED_NAME_COMBINE_NVL "void dpsk::ep::intranode::combine<8, 20>(dpsk::ep::CombineArgs)"
/* Decode: copy-engine transfers, named like Kineto's peer-to-peer copies so the
 * loader flags them P2P (classified as communication). */
#define SCHED_NAME_DISPATCH_COPY "Memcpy PtoP (Device -> Device) dpsk::ep::dispatch"
#define SCHED_NAME_COMBINE_COPY "Memcpy PtoP (Device -> Device) dpsk::ep::combine"

#endif
