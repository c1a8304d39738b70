#!/usr/bin/env bash
# tests/gpu/run.sh: the project's one prepared run on a real NVIDIA GPU (H100/H200, CUDA 13
# toolkit, driver R580+). Run from anywhere; everything goes under $OUT (default
# build-gpu-out in the checkout): logs/NN-step.log, traces/, steps.tsv and summary.txt, the page to read.
# Every step runs under `timeout`, a failed step does not stop the later ones, and a
# budget (BUDGET seconds, default 450) skips what no longer fits: the whole run stays
# under 8 minutes.
#
# Build: reuses $OVTRACE_BUILD (default build-gpu) when it holds the binaries, else
# configures with cmake (+ ninja when there): the full build when the -dev packages of
# the file half (cjson, zstd, zlib, ncursesw; cmocka for the GPU test) are there, else
# -DOVTRACE_GPU_ONLY=ON: workload, injection library and ovtrace-gpucheck (the
# independent consumer, tests/gpu/gpucheck.c), which then replaces `ovtrace record`.
#
# Steps: environment; build; RUNPATH; workload smoke; every mode (prefill, decode,
# serial, serve) recorded in-process with stats (CLI) and through gpucheck; the SM split
# (expert GEMM prefill/serial vs SMs/(SMs-comm SMs)); collector overhead (alternating
# runs, medians); a CUDA program of its own and the workload under injection; fork after
# CUDA init; the stop protocol (record --duration, in-process and injected; gpucheck
# --stop-after; Ctrl-C to the process group of an injected program); the viewer killed mid-run; PyTorch against torch.profiler (kernel names,
# counts, mean durations, overlap ratios); the project's GPU test (collector.gpu_collect).
#   OUT=/path BUDGET=450 OVTRACE_BUILD=dir CUDA_HOME=/usr/local/cuda bash tests/gpu/run.sh
set -u -o pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$REPO/build-gpu-out}
mkdir -p "$OUT/logs" "$OUT/traces" "$OUT/src" || exit 1
SUM=$OUT/steps.tsv
: >"$SUM"
: >"$OUT/notes.txt"
exec > >(tee -a "$OUT/run.log") 2>&1
T0=$(date +%s)
BUDGET=${BUDGET:-450}
left() { echo $((BUDGET - ($(date +%s) - T0))); }
note() { echo "### $*"; echo "$*" >>"$OUT/notes.txt"; }

N=0
LOG=/dev/null
# step NAME TIMEOUT CMD: bash -c CMD under timeout, output in logs/NN-NAME.log; returns its status
step() {
    local name=$1 tmo=$2 cmd=$3 rc t l
    N=$((N + 1))
    LOG=$OUT/logs/$(printf '%02d' $N)-$name.log
    : >"$LOG"
    l=$(left)
    if [ "$l" -lt 20 ]; then
        echo "=== SKIP $name (${l}s left)"
        printf '%s\tSKIP\t0\n' "$name" >>"$SUM"
        return 99
    fi
    [ "$tmo" -gt $((l - 10)) ] && tmo=$((l - 10))
    echo "=== [+$(($(date +%s) - T0))s] $name (timeout ${tmo}s)"
    t=$(date +%s)
    timeout -k 5 "$tmo" bash -c "$cmd" >"$LOG" 2>&1 </dev/null
    rc=$?
    tail -n 6 "$LOG" | cut -c1-240 | sed 's/^/    | /'
    echo "=== $name rc=$rc ($(($(date +%s) - t))s)$([ $rc = 124 ] || [ $rc = 137 ] && echo ' TIMEOUT')"
    printf '%s\t%s\t%s\n' "$name" "$rc" "$(($(date +%s) - t))" >>"$SUM"
    return $rc
}
# field JSON-TEXT-FILE KEY: the first number after "KEY":
field() { grep -o "\"$2\": -*[0-9.]*" "$1" 2>/dev/null | head -1 | sed 's/.*: //'; }
gcline() { grep -h '^GPUCHECK ' "$1" 2>/dev/null | tail -1; }
# kernel mean (us) of the first kernel whose name contains $2, from a GPUCHECK line file
kmean() { gcline "$1" | grep -o "\"name\": \"[^\"]*$2[^\"]*\", \"count\": [0-9]*, \"mean_us\": [0-9.]*" | head -1 | sed 's/.*"mean_us": //'; }
# step time (ms) printed by the workload: its --json field or its text line
stepms() { { field "$1" step_ms; sed -n 's/.* steps: step \([0-9.]*\) ms.*/\1/p' "$1"; } 2>/dev/null | grep . | tail -1; }
median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
export OVTRACE_CACHE=0 XDG_CACHE_HOME=$OUT/cache OVTRACE_INJECT_QUIET=0

