#!/usr/bin/env bash
# fuzz/run.sh [SECONDS]: builds the libFuzzer targets with clang (ASan+UBSan), builds
# the seed corpora, and runs each target for SECONDS (default 60). The corpus grows
# across runs in $OVTRACE_FUZZ_BUILD/corpus/<target> (default build-fuzz/). Prints one
# line per target (executions, cov, ft, corpus) and fails if any target crashed,
# leaked, hung (>10 s on one input) or went over 2 GB; the input that did it is kept
# in build-fuzz/artifacts/<target>/: copy it to tests/reliability/crashes/<target>-NAME
# and it is replayed by ctest from then on.
#   OVTRACE_FUZZ_TARGETS="fuzz_time fuzz_rules" fuzz/run.sh 30   (a subset)
#   OVTRACE_FUZZ_JOBS=2 fuzz/run.sh 300                           (two targets at a time)
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${OVTRACE_FUZZ_BUILD:-$root/build-fuzz}
targets=${OVTRACE_FUZZ_TARGETS:-fuzz_load fuzz_load_parallel fuzz_load_compressed fuzz_rules fuzz_time fuzz_export}
jobs=${OVTRACE_FUZZ_JOBS:-1}

die() { echo "fuzz/run.sh: $*" >&2; exit 2; }
command -v clang >/dev/null || die "clang not found (libFuzzer needs clang)"
command -v python3 >/dev/null || die "python3 not found (seed corpus builder)"

CC=clang cmake -S "$root/fuzz" -B "$build" -DOVTRACE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null \
    || die "configure failed"
cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1 || { tail -30 "$build/build.log" >&2; die "build failed"; }
rm -rf "$build/seeds"
python3 "$root/fuzz/make_corpus.py" "$build/seeds" || die "seed corpus builder failed"

run_one() {
    local t=$1 dict=()
    mkdir -p "$build/corpus/$t" "$build/artifacts/$t" "$build/logs"
    case $t in fuzz_load|fuzz_load_parallel|fuzz_load_compressed|fuzz_export) dict=(-dict="$root/fuzz/trace.dict") ;; esac
    local rc=0
    # -close_fd_mask=1: the export target writes to stdout
    "$build/$t" "$build/corpus/$t" "$build/seeds/$t" "${dict[@]}" \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/$t/" >"$build/logs/$t.log" 2>&1 || rc=$?
    local last execs cov ft corp
    last=$(grep -E '^#[0-9]+' "$build/logs/$t.log" | tail -1 || true)
    execs=$(grep -E '^stat::number_of_executed_units' "$build/logs/$t.log" | awk '{print $2}' || true)
    cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -nE 's/.*corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$last")
    local found
    found=$(find "$build/artifacts/$t" -type f | wc -l)
    printf '%-22s %4ss  execs %10s  cov %5s  ft %6s  corpus %-14s artifacts %s  rc %s\n' \
        "$t" "$secs" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$found" "$rc"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        echo "fuzz/run.sh: $t FAILED; log: $build/logs/$t.log, inputs: $build/artifacts/$t/" >&2
        grep -E 'ERROR|runtime error|SUMMARY' "$build/logs/$t.log" | head -5 >&2 || true
        return 1
    fi
}

fail=0
pids=()
for t in $targets; do
    [ -x "$build/$t" ] || die "no target $t"
    if [ "$jobs" -gt 1 ]; then
        run_one "$t" & pids+=($!)
        if [ "${#pids[@]}" -ge "$jobs" ]; then wait "${pids[0]}" || fail=1; pids=("${pids[@]:1}"); fi
    else
        run_one "$t" || fail=1
    fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
[ "$fail" -eq 0 ] || die "a fuzz target failed (see above)"
echo "fuzz/run.sh: all targets clean (${secs}s each)"
