#!/usr/bin/env python3
"""Generates a small DeepSeek-like Kineto trace pair (rank0.json, rank1.json) and the
figures ovtrace must find in it (expected.txt), so that the test suite exercises the
real paths on a plain clone without DeepSeek's trace (../shared).

Shape, as in DeepSeek's EP training trace: one H800 per rank, compute on streams 7 and
23, DeepEP dispatch/combine/notify kernels on stream 27 (dpsk::ep::internode::...),
get_dispatch_layout (compute), a symmetric-memory all-reduce at the end of each step,
memset/memcpy, two CPU threads launching through cudaLaunchKernel /
cudaLaunchKernelExC / cuLaunchKernel with ac2g flows, and the equal-timestamp trap: a
0 us cudaFuncSetAttribute at the same timestamp as the launch that follows it.
Timestamps are microseconds with three decimals (exact ns).

The expected figures are computed here from the generated intervals (unions and
intersections in integer ns), independently of ovtrace. Deterministic (seeded):
    python3 tests/data/moe-ep/make.py
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
COMPUTE7 = [
    "void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128, false, 128, false>"
    "(__nv_bfloat16 const*, int, unsigned char*, float*, int, int, int, int, bool, float, __nv_fp8_interpretation_t)",
    "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>"
    "(dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel::Params)",
    "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>"
    "(dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel::Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float> >, unsigned int, float, 4> >(at::native::ReduceOp<float>)",
]
LAYOUT = "void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)"
ATTN = [
    "void cutlass::device_kernel<flash::FlashAttnFwdSm90<cutlass::bfloat16_t, 128, 128> >(flash::Params)",
    "void cutlass::device_kernel<flash::FlashAttnBwd<cutlass::bfloat16_t, 64, 128> >(flash::Params)",
]
COMM = [
    "void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int, int const*, int*, void*, void**, int**)",
    "void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*, "
    "dpsk::ep::internode::SourceMeta*, int4 const*, float const*, long const*)",
    "void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*, int, int, int const*, int const*)",
    "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*, bool const*, "
    "int4 const*, float const*, int4 const*, int4 const*, int const*, int const*)",
]
ALLREDUCE = ("void c10d::symmetric_memory::multimem_all_reduce_kernel<__nv_bfloat16, 16>"
             "(__nv_bfloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)")


def us(ns):
    """ns (int) as Kineto's decimal microseconds, exactly."""
    return "%d.%03d" % (ns // 1000, ns % 1000)


class Rank:
    def __init__(self, rank):
        self.rank = rank
        self.rng = random.Random(1000 + rank)
        self.pid = 2200 + rank
        self.threads = {self.pid: 0, self.pid + 1405: 0}  # CPU thread -> busy until (ns)
        self.stream_free = {7: 0, 23: 0, 27: 0}
        self.corr = 40000 + 7 * rank
        self.ev = []   # trace events (dicts with raw ns in '_ts'/'_dur', formatted at the end)
        self.gpu = []  # (start, end, kind, stream, name) for the expected figures
        self.links = []  # (kernel correlation, launch name)

    def next_corr(self):
        self.corr += 1
        return self.corr

    def x(self, cat, name, pid, tid, ts, dur, args):
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "_ts": ts, "_dur": dur,
                        "args": args})

    def launch(self, tid, at, stream, name, dur, kind="kernel"):
        """A CPU launch at `at` on thread tid and its GPU op; returns the CPU end."""
        r = self.rng
        c = self.next_corr()
        api = "cudaLaunchKernel"
        cat = "cuda_runtime"
        if kind == "kernel":
            p = r.random()
            if p < 0.30:  # the trap: a 0 us attribute call at the launch's own timestamp
                c0 = c
                c = self.next_corr()
                self.x("cuda_runtime", "cudaFuncSetAttribute", self.pid, tid, at, 0,
                       {"External id": c0, "cbid": 273, "correlation": c0})
                api = "cudaLaunchKernelExC"
            elif p < 0.38:
                api, cat = "cuLaunchKernel", "cuda_driver"
        elif kind == "gpu_memset":
            api = "cudaMemsetAsync"
        else:
            api = "cudaMemcpyAsync"
        ldur = r.randint(2000, 6000)
        self.x(cat, api, self.pid, tid, at, ldur, {"External id": c, "cbid": 211, "correlation": c})
        start = max(self.stream_free[stream], at + r.randint(3000, 9000))
        end = start + dur
        self.stream_free[stream] = end
        args = {"External id": c, "queued": 0, "device": 0, "context": 1, "stream": stream, "correlation": c}
        if kind == "kernel":
            args.update({"registers per thread": 128, "shared memory": 0, "grid": [132, 1, 1], "block": [384, 1, 1]})
        else:
            args["bytes"] = 1 << 20
        self.x(kind, name, 0, stream, start, dur, args)
        self.ev.append({"ph": "s", "id": c, "pid": self.pid, "tid": tid, "_ts": at, "cat": "ac2g", "name": "ac2g"})
        self.ev.append({"ph": "f", "id": c, "pid": 0, "tid": stream, "_ts": start, "cat": "ac2g", "name": "ac2g",
                        "bp": "e"})
        self.gpu.append((start, end, kind, stream, name))
        self.links.append((c, api))
        return at + ldur

    def op(self, tid, t, name, launches):
        """A cpu_op launching [(stream, kernel, dur_ns, kind)] one after the other."""
        r = self.rng
        start = t
        t += r.randint(1000, 4000)
        for stream, kname, dur, kind in launches:
            t = self.launch(tid, t, stream, kname, dur, kind) + r.randint(500, 3000)
        self.x("cpu_op", name, self.pid, tid, start, t - start, {"External id": self.next_corr() + 900000})
        return t

    def step(self, t, n_step):
        r = self.rng
        main, bwd = self.pid, self.pid + 1405
        step_start = t
        for layer in range(4):
            for mb, tid in ((0, main), (1, bwd)):
                blk = t
                t = self.op(tid, t, "aten::mm", [(7, COMPUTE7[0], r.randint(30, 90) * 1000, "kernel"),
                                                 (7, COMPUTE7[1], r.randint(250, 600) * 1000, "kernel")])
                t = self.op(tid, t, "flash_attn::fwd" if mb == 0 else "flash_attn::bwd",
                            [(23, ATTN[mb], r.randint(400, 1500) * 1000, "kernel")])
                t = self.op(tid, t, "deep_ep::get_dispatch_layout", [(7, LAYOUT, r.randint(8, 20) * 1000, "kernel")])
                t = self.op(tid, t, "deep_ep::dispatch", [(27, COMM[0], r.randint(100, 300) * 1000, "kernel"),
                                                          (27, COMM[1], r.randint(400, 1100) * 1000, "kernel")])
                t = self.op(tid, t, "aten::mm", [(7, COMPUTE7[2], r.randint(1200, 2600) * 1000, "kernel")])
                t = self.op(tid, t, "deep_ep::combine", [(27, COMM[2], r.randint(100, 250) * 1000, "kernel"),
                                                         (27, COMM[3], r.randint(500, 1300) * 1000, "kernel")])
                if layer == 0:
                    t = self.op(tid, t, "aten::zero_", [(7, "Memset (Device)", r.randint(2, 6) * 1000, "gpu_memset"),
                                                        (7, COMPUTE7[3], r.randint(5, 15) * 1000, "kernel")])
                self.x("user_annotation", ("attn(F)" if mb == 0 else "mlp(B)"), self.pid, tid, blk, t - blk,
                       {"External id": self.next_corr() + 900000})
                t += r.randint(2000, 20000)
        t = self.op(main, t, "aten::sum", [(7, COMPUTE7[4], r.randint(20, 60) * 1000, "kernel")])
        # the gradient all-reduce waits for every stream (cudaStreamWaitEvent): exposed
        self.x("cuda_runtime", "cudaStreamWaitEvent", self.pid, main, t, 2000, {"cbid": 147})
        t += 3000
        self.stream_free[27] = max(self.stream_free.values())
        t = self.op(main, t, "symm_mem::multimem_all_reduce_",
                    [(27, ALLREDUCE, r.randint(300, 800) * 1000, "kernel")])
        t = self.op(main, t, "aten::copy_",
                    [(7, "Memcpy DtoH (Device -> Pinned)", r.randint(4, 12) * 1000, "gpu_memcpy")])
        # the CPU waits for the GPU at the end of a step
        t = max(t, max(self.stream_free.values())) + r.randint(50000, 150000)
        self.x("user_annotation", "ProfilerStep#%d" % n_step, self.pid, main, step_start, t - step_start,
               {"External id": self.next_corr() + 900000})
        return t

    def build(self):
        t = 1000000
        for s in range(2):
            t = self.step(t, s + 1)
        return t


