#!/usr/bin/env bash
# four simulated ranks (record --simulate --ranks 4), the wait part of
# a combine drawn with its own glyph, the details of the collective on every rank, and
# x jumping to the rank that arrived last.  usage: e2e_coll.sh OVTRACE   (77 = skipped)
set -u
BIN=$1
command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }
TMP=$(mktemp -d)
SOCK="ovt-e2e-coll-$$"
W=140 H=44
. "$(dirname "$0")/../lib/tmux.sh"
cleanup() { tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$TMP/screen" ] && cat "$TMP/screen"; exit 1; }
expect() { wait_until "$1" || fail "$2"; }
keys() { tmux -L "$SOCK" send-keys "$@"; }

"$BIN" record --simulate --ranks 4 --mode serial --jitter 0 --imbalance 1 --steps 1 --layers 2 \
    -o "$TMP/s.json" 2>"$TMP/rec" || fail "record: $(cat "$TMP/rec")"
hot=$(sed -n 's/.*: rank \([0-9]*\) has the most expert load.*/\1/p' "$TMP/rec")
[ -n "$hot" ] || fail "record did not name the most loaded rank: $(cat "$TMP/rec")"
tmux -L "$SOCK" -f /dev/null new-session -d -x $W -y $H \
    "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 $BIN view $TMP/s.rank0.json $TMP/s.rank1.json $TMP/s.rank2.json $TMP/s.rank3.json; sleep 600" \
    || fail "tmux did not start"
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
tmux -L "$SOCK" kill-server 2>/dev/null
SOCK="$SOCK-2"
tmux -L "$SOCK" -f /dev/null new-session -d -x $W -y $H \
    "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 $BIN view $TMP/e.rank*.json; sleep 600" || fail "tmux did not start"
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