# ---- environment ---------------------------------------------------------------------
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -x "$CUDA_HOME/bin/nvcc" ] || CUDA_HOME=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
export PATH=$CUDA_HOME/bin:$PATH
NVCC=$CUDA_HOME/bin/nvcc
MISSING=""
for m in libcjson libzstd zlib ncursesw; do pkg-config --exists $m 2>/dev/null || MISSING="$MISSING $m"; done
HAVE_CMOCKA=OFF
pkg-config --exists cmocka 2>/dev/null && HAVE_CMOCKA=ON
echo "run.sh: repo $REPO, OUT $OUT, budget ${BUDGET}s, CUDA_HOME $CUDA_HOME, missing -dev:${MISSING:- none}, cmocka $HAVE_CMOCKA"
step env 30 "date -u; uname -a; nproc; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,mig.mode.current --format=csv
  '$NVCC' --version | tail -2; cmake --version | head -1; ninja --version; cc --version | head -1
  grep -H . /proc/driver/nvidia/params 2>/dev/null | grep -i RestrictProfiling
  python3 -c 'import torch; print(\"torch\", torch.__version__, \"cuda\", torch.version.cuda, torch.cuda.is_available())'"
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
[ -n "$GPU" ] || note "nvidia-smi names no GPU: the GPU steps will fail (the workload exits 3: no usable GPU)"

