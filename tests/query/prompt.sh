#!/usr/bin/env bash
# The query prompt in tmux: .tables, a statement over two lines, the history (Up
# recalls the last statement), Ctrl-C stops a running statement and drops typed input
# without ending the session, Ctrl-D ends it with status 0 and the terminal restored.
# usage: prompt.sh OVTRACE DATA_DIR     (exit 77 = skipped: no tmux)
set -u
BIN=$1 DATA=$2
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init query_prompt

tmux_run 120 30 "$BIN" query -q "$DATA/moe-ep"
wait_for_text "ovtrace>" 30 || fail "no prompt"
keys .tables Enter
expect 'grep -q "events  lanes  flows  counters  collectives  devices  steps" "$TMP/screen"' ".tables"
keys "SELECT count(*) AS n_lanes" Enter "FROM lanes\\;" Enter  # \; : a literal ; to tmux
expect 'grep -q "   \.\.\.> FROM lanes;" "$TMP/screen"' "no continuation prompt"
expect 'grep -qx " *10" "$TMP/screen"' "the two-line statement did not run"
# history: Up brings the statement back, Enter runs it again
keys Up Enter
expect '[ "$(grep -c "n_lanes" "$TMP/screen")" -ge 2 ]' "Up did not recall the statement"
# Ctrl-C stops a statement that would never end
keys "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c\\;" Enter
settle 1
keys C-c
expect 'grep -q "ovtrace: error: interrupted" "$TMP/screen"' "Ctrl-C did not interrupt the statement"
# Ctrl-C drops half-typed input; the session goes on
keys "SELECT 'dropped'," Enter C-c
keys "SELECT 6 * 7 AS answer\\;" Enter
expect 'grep -qx " *42" "$TMP/screen"' "the prompt did not go on after Ctrl-C"
expect '! grep -qx "dropped" "$TMP/screen"' "dropped input ran"
keys C-d
wait_for_exit 20 || fail "Ctrl-D did not end the session"
[ "$(cat "$TMP/rc")" = 0 ] || fail "exit status $(cat "$TMP/rc")"
sane_tty || fail "terminal not restored"
echo "ok   query prompt"
