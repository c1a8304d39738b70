// ovtrace-workload: the built-in MoE overlap workload on one GPU (issue 6).
//
// Executes the WlPlan of the shared Schedule (workload_plan.h, include/ovtrace/schedule.h):
// one compute stream per micro-batch plus a high-priority comm stream, cross-stream
// order through events, NVTX ranges per op ("mb0/attn", ...).
//   compute   moe::{attn_proj,gate,expert_gemm,shared_expert}: a tiled FP32 GEMM whose
//             K is sized so the kernel takes the cost model's duration (FLOP rate
//             calibrated at start on all SMs); it gets whatever SMs comm kernels leave.
//   prefill   dpsk::ep::{intranode,internode}::{dispatch,combine}<8, 20>: grid = comm
//             SMs, one block per SM (shared memory forces it), copying the all-to-all's
//             bytes paced by %globaltimer to the link bandwidth.
//   decode    cudaMemcpyAsync with pinned host memory on the comm stream (copy engine,
//             no SMs), bytes scaled by measured copy bandwidth / link bandwidth.
//   serial    the same ops on one stream.
// --collect runs the CUPTI collector in-process into the ring set named by OVTRACE_SHM.
// Without a driver or GPU it exits with status 3 and "no CUDA driver found ...; try
// --simulate". One GPU only: the NCCL all-to-all for several GPUs is not implemented.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

// The project headers are C17; ring.h's _Static_assert is static_assert in C++.
#ifndef _Static_assert
#define _Static_assert static_assert
#endif
extern "C" {
#include "ovtrace/cupti.h"
#include "ovtrace/ring.h"
#include "ovtrace/schedule.h"
#include "workload_plan.h"
}

// ---- kernels -----------------------------------------------------------------------------

namespace moe {
struct GemmArgs {
    const float *a, *b;
    float *c;
    int m, n, k; // C[m x n] = A[m x k] * B[k x n], row-major, m and n multiples of 64
};

constexpr int TILE = 64, TK = 16;

__device__ __forceinline__ void gemm_tile(const GemmArgs &g) {
    __shared__ float As[TK][TILE], Bs[TK][TILE];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16; // 256 threads, 4x4 outputs each
    int tiles_n = g.n / TILE;
    int row0 = (blockIdx.x / tiles_n) * TILE, col0 = (blockIdx.x % tiles_n) * TILE;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < g.k; k0 += TK) {
        for (int i = threadIdx.x; i < TK * TILE; i += 256) {
            int r = i / TK, kk = i % TK; // A tile: TILE rows x TK
            As[kk][r] = g.a[(size_t)(row0 + r) * g.k + k0 + kk];
            int kr = i / TILE, cc = i % TILE; // B tile: TK rows x TILE
            Bs[kr][cc] = g.b[(size_t)(k0 + kr) * g.n + col0 + cc];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TK; kk++)
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] += As[kk][ty * 4 + i] * Bs[kk][tx * 4 + j];
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) g.c[(size_t)(row0 + ty * 4 + i) * g.n + col0 + tx * 4 + j] = acc[i][j];
}

// One symbol per phase, so CUPTI reports "moe::attn_proj(moe::GemmArgs)" etc.
__global__ void __launch_bounds__(256) attn_proj(GemmArgs g) { gemm_tile(g); }
__global__ void __launch_bounds__(256) gate(GemmArgs g) { gemm_tile(g); }
__global__ void __launch_bounds__(256) expert_gemm(GemmArgs g) { gemm_tile(g); }
__global__ void __launch_bounds__(256) shared_expert(GemmArgs g) { gemm_tile(g); }
} // namespace moe

