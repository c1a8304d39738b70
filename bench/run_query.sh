#!/usr/bin/env bash
# SQL benchmark: tiles a trace in time with gen_trace (DeepSeek's when ../shared has it,
# else tests/data/moe-ep/rank0.json) to SIZE MB of Kineto-shaped JSON and runs
# query_bench on it: a 1 ms window with the constraint pushed down against the same
# window as a full scan, a window on one lane, GROUP BY name, the top kernels; the
# events each looked at and the memory the queries added. Results in bench/README.md.
# Usage: bench/run_query.sh [BUILD_DIR] [SIZE_MB]   (default: build 444)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
mb=${2:-444}
src=${OVTRACE_DEEPSEEK:-$here/../../shared/traces/deepseek-train.json}
[ -e "$src" ] || src=$here/../tests/data/moe-ep/rank0.json
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ovtrace-bench.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
f=$tmp/tiled-${mb}MB.json
"$build/bench/gen_trace" "$src" "$f" --mb "$mb"
echo "source: $src"
"$build/bench/query_bench" "$f"
