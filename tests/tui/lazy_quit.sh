#!/usr/bin/env bash
# Quitting the lazy rank overview while its background full load runs, in tmux:
#   slow   8 rank files with 12,500 CPU processes each (100,000 process groups): the
#          full load builds a model whose groups are many; q once the overview is up
#          ends the viewer within 2 s, terminal restored, status 0;
#   stall  the full load kept in a step that does not poll the cancel request
#          (--debug-lazy-stall-ms 20000, as matching the collectives of a big model
#          does not): q, Ctrl-C, SIGINT and SIGTERM end the viewer within 2 s with status
#          0, 130, 130 and 143, the terminal restored and nothing on stderr.
# usage: lazy_quit.sh CASE OVTRACE     CASE: slow | stall     (exit 77 = skipped)
set -u
CASE=$1 BIN=$2
W=150 H=40
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init "lazy_quit-$CASE"

# ranks N: 8 rank files in $TMP/ranks, each a GPU kernel and N CPU ops, one per process
ranks() {
  mkdir -p "$TMP/ranks"
  local r
  for r in 0 1 2 3 4 5 6 7; do
    awk -v r=$r -v n="$1" 'BEGIN {
      printf "{\"distributedInfo\":{\"rank\":%d,\"world_size\":8},\"traceEvents\":[", r
      printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":5,\"args\":{\"device\":0,\"stream\":7}}"
      for (i = 0; i < n; i++) printf ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":1}", 1000 + i, i
      print "]}" }' >"$TMP/ranks/rank$r.json"
  done
}

# elapsed S: seconds since S (date +%s.%N), 2 decimals
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

# quit HOW WANT [view options]: opens the ranks lazily, quits by HOW once the overview is
# drawn; the exit must come within 2 s with status WANT and a sane terminal
quit() {
  local how=$1 want=$2 t0 took limit
  shift 2
  limit=$(scaled 2)
  OVT_STDERR=$TMP/err tmux_run $W $H "$BIN" view --no-cache --lazy on "$@" "$TMP/ranks"
  expect '[ "$(grep -Ec "^[> ] r[0-7] " "$TMP/screen")" -eq 8 ]' "$how: the overview does not show 8 ranks" 60
  t0=$(date +%s.%N)
  case $how in
  q) keys q ;;
  C-c) keys C-c ;;
  *) kill -"$how" "$(cat "$TMP/pid")" ;;
  esac
  wait_for_exit 60 || fail "$how: the viewer did not exit"
  took=$(elapsed "$t0")
  echo "$how while the full load runs: exit after $took s"
  awk -v a="$took" -v b="$limit" 'BEGIN { exit !(a < b) }' || fail "$how: exit took $took s (limit $limit s)"
  [ "$(cat "$TMP/rc")" = "$want" ] || fail "$how: exit status $(cat "$TMP/rc"), not $want"
  sane_tty || fail "$how: terminal not restored: $(cat "$TMP/stty")"
  [ -s "$TMP/err" ] && fail "$how: unexpected stderr: $(cat "$TMP/err")"
  return 0
}

case $CASE in
slow)
  ranks 12500
  quit q 0
  ;;
stall)
  ranks 10
  quit q 0 --debug-lazy-stall-ms 20000
  quit C-c 130 --debug-lazy-stall-ms 20000
  quit INT 130 --debug-lazy-stall-ms 20000
  quit TERM 143 --debug-lazy-stall-ms 20000
  ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
echo "ok (lazy quit: $CASE)"
