#!/usr/bin/env bash
# The viewer on simulated ranks, in tmux: four ranks (record --simulate --ranks 4), the wait part of
# a combine drawn with its own glyph, the details of the collective on every rank, and
# x jumping to the rank that arrived last.  usage: collectives.sh OVTRACE   (77 = skipped)
set -u
BIN=$1
W=140 H=44
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init collectives

"$BIN" record --simulate --ranks 4 --mode serial --jitter 0 --imbalance 1 --steps 1 --layers 2 \
    -o "$TMP/s.json" 2>"$TMP/rec" || fail "record: $(cat "$TMP/rec")"
hot=$(sed -n 's/.*: rank \([0-9]*\) has the most expert load.*/\1/p' "$TMP/rec")
[ -n "$hot" ] || fail "record did not name the most loaded rank: $(cat "$TMP/rec")"
tmux_run $W $H "$BIN" view "$TMP"/s.rank{0,1,2,3}.json
wait_for_text "band:" 60 || fail "viewer did not draw"
# the bottom legend names the wait glyph (ranks waited here), on its last line but one
expect '[ "$(tail -n 2 "$TMP/screen" | head -n 1 | grep -o "band: .*▚ coll wait" | wc -l)" -eq 1 ]' \
    "the legend does not name the wait glyph"
# the first combine, fitted: part of it is wait (▚) on every rank but the last to arrive
keys / c o m b i n e Enter
expect 'grep -q "collective #" "$TMP/screen"' "details of a collective not shown"
keys f
expect 'grep -q "▚" "$TMP/screen"' "no wait glyph in the timeline"
expect 'grep -Eq "^ +[0-9]+ +$hot .*  last" "$TMP/screen"' "the most loaded rank ($hot) is not listed as the last arrival"
# x: the same instance on the rank that arrived last
keys x
expect "grep -q \"rank $hot arrived last (others waited up to\" \"\$TMP/screen\"" "x did not jump to rank $hot"
expect "grep -q \"lane     rank $hot GPU\" \"\$TMP/screen\"" "the selection is not on rank $hot"
# the help lists the keys
keys '?'
expect 'grep -q "the same instance on the rank that arrived last" "$TMP/screen"' "help does not list x"
keys q q
# rank overview: 8 ranks open in it (one line per rank), Enter expands a rank, O goes back
"$BIN" record --simulate --ranks 8 --imbalance 1 --steps 1 --layers 2 -o "$TMP/e.json" 2>"$TMP/rec8" \
    || fail "record 8: $(cat "$TMP/rec8")"
tmux_run $W $H "$BIN" view "$TMP"/e.rank*.json
wait_for_text "band:" 60 || fail "viewer did not draw (8 ranks)"
expect 'grep "band:" "$TMP/screen" | grep -q "▚ coll wait"' "the overview's legend does not name the wait glyph"
expect '[ "$(grep -Ec "^[> ] r[0-7] [0-9.]+(us|ms|s) L[0-9]+ " "$TMP/screen")" -eq 8 ]' "the overview does not show one line per rank"
expect '! grep -q "stream" "$TMP/screen"' "the overview shows lanes"
keys j j Enter
expect 'grep -q "rank 2 expanded" "$TMP/screen"' "Enter did not expand rank 2"
expect 'grep -q "▼ rank 2 GPU 2" "$TMP/screen"' "rank 2 is not unfolded"
keys O
expect '[ "$(grep -Ec "^[> ] r[0-7] " "$TMP/screen")" -eq 8 ]' "O did not return to the overview"
keys q q
echo "ok: collectives in the viewer"
