#!/usr/bin/env bash
# Cross-rank collectives end to end: record --simulate --ranks N, then stats (table and JSON) across the
# rank files. Expected values come from the files themselves (loads, expert kernels).
set -u
BIN=$1
fails=0
check() { # description, command...
    local d=$1; shift
    if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$BIN" record --simulate --ranks 4 --mode serial --jitter 0 --imbalance 1 --steps 2 -o "$tmp/s.json" 2>"$tmp/rec"
check "record --ranks exits 0" test $? -eq 0
check "one file per rank" test -s "$tmp/s.rank0.json" -a -s "$tmp/s.rank3.json" -a ! -e "$tmp/s.rank4.json"
check "record says what it wrote" grep -q "4 ranks, 2 steps, imbalance 1" "$tmp/rec"
"$BIN" stats "$tmp"/s.rank*.json >"$tmp/table"
check "stats table has the collectives section" grep -q "^4 ranks, [0-9]* comm kernels: [0-9]* matched instances, 0 kernels unmatched, 0 mismatched" "$tmp/table"
check "straggler line" grep -Eq "^straggler: rank [0-3] arrived last in [0-9]+ of [0-9]+ collectives; others waited [0-9.]+ (ms|us|s) for it" "$tmp/table"
"$BIN" stats --json "$tmp"/s.rank*.json >"$tmp/s.json.out"
check "stats json agrees with the files" python3 - "$tmp/s.json.out" "$tmp" <<'PY'
import json, sys, glob
d = json.load(open(sys.argv[1]))
assert d['ovtrace_stats_version'] == 1 and 'devices' in d and 'top_kernels' in d  # unchanged keys
c = d['collectives']
assert c['ranks'] == 4 and c['unmatched'] == 0 and c['mismatched'] == 0, c
assert c['clock']['reliable'] is True and c['clock']['max_end_spread_ns'] == 0
loads, expert = {}, {}
for p in glob.glob(sys.argv[2] + '/s.rank*.json'):
    f = json.load(open(p))
    r = f['distributedInfo']['rank']
    loads[r] = f['ovtrace']['ranks']['load']
    # us with 3 decimals: exact in ns
    expert[r] = sum(round(e['dur'] * 1000) for e in f['traceEvents'] if e.get('name') == 'moe::expert_gemm')
hot = max(loads, key=loads.get)
assert c['straggler']['rank'] == hot, (c['straggler'], loads)
emax = max(expert.values())
overlap = {(x['rank'], x['device']): x for x in d['devices']}
for x in c['devices']:
    assert x['comm_ns'] == x['wait_ns'] + x['transfer_ns'], x
    assert x['exposed_comm_ns'] == x['exposed_wait_ns'] + x['exposed_transfer_ns'], x
    o = overlap[(x['rank'], x['device'])]
    assert x['exposed_comm_ns'] == o['exposed_comm_ns'] and x['comm_ns'] == o['comm_ns'], (x, o)
    # serial mode: waits happen at combine only, (slowest expert time - own) in total
    assert x['wait_ns'] == emax - expert[x['rank']], (x, emax, expert)
    assert (x['arrived_last'] > 0) == (x['rank'] == hot), x
names = {n['name']: n for n in c['per_name']}
assert any('combine' in k for k in names) and any('dispatch' in k for k in names)
for k, n in names.items():
    if 'dispatch' in k: assert n['max_skew_ns'] == 0, n
    else: assert n['median_skew_ns'] > 0 and n['max_skew_ns'] >= n['median_skew_ns'], n
PY
# a range halves the instances counted but keeps the sums consistent
"$BIN" stats --json --range 0:1ms "$tmp"/s.rank*.json >"$tmp/r.json"
check "range json valid and consistent" python3 -c "
import json,sys
c=json.load(open('$tmp/r.json'))['collectives']
for x in c['devices']: assert x['comm_ns']==x['wait_ns']+x['transfer_ns']
"
# clock skew between two nodes is reported
"$BIN" record --simulate --ranks 16 --jitter 0 --steps 1 --clock-skew 1ms -o "$tmp/k.json.zst" 2>/dev/null
check "zstd rank files" test -s "$tmp/k.rank15.json.zst"
"$BIN" stats "$tmp"/k.rank*.json.zst >"$tmp/k.table"
check "clock skew warned" grep -q "WARNING: alignment unreliable: rank 8's clock looks offset by +1000.0 us (collective ends disagree)" "$tmp/k.table"
# one file: nothing to align, said so
"$BIN" stats "$tmp/s.rank0.json" >"$tmp/one"
check "one rank says so" grep -q "^one rank: [0-9]* comm kernels, nothing to align" "$tmp/one"
# option errors
# a clock skew that would push 256 ranks' timestamps past the model's range is refused
for sk in 9e18ns 3e17ns 7200s; do
    timeout 20 "$BIN" record --simulate --ranks 256 --steps 1 --clock-skew "$sk" -o "$tmp/sk.json" 2>"$tmp/err"; rc=$?
    check "--clock-skew $sk rejected" test $rc -eq 2
    check "--clock-skew $sk: says the bound" grep -qF "at most 1h (3600s) per node" "$tmp/err"
    check "--clock-skew $sk: no files" test ! -e "$tmp/sk.rank0.json"
done
timeout 20 "$BIN" record --simulate --ranks 1 -o "$tmp/x.json" 2>"$tmp/err"; rc=$?
check "--ranks 1 rejected" test $rc -eq 2
timeout 20 "$BIN" record --simulate --imbalance 1 -o "$tmp/x.json" 2>"$tmp/err"; rc=$?
check "--imbalance without --ranks rejected" test $rc -eq 2
check "--imbalance error names --ranks" grep -q -- "--ranks" "$tmp/err"
"$BIN" record --simulate --ranks 4 --imbalance -1 -o "$tmp/x.json" 2>"$tmp/err"; rc=$?
check "negative imbalance rejected" test $rc -eq 2
timeout 20 "$BIN" live --simulate --ranks 4 --headless --duration 1 2>"$tmp/err"; rc=$?
check "live --ranks rejected" test $rc -eq 2
check "live --ranks error explains" grep -q "ovtrace record --simulate --ranks" "$tmp/err"
check "no stray files" test -z "$(ls "$tmp" | grep -v -e '^s\.' -e '^k\.' -e '^err$' -e '^rec$' -e 'table$' -e '^one$' -e '^r.json$')"
exit $((fails > 0))
