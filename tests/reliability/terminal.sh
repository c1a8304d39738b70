#!/usr/bin/env bash
# Terminal restore ("Terminal"): `ovtrace view` and `ovtrace live` killed by
# SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGUSR1, SIGALRM or SIGPIPE
# leave the terminal usable, and storms of
# SIGWINCH (resizes and raw signals) do not crash them. Runs the real binary in a
# tmux pane at 120x40. The pane's shell is sh (non-interactive), which, unlike
# bash, does not repair the tty after a job dies, so what is checked is ovtrace's own
# cleanup: the `stty -g` settings afterwards equal those before, the alternate
# screen is left, the cursor is visible, mouse reporting is off, and an interactive
# shell started afterwards answers a command.
#   terminal.sh CASE OVTRACE_BIN TRACE     CASE: view | live | winch-view | winch-live
# Exit 77 (skipped) without tmux. view uses tests/data/kineto-2node.json when TRACE
# (the DeepSeek trace) is missing.
set -u
CASE=$1 BIN=$2 TRACE=$3
command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }
# a plain clone: the shipped DeepSeek-like trace stands in for DeepSeek's
[ -r "$TRACE" ] || TRACE=$(cd "$(dirname "$0")/../data/moe-ep" && pwd)/rank0.json
case $CASE in view | winch-view) [ -r "$TRACE" ] || { echo "$TRACE missing: skipped"; exit 77; } ;; esac
TMP=$(mktemp -d /tmp/ovtrace-term-XXXXXX)
SOCK0="ovt-rel-$CASE-$$"
SOCK=$SOCK0
NSTART=0
W=120 H=40
fails=0
cleanup() { for i in $(seq 0 "$NSTART"); do tmux -L "$SOCK0-$i" kill-server 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT
fail() { echo "FAIL ($CASE): $*" >&2; fails=$((fails + 1)); }

# shared polling helpers (screen, wait_for_text, wait_until, wait_for_file, settle):
# deadlines scale with OVTRACE_TEST_TIMEOUT_SCALE (3 under ASan, tests/sanitize.sh)
. "$(dirname "$0")/../lib/tmux.sh"
fmt() { tmux -L "$SOCK" display-message -p -t s "$1"; }

# start MODE: the pane records the tty settings, runs ovtrace in the foreground, then
# records its exit status and the settings again, then starts an interactive shell.
start() {
    local cmd
    if [ "$1" = view ]; then cmd="\"$BIN\" view \"$TRACE\""; else cmd="\"$BIN\" live --simulate"; fi
    rm -f "$TMP"/{pid,rc,base,after,stty}
    tmux -L "$SOCK" kill-server 2>/dev/null
    NSTART=$((NSTART + 1))
    SOCK="$SOCK0-$NSTART" # a fresh server each time (reusing a socket races its shutdown)
    tmux -L "$SOCK" -f /dev/null new-session -d -s s -x $W -y $H \
        "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 PS1='rel\$ ' sh -c 'stty -g > $TMP/base; sh -c \"echo \\\$\\\$ > $TMP/pid; exec $cmd\"; echo \$? > $TMP/rc; stty -g > $TMP/after; stty -a > $TMP/stty; exec bash --norc --noprofile -i'" \
        || { fail "tmux did not start"; return 1; }
    wait_for_file "$TMP/pid" || { fail "ovtrace did not start"; return 1; }
    local marker=band:
    [ "$1" = live ] && marker=SIMULATED
    wait_for_text "$marker" 60 || { fail "$1 did not draw ('$marker' not on screen)"; screen >&2; return 1; }
    PID=$(cat "$TMP/pid")
}

# check_restored WHAT: after ovtrace exited
check_restored() {
    wait_for_file "$TMP/rc" 20 || { fail "$1: ovtrace did not exit within $(scaled 20) s"; kill -9 "$PID" 2>/dev/null; return; }
    wait_for_file "$TMP/after" && wait_for_file "$TMP/stty" || { fail "$1: no tty settings recorded after the exit"; return; }
    cmp -s "$TMP/base" "$TMP/after" || fail "$1: tty settings changed: $(cat "$TMP/stty" | tr '\n' ' ' | head -c 600)"
    grep -qE '(^| )icanon( |$)' "$TMP/stty" && grep -qE '(^| )echo( |$)' "$TMP/stty" \
        || fail "$1: terminal left without icanon/echo"
    # tmux parses the pane's last output asynchronously: poll for the restored modes
    wait_until '[ "$(fmt "#{alternate_on}")" = 0 ] && [ "$(fmt "#{cursor_flag}")" = 1 ] && [ "$(fmt "#{mouse_any_flag}")" = 0 ]' 10
    [ "$(fmt '#{alternate_on}')" = 0 ] || fail "$1: still on the alternate screen"
    [ "$(fmt '#{cursor_flag}')" = 1 ] || fail "$1: cursor left hidden"
    [ "$(fmt '#{mouse_any_flag}')" = 0 ] || fail "$1: mouse reporting left on"
    tmux -L "$SOCK" send-keys -t s 'echo REL""MARK-$((6*7))' Enter
    wait_for_text "RELMARK-42" || { fail "$1: the shell does not answer after the exit"; screen >&2; }
    echo "$1: exit $(cat "$TMP/rc"), terminal restored"
}

kill_case() { # MODE SIG
    start "$1" || return
    kill -s "$2" "$PID"
    check_restored "$1 killed by SIG$2"
}

winch_case() { # MODE
    start "$1" || return
    local i sizes=(20x5 200x60 1x1 80x24 300x100 40x10 121x41 2x50 250x3)
    for i in $(seq 1 150); do # resizes: tmux sends SIGWINCH and the size really changes
        local s=${sizes[$((i % ${#sizes[@]}))]}
        tmux -L "$SOCK" resize-window -t s -x "${s%x*}" -y "${s#*x}" 2>/dev/null
    done
    for i in $(seq 1 3000); do kill -WINCH "$PID" 2>/dev/null || break; done # raw signals, no size change
    for i in $(seq 1 100); do
        tmux -L "$SOCK" resize-window -t s -x $((30 + i)) -y $((8 + i % 40)) 2>/dev/null
        kill -WINCH "$PID" 2>/dev/null
    done
    tmux -L "$SOCK" resize-window -t s -x $W -y $H
    settle 1 # the storm's signals are handled before the liveness check
    kill -0 "$PID" 2>/dev/null || { fail "$1 died during the SIGWINCH storm (rc $(cat "$TMP/rc" 2>/dev/null))"; return; }
    local marker=band:
    [ "$1" = live ] && marker=SIMULATED
    wait_for_text "$marker" || fail "$1: nothing drawn after the storm"
    tmux -L "$SOCK" send-keys -t s q
    check_restored "$1 after a SIGWINCH storm, quit with q"
    [ "$(cat "$TMP/rc" 2>/dev/null)" = 0 ] || fail "$1: exit $(cat "$TMP/rc" 2>/dev/null) after q"
}

case $CASE in
view | live) for sig in INT TERM HUP SEGV USR1 ALRM PIPE; do kill_case "$CASE" "$sig"; done ;;
winch-view) winch_case view ;;
winch-live) winch_case live ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
echo "terminal.sh $CASE: $fails failures"
[ "$fails" -eq 0 ]
