#!/usr/bin/env bash
# Progressive load: time to the first frame, to the first loading screen
# with a preview that shows lanes, and to the timeline of `ovtrace view` on a real
# terminal (tmux), from the viewer's own frame log.
# usage: bench/first_frame.sh OVTRACE FILE [RUNS]
# The viewer appends "first-frame T" / "preview T" / "timeline T" (CLOCK_REALTIME) to
# view --debug-frame-log after painting them; the start time is taken in the pane just
# before exec. A capture-pane poll cross-checks that the loading screen was visible.
set -u
BIN=$1 FILE=$2 RUNS=${3:-3}
command -v tmux >/dev/null || { echo "needs tmux"; exit 2; }
TMP=$(mktemp -d)
# a tmux server per run: a server being killed cannot always take a new session at once
cleanup() { for i in $(seq 1 "$RUNS"); do tmux -L "ovt-ff-$$-$i" kill-server 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT
printf "%-28s %10s %14s %10s %12s %14s\n" file MB first-frame-s preview-s full-load-s loading-seen
for r in $(seq 1 "$RUNS"); do
  rm -f "$TMP/frames" "$TMP/start"
  [ "$r" -gt 1 ] && tmux -L "$SOCK" kill-server 2>/dev/null
  SOCK="ovt-ff-$$-$r"
  tmux -L "$SOCK" -f /dev/null new-session -d -x 160 -y 45 \
    "env TERM=xterm-256color LANG=C.UTF-8 sh -c 'date +%s.%N > $TMP/start; exec \"$BIN\" view --debug-frame-log=$TMP/frames \"$FILE\"'; sleep 600"
  seen=no
  for _ in $(seq 1 6000); do
    [ "$seen" = no ] && tmux -L "$SOCK" capture-pane -p 2>/dev/null | grep -q "q:cancel" && seen=yes
    grep -q '^timeline ' "$TMP/frames" 2>/dev/null && break
    sleep 0.05
  done
  tmux -L "$SOCK" send-keys q
  s=$(cat "$TMP/start"); f=$(awk '$1=="first-frame"{print $2}' "$TMP/frames"); t=$(awk '$1=="timeline"{print $2}' "$TMP/frames")
  p=$(awk '$1=="preview"{print $2}' "$TMP/frames") # none when the load ends before the first 8 MB report
  awk -v n="$(basename "$FILE")" -v mb="$(stat -c %s "$FILE")" -v s="$s" -v f="$f" -v p="$p" -v t="$t" -v seen="$seen" \
    'BEGIN{printf "%-28s %10.0f %14.3f %10s %12.2f %14s\n", n, mb/1e6, f-s, p == "" ? "-" : sprintf("%.3f", p-s), t-s, seen}'
  sleep 0.5
done
