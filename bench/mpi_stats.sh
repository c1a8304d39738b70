#!/usr/bin/env bash
# Throughput of `ovtrace stats` over a directory of rank files: one process without
# mpirun, then `mpirun -np P` for each P given (default 1 2), REPS rounds interleaved
# (default 2), the snapshot cache off: wall time from exec to exit, CPU time (user + sys
# of every process, which another job's load does not inflate as it does the wall time)
# and the largest process's peak RSS (/usr/bin/time); checks that every run printed the
# same bytes. usage: bench/mpi_stats.sh OVTRACE DIR [REPS] [P...]
# mpirun runs with --bind-to none: OpenMPI binds each process to one core by default
# (np <= 2), which would put the loader's threads on one core. (extra stats options in $STATS_OPTS, e.g. "--threads 1"; as root mpirun gets
# --allow-run-as-root).
set -u
BIN=$(readlink -f "$1"); DIR=$(readlink -f "$2"); REPS=${3:-2}; shift 3 2>/dev/null || shift $#
PS=("$@"); [ ${#PS[@]} = 0 ] && PS=(1 2)
MPI=(mpirun --oversubscribe --bind-to none); [ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
bytes=$(du -sb "$DIR" | cut -f1)
files=$(ls "$DIR" | wc -l)
run() { # label, command...
    local label=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$TMP/time" "$@" stats --no-cache --json ${STATS_OPTS:-} "$DIR" >"$TMP/out" 2>"$TMP/err" ||
        { echo "$label failed"; cat "$TMP/err"; }
    if [ -f "$TMP/ref" ]; then cmp -s "$TMP/ref" "$TMP/out" || echo "$label: OUTPUT DIFFERS"; else cp "$TMP/out" "$TMP/ref"; fi
    read -r wall user sys rss <"$TMP/time"
    awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v n="$bytes" -v la="$(cut -d' ' -f1 /proc/loadavg)" \
        'BEGIN { printf "| %s | %.2f s | %.0f MB/s | %.2f s | %.0f MB/s | %d MB | %s |\n", l, w, n / 1e6 / w, u + s, n / 1e6 / (u + s), r / 1024, la }'
}
echo "$DIR: $files files, $((bytes / 1000000)) MB; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | wall | JSON / wall | CPU | JSON / CPU s | largest RSS | load after |"
echo "|---|---|---|---|---|---|---|"
for r in $(seq "$REPS"); do
    run "one process (no mpirun)" "$BIN"
    for p in "${PS[@]}"; do run "mpirun -np $p" "${MPI[@]}" -np "$p" "$BIN"; done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
