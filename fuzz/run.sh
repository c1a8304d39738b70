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
#
# fuzz/run.sh --ci: the deterministic session CI runs (tests/sanitize.sh): each target
# starts from the seeds alone (copied to a temporary directory, so neither the repo nor
# build-fuzz/corpus changes), with -seed=1 and a fixed number of executions (-runs,
# the table below, about 30 s each on a 2-core machine), one process at a time, without
# address-space randomisation and in a fixed environment. The same build therefore
# explores the same inputs on every run and a finding is not luck of timing: rerunning
# reproduces it (fuzz_load_parallel's parser threads make its path drift a little).
# A crash fails the run and prints the reproducer (kept in build-fuzz/ci-artifacts/).
#   OVTRACE_FUZZ_CI_PERCENT=50 fuzz/run.sh --ci                  (half the executions)
set -euo pipefail
mode=time
secs=60
case ${1:-} in
--ci) mode=ci ;;
'') ;;
*) secs=$1 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
build=${OVTRACE_FUZZ_BUILD:-$root/build-fuzz}
all_targets="fuzz_load fuzz_load_parallel fuzz_load_compressed fuzz_peek fuzz_index fuzz_rules fuzz_time fuzz_export fuzz_cupti"
targets=${OVTRACE_FUZZ_TARGETS:-$all_targets}
jobs=${OVTRACE_FUZZ_JOBS:-1}
percent=${OVTRACE_FUZZ_CI_PERCENT:-100}

# Executions per target in --ci mode: about 30 s each from the seeds on the 2-core CI
# container (measured; docs/reliability.md). Fixed counts, not time, keep it deterministic.
ci_runs() {
    case $1 in
    fuzz_load) echo 150000 ;;
    fuzz_load_parallel) echo 5000 ;;  # each input also loads zstd-compressed in slabs
    fuzz_load_compressed) echo 5000 ;;
    fuzz_peek) echo 20000 ;;  # each input also loads twice (GPU-first and full)
    fuzz_index) echo 100000 ;;
    fuzz_rules) echo 100000 ;;
    fuzz_time) echo 2800000 ;;
    fuzz_export) echo 170000 ;;
    fuzz_cupti) echo 230000 ;;
    *) echo 10000 ;;
    esac
}

die() { echo "fuzz/run.sh: $*" >&2; exit 2; }
command -v clang >/dev/null || die "clang not found (libFuzzer needs clang)"
command -v python3 >/dev/null || die "python3 not found (seed corpus builder)"

mkdir -p "$build"
CC=clang cmake -S "$root/fuzz" -B "$build" -DOVTRACE_FUZZ=ON -DOVTRACE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 \
    || { tail -30 "$build/configure.log" >&2; die "configure failed"; }
cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1 || { tail -30 "$build/build.log" >&2; die "build failed"; }
rm -rf "$build/seeds"
python3 "$root/fuzz/make_corpus.py" "$build/seeds" || die "seed corpus builder failed"

tmp=""
runner=()
if [ "$mode" = ci ]; then
    # Pointer values reach libFuzzer's comparison hints, so the path depends on the
    # address layout: no address-space randomisation (setarch -R), and a fixed
    # environment (its size moves the stack; a user's OVTRACE_RULES, HOME or sanitizer
    # options would change what runs). Then two runs of a build explore the same inputs.
    # (No detect_stack_use_after_return here: it costs half as many executions again.)
    runner=(env -i PATH=/usr/bin:/bin ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
    if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
        runner+=(setarch "$(uname -m)" -R)
    fi
    # inside the build directory, not $TMPDIR: argument lengths move the stack too
    tmp=$(mktemp -d "$build/ci-corpus.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    rm -rf "$build/ci-artifacts"
fi

# reads a finished target's log: sets execs cov ft corp
stats() {
    local log=$1 last
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
    cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -nE 's/.*corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$last")
}

run_one() {
    local t=$1 dict=() dirs=() corpus art what
    case $t in fuzz_load|fuzz_load_parallel|fuzz_load_compressed|fuzz_peek|fuzz_export) dict=(-dict="$root/fuzz/trace.dict") ;; esac
    mkdir -p "$build/logs"
    local limit=()
    if [ "$mode" = ci ]; then
        corpus=$tmp/$t
        art=$build/ci-artifacts/$t
        mkdir -p "$corpus" "$art"
        cp "$build/seeds/$t/"* "$corpus/"
        dirs=("$corpus")
        local n=$(( $(ci_runs "$t") * percent / 100 ))
        limit=(-seed=1 -runs="$n" -reload=0)
        what="$n runs"
    else
        corpus=$build/corpus/$t
        art=$build/artifacts/$t
        mkdir -p "$corpus" "$art"
        dirs=("$corpus" "$build/seeds/$t")
        limit=(-max_total_time="$secs")
        what="${secs}s"
    fi
    local rc=0 t0=$SECONDS
    # new inputs go to the first directory: the temporary copy in --ci mode
    "${runner[@]}" "$build/$t" "${dirs[@]}" "${dict[@]}" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="$art/" >"$build/logs/$t.log" 2>&1 || rc=$?
    local execs cov ft corp found
    stats "$build/logs/$t.log"
    found=$(find "$art" -type f | wc -l)
    printf '%-22s %-12s %4ss  execs %10s  cov %5s  ft %6s  corpus %-14s artifacts %s  rc %s\n' \
        "$t" "$what" "$((SECONDS - t0))" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$found" "$rc"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        echo "fuzz/run.sh: $t FAILED; log: $build/logs/$t.log" >&2
        grep -E 'ERROR|runtime error|check failed|SUMMARY' "$build/logs/$t.log" | head -5 >&2 || true
        local f
        for f in "$art"/*; do
            [ -f "$f" ] || continue
            echo "  reproducer: $f" >&2
            echo "    rerun:    $build/$t $f" >&2
            echo "    keep it:  cp $f $root/tests/reliability/crashes/$t-WHAT   (replayed by ctest)" >&2
        done
        return 1
    fi
}

fail=0
pids=()
for t in $targets; do
    if [ ! -x "$build/$t" ]; then
        # fuzz_cupti needs the CUDA toolkit's CUPTI headers (fuzz/CMakeLists.txt)
        [ "$t" = fuzz_cupti ] && { echo "fuzz_cupti             skipped: not built (no CUDA toolkit with CUPTI headers)"; continue; }
        die "no target $t"
    fi
    if [ "$mode" = time ] && [ "$jobs" -gt 1 ]; then
        run_one "$t" & pids+=($!)
        if [ "${#pids[@]}" -ge "$jobs" ]; then wait "${pids[0]}" || fail=1; pids=("${pids[@]:1}"); fi
    else
        run_one "$t" || fail=1
    fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
[ "$fail" -eq 0 ] || die "a fuzz target failed (see above)"
if [ "$mode" = ci ]; then
    echo "fuzz/run.sh: all targets clean (deterministic: -seed=1, fixed -runs, from the seeds)"
else
    echo "fuzz/run.sh: all targets clean (${secs}s each)"
fi
