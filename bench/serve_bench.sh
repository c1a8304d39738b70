#!/bin/sh
# Serving benchmark, on the simulator: dynamic vs fixed batching at the same
# memory cap (default 10 GiB: 47 requests in flight), at several request rates. Each run
# records --steps serving steps (unpaced) and reads the figures back with
# `ovtrace stats --json` (throughput, mean batch, latency p50/p99, memory), i.e. from
# the trace. Prints a markdown table (bench/README.md).
# usage: bench/serve_bench.sh [OVTRACE] [STEPS]
set -eu
BIN=${1:-build/cli/ovtrace}
STEPS=${2:-1000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| rate (req/s) | batching | tokens/s | mean batch | requests | p50 ms | p99 ms | memory max GiB |"
echo "|---|---|---|---|---|---|---|---|"
for rate in 100 300 2000; do
  for b in dynamic fixed; do
    "$BIN" record --simulate --mode serve --batching $b --rate $rate --steps "$STEPS" --speed 1000000 \
      -o "$TMP/t.json" >/dev/null 2>&1
    "$BIN" stats --json "$TMP/t.json" | python3 -c '
import json, sys
s = json.load(sys.stdin)["serving"]
p50 = s["latency_p50_ns"] / 1e6 if s["latency_p50_ns"] is not None else float("nan")
p99 = s["latency_p99_ns"] / 1e6 if s["latency_p99_ns"] is not None else float("nan")
print("| %s | %s | %.0f | %.1f | %d | %.1f | %.1f | %.2f |" % (sys.argv[1], sys.argv[2], s["throughput_tokens_per_s"],
      s["mean_batch"], s["requests"], p50, p99, s["memory_max_bytes"] / 2**30))' $rate $b
  done
done
