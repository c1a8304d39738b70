#!/usr/bin/env bash
# Exporting from the viewer, in tmux: `e` on a marked range names what it will export
# (the marked range, clipped, and the active search as a name filter), Tab switches to
# whole slices, the exported file's figures are the range panel's (`stats --range` of
# the input), and the file reopens on its range. DeepSeek's trace when ../shared has
# it, else the shipped DeepSeek-like trace.
# usage: export.sh OVTRACE DEEPSEEK_TRACE DATA_DIR     (exit 77 = skipped: no tmux)
set -u
BIN=$1 DS=$2 DATA=$3
[ -f "$DS" ] || DS=$DATA/moe-ep/rank0.json
W=140 H=40
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init export

tmux_run $W $H "$BIN" view "$DS"
wait_for_text "band:" 60 || fail "viewer did not draw its legend"

# a search filters names: the prompt says so, and that the range is clipped
keys / c o m b i n e Enter
wait_for_text "matches" || fail "search failed"
keys "["; keys n; keys n; keys n; keys "]"
wait_for_text "ovtrace stats --range" || fail "no range panel"
arg=$(grep -o "stats --range [0-9]*ns:[0-9]*ns" "$TMP/screen" | head -1 | awk '{print $3}')
[ -n "$arg" ] || fail "range argument not shown"
keys e
expect 'line_of "export marked range" | grep -q "clipped (Tab), names /combine/ to:"' "the e prompt does not name the filter"
keys Tab
expect 'line_of "export marked range" | grep -q "whole slices (Tab), names /combine/"' "Tab did not switch to whole slices"
keys Escape
# without the search: the whole marked range, clipped, into a file we name
keys Escape
expect '! grep -q "matches" "$TMP/screen"' "Esc did not clear the search"
keys e
expect 'line_of "export marked range, clipped (Tab) to:" | grep -q .' "prompt without a filter"
line_of "export marked range" | grep -q "names" && fail "a cleared search still shown as a filter"
keys C-u
keys -l "$TMP/range.json"
keys Enter
expect 'grep -q "exported [0-9]* events to $TMP/range.json" "$TMP/screen"' "no export message"
[ -f "$TMP/range.json" ] || fail "no file written"

# the file's figures are the panel's (= stats --range of the input)
fig() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["devices"]:
    x["streams"] = [s for s in x["streams"] if s["events"]]
print(json.dumps([d["devices"], d["total"]]))' "$1"; }
"$BIN" stats --json -q --range "$arg" "$DS" >"$TMP/want.json"
"$BIN" stats --json -q "$TMP/range.json" >"$TMP/got.json"
[ "$(fig "$TMP/want.json")" = "$(fig "$TMP/got.json")" ] || fail "exported figures differ from stats --range $arg"
# and it reopens on that range
"$BIN" view "$TMP/range.json" -q --dump --size 140x40 >"$TMP/screen2"
grep -q "Range statistics" "$TMP/screen2" || fail "the export did not reopen on its range"
echo "ok (export: range $arg)"