namespace dpsk {
namespace ep {
struct DispatchArgs {
    const int4 *src;
    int4 *dst;
    size_t n16;       // 16-byte words to move
    uint64_t dur_ns;  // paced duration
};
struct CombineArgs {
    const int4 *src;
    int4 *dst;
    size_t n16;
    uint64_t dur_ns;
};

__device__ __forceinline__ uint64_t gtimer() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Each block moves its share in slices and waits for the pace line after each, so the
// transfer takes dur_ns and the block holds its SM all that time (like DeepEP's).
template <typename Args> __device__ __forceinline__ void paced_copy(const Args &a) {
    extern __shared__ int4 hold[]; // only there to keep one block per SM
    if (threadIdx.x == 0) hold[0] = make_int4(0, 0, 0, 0);
    size_t per = (a.n16 + gridDim.x - 1) / gridDim.x, lo = per * blockIdx.x, hi = lo + per;
    if (hi > a.n16) hi = a.n16;
    if (lo > hi) lo = hi;
    const size_t slice = 8192; // 128 KiB per slice
    uint64_t t0 = gtimer();
    size_t total = hi - lo;
    for (size_t s = lo; s < hi; s += slice) {
        size_t e = s + slice < hi ? s + slice : hi;
        for (size_t i = s + threadIdx.x; i < e; i += blockDim.x) a.dst[i] = a.src[i];
        uint64_t due = t0 + (uint64_t)((double)a.dur_ns * (double)(e - lo) / (double)(total ? total : 1));
        if (threadIdx.x == 0)
            while (gtimer() < due) __nanosleep(500);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        while (gtimer() < t0 + a.dur_ns) __nanosleep(500);
    __syncthreads();
}

namespace intranode {
template <int kRanks, int kSms> __global__ void dispatch(DispatchArgs a) { paced_copy(a); }
template <int kRanks, int kSms> __global__ void combine(CombineArgs a) { paced_copy(a); }
template __global__ void dispatch<8, 20>(DispatchArgs);
template __global__ void combine<8, 20>(CombineArgs);
} // namespace intranode
namespace internode {
template <int kRanks, int kSms> __global__ void dispatch(DispatchArgs a) { paced_copy(a); }
template <int kRanks, int kSms> __global__ void combine(CombineArgs a) { paced_copy(a); }
template __global__ void dispatch<8, 20>(DispatchArgs);
template __global__ void combine<8, 20>(CombineArgs);
} // namespace internode
} // namespace ep
} // namespace dpsk

// ---- host ----------------------------------------------------------------------------------

#define EXIT_USAGE 2
#define EXIT_NO_GPU 3

static void die_cuda(cudaError_t e, const char *what) {
    fprintf(stderr, "ovtrace-workload: %s: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
    exit(1);
}
#define CK(x)                                                                                                          \
    do {                                                                                                               \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess) die_cuda(e_, #x);                                                                       \
    } while (0)

static const int GEMM_M = 2048, GEMM_N = 2048, COMM_THREADS = 512, COMM_SMEM = 128 * 1024;

struct Options {
    ScheduleParams p;
    long steps = 20, warmup = 3;
    double imbalance = 0;
    int device = 0;
    bool collect = false, quiet = false, json = false;
};

static void usage(FILE *f) {
    fprintf(f,
            "usage: ovtrace-workload [--mode prefill|decode|serial] [--comm-sms N] [--steps N] [--warmup N]\n"
            "                        [--tokens N] [--layers N] [--experts N] [--topk K] [--hidden N]\n"
            "                        [--link nvlink|ib] [--tflops X] [--imbalance F] [--device N]\n"
            "                        [--json] [--quiet] [--collect]\n"
            "The DeepSeek-style MoE overlap workload (two micro-batches) on one GPU, driven by the\n"
            "same schedule as `ovtrace live --simulate`. Prints the step time and tokens/s.\n"
            "--collect: stream CUPTI events into the ring set of OVTRACE_SHM (used by\n"
            "`ovtrace live --workload moe`).\n");
}

static bool num(const char *v, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi)) return false;
    *out = x;
    return true;
}

