#!/bin/sh
# Serving mode through the binary: record --simulate --mode serve writes the
# MoE kernels, [serve] counter tracks and serve::request ranges; stats reports the
# serving figures from the recording (text and --json); the viewer shows the counters
# under GPU 0; bad serving options are refused by the recorder and the workload.
# usage: serve_cli.sh OVTRACE
set -u
BIN=$1
WL=$(dirname "$BIN")/ovtrace-workload
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for b in dynamic fixed; do
  "$BIN" record --simulate --mode serve --batching $b --rate 2000 --steps 200 --speed 1000000 -o "$TMP/$b.json" \
    >"$TMP/rec.$b" 2>&1 || { cat "$TMP/rec.$b"; fail "record --mode serve --batching $b"; }
  grep -q 'SIMULATED serve' "$TMP/rec.$b" || { cat "$TMP/rec.$b"; fail "record does not say it simulated serving ($b)"; }
  "$BIN" stats "$TMP/$b.json" >"$TMP/stats.$b" || fail "stats on the $b recording"
  grep -q '^serving (200 steps over ' "$TMP/stats.$b" || { cat "$TMP/stats.$b"; fail "no serving section ($b)"; }
  grep -Eq '^  latency       p50 [0-9.]+ ms, p99 [0-9.]+ ms' "$TMP/stats.$b" || fail "no latency percentiles ($b)"
  grep -q 'moe::expert_gemm' "$TMP/stats.$b" || fail "no MoE kernels beside the serving events ($b)"
  for c in "batch size" "queue length" "memory in use" "tokens/s"; do
    grep -q "\[serve\] GPU 0 $c" "$TMP/stats.$b" || fail "no counter '$c' ($b)"
  done
  "$BIN" stats --json "$TMP/$b.json" >"$TMP/json.$b" || fail "stats --json ($b)"
  grep -q '"serving": {"steps": 200, ' "$TMP/json.$b" || fail "no serving object in --json ($b)"
  if command -v python3 >/dev/null; then python3 -m json.tool "$TMP/json.$b" >/dev/null || fail "invalid JSON ($b)"; fi
done
# the same memory cap: neither batch goes over the 47 requests that fit in 10 GiB
for b in dynamic fixed; do
  max=$(sed -n 's/.*"max_batch": \([0-9]*\).*/\1/p' "$TMP/json.$b")
  [ -n "$max" ] && [ "$max" -le 47 ] || fail "max batch $max over the memory cap ($b)"
done
# a trace without serving events: "serving": null
"$BIN" stats --json "$(dirname "$0")/../data/kineto-memory.json" | grep -q '"serving": null' || fail "serving not null"

# the viewer: the serving counters are lanes under GPU 0
"$BIN" view "$TMP/dynamic.json" --dump --size 140x40 -q >"$TMP/view" || fail "view failed"
grep -q " batch size " "$TMP/view" || { cat "$TMP/view"; fail "no batch size lane"; }
grep -q " memory in use " "$TMP/view" || fail "no memory lane"

# refused options
"$BIN" record --simulate --batching fixed -o "$TMP/x.json" 2>"$TMP/err" && fail "--batching without --mode serve accepted"
grep -q "add --mode serve" "$TMP/err" || fail "no hint to add --mode serve"
"$BIN" record --simulate --mode serve --mem-cap 8GiB -o "$TMP/x.json" 2>"$TMP/err" && fail "a cap below the weights accepted"
grep -q "mem-cap" "$TMP/err" || fail "no --mem-cap message"
"$BIN" record --simulate --mode serve --batching sometimes -o "$TMP/x.json" 2>/dev/null && fail "bad --batching accepted"
if [ -x "$WL" ]; then
  "$WL" --mode serve --batching sometimes 2>/dev/null; [ $? = 2 ] || fail "workload accepted a bad --batching"
  "$WL" --mode serve --gpus 2 2>"$TMP/err"; [ $? = 2 ] && grep -q "one GPU" "$TMP/err" || fail "workload serve on 2 GPUs"
fi
[ ! -e "$TMP/x.json" ] || fail "a refused run left an output"
echo ok
