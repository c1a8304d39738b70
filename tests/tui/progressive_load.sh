#!/usr/bin/env bash
# End-to-end test of the progressive load in tmux: a ~150 MB trace tiled
# from the DeepSeek trace shows the loading screen (progress bar, bytes, events, ETA)
# before the timeline; q and Ctrl-C during the load exit cleanly with a sane
# terminal; a syntax error is printed after the terminal is restored, like stats.
# usage: progressive_load.sh OVTRACE GEN_TRACE DEEPSEEK_TRACE     (exit 77 = skipped)
set -u
BIN=$1 GEN=$2 DS=$3
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
# a plain clone: the shipped DeepSeek-like trace stands in for DeepSeek's (same streams)
[ -f "$DS" ] || DS=$(dirname "$0")/../data/moe-ep/rank0.json
[ -f "$DS" ] || { echo "$DS missing: skipped"; exit 77; }
tmux_init progressive_load
log() { echo "[$SECONDS s] $*"; }

"$GEN" "$DS" "$TMP/big.json" --mb 150 >/dev/null 2>&1 || fail "gen_trace failed"
log "generated"
SIZE=$(stat -c %s "$TMP/big.json")

# run FILE [FLAGS...]: the viewer in a fresh tmux server, 120x40; the pane then records
# the exit status and the terminal settings. Each report of the loader (every 8 MB)
# is slowed by view --debug-load-throttle-ms so that the screen can be watched.
run() {
  local f=$1; shift
  rm -f "$TMP/err" "$TMP/frames"
  OVT_STDERR=$TMP/err tmux_run 120 40 "$BIN" view --debug-frame-log="$TMP/frames" "$@" "$f"
}
pct() { grep -oE '[0-9]+%' "$TMP/screen" | head -1 | tr -d %; }

# 1. the loading screen comes first and updates, then the timeline replaces it
run "$TMP/big.json" --debug-load-throttle-ms=100
wait_for_text "q:cancel" 10 || fail "no loading screen within $(scaled 10) s"
log "loading screen"
grep -q "band:" "$TMP/screen" && fail "timeline before the loading screen"
wait_until 'grep -qF "Loading big.json  (" "$TMP/screen"' || fail "no file name and size"
wait_until "grep -qE '\[[█▏▎▍▌▋▊▉·]+\] +[0-9]+%' \"\$TMP/screen\"" || fail "no progress bar"
wait_until "grep -qE '[0-9.]+ (B|kB|MB|GB) / [0-9.]+ MB +[0-9,]+ events +([0-9]+|--) MB/s +ETA ' \"\$TMP/screen\"" || fail "no bytes/events/rate/ETA line"
# the screen updates while loading: at least two different percentages before the timeline
seen=""
end=$((SECONDS + $(scaled 120)))
while [ $SECONDS -lt $end ]; do
  screen > /dev/null
  grep -q "q:cancel" "$TMP/screen" || break
  p=$(pct); [ -n "$p" ] && case " $seen " in *" $p "*) ;; *) seen="$seen $p" ;; esac
  sleep 0.1
done
echo "percentages seen:$seen"
[ "$(echo $seen | wc -w)" -ge 2 ] || fail "the progress did not advance on screen ($seen)"
wait_for_text "band:" 120 || fail "the timeline did not open"
log "timeline"
grep -q "q:cancel" "$TMP/screen" && fail "loading screen left on the timeline"
wait_until 'grep -q "stream 27" "$TMP/screen"' || fail "timeline without its lanes"
first=$(awk '$1=="first-frame"{print $2}' "$TMP/frames"); tl=$(awk '$1=="timeline"{print $2}' "$TMP/frames")
echo "first frame $first, timeline $tl"
[ -n "$first" ] && [ -n "$tl" ] && awk -v a="$first" -v b="$tl" 'BEGIN{exit !(a < b)}' || fail "frame log: $(cat "$TMP/frames")"
keys q
wait_for_exit || fail "q did not exit"
[ "$(cat "$TMP/rc")" = 0 ] || fail "exit status $(cat "$TMP/rc")"

log "step 1 done"

# 2. q during the load cancels: exit 0, terminal restored, no timeline
run "$TMP/big.json" --debug-load-throttle-ms=200
wait_for_text "events   " 10 || fail "no loading screen"
keys q
wait_for_exit || fail "q did not cancel the load"
[ "$(cat "$TMP/rc")" = 0 ] || fail "cancel exit status $(cat "$TMP/rc")"
sane_tty || fail "terminal not restored after q: $(cat "$TMP/stty")"
grep -q timeline "$TMP/frames" && fail "the timeline was drawn after q"
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"

# 3. Ctrl-C during the load: 128+SIGINT, terminal restored
run "$TMP/big.json" --debug-load-throttle-ms=200
wait_for_text "events   " 10 || fail "no loading screen"
keys C-c
wait_for_exit || fail "Ctrl-C did not stop the load"
[ "$(cat "$TMP/rc")" = 130 ] || fail "Ctrl-C exit status $(cat "$TMP/rc")"
sane_tty || fail "terminal not restored after Ctrl-C"

log "cancel steps done"

# 4. a syntax error is reported after the terminal is restored, as stats does
printf '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}, {"ph": x}]}' > "$TMP/bad.json"
run "$TMP/bad.json"
wait_for_exit || fail "no exit on a syntax error"
[ "$(cat "$TMP/rc")" = 1 ] || fail "syntax error exit status $(cat "$TMP/rc")"
sane_tty || fail "terminal not restored after an error"
want=$("$BIN" stats "$TMP/bad.json" 2>&1 >/dev/null)
[ "$(cat "$TMP/err")" = "$want" ] || fail "error differs from stats: [$(cat "$TMP/err")] vs [$want]"
echo "ok (load, $SIZE bytes)"