static int parse(int argc, char **argv, Options *o) {
    int mode = SCHED_PREFILL;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            mode = SchedMode_parse(argv[i + 1]);
            if (mode < 0) {
                fprintf(stderr, "ovtrace-workload: --mode must be prefill, decode or serial\n");
                return EXIT_USAGE;
            }
        }
    ScheduleParams_default(&o->p, (SchedMode)mode);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--collect")) { o->collect = true; continue; }
        if (!strcmp(a, "--quiet")) { o->quiet = true; continue; }
        if (!strcmp(a, "--json")) { o->json = true; continue; }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "ovtrace-workload: unexpected argument '%s' (see --help)\n", a);
            return EXIT_USAGE;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "ovtrace-workload: %s needs a value (or is unknown; see --help)\n", a);
            return EXIT_USAGE;
        }
        const char *v = argv[++i];
        double x = 0;
        bool ok;
        if (!strcmp(a, "--mode")) continue; /* parsed above */
        if (!strcmp(a, "--link")) {
            int l = SchedLink_parse(v);
            ok = l >= 0;
            if (ok) ScheduleParams_setLink(&o->p, (SchedLink)l);
        } else if (!strcmp(a, "--comm-sms")) { if ((ok = num(v, 1, 1023, &x))) o->p.comm_sms = (int)x; }
        else if (!strcmp(a, "--steps")) { if ((ok = num(v, 1, 1e6, &x))) o->steps = (long)x; }
        else if (!strcmp(a, "--warmup")) { if ((ok = num(v, 0, 1e4, &x))) o->warmup = (long)x; }
        else if (!strcmp(a, "--tokens")) { if ((ok = num(v, 1, 1 << 20, &x))) o->p.tokens = (int)x; }
        else if (!strcmp(a, "--layers")) { if ((ok = num(v, 1, 1000, &x))) o->p.layers = (int)x; }
        else if (!strcmp(a, "--experts")) { if ((ok = num(v, 1, 65536, &x))) o->p.experts = (int)x; }
        else if (!strcmp(a, "--topk")) { if ((ok = num(v, 1, 65536, &x))) o->p.topk = (int)x; }
        else if (!strcmp(a, "--hidden")) { if ((ok = num(v, 1, 1 << 18, &x))) o->p.hidden = (int)x; }
        else if (!strcmp(a, "--tflops")) { if ((ok = num(v, 1e-3, 1e6, &x))) o->p.tflops = x; }
        else if (!strcmp(a, "--imbalance")) { if ((ok = num(v, 0, 10, &x))) o->imbalance = x; }
        else if (!strcmp(a, "--device")) { if ((ok = num(v, 0, 1023, &x))) o->device = (int)x; }
        else {
            fprintf(stderr, "ovtrace-workload: unknown option %s (see --help)\n", a);
            return EXIT_USAGE;
        }
        if (!ok) {
            fprintf(stderr, "ovtrace-workload: bad value for %s: '%s'\n", a, v);
            return EXIT_USAGE;
        }
    }
    if (o->p.topk > o->p.experts) o->p.topk = o->p.experts;
    if (o->p.ep_ranks > o->p.experts) o->p.ep_ranks = o->p.experts;
    return 0;
}

static double now_s() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Ctx {
    const Schedule *sch;
    WlPlan *plan;
    cudaStream_t stream[SCHED_MAX_STREAMS];
    cudaEvent_t *ev[2]; // by step parity
    float *a, *b, *c;
    int4 *comm_src, *comm_dst;
    char *host;         // pinned, decode copies
    char *dev_copy;
    double flop_per_ns; // calibrated GEMM rate on all SMs
    double copy_gbps;   // calibrated D2H/H2D copy bandwidth
    double imbalance;
    size_t max_bytes;
};

static void gemm_launch(const SchedOp *op, int k, cudaStream_t s, const Ctx &c) {
    moe::GemmArgs g{c.a, c.b, c.c, GEMM_M, GEMM_N, k};
    dim3 grid((GEMM_M / moe::TILE) * (GEMM_N / moe::TILE)), block(256);
    switch (op->phase) {
    case SCHED_PH_ATTN: moe::attn_proj<<<grid, block, 0, s>>>(g); break;
    case SCHED_PH_GATE: moe::gate<<<grid, block, 0, s>>>(g); break;
    case SCHED_PH_EXPERT: moe::expert_gemm<<<grid, block, 0, s>>>(g); break;
    default: moe::shared_expert<<<grid, block, 0, s>>>(g); break;
    }
}

