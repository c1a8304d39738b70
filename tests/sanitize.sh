#!/usr/bin/env bash
# tests/sanitize.sh: the sanitizer and fuzzing part of CI (docs/reliability.md).
#   1. ASan+UBSan (-DOVTRACE_SANITIZE=ON, build-asan/): the whole ctest suite, which
#      includes the crash replays, the truncation sweep, the malformed corpus, the
#      atomicity tests and the TUI's headless smoke mode (view --frames/--keys/--dump);
#   2. TSan (-DOVTRACE_TSAN=ON, build-tsan/): the ring tests and the parallel loaders
#      (ctest -L 'ring|threads');
#   0. Debug (-DCMAKE_BUILD_TYPE=Debug, -O0, build-debug/): built only, with -Werror
#      (OVTRACE_WERROR, as in every CI build); gcc's -O0 warnings differ from -O2's (format-truncation), about 30 s;
#   3. if clang is present: a short deterministic fuzz session, fuzz/run.sh --ci
#      (build-fuzz/): every target from its seeds with -seed=1 and a fixed -runs count
#      (about 30 s each, 3-4 minutes in all), so a commit explores the same inputs on
#      every machine and a red run reproduces; the repo is not modified. A crash fails
#      the step and prints the reproducer. OVTRACE_FUZZ_SECONDS=N runs the time-boxed
#      session instead (fuzz/run.sh N: explores further, differently on every machine;
#      by hand). Findings become crash files that step 1 replays.
# Every step runs even when an earlier one failed; the script then exits 1 and lists
# the failed steps (with the failing output above). Knobs:
#   OVTRACE_SANITIZE_STEPS="debug asan tsan fuzz"  steps to run
#   OVTRACE_FUZZ_SECONDS=N                   time-boxed fuzz session, N s per target
#   OVTRACE_FUZZ_CI_PERCENT=100              scales the deterministic session's -runs
#   OVTRACE_JOBS=$(nproc)                    build and ctest parallelism
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
steps=${OVTRACE_SANITIZE_STEPS:-debug asan tsan fuzz}
jobs=${OVTRACE_JOBS:-$(nproc)}
fuzz_secs=${OVTRACE_FUZZ_SECONDS:-}
t_start=$(date +%s)
summary=()

failed=()
die() { # fatal: cannot go on
    echo "" >&2
    echo "tests/sanitize.sh: FAILED: $*" >&2
    exit 1
}
step_failed() { # this step failed; the others still run
    echo "" >&2
    echo "tests/sanitize.sh: FAILED: $*" >&2
    failed+=("$*")
}
elapsed() { echo $(($(date +%s) - $1)); }

configure_build() { # DIR CMAKE_ARGS...
    local dir=$1
    shift
    cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOVTRACE_WERROR=ON "$@" >"$dir/sanitize-configure.log" 2>&1 \
        || { cat "$dir/sanitize-configure.log" >&2; step_failed "configure of $dir ($*)"; return 1; }
    cmake --build "$dir" -j"$jobs" >"$dir/sanitize-build.log" 2>&1 \
        || { grep -E 'error|Error' "$dir/sanitize-build.log" | head -40 >&2; step_failed "build of $dir ($*); log: $dir/sanitize-build.log"; return 1; }
}

# Sanitizer reports make the process fail (and print why); leaks are errors too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

for step in $steps; do
    t0=$(date +%s)
    case $step in
    debug)
        echo "== sanitize.sh: Debug build (-O0, -Werror), build only (build-debug/)"
        mkdir -p "$root/build-debug"
        configure_build "$root/build-debug" -DCMAKE_BUILD_TYPE=Debug || continue
        ;;
    asan)
        echo "== sanitize.sh: ASan+UBSan build, whole test suite (build-asan/)"
        # the tmux-driven tests (tests/lib/tmux.sh) wait 3x longer for the slower binaries
        export OVTRACE_TEST_TIMEOUT_SCALE=${OVTRACE_TEST_TIMEOUT_SCALE:-3}
        mkdir -p "$root/build-asan"
        configure_build "$root/build-asan" -DOVTRACE_SANITIZE=ON || continue
        ctest --test-dir "$root/build-asan" --output-on-failure -j"$jobs" --timeout 900 \
            || { step_failed "ctest under ASan+UBSan (build-asan/); rerun one: ctest --test-dir build-asan -R NAME -V"; continue; }
        ;;
    tsan)
        echo "== sanitize.sh: TSan build, ring tests and parallel loading (build-tsan/)"
        mkdir -p "$root/build-tsan"
        configure_build "$root/build-tsan" -DOVTRACE_TSAN=ON || continue
        # TSan needs a non-randomised layout on some kernels (mmap ranges it cannot use)
        run=()
        if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
            run=(setarch "$(uname -m)" -R)
        fi
        "${run[@]}" ctest --test-dir "$root/build-tsan" -L 'ring|threads' --output-on-failure -j"$jobs" --timeout 600 \
            || { step_failed "ctest -L 'ring|threads' under TSan (build-tsan/)"; continue; }
        ;;
    fuzz)
        if ! command -v clang >/dev/null; then
            echo "== sanitize.sh: clang not found: fuzz session skipped"
            summary+=("fuzz: skipped (no clang)")
            continue
        fi
        if [ -n "$fuzz_secs" ]; then
            echo "== sanitize.sh: time-boxed fuzz session, ${fuzz_secs}s per target (build-fuzz/)"
            "$root/fuzz/run.sh" "$fuzz_secs" || { step_failed "fuzz session (inputs in build-fuzz/artifacts/)"; continue; }
        else
            echo "== sanitize.sh: deterministic fuzz session, fixed -seed and -runs per target (build-fuzz/)"
            "$root/fuzz/run.sh" --ci \
                || { step_failed "deterministic fuzz session: reproducers in build-fuzz/ci-artifacts/ (printed above)"; continue; }
        fi
        ;;
    *) die "unknown step '$step' (debug, asan, tsan, fuzz)" ;;
    esac
    summary+=("$step: ok in $(elapsed "$t0")s")
done
for s in "${summary[@]}"; do echo "   $s"; done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "tests/sanitize.sh: FAILED after $(elapsed "$t_start")s:" >&2
    for f in "${failed[@]}"; do echo "   $f" >&2; done
    exit 1
fi
echo "== sanitize.sh: all passed in $(elapsed "$t_start")s"
