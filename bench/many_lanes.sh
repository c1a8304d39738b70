#!/usr/bin/env bash
# The interactive viewer on many lanes, in tmux, for one or more builds side by side:
# peak RSS of `view --dump` and of the interactive viewer (loading screen with its
# preview, then the timeline; /usr/bin/time), seconds to the timeline, seconds from q
# on the timeline to the exit, and seconds from q to the exit when q comes while the
# model is being built (all bytes read: the progress bar at 100%).
# usage: bench/many_lanes.sh FILE [RUNS] BIN...     (--no-cache: every run parses)
set -u
FILE=$1 RUNS=$2
shift 2
command -v tmux >/dev/null || { echo "needs tmux"; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time"; exit 2; }
TMP=$(mktemp -d)
SOCK=""
cleanup() { [ -n "$SOCK" ] && tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
now() { date +%s.%N; }
# start BIN: a fresh tmux server running the viewer under /usr/bin/time
n=0
start() {
  [ -n "$SOCK" ] && tmux -L "$SOCK" kill-server 2>/dev/null
  n=$((n + 1)) SOCK="ovt-ml-$$-$n"
  rm -f "$TMP/rc" "$TMP/rss"
  tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 \
    "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 sh -c '/usr/bin/time -f %M -o $TMP/rss \"$1\" view --no-cache \"$FILE\"; echo \$? > $TMP/rc'"
}
wait_screen() { # TEXT: until it is on screen (10 min at most)
  for _ in $(seq 1 12000); do
    tmux -L "$SOCK" capture-pane -p 2>/dev/null | grep -qF -- "$1" && return 0
    sleep 0.05
  done
  return 1
}
wait_either() { # A B: prints the one that shows first
  local c
  for _ in $(seq 1 12000); do
    c=$(tmux -L "$SOCK" capture-pane -p 2>/dev/null)
    if grep -qF -- "$1" <<<"$c"; then echo "$1"; return; fi
    if grep -qF -- "$2" <<<"$c"; then echo "$2"; return; fi
    sleep 0.02
  done
}
wait_exit() { while [ ! -s "$TMP/rc" ]; do sleep 0.01; done; }
printf "%-16s %-28s %10s %12s %12s %10s %14s\n" file build dump-MB view-MB timeline-s quit-s cancel-build-s
for r in $(seq 1 "$RUNS"); do
  for bin in "$@"; do
    dump=$( { /usr/bin/time -f %M "$bin" view --no-cache --dump "$FILE" >/dev/null; } 2>&1 | tail -1)
    start "$bin"; t0=$(now)
    wait_screen "band:"; t1=$(now)
    tmux -L "$SOCK" send-keys q; wait_exit; t2=$(now)
    view=$(tail -1 "$TMP/rss")
    start "$bin"
    # q once every byte is read (the model being built); "-" when the timeline came first
    got=$(wait_either " 100%" "band:"); tmux -L "$SOCK" send-keys q; t3=$(now); wait_exit; t4=$(now)
    [ "$got" = " 100%" ] || t4=nan
    awk -v f="$(basename "$FILE")" -v b="$(basename "$bin")" -v d="$dump" -v v="$view" -v a="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v t4="$t4" \
      'BEGIN { printf "%-16s %-28s %10.0f %12.0f %12.2f %10.2f %14s\n", f, b, d / 1024, v / 1024, t1 - a, t2 - t1, t4 == "nan" ? "-" : sprintf("%.2f", t4 - t3) }'
  done
done
