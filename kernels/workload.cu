// ovtrace-workload: the built-in MoE overlap workload.
//
// Executes the WlPlan of the shared Schedule (workload_plan.h, include/ovtrace/kernels/schedule.h):
// one compute stream per micro-batch plus a high-priority comm stream, cross-stream
// order through events, NVTX ranges per op ("mb0/attn", ...).
//   compute   moe::{attn_proj,gate,expert_gemm,shared_expert}: a tiled FP32 GEMM whose
//             K is sized so the kernel takes the cost model's duration (FLOP rate
//             calibrated at start on all SMs). expert_gemm is persistent: one block per
//             SM, none beside a comm block, grid = SMs - comm SMs in prefill (the SM split
//             of workload_plan.h); the others get whatever SMs comm kernels leave.
// One GPU: the all-to-all is emulated.
//   prefill   dpsk::ep::{intranode,internode}::{dispatch,combine}<8, 20>: grid = comm
//             SMs, one block per SM (shared memory forces it), copying the all-to-all's
//             bytes paced by %globaltimer to the link bandwidth.
//   decode    cudaMemcpyAsync with pinned host memory on the comm stream (copy engine,
//             no SMs), bytes scaled by measured copy bandwidth / link bandwidth.
//   serial    the same ops on one stream.
// More than one GPU (--gpus N, default: all visible GPUs when there are several and NCCL
// loads): every GPU runs the same plan and dispatch/combine are real all-to-alls, grouped
// ncclSend/ncclRecv on the op's stream (comm stream; the one stream in serial mode).
// NCCL is loaded with dlopen, so the binary starts without it and says what is missing.
// --collect runs the CUPTI collector in-process into the ring set named by OVTRACE_SHM.
// SIGINT / SIGTERM: every GPU finishes its step, all stop after the same step (WlStepGate),
// the collector's final forced flush runs (Cupti_stop) and the workload exits 0 with what
// it measured; a second signal ends it at once.
// Without a driver or GPU it exits with status 3 and "no CUDA driver found ...; try
// --simulate".
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <vector>
#include <sys/syscall.h>
#include <unistd.h>

// nccl.h only for types and prototypes (the calls go through dlsym'd pointers); a build
// without it runs the one-GPU emulation only (-DOVTRACE_HAVE_NCCL=0 forces that).
#ifndef OVTRACE_HAVE_NCCL
#if __has_include(<nccl.h>)
#define OVTRACE_HAVE_NCCL 1
#else
#define OVTRACE_HAVE_NCCL 0
#endif
#endif
#if OVTRACE_HAVE_NCCL
#include <nccl.h>
#endif

