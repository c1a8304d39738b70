#!/usr/bin/env python3
"""Generates demo-moe.json.gz: a synthetic Kineto (PyTorch profiler) trace of two
training steps of a DeepSeek-style MoE model on one GPU, run as two interleaved
micro-batches: while one micro-batch computes (attention, grouped GEMMs on streams 7
and 23), the other's expert-parallel dispatch/combine kernels
(dpsk::ep::internode::*) run on the communication stream 27. The first layer of each
step has nothing to hide its dispatch behind (exposed communication). CPU launch
calls are linked to their kernels by ac2g flows and correlation ids.

Entirely synthetic (seeded, deterministic): not DeepSeek's data.
usage: python3 make_demo.py [OUT]   (default: demo-moe.json.gz beside this script)
"""
import argparse
import gzip
import json
import os
import random
import re

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo-moe.json.gz")
# the arguments first: --help (or a bad option) prints and writes nothing
_ap = argparse.ArgumentParser(description="Generates a synthetic Kineto trace of two MoE training steps "
                              "(seeded: the same bytes on every run).")
_ap.add_argument("out", nargs="?", default=DEFAULT_OUT, metavar="OUT",
                 help="the gzip-compressed trace to write (default: demo-moe.json.gz beside this script)")
ARGS = _ap.parse_args()

rng = random.Random(20250225)
BASE_US = 1760000000000000  # epoch of the demo, us
# Times are kept in integer ns; a ts is written as an exact decimal number of us
# (a double cannot hold epoch-scale us with 3 decimals).
PID, TID = 4242, 4242
DEV = 0
events = []
corr = [1000]

ATTN = "void flash::flash_fwd_kernel<demo::Flash_fwd_kernel_traits<128, 128, 64, 4, false>, true>(demo::Flash_fwd_params)"
GEMM = "void cutlass::device_kernel<demo::grouped_gemm::GemmKernel>(demo::grouped_gemm::GemmKernel::Params)"
CAST = "void demo::per_token_cast_to_fp8<__nv_bfloat16, 128>(__nv_bfloat16 const*, unsigned char*, float*, int, int)"
NOTIFY = "void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int, int const*, int*, int)"
DISPATCH = "void dpsk::ep::internode::dispatch<false, 8, false, 8>(int4*, float*, long*, float*, void*, int, int)"
COMBINE = "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2>(int4*, float*, bool const*, int4 const*)"


def us(t):
    """t: us relative to the start (float) -> placeholder for an exact decimal ts"""
    return "__TS__%d" % (BASE_US * 1000 + int(round(t * 1000)))


def ns_round(t):
    return round(t * 1000) / 1000.0


def X(cat, name, pid, tid, ts, dur, args):
    events.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": us(ts),
                   "dur": round(dur, 3), "args": args})


class Cpu:
    def __init__(self):
        self.t = 0.0


cpu = Cpu()
stream_t = {7: 0.0, 23: 0.0, 27: 0.0}


def launch(stream, name, dur, after=0.0, op="aten::mm"):
    """CPU op + cudaLaunchKernel at the CPU cursor; the kernel starts when the stream
    is free, the launch has happened and `after` (a dependency) is done."""
    corr[0] += 1
    c = corr[0]
    t0 = cpu.t
    X("cpu_op", op, PID, TID, t0, 9.0, {"External id": c, "Sequence number": c})
    lt = t0 + 2.0
    X("cuda_runtime", "cudaLaunchKernelExC" if stream == 27 else "cudaLaunchKernel", PID, TID, lt, 5.5,
      {"External id": c, "cbid": 430 if stream == 27 else 211, "correlation": c})
    cpu.t = t0 + 11.0 + rng.uniform(0, 4)
    start = ns_round(max(stream_t[stream], lt + 4.0, after))
    dur = ns_round(dur * rng.uniform(0.9, 1.1))
    X("kernel", name, 0, stream, start, dur,
      {"External id": c, "queued": 0, "device": DEV, "context": 1, "stream": stream, "correlation": c,
       "registers per thread": 168, "shared memory": 232448, "blocks per SM": 1.0,
       "warps per SM": 8.0, "grid": [132, 1, 1], "block": [384, 1, 1], "est. achieved occupancy %": 12})
    events.append({"ph": "s", "id": c, "pid": PID, "tid": TID, "ts": us(lt), "cat": "ac2g", "name": "ac2g"})
    events.append({"ph": "f", "id": c, "pid": 0, "tid": stream, "ts": us(start), "cat": "ac2g", "name": "ac2g",
                   "bp": "e"})
    stream_t[stream] = start + dur
    return start, start + dur


def annotate(cat, name, t0, t1, extra=None):
    args = {"External id": 0}
    if extra:
        args.update(extra)
    X(cat, name, PID, TID, t0, t1 - t0, args)


