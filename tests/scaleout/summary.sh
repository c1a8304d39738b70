#!/bin/bash
# stats --summary and view of a summary: the summary of an 8-rank run opens in the rank
# overview with each rank's label (exposed comm, times it arrived last) as the run's own
# overview shows it, and its wait marks where the run's overview has them; a summary of
# the previous format (1) still opens; under
# mpirun (when built) the summary is byte for byte the one-process one; a generated
# summary of 4,096 ranks (no traces) opens in the overview, its last rank reachable; Enter
# on a rank opens that rank's real trace; a summary is written atomically (no temporary
# file left, an existing file's mode kept).
# usage: summary.sh OVTRACE MPIEXEC TESTDATA
set -u
B=$1 MPIEXEC=$2 DATA=$3
HERE=$(dirname "$0")
T=$(mktemp -d)
# an ASan build (tests/sanitize.sh): the MPI runtime's own allocations are not ours
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp"
trap 'rm -rf "$T"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
mkdir "$T/sim8"
"$B" record --simulate --ranks 8 --steps 2 --seed 7 -o "$T/sim8/r.json" >/dev/null 2>&1 || { echo "FAIL: record"; exit 1; }

# one process: written, and the overview of the summary labels ranks as the run's does
touch "$T/s.json" && chmod 640 "$T/s.json"
"$B" stats --summary "$T/s.json" "$T/sim8" >/dev/null || say "stats --summary failed"
[ "$(stat -c %a "$T/s.json")" = 640 ] || say "the summary did not keep the file's mode"
ls -a "$T" | grep -q '\.tmp-' && say "a temporary file was left"
head -c 40 "$T/s.json" | grep -q '"ovtrace_summary": 2' || say "no format marker"
labels() { grep -oE '^[> ] r[0-9]+ [0-9.]+[mu]?s L[0-9-]+' | sed 's/^..//'; }
for size in 80x24 200x50; do
    "$B" view --dump --size $size "$T/sim8" | labels >"$T/run.lab"
    "$B" view --dump --size $size "$T/s.json" | labels >"$T/sum.lab"
    [ "$(wc -l <"$T/sum.lab")" = 8 ] || say "$size: the summary's overview does not show 8 ranks"
    cmp -s "$T/run.lab" "$T/sum.lab" || { say "$size: labels differ from the run's overview"; diff "$T/run.lab" "$T/sum.lab"; }
    # the run has stragglers: a summary that lost the arrivals would read L0 everywhere
    grep -qE ' L[1-9]' "$T/sum.lab" || say "$size: no rank of the summary arrived last"
done

# Wait glyphs: a run with stragglers (--imbalance) marks the columns where a rank waits
# for the others; its summary's overview marks the same columns from the waits it stores.
# The summary's band is drawn back from 256 columns, so a cell may differ where a column
# boundary falls: at most 1 cell in 100, and nearly as many marks as the run's.
mkdir "$T/im8"
"$B" record --simulate --ranks 8 --steps 2 --seed 7 --imbalance 1 -o "$T/im8/r.json" >/dev/null 2>&1 || say "record --imbalance"
"$B" stats --summary "$T/si.json" "$T/im8" >/dev/null || say "stats --summary of the imbalanced run"
bands() { sed -n '/^[> ] r[0-9]/s/^[^│]*│//p'; }
for size in 120x30 200x40; do
    "$B" view --dump --size $size "$T/im8" | bands >"$T/run.band"
    "$B" view --dump --size $size "$T/si.json" >"$T/sum.out"
    bands <"$T/sum.out" >"$T/sum.band"
    grep -q "coll wait" "$T/sum.out" || say "$size: the summary's legend does not name the wait mark"
    python3 - "$T/run.band" "$T/sum.band" "$size" <<'PY' || fail=1
import sys
run, summ = (open(f, encoding="utf-8").read().splitlines() for f in sys.argv[1:3])
mark = "\u259a"
n_run = sum(l.count(mark) for l in run)
n_sum = sum(l.count(mark) for l in summ)
cells = sum(len(l) for l in run)
diff = sum(a != b for x, y in zip(run, summ) for a, b in zip(x, y))
ok = len(run) == len(summ) == 8 and n_run > 50 and n_sum >= 0.9 * n_run and diff * 100 <= cells
if not ok:
    print(f"FAIL: {sys.argv[3]}: wait marks run {n_run}, summary {n_sum}, cells differing {diff} of {cells}")
sys.exit(0 if ok else 1)
PY
done

# Enter on rank 2: its trace replaces the summary (lanes of a GPU group appear)
"$B" view --dump --size 120x30 --keys 'jj<Enter>' --frames 200 "$T/s.json" >"$T/enter.out"
grep -q "GPU 2 " "$T/enter.out" || { say "Enter on rank 2 did not open its trace"; head -8 "$T/enter.out"; }

# MPI: the same summary from 3 processes
if [ -n "$MPIEXEC" ] && [ -x "$MPIEXEC" ]; then
    # Under ASan the mpirun'ed processes check no leaks: OpenMPI's components are
    # dlclose()d at MPI_Finalize, so what they keep shows as "<unknown module>", beyond any
    # suppression; the one-process runs beside them keep the leak check.
    MPI=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$MPIEXEC" --oversubscribe)
    [ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
    timeout 120 "${MPI[@]}" -np 3 "$B" stats --summary "$T/s3.json" "$T/sim8" >/dev/null 2>&1 || say "mpirun stats --summary"
    cmp -s "$T/s.json" "$T/s3.json" || say "the 3-process summary differs from the one-process one"
else
    echo "note: built without MPI, the mpirun case is left out"
fi

# 4,096 ranks: the overview opens at once, the last rank's line is there (End)
python3 "$HERE/gen_summary.py" "$T/big.json" 4096 "$DATA/moe-ep/rank0.json"
start=$(date +%s.%N)
"$B" view --dump --size 120x40 "$T/big.json" >"$T/big.out" || say "view of 4,096 ranks failed"
"$B" view --dump --size 120x40 --keys 'G' "$T/big.json" >"$T/big_end.out"
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
grep -q "^> r0 " "$T/big.out" || { say "4,096 ranks: the overview does not start at r0"; head -5 "$T/big.out"; }
grep -q "r4095 " "$T/big_end.out" || { say "4,096 ranks: r4095 not reachable"; tail -12 "$T/big_end.out"; }
# gen_summary.py writes format 1, which holds no arrivals: the labels say so (L-), not L0
grep -qE "^> r0 [0-9.]+[mu]?s L- " "$T/big.out" || { say "format 1: r0's label is not 'L-'"; head -5 "$T/big.out"; }
echo "4,096-rank summary: two opens in ${secs} s"
# Enter on rank 0: its path is a real trace (the MoE pair's rank 0)
"$B" view --dump --size 120x40 --keys '<Enter>' --frames 400 "$T/big.json" >"$T/big_enter.out"
grep -qE "rank 0 .*loading|GPU 0 " "$T/big_enter.out" || { say "Enter on r0 of 4,096 did not load its trace"; head -6 "$T/big_enter.out"; }
[ $fail = 0 ] && echo PASS
exit $fail
