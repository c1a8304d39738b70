#!/usr/bin/env bash
# End-to-end test of the live preview in tmux: while a trace tiled from the
# DeepSeek trace loads (slowed by view --debug-load-throttle-ms), the loading screen
# shows the progress bar and, under it, the preview: ruler, GPU group, stream labels
# and density glyphs; then the timeline replaces it.
# usage: load_preview.sh OVTRACE GEN_TRACE DEEPSEEK_TRACE     (exit 77 = skipped)
set -u
BIN=$1 GEN=$2 DS=$3
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
# a plain clone: the shipped DeepSeek-like trace stands in for DeepSeek's
[ -f "$DS" ] || DS=$(dirname "$0")/../data/moe-ep/rank0.json
[ -f "$DS" ] || { echo "$DS missing: skipped"; exit 77; }
tmux_init load_preview

"$GEN" "$DS" "$TMP/big.json" --mb 80 >/dev/null 2>&1 || fail "gen_trace failed"
OVT_STDERR=$TMP/err tmux_run 120 40 \
  "$BIN" view --debug-frame-log="$TMP/frames" --debug-load-throttle-ms=300 "$TMP/big.json"

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
keys q
wait_for_exit 20 || fail "q did not exit"
[ "$(cat "$TMP/rc")" = 0 ] || fail "exit status $(cat "$TMP/rc")"
[ -s "$TMP/err" ] && fail "unexpected stderr: $(cat "$TMP/err")"
echo "ok (preview)"