extern "C" {
#include "ovtrace/collector/cupti.h"
#include "ovtrace/ring/ring.h"
#include "ovtrace/kernels/schedule.h"
#include "ovtrace/kernels/serve.h"
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
// The persistent kernel's dynamic shared memory, only there to set its occupancy: one
// block per SM (two would not fit in an SM's 228 KiB) and none on an SM that holds a
// comm block (COMM_SMEM, 128 KiB): 116 + 128 > 228.
constexpr int PERSISTENT_SMEM = 116 * 1024;

// C's tile `tile` += A[rows, k_lo..k_hi) * B[k_lo..k_hi, cols]; `whole`: the range is all
// of K, so the tile is stored, else added atomically (several blocks share it).
__device__ __forceinline__ void gemm_tile(const GemmArgs &g, int tile, int k_lo, int k_hi, bool whole) {
    __shared__ float As[TK][TILE], Bs[TK][TILE];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16; // 256 threads, 4x4 outputs each
    int tiles_n = g.n / TILE;
    int row0 = (tile / tiles_n) * TILE, col0 = (tile % tiles_n) * TILE;
    float acc[4][4] = {};
    for (int k0 = k_lo; k0 < k_hi; k0 += TK) {
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
        for (int j = 0; j < 4; j++) {
            float *c = &g.c[(size_t)(row0 + ty * 4 + i) * g.n + col0 + tx * 4 + j];
            if (whole) *c = acc[i][j];
            else atomicAdd(c, acc[i][j]);
        }
}

// One symbol per phase, so CUPTI reports "moe::attn_proj(moe::GemmArgs)" etc.
__global__ void __launch_bounds__(256) attn_proj(GemmArgs g) { gemm_tile(g, blockIdx.x, 0, g.k, true); }
__global__ void __launch_bounds__(256) gate(GemmArgs g) { gemm_tile(g, blockIdx.x, 0, g.k, true); }
__global__ void __launch_bounds__(256) shared_expert(GemmArgs g) { gemm_tile(g, blockIdx.x, 0, g.k, true); }

// Persistent (launched with PERSISTENT_SMEM, grid = the SMs it may use): the GEMM's
// (tile, K-slice) units split evenly over the blocks (stream-K), so no block has a
// whole tile more than another: the kernel's time scales with 1 / grid.
__global__ void __launch_bounds__(256) expert_gemm(GemmArgs g) {
    long slices = g.k / TK, units = (long)(g.m / TILE) * (g.n / TILE) * slices;
    long per = units / gridDim.x, extra = units % gridDim.x, b = blockIdx.x;
    long u = b * per + (b < extra ? b : extra), end = u + per + (b < extra ? 1 : 0);
    while (u < end) {
        long tile = u / slices, s0 = u % slices, s1 = s0 + (end - u) < slices ? s0 + (end - u) : slices;
        gemm_tile(g, (int)tile, (int)s0 * TK, (int)s1 * TK, s0 == 0 && s1 == slices);
        u += s1 - s0;
    }
}
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
    size_t total = hi - lo, step = blockDim.x;
    for (size_t s = lo; s < hi; s += slice) {
        size_t e = s + slice < hi ? s + slice : hi, i = s + threadIdx.x;
        // four 16-byte loads in flight per thread before their stores: one at a time
        // moves ~12-14 GB/s per SM, too close to what the pacing asks
        for (; i + 3 * step < e; i += 4 * step) {
            int4 v0 = a.src[i], v1 = a.src[i + step], v2 = a.src[i + 2 * step], v3 = a.src[i + 3 * step];
            a.dst[i] = v0;
            a.dst[i + step] = v1;
            a.dst[i + 2 * step] = v2;
            a.dst[i + 3 * step] = v3;
        }
        for (; i < e; i += step) a.dst[i] = a.src[i];
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
#define EXIT_NO_GPU 3 // no driver or GPU, too few GPUs, or NCCL missing for --gpus N

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
    bool device_given = false;
    int gpus = 0; // 0: all visible GPUs if several and NCCL loads, else 1
    bool collect = false, quiet = false, json = false;
    // --mode serve: decode steps whose batch ovtrace/kernels/serve.h picks
    bool serve = false;
    ServeParams sp;
    bool steps_given = false;
};

static void usage(FILE *f) {
    fprintf(f,
            "usage: ovtrace-workload [--mode prefill|decode|serial|serve] [--comm-sms N] [--steps N] [--warmup N]\n"
            "                        [--tokens N] [--layers N] [--experts N] [--topk K] [--hidden N]\n"
            "                        [--link nvlink|ib] [--tflops X] [--imbalance F] [--gpus N | --device N]\n"
            "                        [--json] [--quiet] [--collect]\n"
            "The DeepSeek-style MoE overlap workload (two micro-batches), driven by the same schedule as\n"
            "`ovtrace live --simulate`. Prints the step time and tokens/s (all GPUs).\n"
            "--gpus N: run on GPUs 0..N-1 (CUDA_VISIBLE_DEVICES picks them) with a real NCCL all-to-all\n"
            "(libnccl.so.2, or $OVTRACE_NCCL_LIB); default: all visible GPUs when there are several and\n"
            "NCCL loads. --gpus 1: the one-GPU emulation (on --device N).\n"
            "--collect: stream CUPTI events into the ring set of OVTRACE_SHM (used by\n"
            "`ovtrace live --workload moe`).\n"
            "--mode serve [--batching dynamic|fixed] [--rate R] [--min-batch N] [--max-batch N]\n"
            "  [--mem-cap SIZE] [--prompt-tokens N] [--out-tokens N]: serving on one GPU, --steps decode\n"
            "  steps (default 200) whose batch the policy of ovtrace/kernels/serve.h picks (the simulator's); with\n"
            "  --collect, counter tracks ([serve] GPU N batch size, queue length, memory in use, tokens/s)\n"
            "  and serve::step / serve::request ranges beside the kernels. Prints throughput, mean batch,\n"
            "  latency p50/p99 and memory.\n");
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
    ServeParams_default(&o->sp);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            o->serve = !strcmp(argv[i + 1], "serve");
            mode = o->serve ? SCHED_DECODE : SchedMode_parse(argv[i + 1]);
            if (mode < 0) {
                fprintf(stderr, "ovtrace-workload: --mode must be prefill, decode, serial or serve\n");
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
        else if (!strcmp(a, "--steps")) { if ((ok = num(v, 1, 1e6, &x))) { o->steps = (long)x; o->steps_given = true; } }
        else if (!strcmp(a, "--batching")) { int b = ServeBatching_parse(v); if ((ok = b >= 0)) o->sp.batching = (ServeBatching)b; }
        else if (!strcmp(a, "--rate")) { if ((ok = num(v, 1e-3, 1e7, &x))) o->sp.rate = x; }
        else if (!strcmp(a, "--min-batch")) { if ((ok = num(v, 1, 4096, &x) && x == (int)x)) o->sp.min_batch = (int)x; }
        else if (!strcmp(a, "--max-batch")) { if ((ok = num(v, 1, 4096, &x) && x == (int)x)) o->sp.max_batch = (int)x; }
        else if (!strcmp(a, "--prompt-tokens")) { if ((ok = num(v, 0, 1 << 20, &x) && x == (int)x)) o->sp.prompt_tokens = (int)x; }
        else if (!strcmp(a, "--out-tokens")) { if ((ok = num(v, 1, 1 << 16, &x) && x == (int)x)) o->sp.out_tokens = (int)x; }
        else if (!strcmp(a, "--mem-cap")) {
            char *end;
            double m = strtod(v, &end), u = 1;
            if (*end == 'K' || *end == 'k') u = 1024, end++;
            else if (*end == 'M') u = 1048576, end++;
            else if (*end == 'G') u = 1073741824.0, end++;
            if (u > 1 && *end == 'i') end++;
            if (*end == 'B') end++;
            if ((ok = end != v && !*end && m > 0)) o->sp.mem_cap = m * u;
        }
        else if (!strcmp(a, "--warmup")) { if ((ok = num(v, 0, 1e4, &x))) o->warmup = (long)x; }
        else if (!strcmp(a, "--tokens")) { if ((ok = num(v, 1, 1 << 20, &x))) o->p.tokens = (int)x; }
        else if (!strcmp(a, "--layers")) { if ((ok = num(v, 1, 1000, &x))) o->p.layers = (int)x; }
        else if (!strcmp(a, "--experts")) { if ((ok = num(v, 1, 65536, &x))) o->p.experts = (int)x; }
        else if (!strcmp(a, "--topk")) { if ((ok = num(v, 1, 65536, &x))) o->p.topk = (int)x; }
        else if (!strcmp(a, "--hidden")) { if ((ok = num(v, 1, 1 << 18, &x))) o->p.hidden = (int)x; }
        else if (!strcmp(a, "--tflops")) { if ((ok = num(v, 1e-3, 1e6, &x))) o->p.tflops = x; }
        else if (!strcmp(a, "--imbalance")) { if ((ok = num(v, 0, 10, &x))) o->imbalance = x; }
        else if (!strcmp(a, "--device")) { if ((ok = num(v, 0, 1023, &x) && x == (int)x)) { o->device = (int)x; o->device_given = true; } }
        else if (!strcmp(a, "--gpus")) { if ((ok = num(v, 1, 1024, &x) && x == (int)x)) o->gpus = (int)x; }
        else {
            fprintf(stderr, "ovtrace-workload: unknown option %s (see --help)\n", a);
            return EXIT_USAGE;
        }
        if (!ok) {
            fprintf(stderr, "ovtrace-workload: bad value for %s: '%s'\n", a, v);
            return EXIT_USAGE;
        }
    }
    if (o->gpus > 1 && o->device_given) {
        fprintf(stderr, "ovtrace-workload: --device picks the GPU of a one-GPU run; --gpus %d uses GPUs 0..%d "
                        "(choose them with CUDA_VISIBLE_DEVICES)\n", o->gpus, o->gpus - 1);
        return EXIT_USAGE;
    }
    if (o->p.topk > o->p.experts) o->p.topk = o->p.experts;
    if (o->p.ep_ranks > o->p.experts) o->p.ep_ranks = o->p.experts;
    if (o->serve) {
        char err[256];
        if (!ServeParams_validate(&o->sp, err, sizeof err)) {
            fprintf(stderr, "ovtrace-workload: %s\n", err);
            return EXIT_USAGE;
        }
        if (o->gpus > 1) {
            fprintf(stderr, "ovtrace-workload: --mode serve runs on one GPU (--gpus 1)\n");
            return EXIT_USAGE;
        }
        o->gpus = 1;
        if (!o->steps_given) o->steps = 200;
    }
    return 0;
}

// ---- stopping on SIGINT / SIGTERM -------------------------------------------------------------

static volatile sig_atomic_t g_signal; // the stop signal received, 0 = none

static void on_stop_signal(int sig) {
    if (g_signal) { // asked twice: no clean stop after all
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    g_signal = sig;
}

static void catch_stop_signals() {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

static bool stop_requested() { return g_signal != 0; }

static double now_s() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// ---- NCCL, loaded at run time ----------------------------------------------------------------

#if OVTRACE_HAVE_NCCL
// decltype of nccl.h's prototypes: a pointer type that disagrees with the header cannot
// compile. Nothing links libnccl.
struct Nccl {
    void *lib = nullptr;
    int version = 0;
    decltype(&ncclGetVersion) GetVersion = nullptr;
    decltype(&ncclGetErrorString) GetErrorString = nullptr;
    decltype(&ncclGetUniqueId) GetUniqueId = nullptr;
    decltype(&ncclCommInitRankConfig) CommInitRankConfig = nullptr;
    decltype(&ncclCommDestroy) CommDestroy = nullptr;
    decltype(&ncclGroupStart) GroupStart = nullptr;
    decltype(&ncclGroupEnd) GroupEnd = nullptr;
    decltype(&ncclSend) Send = nullptr;
    decltype(&ncclRecv) Recv = nullptr;
};
static Nccl nccl;

static void die_nccl(ncclResult_t r, const char *what) {
    fprintf(stderr, "ovtrace-workload: %s: %s (NCCL error %d)\n", what, nccl.GetErrorString(r), (int)r);
    exit(1);
}
#define NK(x)                                                                                                          \
    do {                                                                                                               \
        ncclResult_t r_ = (x);                                                                                         \
        if (r_ != ncclSuccess) die_nccl(r_, #x);                                                                       \
    } while (0)

static const char *nccl_lib_name() {
    const char *env = getenv("OVTRACE_NCCL_LIB"); // NCCL outside the loader's path (e.g. a pip wheel)
    return env && *env ? env : "libnccl.so.2";
}
#endif

// dlopen + dlsym of the calls the workload makes; why says what is missing.
static bool nccl_load(char *why, size_t n) {
#if OVTRACE_HAVE_NCCL
    if (nccl.lib) return true;
    const char *name = nccl_lib_name();
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        if (!e || strstr(e, "No such file")) snprintf(why, n, "%s not found", name);
        else snprintf(why, n, "%s cannot be loaded: %s", name, e);
        return false;
    }
    struct {
        const char *sym;
        void **fn;
    } syms[] = {{"ncclGetVersion", (void **)&nccl.GetVersion},
                {"ncclGetErrorString", (void **)&nccl.GetErrorString},
                {"ncclGetUniqueId", (void **)&nccl.GetUniqueId},
                {"ncclCommInitRankConfig", (void **)&nccl.CommInitRankConfig},
                {"ncclCommDestroy", (void **)&nccl.CommDestroy},
                {"ncclGroupStart", (void **)&nccl.GroupStart},
                {"ncclGroupEnd", (void **)&nccl.GroupEnd},
                {"ncclSend", (void **)&nccl.Send},
                {"ncclRecv", (void **)&nccl.Recv}};
    for (auto &s : syms) {
        *s.fn = dlsym(h, s.sym);
        if (!*s.fn) {
            snprintf(why, n, "%s has no %s: NCCL 2.17 or later is needed", name, s.sym);
            dlclose(h);
            return false;
        }
    }
    int v = 0;
    if (nccl.GetVersion(&v) != ncclSuccess || v < NCCL_VERSION(2, 17, 0)) {
        snprintf(why, n, "%s is NCCL %d: 2.17 or later is needed (maxCTAs)", name, v);
        dlclose(h);
        return false;
    }
    nccl.version = v;
    nccl.lib = h;
    return true;
#else
    snprintf(why, n, "this ovtrace-workload was built without nccl.h; rebuild with NCCL's headers installed");
    return false;
#endif
}

// ---- one GPU's state ---------------------------------------------------------------------------

struct Gpu {
    int dev = 0, rank = 0;
    WlPlan *plan = nullptr;
    cudaDeviceProp prop{};
    cudaStream_t stream[SCHED_MAX_STREAMS] = {};
    cudaEvent_t *ev[2] = {}; // by step parity
    int n_streams = 0;
    cudaEvent_t done[2][SCHED_MAX_STREAMS] = {}; // each stream's end of a step, by step parity
    float *a = nullptr, *b = nullptr, *c = nullptr;
    int4 *comm_src = nullptr, *comm_dst = nullptr; // comm kernels; NCCL send / receive buffers
    char *host = nullptr;                          // pinned, decode copies
    char *dev_copy = nullptr;
    double flop_per_ns = 0;            // calibrated rate of the tile GEMMs, all SMs
    double flop_per_ns_persistent = 0; // and of the persistent expert GEMM, one block per SM
    double copy_gbps = 0;   // calibrated D2H/H2D copy bandwidth
    size_t max_bytes = 0;
#if OVTRACE_HAVE_NCCL
    ncclComm_t comm = nullptr;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER; // read by ncclGroupEnd: lives with the comm
#endif
};

// sms: the persistent expert GEMM's blocks (WlOpShape.grid; <= 0: all SMs).
static void gemm_launch(const SchedOp *op, int k, int sms, cudaStream_t s, const Gpu &g) {
    moe::GemmArgs a{g.a, g.b, g.c, GEMM_M, GEMM_N, k};
    dim3 grid((GEMM_M / moe::TILE) * (GEMM_N / moe::TILE)), block(256);
    switch (op->phase) {
    case SCHED_PH_ATTN: moe::attn_proj<<<grid, block, 0, s>>>(a); break;
    case SCHED_PH_GATE: moe::gate<<<grid, block, 0, s>>>(a); break;
    case SCHED_PH_EXPERT:
        moe::expert_gemm<<<sms > 0 ? sms : g.prop.multiProcessorCount, block, moe::PERSISTENT_SMEM, s>>>(a);
        break;
    default: moe::shared_expert<<<grid, block, 0, s>>>(a); break;
    }
}

static int gemm_k(const WlOpShape &sh, const Gpu &g) {
    // both rates are on all SMs: a persistent GEMM on fewer takes longer, as it should
    double rate = sh.grid > 0 ? g.flop_per_ns_persistent : g.flop_per_ns;
    double k = sh.target_ns * rate / (2.0 * GEMM_M * GEMM_N);
    int ki = (int)(k / moe::TK) * moe::TK;
    return ki < moe::TK ? moe::TK : ki > (1 << 16) ? (1 << 16) : ki;
}

static void comm_launch(const SchedOp *op, const WlOpShape &sh, cudaStream_t s, const Gpu &g, bool ib) {
    double bytes = sh.bytes;
    if (bytes > (double)g.max_bytes) bytes = (double)g.max_bytes;
    size_t n16 = (size_t)(bytes / 16);
    uint64_t dur = (uint64_t)(bytes / sh.link_gbps); // GB/s = bytes/ns
    dim3 grid(sh.grid), block(COMM_THREADS);
    if (op->phase == SCHED_PH_DISPATCH) {
        dpsk::ep::DispatchArgs a{g.comm_src, g.comm_dst, n16, dur};
        if (ib) dpsk::ep::internode::dispatch<8, 20><<<grid, block, COMM_SMEM, s>>>(a);
        else dpsk::ep::intranode::dispatch<8, 20><<<grid, block, COMM_SMEM, s>>>(a);
    } else {
        dpsk::ep::CombineArgs a{g.comm_src, g.comm_dst, n16, dur};
        if (ib) dpsk::ep::internode::combine<8, 20><<<grid, block, COMM_SMEM, s>>>(a);
        else dpsk::ep::intranode::combine<8, 20><<<grid, block, COMM_SMEM, s>>>(a);
    }
}

static void copy_launch(const SchedOp *op, const WlOpShape &sh, cudaStream_t s, const Gpu &g) {
    double bytes = sh.bytes * (g.copy_gbps / sh.link_gbps);
    size_t n = bytes > (double)g.max_bytes ? g.max_bytes : (size_t)bytes;
    if (op->phase == SCHED_PH_DISPATCH) CK(cudaMemcpyAsync(g.host, g.dev_copy, n, cudaMemcpyDeviceToHost, s));
    else CK(cudaMemcpyAsync(g.dev_copy, g.host, n, cudaMemcpyHostToDevice, s));
}

// One NCCL action of the plan (only in plans for more than one GPU).
static void nccl_action(const WlAction &a, cudaStream_t s, const Gpu &g) {
#if OVTRACE_HAVE_NCCL
    switch (a.kind) {
    case WL_NCCL_GROUP_START: NK(nccl.GroupStart()); break;
    case WL_NCCL_SEND: NK(nccl.Send((const char *)g.comm_src + a.offset, a.bytes, ncclInt8, a.peer, g.comm, s)); break;
    case WL_NCCL_RECV: NK(nccl.Recv((char *)g.comm_dst + a.offset, a.bytes, ncclInt8, a.peer, g.comm, s)); break;
    case WL_NCCL_GROUP_END: NK(nccl.GroupEnd()); break;
    default: break;
    }
#else
    (void)a, (void)s, (void)g;
    abort(); // unreachable: nccl_load refuses, so no plan has NCCL actions
#endif
}

// The host stays at most two steps ahead of the GPU, as a framework that reads each step's
// results does. Unbounded, it queues thousands of launches (seconds of GPU work): a live
// timeline would lag by that much, a stop signal would wait for all of it, and CUPTI holds
// every activity buffer with a record of a kernel not yet run, so its buffers run out.
static void wait_step_before_last(const Gpu &g, long step) {
    if (step < 2) return;
    for (int i = 0; i < g.n_streams; i++) CK(cudaEventSynchronize(g.done[step & 1][i]));
}

static void run_step(Gpu &g, const Schedule *sch, long step) {
    const WlPlan *pl = g.plan;
    bool ib = sch->p.link == SCHED_LINK_IB;
    int par = (int)(step & 1);
    wait_step_before_last(g, step);
    for (size_t i = 0; i < pl->n_acts; i++) {
        const WlAction &a = pl->acts[i];
        const SchedOp *op = &sch->ops[a.op];
        cudaStream_t s = g.stream[a.stream];
        switch (a.kind) {
        case WL_NVTX_PUSH: nvtxRangePushA(op->nvtx); break;
        case WL_NVTX_POP: nvtxRangePop(); break;
        case WL_WAIT:
            if (a.prev_step && step == 0) break;
            CK(cudaStreamWaitEvent(s, g.ev[a.prev_step ? par ^ 1 : par][pl->event_of[a.dep]], 0));
            break;
        case WL_RECORD: CK(cudaEventRecord(g.ev[par][pl->event_of[a.op]], s)); break;
        case WL_LAUNCH: {
            const WlOpShape &sh = pl->shape[a.op];
            if (sh.kernel == WL_K_GEMM) gemm_launch(op, gemm_k(sh, g), sh.grid, s, g);
            else if (sh.kernel == WL_K_COMM) comm_launch(op, sh, s, g, ib);
            else copy_launch(op, sh, s, g);
            break;
        }
        case WL_NCCL_GROUP_START:
        case WL_NCCL_SEND:
        case WL_NCCL_RECV:
        case WL_NCCL_GROUP_END: nccl_action(a, s, g); break;
        }
    }
    CK(cudaGetLastError());
    for (int i = 0; i < g.n_streams; i++) CK(cudaEventRecord(g.done[par][i], g.stream[i]));
}

static void calibrate(Gpu &g) {
    cudaStream_t s = g.stream[0];
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float ms = 0;
    // FLOP rate of one GEMM kernel on all SMs: a warm-up, then timed launches
    auto rate = [&](SchedPhase phase) -> double {
        SchedOp op{};
        op.phase = phase;
        gemm_launch(&op, 256, 0, s, g);
        CK(cudaGetLastError()); // a kernel that cannot launch would make a bogus rate
        const int K = 2048, timed = WL_CALIBRATION_GEMMS - 1;
        CK(cudaEventRecord(e0, s));
        for (int i = 0; i < timed; i++) gemm_launch(&op, K, 0, s, g);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        double r = timed * 2.0 * GEMM_M * GEMM_N * K / (ms * 1e6);
        if (!(ms > 0) || !std::isfinite(r)) {
            fprintf(stderr, "ovtrace-workload: the %s GEMM calibration on GPU %d measured %.3f ms: no usable FLOP "
                    "rate\n", SchedPhase_name(phase), g.dev, ms);
            exit(1);
        }
        return r;
    };
    g.flop_per_ns = rate(SCHED_PH_ATTN);
    g.flop_per_ns_persistent = rate(SCHED_PH_EXPERT);
    g.copy_gbps = 0;
    if (g.host) {
        size_t n = g.max_bytes < (64u << 20) ? g.max_bytes : (64u << 20);
        CK(cudaMemcpyAsync(g.host, g.dev_copy, n, cudaMemcpyDeviceToHost, s));
        CK(cudaEventRecord(e0, s));
        CK(cudaMemcpyAsync(g.host, g.dev_copy, n, cudaMemcpyDeviceToHost, s));
        CK(cudaMemcpyAsync(g.dev_copy, g.host, n, cudaMemcpyHostToDevice, s));
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        g.copy_gbps = 2.0 * n / (ms * 1e6);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

// The SM split rests on occupancy: one persistent expert block per SM, and none on an SM
// that holds a comm block. Said when this GPU's shared memory does not give that.
static void check_sm_split(Gpu &g) {
    CK(cudaFuncSetAttribute((const void *)moe::expert_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            moe::PERSISTENT_SMEM));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, moe::expert_gemm, 256, moe::PERSISTENT_SMEM));
    if (per_sm < 1) {
        fprintf(stderr, "ovtrace-workload: GPU %d (%s): the persistent expert GEMM does not fit on an SM\n", g.dev,
                g.prop.name);
        exit(1);
    }
    size_t reserved = g.prop.reservedSharedMemPerBlock, static_smem = 2 * moe::TK * moe::TILE * sizeof(float);
    size_t both = moe::PERSISTENT_SMEM + static_smem + COMM_SMEM + 2 * reserved;
    if (per_sm > 1 || both <= g.prop.sharedMemPerMultiprocessor)
        fprintf(stderr, "ovtrace-workload: note: on GPU %d (%s, %zu KiB shared memory per SM) the expert GEMMs do not "
                "hold whole SMs (%d blocks per SM%s): in prefill, comm kernels take fewer SMs from them than "
                "--comm-sms\n", g.dev, g.prop.name, g.prop.sharedMemPerMultiprocessor / 1024, per_sm,
                both <= g.prop.sharedMemPerMultiprocessor ? ", one fits beside a comm block" : "");
}

// Streams, events, buffers and the calibration of one GPU (from the main thread, before
// any step: allocations may synchronise the device, which must not happen while NCCL
// kernels wait for peers).
static void setup_gpu(Gpu &g, const Schedule *sch, const Options &o) {
    CK(cudaSetDevice(g.dev));
    const WlPlan *plan = g.plan;
    bool nccl_plan = plan->cfg.gpus > 1;
    int lo = 0, hi = 0;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi)); // hi: greatest priority (lowest value)
    for (int i = 0; i < sch->n_streams; i++)
        CK(cudaStreamCreateWithPriority(&g.stream[i], cudaStreamNonBlocking, sch->streams[i].priority < 0 ? hi : lo));
    for (int p = 0; p < 2; p++) {
        g.ev[p] = new cudaEvent_t[plan->n_events ? plan->n_events : 1];
        for (uint32_t i = 0; i < plan->n_events; i++) CK(cudaEventCreateWithFlags(&g.ev[p][i], cudaEventDisableTiming));
        for (int i = 0; i < sch->n_streams; i++) CK(cudaEventCreateWithFlags(&g.done[p][i], cudaEventDisableTiming));
    }
    g.n_streams = sch->n_streams;
    size_t mat = (size_t)GEMM_M * (1 << 16) > (size_t)(1 << 16) * GEMM_N ? (size_t)GEMM_M * (1 << 16)
                                                                         : (size_t)(1 << 16) * GEMM_N;
    // Initialised on a work stream, then waited for: the legacy default stream does not
    // order against the non-blocking work streams.
    cudaStream_t s0 = g.stream[0];
    CK(cudaMalloc(&g.a, mat * sizeof(float)));
    CK(cudaMalloc(&g.b, mat * sizeof(float)));
    CK(cudaMalloc(&g.c, (size_t)GEMM_M * GEMM_N * sizeof(float)));
    CK(cudaMemsetAsync(g.a, 0, mat * sizeof(float), s0));
    CK(cudaMemsetAsync(g.b, 0, mat * sizeof(float), s0));
    // NCCL moves exactly the plan's bytes (peers must agree); the emulation caps at 2 GiB.
    double want = (double)plan->max_op_bytes + 16;
    if (!nccl_plan && want > 2.0 * (1u << 30)) want = 2.0 * (1u << 30);
    g.max_bytes = (size_t)want & ~(size_t)15;
    if (g.max_bytes < (1u << 20)) g.max_bytes = 1u << 20;
    bool copies = !nccl_plan && o.p.mode == SCHED_DECODE;
    if (copies) {
        CK(cudaMallocHost(&g.host, g.max_bytes));
        CK(cudaMalloc(&g.dev_copy, g.max_bytes));
    } else {
        CK(cudaMalloc(&g.comm_src, g.max_bytes));
        CK(cudaMalloc(&g.comm_dst, g.max_bytes));
        CK(cudaMemsetAsync(g.comm_src, 1, g.max_bytes, s0));
        auto smem = [](const void *f) { CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, COMM_SMEM)); };
        smem((const void *)dpsk::ep::intranode::dispatch<8, 20>);
        smem((const void *)dpsk::ep::intranode::combine<8, 20>);
        smem((const void *)dpsk::ep::internode::dispatch<8, 20>);
        smem((const void *)dpsk::ep::internode::combine<8, 20>);
    }
    check_sm_split(g);
    CK(cudaStreamSynchronize(s0));
    // decode's emulated all-to-all copies are communication, not memory traffic
    if (o.collect && sch->n_streams > SCHED_STREAM_COMM) Cupti_markCommStream((void *)g.stream[SCHED_STREAM_COMM]);
    calibrate(g);
    if (copies && g.copy_gbps <= 0) g.copy_gbps = o.p.link_gbps;
}

