#!/usr/bin/env bash
# What each of the machine's CPUs gives a one-thread load, alone and with the other CPU
# busy, round by round: the two-thread targets assume two CPUs that each run as fast as
# one alone. Per round: `load_bench --threads 1 FILE` pinned to each CPU alone, then one
# on every CPU at once (the same file; it is in the page cache after the first), then
# node's JSON.parse of FILE pinned to each CPU alone when node is installed (the
# reference the load is measured against runs on one CPU too).
# Usage: bench/vcpus.sh BUILD FILE [ROUNDS]
set -euo pipefail
build=$1 f=$2 rounds=${3:-5}
ncpu=$(nproc)
secs() { awk -F'\t' '{split($4, s, " "); print s[1]}'; }
node_parse() {
    taskset -c "$1" node -e '
        const s = require("fs").readFileSync(process.argv[1], "utf8"), t = process.hrtime.bigint();
        JSON.parse(s);
        console.log((Number(process.hrtime.bigint() - t) / 1e9).toFixed(3));' "$f"
}
head="| round |"
sep="|---|"
for c in $(seq 0 $((ncpu - 1))); do head+=" CPU $c alone |"; sep+="---|"; done
for c in $(seq 0 $((ncpu - 1))); do head+=" CPU $c, all busy |"; sep+="---|"; done
have_node=0
if command -v node >/dev/null; then
    have_node=1
    for c in $(seq 0 $((ncpu - 1))); do head+=" node on CPU $c |"; sep+="---|"; done
fi
echo "one-thread load of $(basename "$f") ($(stat -c %s "$f" | awk '{printf "%.1f MB", $1 / 1e6}')), seconds"
echo
echo "$head"
echo "$sep"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ovtrace-vcpus.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
    row="| $r |"
    for c in $(seq 0 $((ncpu - 1))); do
        row+=" $(taskset -c "$c" "$build/bench/load_bench" --threads 1 "$f" | secs) |"
    done
    for c in $(seq 0 $((ncpu - 1))); do
        taskset -c "$c" "$build/bench/load_bench" --threads 1 "$f" | secs >"$tmp/$c" &
    done
    wait
    for c in $(seq 0 $((ncpu - 1))); do row+=" $(cat "$tmp/$c") |"; done
    if [ "$have_node" = 1 ]; then
        for c in $(seq 0 $((ncpu - 1))); do row+=" $(node_parse "$c") |"; done
    fi
    echo "$row"
done
echo
echo "load average (1, 5, 15 min) after: $(cut -d' ' -f1-3 /proc/loadavg)"
