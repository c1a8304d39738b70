# tests/lib/tmux.sh: the one helper library of the tests that drive ovtrace in tmux.
# Sourced (bash) by every such script:
#   . "$(dirname "$0")/../lib/tmux.sh"
#   tmux_require                 # exit 77 (skipped) without tmux
#   tmux_init NAME               # $TMP, socket names, the cleanup trap
#   tmux_run 120 40 "$BIN" view "$TRACE"
#   wait_for_text "band:" 60 || fail "viewer did not draw"
#   keys / c o m b i n e Enter
#   expect 'line_of " name " | grep -q combine' "selection is not a combine kernel"
#
# Servers: every tmux_start/tmux_run starts a fresh tmux server under a socket name of
# its own (ovt-NAME-N, in $TMP: TMUX_TMPDIR) and ends the one before it. Reusing a name
# right after kill-server races the dying server ("server exited unexpectedly"); the
# cleanup trap ends every server the script started and removes $TMP.
#
# No fixed sleep before an assertion: every wait polls until what is expected shows
# up, or a generous deadline passes. Deadlines are in seconds and are multiplied by
# OVTRACE_TEST_TIMEOUT_SCALE (default 1; tests/sanitize.sh sets 3 for the ASan+UBSan
# build, whose binaries are 2-5x slower, on a 2-core box often shared with others).
# A passing test still finishes as soon as the screen is right: a long deadline only
# costs time when something is really wrong. Keys are queued by tmux and read in
# order, so no pause is needed between them: what a key does is then awaited.
#
# Setup and servers
#   tmux_require                the script is skipped (exit 77) when tmux is missing
#   tmux_init NAME              $TMP (a fresh scratch directory), the socket names,
#                               the EXIT trap (tmux_cleanup); NAME labels messages
#   tmux_start W H CMD          a fresh server whose one pane (session "s", W x H)
#                               runs the shell command CMD; $SOCK names its socket
#   tmux_run W H [VAR=V...] PROGRAM ARGS...
#                               PROGRAM ARGS in a fresh server, with TERM=$OVT_TERM
#                               (default xterm-256color) and a UTF-8 locale; the pane
#                               records the process id in $TMP/pid, then after the exit
#                               its status in $TMP/rc and `stty -a` in $TMP/stty.
#                               OVT_CD=DIR runs it in DIR; OVT_STDERR=FILE sends its
#                               stderr to FILE (the screen shows it otherwise)
#   tmux_cmd ARGS...            tmux ARGS on the current server (set-option, ...)
#   tmux_cleanup                every server ended, $TMP removed (the EXIT trap)
# Keys and screen
#   keys KEY...                 tmux send-keys KEY... to the pane
#   screen                      capture the pane into $TMP/screen and print it
#   line_of TEXT                the first line of the last capture holding TEXT
# Waits and assertions
#   wait_for_text TEXT [S]      until TEXT (fixed string) is on screen; default 20 s
#   wait_until CMD [S]          until the shell command CMD succeeds (re-captures first)
#   wait_for_change CMD OLD [S] until CMD's output differs from OLD; prints the new one
#   wait_for_file FILE [S]      until FILE exists and is not empty
#   wait_for_exit [S]           until the pane's program has exited ($TMP/stty written)
#   expect CMD MESSAGE [S]      wait_until CMD, else fail MESSAGE
#   sane_tty                    $TMP/stty shows canonical mode and echo
#   fail MESSAGE                "FAIL (NAME): MESSAGE" and the last capture, exit 1;
#                               with OVT_KEEP_GOING=1 it counts ($OVT_FAILS), prints to
#                               stderr and returns 1 so that the script goes on
#   settle [S]                  a fixed pause where a test must let time pass (e.g.
#                               to check that nothing changes); scaled, default 1 s
#   scaled S                    S seconds times the scale, whole seconds

OVT_TIMEOUT_SCALE=${OVTRACE_TEST_TIMEOUT_SCALE:-1}
case $OVT_TIMEOUT_SCALE in '' | *[!0-9.]* | *.*.*) OVT_TIMEOUT_SCALE=1 ;; esac
OVT_NAME=${OVT_NAME:-$(basename "$0" .sh)}
OVT_FAILS=0
OVT_NSTART=0
OVT_SOCK_BASE=""
SOCK=""

# ---- setup and servers ----

tmux_require() {
    command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }
}

tmux_init() { # NAME
    OVT_NAME=$1
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/ovtrace-$1.XXXXXX") || { echo "FAIL ($1): no temp directory"; exit 1; }
    # the servers' sockets live in $TMP too (a killed server leaves its socket file)
    export TMUX_TMPDIR=$TMP
    OVT_SOCK_BASE="ovt-$1"
    trap tmux_cleanup EXIT
}

tmux_cleanup() {
    local i
    for ((i = 1; i <= OVT_NSTART; i++)); do tmux -L "$OVT_SOCK_BASE-$i" kill-server 2>/dev/null; done
    [ -n "${TMP:-}" ] && rm -rf "$TMP"
}