def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(u):
    return sum(b - a for a, b in u)


def intersect(u, v):
    i = j = 0
    n = 0
    while i < len(u) and j < len(v):
        a, b = max(u[i][0], v[j][0]), min(u[i][1], v[j][1])
        if a < b:
            n += b - a
        if u[i][1] < v[j][1]:
            i += 1
        else:
            j += 1
    return n


def is_comm(name):
    return name in COMM or name == ALLREDUCE


def figures(rk, base):
    comp = union([(a, b) for a, b, k, s, n in rk.gpu if k == "kernel" and not is_comm(n)])
    comm = union([(a, b) for a, b, k, s, n in rk.gpu if k == "kernel" and is_comm(n)])
    mem = union([(a, b) for a, b, k, s, n in rk.gpu if k != "kernel"])
    busy = union([(a, b) for a, b, k, s, n in rk.gpu])
    lo = min(a for a, b, k, s, n in rk.gpu)
    hi = max(b for a, b, k, s, n in rk.gpu)
    ov = intersect(comp, comm)
    return {"window_start_ns": base + lo, "window_ns": hi - lo, "busy_ns": length(busy),
            "idle_ns": hi - lo - length(busy), "compute_ns": length(comp), "comm_ns": length(comm),
            "overlap_ns": ov, "exposed_comm_ns": length(comm) - ov, "memory_ns": length(mem),
            "events": len(rk.gpu), "kernels": sum(1 for g in rk.gpu if g[2] == "kernel"),
            "traps": sum(1 for e in rk.ev if e["name"] == "cudaFuncSetAttribute")}


