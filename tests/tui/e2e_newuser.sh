#!/usr/bin/env bash
# End to end in tmux: what a new user sees, on the shipped
# Kineto fixture (tests/data/kineto-nccl-args.json), the demo trace and the simulator;
# the DeepSeek trace adds its reference ratio where present.
# usage: e2e_newuser.sh CASE OVTRACE DATA_DIR SAMPLES_DIR DEEPSEEK   (exit 77 = skipped)
set -u
CASE=$1 BIN=$2 DATA=$3 SAMPLES=$4 DS=${5:-}
FIX=$DATA/kineto-nccl-args.json
DEMO=$SAMPLES/demo-moe.json.gz
TMP=$(mktemp -d)
SOCK0="ovt-e2e15-$CASE-$$"
SOCK=$SOCK0 NSTART=0
. "$(dirname "$0")/../lib/tmux.sh"
cleanup() { for i in $(seq 0 "$NSTART"); do tmux -L "$SOCK0-$i" kill-server 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT
fail() { echo "FAIL ($CASE): $*"; [ -f "$TMP/screen" ] && cat "$TMP/screen"; exit 1; }
command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }

# start W H ARGS...: ovtrace ARGS in a fresh tmux server of W x H, with the terminal
# type tmux emulates (screen-256color), so that Home and End arrive as sent
start() {
  local w=$1 h=$2
  shift 2
  rm -f "$TMP/rc" "$TMP/stty"
  NSTART=$((NSTART + 1))
  SOCK="$SOCK0-$NSTART"
  tmux -L "$SOCK" -f /dev/null new-session -d -x "$w" -y "$h" \
    "cd $TMP && env TERM=${TERM_IN:-screen-256color} LANG=C.UTF-8 LC_ALL=C.UTF-8 TMPDIR=$TMP \"$BIN\" $* 2>$TMP/stderr; echo \$? > $TMP/rc; stty -a > $TMP/stty 2>&1; sleep 600" \
    || fail "tmux did not start"
}
keys() { tmux -L "$SOCK" send-keys "$@"; }
line_of() { grep -F -- "$1" "$TMP/screen" | head -1; }
expect() { wait_until "$1" || fail "$2"; }

case $CASE in
details) # item 6: whole keys, exact 64-bit ids, scrolling
  start 120 40 view "$FIX"
  wait_for_text "?:help" 60 || fail "viewer did not start"
  keys / n c c l D e v Enter
  wait_for_text "(1 match" || fail "search did not select the NCCL kernel"
  expect 'line_of "External id " | grep -q 5634' "External id cut or missing"
  expect 'line_of "External ts " | grep -q 1740461679470679' "External ts cut or missing"
  expect 'grep -q "more lines (} scrolls" "$TMP/screen"' "no scroll hint"
  keys '}'
  expect 'line_of "correlation " | grep -q 44471' "correlation key cut"
  keys '}'
  expect 'line_of "Comms Id" | grep -q "10159970886766084411"' "Comms Id not exact"
  grep -q "e+19" "$TMP/screen" && fail "an id shown as a float"
  expect 'line_of "Seq Id" | grep -q "9007199254740993"' "Seq Id (2^53+1) not exact"
  expect 'line_of "Process Group Description" | grep -q default_pg' "long key or its value missing"
  expect 'line_of " Rank " | grep -q " 0"' "the last field is not reachable"
  keys '{' '{' '{'
  expect 'line_of " name " | grep -q ncclDevKernel' "{ does not scroll back to the top"
  ;;
clutter) # item 8: clutter hidden, v shows it, repeated ranks named by file, directory title
  mkdir -p "$TMP/run-7" && cp "$FIX" "$TMP/run-7/a.json" && cp "$FIX" "$TMP/run-7/b.json"
  start 120 40 view "$TMP/run-7/"
  wait_for_text "?:help" 60 || fail "viewer did not start"
  expect 'sed -n 1p "$TMP/screen" | grep -q "ovtrace  run-7/"' "directory not in the title"
  expect 'grep -q "rank 0 a.json GPU 0" "$TMP/screen" && grep -q "rank 0 b.json GPU 0" "$TMP/screen"' \
    "ranks that repeat are not named by file"
  expect 'grep -q "6 empty or annotation-only CPU groups hidden (v shows them)" "$TMP/screen"' "no clutter note"
  grep -q 'CPU "Spans"' "$TMP/screen" && fail "Spans group shown by default"
  grep -q 'CPU "Traces"' "$TMP/screen" && fail "Traces group shown by default"
  keys v
  expect 'grep -q "CPU \"Spans\"" "$TMP/screen" && grep -q "CPU \"Traces\"" "$TMP/screen"' "v did not show them"
  keys v
  expect '! grep -q "CPU \"Spans\"" "$TMP/screen"' "v did not hide them again"
  keys '?'
  expect 'grep -q "show / hide empty and annotation-only CPU groups" "$TMP/screen"' "v missing from the help"
  ;;
