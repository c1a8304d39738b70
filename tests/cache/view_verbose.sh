#!/usr/bin/env bash
# view -v in tmux says what the snapshot cache did, as stats -v does: the notes are kept
# while the screen is up and printed on stderr once the terminal is restored (a miss and
# the save and its detached outcome on the first run, a hit with the snapshot's path on
# the second), also for the rank overview's background load of a rank directory.
# usage: view_verbose.sh OVTRACE DATA_DIR   (exit 77 = skipped)
set -u
BIN=$1 DATA=$2
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init cache-view-verbose
export XDG_CACHE_HOME=$TMP/cache
unset OVTRACE_CACHE OVTRACE_CACHE_DEBUG
OVT_STDERR=$TMP/stderr
FIX=$DATA/kineto-2node.json

# run ARGS...: the viewer drawn, then q; its stderr in $TMP/stderr
run() {
  : >"$TMP/stderr"
  tmux_run 120 40 "XDG_CACHE_HOME=$XDG_CACHE_HOME" "$BIN" view "$@"
  wait_for_text "?:help" 60 || fail "viewer did not start"
  grep -q "ovtrace: cache" "$TMP/screen" && fail "a cache note drawn over the screen"
  keys q
  wait_for_exit 30 || fail "viewer did not exit"
}

run -v --cache "$FIX"
expect 'grep -q "^ovtrace: cache: miss" "$TMP/stderr"' "view -v: no miss note on the first run"
expect 'grep -Eq "^ovtrace: cache: (saved|saving)" "$TMP/stderr"' "view -v: no note of the save"
# the detached save's outcome too, waited for once the terminal is restored
expect 'grep -Eq "^ovtrace: cache: saved .*, detached\)$" "$TMP/stderr"' "view -v: no outcome of the detached save"
# the save runs detached: the snapshot is there before the second run
for _ in $(seq 300); do [ -n "$(find "$XDG_CACHE_HOME" -name '*.ovsnap' 2>/dev/null)" ] && break; sleep 0.1; done
snap=$(find "$XDG_CACHE_HOME" -name '*.ovsnap' | head -1)
[ -n "$snap" ] || fail "no snapshot saved"
run -v --cache "$FIX"
expect 'grep -qF "ovtrace: cache: hit $snap" "$TMP/stderr"' "view -v: no hit note with the snapshot's path"
# the same words as stats -v
"$BIN" stats -v --cache "$FIX" >/dev/null 2>"$TMP/stats.err"
grep -qF "ovtrace: cache: hit $snap" "$TMP/stats.err" || fail "stats -v says it otherwise"
# without -v: nothing
run --cache "$FIX"
grep -q "cache" "$TMP/stderr" && fail "cache notes without -v"

# a rank directory opens lazily (GPU lanes first): the background load's notes too
mkdir -p "$TMP/ranks"
for r in 0 1; do cp "$FIX" "$TMP/ranks/rank$r.json"; done
run -v --cache --lazy on "$TMP/ranks"
expect 'grep -q "^ovtrace: cache: miss" "$TMP/stderr"' "view -v --lazy on: no note of the background load"
echo "ok"