// Communicators for all GPUs, created from this thread in one group (NCCL's pattern for
// several devices in one thread). maxCTAs = --comm-sms: the all-to-all holds at most the
// SMs the emulation's dispatch/combine kernels hold.
static void nccl_init(Gpu *gpus, int n, const Options &o) {
#if OVTRACE_HAVE_NCCL
    ncclUniqueId id;
    NK(nccl.GetUniqueId(&id));
    NK(nccl.GroupStart());
    for (int r = 0; r < n; r++) {
        CK(cudaSetDevice(gpus[r].dev));
        gpus[r].config.maxCTAs = o.p.comm_sms;
        NK(nccl.CommInitRankConfig(&gpus[r].comm, n, id, r, &gpus[r].config));
    }
    NK(nccl.GroupEnd());
#else
    (void)gpus, (void)n, (void)o;
#endif
}

struct Run {
    const Schedule *sch;
    const Options *o;
    pthread_barrier_t bar;
    WlStepGate gate; // the same number of steps on every GPU when a signal stops the run
    double t0 = 0, t1 = 0;
};

struct Worker {
    Gpu *g;
    Run *run;
    long measured = 0; // measured steps run (fewer than --steps after a stop signal)
};

// Warm-up, then the measured steps between two barriers over all GPUs: the step time is
// the wall time until the slowest GPU is done.
static void *run_gpu(void *arg) {
    Worker *w = (Worker *)arg;
    Gpu &g = *w->g;
    Run &r = *w->run;
    CK(cudaSetDevice(g.dev));
    nvtxRangePushA("warmup");
    for (long s = 0; s < r.o->warmup && WlStepGate_pass(&r.gate, g.rank, s, stop_requested()); s++)
        run_step(g, r.sch, s);
    CK(cudaDeviceSynchronize());
    nvtxRangePop();
    if (pthread_barrier_wait(&r.bar) == PTHREAD_BARRIER_SERIAL_THREAD) r.t0 = now_s();
    long s = 0;
    for (; s < r.o->steps && WlStepGate_pass(&r.gate, g.rank, r.o->warmup + s, stop_requested()); s++) {
        char nm[32];
        snprintf(nm, sizeof nm, "step %ld", s);
        nvtxRangePushA(nm);
        run_step(g, r.sch, r.o->warmup + s);
        nvtxRangePop();
    }
    w->measured = s;
    CK(cudaDeviceSynchronize());
    if (pthread_barrier_wait(&r.bar) == PTHREAD_BARRIER_SERIAL_THREAD) r.t1 = now_s();
#if OVTRACE_HAVE_NCCL
    // every rank at once: destroying may finalize, which waits for the peers
    if (g.comm) NK(nccl.CommDestroy(g.comm));
#endif
    return nullptr;
}

