#!/usr/bin/env bash
# End-to-end tests in tmux for issue 18: counter lanes (a PyTorch profile_memory trace
# shows a memory lane per device, with the value under the cursor, and counter
# figures in the range panel) and the kernel table.
# usage: e2e_issue18.sh CASE OVTRACE DATA_DIR     (exit 77 = skipped)
set -u
CASE=$1 BIN=$2 DATA=$3
FIX=$DATA/kineto-memory.json
TMP=$(mktemp -d)
SOCK0="ovt-e2e18-$CASE-$$"
SOCK=$SOCK0 NSTART=0
W=140 H=40
. "$(dirname "$0")/../lib/tmux.sh"
cleanup() { for i in $(seq 0 "$NSTART"); do tmux -L "$SOCK0-$i" kill-server 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT
fail() { echo "FAIL ($CASE): $*"; [ -f "$TMP/screen" ] && cat "$TMP/screen"; exit 1; }
command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }

# start FILE [ARGS...]: the viewer in a fresh tmux server
start() {
  NSTART=$((NSTART + 1))
  SOCK="$SOCK0-$NSTART"
  local f=$1; shift
  tmux -L "$SOCK" -f /dev/null new-session -d -x $W -y $H \
    "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 \"$BIN\" view \"$f\" $*; sleep 600" \
    || fail "tmux did not start"
  wait_for_text "band:" 30 || fail "viewer did not draw its legend"
}
keys() { tmux -L "$SOCK" send-keys "$@"; }
line_of() { grep -F -- "$1" "$TMP/screen" | head -1; }
expect() { wait_until "$1" || fail "$2"; }

case $CASE in
counters)
  start "$FIX"
  # a memory lane per device under its GPU, drawn with eighth blocks
  expect '[ "$(grep -c "mem allocated" "$TMP/screen")" = 2 ]' "not one memory lane per GPU"
  expect 'line_of "mem allocated" | grep -q "█"' "no sparkline"
  expect 'line_of "mem allocated" | grep -q "▁"' "sparkline not scaled to its min/max"
  # the cursor starts at the first sample: 1 MiB allocated on GPU 0; the view [0, 300 us)
  # ends at the last sample (0 B at 300 us), so 1..3 MiB are its min and max
  expect 'line_of "mem allocated" | grep -q "1.00 MiB  (view 1.00 MiB..3.00 MiB)"' "no value under the cursor"
  # mark the range start at 0, then step the cursor along stream 7 ('.': next event)
  # to the second kernel (210 us, 110 us into the trace): GPU 0 holds 3 MiB there
  keys '['
  keys . .
  expect 'grep -q "cursor 110us" "$TMP/screen"' "the cursor did not move to the second kernel"
  expect 'line_of "mem allocated" | grep -q " 3.00 MiB  (view"' "the value did not follow the cursor"
  # end the range there: counter figures in the range panel (1 and 3 MiB in [0, 110 us))
  keys ']'
  expect 'grep -q "counter .*min .*max .*mean" "$TMP/screen"' "no counter figures in the range panel"
  expect 'line_of "[memory] GPU 0 Total" | grep -q "1.00 MiB *3.00 MiB *2.00 MiB *2"' "range panel figures for GPU 0"
  ;;
counters_ascii)
  start "$FIX" --ascii
  expect 'line_of "mem allocated" | grep -q "#"' "no ASCII sparkline"
  expect '! grep -q "█" "$TMP/screen"' "Unicode blocks in --ascii"
  ;;
ktable)
  # kernel table over the demo trace (sample-traces/demo-moe.json.gz): 6 kernel names
  start "$DATA/../../sample-traces/demo-moe.json.gz" --osc52
  tmux -L "$SOCK" set-option -s set-clipboard on
  keys t
  expect 'grep -q "Kernels in .*6 names, 200 events" "$TMP/screen"' "no kernel table"
  expect 'grep -q "2 total▼" "$TMP/screen"' "not sorted by total"
  # sort by name (8), ascending: cutlass first; then by max descending (5): dispatch
  # (718 us, the longest instance) first
  keys 8
  expect 'grep -q "8 name▲" "$TMP/screen"' "name sort not shown"
  keys 5 g
  expect 'grep -q "5 max▼" "$TMP/screen"' "max sort not shown"
  first=$(grep -A1 "5 max▼" "$TMP/screen" | tail -1)
  echo "$first" | grep -q "718.0us .*dpsk::ep::internode::dispatch" || fail "dispatch is not the first row by max: $first"
  # the full name of the selected row is shown below the table
  expect 'grep -q "void dpsk::ep::internode::dispatch<" "$TMP/screen"' "no full name"
  # y copies it with OSC 52: tmux stores it in its paste buffer
  keys y
  expect 'grep -q "name copied" "$TMP/screen"' "no copy message"
  wait_until 'tmux -L "$SOCK" show-buffer 2>/dev/null | grep -q "^void dpsk::ep::internode::dispatch<"' \
    || fail "the clipboard (tmux buffer) does not hold the name: $(tmux -L "$SOCK" show-buffer 2>&1 | head -c 200)"
  # Enter: the slowest dispatch selected (718 us) and the table closed; n: the next
  keys Enter
  expect 'grep -q "instance 1/24 by duration: 718.0us" "$TMP/screen"' "Enter did not jump to the slowest instance"
  expect 'line_of " name " | grep -q "dpsk::ep::internode::dispatch"' "the selection is not a dispatch kernel"
  d1=$(line_of " duration ")
  keys n
  expect 'grep -q "instance 2/24 by duration" "$TMP/screen"' "n did not walk to the next instance"
  d2=$(line_of " duration ")
  [ "$d1" != "$d2" ] || fail "n did not change the selection"
  keys N
  expect 'grep -q "instance 1/24 by duration" "$TMP/screen"' "N did not walk back"
  ;;
ktable_nocopy)
  # copying is off by default: y says how to turn it on, the clipboard stays empty
  start "$DATA/../../sample-traces/demo-moe.json.gz"
  tmux -L "$SOCK" set-option -s set-clipboard on
  keys t y
  expect 'grep -q "copying is off" "$TMP/screen"' "no message that copying is off"
  tmux -L "$SOCK" show-buffer >/dev/null 2>&1 && fail "something reached the clipboard"
  ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
echo "ok ($CASE)"
