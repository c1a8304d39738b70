/* Host-side plan of the CUDA MoE workload (kernels/workload_plan.c): the Schedule (the
 * same description the simulator runs, include/ovtrace/schedule.h) turned into the
 * exact sequence of CUDA calls one step issues. Pure C, no CUDA: kernels/workload.cu
 * only executes the actions, and tests compare them with the simulator.
 *
 *   for each op in program order:
 *     NVTX_PUSH op.nvtx                    ("mb0/attn", ...)
 *     WAIT  stream[op] <- event[dep]       per dep (prev-step deps skipped in step 0)
 *     LAUNCH op on stream[op]              kernel, or cudaMemcpyAsync (decode comm)
 *     RECORD event[op] on stream[op]       if some op waits on it
 *     NVTX_POP
 *
 * Events are double-buffered by step parity (a PREV_STEP dep waits on the event the
 * previous step recorded), so step k+1's launches never overwrite an event step k still
 * needs. Durations: compute kernels are sized to the cost model's duration
 * (Schedule_opWorkNs without the launch cost) using a calibrated FLOP rate; comm kernels
 * move link_bytes paced to the link bandwidth on exactly comm_sms blocks; decode copies
 * move link_bytes scaled by (measured copy bandwidth / link bandwidth). */
#ifndef OVTRACE_WORKLOAD_PLAN_H
#define OVTRACE_WORKLOAD_PLAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { WL_NVTX_PUSH, WL_WAIT, WL_LAUNCH, WL_RECORD, WL_NVTX_POP } WlActKind;

typedef struct {
    WlActKind kind;
    int stream;       /* SCHED_STREAM_* */
    uint32_t op;      /* the op launched / recorded / annotated */
    uint32_t dep;     /* WL_WAIT: the op waited on */
    bool prev_step;   /* WL_WAIT: on the previous step's event (skipped in step 0) */
} WlAction;

/* Which kernel (or copy) an op runs, and its size. */
typedef enum { WL_K_GEMM, WL_K_COMM, WL_K_COPY } WlKernel;

typedef struct {
    WlKernel kernel;
    const char *name;  /* the schedule's name (the kernels' demangled names start with it) */
    double target_ns;  /* modelled duration without the launch cost */
    double flops;      /* compute: modelled FLOPs */
    double bytes;      /* comm / copy: bytes over the link */
    int grid;          /* comm: comm_sms (one block per SM); compute: 0 = enough for all SMs */
    double link_gbps;  /* comm: pacing rate, GB/s (scaled down below full_bw_sms) */
} WlOpShape;

typedef struct {
    const Schedule *sch; /* not owned */
    WlAction *acts;
    size_t n_acts;
    WlOpShape *shape;    /* per op */
    uint32_t n_events;   /* ops that are dep targets (one CUDA event each, x2 for parity) */
    int32_t *event_of;   /* per op: event slot, -1 if none */
    double tokens_per_step; /* both micro-batches */
} WlPlan;

WlPlan *WlPlan_build(const Schedule *sch, char *err, size_t errlen);
void WlPlan_free(WlPlan *p);
/* The demangled-name prefix CUPTI reports for an op's kernel ("moe::attn_proj(" for
 * SCHED_NAME_ATTN, the full DeepEP signature for comm kernels), for tests and docs. */
const char *WlPlan_kernelSymbol(const SchedOp *op);

#ifdef __cplusplus
}
#endif
#endif