static int gemm_k(const WlOpShape &sh, const SchedOp *op, const Ctx &c) {
    double ns = sh.target_ns * (op->phase == SCHED_PH_EXPERT ? 1 + c.imbalance : 1);
    double k = ns * c.flop_per_ns / (2.0 * GEMM_M * GEMM_N);
    int ki = (int)(k / moe::TK) * moe::TK;
    return ki < moe::TK ? moe::TK : ki > (1 << 16) ? (1 << 16) : ki;
}

static void comm_launch(const SchedOp *op, const WlOpShape &sh, cudaStream_t s, const Ctx &c, bool ib) {
    double bytes = sh.bytes * (1 + c.imbalance);
    if (bytes > (double)c.max_bytes) bytes = (double)c.max_bytes;
    size_t n16 = (size_t)(bytes / 16);
    uint64_t dur = (uint64_t)(bytes / sh.link_gbps); // GB/s = bytes/ns
    dim3 grid(sh.grid), block(COMM_THREADS);
    if (op->phase == SCHED_PH_DISPATCH) {
        dpsk::ep::DispatchArgs a{c.comm_src, c.comm_dst, n16, dur};
        if (ib) dpsk::ep::internode::dispatch<8, 20><<<grid, block, COMM_SMEM, s>>>(a);
        else dpsk::ep::intranode::dispatch<8, 20><<<grid, block, COMM_SMEM, s>>>(a);
    } else {
        dpsk::ep::CombineArgs a{c.comm_src, c.comm_dst, n16, dur};
        if (ib) dpsk::ep::internode::combine<8, 20><<<grid, block, COMM_SMEM, s>>>(a);
        else dpsk::ep::intranode::combine<8, 20><<<grid, block, COMM_SMEM, s>>>(a);
    }
}

static void copy_launch(const SchedOp *op, const WlOpShape &sh, cudaStream_t s, const Ctx &c) {
    double bytes = sh.bytes * (1 + c.imbalance) * (c.copy_gbps / sh.link_gbps);
    size_t n = bytes > (double)c.max_bytes ? c.max_bytes : (size_t)bytes;
    if (op->phase == SCHED_PH_DISPATCH) CK(cudaMemcpyAsync(c.host, c.dev_copy, n, cudaMemcpyDeviceToHost, s));
    else CK(cudaMemcpyAsync(c.dev_copy, c.host, n, cudaMemcpyHostToDevice, s));
}

static void run_step(Ctx &c, long step) {
    const Schedule *sch = c.sch;
    const WlPlan *pl = c.plan;
    bool ib = sch->p.link == SCHED_LINK_IB;
    int par = (int)(step & 1);
    for (size_t i = 0; i < pl->n_acts; i++) {
        const WlAction &a = pl->acts[i];
        const SchedOp *op = &sch->ops[a.op];
        cudaStream_t s = c.stream[a.stream];
        switch (a.kind) {
        case WL_NVTX_PUSH: nvtxRangePushA(op->nvtx); break;
        case WL_NVTX_POP: nvtxRangePop(); break;
        case WL_WAIT:
            if (a.prev_step && step == 0) break;
            CK(cudaStreamWaitEvent(s, c.ev[a.prev_step ? par ^ 1 : par][pl->event_of[a.dep]], 0));
            break;
        case WL_RECORD: CK(cudaEventRecord(c.ev[par][pl->event_of[a.op]], s)); break;
        case WL_LAUNCH: {
            const WlOpShape &sh = pl->shape[a.op];
            if (sh.kernel == WL_K_GEMM) gemm_launch(op, gemm_k(sh, op, c), s, c);
            else if (sh.kernel == WL_K_COMM) comm_launch(op, sh, s, c, ib);
            else copy_launch(op, sh, s, c);
            break;
        }
        }
    }
    CK(cudaGetLastError());
}