// ---- serving (--mode serve) ------------------------------------------------------
// The batching policy is ovtrace/kernels/serve.h's (the simulator's). Each decode step runs the
// MoE schedule built for its batch (two micro-batches of ceil(B/2) tokens); the host
// waits for the step (a server needs its tokens), so step times are measured. With
// --collect the serving events go into the ring beside CUPTI's: counters at each step's
// start and a serve::request range per finished request, on CLOCK_REALTIME like CUPTI's.

struct ServeRun {
    Gpu *g;
    const Options *o;
    RingSet *set;
    int64_t rt0; // CLOCK_REALTIME at serve time 0
    uint32_t pid;
    int64_t tid;
    std::vector<int64_t> lat;
};

static int64_t realtime_now() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void serve_record(ServeRun &r, uint8_t kind, int64_t tid, int64_t t, int64_t dur, const char *name, double v) {
    if (!r.set) return;
    RingRecord rec;
    memset(&rec, 0, sizeof rec);
    rec.kind = kind;
    rec.ts_ns = r.rt0 + t;
    rec.dur_ns = dur;
    rec.stream = -1;
    rec.device = -1;
    rec.pid = r.pid;
    rec.tid = tid;
    rec.name_id = NameTable_intern_cstr(RingSet_names(r.set), name);
    memcpy(&rec.arg, &v, sizeof v);
    RingSet_push(r.set, &rec);
}

