#!/usr/bin/env bash
# -v and a detached snapshot save: the saver never writes to the stderr it inherited
# once the command has returned (its note would land after the shell prompt, or inside a
# file the next command appends to). stats -v and view -v --dump wait for the outcome
# (up to 2 s) and print "saved ... detached" before they exit; when the wait runs out
# (--debug-cache-wait-ms 0) they say the save goes on, and OVTRACE_CACHE_DEBUG=/path
# still gets its outcome. Each run: the command's stderr into a file, then the shell
# appends MARK to it; once the saver is done, MARK must still be the file's last line.
# usage: detached_note.sh OVTRACE DATA_DIR
set -u
BIN=$1 DATA=$2
FIX=$DATA/kineto-2node.json
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
unset OVTRACE_CACHE OVTRACE_CACHE_DEBUG # CTest sets OVTRACE_CACHE=0 for other tests
fails=0
fail() { echo "FAIL $*"; [ -f "$tmp/err" ] && sed 's/^/    /' "$tmp/err"; fails=$((fails + 1)); }
snap_saved() { [ -n "$(find "$XDG_CACHE_HOME" -name '*.ovsnap' 2>/dev/null)" ]; }
wait_for() { for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done; return 1; }

# run WHAT CMD...: CMD with a fresh cache, stderr to $tmp/err, MARK appended after it
run() {
  rm -rf "$XDG_CACHE_HOME"
  "$@" >/dev/null 2>"$tmp/err"
  echo MARK >>"$tmp/err"
}
# after the saver is done (its snapshot there, then a moment for a late note)
mark_last() {
  wait_for snap_saved || { fail "$1: no snapshot saved"; return; }
  sleep 0.5
  [ "$(tail -n 1 "$tmp/err")" = MARK ] || fail "$1: something was written after the command returned"
  [ "$(grep -c MARK "$tmp/err")" = 1 ] || fail "$1: MARK overwritten"
}

# the saver usually finishes after a command on this small file has returned: three
# runs each, so that a late note cannot pass by chance
for i in 1 2 3; do
  run "$BIN" stats -v --cache "$FIX"
  grep -q "^ovtrace: cache: saving in a detached process" "$tmp/err" || fail "stats -v $i: no note that a save started"
  grep -B100 '^MARK$' "$tmp/err" | grep -qE "^ovtrace: cache: saved .*, detached\)$" ||
    fail "stats -v $i: the save's outcome is not before the command returned"
  mark_last "stats -v $i"
  run "$BIN" view -v --cache --dump --size 80x24 "$FIX"
  grep -B100 '^MARK$' "$tmp/err" | grep -qE "^ovtrace: cache: saved .*, detached\)$" ||
    fail "view -v --dump $i: the save's outcome is not before the command returned"
  mark_last "view -v --dump $i"
done

# the wait runs out at once: the note says the save goes on (or, done already, its
# outcome); the outcome reaches OVTRACE_CACHE_DEBUG's file, never the stderr
run env OVTRACE_CACHE_DEBUG="$tmp/debug.log" "$BIN" stats -v --cache --debug-cache-wait-ms 0 "$FIX"
grep -qE "^ovtrace: cache: (still saving after 0.0 s|saved .*, detached\))" "$tmp/err" ||
  fail "--debug-cache-wait-ms 0: no note of the save's state"
wait_for grep -qE "^ovtrace: cache: saved .*, detached\)$" "$tmp/debug.log" ||
  fail "OVTRACE_CACHE_DEBUG=/path: no outcome of the detached save"
mark_last "--debug-cache-wait-ms 0"

# without -v the command does not wait, and says nothing
run "$BIN" stats --cache "$FIX"
[ "$(cat "$tmp/err")" = MARK ] || fail "stats without -v wrote to stderr"
mark_last "stats without -v"

[ $fails = 0 ] && echo "ok (detached_note)"
exit $((fails > 0))
