#!/usr/bin/env bash
# `ovtrace diff` end to end on the shipped pair (tests/data/diff: two runs of two ranks
# each, every figure worked out by hand in the comments below), plus options, errors,
# terminal safety and --json. Needs only the repository.
set -u
BIN=$1; DATA=$2
fails=0
check() { # description, condition...
    local d=$1; shift
    if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
D=$DATA/diff
A="$D/a-r0.json,$D/a-r1.json" B="$D/b-r0.json,$D/b-r1.json"

check "help" bash -c "'$BIN' diff --help | grep -q 'usage: ovtrace diff'"
check "listed in top-level help" bash -c "'$BIN' --help | grep -q '^  diff '"
"$BIN" diff "$D/a-r0.json" 2>"$tmp/err"; rc=$?
check "one run only: exit 2" test $rc -eq 2
check "one run only: says two runs" grep -q "needs two runs" "$tmp/err"
"$BIN" diff "$D/a-r0.json" "$D/nope.json" 2>"$tmp/err"; rc=$?
check "missing file: exit 1" test $rc -eq 1
check "missing file named" grep -q "nope.json" "$tmp/err"
"$BIN" diff --step '(' "$A" "$B" 2>"$tmp/err"; rc=$?
check "bad --step regex: exit 1 with message" bash -c "test $rc -eq 1 && grep -q -- '--step' '$tmp/err'"
"$BIN" diff --a "$D/a-r0.json" "$B" 2>"$tmp/err"; rc=$?
check "--a without --b rejected" test $rc -eq 2

# Table: per device A, B and B - A (us). Rank 0: compute [20,70) [120,170); comm
# [40,90) [150,190) in A, [30,80) [150,190) in B. Rank 1: compute [15,65) [115,165)
# plus a fill kernel [180,185) in A / [180,184) in B; comm [60,100) [160,200) in A,
# [60,110) [160,200) in B.
"$BIN" diff -q "$A" "$B" >"$tmp/t" 2>"$tmp/err"
check "table exit 0" test $? -eq 0
check "table: rank 0 delta" grep -Eq '^ +B - A +0 +-10 +0 +0 +\+10 +-10 +\+0.1111$' "$tmp/t"
check "table: rank 1 A" grep -Eq '^ +A +185 +170 +105 +80 +15 +65 +0.1875$' "$tmp/t"
check "table: total delta" grep -Eq '^ +B - A +0 +0 +-1 +\+10 +\+9 +\+1 +\+0.0288$' "$tmp/t"
check "table: only in A listed" grep -q "kernels only in A: 1" "$tmp/t"
check "table: biggest change first" bash -c "grep -A2 'kernels by absolute change' '$tmp/t' | tail -1 | grep -q 'gemm<float>'"
check "table: step 1 row" grep -Eq '^  1 +85 +90 +55 +0.3889 \| +95 +100 +55 +0.4500 \| +\+10 +0$' "$tmp/t"
check "table: medians" grep -Eq '^  median +85 +80 +50 +0.3750 \| +85 +80 +51 +0.3625 \| +0 +\+1$' "$tmp/t"

# The same runs given as --a/--b, and as directories, give the same answer.
"$BIN" diff -q --json "$A" "$B" >"$tmp/j1"
"$BIN" diff -q --json --a "$D/a-r0.json" --a "$D/a-r1.json" --b "$D/b-r0.json" --b "$D/b-r1.json" >"$tmp/j2"
check "--a/--b equals comma lists" cmp -s "$tmp/j1" "$tmp/j2"
mkdir "$tmp/ra" "$tmp/rb"; cp "$D"/a-*.json "$tmp/ra"; cp "$D"/b-*.json "$tmp/rb"
"$BIN" diff -q --json "$tmp/ra" "$tmp/rb" | python3 -c '
import json, sys; d = json.load(sys.stdin); e = json.load(open(sys.argv[1]))
for k in ("devices", "total", "kernels", "steps", "classes"): assert d[k] == e[k], k' "$tmp/j1"
check "directories equal comma lists" test $? -eq 0

check "json: exact figures" python3 - "$tmp/j1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
U = 1000  # ns per us
assert d["ovtrace_diff_version"] == 1 and d["group_names"] is False
assert [f["rank"] for f in d["a"]["files"]] == [0, 1]
def fig(window, busy, compute, comm, overlap, exposed):
    return dict(window_ns=window * U, busy_ns=busy * U, idle_ns=(window - busy) * U, compute_ns=compute * U,
                comm_ns=comm * U, overlap_ns=overlap * U, exposed_comm_ns=exposed * U)
def same(got, want, what):
    for k, v in want.items():
        assert got[k] == v, (what, k, got[k], v)
dev = {(x["rank"], x["device"]): x for x in d["devices"]}
assert sorted(dev) == [(0, 0), (1, 0)]
same(dev[0, 0]["a"], fig(170, 140, 100, 90, 50, 40), "r0 a")
same(dev[0, 0]["b"], fig(170, 130, 100, 90, 60, 30), "r0 b")
same(dev[0, 0]["delta"], fig(0, -10, 0, 0, 10, -10), "r0 delta")
same(dev[1, 0]["a"], fig(185, 170, 105, 80, 15, 65), "r1 a")
same(dev[1, 0]["b"], fig(185, 180, 104, 90, 14, 76), "r1 b")
same(d["total"]["a"], fig(355, 310, 205, 170, 65, 105), "total a")
same(d["total"]["b"], fig(355, 310, 204, 180, 74, 106), "total b")
assert abs(d["total"]["a"]["overlap_ratio"] - 65 / 170) < 1e-6
assert abs(d["total"]["delta"]["overlap_ratio"] - (74 / 180 - 65 / 170)) < 2e-6
cls = {c["class"]: c for c in d["classes"]}
assert (cls["compute"]["count_a"], cls["compute"]["total_a_ns"], cls["compute"]["total_b_ns"]) == (5, 205 * U, 204 * U)
assert (cls["comm"]["count_b"], cls["comm"]["delta_ns"]) == (4, 10 * U)
k = [(x["name"].split("(")[0], x["count_a"], x["count_b"], x["total_a_ns"] // U, x["total_b_ns"] // U, x["delta_ns"] // U,
      x["in_a"], x["in_b"]) for x in d["kernels"]]
assert k == [("void gemm<float>", 4, 3, 200, 150, -50, True, True),
             ("void gemm<__half>", 0, 1, 0, 50, 50, False, True),
             ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 4, 4, 170, 180, 10, True, True),
             ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >", 1, 0, 5, 0, -5, True, False),
             ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half> >", 0, 1, 0, 4, 4, False, True)], k
assert len(d["only_in_a"]) == 1 and len(d["only_in_b"]) == 2
# steps: GPU window = span of the work launched inside ProfilerStep#N, both ranks
s = d["steps"]
assert s["source"] == "ProfilerStep" and [r["step"] for r in s["rows"]] == [1, 2]
want = {(1, "a"): (85, 100, 90, 35), (1, "b"): (95, 100, 100, 45), (2, "a"): (85, 105, 80, 30), (2, "b"): (85, 104, 80, 29)}
for r in s["rows"]:
    for side in "ab":
        x = r[side]; t, comp, comm, ov = want[r["step"], side]
        assert x["gpu_window_from"] == "launches" and x["marks"] == 2
        assert (x["time_ns"], x["figures"]["compute_ns"], x["figures"]["comm_ns"], x["figures"]["overlap_ns"]) == \
               (t * U, comp * U, comm * U, ov * U), (r["step"], side, x)
a0 = s["rows"][0]["a"]
assert (a0["cpu_start_ns"], a0["cpu_end_ns"], a0["gpu_start_ns"]) == (1000 * U, 1100 * U, 1015 * U)
assert s["rows"][0]["b"]["gpu_start_ns"] == 5001015 * U  # B's own clock, untouched
m = s["median"]
assert (m["a"]["time_ns"], m["a"]["exposed_comm_ns"], m["b"]["time_ns"], m["b"]["exposed_comm_ns"]) == (85 * U, 50 * U, 85 * U, 51 * U)
assert abs(m["a"]["overlap_ratio"] - 0.375) < 1e-6 and abs(m["b"]["overlap_ratio"] - 0.3625) < 1e-6
PY

# Comm wait/transfer per (rank, device) and in total: equal to the collectives section of
# `ovtrace stats --json` on each run (computed here, independently of diff), B - A the
# difference; the total is the sum over devices.
"$BIN" stats -q --json "$D/a-r0.json" "$D/a-r1.json" >"$tmp/sa"
"$BIN" stats -q --json "$D/b-r0.json" "$D/b-r1.json" >"$tmp/sb"
check "json: wait/transfer equal stats' collectives" python3 - "$tmp/j1" "$tmp/sa" "$tmp/sb" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
K = ("comm_ns", "wait_ns", "transfer_ns", "exposed_comm_ns", "exposed_wait_ns", "exposed_transfer_ns")
st = {}
for side, f in zip("ab", sys.argv[2:]):
    c = json.load(open(f))["collectives"]
    assert c["ranks"] == 2 and d[side]["ranks"] == 2, (side, c["ranks"], d[side]["ranks"])
    st[side] = {(x["rank"], x["device"]): {k: x[k] for k in K} for x in c["devices"]}
    assert sorted(st[side]) == [(0, 0), (1, 0)], st[side]
# the fixture must exercise the split: some wait and some transfer in each run
assert all(sum(v["wait_ns"] for v in st[s].values()) > 0 for s in "ab")
assert st["a"] != st["b"]
for x in d["devices"]:
    key, c = (x["rank"], x["device"]), x["collectives"]
    assert c["a"] == st["a"][key] and c["b"] == st["b"][key], (key, c)
    assert c["delta"] == {k: st["b"][key][k] - st["a"][key][k] for k in K}, (key, c["delta"])
t = d["total"]["collectives"]
for s in "ab":
    assert t[s] == {k: sum(v[k] for v in st[s].values()) for k in K}, (s, t[s])
assert t["delta"] == {k: t["b"][k] - t["a"][k] for k in K}
# comm is the same union as the overlap figures' comm
for x in d["devices"]:
    for s in "ab":
        assert x["collectives"][s]["comm_ns"] == x[s]["comm_ns"]
PY
# The table prints the same figures (us): rank 0's A row, from stats.
row=$(python3 -c '
import json, sys
x = [v for v in json.load(open(sys.argv[1]))["collectives"]["devices"] if v["rank"] == 0][0]
print(" +".join(str(x[k] // 1000) for k in ("comm_ns", "wait_ns", "transfer_ns", "exposed_comm_ns", "exposed_wait_ns", "exposed_transfer_ns")))' "$tmp/sa")
check "table: wait/transfer section, rank 0 A row from stats ($row)" bash -c "sed -n '/^comm wait\/transfer per device/,/^rank 1/p' '$tmp/t' | grep -Eq '^ +A +$row\$'"
# One rank in A: n/a in the table, null in JSON (no delta); B still has its figures.
"$BIN" diff -q "$D/a-r0.json" "$B" >"$tmp/o1"
check "table: one rank is n/a" bash -c "sed -n '/^comm wait\/transfer per device/,/^kernels per class/p' '$tmp/o1' | grep -Eq '^ +A +n/a \(one rank\)\$'"
"$BIN" diff -q --json "$D/a-r0.json" "$B" | python3 -c '
import json, sys; d = json.load(sys.stdin); s = json.load(open(sys.argv[1]))["collectives"]
assert d["a"]["ranks"] == 1 and d["b"]["ranks"] == 2
for x in d["devices"] + [d["total"]]:
    assert x["collectives"]["a"] is None and x["collectives"]["delta"] is None, x
sb = {v["rank"]: v["wait_ns"] for v in s["devices"]}
assert {x["rank"]: x["collectives"]["b"]["wait_ns"] for x in d["devices"]} == sb' "$tmp/sb"
check "json: one rank is null" test $? -eq 0

# --group-names: gemm<float>/gemm<__half> and the two FillFunctor kernels become one
# key each; parameter lists go too.
"$BIN" diff -q --json --group-names "$A" "$B" >"$tmp/g"
check "group-names: keys and totals" python3 - "$tmp/g" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["group_names"] is True
k = [(x["name"], x["count_a"], x["count_b"], x["total_a_ns"], x["total_b_ns"]) for x in d["kernels"]]
assert k == [("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 4, 4, 170000, 180000),
             ("at::native::vectorized_elementwise_kernel", 1, 1, 5000, 4000),
             ("gemm", 4, 4, 200000, 200000)], k
assert d["only_in_a"] == [] and d["only_in_b"] == []
PY

# --step REGEX: the cudaLaunchKernel calls as "iterations" (no number: numbered by order)
"$BIN" diff -q --json --step '^cudaLaunchKernel$' "$A" "$B" >"$tmp/s"
check "--step regex: steps by order" python3 - "$tmp/s" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["steps"]
assert d["source"] == "regex" and d["regex"] == "^cudaLaunchKernel$"
assert [r["step"] for r in d["rows"]] == [1, 2, 3, 4, 5]
r1 = d["rows"][0]["a"]  # launch 1 of both ranks: gemm [1020,1070) on rank 0, [1015,1065) on rank 1
assert (r1["marks"], r1["gpu_start_ns"], r1["gpu_end_ns"]) == (2, 1015000, 1070000), r1
assert d["rows"][4]["a"]["marks"] == 1  # only rank 1 launches a fifth kernel
PY

# A device in one run only: rank 1 exists only in B; it has no delta, the total is B's.
"$BIN" diff -q --json "$D/a-r0.json" "$B" | python3 -c '
import json, sys; d = json.load(sys.stdin); dev = {x["rank"]: x for x in d["devices"]}
assert dev[1]["a"] is None and dev[1]["delta"] is None and dev[1]["b"]["comm_ns"] == 90000, dev[1]
assert d["total"]["a"]["comm_ns"] == 90000 and d["total"]["b"]["comm_ns"] == 180000'
check "device only in B" test $? -eq 0
"$BIN" diff -q "$D/a-r0.json" "$B" >"$tmp/o"
check "table marks the device only in B" grep -q "^rank 1 device 0 (only in B)" "$tmp/o"

# Hostile names: an escape sequence in a kernel name never reaches the terminal.
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"evil\\u001b[2Jname\\u009b","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0,"stream":7}}]}' >"$tmp/evil.json"
"$BIN" diff -q "$tmp/evil.json" "$D/a-r0.json" >"$tmp/e"
check "escape sequences escaped" bash -c "grep -qF 'evil\\x1b[2Jname\\u009b' '$tmp/e' && ! grep -q \$'\\x1b' '$tmp/e' && ! grep -q \$'\\xc2\\x9b' '$tmp/e'"
"$BIN" diff -q --json "$tmp/evil.json" "$D/a-r0.json" | python3 -c '
import json, sys; d = json.load(sys.stdin); assert d["only_in_a"] == ["evil\x1b[2Jname\x9b"]'
check "json keeps the exact name, escaped" test $? -eq 0

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
