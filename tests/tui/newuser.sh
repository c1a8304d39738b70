#!/usr/bin/env bash
# End to end in tmux: what a new user sees, on the shipped
# Kineto fixture (tests/data/kineto-nccl-args.json), the demo trace and the simulator;
# the DeepSeek trace adds its reference ratio where present.
# usage: newuser.sh CASE OVTRACE DATA_DIR SAMPLES_DIR DEEPSEEK   (exit 77 = skipped)
set -u
CASE=$1 BIN=$2 DATA=$3 SAMPLES=$4 DS=${5:-}
FIX=$DATA/kineto-nccl-args.json
DEMO=$SAMPLES/demo-moe.json.gz
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init "newuser-$CASE"

# ovtrace runs in $TMP (with TMPDIR=$TMP), its stderr in $TMP/stderr, with the terminal
# type tmux emulates (screen-256color), so that Home and End arrive as sent
OVT_TERM=screen-256color OVT_CD=$TMP OVT_STDERR=$TMP/stderr
OVTRACE=("TMPDIR=$TMP" "$BIN")

case $CASE in
details) # whole keys, exact 64-bit ids, scrolling
  tmux_run 120 40 "${OVTRACE[@]}" view "$FIX"
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
clutter) # clutter hidden, v shows it, repeated ranks named by file, directory title
  mkdir -p "$TMP/run-7" && cp "$FIX" "$TMP/run-7/a.json" && cp "$FIX" "$TMP/run-7/b.json"
  tmux_run 120 40 "${OVTRACE[@]}" view "$TMP/run-7/"
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
wide) # the range panel at 160 and 220 columns shows every column
  for size in 160x40 220x50; do
    tmux_run "${size%x*}" "${size#*x}" "${OVTRACE[@]}" view "$FIX"
    wait_for_text "?:help" 60 || fail "viewer did not start"
    keys 0 [ End ]
    wait_for_text "Range statistics" || fail "no range panel at $size"
    expect 'line_of " exposed " | grep -q "memory" && line_of " exposed " | grep -q "ratio"' \
      "range table cut at $size"
    expect 'grep -Eq "1\.0000" "$TMP/screen"' "no ratio figure at $size"
    expect 'grep -q "ncclDevKernel_AllReduce_Sum_bf16_RING_LL" "$TMP/screen"' "kernel name cut at $size"
  done
  if [ -f "$DS" ]; then
    tmux_run 160 40 "${OVTRACE[@]}" view "$DS"
    wait_for_text "band:" 60 || fail "viewer did not start on DeepSeek"
    keys 0 [ End ]
    wait_for_text "Range statistics" || fail "no range panel"
    expect 'grep -q "4,162" "$TMP/screen" && grep -q "0.9632" "$TMP/screen"' "DeepSeek exposed/ratio hidden at 160"
  fi
  ;;
cursor) # Home then . from the start; the cursor moves at full zoom; --range past the end
  tmux_run 120 40 "${OVTRACE[@]}" view "$DEMO"
  wait_for_text "?:help" 60 || fail "viewer did not start"
  keys .
  expect 'line_of " start " | grep -q "@"' "no first event"
  first=$(line_of " start ")
  keys . . . .
  expect '[ "$(line_of " start ")" != "$first" ]' "did not step"
  keys Home .
  expect '[ "$(line_of " start ")" = "$first" ]' "Home then . did not select the lane's first event"
  keys 0 Home
  expect 'grep -q "No event selected" "$TMP/screen"' "Home did not clear the selection"
  old=$(screen | sed -n 3p)
  oldview=$(screen | sed -n 1p | grep -o "view [^│]*")
  keys Right
  expect '[ "$(sed -n 3p "$TMP/screen")" != "$old" ]' "Right did not move the cursor at full zoom"
  [ "$(sed -n 1p "$TMP/screen" | grep -o "view [^│]*")" = "$oldview" ] || fail "the window moved"
  keys q
  wait_for_exit || fail "no exit"
  tmux_run 120 40 "${OVTRACE[@]}" view --range 100s:200s "$DEMO"
  wait_for_exit 60 || fail "--range outside the trace did not exit"
  [ "$(cat "$TMP/rc")" = 2 ] || fail "--range outside: status $(cat "$TMP/rc")"
  grep -q "lies outside the trace, which spans 0.." "$TMP/stderr" || fail "no message: $(cat "$TMP/stderr")"
  tmux_run 120 40 "${OVTRACE[@]}" view --range 1ms:100s "$DEMO"
  wait_for_text "band:" 60 || fail "viewer did not start with a clamped range"
  expect 'grep -q "goes past the trace" "$TMP/screen"' "no message for a clamped --range"
  ;;
live) # Unicode, the meter at 80x24, the whole retention after freezing, no -0
  tmux_run 80 24 "${OVTRACE[@]}" live --simulate --speed 16
  wait_for_text "LIVE drops" 60 || fail "no live title: $(cat "$TMP/stderr")"
  expect 'sed -n 1p "$TMP/screen" | grep -q "ev/s" && sed -n 1p "$TMP/screen" | grep -q "ovl "' "meter cut at 80"
  expect 'sed -n 1p "$TMP/screen" | grep -q "SIMULATED prefill"' "not marked SIMULATED"
  expect 'grep -q "│" "$TMP/screen"' "no Unicode in a UTF-8 terminal"
  grep -Eq '^ +overlap +\|#' "$TMP/screen" && fail "ASCII band in a UTF-8 terminal"
  # let the buffer grow past 30 s of simulated time (16x): the whole of it stays reachable
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