static void serve_done(const ServeRequest *q, void *ctx) {
    ServeRun &r = *(ServeRun *)ctx;
    r.lat.push_back(q->done - q->arrive);
    serve_record(r, RING_KIND_NVTX_RANGE, r.tid + 2, q->arrive, q->done - q->arrive, "serve::request", 0);
}

static int run_serve(Gpu &g, Options &o, RingSet *set) {
    int maxb = o.sp.max_batch;
    std::vector<Schedule *> sch(maxb + 1, nullptr);
    std::vector<WlPlan *> plan(maxb + 1, nullptr);
    std::vector<double> flops(maxb + 1, 0);
    char err[256];
    auto build = [&](int b) -> bool {
        if (sch[b]) return true;
        ScheduleParams p = o.p;
        p.mode = SCHED_DECODE;
        p.tokens = (b + 1) / 2;
        sch[b] = Schedule_build(&p, err, sizeof err);
        if (!sch[b]) return false;
        WlPlanConfig pc = {1, 0, o.imbalance};
        plan[b] = WlPlan_buildFor(sch[b], &pc, err, sizeof err);
        if (!plan[b]) return false;
        for (size_t i = 0; i < sch[b]->n_ops; i++) flops[b] += sch[b]->ops[i].flops;
        return true;
    };
    if (!build(maxb)) {
        fprintf(stderr, "ovtrace-workload: %s\n", err);
        return EXIT_USAGE;
    }
    g.plan = plan[maxb]; // buffers and events sized for the largest batch
    setup_gpu(g, sch[maxb], o);
    for (long s = 0; s < o.warmup && !stop_requested(); s++) run_step(g, sch[maxb], s);
    CK(cudaDeviceSynchronize());
    ServeRun r{&g, &o, set, 0, (uint32_t)getpid(), (int64_t)syscall(SYS_gettid), {}};
    char names[4][64];
    snprintf(names[0], 64, "[serve] GPU %d batch size", g.dev);
    snprintf(names[1], 64, "[serve] GPU %d queue length", g.dev);
    snprintf(names[2], 64, "[serve] GPU %d memory in use", g.dev);
    snprintf(names[3], 64, "[serve] GPU %d tokens/s", g.dev);
    ServeState st;
    Serve_init(&st, &o.sp);
    double w0 = now_s();
    r.rt0 = realtime_now();
    auto now_ns = [&]() { return (int64_t)((now_s() - w0) * 1e9); };
    double batch_sum = 0, mem_max = 0, mem_sum = 0;
    int64_t first = -1, last = 0;
    long k = 0; // steps run: --steps, or fewer after a stop signal (each step is synchronous)
    while (k < o.steps && !stop_requested()) {
        int64_t now = now_ns(), wait;
        int b = Serve_plan(&st, now, &wait);
        if (!b) { // idle until the next arrival (or the end of a batch wait)
            int64_t d = wait - now_ns();
            if (d > 0) {
                timespec ts = {(time_t)(d / 1000000000), (long)(d % 1000000000)};
                nanosleep(&ts, nullptr);
            }
            continue;
        }
        if (b > maxb || !build(b)) {
            fprintf(stderr, "ovtrace-workload: %s\n", b > maxb ? "batch over --max-batch" : err);
            return 1;
        }
        double mem = Serve_memoryInUse(&st);
        serve_record(r, RING_KIND_COUNTER, r.tid + 1, now, 0, names[0], b);
        serve_record(r, RING_KIND_COUNTER, r.tid + 1, now, 0, names[1], (double)Serve_queueLength(&st));
        serve_record(r, RING_KIND_COUNTER, r.tid + 1, now, 0, names[2], mem);
        g.plan = plan[b];
        nvtxRangePushA("serve::step");
        run_step(g, sch[b], o.warmup + k);
        CK(cudaStreamSynchronize(g.stream[0]));
        CK(cudaDeviceSynchronize());
        nvtxRangePop();
        int64_t t1 = now_ns();
        double span = (double)(t1 - now > 0 ? t1 - now : 1);
        serve_record(r, RING_KIND_COUNTER, r.tid + 1, now, 0, names[3], b * 1e9 / span);
        double util = g.flop_per_ns > 0 ? flops[b] / g.flop_per_ns / span : 1;
        Serve_stepDone(&st, now, t1, util > 1 ? 1 : util, serve_done, &r);
        if (first < 0) first = now;
        last = t1;
        batch_sum += b;
        mem_sum += mem;
        if (mem > mem_max) mem_max = mem;
        k++;
    }
    double window = (double)(last - first) / 1e9;
    std::sort(r.lat.begin(), r.lat.end());
    auto rank = [&](double p) -> double {
        if (r.lat.empty()) return 0;
        size_t i = (size_t)std::ceil(p * (double)r.lat.size());
        if (i < 1) i = 1;
        return (double)r.lat[i - 1] / 1e6;
    };
    double tps = window > 0 ? batch_sum / window : 0, per = k > 0 ? 1.0 / (double)k : 0;
    if (stop_requested())
        fprintf(stderr, "ovtrace-workload: stopped by signal %d after %ld of %ld steps\n", (int)g_signal, k, o.steps);
    if (k > 0 && o.json)
        printf("{\"gpu\": \"%s\", \"mode\": \"serve\", \"batching\": \"%s\", \"rate\": %.3f, \"steps\": %ld, "
               "\"tokens_per_s\": %.1f, \"mean_batch\": %.3f, \"requests\": %zu, \"latency_p50_ms\": %.3f, "
               "\"latency_p99_ms\": %.3f, \"memory_max_bytes\": %.0f, \"memory_mean_bytes\": %.0f}\n",
               g.prop.name, ServeBatching_name(o.sp.batching), o.sp.rate, k, tps, batch_sum * per,
               r.lat.size(), rank(0.5), rank(0.99), mem_max, mem_sum * per);
    else if (k > 0 && !o.quiet)
        printf("%s  serve (%s batching, %.0f req/s)  %ld steps: %.0f tokens/s  mean batch %.2f  %zu requests: "
               "latency p50 %.3f ms p99 %.3f ms  memory max %.2f GiB\n",
               g.prop.name, ServeBatching_name(o.sp.batching), o.sp.rate, k, tps, batch_sum * per,
               r.lat.size(), rank(0.5), rank(0.99), mem_max / 1073741824.0);
    Serve_free(&st);
    for (int b = 0; b <= maxb; b++) {
        if (plan[b]) WlPlan_free(plan[b]);
        if (sch[b]) Schedule_free(sch[b]);
    }
    g.plan = nullptr;
    return 0;
}