LAYERS = 6
for step in range(2):
    step_t0 = cpu.t
    cpu.t += 20
    # input copy
    corr[0] += 1
    c = corr[0]
    X("cuda_runtime", "cudaMemcpyAsync", PID, TID, cpu.t, 8.0, {"External id": c, "cbid": 41, "correlation": c})
    mstart = max(stream_t[7], cpu.t + 5)
    X("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0, 7, mstart, 180.0,
      {"External id": c, "device": DEV, "context": 1, "stream": 7, "correlation": c, "bytes": 8388608,
       "memory bandwidth (GB/s)": 46.6})
    events.append({"ph": "s", "id": c, "pid": PID, "tid": TID, "ts": us(cpu.t), "cat": "ac2g", "name": "ac2g"})
    events.append({"ph": "f", "id": c, "pid": 0, "tid": 7, "ts": us(mstart), "cat": "ac2g", "name": "ac2g", "bp": "e"})
    stream_t[7] = mstart + 180
    cpu.t += 12
    done = {0: stream_t[7], 1: stream_t[7]}
    for layer in range(LAYERS):
        for mb in (0, 1):
            other = 1 - mb
            lt0 = cpu.t
            # this micro-batch's dispatch: its tokens must be routed before the experts run
            _, n_end = launch(27, NOTIFY, 60, after=done[mb], op="deep_ep::notify_dispatch")
            _, d_end = launch(27, DISPATCH, 300 if layer else 700, after=n_end, op="deep_ep::dispatch")
            # meanwhile the other micro-batch computes attention (hides the dispatch)
            if layer or mb:
                launch(23, CAST, 35, op="aten::_to_copy")
                launch(7, ATTN, 520, op="flash_attn::fwd")
            # experts of this micro-batch after its dispatch
            _, g1 = launch(7, GEMM, 260, after=d_end, op="aten::grouped_mm")
            launch(23, CAST, 30, op="aten::_to_copy")
            _, g2 = launch(7, GEMM, 240, after=g1, op="aten::grouped_mm")
            # combine runs under the next compute
            _, c_end = launch(27, COMBINE, 300, after=g2, op="deep_ep::combine")
            done[mb] = c_end
            annotate("cpu_op", "layers.%d.mb%d" % (layer, mb), lt0 - 1, cpu.t + 1)
            cpu.t += 3
    # optimizer: compute only
    for _ in range(6):
        launch(7, GEMM, 120, op="aten::_foreach_add_")
    cpu.t = max(cpu.t, stream_t[7] - 50)
    corr[0] += 1
    X("cuda_runtime", "cudaDeviceSynchronize", PID, TID, cpu.t, max(stream_t.values()) - cpu.t + 5,
      {"External id": corr[0], "cbid": 165, "correlation": corr[0]})
    cpu.t = max(stream_t.values()) + 30
    annotate("user_annotation", "ProfilerStep#%d" % step, step_t0, cpu.t)

meta = [
    {"name": "process_name", "ph": "M", "ts": us(0), "pid": PID, "tid": 0, "args": {"name": "python3"}},
    {"name": "process_labels", "ph": "M", "ts": us(0), "pid": PID, "tid": 0, "args": {"labels": "demo rank 0"}},
    {"name": "process_sort_index", "ph": "M", "ts": us(0), "pid": PID, "tid": 0, "args": {"sort_index": PID}},
    {"name": "thread_name", "ph": "M", "ts": us(0), "pid": PID, "tid": TID, "args": {"name": "thread %d (python3)" % TID}},
    {"name": "process_name", "ph": "M", "ts": us(0), "pid": 0, "tid": 0, "args": {"name": "python3"}},
    {"name": "process_labels", "ph": "M", "ts": us(0), "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
    {"name": "process_sort_index", "ph": "M", "ts": us(0), "pid": 0, "tid": 0, "args": {"sort_index": 5000000}},
]
for s in (7, 23, 27):
    meta.append({"name": "thread_name", "ph": "M", "ts": us(0), "pid": 0, "tid": s, "args": {"name": "stream %d" % s}})
    meta.append({"name": "thread_sort_index", "ph": "M", "ts": us(0), "pid": 0, "tid": s, "args": {"sort_index": s}})

trace = {
    "schemaVersion": 1,
    "deviceProperties": [{"id": 0, "name": "Demo GPU (synthetic)", "totalGlobalMem": 85899345920,
                          "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
    "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
    "traceName": "demo-moe (synthetic, generated by sample-traces/make_demo.py)",
    "traceEvents": meta + sorted(events, key=lambda e: (e["ts"], e["ph"])),
    "displayTimeUnit": "ms",
}
out = ARGS.out
text = json.dumps(trace, indent=None, separators=(", ", ": ")).replace("}, {", "},\n{")
text = re.sub(r'"__TS__(\d+)"', lambda m: m.group(1)[:-3] + "." + m.group(1)[-3:], text)
data = text.encode()
with open(out, "wb") as f:
    # mtime=0: the same bytes on every run
    with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as gz:
        gz.write(data)
print("%s: %d events, %d bytes (%d uncompressed)" % (out, len(trace["traceEvents"]), os.path.getsize(out), len(data)))
