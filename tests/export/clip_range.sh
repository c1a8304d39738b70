#!/bin/sh
# `export --range A:B --clip` gives a file whose `stats` figures are those
# of `stats --range A:B` on the input, exactly (every device figure, the totals and the
# top kernels; streams without an event in the range are not exported, so those are left
# out of the comparison). Without --clip the whole slices are kept (figures differ when a
# slice crosses an end). Inputs: the shipped moe-ep trace, a hand-built trace with B/E
# pairs, an unmatched B, counters, instants and flows across the ends, and DeepSeek's
# trace when ../shared has it. The export reopens on its range (view --dump).
# usage: clip_range.sh OVTRACE DATA_DIR DEEPSEEK_TRACE
BIN=$1 DATA=$2 DS=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

figures() { # stats.json -> the range's figures, streams with events only
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for dev in d["devices"]:
    dev["streams"] = [s for s in dev["streams"] if s["events"]]
print(json.dumps([d["devices"], d["total"], d["top_kernels"]], indent=1))' "$1"
}

check() { # trace range
    in=$1 r=$2 out="$tmp/clip.json"
    "$BIN" export -q --no-cache "$in" --range "$r" --clip -o "$out" >/dev/null || { echo "FAIL: export $in $r"; fail=1; return; }
    "$BIN" stats --json --no-cache --range "$r" "$in" >"$tmp/want.json"
    "$BIN" stats --json --no-cache "$out" >"$tmp/got.json"
    figures "$tmp/want.json" >"$tmp/want"
    figures "$tmp/got.json" >"$tmp/got"
    if cmp -s "$tmp/want" "$tmp/got"; then
        echo "ok: $(basename "$in") --range $r: clipped export = stats --range"
    else
        echo "FAIL: $(basename "$in") --range $r: figures differ"
        diff "$tmp/want" "$tmp/got" | head -10
        fail=1
    fi
}

for r in 0:5ms 5ms:9ms 3.3337ms:20.001ms 12ms: :7.5ms; do check "$DATA/moe-ep/rank0.json" "$r"; done

# B/E pairs, an unmatched B (runs to the trace end), a counter and an instant, a flow whose
# launch starts before the range; all of them cross 10us or 30us
cat >"$tmp/be.json" <<'JSON'
{"traceEvents":[
{"ph":"B","cat":"kernel","name":"gemm_be","pid":0,"tid":7,"ts":5,"args":{"device":0,"stream":7}},
{"ph":"E","cat":"kernel","name":"gemm_be","pid":0,"tid":7,"ts":25},
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":9,"ts":8.5,"dur":30,"args":{"device":0,"stream":9,"correlation":3}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":10,"args":{"correlation":3}},
{"ph":"s","id":3,"pid":1,"tid":1,"ts":2,"cat":"ac2g","name":"ac2g"},
{"ph":"f","id":3,"pid":0,"tid":9,"ts":8.5,"cat":"ac2g","name":"ac2g","bp":"e"},
{"ph":"B","cat":"kernel","name":"open_kernel","pid":0,"tid":11,"ts":28,"args":{"device":0,"stream":11}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":29.5,"dur":3,"args":{"device":0,"stream":7}},
{"ph":"C","name":"mem","pid":1,"tid":1,"ts":15,"args":{"bytes":100}},
{"ph":"i","name":"marker","pid":1,"tid":1,"ts":12,"s":"t"},
{"ph":"X","cat":"kernel","name":"late","pid":0,"tid":7,"ts":40,"dur":5,"args":{"device":0,"stream":7}}
]}
JSON
for r in 10us:30us 5us:25us 6us:26us 0:9us 29us:; do check "$tmp/be.json" "$r"; done
# the flow survives the cut (both ends kept, bound at their written starts; the trace
# starts at 2us, so 5us:25us is [7us, 27us) and cuts the launch [2us, 12us))
"$BIN" export -q "$tmp/be.json" --range 5us:25us --clip -o "$tmp/f.json" >/dev/null
grep -q '"ph":"s","id":3' "$tmp/f.json" && grep -q '"ph":"f","bp":"e","id":3' "$tmp/f.json" ||
    { echo "FAIL: flow across the range start lost"; fail=1; }
"$BIN" export -q "$tmp/f.json" --name nccl --with-launches -o - 2>/dev/null | grep -q '"name":"cudaLaunchKernel"' ||
    { echo "FAIL: the clipped kernel lost its launch"; fail=1; }
"$BIN" view "$tmp/f.json" -q --dump --size 120x30 --keys 'jjjj' >/dev/null 2>&1 || { echo "FAIL: clipped file does not open"; fail=1; }

# whole slices without --clip: the figures are not the range's when a slice crosses an end
"$BIN" export -q "$tmp/be.json" --range 10us:30us -o "$tmp/whole.json" >/dev/null
"$BIN" stats --json "$tmp/whole.json" >"$tmp/w.json"
"$BIN" stats --json --range 10us:30us "$tmp/be.json" >"$tmp/r.json"
[ "$(figures "$tmp/w.json")" != "$(figures "$tmp/r.json")" ] || { echo "FAIL: whole-slice export equals the range"; fail=1; }

# --clip needs --range
"$BIN" export -q "$tmp/be.json" --clip -o "$tmp/x.json" 2>"$tmp/err" && { echo "FAIL: --clip without --range accepted"; fail=1; }
grep -q -- "--clip needs --range" "$tmp/err" || { echo "FAIL: --clip message: $(cat "$tmp/err")"; fail=1; }

# a range export reopens on its range: the range panel shows its whole span
"$BIN" export -q "$DATA/moe-ep/rank0.json" --range 5ms:9ms --clip -o "$tmp/r59.json" >/dev/null
"$BIN" view "$tmp/r59.json" -q --dump --size 140x40 >"$tmp/screen" 2>&1
grep -q "stats --range 0ns:4000000ns" "$tmp/screen" || { echo "FAIL: the export did not reopen on its range"; cat "$tmp/screen"; fail=1; }

if [ -r "$DS" ]; then
    for r in 30ms:40ms 12.3456ms:77.7ms 0:1ms 100ms:; do check "$DS" "$r"; done
else
    echo "note: $DS not found: DeepSeek ranges skipped"
fi
[ $fail -eq 0 ] && echo "ok"
exit $fail