# ---- build ---------------------------------------------------------------------------
B=${OVTRACE_BUILD:-$REPO/build-gpu}
case "$B" in /*) ;; *) B=$REPO/$B ;; esac
WL=$B/cli/ovtrace-workload INJ=$B/cli/libovtrace_inject.so GC=$B/tests/ovtrace-gpucheck OV=$B/cli/ovtrace
if [ -x "$WL" ] && [ -f "$INJ" ] && [ -x "$GC" ]; then
    echo "=== reusing the build in $B"
else
    GEN=""
    command -v ninja >/dev/null && GEN="-G Ninja"
    CFG="cmake -S '$REPO' -B '$B' $GEN -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT='$CUDA_HOME' -DCMAKE_CUDA_COMPILER='$NVCC'"
    if [ -z "$MISSING" ]; then
        step configure 120 "$CFG -DBUILD_TESTING=$HAVE_CMOCKA" || { rm -rf "$B"; MISSING=" (configure failed)"; }
    fi
    if [ -n "$MISSING" ]; then
        note "the CLI is not built (missing -dev:$MISSING): GPU parts only, ovtrace-gpucheck stands in for record/stats"
        step configure-gpu-only 120 "$CFG -DOVTRACE_GPU_ONLY=ON"
    fi
    grep -h 'ovtrace:' "$LOG" | sed 's/^-- //' >>"$OUT/notes.txt"
    T="ovtrace-workload ovtrace_inject ovtrace-gpucheck"
    [ -z "$MISSING" ] && T="$T ovtrace"
    [ -z "$MISSING" ] && [ $HAVE_CMOCKA = ON ] && T="$T test_collector_gpu_collect"
    step build 240 "cmake --build '$B' -j$(nproc) --target $T"
fi
[ -x "$OV" ] || OV=""
[ -x "$WL" ] || note "ovtrace-workload was not built: see the configure/build logs"

step runpath 20 "readelf -d '$WL' '$INJ' | grep -i -E 'runpath|rpath'; ldd '$WL' '$INJ' | grep -E 'cupti|not found'; ! ldd '$WL' '$INJ' | grep -q 'not found'"

# ---- the workload and its modes --------------------------------------------------------
step smoke 60 "'$WL' --mode prefill --steps 2 --warmup 1 --layers 1 --json"
SMS=$(field "$LOG" sms)
declare -A RATIO XRATIO STEPMS
modeargs() { [ "$1" = serve ] && echo "--mode serve --steps 100" || echo "--mode $1"; }
for m in prefill decode serial serve; do
    A=$(modeargs $m)
    if [ -n "$OV" ]; then
        T=$OUT/traces/$m.json.zst
        step "record-$m" 90 "'$OV' record -o '$T' --workload moe $A" && STEPMS[$m]=$(stepms "$LOG")
        step "stats-$m" 60 "'$OV' stats --json '$T' >'$OUT/stats-$m.json' && '$OV' stats '$T'"
        RATIO[$m]=$(grep -o '"total": {[^}]*}' "$OUT/stats-$m.json" 2>/dev/null | grep -o '"overlap_ratio": [0-9.]*' | sed 's/.*: //')
    fi
    step "gpucheck-$m" 90 "'$GC' -- '$WL' --collect $A"
    cp "$LOG" "$OUT/gpucheck-$m.log" 2>/dev/null
    XRATIO[$m]=$(gcline "$LOG" | grep -o '"overlap_ratio": [0-9.]*' | head -1 | sed 's/.*: //')
    [ -n "${STEPMS[$m]:-}" ] || STEPMS[$m]=$(stepms "$LOG")
    s=$(gcline "$LOG" | grep -o '"newest_end_before_now_s": [0-9.-]*' | sed 's/.*: //')
    [ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s < -1 || s > 60) }' && note "clock: $m's newest event ends ${s}s before now"
done
# a longer recording (20 s): CUPTI must drop nothing, and the host must not run seconds ahead
if [ -n "$OV" ]; then
    step record-long 90 "'$OV' record -o '$OUT/traces/long.json.zst' --workload moe --mode prefill --steps 200"
    LONG=$(grep -h -o 'ring drops [0-9]*, CUPTI dropped records [0-9]*' "$LOG")
fi
# the SM split: expert GEMMs on SMs - comm SMs in prefill, all SMs in serial
EP=$(kmean "$OUT/gpucheck-prefill.log" expert_gemm) ES=$(kmean "$OUT/gpucheck-serial.log" expert_gemm)
SPLIT=$(awk -v p="$EP" -v s="$ES" -v n="${SMS:-0}" 'BEGIN { if (p > 0 && s > 0 && n > 20) printf "%.3f (expected %d/%d = %.3f)", p / s, n, n - 20, n / (n - 20) }')

# ---- overhead: alternating runs, medians -----------------------------------------------
BASE="" COLL=""
for rep in 1 2 3; do
    [ "$(left)" -lt 150 ] && break
    step "ovh-base-$rep" 60 "'$WL' --mode prefill" && BASE="$BASE $(stepms "$LOG")"
    if [ -n "$OV" ]; then
        step "ovh-coll-$rep" 90 "'$OV' record -o '$OUT/traces/ovh-$rep.json.zst' --workload moe --mode prefill" &&
            COLL="$COLL $(stepms "$LOG")"
    else
        step "ovh-coll-$rep" 90 "'$GC' -- '$WL' --collect --mode prefill" && COLL="$COLL $(stepms "$LOG")"
    fi
done
MB=$(echo "$BASE" | median) MC=$(echo "$COLL" | median)
OVH=$(awk -v b="$MB" -v c="$MC" 'BEGIN { if (b > 0 && c > 0) printf "%+.1f%%", (c - b) / b * 100 }')

# ---- injection: a CUDA program of its own, the workload; fork --------------------------
cat >"$OUT/src/prog.cu" <<'EOF'
// run.sh's own CUDA program: a compute kernel on all SMs, a "comm" kernel beside it on a
// second stream (named like NCCL's, so it classifies as comm), a copy on a third.
//   prog [plain|fork|loop] [ITERS]   fork: forks after CUDA init, the child just exits
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "prog: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
__device__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__global__ void compute_spin(float *x, unsigned long long ns) {
    unsigned long long t0 = gt(); float a = threadIdx.x;
    while (gt() - t0 < ns) a = a * 1.0000001f + 0.5f;
    if (a == -1.f) x[0] = a; }
__global__ void ncclDevKernel_stand_in(float *x, unsigned long long ns) {
    unsigned long long t0 = gt();
    while (gt() - t0 < ns) __nanosleep(200);
    if (threadIdx.x == 0 && blockIdx.x == 0) x[1] = 1.f; }
int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "plain";
    int iters = argc > 2 ? atoi(argv[2]) : 20, lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t sc, sm, sx;
    CK(cudaStreamCreateWithPriority(&sc, cudaStreamNonBlocking, lo));
    CK(cudaStreamCreateWithPriority(&sm, cudaStreamNonBlocking, hi));
    CK(cudaStreamCreateWithFlags(&sx, cudaStreamNonBlocking));
    size_t n = 64u << 20; float *d; char *h;
    CK(cudaMalloc(&d, n)); CK(cudaMallocHost(&h, n));
    for (int i = 0; i < iters; i++) {
        compute_spin<<<264, 256, 0, sc>>>(d, 2000000); CK(cudaGetLastError());
        ncclDevKernel_stand_in<<<8, 128, 0, sm>>>(d, 1000000); CK(cudaGetLastError());
        CK(cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, sx));
        CK(cudaDeviceSynchronize());
    }
    printf("prog: %d iterations (%d compute_spin, %d ncclDevKernel_stand_in, %d DtoH)\n", iters, iters, iters, iters);
    fflush(stdout);
    if (strcmp(mode, "fork") != 0) return 0;
    pid_t pid = fork();
    if (pid == 0) exit(0); // the collector's inherited atexit handler runs here
    for (int i = 0; i < 100; i++) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) { printf("prog: fork child exited after %d ms\n", i * 100); return 0; }
        usleep(100000);
    }
    printf("prog: FORK CHILD HUNG in exit() for 10 s\n");
    kill(pid, SIGKILL);
    return 4;
}
EOF
PROG=$OUT/prog
step build-prog 90 "'$NVCC' -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o '$PROG' '$OUT/src/prog.cu'"
step prog-plain 30 "'$PROG' plain 5"
step inject-prog 60 "'$GC' -i '$INJ' -- '$PROG' plain 20"
XRATIO[inject-prog]=$(gcline "$LOG" | grep -o '"overlap_ratio": [0-9.]*' | head -1 | sed 's/.*: //')
gcline "$LOG" | grep -q '"compute_spin[^"]*", "count": 20,' || note "inject-prog: not 20 compute_spin kernels: $(gcline "$LOG" | cut -c1-300)"
if [ -n "$OV" ]; then
    step record-inject-prog 60 "'$OV' record -o '$OUT/traces/inject-prog.json.zst' -- '$PROG' plain 20 && '$OV' stats --json '$OUT/traces/inject-prog.json.zst' >'$OUT/stats-inject-prog.json'"
    RATIO[inject-prog]=$(grep -o '"total": {[^}]*}' "$OUT/stats-inject-prog.json" 2>/dev/null | grep -o '"overlap_ratio": [0-9.]*' | sed 's/.*: //')
    step record-inject-workload 90 "'$OV' record -o '$OUT/traces/inject-workload.json.zst' -- '$WL' --mode prefill --gpus 1"
fi
# without a ring set the injection library says so and the program runs on
step inject-no-shm 30 "env -u OVTRACE_SHM CUDA_INJECTION64_PATH='$INJ' '$PROG' plain 3"
step fork-injected 60 "'$GC' -i '$INJ' -- '$PROG' fork 2"
FORK=$(grep -h -o 'fork child exited after [0-9]* ms\|FORK CHILD HUNG' "$LOG" | head -1)
gcline "$LOG" | grep -q '"compute_spin[^"]*", "count": 2,' || note "fork: not exactly 2 compute_spin kernels (duplicates from the child?): $(gcline "$LOG" | cut -c1-300)"

# ---- the stop protocol -----------------------------------------------------------------
STOPS=""
step stop-gpucheck 60 "'$GC' --stop-after 4 -- '$WL' --collect --mode prefill --steps 100000"
STOPS="$STOPS gpucheck-inprocess: $(gcline "$LOG" | grep -o '"stop": {[^}]*}') $(grep -h -o 'stopped by signal [0-9]* after [0-9]* of [0-9]* measured steps' "$LOG");"
step stop-gpucheck-inject 60 "'$GC' -i '$INJ' --stop-after 3 -- '$PROG' plain 100000"
STOPS="$STOPS gpucheck-injected: $(gcline "$LOG" | grep -o '"stop": {[^}]*}');"
if [ -n "$OV" ]; then
    step stop-record 60 "'$OV' record -o '$OUT/traces/stop.json' --duration 4 --workload moe --mode prefill --steps 100000"
    STOPS="$STOPS record: $(grep -o '"stop": {[^}]*}' "$OUT/traces/stop.json" 2>/dev/null) $(grep -h -o 'stopped by signal [0-9]* after [0-9]* of [0-9]* measured steps' "$LOG");"
    step stop-record-inject 60 "'$OV' record -o '$OUT/traces/stop-inject.json' --duration 3 -- '$PROG' plain 100000"
    STOPS="$STOPS record-injected: $(grep -o '"stop": {[^}]*}' "$OUT/traces/stop-inject.json" 2>/dev/null);"
    # Ctrl-C at a terminal: SIGINT to the whole process group, the program included (it
    # has no handler: the injection library flushes, then it ends by SIGINT)
    step ctrl-c-inject 60 "setsid '$OV' record -o '$OUT/traces/ctrlc-inject.json' -- '$PROG' plain 100000 & ov=\$!
      sleep 3; kill -INT -- -\$ov; wait \$ov; echo \"record exit \$?\""
    STOPS="$STOPS ctrl-c-injected: $(grep -o '"stop": {[^}]*}' "$OUT/traces/ctrlc-inject.json" 2>/dev/null) $(grep -o '"program": {[^}]*}' "$OUT/traces/ctrlc-inject.json" 2>/dev/null);"
    # the viewer dies mid-run: the workload must finish on its own
    step viewer-killed 90 "'$OV' record -o '$OUT/traces/gone.json.zst' --workload moe --mode prefill --steps 200 & ov=\$!
      sleep 5; wl=\$(for p in /proc/[0-9]*; do [ \"\$(awk '/^PPid:/ {print \$2}' \$p/status 2>/dev/null)\" = \$ov ] && echo \${p#/proc/}; done | head -1)
      [ -n \"\$wl\" ] || { echo 'no workload process under ovtrace'; exit 1; }; echo \"ovtrace \$ov workload \$wl\"; kill -9 \$ov
      for i in \$(seq 1 600); do kill -0 \$wl 2>/dev/null || break; sleep 0.1; done
      kill -0 \$wl 2>/dev/null && { echo 'workload still running 60 s after the viewer died'; kill -9 \$wl; exit 1; }; echo 'workload ended'"
fi

# ---- PyTorch against torch.profiler ------------------------------------------------------
cat >"$OUT/src/prog.py" <<'EOF'
# run.sh's PyTorch client: matmuls on one stream and an all-to-all stand-in on another, a
# copy kernel on 20 blocks named as NCCL's (so both tools' statistics count it as
# communication; one GPU cannot run NCCL's all-to-all with a peer), the same work under
# torch.profiler (--profile FILE: Kineto JSON) and under ovtrace. All CUDA work is inside
# the profile. Without CuPy the stand-in is a device copy (then no overlap ratio).
import sys, torch
prof_out = sys.argv[sys.argv.index("--profile") + 1] if "--profile" in sys.argv else None
SRC = r"""
extern "C" __global__ void ncclDevKernel_AllToAll_stand_in(const float4 *src, float4 *dst, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        dst[i] = src[i];
}
"""
def work():
    dev = torch.device("cuda", 0)
    comp, comm = torch.cuda.Stream(), torch.cuda.Stream()
    a = torch.randn(4096, 4096, device=dev)
    b = torch.randn(4096, 4096, device=dev)
    src = torch.randn(64 << 20, device=dev)
    dst = torch.empty_like(src)
    try:
        import cupy
        k = cupy.RawKernel(SRC, "ncclDevKernel_AllToAll_stand_in")
        n4 = src.numel() // 4
        def a2a():
            with cupy.cuda.ExternalStream(comm.cuda_stream):
                k((20,), (512,), (src.data_ptr(), dst.data_ptr(), cupy.int64(n4)))
    except Exception as e:
        print("prog.py: no CuPy kernel (%s): a device copy instead" % e, file=sys.stderr)
        a2a = lambda: dst.copy_(src)
    torch.cuda.synchronize()
    for _ in range(20):
        with torch.cuda.stream(comp):
            for _ in range(4):
                c = a @ b
        with torch.cuda.stream(comm):
            for _ in range(16): # about as long as the matmuls: partly hidden
                a2a()
        torch.cuda.synchronize()
    print("prog.py: 20 steps done")
if prof_out:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        work()
    p.export_chrome_trace(prof_out)
else:
    work()
EOF
cat >"$OUT/src/compare.py" <<'EOF'
# compare.py KINETO.json OVTRACE.json: kernels (name -> count, mean duration) of both.
import json, sys
def kernels(path):
    with open(path) as f:
        evs = json.load(f)["traceEvents"]
    k = {}
    for e in evs:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            n, d = k.get(e["name"], (0, 0.0))
            k[e["name"]] = (n + 1, d + float(e.get("dur", 0)))
    return k
a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
bad = 0
for name in sorted(set(a) | set(b)):
    (na, da), (nb, db) = a.get(name, (0, 0)), b.get(name, (0, 0))
    ma, mb = (da / na if na else 0), (db / nb if nb else 0)
    dev = abs(ma - mb) / ma * 100 if ma else float("inf")
    ok = na == nb and dev <= 5
    bad += not ok
    print("%s %-70.70s torch %5d x %9.2f us   ovtrace %5d x %9.2f us  (%.1f%%)" % ("ok " if ok else "BAD", name, na, ma, nb, mb, dev))
print("COMPARE kernels %d, disagreeing %d" % (len(set(a) | set(b)), bad))
sys.exit(1 if bad or not a else 0)
EOF
TORCH=""
if [ -n "$OV" ] && python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    step torch-profiler 120 "python3 '$OUT/src/prog.py' --profile '$OUT/traces/torch-profiler.json'"
    step torch-ovtrace 120 "'$OV' record -o '$OUT/traces/torch-ovtrace.json' -- python3 '$OUT/src/prog.py'"
    step torch-compare 60 "python3 '$OUT/src/compare.py' '$OUT/traces/torch-profiler.json' '$OUT/traces/torch-ovtrace.json'
      for f in torch-profiler torch-ovtrace; do '$OV' stats --json '$OUT/traces/'\$f'.json' | grep -o '\"total\": {[^}]*}' | sed \"s/^/\$f /\"; done"
    TORCH="$(grep -h '^COMPARE' "$LOG"); overlap: $(grep -h -o '^torch-[a-z]* .*"overlap_ratio": [0-9.a-z]*' "$LOG" | sed 's/ {.*"overlap_ratio"/ ratio/' | tr '\n' ' ')"
else
    note "PyTorch with CUDA or the ovtrace CLI not available: no torch.profiler comparison"
fi

# ---- the project's GPU test --------------------------------------------------------------
# a build carried from another machine has no CTest file: then the test binary runs alone
GPUTEST="'$B/tests/test_collector_gpu_collect'"
[ -f "$B/CTestTestfile.cmake" ] && GPUTEST="cd '$B' && ctest -R collector.gpu_collect --output-on-failure --timeout 140"
[ -x "$B/tests/test_collector_gpu_collect" ] && step ctest-gpu 150 "$GPUTEST"

# ---- summary -------------------------------------------------------------------------------
{
    echo "================ SUMMARY ($(($(date +%s) - T0))s) ================"
    echo "GPU: ${GPU:-none}   nvcc: $("$NVCC" --version 2>/dev/null | tail -2 | head -1)   SMs: ${SMS:--}"
    printf '%-12s %-10s %-10s %s\n' mode ratio gpucheck step_ms
    for m in prefill decode serial serve inject-prog; do
        printf '%-12s %-10s %-10s %s\n' "$m" "${RATIO[$m]:--}" "${XRATIO[$m]:--}" "${STEPMS[$m]:--}"
    done
    echo "targets: prefill, decode >= 0.8; serial <= 0.05"
    echo "SM split: expert_gemm prefill/serial ${SPLIT:--} (means $EP / $ES us)"
    echo "overhead (prefill, median step ms): without [$BASE] $MB, with collector [$COLL] $MC: ${OVH:--} (goal <= 3%)"
    echo "fork: ${FORK:--}"
    echo "long recording (prefill, 200 steps): ${LONG:--}"
    echo "stop:$STOPS"
    echo "torch: ${TORCH:--}"
    grep -h -E 'attn kernels|tests passed|FAILED|PASSED|Passed|Skipped|Not Run' "$OUT"/logs/*ctest-gpu.log 2>/dev/null | head -6
    echo "--- steps (name rc seconds; 124/137 timeout, 99/SKIP skipped) ---"
    column -t "$SUM" 2>/dev/null || cat "$SUM"
    [ -s "$OUT/notes.txt" ] && { echo "--- notes ---"; cat "$OUT/notes.txt"; }
} | tee "$OUT/summary.txt"
exit 0
