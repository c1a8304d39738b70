#!/usr/bin/env bash
# Counter lanes in tmux: a PyTorch profile_memory trace shows a memory lane per device,
# with the value under the cursor and the min..max in view in a column of their own
# right of the plot (headed "at cursor", "view min..max"), and counter figures in the
# range panel; --ascii draws them without Unicode blocks.
# usage: counter_lanes.sh CASE OVTRACE DATA_DIR     (CASE: unicode | ascii; exit 77 = skipped)
set -u
CASE=$1 BIN=$2 DATA=$3
FIX=$DATA/kineto-memory.json
W=140 H=40
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init counter_lanes-$CASE

# view FILE [ARGS...]: the viewer in a fresh tmux server, drawn
view() {
  tmux_run $W $H "$BIN" view "$@"
  wait_for_text "band:" 30 || fail "viewer did not draw its legend"
}

case $CASE in
unicode)
  view "$FIX"
  # a memory lane per device under its GPU, drawn with eighth blocks
  expect '[ "$(grep -c "mem allocated" "$TMP/screen")" = 2 ]' "not one memory lane per GPU"
  expect 'line_of "mem allocated" | grep -q "█"' "no sparkline"
  expect 'line_of "mem allocated" | grep -q "▁"' "sparkline not scaled to its min/max"
  # the cursor starts at the first sample: 1 MiB allocated on GPU 0; the view [0, 300 us)
  # ends at the last sample (0 B at 300 us), so 1..3 MiB are its min and max
  expect 'line_of "mem allocated" | grep -q "│  1.00 MiB  *1.00 MiB..3.00 MiB *$"' "no value under the cursor"
  expect 'grep -q "at cursor  *view min..max *$" "$TMP/screen"' "no header over the values column"
  # mark the range start at 0, then step the cursor along stream 7 ('.': next event)
  # to the second kernel (210 us, 110 us into the trace): GPU 0 holds 3 MiB there
  keys '['
  keys . .
  expect 'grep -q "cursor 110us" "$TMP/screen"' "the cursor did not move to the second kernel"
  expect 'line_of "mem allocated" | grep -q " 3.00 MiB  *1.00 MiB..3.00 MiB *$"' "the value did not follow the cursor"
  # end the range there: counter figures in the range panel (1 and 3 MiB in [0, 110 us))
  keys ']'
  expect 'grep -q "counter .*min .*max .*mean" "$TMP/screen"' "no counter figures in the range panel"
  expect 'line_of "[memory] GPU 0 Total" | grep -q "1.00 MiB *3.00 MiB *2.00 MiB *2"' "range panel figures for GPU 0"
  ;;
ascii)
  view "$FIX" --ascii
  expect 'line_of "mem allocated" | grep -q "#"' "no ASCII sparkline"
  expect '! grep -q "█" "$TMP/screen"' "Unicode blocks in --ascii"
  ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
echo "ok ($CASE)"
