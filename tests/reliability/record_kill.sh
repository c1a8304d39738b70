#!/usr/bin/env bash
# A fast `record` killed with -9 in its first second. The file is renamed into place at
# the start (complete, no events yet), the drain thread writes the first few thousand
# events as soon as it has them, and a checkpoint drops the previous trailer only once
# its first frame (small while the file holds no event) is compressed: a first
# checkpoint that holds a whole second of events at a high rate would take seconds, and
# a kill -9 inside it would leave only the temporary file. Whatever the rate, a kill from ~0.5 s on
# (0.5, 1 and 1.5 s: before and inside the first full checkpoint) leaves OUT, which
# `stats` loads (truncated inside a later checkpoint: with a warning), holding events,
# and no temporary file.
#   record_kill.sh OVTRACE_BIN
set -u
bin=$1
"$bin" record --help 2>&1 | grep -q -- --simulate || { echo "no 'record --simulate' in this build: skipped"; exit 77; }
tmp=$(mktemp -d /tmp/ovtrace-reckill-XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
fails=0
T=${OVTRACE_TEST_TIMEOUT:-60}
scale=${OVTRACE_TEST_TIMEOUT_SCALE:-1} # 3 under ASan (tests/sanitize.sh): slower binaries
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

for speed in 1000 100; do
    for after in 1.5 1.0 0.5; do
        for ext in json json.gz json.zst; do
            d="$tmp/s$speed-$after-$ext"
            mkdir -p "$d"
            "$bin" record -o "$d/rec.$ext" --simulate --speed "$speed" >/dev/null 2>"$d/err" &
            pid=$!
            pids+=("$pid")
            sleep "$(awk -v a="$after" -v s="$scale" 'BEGIN { printf "%.2f", a * s }')"
            kill -9 "$pid"
            wait "$pid" 2>/dev/null
            what="record --speed $speed -o rec.$ext, kill -9 after ${after}s"
            left=$(cd "$d" && ls -A | grep -v -e '^err$' | tr '\n' ' ')
            if [ ! -e "$d/rec.$ext" ]; then
                fail "$what: no rec.$ext (left: $left)"
                continue
            fi
            [ "$left" = "rec.$ext " ] || fail "$what: files left beside it: $left"
            timeout -k 5 "$T" "$bin" stats "$d/rec.$ext" >"$d/stats" 2>&1 ||
                { fail "$what: stats does not load it: $(head -3 "$d/stats")"; continue; }
            ev=$(sed -n 's/^\([0-9][0-9]*\) events,.*/\1/p' "$d/stats")
            [ "${ev:-0}" -gt 0 ] || fail "$what: no events: $(head -3 "$d/stats")"
            state=complete
            grep -q truncated "$d/stats" && state="truncated inside a checkpoint"
            echo "$what: loads, $ev events ($state)"
        done
    done
done

echo "record_kill.sh: $fails failures"
[ "$fails" -eq 0 ]
