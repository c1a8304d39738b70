#!/usr/bin/env bash
# The lazy rank overview in tmux: a directory of 8 rank files (the shipped moe-ep ranks, copied
# with ranks 0-7) opens in the lazy rank overview: one row per rank marked '*' while the
# CPU lanes load (held back by view --debug-lazy-delay-ms), Enter expands a rank with its
# GPU lanes and says the CPU lanes are loading, then they appear without a key press;
# the details panel says "loading" instead of "none" for a kernel's launch partner.
# usage: lazy_overview.sh OVTRACE DATA_DIR   (77 = skipped)
set -u
BIN=$1 DATA=$2
W=150 H=44
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init lazy_overview

mkdir "$TMP/ranks"
for r in 0 1 2 3 4 5 6 7; do
    sed "s/\"rank\": [01], \"world_size\": 2/\"rank\": $r, \"world_size\": 8/" "$DATA/moe-ep/rank$((r % 2)).json" \
        >"$TMP/ranks/rank$r.json"
    grep -q "\"rank\": $r," "$TMP/ranks/rank$r.json" || fail "could not make rank $r"
done
delay=$(scaled 10)000
tmux_run $W $H "$BIN" view --lazy on --debug-lazy-delay-ms "$delay" "$TMP/ranks"
wait_for_text "band:" 60 || fail "viewer did not draw"
expect '[ "$(grep -Ec "^[> ] r[0-7] [0-9.]+(us|ms|s) L[0-9]+ \*" "$TMP/screen")" -eq 8 ]' \
    "the lazy overview does not show 8 rank rows marked as loading"
expect 'grep -q "CPU lanes loading [0-9]*%" "$TMP/screen"' "the title does not say the CPU lanes are loading"
keys j Enter
expect 'grep -q "rank 1 expanded: GPU lanes; CPU lanes loading" "$TMP/screen"' "Enter did not expand rank 1 (loading)"
expect 'grep -q "stream 7" "$TMP/screen"' "rank 1's GPU lanes are not shown"
grep -q "rank 1 CPU" "$TMP/screen" && fail "CPU lanes shown before the full load"
# a kernel's launch partner is a CPU runtime call: "loading", not "none"
keys j j .
expect 'grep -Eq "partner +loading" "$TMP/screen"' "the details do not say the launch partner is loading"
# the full model arrives by itself: rank 1's CPU lanes appear, unfolded
expect 'grep -q "all events loaded: rank 1" "$TMP/screen"' "the full model did not arrive" 
expect 'grep -q "▼ rank 1 CPU pid" "$TMP/screen"' "rank 1's CPU lanes did not appear"
expect 'grep -q "thread 2201" "$TMP/screen"' "rank 1's CPU threads are not shown"
grep -q "CPU lanes loading" "$TMP/screen" && fail "the title still says loading"
keys O
expect '[ "$(grep -Ec "^[> ] r[0-7] [0-9.]+(us|ms|s) L[0-9]+ *$|^[> ] r[0-7] [0-9.]+(us|ms|s) L[0-9]+ +│" "$TMP/screen")" -eq 8 ]' \
    "O did not return to the overview without the loading marks"
keys q q
# the first pass never validates CPU events: the full load's warnings are shown at the swap
python3 - "$TMP/ranks/rank3.json" <<'PY' || fail "could not plant a bad CPU event"
import sys
p = sys.argv[1]
s = open(p).read()
i = s.index('"cat": "cpu_op"')
j = s.index('"ts": ', i)
k = s.index(',', j)
open(p, 'w').write(s[:j] + '"ts": "soon"' + s[k:])
PY
tmux_run $W $H "$BIN" view --lazy=on "$TMP/ranks"
expect 'grep -q "all events loaded; warning: skipped 1 event with bad values; first in .*rank3.json" "$TMP/screen"' \
    "the full load's warning is not shown after the swap"
keys q q
echo "ok: lazy rank overview"
