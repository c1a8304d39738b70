#!/usr/bin/env bash
# The kernel table in tmux, over the demo trace (sample-traces/demo-moe.json.gz: 6 kernel
# names): sorting, the full name, copying it with OSC 52 into tmux's paste buffer
# (--osc52; off by default), Enter on the slowest instance and n/N through the others.
# usage: kernel_table.sh CASE OVTRACE SAMPLES_DIR     (CASE: copy | nocopy; exit 77 = skipped)
set -u
CASE=$1 BIN=$2 SAMPLES=$3
DEMO=$SAMPLES/demo-moe.json.gz
W=140 H=40
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init kernel_table-$CASE

# view FILE [ARGS...]: the viewer in a fresh tmux server, drawn
view() {
  tmux_run $W $H "$BIN" view "$@"
  wait_for_text "band:" 30 || fail "viewer did not draw its legend"
}

case $CASE in
copy)
  view "$DEMO" --osc52
  tmux_cmd set-option -s set-clipboard on
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
  echo "$first" | grep -q "718.0us .* dispatch<false, 8, false, 8>" || fail "dispatch is not the first row by max: $first"
  # the full name of the selected row is shown below the table
  expect 'grep -q "void dpsk::ep::internode::dispatch<" "$TMP/screen"' "no full name"
  # y copies it with OSC 52: tmux stores it in its paste buffer
  keys y
  expect 'grep -q "name copied" "$TMP/screen"' "no copy message"
  wait_until 'tmux_cmd show-buffer 2>/dev/null | grep -q "^void dpsk::ep::internode::dispatch<"' \
    || fail "the clipboard (tmux buffer) does not hold the name: $(tmux_cmd show-buffer 2>&1 | head -c 200)"
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
nocopy)
  # copying is off by default: y says how to turn it on, the clipboard stays empty
  view "$DEMO"
  tmux_cmd set-option -s set-clipboard on
  keys t y
  expect 'grep -q "copying is off" "$TMP/screen"' "no message that copying is off"
  tmux_cmd show-buffer >/dev/null 2>&1 && fail "something reached the clipboard"
  ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
echo "ok ($CASE)"
