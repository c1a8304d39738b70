#!/usr/bin/env bash
# `ovtrace diff` on DeepSeek's real trace against a copy perturbed with known changes
# (perturb.py: combine kernels twice as long, rotary_kernel removed, _copy_tensor_kernel
# renamed). Every figure is checked exactly against perturb.py's own interval
# arithmetic, and each side against `ovtrace stats --json`. Skipped without the trace.
set -u
BIN=$1; TRACE=$2; HERE=$(dirname "$0")
[ -r "$TRACE" ] || { echo "$TRACE missing: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$HERE/perturb.py" "$TRACE" "$tmp/b.json" "$tmp/expect.json" || exit 1
"$BIN" diff -q --json "$TRACE" "$tmp/b.json" >"$tmp/d.json" || exit 1
"$BIN" stats -q --json "$TRACE" >"$tmp/sa.json" || exit 1
"$BIN" stats -q --json "$tmp/b.json" >"$tmp/sb.json" || exit 1
python3 - "$tmp/d.json" "$tmp/expect.json" "$tmp/sa.json" "$tmp/sb.json" <<'PY'
import json, sys
d, x, sa, sb = (json.load(open(p)) for p in sys.argv[1:5])
fails = []
def eq(what, got, want):
    print(("ok   " if got == want else "FAIL ") + what + ("" if got == want else f": got {got}, want {want}"))
    if got != want: fails.append(what)

# the independent computation reproduces the reference figures of the original
ref = {"window_ns": 129012, "compute_ns": 124338, "comm_ns": 113030, "overlap_ns": 108868, "exposed_comm_ns": 4162}
eq("python reference figures (us)", {k: round(x["a"]["device"][k] / 1000) for k in ref}, ref)

eq("one device", [(v["rank"], v["device"]) for v in d["devices"]], [(0, 0)])
dev = d["devices"][0]
keys = ["window_ns", "busy_ns", "compute_ns", "comm_ns", "overlap_ns", "exposed_comm_ns"]
for side in "ab":
    eq(f"device figures {side} exact", {k: dev[side][k] for k in keys}, x[side]["device"])
    s = sa if side == "a" else sb
    eq(f"device figures {side} equal stats", dev[side], {k: v for k, v in s["devices"][0].items() if k in dev[side]})
    eq(f"total {side} equals stats total", d["total"][side], s["total"])
eq("deltas exact", {k: dev["delta"][k] for k in keys}, {k: x["b"]["device"][k] - x["a"]["device"][k] for k in keys})
# the perturbation does change the overlap figures (else the check above proves little)
eq("comm changed", dev["delta"]["comm_ns"] != 0 and dev["delta"]["overlap_ns"] != 0, True)

ka, kb = x["a"]["kernels"], x["b"]["kernels"]
want = {}
for n in set(ka) | set(kb):
    a, b = ka.get(n, [0, 0]), kb.get(n, [0, 0])
    want[n] = (a[0], b[0], a[1], b[1], b[1] - a[1], n in ka, n in kb)
got = {k["name"]: (k["count_a"], k["count_b"], k["total_a_ns"], k["total_b_ns"], k["delta_ns"], k["in_a"], k["in_b"])
       for k in d["kernels"]}
eq("every kernel row exact", got, want)
# order: |delta| descending, then the larger total, then the name
order = sorted(want, key=lambda n: (-abs(want[n][4]), -max(want[n][2], want[n][3]), n.encode()))
eq("rows sorted by absolute change", [k["name"] for k in d["kernels"]], order)
eq("changed kernels", sorted(n.split("<")[0] for n in order if want[n][4]),
   ["_copy_tensor_kernel", "_copy_tensor_kernel_v2", "rotary_kernel", "void dpsk::ep::internode::combine"])
comb = next(k for k in d["kernels"] if k["name"].startswith("void dpsk::ep::internode::combine<"))
eq("combine doubled", (comb["count_a"], comb["total_b_ns"]), (8, 2 * comb["total_a_ns"]))
eq("only in A", sorted(d["only_in_a"]), ["_copy_tensor_kernel", "rotary_kernel"])
eq("only in B", d["only_in_b"], ["_copy_tensor_kernel_v2"])
cls = {c["class"]: c["delta_ns"] for c in d["classes"]}
eq("class deltas", cls, {"comm": comb["total_a_ns"],
                         "compute": -(ka["rotary_kernel"][1])})

rows = d["steps"]["rows"]
eq("one step, ProfilerStep#1", [r["step"] for r in rows], [1])
for side in "ab":
    r, w = rows[0][side], x[side]["steps"][0]
    eq(f"step {side} window", (r["gpu_start_ns"], r["gpu_end_ns"], r["time_ns"], r["gpu_window_from"]),
       (w["gpu_start_ns"], w["gpu_end_ns"], w["time_ns"], "launches"))
    eq(f"step {side} figures", {k: r["figures"][k] for k in keys}, w["figures"])
sys.exit(1 if fails else 0)
PY
