#!/bin/sh
# "baseTimeNanoseconds": times written relative to a base (PyTorch 2.4+ Kineto, Proton,
# ovtrace's own recordings) load at base + ts, exactly, per file. Two ranks with
# different bases (Proton bases each file on its first event) give the same figures as
# the same ranks written with absolute times; a merged export of them reopens with those
# figures and follows Perfetto's rules; a base that is not an integer, or that would put
# times out of range, is ignored with a warning naming the byte.
# usage: base_time.sh OVTRACE RULES_PY
BIN=$1 RULES=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# rank R's events: (name, stream, start in ns after 1740000000 s, duration in ns)
python3 - "$tmp" <<'PY'
import json, sys
out = sys.argv[1]
T0 = 1740000000 * 10**9
ops = [("gemm", 7, 1_000_123, 50_005), ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 27, 1_020_001, 40_007),
       ("gemm", 7, 1_050_128, 30_003), ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 27, 1_070_011, 20_009)]
def us(ns):
    return "%s%d.%03d" % ("-" if ns < 0 else "", abs(ns) // 1000, abs(ns) % 1000)
def write(path, rank, base, skew):
    ev = []
    for name, stream, s, d in ops:
        ts = T0 + s + skew - (base or 0)
        ev.append('{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":%d,"ts":%s,"dur":%s,'
                  '"args":{"device":0,"stream":%d}}' % (name, stream, us(ts), us(d), stream))
    tail = ',"baseTimeNanoseconds":%d' % base if base is not None else ""
    with open(path, "w") as f:
        f.write('{"distributedInfo":{"rank":%d,"world_size":2},"traceEvents":[%s]%s}' % (rank, ",".join(ev), tail))
# Proton-style: each file relative to its own first event (an odd number of ns)
write(out + "/rel0.json", 0, T0 + 1_000_123, 0)
write(out + "/rel1.json", 1, T0 + 1_000_123 + 5_000_000_017, 5_000_000_017)
write(out + "/abs0.json", 0, None, 0)
write(out + "/abs1.json", 1, None, 5_000_000_017)
with open(out + "/bad.json", "w") as f:
    f.write('{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5}],'
            '"baseTimeNanoseconds":"soon"}')
with open(out + "/huge.json", "w") as f:
    f.write('{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5}],'
            '"baseTimeNanoseconds":9000000000000000000}')
PY

strip() { grep -v '"path"'; }
"$BIN" stats --json --no-cache "$tmp/abs0.json" "$tmp/abs1.json" | strip >"$tmp/abs.out"
"$BIN" stats --json --no-cache "$tmp/rel0.json" "$tmp/rel1.json" | strip >"$tmp/rel.out"
if ! cmp -s "$tmp/abs.out" "$tmp/rel.out"; then
    echo "FAIL: ranks relative to their own bases differ from the same ranks in absolute times"
    diff "$tmp/abs.out" "$tmp/rel.out" | head -10
    fail=1
fi
grep -q '"trace_start_ns": 1740000000001000123,' "$tmp/rel.out" ||
    { echo "FAIL: the start is not base + ts to the nanosecond"; grep trace_start "$tmp/rel.out"; fail=1; }

"$BIN" export -q --no-cache --merge "$tmp/rel0.json" "$tmp/rel1.json" -o "$tmp/merged.json" || fail=1
"$BIN" stats --json --no-cache "$tmp/merged.json" | strip >"$tmp/merged.out"
if ! cmp -s "$tmp/abs.out" "$tmp/merged.out"; then
    echo "FAIL: the merged export of two bases reopens with other figures"
    diff "$tmp/abs.out" "$tmp/merged.out" | head -10
    fail=1
fi
python3 "$RULES" "$tmp/merged.json" || fail=1

for f in bad huge; do
    "$BIN" stats --no-cache "$tmp/$f.json" >/dev/null 2>"$tmp/$f.err" || { echo "FAIL: $f: stats failed"; fail=1; }
    grep -q "$f.json: byte [0-9]*: baseTimeNanoseconds" "$tmp/$f.err" ||
        { echo "FAIL: $f: no warning naming the byte"; cat "$tmp/$f.err"; fail=1; }
done
[ $fail = 0 ] && echo "base_time: ok"
exit $fail
