#!/usr/bin/env bash
# Terminal restore: `ovtrace view` and `ovtrace live` killed by SIGINT, SIGTERM, SIGHUP,
# SIGSEGV, SIGUSR1, SIGALRM or SIGPIPE leave the terminal usable, and storms of SIGWINCH
# (resizes and raw signals) do not crash them. Runs the real binary in a
# tmux pane at 120x40. The pane's shell is sh (non-interactive), which, unlike
# bash, does not repair the tty after a job dies, so what is checked is ovtrace's own
# cleanup: the `stty -g` settings afterwards equal those before, the alternate
# screen is left, the cursor is visible, mouse reporting is off, and an interactive
# shell started afterwards answers a command.
#   terminal.sh CASE OVTRACE_BIN TRACE     CASE: view | live | winch-view | winch-live | huge-size
# Exit 77 (skipped) without tmux. view uses tests/data/kineto-2node.json when TRACE
# (the DeepSeek trace) is missing.
set -u
CASE=$1 BIN=$2 TRACE=$3
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
# a plain clone: the shipped DeepSeek-like trace stands in for DeepSeek's
[ -r "$TRACE" ] || TRACE=$(cd "$(dirname "$0")/../data/moe-ep" && pwd)/rank0.json
case $CASE in view | winch-view | huge-size) [ -r "$TRACE" ] || { echo "$TRACE missing: skipped"; exit 77; } ;; esac
W=120 H=40
# every check runs: fail counts ($OVT_FAILS) and the script goes on
OVT_KEEP_GOING=1
tmux_init "terminal-$CASE"
fmt() { tmux_cmd display-message -p -t s "$1"; }

# launch MODE: a fresh tmux server whose pane records the tty settings, runs ovtrace in
# the foreground, then records its exit status and the settings again, then starts an
# interactive shell.
launch() {
    local cmd
    if [ "$1" = view ]; then cmd="\"$BIN\" view \"$TRACE\""; else cmd="\"$BIN\" live --simulate"; fi
    rm -f "$TMP"/{pid,rc,base,after,stty}
    tmux_start $W $H \
        "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 PS1='rel\$ ' sh -c 'stty -g > $TMP/base; sh -c \"echo \\\$\\\$ > $TMP/pid; exec $cmd\"; echo \$? > $TMP/rc; stty -g > $TMP/after; stty -a > $TMP/stty; exec bash --norc --noprofile -i'" \
        || return 1
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
    keys 'echo REL""MARK-$((6*7))' Enter
    wait_for_text "RELMARK-42" || { fail "$1: the shell does not answer after the exit"; screen >&2; }
    echo "$1: exit $(cat "$TMP/rc"), terminal restored"
}

kill_case() { # MODE SIG
    launch "$1" || return
    kill -s "$2" "$PID"
    check_restored "$1 killed by SIG$2"
}

winch_case() { # MODE
    launch "$1" || return
    local i sizes=(20x5 200x60 1x1 80x24 300x100 40x10 121x41 2x50 250x3)
    for i in $(seq 1 150); do # resizes: tmux sends SIGWINCH and the size really changes
        local s=${sizes[$((i % ${#sizes[@]}))]}
        tmux_cmd resize-window -t s -x "${s%x*}" -y "${s#*x}" 2>/dev/null
    done
    for i in $(seq 1 3000); do kill -WINCH "$PID" 2>/dev/null || break; done # raw signals, no size change
    for i in $(seq 1 100); do
        tmux_cmd resize-window -t s -x $((30 + i)) -y $((8 + i % 40)) 2>/dev/null
        kill -WINCH "$PID" 2>/dev/null
    done
    tmux_cmd resize-window -t s -x $W -y $H
    settle 1 # the storm's signals are handled before the liveness check
    kill -0 "$PID" 2>/dev/null || { fail "$1 died during the SIGWINCH storm (rc $(cat "$TMP/rc" 2>/dev/null))"; return; }
    local marker=band:
    [ "$1" = live ] && marker=SIMULATED
    wait_for_text "$marker" || fail "$1: nothing drawn after the storm"
    keys q
    check_restored "$1 after a SIGWINCH storm, quit with q"
    [ "$(cat "$TMP/rc" 2>/dev/null)" = 0 ] || fail "$1: exit $(cat "$TMP/rc" 2>/dev/null) after q"
}

# huge-size: $LINES/$COLUMNS far beyond any screen (ncurses sizes its screen from them
# and allocates per cell) are clamped: the viewer draws, quits on q, and its peak RSS
# stays small (unclamped, 20000x20000 reached 24 GB)
huge_size_case() {
    rm -f "$TMP"/{rc,rss}
    tmux_start $W $H "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 LINES=20000 COLUMNS=20000 sh -c '/usr/bin/time -f %M -o $TMP/rss \"$BIN\" view \"$TRACE\"; echo \$? > $TMP/rc'" \
        || return 1
    wait_for_text band: 60 || { fail "huge-size: the viewer did not draw"; screen >&2; return 1; }
    keys q
    wait_for_file "$TMP/rc" 20 || { fail "huge-size: q did not quit"; return 1; }
    wait_for_file "$TMP/rss" 5
    local kb
    kb=$(tail -1 "$TMP/rss")
    [ "$kb" -lt 1000000 ] 2>/dev/null || fail "huge-size: peak RSS $kb kB (want < 1 GB)"
    echo "huge-size: peak RSS $kb kB"
}

case $CASE in
huge-size) [ -x /usr/bin/time ] || { echo "no /usr/bin/time: skipped"; exit 77; }; huge_size_case ;;
view | live) for sig in INT TERM HUP SEGV USR1 ALRM PIPE; do kill_case "$CASE" "$sig"; done ;;
winch-view) winch_case view ;;
winch-live) winch_case live ;;
*) echo "unknown case $CASE"; exit 2 ;;
esac
echo "terminal.sh $CASE: $OVT_FAILS failures"
[ "$OVT_FAILS" -eq 0 ]
