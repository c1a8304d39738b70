#!/usr/bin/env bash
# Live store bounds ("Bounds"): a producer at 5M events/s for 60 s into the
# ring -> drain -> LiveStore pipeline (bench/live_bench, retention 2 s). The store
# stays within its retention (its memory plateaus: RSS in the last third of the run is
# not above the middle third's peak + 15% + 64 MB), and drops are counted exactly:
# produced = ingested + ring drops.
#   live_bounds.sh LIVE_BENCH [SECONDS]
set -u
bench=$1
[ -x "$bench" ] || { echo "$bench not built: skipped"; exit 77; }
secs=${2:-${OVTRACE_BOUNDS_SECONDS:-60}}
tmp=$(mktemp -d /tmp/ovtrace-bounds-XXXXXX)
trap 'kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
"$bench" --rate 5000000 --seconds "$secs" --retention 2 >"$tmp/out" 2>&1 &
pid=$!
: >"$tmp/rss"
t=0
while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    [ -n "$rss" ] && echo "$t $rss" >>"$tmp/rss"
    sleep 1
    t=$((t + 1))
done
wait "$pid"
cat "$tmp/out"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
produced=$(awk '/^ *produced/ {print $2}' "$tmp/out")
drops=$(awk '/^ *ring drops/ {print $3}' "$tmp/out")
ingested=$(awk '/^ *ingested/ {print $3}' "$tmp/out")
[ -n "$produced" ] && [ -n "$drops" ] && [ -n "$ingested" ] || { echo "FAIL: live_bench output not understood"; exit 1; }
[ "$produced" -eq $((ingested + drops)) ] || fail "produced $produced != ingested $ingested + drops $drops"
read -r mid last peak < <(awk -v n="$secs" '
    $1 >= n/3 && $1 < 2*n/3 { if ($2 > mid) mid = $2 }
    $1 >= 2*n/3 { if ($2 > last) last = $2 }
    { if ($2 > peak) peak = $2 }
    END { print mid + 0, last + 0, peak + 0 }' "$tmp/rss")
echo "RSS: peak of the middle third ${mid} KB, of the last third ${last} KB, overall ${peak} KB"
[ "$mid" -gt 0 ] || fail "no RSS samples"
[ "$last" -le $((mid * 115 / 100 + 65536)) ] || fail "RSS still growing: ${mid} KB -> ${last} KB"
echo "live_bounds.sh: produced $produced = ingested $ingested + drops $drops; $fails failures"
[ "$fails" -eq 0 ]
