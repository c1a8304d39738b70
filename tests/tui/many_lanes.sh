#!/usr/bin/env bash
# The interactive viewer on many lanes, in tmux:
#   memory  200k GPU streams (one kernel each): the loading screen's preview keeps
#           buckets only for the lanes a screen shows, so the viewer peaks close to
#           `view --dump` of the same file (buckets and labels for every lane would
#           add 300 B per lane twice: 600 MB on a million lanes);
#   cancel  q and SIGTERM while the loader sits in a step that does not poll the cancel
#           request (--debug-load-throttle-ms sleeps in each progress report, as
#           building the model of a million lanes takes seconds) end the viewer at
#           once, with the terminal restored, instead of waiting for the step.
# usage: many_lanes.sh CASE OVTRACE     CASE: memory | cancel     (exit 77 = skipped)
set -u
CASE=$1 BIN=$2
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init "many_lanes-$CASE"

# streams N FILE: N GPU streams on device 0, one 1 us kernel each
streams() {
  awk -v n="$1" 'BEGIN { printf "["; for (i = 0; i < n; i++) printf "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":%d,\"ts\":%d,\"dur\":1,\"args\":{\"device\":0,\"stream\":%d}}", (i ? "," : ""), i, i, i; print "]" }' >"$2"
}

memory_case() {
  [ -x /usr/bin/time ] || { echo "/usr/bin/time missing: skipped"; exit 77; }
  streams 200000 "$TMP/lanes.json"
  /usr/bin/time -f %M -o "$TMP/dump_rss" "$BIN" view --no-cache --dump "$TMP/lanes.json" >/dev/null ||
    fail "view --dump failed"
  tmux_start 120 40 "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 sh -c '/usr/bin/time -f %M -o $TMP/rss \"$BIN\" view --no-cache \"$TMP/lanes.json\"; echo \$? > $TMP/rc'" ||
    fail "tmux did not start"
  wait_for_text "band:" 120 || fail "the timeline did not open"
  wait_until 'grep -q "GPU 0  200000 streams" "$TMP/screen"' || fail "the timeline does not show the 200000 streams"
  keys q
  wait_for_file "$TMP/rc" 20 || fail "q did not exit"
  [ "$(cat "$TMP/rc")" = 0 ] || fail "exit status $(cat "$TMP/rc")"
  wait_for_file "$TMP/rss" || fail "no peak RSS recorded"
  local dump view
  dump=$(cat "$TMP/dump_rss") view=$(tail -1 "$TMP/rss")
  echo "peak RSS: view --dump $dump KB, interactive $view KB"
  # the loading screen, ncurses and the preview may add a little, never per lane
  [ "$view" -le $((dump * 3 / 2 + 40000)) ] || fail "interactive peak $view KB against $dump KB for --dump"
}

# elapsed S: seconds since S (date +%s.%N), 2 decimals
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

cancel_case() {
  streams 300000 "$TMP/lanes.json" # 34 MB: reports at 8, 16, 24 and 32 MB
  local how t0 took limit
  limit=$(scaled 2)
  for how in q TERM; do
    OVT_STDERR=$TMP/err tmux_run 120 40 "$BIN" view --no-cache --threads 1 --debug-load-throttle-ms=20000 "$TMP/lanes.json"
    # the first report is on screen: the loader now sleeps in it for 20 s
    wait_until 'grep -qE "[1-9][0-9,]* events" "$TMP/screen"' 30 || fail "$how: no progress on the loading screen"
    t0=$(date +%s.%N)
    if [ $how = q ]; then keys q; else kill -TERM "$(cat "$TMP/pid")"; fi
    wait_for_exit 30 || fail "$how: the viewer did not exit"
    took=$(elapsed "$t0")
    echo "$how during a report that does not poll the cancel: exit after $took s"
    awk -v a="$took" -v b="$limit" 'BEGIN { exit !(a < b) }' || fail "$how: exit took $took s (limit $limit s)"
    local want=0
    [ $how = TERM ] && want=143
    [ "$(cat "$TMP/rc")" = $want ] || fail "$how: exit status $(cat "$TMP/rc"), not $want"
    sane_tty || fail "$how: terminal not restored: $(cat "$TMP/stty")"
    [ -s "$TMP/err" ] && fail "$how: unexpected stderr: $(cat "$TMP/err")"
  done
}

case $CASE in
memory) memory_case ;;
cancel) cancel_case ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
echo "ok (many lanes: $CASE)"
