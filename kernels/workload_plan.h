/* Host-side plan of the CUDA MoE workload (kernels/workload_plan.c): the Schedule (the
 * same description the simulator runs, include/ovtrace/kernels/schedule.h) turned into the
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
 * (Schedule_opWorkNs without the launch cost) using a FLOP rate calibrated on all SMs;
 * comm kernels move link_bytes paced to the link bandwidth on exactly comm_sms blocks;
 * decode copies move link_bytes scaled by (measured copy bandwidth / link bandwidth).
 *
 * The SM split (prefill): a comm kernel's block fills its SM's shared memory, but a
 * tile GEMM's small blocks would still fit beside it, so compute would never lose the
 * comm SMs. Expert GEMMs are persistent instead (DeepGEMM's way): one block per SM that
 * no comm block fits beside, grid = total_sms - comm_sms in prefill (WlPlan_expertGrid),
 * all SMs elsewhere; work split evenly over the blocks. So in prefill they run on the
 * SMs the simulator leaves them while a comm kernel holds comm_sms, and take
 * total_sms / (total_sms - comm_sms) times their serial-mode time.
 *
 * More than one GPU (WlPlanConfig.gpus > 1, one plan per rank): the same actions, except
 * that each dispatch/combine LAUNCH becomes a grouped NCCL all-to-all on the op's stream
 * (the comm stream; the one stream in serial mode):
 *     NCCL_GROUP_START / (NCCL_SEND to p, NCCL_RECV from p) per peer p / NCCL_GROUP_END
 * Each rank sends the bytes the one-GPU emulation moves (link_bytes: the traffic of one
 * rank), split evenly over its gpus-1 peers; what rank r sends to p is what p receives
 * from r, which NCCL requires. Nothing is paced: the real interconnect sets the time. */
#ifndef OVTRACE_WORKLOAD_PLAN_H
#define OVTRACE_WORKLOAD_PLAN_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/kernels/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WL_NVTX_PUSH,
    WL_WAIT,
    WL_LAUNCH,
    WL_RECORD,
    WL_NVTX_POP,
    WL_NCCL_GROUP_START, /* gpus > 1: the all-to-all of one dispatch/combine op */
    WL_NCCL_SEND,
    WL_NCCL_RECV,
    WL_NCCL_GROUP_END,
} WlActKind;

typedef struct {
    WlActKind kind;
    int stream;       /* SCHED_STREAM_* */
    uint32_t op;      /* the op launched / recorded / annotated */
    uint32_t dep;     /* WL_WAIT: the op waited on */
    bool prev_step;   /* WL_WAIT: on the previous step's event (skipped in step 0) */
    int peer;         /* WL_NCCL_SEND / _RECV: the other rank */
    uint64_t offset;  /* WL_NCCL_SEND / _RECV: byte offset in the send / receive buffer */
    uint64_t bytes;   /* WL_NCCL_SEND / _RECV: bytes to / from peer */
} WlAction;

/* Which kernel (or copy) an op runs, and its size. */
typedef enum { WL_K_GEMM, WL_K_COMM, WL_K_COPY, WL_K_NCCL } WlKernel;

/* The kernel NCCL runs for grouped send/recv, as CUPTI reports it once demangled
 * ("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)" in NCCL 2.19 and later). */
#define WL_NCCL_KERNEL "ncclDevKernel_SendRecv"

typedef struct {
    WlKernel kernel;
    const char *name;  /* the schedule's name (the kernels' demangled names start with it) */
    double target_ns;  /* modelled duration without the launch cost (x (1+imbalance) for experts) */
    double flops;      /* compute: modelled FLOPs */
    double bytes;      /* comm / copy / NCCL: bytes over the link, x (1+imbalance); NCCL: what
                          this rank sends in all (= receives), the sum of its NCCL_SENDs */
    int grid;          /* comm: comm_sms (one block per SM); expert GEMMs: persistent, this
                          many blocks, one per SM (WlPlan_expertGrid); other GEMMs: 0 = a
                          block per output tile */
    double link_gbps;  /* comm: pacing rate, GB/s (scaled down below full_bw_sms); NCCL: 0 */
} WlOpShape;