static void calibrate(Ctx &c) {
    cudaStream_t s = c.stream[0];
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    SchedOp op{};
    op.phase = SCHED_PH_ATTN;
    gemm_launch(&op, 256, s, c); // warm up
    const int K = 2048;
    CK(cudaEventRecord(e0, s));
    for (int i = 0; i < 3; i++) gemm_launch(&op, K, s, c);
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    c.flop_per_ns = 3 * 2.0 * GEMM_M * GEMM_N * K / (ms * 1e6);
    c.copy_gbps = 0;
    if (c.host) {
        size_t n = c.max_bytes < (64u << 20) ? c.max_bytes : (64u << 20);
        CK(cudaMemcpyAsync(c.host, c.dev_copy, n, cudaMemcpyDeviceToHost, s));
        CK(cudaEventRecord(e0, s));
        CK(cudaMemcpyAsync(c.host, c.dev_copy, n, cudaMemcpyDeviceToHost, s));
        CK(cudaMemcpyAsync(c.dev_copy, c.host, n, cudaMemcpyHostToDevice, s));
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        c.copy_gbps = 2.0 * n / (ms * 1e6);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

int main(int argc, char **argv) {
    Options o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc;

    // 1. a driver? (before anything touches CUDA, for a clear message)
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!drv) {
        const char *e = dlerror();
        fprintf(stderr,
                "ovtrace-workload: no CUDA driver found (%s): the workload needs an NVIDIA GPU and its driver; "
                "try --simulate\n",
                e ? e : "libcuda.so.1 cannot be loaded");
        return EXIT_NO_GPU;
    }
    dlclose(drv);

    // 2. the collector, before the first CUDA call so it sees the context being created
    RingSet *set = nullptr;
    if (o.collect) {
        set = RingSet_attach_env();
        if (!set) {
            fprintf(stderr, "ovtrace-workload: --collect needs %s (run it through `ovtrace live --workload moe`)\n",
                    RING_SHM_ENV);
            return EXIT_USAGE;
        }
        Cupti_libraryPath(true); // NVTX -> CUPTI MARKER records
        CuptiConfig cc;
        CuptiConfig_default(&cc);
        char err[768];
        if (!Cupti_start(&cc, set, err, sizeof err)) {
            fprintf(stderr, "ovtrace-workload: %s\n", err);
            return 1;
        }
    }

    // 3. the GPU
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || e == cudaErrorInitializationError ||
        (e == cudaSuccess && ndev == 0)) {
        fprintf(stderr, "ovtrace-workload: no CUDA GPU usable (%s): try --simulate\n",
                e == cudaSuccess ? "no device" : cudaGetErrorString(e));
        return EXIT_NO_GPU;
    }
    CK(e);
    if (o.device >= ndev) {
        fprintf(stderr, "ovtrace-workload: --device %d but only %d GPU(s)\n", o.device, ndev);
        return EXIT_USAGE;
    }
    CK(cudaSetDevice(o.device));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, o.device));
    o.p.total_sms = prop.multiProcessorCount;
    char err[256];
    Schedule *sch = Schedule_build(&o.p, err, sizeof err);
    if (!sch) {
        fprintf(stderr, "ovtrace-workload: %s\n", err);
        return EXIT_USAGE;
    }
    WlPlan *plan = WlPlan_build(sch, err, sizeof err);
    if (!plan) {
        fprintf(stderr, "ovtrace-workload: %s\n", err);
        return EXIT_USAGE;
    }

    Ctx c{};
    c.sch = sch;
    c.plan = plan;
    c.imbalance = o.imbalance;
    int lo = 0, hi = 0;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi)); // hi: greatest priority (lowest value)
    for (int i = 0; i < sch->n_streams; i++)
        CK(cudaStreamCreateWithPriority(&c.stream[i], cudaStreamNonBlocking, sch->streams[i].priority < 0 ? hi : lo));
    for (int p = 0; p < 2; p++) {
        c.ev[p] = new cudaEvent_t[plan->n_events ? plan->n_events : 1];
        for (uint32_t i = 0; i < plan->n_events; i++) CK(cudaEventCreateWithFlags(&c.ev[p][i], cudaEventDisableTiming));
    }
    size_t mat = (size_t)GEMM_M * (1 << 16) > (size_t)(1 << 16) * GEMM_N ? (size_t)GEMM_M * (1 << 16)
                                                                         : (size_t)(1 << 16) * GEMM_N;
    CK(cudaMalloc(&c.a, mat * sizeof(float)));
    CK(cudaMalloc(&c.b, mat * sizeof(float)));
    CK(cudaMalloc(&c.c, (size_t)GEMM_M * GEMM_N * sizeof(float)));
    CK(cudaMemset(c.a, 0, mat * sizeof(float)));
    CK(cudaMemset(c.b, 0, mat * sizeof(float)));
    double maxb = 0;
    for (size_t i = 0; i < sch->n_ops; i++) maxb = fmax(maxb, plan->shape[i].bytes * (1 + o.imbalance));
    c.max_bytes = (size_t)fmin(maxb + 16, 2.0 * (1u << 30)) & ~(size_t)15;
    if (c.max_bytes < (1u << 20)) c.max_bytes = 1u << 20;
    bool copies = o.p.mode == SCHED_DECODE;
    if (copies) {
        CK(cudaMallocHost(&c.host, c.max_bytes));
        CK(cudaMalloc(&c.dev_copy, c.max_bytes));
    } else {
        CK(cudaMalloc(&c.comm_src, c.max_bytes));
        CK(cudaMalloc(&c.comm_dst, c.max_bytes));
        CK(cudaMemset(c.comm_src, 1, c.max_bytes));
        auto smem = [](const void *f) { CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, COMM_SMEM)); };
        smem((const void *)dpsk::ep::intranode::dispatch<8, 20>);
        smem((const void *)dpsk::ep::intranode::combine<8, 20>);
        smem((const void *)dpsk::ep::internode::dispatch<8, 20>);
        smem((const void *)dpsk::ep::internode::combine<8, 20>);
    }
    if (o.collect && sch->n_streams > SCHED_STREAM_COMM) Cupti_markCommStream((void *)c.stream[SCHED_STREAM_COMM]);
    calibrate(c);
    if (copies && c.copy_gbps <= 0) c.copy_gbps = o.p.link_gbps;

    nvtxRangePushA("warmup");
    for (long s = 0; s < o.warmup; s++) run_step(c, s);
    CK(cudaDeviceSynchronize());
    nvtxRangePop();
    double t0 = now_s();
    for (long s = 0; s < o.steps; s++) {
        char nm[32];
        snprintf(nm, sizeof nm, "step %ld", s);
        nvtxRangePushA(nm);
        run_step(c, o.warmup + s);
        nvtxRangePop();
    }
    CK(cudaDeviceSynchronize());
    double t1 = now_s();
    double step_ms = (t1 - t0) * 1e3 / o.steps, tps = plan->tokens_per_step / ((t1 - t0) / o.steps);
    if (o.json)
        printf("{\"gpu\": \"%s\", \"sms\": %d, \"mode\": \"%s\", \"comm_sms\": %d, \"link\": \"%s\", \"steps\": %ld, "
               "\"step_ms\": %.4f, \"tokens_per_s\": %.1f, \"gemm_tflops\": %.2f, \"copy_gbps\": %.2f, "
               "\"collector\": %s}\n",
               prop.name, prop.multiProcessorCount, SchedMode_name(o.p.mode), o.p.comm_sms,
               SchedLink_name(o.p.link), o.steps, step_ms, tps, c.flop_per_ns * 1e-3, c.copy_gbps,
               o.collect ? "true" : "false");
    else if (!o.quiet)
        printf("%s (%d SMs)  mode %s  comm SMs %d  link %s  %ld steps: step %.3f ms  %.0f tokens/s"
               "  [GEMM %.1f TFLOP/s calibrated%s]\n",
               prop.name, prop.multiProcessorCount, SchedMode_name(o.p.mode), o.p.comm_sms, SchedLink_name(o.p.link),
               o.steps, step_ms, tps, c.flop_per_ns * 1e-3, o.collect ? ", CUPTI collector on" : "");
    if (o.collect) {
        Cupti_stop();
        CuptiTrStats st = Cupti_stats();
        if (!o.quiet && (st.cupti_dropped || RingSet_drops(set)))
            fprintf(stderr, "ovtrace-workload: dropped %llu events in CUPTI, %llu in the ring\n",
                    (unsigned long long)st.cupti_dropped, (unsigned long long)RingSet_drops(set));
    }
    WlPlan_free(plan);
    Schedule_free(sch);
    return 0;
}
