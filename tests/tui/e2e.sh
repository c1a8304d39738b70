#!/usr/bin/env bash
# End-to-end tests of `ovtrace view` in tmux at a fixed size.
# usage: e2e.sh CASE OVTRACE DEEPSEEK_TRACE SAMPLES_DIR     (exit 77 = skipped)
set -u
CASE=$1 BIN=$2 DS=$3 SAMPLES=$4
DEMO=$SAMPLES/demo-moe.json.gz
TMP=$(mktemp -d)
SOCK="ovt-e2e-$CASE-$$"
W=120 H=40
cleanup() { tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
fail() { echo "FAIL ($CASE): $*"; [ -f "$TMP/screen" ] && cat "$TMP/screen"; exit 1; }

need_tmux() { command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }; }
need_ds() { [ -f "$DS" ] || { echo "$DS missing: skipped"; exit 77; }; }

# start FILE: runs the viewer in a fresh tmux server; afterwards the pane records
# the exit status and the terminal settings.
start() {
  tmux -L "$SOCK" -f /dev/null new-session -d -x $W -y $H \
    "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 sh -c 'echo \$\$ > $TMP/pid; exec \"$BIN\" view \"$1\"'; echo \$? > $TMP/rc; stty -a > $TMP/stty 2>&1; sleep 60" \
    || fail "tmux did not start"
  wait_for "band:" || fail "viewer did not draw its legend"
}
screen() { tmux -L "$SOCK" capture-pane -p > "$TMP/screen"; cat "$TMP/screen"; }
wait_for() { # TEXT [tries]
  for _ in $(seq 1 ${2:-50}); do
    screen | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  return 1
}
keys() { tmux -L "$SOCK" send-keys "$@"; sleep 0.3; }
line_of() { grep -F -- "$1" "$TMP/screen" | head -1; }

case $CASE in
open)
  need_tmux; need_ds; start "$DS"
  screen > /dev/null
  for s in "stream 7" "stream 23" "stream 27"; do line_of "$s" | grep -q . || fail "no lane '$s'"; done
  line_of "GPU 0" | grep -q "ratio 0.9632" || fail "device header without the overlap ratio"
  grep -E "^ +overlap +│" "$TMP/screen" | grep -q "█" || fail "no overlap band"
  line_of "band:" | grep -q "comm exposed" || fail "no legend"
  line_of "?:help" | grep -q "q:quit" || fail "no status bar"
  ;;
search)
  need_tmux; need_ds; start "$DS"
  keys / c o m b i n e Enter
  wait_for "matches" || fail "search did not report matches"
  line_of " name " | grep -q "dpsk::ep::internode::combine" || fail "selection is not a combine kernel"
  line_of " duration " | grep -Eq "[0-9]+\.[0-9]+(us|ms)" || fail "no duration in the details"
  line_of " lane " | grep -q "GPU 0 stream" || fail "the match is not a GPU kernel"
  ;;
zoom)
  need_tmux; need_ds; start "$DS"
  screen > /dev/null; before=$(sed -n 2p "$TMP/screen")
  keys + + +
  wait_for "zoom 8.0x" || fail "zoom level not shown"
  after=$(sed -n 2p "$TMP/screen")
  [ "$before" != "$after" ] || fail "the ruler did not change"
  keys 0; wait_for "zoom 1.0x" || fail "0 did not fit all"
  ;;
launch)
  need_tmux; need_ds; start "$DS"
  keys / c o m b i n e Enter
  wait_for "matches" || fail "search failed"
  keys c
  wait_for "launched by" || fail "c did not jump"
  line_of " name " | grep -q "cudaLaunch" || fail "not on a runtime launch call"
  line_of " lane " | grep -q "CPU pid" || fail "not on a CPU lane"
  keys c
  wait_for "launches" || fail "c did not jump back"
  line_of " name " | grep -q "combine" || fail "did not come back to the kernel"
  ;;
range)
  need_tmux; need_ds; start "$DS"
  keys / c o m b i n e Enter; wait_for "matches" || fail "search failed"
  keys "["; keys n; keys n; keys n; keys "]"
  wait_for "ovtrace stats --range" || fail "no range panel"
  arg=$(grep -o "stats --range [0-9]*ns:[0-9]*ns" "$TMP/screen" | head -1 | awk '{print $3}')
  [ -n "$arg" ] || fail "range argument not shown"
  hdr=$(grep -n " window " "$TMP/screen" | tail -1 | cut -d: -f1)
  tui=$(sed -n "$((hdr + 1))p" "$TMP/screen" | awk '{print $2,$3,$4,$5,$6,$7,$8,$9,$10}')
  cli=$("$BIN" stats -q --range "$arg" "$DS" | awk '$1=="0" && $2=="0" {print $3,$4,$5,$6,$7,$8,$9,$10,$11; exit}')
  echo "range $arg: tui [$tui] stats [$cli]"
  [ -n "$cli" ] && [ "$tui" = "$cli" ] || fail "range figures differ: tui [$tui] stats [$cli]"
  ;;
quit)
  need_tmux; need_ds; start "$DS"
  keys q
  for _ in $(seq 1 50); do [ -s "$TMP/stty" ] && break; sleep 0.1; done
  [ "$(cat "$TMP/rc" 2>/dev/null)" = 0 ] || fail "exit status $(cat "$TMP/rc" 2>/dev/null)"
  grep -Eq '(^| )icanon( |$)' "$TMP/stty" && grep -Eq '(^| )echo( |$)' "$TMP/stty" || fail "terminal not restored: $(cat "$TMP/stty")"
  # a termination signal also restores the terminal
  tmux -L "$SOCK" kill-server; rm -f "$TMP/rc" "$TMP/stty"
  start "$DS"
  kill -TERM "$(cat "$TMP/pid")"
  for _ in $(seq 1 50); do [ -s "$TMP/stty" ] && break; sleep 0.1; done
  [ "$(cat "$TMP/rc" 2>/dev/null)" = 143 ] || fail "SIGTERM exit status $(cat "$TMP/rc" 2>/dev/null)"
  grep -Eq '(^| )icanon( |$)' "$TMP/stty" && grep -Eq '(^| )echo( |$)' "$TMP/stty" || fail "terminal not restored after SIGTERM"
  ;;
headless)
  [ -f "$DEMO" ] || { echo "$DEMO missing: skipped"; exit 77; }
  out=$("$BIN" view "$DEMO" -q --dump --size 100x30 --keys "/combine<Enter>") || fail "headless run failed"
  echo "$out" > "$TMP/screen"
  echo "$out" | grep -q "dpsk::ep::internode::combine" || fail "demo: search did not select a combine kernel"
  echo "$out" | grep -q "band:" || fail "demo: no legend"
  # TERM=vt100: ASCII only, no colour: the band uses one character per state
  out=$(TERM=vt100 "$BIN" view "$DEMO" -q --dump --size 100x30)
  echo "$out" > "$TMP/screen"
  LC_ALL=C grep -q '[^ -~]' "$TMP/screen" && fail "vt100: non-ASCII output"
  echo "$out" | grep -q "band: = compute + comm hidden ! comm exposed m memory . idle" || fail "vt100: no ASCII legend"
  # unknown keys and too-small screens are handled
  "$BIN" view "$DEMO" -q --dump --size 60x10 | grep -q "terminal too small" || fail "no too-small message"
  "$BIN" view "$DEMO" -q --dump --keys "<Bogus>" 2>/dev/null && fail "bad key script accepted"
  ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
echo "ok ($CASE)"
