#!/usr/bin/env bash
# The live TUI in tmux: the view advances (the ruler changes), the drop counter shows,
# Z freezes the display while collection goes on, E saves the buffer to a loadable file,
# q exits 0 with the terminal restored; a program source (stand-in, TEST-ONLY
# --debug-assume-driver) shows the CUPTI drop figure, Ctrl-C leaves (130) and stops the
# program, whose output went to a log file.
# usage: tui.sh OVTRACE LIVE_FAKE_PROGRAM        (exit 77: no tmux)
set -u
BIN=$1 FAKE=$2
W=160 H=40
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init live-tui
# ovtrace runs in $TMP (its working and temp directory), its stderr in $TMP/stderr
OVT_CD=$TMP OVT_STDERR=$TMP/stderr

ruler() { screen | sed -n 2p; }
# advances OLD: polls until the ruler differs from OLD
advances() { wait_for_change ruler "$1" >/dev/null; }
# not_on_title TEXT: polls until TEXT has left the title line
not_on_title() { wait_until "! sed -n 1p \"\$TMP/screen\" | grep -qF -- '$1'"; }
check_exit() { # expected status
  wait_for_file "$TMP/rc" || fail "the TUI did not exit"
  [ "$(cat "$TMP/rc")" = "$1" ] || fail "exit status $(cat "$TMP/rc"), expected $1: $(cat "$TMP/stderr")"
  wait_for_file "$TMP/stty" || fail "no stty output"
  grep -qw -- "-icanon" "$TMP/stty" && fail "terminal left in non-canonical mode: $(cat "$TMP/stty")"
  grep -qw -- "-echo" "$TMP/stty" && fail "terminal left without echo: $(cat "$TMP/stty")"
  grep -qw "icanon" "$TMP/stty" || fail "stty: $(cat "$TMP/stty")"
}

# ---- simulated source ----
tmux_run $W $H TMPDIR="$TMP" "$BIN" live --simulate --speed 4
wait_for_text "LIVE drops" || fail "no live title with the drop counter"
grep -q "SIMULATED prefill" "$TMP/screen" || fail "not marked SIMULATED"
sed -n 1p "$TMP/screen" | grep -Eq "drops [0-9]+ " || fail "drop counter: $(sed -n 1p "$TMP/screen")"
sed -n 1p "$TMP/screen" | grep -q "follow" || fail "not in follow mode"
r1=$(ruler)
advances "$r1" || fail "the ruler did not advance: $r1"

# Z freezes: once the whole buffer has replaced the followed window (built in the
# background), the ruler stays while collection goes on; Z again resumes
keys Z
wait_for_text "FROZEN" || fail "Z did not freeze"
wait_for_text "display frozen: the whole buffer" || fail "the whole buffer did not arrive"
r1=$(ruler); settle 1; r2=$(ruler)
[ "$r1" = "$r2" ] || fail "frozen display changed: '$r1' -> '$r2'"
keys Z
not_on_title FROZEN || fail "Z did not resume"
advances "$r2" || fail "the view did not advance after resuming"

# Space on a lane freezes too (on a group header it folds): j moves off the header
keys j Space
wait_for_text "FROZEN" || fail "Space on a lane did not freeze"
keys p
not_on_title FROZEN || fail "p did not resume"

# E saves the whole buffer: the prompt offers live-<time>.json.zst
keys E
wait_for_text "save buffer to: live-" || fail "no save prompt"
grep -Eq "live-[0-9]{8}-[0-9]{6}\.json\.zst" "$TMP/screen" || fail "default name"
keys C-u
keys -l "$TMP/saved.json.zst"
keys Enter
wait_for_text "saved the buffer" || fail "no save result in the status bar"
"$BIN" stats "$TMP/saved.json.zst" > "$TMP/saved.stats" 2>&1 || fail "saved buffer does not load: $(cat "$TMP/saved.stats")"
grep -q "dpsk::ep::intranode::dispatch" "$TMP/saved.stats" || fail "saved buffer lacks the dispatch kernels"
zstd -dcq "$TMP/saved.json.zst" | grep -q '"simulated": true' || fail "saved buffer not marked simulated"
# a bad path reports the error and the session goes on
keys E C-u
keys -l "/nonexistent-dir/x.json"
keys Enter
wait_for_text "save failed" || fail "no error for a bad path"

keys q
check_exit 0

# ---- a program source (stand-in for a CUDA program under CUPTI) ----
mkdir -p "$TMP/lib" && : > "$TMP/lib/libovtrace_inject.so"
tmux_run $W $H TMPDIR="$TMP" OVTRACE_LIBDIR="$TMP/lib" "$BIN" live --debug-assume-driver -- "$FAKE" stream
wait_for_text "LIVE drops" || fail "program source: no live title: $(cat "$TMP/stderr")"
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