typedef struct {
    int gpus;          /* 1: the one-GPU emulation; > 1: NCCL all-to-all between gpus ranks */
    int rank;          /* this GPU's rank, 0..gpus-1 */
    double imbalance;  /* the routed experts and the all-to-all get (1+imbalance) x the balanced
                          load (every GPU alike: a straggler rank is not modelled) */
} WlPlanConfig;

typedef struct {
    const Schedule *sch; /* not owned */
    WlPlanConfig cfg;
    WlAction *acts;
    size_t n_acts;
    WlOpShape *shape;    /* per op */
    uint32_t n_events;   /* ops that are dep targets (one CUDA event each, x2 for parity) */
    int32_t *event_of;   /* per op: event slot, -1 if none */
    double tokens_per_step; /* both micro-batches, all GPUs */
    uint64_t max_op_bytes;  /* the most bytes one comm op moves (buffer size) */
} WlPlan;

/* The one-GPU plan (gpus 1, no imbalance). */
WlPlan *WlPlan_build(const Schedule *sch, char *err, size_t errlen);
/* The plan of one rank; cfg NULL = WlPlan_build. NULL (err) for a bad config. */
WlPlan *WlPlan_buildFor(const Schedule *sch, const WlPlanConfig *cfg, char *err, size_t errlen);
void WlPlan_free(WlPlan *p);
/* Bytes rank `from` sends to rank `to` for an op whose ranks each send `total` bytes:
 * total split evenly over the gpus-1 peers, the remainder to the first ones. */
uint64_t WlPlan_pairBytes(uint64_t total, int gpus, int from, int to);
/* Blocks (= SMs) of the persistent expert GEMMs: total_sms - comm_sms in prefill, where
 * comm kernels hold the rest; total_sms in decode (copies hold no SM) and serial. */
int WlPlan_expertGrid(const ScheduleParams *p);
/* Ops of this phase in one step (one kernel each on one GPU: a GEMM, a comm kernel or a
 * copy; with NCCL one grouped all-to-all). Tests expect what the workload launches from it. */
size_t WlPlan_opCount(const WlPlan *p, SchedPhase phase);
/* Stopping on a signal: every GPU thread finishes the step it is in and all stop after
 * the same number of steps (with NCCL, a rank that stopped early would leave its peers
 * waiting in an all-to-all forever). Each thread asks before it launches a step; the
 * first ask after the stop request fixes the step count at the most steps any thread has
 * been let through, so no thread is behind a step another already launched. */
typedef struct {
    pthread_mutex_t mu;
    int ranks;
    long stop_at;    /* steps every thread runs; LONG_MAX until a stop is requested */
    long *committed; /* per thread: steps let through */
} WlStepGate;
void WlStepGate_init(WlStepGate *g, int ranks);
void WlStepGate_free(WlStepGate *g);
/* Thread rank asks to launch its step number step (0, 1, ... warm-up included);
 * stop: a stop has been requested. True: launch it; false: stop here. */
bool WlStepGate_pass(WlStepGate *g, int rank, long step, bool stop);
/* The steps every thread runs (LONG_MAX while no stop was requested). */
long WlStepGate_stopAt(WlStepGate *g);

/* Whether the workload's kernels run on a GPU of compute capability major.minor: the
 * binary holds sm_90 code and compute_90 PTX (kernels/CMakeLists.txt), which run on 9.0
 * and newer only. False with the reason in why. */
#define WL_MIN_CC_MAJOR 9
/* Launches of each calibrated GEMM kernel (moe::attn_proj, moe::expert_gemm) in the
 * workload's FLOP-rate calibration at start (one warm-up, the rest timed): CUPTI sees
 * them beside the steps' kernels. */
#define WL_CALIBRATION_GEMMS 4
bool WlPlan_deviceSupported(int major, int minor, char *why, size_t n);
/* The demangled-name prefix CUPTI reports for an op's kernel ("moe::attn_proj(" for
 * SCHED_NAME_ATTN, the full DeepEP signature for comm kernels), for tests and docs. */
const char *WlPlan_kernelSymbol(const SchedOp *op);

#ifdef __cplusplus
}
#endif
#endif