wide) # item 7: the range panel at 160 and 220 columns shows every column
  for size in 160x40 220x50; do
    start "${size%x*}" "${size#*x}" view "$FIX"
    wait_for_text "?:help" 60 || fail "viewer did not start"
    keys 0 [ End ]
    wait_for_text "Range statistics" || fail "no range panel at $size"
    expect 'line_of " exposed " | grep -q "memory" && line_of " exposed " | grep -q "ratio"' \
      "range table cut at $size"
    expect 'grep -Eq "1\.0000" "$TMP/screen"' "no ratio figure at $size"
    expect 'grep -q "ncclDevKernel_AllReduce_Sum_bf16_RING_LL" "$TMP/screen"' "kernel name cut at $size"
  done
  if [ -f "$DS" ]; then
    start 160 40 view "$DS"
    wait_for_text "band:" 60 || fail "viewer did not start on DeepSeek"
    keys 0 [ End ]
    wait_for_text "Range statistics" || fail "no range panel"
    expect 'grep -q "4,162" "$TMP/screen" && grep -q "0.9632" "$TMP/screen"' "DeepSeek exposed/ratio hidden at 160"
  fi
  ;;
cursor) # item 10: Home then . from the start; the cursor moves at full zoom; --range past the end

  start 120 40 view "$DEMO"
  wait_for_text "?:help" 60 || fail "viewer did not start"
  keys .
  expect 'line_of " start " | grep -q "@"' "no first event"
  first=$(line_of " start ")
  keys . . . .
  expect '[ "$(line_of " start ")" != "$first" ]' "did not step"
  keys Home .
  expect '[ "$(line_of " start ")" = "$first" ]' "Home then . did not select the lane's first event"
  keys 0 Home
  sleep 0.3
  old=$(screen | sed -n 3p)
  oldview=$(screen | sed -n 1p | grep -o "view [^│]*")
  keys Right
  expect '[ "$(sed -n 3p "$TMP/screen")" != "$old" ]' "Right did not move the cursor at full zoom"
  [ "$(sed -n 1p "$TMP/screen" | grep -o "view [^│]*")" = "$oldview" ] || fail "the window moved"
  keys q
  wait_for_exit || fail "no exit"
  start 120 40 view --range 100s:200s "$DEMO"
  wait_for_exit 60 || fail "--range outside the trace did not exit"
  [ "$(cat "$TMP/rc")" = 2 ] || fail "--range outside: status $(cat "$TMP/rc")"
  grep -q "lies outside the trace, which spans 0.." "$TMP/stderr" || fail "no message: $(cat "$TMP/stderr")"
  start 120 40 view --range 1ms:100s "$DEMO"
  wait_for_text "band:" 60 || fail "viewer did not start with a clamped range"
  expect 'grep -q "goes past the trace" "$TMP/screen"' "no message for a clamped --range"
  ;;
live) # item 5: Unicode, the meter at 80x24, the whole retention after freezing, no -0
  start 80 24 live --simulate --speed 16
  wait_for_text "LIVE drops" 60 || fail "no live title: $(cat "$TMP/stderr")"
  expect 'sed -n 1p "$TMP/screen" | grep -q "ev/s" && sed -n 1p "$TMP/screen" | grep -q "ovl "' "meter cut at 80"
  expect 'sed -n 1p "$TMP/screen" | grep -q "SIMULATED prefill"' "not marked SIMULATED"
  expect 'grep -q "│" "$TMP/screen"' "no Unicode in a UTF-8 terminal"
  grep -Eq '^ +overlap +\|#' "$TMP/screen" && fail "ASCII band in a UTF-8 terminal"
  # 45 s of simulated time (16x), more than the 30 s the view used to be capped at
  settle 4
  keys p
  wait_for_text "FROZEN" 30 || fail "p did not freeze"
  expect 'sed -n 1p "$TMP/screen" | grep -q "drops" && sed -n 1p "$TMP/screen" | grep -q "FROZEN"' \
    "meter or FROZEN cut at 80"
  keys 0
  expect 'sed -n 2p "$TMP/screen" | grep -Eq " (4|5|6)0s"' "the whole buffer is not reachable: $(sed -n 2p "$TMP/screen")"
  grep -q -- "-0\.0" "$TMP/screen" && fail "-0.0 on screen"
  keys q
  wait_for_exit 30 || fail "no exit"
  ;;
*) fail "unknown case" ;;
esac
echo "ok ($CASE)"