tmux_start() { # W H CMD
    [ "$OVT_NSTART" -gt 0 ] && tmux -L "$SOCK" kill-server 2>/dev/null
    OVT_NSTART=$((OVT_NSTART + 1))
    SOCK="$OVT_SOCK_BASE-$OVT_NSTART"
    rm -f "$TMP/screen"
    tmux -L "$SOCK" -f /dev/null new-session -d -s s -x "$1" -y "$2" "$3" || fail "tmux did not start"
}

# _ovt_quote WORD: WORD in single quotes for the pane's sh (any bytes, no expansion)
_ovt_quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

tmux_run() { # W H [VAR=VALUE...] PROGRAM ARGS...
    local w=$1 h=$2 envs="" cmd="" a
    shift 2
    while [ $# -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
        envs+=" $(_ovt_quote "$1")"
        shift
    done
    for a in "$@"; do cmd+=" $(_ovt_quote "$a")"; done
    rm -f "$TMP/pid" "$TMP/rc" "$TMP/stty"
    local run="env TERM=${OVT_TERM:-xterm-256color} LANG=C.UTF-8 LC_ALL=C.UTF-8$envs"
    run+=" sh -c 'echo \$\$ > $TMP/pid; exec \"\$0\" \"\$@\"'$cmd"
    [ -n "${OVT_STDERR:-}" ] && run+=" 2>$OVT_STDERR"
    [ -n "${OVT_CD:-}" ] && run="cd $OVT_CD && $run"
    tmux_start "$w" "$h" "$run; echo \$? > $TMP/rc; stty -a > $TMP/stty 2>&1; sleep 600"
}

tmux_cmd() { tmux -L "$SOCK" "$@"; }

# ---- keys and screen ----

keys() { tmux -L "$SOCK" send-keys "$@"; }

screen() { tmux -L "$SOCK" capture-pane -p >"$TMP/screen" 2>/dev/null; cat "$TMP/screen"; }

line_of() { grep -F -- "$1" "$TMP/screen" | head -1; }

# ---- waits and assertions ----

# scaled S: S seconds times the scale, rounded up to whole seconds (at least 1)
scaled() { awk -v s="$1" -v k="$OVT_TIMEOUT_SCALE" 'BEGIN { v = s * k; i = int(v); if (i < v) i++; if (i < 1) i = 1; print i }'; }

# deadline S: the value of $SECONDS after which a wait of S (scaled) seconds gives up.
# One extra second because $SECONDS ticks in whole seconds.
_ovt_deadline() { echo $((SECONDS + $(scaled "$1") + 1)); }

wait_for_text() { # TEXT [seconds]
    local end
    end=$(_ovt_deadline "${2:-20}")
    while :; do
        screen | grep -qF -- "$1" && return 0
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.1
    done
}

wait_until() { # 'CMD' [seconds]: CMD is eval'ed after each capture of the screen
    local end
    end=$(_ovt_deadline "${2:-20}")
    while :; do
        screen >/dev/null
        eval "$1" >/dev/null 2>&1 && return 0
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.1
    done
}

wait_for_change() { # 'CMD' OLD [seconds]: prints CMD's last output; 0 when it differs from OLD
    local end now
    end=$(_ovt_deadline "${3:-20}")
    while :; do
        now=$(eval "$1")
        if [ "$now" != "$2" ]; then
            printf '%s\n' "$now"
            return 0
        fi
        [ "$SECONDS" -ge "$end" ] && { printf '%s\n' "$now"; return 1; }
        sleep 0.1
    done
}

wait_for_file() { # FILE [seconds]
    local end
    end=$(_ovt_deadline "${2:-20}")
    while :; do
        [ -s "$1" ] && return 0
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.05
    done
}

wait_for_exit() { # [seconds]: tmux_run's pane writes $TMP/stty once the program exited
    wait_for_file "$TMP/stty" "${1:-20}"
}

# expect 'CONDITION' MESSAGE [seconds]: CONDITION (on $TMP/screen, re-captured) must hold
# within the deadline; a frame may be caught half drawn, so positive checks are polled
expect() { wait_until "$1" "${3:-20}" || fail "$2"; }

sane_tty() { grep -Eq '(^| )icanon( |$)' "$TMP/stty" && grep -Eq '(^| )echo( |$)' "$TMP/stty"; }

fail() {
    if [ "${OVT_KEEP_GOING:-0}" = 1 ]; then
        echo "FAIL ($OVT_NAME): $*" >&2
        OVT_FAILS=$((OVT_FAILS + 1))
        return 1
    fi
    echo "FAIL ($OVT_NAME): $*"
    [ -f "${TMP:-}/screen" ] && cat "$TMP/screen"
    exit 1
}

settle() { sleep "$(awk -v s="${1:-1}" -v k="$OVT_TIMEOUT_SCALE" 'BEGIN { printf "%.2f", s * k }')"; }
