# tests/lib/tmux.sh: polling helpers for the tests that drive ovtrace in tmux.
# Sourced (bash); the caller sets SOCK (the tmux -L socket name, may change between
# servers) and TMP (a scratch directory; the last capture is kept in $TMP/screen).
#
# No fixed sleep before an assertion: every wait polls until what is expected shows
# up, or a generous deadline passes. Deadlines are in seconds and are multiplied by
# OVTRACE_TEST_TIMEOUT_SCALE (default 1; tests/sanitize.sh sets 3 for the ASan+UBSan
# build, whose binaries are 2-5x slower, on a 2-core box often shared with others).
# A passing test still finishes as soon as the screen is right: a long deadline only
# costs time when something is really wrong.
#   screen                      capture the pane into $TMP/screen and print it
#   wait_for_text TEXT [S]      until TEXT (fixed string) is on screen; default 20 s
#   wait_until CMD [S]          until the shell command CMD succeeds (re-captures first)
#   wait_for_change CMD OLD [S] until CMD's output differs from OLD; prints the new one
#   wait_for_file FILE [S]      until FILE exists and is not empty
#   wait_for_exit [S]           until the pane's command recorded its tty ($TMP/stty)
#   settle [S]                  a fixed pause where a test must let time pass (e.g.
#                               to check that nothing changes); scaled, default 1 s

OVT_TIMEOUT_SCALE=${OVTRACE_TEST_TIMEOUT_SCALE:-1}
case $OVT_TIMEOUT_SCALE in '' | *[!0-9.]* | *.*.*) OVT_TIMEOUT_SCALE=1 ;; esac

# scaled S: S seconds times the scale, rounded up to whole seconds (at least 1)
scaled() { awk -v s="$1" -v k="$OVT_TIMEOUT_SCALE" 'BEGIN { v = s * k; i = int(v); if (i < v) i++; if (i < 1) i = 1; print i }'; }

# deadline S: the value of $SECONDS after which a wait of S (scaled) seconds gives up.
# One extra second because $SECONDS ticks in whole seconds.
_ovt_deadline() { echo $((SECONDS + $(scaled "$1") + 1)); }

screen() { tmux -L "$SOCK" capture-pane -p >"$TMP/screen" 2>/dev/null; cat "$TMP/screen"; }

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

wait_for_exit() { # [seconds]: the pane's wrapper writes $TMP/stty once ovtrace exited
    wait_for_file "$TMP/stty" "${1:-20}"
}

settle() { sleep "$(awk -v s="${1:-1}" -v k="$OVT_TIMEOUT_SCALE" 'BEGIN { printf "%.2f", s * k }')"; }
