#!/bin/bash
# `mpirun -np P ovtrace stats` prints byte for byte what one process prints, for P = 1..4
# (more processes than files included), text and JSON, on the two-rank MoE pair, an
# 8-rank simulated run, two serving recordings, two recordings on a GPU, a mixed set (counters, NCCL args with Seq and groups, legacy,
# gzip and zstd), with --range, --rank, --device and --top; and a rank file that does not
# parse fails the run with the file named (no hang). Skips (77) without an MPI build.
# usage: stats.sh OVTRACE MPIEXEC TESTDATA SAMPLES [DEEPSEEK]
set -u
B=$1 MPIEXEC=$2 DATA=$3 SAMPLES=$4 DS=${5:-}
if [ -z "$MPIEXEC" ] || [ ! -x "$MPIEXEC" ]; then echo "SKIP: built without MPI"; exit 77; fi
T=$(mktemp -d)
# an ASan build (tests/sanitize.sh): the MPI runtime's own allocations are not ours
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp"
trap 'rm -rf "$T"' EXIT
# Under ASan the mpirun'ed processes check no leaks: OpenMPI's components are dlclose()d
# at MPI_Finalize, so what they keep shows as "<unknown module>", beyond any suppression;
# the one-process runs beside them keep the leak check.
MPI=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$MPIEXEC" --oversubscribe)
[ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
fail=0
mkdir "$T/sim8"
"$B" record --simulate --ranks 8 --steps 2 --seed 7 -o "$T/sim8/r.json" >/dev/null 2>&1 || { echo "FAIL: record"; exit 1; }

# same ARGS... for P in $PS: the one-process output and status, byte for byte
same() {
    "$B" stats "$@" >"$T/one.out" 2>"$T/one.err"
    local rc1=$? p
    for p in $PS; do
        timeout 120 "${MPI[@]}" -np "$p" "$B" stats "$@" >"$T/mpi.out" 2>"$T/mpi.err"
        local rc=$?
        if [ "$rc" != "$rc1" ] || ! cmp -s "$T/one.out" "$T/mpi.out"; then
            echo "FAIL: -np $p stats $* (status $rc, one process $rc1)"
            diff "$T/one.out" "$T/mpi.out" | head -20
            head -5 "$T/mpi.err"
            fail=1
        fi
    done
}

MIXED=("$DATA/kineto-2node.json" "$DATA/kineto-memory.json" "$DATA/kineto-nccl-args.json" "$DATA/legacy-2021.json"
       "$SAMPLES/demo-moe.json.gz" "$SAMPLES/sim-decode.json.zst" "$SAMPLES/sim-prefill.json.zst")
PS="1 2 3 4"
for j in "" --json; do
    same $j "$DATA/moe-ep"
    same $j "$T/sim8"
done
PS="2 3"
same "${MIXED[@]}"
same --json "${MIXED[@]}"
same --json --rank 1 "${MIXED[@]}"
same --top 0 --device 0 "${MIXED[@]}"
same --range 1ms: "$T/sim8"
same --json --range :2ms "$T/sim8"
same --range 1h: "$T/sim8"      # outside the trace: status 2 on every process, said once
# DeepSeek's real trace (when present) beside the MoE pair: two sources claim rank 0
if [ -n "$DS" ] && [ -f "$DS" ]; then same "$DS" "$DATA/moe-ep"; same --json "$DS" "$DATA/moe-ep"; fi
# serving figures from two recordings: latencies and [serve] samples of both processes
mkdir "$T/serve"
"$B" record -o "$T/serve/a.json" --duration 100ms --simulate --mode serve >/dev/null 2>&1 &&
    "$B" record -o "$T/serve/b.json" --duration 100ms --simulate --mode serve --seed 3 >/dev/null 2>&1 ||
    { echo "FAIL: record --mode serve"; fail=1; }
same "$T/serve"
same --json --range 20ms: "$T/serve"
# recordings on a real GPU: the hardware each file names travels with its figures
HW=("$SAMPLES/h200-prefill.json.zst" "$SAMPLES/h200-decode.json.zst")
same "${HW[@]}"
grep -q "recorded on NVIDIA H200 (132 SMs" "$T/one.out" || { echo "FAIL: no hardware line"; fail=1; }
same --json "${HW[@]}"
[ "$(grep -c '"hardware": "NVIDIA H200' "$T/one.out")" = 2 ] || { echo "FAIL: no hardware in the JSON"; fail=1; }

# a rank file that does not parse: status 1, its name in the error, well before the timeout
mkdir "$T/bad"
cp "$T"/sim8/*.json "$T/bad/"
printf '{"traceEvents": [{"ph": "X", "name": ' >"$T/bad/r.rank5.json"
for p in 1 3; do
    timeout 60 "${MPI[@]}" -np "$p" "$B" stats "$T/bad" >"$T/bad.out" 2>"$T/bad.err"
    rc=$?
    if [ "$rc" = 124 ]; then echo "FAIL: -np $p: hung on a bad rank file"; fail=1
    elif [ "$rc" = 0 ]; then echo "FAIL: -np $p: a bad rank file gave status 0"; fail=1
    elif ! grep -q "ovtrace: error: .*r.rank5.json" "$T/bad.err"; then
        echo "FAIL: -np $p: the error does not name the file"; cat "$T/bad.err"; fail=1
    elif [ -s "$T/bad.out" ]; then echo "FAIL: -np $p: printed figures despite the error"; fail=1
    fi
done
[ $fail = 0 ] && echo "PASS"
exit $fail
