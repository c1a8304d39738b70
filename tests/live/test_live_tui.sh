#!/usr/bin/env bash
# The live TUI in tmux: the view advances (two captures a second apart differ
# in the ruler), the drop counter shows, Z freezes the display while collection goes
# on, E saves the buffer to a loadable file, q exits 0 with the terminal restored; a
# program source (stand-in, TEST-ONLY --debug-assume-driver) shows the CUPTI drop
# figure, Ctrl-C leaves (130) and stops the program, whose output went to a log file.
# usage: test_live_tui.sh OVTRACE LIVE_FAKE_PROGRAM        (exit 77: no tmux)
set -u
BIN=$1 FAKE=$2
command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ovtrace-live-tui.XXXXXX")
# every start() gets a fresh server name: reusing one right after kill-server races
# the dying server ("server exited unexpectedly")
SOCK0="ovt-live-$$" NSTART=0 SOCK="ovt-live-$$-0"
W=160 H=40
cleanup() { for i in $(seq 0 "$NSTART"); do tmux -L "$SOCK0-$i" kill-server 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$TMP/screen" ] && cat "$TMP/screen"; exit 1; }
# waits poll; their limits scale with OVTRACE_TEST_TIMEOUT_SCALE (3 under ASan)
SCALE=${OVTRACE_TEST_TIMEOUT_SCALE:-1}
case $SCALE in '' | *[!0-9]*) SCALE=1 ;; esac
screen() { tmux -L "$SOCK" capture-pane -p > "$TMP/screen"; cat "$TMP/screen"; }
wait_for() { # TEXT [tries of 0.1 s]
  for _ in $(seq 1 $(( ${2:-100} * SCALE ))); do
    screen | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  return 1
}
wait_gone() { # TEXT on the title line [tries of 0.1 s]
  for _ in $(seq 1 $(( ${2:-50} * SCALE ))); do
    screen | sed -n 1p | grep -qF -- "$1" || return 0
    sleep 0.1
  done
  return 1
}
wait_file() { for _ in $(seq 1 $((100 * SCALE))); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
# advances OLD: polls until the ruler differs from OLD (10 s, scaled)
advances() {
  for _ in $(seq 1 $((100 * SCALE))); do
    [ "$(ruler)" != "$1" ] && return 0
    sleep 0.1
  done
  return 1
}
keys() { tmux -L "$SOCK" send-keys "$@"; sleep 0.3; }
ruler() { screen | sed -n 2p; }
# start ENV... -- ARGS: the live TUI in a fresh tmux server; afterwards the pane records
# the exit status and the terminal settings
start() {
  NSTART=$((NSTART + 1)) SOCK="$SOCK0-$NSTART"
  tmux -L "$SOCK" -f /dev/null new-session -d -x $W -y $H \
    "cd $TMP && env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TMPDIR=$TMP $* 2>$TMP/stderr; echo \$? > $TMP/rc; stty -a > $TMP/stty 2>&1; sleep 60" \
    || fail "tmux did not start"
}
check_exit() { # expected status
  wait_file "$TMP/rc" || fail "the TUI did not exit"
  [ "$(cat "$TMP/rc")" = "$1" ] || fail "exit status $(cat "$TMP/rc"), expected $1: $(cat "$TMP/stderr")"
  wait_file "$TMP/stty" || fail "no stty output"
  grep -qw -- "-icanon" "$TMP/stty" && fail "terminal left in non-canonical mode: $(cat "$TMP/stty")"
  grep -qw -- "-echo" "$TMP/stty" && fail "terminal left without echo: $(cat "$TMP/stty")"
  grep -qw "icanon" "$TMP/stty" || fail "stty: $(cat "$TMP/stty")"
}

# ---- simulated source ----
start "$BIN" live --simulate --speed 4
wait_for "LIVE drops" || fail "no live title with the drop counter"
grep -q "SIMULATED prefill" "$TMP/screen" || fail "not marked SIMULATED"
sed -n 1p "$TMP/screen" | grep -Eq "drops [0-9]+ " || fail "drop counter: $(sed -n 1p "$TMP/screen")"
sed -n 1p "$TMP/screen" | grep -q "follow" || fail "not in follow mode"
r1=$(ruler)
advances "$r1" || fail "the ruler did not advance: $r1"

# Z freezes: the ruler stays while collection goes on; Z again resumes
keys Z
wait_for "FROZEN" 30 || fail "Z did not freeze"
r1=$(ruler); sleep 1; r2=$(ruler)
[ "$r1" = "$r2" ] || fail "frozen display changed: '$r1' -> '$r2'"
keys Z
wait_gone FROZEN || fail "Z did not resume"
advances "$r2" || fail "the view did not advance after resuming"

# Space on a lane freezes too (on a group header it folds): j moves off the header
keys j Space
wait_for "FROZEN" 30 || fail "Space on a lane did not freeze"
keys p
wait_gone FROZEN || fail "p did not resume"

# E saves the whole buffer: the prompt offers live-<time>.json.zst
keys E
wait_for "save buffer to: live-" 30 || fail "no save prompt"
grep -Eq "live-[0-9]{8}-[0-9]{6}\.json\.zst" "$TMP/screen" || fail "default name"
keys C-u
tmux -L "$SOCK" send-keys -l "$TMP/saved.json.zst"
keys Enter
wait_for "saved the buffer" 100 || fail "no save result in the status bar"
"$BIN" stats "$TMP/saved.json.zst" > "$TMP/saved.stats" 2>&1 || fail "saved buffer does not load: $(cat "$TMP/saved.stats")"
grep -q "dpsk::ep::intranode::dispatch" "$TMP/saved.stats" || fail "saved buffer lacks the dispatch kernels"
zstd -dcq "$TMP/saved.json.zst" | grep -q '"simulated": true' || fail "saved buffer not marked simulated"
# a bad path reports the error and the session goes on
keys E C-u
tmux -L "$SOCK" send-keys -l "/nonexistent-dir/x.json"
keys Enter
wait_for "save failed" 50 || fail "no error for a bad path"

keys q
check_exit 0
tmux -L "$SOCK" kill-server 2>/dev/null
rm -f "$TMP/rc" "$TMP/stty"

# ---- a program source (stand-in for a CUDA program under CUPTI) ----
mkdir -p "$TMP/lib" && : > "$TMP/lib/libovtrace_inject.so"
start OVTRACE_LIBDIR=$TMP/lib "$BIN" live --debug-assume-driver -- "$FAKE" stream
wait_for "LIVE drops" || fail "program source: no live title: $(cat "$TMP/stderr")"
sed -n 1p "$TMP/screen" | grep -Eq "drops 0 cupti [0-9]+" || fail "no CUPTI drop figure: $(sed -n 1p "$TMP/screen")"
grep -q "CUPTI injected" "$TMP/screen" || fail "source not named"
grep -q "SIMULATED" "$TMP/screen" && fail "real data marked SIMULATED"
r1=$(ruler)
advances "$r1" || fail "program source: the ruler did not advance"
keys C-c
check_exit 130
grep -q "program exited with status 0" "$TMP/stderr" || fail "the program was not stopped cleanly: $(cat "$TMP/stderr")"
log=$(sed -n 's/.*its output: //p' "$TMP/stderr")
[ -n "$log" ] && grep -q "OVTRACE_SHM=set" "$log" || fail "program output not in the log: $(cat "$TMP/stderr")"
echo "ok"
