#!/usr/bin/env bash
# End-to-end tests of `ovtrace view` in tmux at a fixed size.
# usage: viewer.sh CASE OVTRACE DEEPSEEK_TRACE SAMPLES_DIR     (exit 77 = skipped)
set -u
CASE=$1 BIN=$2 DS=$3 SAMPLES=$4
DEMO=$SAMPLES/demo-moe.json.gz
W=120 H=40
# tmux servers, keys, polling waits and fail: deadlines scale with
# OVTRACE_TEST_TIMEOUT_SCALE (3 under ASan, tests/sanitize.sh)
. "$(dirname "$0")/../lib/tmux.sh"
[ "$CASE" = headless ] || tmux_require
tmux_init "viewer-$CASE"

# Without DeepSeek's trace (a plain clone) the cases run on the shipped DeepSeek-like
# trace (tests/data/moe-ep, same streams and DeepEP kernel names); its expected ratio is
# the one its generator computed from the generated intervals.
RATIO=0.9632
if [ ! -f "$DS" ]; then
  DS=$SAMPLES/../tests/data/moe-ep/rank0.json
  RATIO=$(awk '$1=="rank0" { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
                             printf "%.4f", f["overlap_ns"] / f["comm_ns"] }' "$SAMPLES/../tests/data/moe-ep/expected.txt")
  echo "DeepSeek's trace missing: using $DS (ratio $RATIO)"
fi
need_ds() { [ -f "$DS" ] && [ -n "$RATIO" ] || { echo "$DS missing: skipped"; exit 77; }; }

# view FILE: the viewer in a fresh tmux server, drawn (loading the DeepSeek trace takes
# seconds under ASan: 60 s, scaled)
view() {
  tmux_run $W $H "$BIN" view "$1"
  wait_for_text "band:" 60 || fail "viewer did not draw its legend"
  wait_for_file "$TMP/pid" || fail "no pid recorded"
}

case $CASE in
open)
  need_ds; view "$DS"
  for s in "stream 7" "stream 23" "stream 27"; do expect "line_of '$s' | grep -q ." "no lane '$s'"; done
  expect 'line_of "GPU 0" | grep -q "ratio $RATIO"' "device header without the overlap ratio $RATIO"
  expect 'grep -E "^ +overlap +│" "$TMP/screen" | grep -q "█"' "no overlap band"
  expect 'line_of "band:" | grep -q "comm exposed"' "no legend"
  line_of "band:" | grep -q "coll wait" && fail "legend names a collective wait on one rank"
  expect 'line_of "?:help" | grep -q "q:quit"' "no status bar"
  ;;
search)
  need_ds; view "$DS"
  keys / c o m b i n e Enter
  wait_for_text "matches" || fail "search did not report matches"
  expect 'line_of " name " | grep -q "dpsk::ep::internode::combine"' "selection is not a combine kernel"
  expect 'line_of " duration " | grep -Eq "[0-9]+\.[0-9]+(us|ms)"' "no duration in the details"
  expect 'line_of " lane " | grep -q "GPU 0 stream"' "the match is not a GPU kernel"
  ;;
zoom)
  need_ds; view "$DS"
  expect 'line_of "?:help" | grep -q "q:quit"' "no status bar"
  before=$(screen | sed -n 2p)
  keys + + +
  wait_for_text "zoom 8.0x" || fail "zoom level not shown"
  after=$(wait_for_change 'screen | sed -n 2p' "$before") || fail "the ruler did not change: $after"
  [ "$before" != "$after" ] || fail "the ruler did not change"
  keys 0; wait_for_text "zoom 1.0x" || fail "0 did not fit all"
  ;;
launch)
  need_ds; view "$DS"
  keys / c o m b i n e Enter
  wait_for_text "matches" || fail "search failed"
  expect 'line_of " name " | grep -q "combine"' "search did not select a combine kernel"
  keys c
  # the kernel's details already read "launched by": wait for the jump itself
  wait_for_text "launched by" || fail "c did not jump"
  expect 'line_of " name " | grep -Eq "cudaLaunch|cuLaunchKernel"' "not on a runtime/driver launch call"
  expect 'line_of " lane " | grep -q "CPU pid"' "not on a CPU lane"
  keys c
  wait_for_text "launches" || fail "c did not jump back"
  expect 'line_of " name " | grep -q "combine"' "did not come back to the kernel"
  ;;
range)
  need_ds; view "$DS"
  keys / c o m b i n e Enter; wait_for_text "matches" || fail "search failed"
  keys "["; keys n; keys n; keys n; keys "]"
  wait_for_text "ovtrace stats --range" || fail "no range panel"
  expect 'grep -q "stats --range [0-9]*ns:[0-9]*ns" "$TMP/screen"' "range argument not shown"
  arg=$(grep -o "stats --range [0-9]*ns:[0-9]*ns" "$TMP/screen" | head -1 | awk '{print $3}')
  [ -n "$arg" ] || fail "range argument not shown"
  cli=$("$BIN" stats -q --range "$arg" "$DS" | awk '$1=="0" && $2=="0" {print $3,$4,$5,$6,$7,$8,$9,$10,$11; exit}')
  tui_row() {
    local hdr
    hdr=$(grep -n " window " "$TMP/screen" | tail -1 | cut -d: -f1)
    [ -n "$hdr" ] && sed -n "$((hdr + 1))p" "$TMP/screen" | awk '{print $2,$3,$4,$5,$6,$7,$8,$9,$10}'
  }
  # the panel's figures may be caught mid-draw: poll until they equal the CLI's
  wait_until '[ -n "$cli" ] && [ "$(tui_row)" = "$cli" ]'
  tui=$(tui_row)
  echo "range $arg: tui [$tui] stats [$cli]"
  [ -n "$cli" ] && [ "$tui" = "$cli" ] || fail "range figures differ: tui [$tui] stats [$cli]"
  ;;
quit)
  need_ds; view "$DS"
  keys q
  wait_for_exit || fail "q did not exit (no tty settings recorded)"
  [ "$(cat "$TMP/rc" 2>/dev/null)" = 0 ] || fail "exit status $(cat "$TMP/rc" 2>/dev/null)"
  sane_tty || fail "terminal not restored: $(cat "$TMP/stty")"
  # a termination signal also restores the terminal (a fresh server)
  view "$DS"
  kill -TERM "$(cat "$TMP/pid")"
  wait_for_exit || fail "SIGTERM did not end the viewer (no tty settings recorded)"
  [ "$(cat "$TMP/rc" 2>/dev/null)" = 143 ] || fail "SIGTERM exit status $(cat "$TMP/rc" 2>/dev/null)"
  sane_tty || fail "terminal not restored after SIGTERM"
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
