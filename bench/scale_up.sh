#!/usr/bin/env bash
# The scale-up targets side by side in one run, interleaved round by round (a busy spell
# of the machine hits every build alike), best of ROUNDS:
#   1. the big Kineto trace: node's JSON.parse, then load_bench of BASE and of BUILD on
#      one and two threads (bench/run_versus.sh), and the peak RSS of `stats --no-cache`,
#      per event in all and beyond the file (below zero where the load gives the file's
#      pages back as it parses and so never holds all of it);
#   2. time to the rank overview of each 64-rank directory given (bench/lazy_overview.sh),
#      BASE then BUILD.
# usage: bench/scale_up.sh BUILD BASE_BUILD BIG.json ROUNDS [RANK_DIR...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1 base=$2 big=$3 rounds=$4
shift 4
echo "## $(basename "$big"): load (best of $rounds)"
"$here/run_versus.sh" "$build" "$base" "$big" "$rounds"
echo
events=$("$build/bench/load_bench" --threads 1 "$big" | awk -F'\t' '{split($3, e, " "); print e[1]}')
mb=$(stat -c %s "$big")
echo "## $(basename "$big"): peak RSS of stats --no-cache beyond the file, per event ($events events)"
for b in "$base" "$build"; do
    for th in 1 0; do
        best=
        for _ in $(seq "$rounds"); do
            kb=$( { /usr/bin/time -f '%M' "$b/cli/ovtrace" stats --no-cache -q --threads "$th" "$big" >/dev/null; } 2>&1 | tail -1)
            [ -z "$best" ] || [ "$kb" -lt "$best" ] && best=$kb
        done
        awk -v b="$b" -v th="$th" -v kb="$best" -v mb="$mb" -v n="$events" \
            'BEGIN { printf "%s --threads %s: peak %.1f MB (%.1f B/event in all), beyond the file %.1f MB, %.1f B/event\n", b, th, kb / 1024, kb * 1024 / n, (kb * 1024 - mb) / 1e6, (kb * 1024 - mb) / n }'
    done
done
for dir in "$@"; do
    echo
    echo "## $(basename "$dir"): time to the rank overview (OVTRACE_CACHE=0)"
    for r in $(seq "$rounds"); do
        for b in "$base" "$build"; do
            printf '%s round %s: ' "$b" "$r"
            OVTRACE_CACHE=0 "$here/lazy_overview.sh" "$b/cli/ovtrace" "$dir" 64 --no-cache
        done
    done
done
echo
echo "load average (1, 5, 15 min) at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
