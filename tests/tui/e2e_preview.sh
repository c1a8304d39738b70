#!/usr/bin/env bash
# End-to-end test of the live preview in tmux: while a trace tiled from the
# DeepSeek trace loads (slowed by view --debug-load-throttle-ms), the loading screen
# shows the progress bar and, under it, the preview: ruler, GPU group, stream labels
# and density glyphs; then the timeline replaces it.
# usage: e2e_preview.sh OVTRACE GEN_TRACE DEEPSEEK_TRACE     (exit 77 = skipped)
set -u
BIN=$1 GEN=$2 DS=$3
command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }
# a plain clone: the shipped DeepSeek-like trace stands in for DeepSeek's
[ -f "$DS" ] || DS=$(dirname "$0")/../data/moe-ep/rank0.json
[ -f "$DS" ] || { echo "$DS missing: skipped"; exit 77; }
TMP=$(mktemp -d)
SOCK="ovt-e2e-preview-$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
fail() { echo "FAIL (preview): $*"; [ -f "$TMP/screen" ] && cat "$TMP/screen"; exit 1; }
. "$(dirname "$0")/../lib/tmux.sh"

"$GEN" "$DS" "$TMP/big.json" --mb 80 >/dev/null 2>&1 || fail "gen_trace failed"
tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 \
  "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 \"$BIN\" view --debug-frame-log=$TMP/frames --debug-load-throttle-ms=300 \"$TMP/big.json\" 2> $TMP/err; echo \$? > $TMP/rc; stty -a > $TMP/stty 2>&1; sleep 60" \
  || fail "tmux did not start"

wait_for_text "q:cancel" 10 || fail "no loading screen"
# the preview: everything asserted on one capture taken while the loading screen is up
loading_with_preview() {
  grep -q "q:cancel" "$TMP/screen" &&
    grep -qE '\[[█▏▎▍▌▋▊▉·]+\] +[0-9]+%' "$TMP/screen" &&
    grep -qE '[0-9,]+ events .*ETA ' "$TMP/screen" &&
    grep -q "^Preview: [0-9]* lanes so far" "$TMP/screen" &&
    grep -qE '^time \((ns|us|ms|s)\) +0' "$TMP/screen" &&
    grep -qE '^▼ GPU 0  [0-9] streams?' "$TMP/screen" &&
    grep -qE '^  stream 7 +│.*[▁▂▃▄▅▆▇█]' "$TMP/screen" &&
    grep -qE '^▶ CPU ' "$TMP/screen"
}
wait_until loading_with_preview 60 || fail "no preview with lanes and density while loading"
cp "$TMP/screen" "$TMP/preview-screen"
grep -q "band:" "$TMP/screen" && fail "timeline legend on the loading screen"
grep -q "The timeline opens when the load completes." "$TMP/screen" && fail "the placeholder line next to the preview"
echo "preview while loading:"; sed -n '10,16p' "$TMP/preview-screen"

# then the timeline replaces it, with the same lanes
wait_for_text "band:" 120 || fail "the timeline did not open"
grep -q "q:cancel" "$TMP/screen" && fail "loading screen left on the timeline"
grep -q "Preview:" "$TMP/screen" && fail "preview left on the timeline"
wait_until 'grep -q "stream 7" "$TMP/screen"' || fail "timeline without its lanes"
pv=$(awk '$1=="preview"{print $2}' "$TMP/frames"); tl=$(awk '$1=="timeline"{print $2}' "$TMP/frames")
[ -n "$pv" ] && [ -n "$tl" ] && awk -v a="$pv" -v b="$tl" 'BEGIN{exit !(a < b)}' || fail "frame log: $(cat "$TMP/frames")"
tmux -L "$SOCK" send-keys q
wait_for_exit 20 || fail "q did not exit"
[ "$(cat "$TMP/rc")" = 0 ] || fail "exit status $(cat "$TMP/rc")"
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
echo "ok (preview)"
