#!/usr/bin/env python3
"""Perturbs a Kineto trace with known changes and works out, independently of ovtrace
(plain interval unions in Python, exact decimal times), what `ovtrace diff --json` must
report for original vs perturbed.

    perturb.py IN.json OUT.json EXPECT.json

Changes (GPU kernels): every DeepEP combine kernel runs twice as long; every
rotary_kernel is removed (with its flow events); _copy_tensor_kernel is renamed
_copy_tensor_kernel_v2 (so it is only in A under one name and only in B under the
other). EXPECT holds, for each run: device figures, kernel totals per name, and the
ProfilerStep windows and figures."""
import json
import re
import sys
from decimal import ROUND_HALF_UP, Decimal

COMM = [re.compile(p) for p in (
    r"^(void )?(nccl|rccl)", r"(^|[^A-Za-z_])(ncclKernel|ncclDevKernel|rcclKernel)",
    r"(dpsk::ep|deep_ep)::[A-Za-z_]+::(dispatch|combine|notify_dispatch|cached_notify|notify_combine|clean_low_latency_buffer)[<(]",
    r"(dpsk::ep|deep_ep)::[A-Za-z_]+::(low_latency_)?(dispatch|combine)(_send|_recv)?[<(]")]
GPU = ("kernel", "gpu_memcpy", "gpu_memset")


def ns(x):
    return int((Decimal(x) * 1000).to_integral_value(ROUND_HALF_UP))


def union(iv):
    out = []
    for s, e in sorted(iv):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def measure(u):
    return sum(e - s for s, e in u)


def intersect(a, b):
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            out.append([s, e])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def figures(gpu, t0=None, t1=None):
    comp, comm, busy = [], [], []
    for cat, name, s, e in gpu:
        if t0 is not None:
            if e <= t0 or s >= t1:
                continue
            s, e = max(s, t0), min(e, t1)
        busy.append((s, e))
        if cat == "kernel":
            (comm if any(r.search(name) for r in COMM) else comp).append((s, e))
    ub, uc, um = union(busy), union(comp), union(comm)
    ov = measure(intersect(uc, um))
    window = max(e for _, e in busy) - min(s for s, _ in busy) if busy else 0
    return {"window_ns": window, "busy_ns": measure(ub), "compute_ns": measure(uc), "comm_ns": measure(um),
            "overlap_ns": ov, "exposed_comm_ns": measure(um) - ov}


def summarize(events):
    gpu = [(e["cat"], e["name"], ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in events
           if e.get("ph") == "X" and e.get("cat") in GPU]
    kernels = {}
    for cat, name, s, e in gpu:
        if cat == "kernel":
            k = kernels.setdefault(name, [0, 0])
            k[0] += 1
            k[1] += e - s
    # steps: GPU work whose launch (same correlation) lies inside ProfilerStep#N
    launch = {e["args"]["correlation"]: ns(e["ts"]) for e in events
              if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    steps = []
    for a in events:
        m = re.fullmatch(r"ProfilerStep#(\d+)", a.get("name", ""))
        if not m or a.get("ph") != "X":
            continue
        s0, s1 = ns(a["ts"]), ns(a["ts"]) + ns(a["dur"])
        win = [(s, e) for e_ in events if e_.get("ph") == "X" and e_.get("cat") in GPU
               for s, e in [(ns(e_["ts"]), ns(e_["ts"]) + ns(e_["dur"]))]
               if s0 <= launch.get(e_.get("args", {}).get("correlation"), -1) < s1]
        g0, g1 = min(s for s, _ in win), max(e for _, e in win)
        steps.append({"step": int(m.group(1)), "gpu_start_ns": g0, "gpu_end_ns": g1, "time_ns": g1 - g0,
                      "figures": figures(gpu, g0, g1)})
    return {"device": figures(gpu), "kernels": kernels, "steps": steps}


def main():
    src, dst, exp = sys.argv[1:4]
    doc = json.load(open(src), parse_float=Decimal)
    events = doc["traceEvents"]
    removed = {e["args"].get("correlation") for e in events if e.get("cat") == "kernel" and e["name"] == "rotary_kernel"}
    out = []
    for e in events:
        if e.get("cat") == "kernel":
            if e["name"] == "rotary_kernel":
                continue
            if e["name"] == "_copy_tensor_kernel":
                e = dict(e, name="_copy_tensor_kernel_v2")
            if e["name"].startswith("void dpsk::ep::internode::combine<"):
                e = dict(e, dur=e["dur"] * 2)
        if e.get("ph") in ("s", "f") and e.get("cat") == "ac2g" and e.get("id") in removed:
            continue
        out.append(e)
    doc["traceEvents"] = out

    def dec(o):  # Decimal out as the exact number it holds
        if isinstance(o, Decimal):
            return "@@" + str(o) + "@@"
        raise TypeError(o)
    text = re.sub(r'"@@([-0-9.eE+]+)@@"', r"\1", json.dumps(doc, default=dec))
    with open(dst, "w") as f:
        f.write(text)
    with open(exp, "w") as f:
        json.dump({"a": summarize(events), "b": summarize(out), "removed_flows": len(removed)}, f)


main()
