#!/usr/bin/env bash
# int64 overflow of spans. Timestamps at +-9.2e15 us (9.2e18 ns)
# parse into int64, but a span between two of them does not fit (negative windows in
# stats, UBSan in overlap.c, cmd_stats.c, tindex.c, ruler.c, viewstate.c). The model
# holds |t| < 2^62 ns (timeunits.h): events beyond are skipped and counted
# with a warning, sums saturate, the view places its window in 128-bit arithmetic.
#  1. events beyond the limit (ts, or ts + dur) are skipped with the warning, and the
#     figures of the rest are exact;
#  2. events at the very edge of the range (spans of 2^63 - 2 ns, sums past INT64_MAX)
#     load, and stats / stats --json / view --dump (with zoom, pan, fit, marks) never
#     print a negative duration. Under tests/sanitize.sh the binary is the ASan+UBSan
#     build (-fno-sanitize-recover=all): any overflow there is a failure too.
#   overflow.sh OVTRACE_BIN
set -u
bin=$1
tmp=$(mktemp -d /tmp/ovtrace-overflow-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
T=${OVTRACE_TEST_TIMEOUT:-60}
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

run() { # WHAT CMD...: exit 0, no sanitizer report; stdout in $tmp/out, stderr in $tmp/err
    local what=$1
    shift
    timeout -k 5 "$T" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if grep -qE 'runtime error|AddressSanitizer|UndefinedBehaviorSanitizer' "$tmp/err"; then
        fail "$what: sanitizer report: $(grep -m3 -E 'runtime error|ERROR' "$tmp/err")"
        return 1
    fi
    [ "$rc" -eq 0 ] || { fail "$what: exit $rc: $(head -3 "$tmp/err")"; return 1; }
    return 0
}

x() { # CAT NAME PID TID TS DUR [DEVICE STREAM]
    local args=""
    [ $# -ge 8 ] && args=", \"args\": {\"device\": $7, \"stream\": $8}"
    printf '{"ph": "X", "cat": "%s", "name": "%s", "pid": %s, "tid": %s, "ts": %s, "dur": %s%s}' "$1" "$2" "$3" "$4" "$5" "$6" "$args"
}

# ---- 1. beyond the limit: skipped, counted, the rest exact
L=4611686018427387 # 2^62 ns = 4611686018427387.904 us; the limit is exclusive
{
    echo '{"traceEvents": ['
    x kernel gemm 0 7 -9200000000000000 10 0 7; echo ','
    x kernel ncclAllReduce 0 8 9200000000000000 10 0 8; echo ','
    x kernel gemm 0 7 "$L.904" 0 0 7; echo ','                       # ts = 2^62 ns exactly
    x kernel gemm 0 7 0 9200000000000000 0 7; echo ','                # ts + dur beyond
    x kernel gemm 0 7 "$((L - 10))" 10.904 0 7; echo ','              # end = 2^62 ns exactly
    x cpu_op op 1 1 9223372036854775 0; echo ','
    x kernel gemm 0 7 100 10 0 7; echo ','
    x kernel ncclAllReduce 0 8 105 10 0 8; echo ','
    x kernel gemm 0 7 "-$L.903" 0 0 7                                # -(2^62 - 1) ns: in range
    echo ']}'
} >"$tmp/beyond.json"
if run "stats --json beyond.json" "$bin" stats --json "$tmp/beyond.json"; then
    grep -q 'skipped 6 events with bad values' "$tmp/err" || fail "beyond.json: want 'skipped 6 events': $(cat "$tmp/err")"
    grep -q 'out of range' "$tmp/err" || fail "beyond.json: the warning does not say why: $(cat "$tmp/err")"
    python3 - "$tmp/out" <<'PY' || fail "beyond.json: figures (above)"
import json, sys
s = json.load(open(sys.argv[1]))
d = s["devices"][0]
want = {"events": 3, "comm_ns": 10000, "overlap_ns": 5000, "exposed_comm_ns": 5000,
        "window_start_ns": -4611686018427387903, "window_ns": 4611686018427387903 + 115000,
        "busy_ns": 15000, "trace_start_ns": -4611686018427387903, "skipped_events": 6}
got = dict(d, trace_start_ns=s["trace_start_ns"], skipped_events=s["warnings"]["skipped_events"])
bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
if bad:
    print("got/want:", bad)
    sys.exit(1)
PY
fi
run "stats beyond.json" "$bin" stats "$tmp/beyond.json" && ! grep -E '(^| )-[0-9]' "$tmp/out" | grep -v '^range' >/dev/null ||
    fail "stats beyond.json: a negative figure: $(grep -E '(^| )-[0-9]' "$tmp/out" | head -3)"

# ---- 2. at the edge of the range: spans of 2^63 - 2 ns, sums past INT64_MAX
{
    echo '{"traceEvents": ['
    for d in 0 1 2; do
        x kernel gemm "$d" 7 "-$L.903" "$((2 * L)).806" "$d" 7; echo ','
        x kernel gemm "$d" 8 "-$L.903" "$((2 * L)).806" "$d" 8; echo ','
        x kernel ncclAllReduce "$d" 9 0 "$L.903" "$d" 9; echo ','
    done
    x cpu_op op 100 1 "-$L.903" "$((2 * L)).806"; echo ','
    x cpu_op op 100 1 "$L.903" 0; echo ','
    printf '{"ph": "B", "name": "open", "pid": 100, "tid": 2, "ts": -%s.903}\n' "$L"
    echo ']}'
} >"$tmp/edge.json"
if run "stats --json edge.json" "$bin" stats --json "$tmp/edge.json"; then
    python3 - "$tmp/out" <<'PY' || fail "edge.json: figures (above)"
import json, sys
s = json.load(open(sys.argv[1]))
errs = []
def walk(o, path):
    if isinstance(o, dict):
        for k, v in o.items():
            walk(v, path + "." + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            walk(v, "%s[%d]" % (path, i))
    elif isinstance(o, int) and not isinstance(o, bool) and o < 0 and not path.endswith(("start_ns", "world_size")):
        errs.append("%s = %d" % (path, o))
walk(s, "")
span = 2 * 4611686018427387903
for d in s["devices"]:
    if d["window_ns"] != span or d["busy_ns"] != span or d["idle_ns"] != 0:
        errs.append("device %d: window %d busy %d idle %d, want %d %d 0" % (d["device"], d["window_ns"], d["busy_ns"], d["idle_ns"], span, span))
if s["total"]["window_ns"] != 2**63 - 1:  # 3 x (2^63 - 2): saturated
    errs.append("total window %d, want INT64_MAX (saturated)" % s["total"]["window_ns"])
for k in s["top_kernels"]:
    if k["total_ns"] != 2**63 - 1:
        errs.append("kernel %s total %d, want INT64_MAX (saturated)" % (k["name"], k["total_ns"]))
if errs:
    print("\n".join(errs))
    sys.exit(1)
PY
fi
run "stats edge.json" "$bin" stats "$tmp/edge.json" && ! grep -E '(^| )-[0-9]' "$tmp/out" >/dev/null ||
    fail "stats edge.json: a negative figure: $(grep -E '(^| )-[0-9]' "$tmp/out" | head -3)"
# the view: zoom out and in past the limits, pan, fit, select, marks, range panel
for keys in "SSSSSSSS" "-----SSSSSS0WWWWWW0fHLLL<Right>ff.<End>s[<Home>]r" \
    "jjjj.fWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWLLLLLLLLLL<End>HHH<Home>SSSSSSSSSSSSSSSSSSSSSSSSS" \
    "G.f,,,,cm<Right>mr<End>r" "SSSS<Down><Down><Down>jjjjkkkk" "_jS-dDn<Enter>Nr<Enter>h<Down>-hm<End><Down>+DHa,nwDlk,r<Up>]<Tab>kS=m[m<Up>ijL"; do
    for f in beyond edge; do
        run "view --dump --keys '$keys' $f.json" "$bin" view --dump --size 120x40 --keys "$keys" "$tmp/$f.json" || continue
        # header: "view A..B (SPAN)": A is negative when zoomed out past the start; the span never
        grep -qE 'view [^(]*\(-' "$tmp/out" && fail "view $f.json ($keys): a negative window: $(head -1 "$tmp/out")"
        grep -q 'view ' "$tmp/out" || fail "view $f.json ($keys): no header: $(head -1 "$tmp/out")"
    done
done

echo "overflow.sh: $fails failures"
[ "$fails" -eq 0 ]
