#!/usr/bin/env bash
# Trace_finish's "groups" step (groups, lane order, lane labels) for one or more builds
# side by side: `stats --no-cache --debug-finish-timing FILE` run RUNS times per build,
# interleaved; prints each run's groups step and the whole finish, in seconds.
# usage: bench/finish_groups.sh FILE RUNS BIN...
set -u
FILE=$1 RUNS=$2
shift 2
for ((r = 1; r <= RUNS; r++)); do
  for bin in "$@"; do
    "$bin" stats --no-cache --debug-finish-timing "$FILE" 2>&1 >/dev/null |
      awk -v b="$bin" -v f="$(basename "$FILE")" '
        $1 == "finish:" && $2 == "groups" { g = $3 }
        $1 == "finish:" && $2 !~ /^ / && $3 ~ /^[0-9.]+$/ && $2 != "start" { if ($0 !~ /finish:   /) tot += $3 }
        END { printf "%-16s %-40s groups %.3f s   finish %.3f s\n", f, b, g, tot }'
  done
done