def write(rk, base, path):
    pid = rk.pid
    meta = [
        {"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": "python3"}},
        {"name": "process_labels", "ph": "M", "pid": pid, "tid": 0, "args": {"labels": "CPU"}},
        {"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0, "args": {"sort_index": pid}},
        {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "python3"}},
        {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
        {"name": "process_sort_index", "ph": "M", "pid": 0, "tid": 0, "args": {"sort_index": 16777216}},
    ]
    for s in (7, 23, 27):
        meta.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": s, "args": {"name": "stream %d " % s}})
        meta.append({"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": s, "args": {"sort_index": s}})
    for tid in sorted(rk.threads):
        meta.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                     "args": {"name": "thread %d (python3)" % tid}})
    lines = []
    # Kineto writes CPU events first, then GPU events, then flows, metadata last
    order = {"s": 2, "f": 2}
    evs = sorted(rk.ev, key=lambda e: (order.get(e["ph"], 1 if e["pid"] == 0 else 0), e["_ts"]))
    for e in evs:
        o = {k: v for k, v in e.items() if not k.startswith("_")}
        text = json.dumps(o, separators=(", ", ": "))
        ts = '"ts": %s' % us(base + e["_ts"])
        if "_dur" in e:
            ts += ', "dur": %s' % us(e["_dur"])
        lines.append(text[:-1] + ", " + ts + "}")
    lines += [json.dumps(m, separators=(", ", ": ")) for m in meta]
    head = {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H800", "totalGlobalMem": 84943110144, "computeMajor": 9,
                                  "computeMinor": 0, "numSms": 132}],
            "distributedInfo": {"backend": "nccl", "rank": rk.rank, "world_size": 2}}
    with open(path, "w") as f:
        f.write("{\n")
        for k, v in head.items():
            f.write('  "%s": %s,\n' % (k, json.dumps(v)))
        f.write('  "traceEvents": [\n  ' + ",\n  ".join(lines) + "\n  ],\n")
        f.write('  "traceName": "moe-ep synthetic (tests/data/moe-ep/make.py) rank %d"\n}\n' % rk.rank)


def main():
    base = 1740461679000000 * 1000  # ns
    out = []
    for r in (0, 1):
        rk = Rank(r)
        rk.build()
        write(rk, base, os.path.join(HERE, "rank%d.json" % r))
        fig = figures(rk, base)
        out.append("rank%d %s" % (r, " ".join("%s=%d" % kv for kv in fig.items())))
        # each kernel's launch, by correlation id (the launch-links test reads these)
        out.append("links%d %s" % (r, " ".join("%d:%s" % l for l in rk.links)))
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("# written by make.py: figures computed from the generated intervals\n")
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