int main(int argc, char **argv) {
    Options o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc;

    // 1. NCCL for an explicit --gpus N: a host-side check, said before anything else
    char why[512];
    if (o.gpus > 1 && !nccl_load(why, sizeof why)) {
        fprintf(stderr,
                "ovtrace-workload: --gpus %d needs NCCL (%s); install NCCL (or set OVTRACE_NCCL_LIB to its "
                "libnccl.so.2), or run --gpus 1 for the one-GPU emulation\n",
                o.gpus, why);
        return EXIT_NO_GPU;
    }

    // 2. a driver? (before anything touches CUDA, for a clear message)
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!drv) {
        const char *e = dlerror();
        fprintf(stderr,
                "ovtrace-workload: no CUDA driver found (%s): the workload needs an NVIDIA GPU and its driver; "
                "'ovtrace live --simulate' needs none\n",
                e ? e : "libcuda.so.1 cannot be loaded");
        return EXIT_NO_GPU;
    }
    dlclose(drv);

    // a stop signal from here on ends the run cleanly (the collector's final flush included)
    catch_stop_signals();

    // 3. the collector, before the first CUDA call so it sees the contexts being created
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

    // 4. the GPUs
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || e == cudaErrorInitializationError ||
        (e == cudaSuccess && ndev == 0)) {
        fprintf(stderr, "ovtrace-workload: no CUDA GPU usable (%s): 'ovtrace live --simulate' needs none\n",
                e == cudaSuccess ? "no device" : cudaGetErrorString(e));
        return EXIT_NO_GPU;
    }
    CK(e);
    if (o.gpus == 0) { // default: every visible GPU through NCCL, else the emulation
        o.gpus = 1;
        if (ndev > 1 && !o.device_given) {
            if (nccl_load(why, sizeof why)) o.gpus = ndev;
            else if (!o.quiet)
                fprintf(stderr, "ovtrace-workload: %d GPUs visible but NCCL is not usable (%s): running the one-GPU "
                                "emulation on GPU %d (--gpus 1 chooses it without this note)\n", ndev, why, o.device);
        }
    }
    if (o.gpus > ndev) {
        fprintf(stderr, "ovtrace-workload: --gpus %d but only %d GPU%s visible (CUDA_VISIBLE_DEVICES=%s)\n", o.gpus,
                ndev, ndev == 1 ? "" : "s", getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
        return EXIT_NO_GPU;
    }
    if (o.device >= ndev) {
        fprintf(stderr, "ovtrace-workload: --device %d but only %d GPU(s)\n", o.device, ndev);
        return EXIT_USAGE;
    }
    int n = o.gpus;
    Gpu *gpus = new Gpu[n];
    for (int r = 0; r < n; r++) {
        gpus[r].dev = n == 1 ? o.device : r;
        gpus[r].rank = r;
        CK(cudaGetDeviceProperties(&gpus[r].prop, gpus[r].dev));
        if (!WlPlan_deviceSupported(gpus[r].prop.major, gpus[r].prop.minor, why, sizeof why)) {
            fprintf(stderr, "ovtrace-workload: GPU %d (%s): %s\n", gpus[r].dev, gpus[r].prop.name, why);
            return EXIT_NO_GPU;
        }
    }
    // the schedule is one GPU's; with several, the smallest sizes it (the step waits for it)
    o.p.total_sms = gpus[0].prop.multiProcessorCount;
    if (o.serve) { // one GPU, a schedule per batch size (run_serve)
        CK(cudaSetDevice(gpus[0].dev));
        int src = run_serve(gpus[0], o, set);
        if (o.collect) Cupti_stop();
        delete[] gpus;
        return src;
    }
    for (int r = 1; r < n; r++)
        if (gpus[r].prop.multiProcessorCount < o.p.total_sms) o.p.total_sms = gpus[r].prop.multiProcessorCount;
    char err[256];
    Schedule *sch = Schedule_build(&o.p, err, sizeof err);
    if (!sch) {
        fprintf(stderr, "ovtrace-workload: %s\n", err);
        return EXIT_USAGE;
    }
    for (int r = 0; r < n; r++) {
        WlPlanConfig pc = {n, r, o.imbalance};
        gpus[r].plan = WlPlan_buildFor(sch, &pc, err, sizeof err);
        if (!gpus[r].plan) {
            fprintf(stderr, "ovtrace-workload: %s\n", err);
            return EXIT_USAGE;
        }
    }
    for (int r = 0; r < n; r++) setup_gpu(gpus[r], sch, o);
    if (n > 1) nccl_init(gpus, n, o);

    // 5. the steps: one host thread per GPU. Like one rank per process in a real job: each
    // GPU's API calls and NVTX ranges are on their own CPU lane, launch throughput grows
    // with the GPUs (one thread issuing ~100 ops x 3-4 calls per GPU and step would bound
    // decode steps), and each thread's ncclGroupStart/End holds only its own rank's
    // sends/receives, NCCL's one-device-per-thread pattern (one thread would need every
    // device's calls of an op in one group). One GPU runs on the main thread, as before.
    Run run;
    run.sch = sch;
    run.o = &o;
    pthread_barrier_init(&run.bar, nullptr, (unsigned)n);
    WlStepGate_init(&run.gate, n);
    Worker *workers = new Worker[n];
    pthread_t *threads = new pthread_t[n];
    for (int r = 0; r < n; r++) workers[r] = Worker{&gpus[r], &run};
    if (n == 1) run_gpu(&workers[0]);
    else {
        for (int r = 0; r < n; r++)
            if (pthread_create(&threads[r], nullptr, run_gpu, &workers[r]) != 0) {
                fprintf(stderr, "ovtrace-workload: cannot start the thread of GPU %d\n", gpus[r].dev);
                exit(1);
            }
        for (int r = 0; r < n; r++) pthread_join(threads[r], nullptr);
    }
    pthread_barrier_destroy(&run.bar);
    WlStepGate_free(&run.gate);

    long steps = workers[0].measured; // the same on every GPU (WlStepGate)
    if (stop_requested())
        fprintf(stderr, "ovtrace-workload: stopped by signal %d after %ld of %ld measured steps\n", (int)g_signal,
                steps, o.steps);
    double t = run.t1 - run.t0;
    double step_ms = steps ? t * 1e3 / (double)steps : 0, tps = steps ? gpus[0].plan->tokens_per_step / (t / (double)steps) : 0;
    double tflops = 0, copy_gbps = 0;
    for (int r = 0; r < n; r++) {
        tflops += gpus[r].flop_per_ns * 1e-3 / n;
        copy_gbps += gpus[r].copy_gbps / n;
    }
    const cudaDeviceProp &prop = gpus[0].prop;
    char a2a[96];
#if OVTRACE_HAVE_NCCL
    if (n > 1)
        snprintf(a2a, sizeof a2a, "NCCL %d.%d.%d", nccl.version / 10000, nccl.version / 100 % 100, nccl.version % 100);
    else
#endif
        snprintf(a2a, sizeof a2a, "emulated");
    // stopped during the warm-up: nothing measured, nothing printed
    if (steps > 0 && o.json)
        printf("{\"gpu\": \"%s\", \"gpus\": %d, \"sms\": %d, \"mode\": \"%s\", \"all_to_all\": \"%s\", "
               "\"comm_sms\": %d, \"link\": \"%s\", \"steps\": %ld, \"step_ms\": %.4f, \"tokens_per_s\": %.1f, "
               "\"gemm_tflops\": %.2f, \"copy_gbps\": %.2f, \"collector\": %s}\n",
               prop.name, n, o.p.total_sms, SchedMode_name(o.p.mode), a2a, o.p.comm_sms, SchedLink_name(o.p.link),
               steps, step_ms, tps, tflops, copy_gbps, o.collect ? "true" : "false");
    else if (steps > 0 && !o.quiet) {
        char who[300];
        if (n == 1) snprintf(who, sizeof who, "%s (%d SMs)", prop.name, prop.multiProcessorCount);
        else snprintf(who, sizeof who, "%d x %s (%d SMs)", n, prop.name, o.p.total_sms);
        if (n == 1)
            printf("%s  mode %s  comm SMs %d  link %s  %ld steps: step %.3f ms  %.0f tokens/s"
                   "  [GEMM %.1f TFLOP/s calibrated%s]\n",
                   who, SchedMode_name(o.p.mode), o.p.comm_sms, SchedLink_name(o.p.link), steps, step_ms, tps,
                   tflops, o.collect ? ", CUPTI collector on" : "");
        else
            printf("%s  mode %s  all-to-all %s (<= %d CTAs)  %ld steps: step %.3f ms  %.0f tokens/s (all GPUs)"
                   "  [GEMM %.1f TFLOP/s per GPU calibrated%s]\n",
                   who, SchedMode_name(o.p.mode), a2a, o.p.comm_sms, steps, step_ms, tps, tflops,
                   o.collect ? ", CUPTI collector on" : "");
    }
    if (o.collect) {
        Cupti_stop();
        CuptiTrStats st = Cupti_stats();
        if (!o.quiet && (st.cupti_dropped || RingSet_drops(set)))
            fprintf(stderr,
                    "ovtrace-workload: dropped %llu events in CUPTI (%d activity buffers, %llu requests found none), "
                    "%llu in the ring\n",
                    (unsigned long long)st.cupti_dropped, Cupti_buffersAllocated(),
                    (unsigned long long)Cupti_poolMisses(), (unsigned long long)RingSet_drops(set));
    }
    for (int r = 0; r < n; r++) WlPlan_free(gpus[r].plan);
    delete[] workers;
    delete[] threads;
    delete[] gpus;
    Schedule_free(sch);
    return 0;
}
