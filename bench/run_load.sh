#!/usr/bin/env bash
# Load benchmark: generates Kineto-shaped traces by tiling DeepSeek's trace, then
# measures ovtrace's loader (plain, .gz, .zst) beside python3 json.load and node
# JSON.parse and the decompressors alone, then the snapshot cache (JSON load vs reopening through the cache, best
# and median of 5). Usage: bench/run_load.sh [BUILD_DIR] [SIZES_MB...]   (default: build 444 2000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}; shift || true
sizes=("${@:-444 2000}")
[ $# -eq 0 ] && sizes=(444 2000)
src=${OVTRACE_DEEPSEEK:-$here/../../shared/traces/deepseek-train.json}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ovtrace-bench.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
cache_rows=()
rss() { /usr/bin/time -f "%e s, peak RSS %M KB" "$@" 2>&1 >/dev/null | tail -1; }
# Each variant loads 3 times; the row is the fastest run (memory from that run).
# B/event: resident anonymous memory beyond the input mapping after the load, and its
# peak during the load (sampled every ms). First frame: `ovtrace view` in tmux
# (bench/first_frame.sh), plain files only, with OVTRACE_CACHE=0.
echo "| file | size | events | load s | MB/s | peak RSS | B/event (resident / peak) | first-frame s |"
echo "|---|---|---|---|---|---|---|---|"
best_of() { for _ in 1 2 3; do "$@"; done | sort -t$'\t' -k4,4g | head -1; }
for mb in "${sizes[@]}"; do
    f=$tmp/tiled-${mb}MB.json
    "$build/bench/gen_trace" "$src" "$f" --mb "$mb" 2>/dev/null
    variants=("$f")
    if [ "$mb" -le 500 ]; then gzip -1 -k -c "$f" >"$f.gz"; variants+=("$f.gz"); fi
    if [ "$mb" -le 2000 ]; then zstd -q -3 -T2 -k "$f" -o "$f.zst"; variants+=("$f.zst"); fi
    ff=-
    if command -v tmux >/dev/null && [ -x "$build/cli/ovtrace" ]; then
        ff=$(OVTRACE_CACHE=0 "$here/first_frame.sh" "$build/cli/ovtrace" "$f" 1 | awk 'NR==2{print $3}')
    fi
    for v in "${variants[@]}"; do
      for th in 1 0; do  # single-threaded (compressed: + read-ahead thread), then one parser thread per core
        best_of "$build/bench/load_bench" --threads "$th" "$v" "$(stat -c %s "$f")" |
            awk -F'\t' -v ff="$([ "$v" = "$f" ] && [ "$th" = 0 ] && echo "$ff" || echo -)" \
                -v name="$(basename "$v") ($([ "$th" = 1 ] && echo 1 thread || echo "$(nproc) threads"))" '{
            gsub(/ events/,"",$3); gsub(/peak RSS /,"",$7); split($9, r, " "); split($11, p, " ");
            printf "| %s | %s | %s | %s | %s | %s | %s / %s | %s |\n", name, $2, $3, $4, $5, $7, r[1], p[1], ff }'
      done
    done
    if [ "$mb" -le 500 ]; then
        # what the decompressors alone cost (one core): the floor for .gz / .zst
        echo "| decompress alone: zlib inflate ($(basename "$f").gz) | | | $(python3 -c 'import sys, time, zlib
d = open(sys.argv[1], "rb").read(); t = time.time(); o = zlib.decompressobj(31); n = 0
for i in range(0, len(d), 1 << 20): n += len(o.decompress(d[i:i + (1 << 20)]))
s = time.time() - t; print("%.2f s, %.0f MB/s of JSON" % (s, n / s / 1e6))' "$f.gz") |||||"
        echo "| decompress alone: zstd -d ($(basename "$f").zst) | | | $( { /usr/bin/time -f "%e" zstd -q -d -c "$f.zst" >/dev/null; } 2>&1 | awk -v mb="$mb" '{printf "%.2f s, %.0f MB/s of JSON", $1, mb / $1}') |||||"
        echo "| baseline python3 json.load ($(basename "$f")) | | | $(rss python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$f") |||||"
        if command -v node >/dev/null; then
            echo "| baseline node JSON.parse ($(basename "$f")) | | | $(rss node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$f" || echo failed) |||||"
        fi
    fi
    # the snapshot cache (docs/cache.md), plain and .zst input
    for v in "$f" "$f.zst"; do
        [ -e "$v" ] || continue
        cache_rows+=("$("$build/bench/load_bench" --cache --repeat 5 "$v" | awk -F'\t' -v name="$(basename "$v")" '{
            gsub(/ events/,"",$3); sub(/^JSON /,"",$4); sub(/^cache /,"",$5); sub(/^snapshot /,"",$7); sub(/^save /,"",$8);
            printf "| %s | %s | %s | %s | %s | %s | %s | %s |", name, $2, $3, $4, $5, $6, $7, $8 }')")
    done
    rm -f "$tmp"/*
done
echo
echo "| file (snapshot cache) | size | events | JSON load s best / median | cache load s best / median | speedup | snapshot | save s |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${cache_rows[@]}"
