#!/usr/bin/env bash
# Time to the rank overview: opens DIR's rank files in `ovtrace view`
# inside tmux and times, from exec, (1) the first overview frame with one row per rank,
# (2) Enter on the first rank until its CPU lanes are shown (or, for files without CPU
# events, until the title stops saying "loading"), then quits; peak RSS from
# /usr/bin/time. usage: bench/lazy_overview.sh OVTRACE DIR [RANKS] [extra view options, e.g. --lazy off]
set -u
BIN=$(readlink -f "$1"); DIR=$(readlink -f "$2"); RANKS=${3:-64}; shift 3 2>/dev/null || shift $#
command -v tmux >/dev/null || { echo "tmux not installed"; exit 77; }
TMP=$(mktemp -d); SOCK="ovt-lazy-bench-$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
now() { date +%s.%N; }
rows() { tmux -L "$SOCK" capture-pane -p 2>/dev/null | grep -Ec "^[> ] r[0-9]+ " ; }
t0=$(now)
tmux -L "$SOCK" -f /dev/null new-session -d -x 160 -y $((RANKS + 12)) \
    "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 /usr/bin/time -f '%M' -o $TMP/rss $BIN view $* $DIR; sleep 600"
until [ "$(rows)" -ge "$RANKS" ]; do sleep 0.05; done
t1=$(now)
tmux -L "$SOCK" send-keys Enter
# expanded: a CPU group header (a process) below rank 0's GPU, or the title without "loading"
until tmux -L "$SOCK" capture-pane -p >"$TMP/s" && grep -q "^▼ rank" "$TMP/s" &&
      ! grep -q "CPU lanes loading" "$TMP/s"; do sleep 0.05; done
t2=$(now)
cpu=$(grep -Ec "^[▼▶] rank [0-9]+ CPU" "$TMP/s")
tmux -L "$SOCK" send-keys q
for _ in $(seq 200); do [ -s "$TMP/rss" ] && break; sleep 0.05; done
awk -v a="$t0" -v b="$t1" -v c="$t2" -v r="$(cat "$TMP/rss" 2>/dev/null)" -v n="$cpu" \
    'BEGIN { printf "overview %.2f s   expanded with all lanes %.2f s after Enter (%.2f s from exec)   peak RSS %d MB   CPU group lines shown %d\n", b - a, c - b, c - a, r / 1024, n }'
