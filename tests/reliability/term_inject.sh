#!/usr/bin/env bash
# Terminal injection: names from a trace and file names never reach a
# terminal raw. A trace whose kernel, stream and process names hold OSC 0 (window
# title), OSC 52 (clipboard), CSI 2J (clear), 8-bit C1 CSI/OSC (U+009B, U+009D) and
# bidi overrides/isolates (U+202E, U+2066), in files whose names hold the same:
#  - `stats`, `stats --json`, `view --dump`, `export`, error and warning messages contain
#    no ESC, no other C0 control but newline/tab, no C1 (as UTF-8 or as a raw byte) and
#    no bidi control; the escaped forms are there instead (\x1b, \u202e);
#  - `stats --json` is valid JSON and every name decodes back to the original;
#  - in tmux, `view` draws the names with '?' for each such character and the pane's
#    title is not changed by the OSC 0 name.
#   term_inject.sh OVTRACE_BIN
set -u
BIN=$1
# $TMP, fail and the tmux helpers; every check runs: fail counts ($OVT_FAILS) and the
# script goes on
. "$(dirname "$0")/../lib/tmux.sh"
OVT_KEEP_GOING=1
tmux_init term_inject
T=${OVTRACE_TEST_TIMEOUT:-60}
export LC_ALL=C.UTF-8

EVIL=$(printf 'evil\033]0;PWNED\007\342\200\256')
python3 - "$TMP" "$EVIL" <<'EOF'
import json, os, sys
d, evil = sys.argv[1], sys.argv[2]
names = {
    "osc0": "k_osc0\x1b]0;PWNED-TITLE\x07end",
    "osc52": "k_osc52\x1b]52;c;cHduZWQ=\x07end",
    "clear": "k_clear\x1b[2J\x1b[Hend",
    "c1": "k_c1\x9b2J\x9d0;T\x9cend",
    "bidi": "k_bidi\u202eevil\u202c\u2066x\u2069end",
}
ev = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "proc\x1b]0;PWNED-PROC\x07\u202e"}},
      {"ph": "M", "name": "thread_name", "pid": 1, "tid": 7, "args": {"name": "stream\x1b[2J\u2067name"}}]
ts = 0
for i in range(4):
    for k, n in names.items():
        ev.append({"ph": "X", "cat": "kernel", "name": n, "pid": 1, "tid": 7, "ts": ts, "dur": 10,
                   "args": {"device": 0, "stream": 7}})
        ts += 12
ev.append({"ph": "X", "cat": "kernel", "name": "ncclAllReduce\x1b]52;c;eA==\x07", "pid": 1, "tid": 8, "ts": 5,
           "dur": 30, "args": {"device": 0, "stream": 8}})
# ensure_ascii: the names travel as \u escapes, as a hostile trace may write them
open(os.path.join(d, "names.json"), "w").write(json.dumps(sorted(set(names.values()) | {"ncclAllReduce\x1b]52;c;eA==\x07"})))
for f in (os.path.join(d, "t.json"), os.path.join(d, evil + ".json")):
    open(f, "w").write(json.dumps({"traceEvents": ev}))
# a trace with a syntax error and one cut short, under hostile names
open(os.path.join(d, evil + "-bad.json"), "w").write('{"traceEvents": [{"ph": "X" "name": "\\u001b]0;X\\u0007"}]}')
open(os.path.join(d, evil + "-cut.json"), "w").write(json.dumps({"traceEvents": ev})[:-40])
EOF

# raw FILE: exit 0 when FILE holds a byte that must not reach a terminal (ESC, a C0
# control other than \n \t, C1 as UTF-8 or as a byte, a bidi control as UTF-8)
raw() { LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c|\xe2\x80[\x8e\x8f]' "$1"; }
# not_utf8_c1 FILE: a raw 8-bit C1 byte (not part of a UTF-8 sequence); python decides
c1_bytes() { python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); t=b.decode("utf-8","surrogateescape"); sys.exit(0 if any(0xdc80<=ord(c)<=0xdc9f for c in t) else 1)' "$1"; }
check() { # WHAT FILE
    if raw "$2" || c1_bytes "$2"; then fail "$1: raw control/bidi bytes reach the terminal: $(LC_ALL=C grep -naP '[\x1b\x9b]|\xe2\x80\xae' "$2" | head -3 | cat -v)"; fi
}

# ---- stats: the table, and the file name in its header
timeout -k 5 "$T" "$BIN" stats "$TMP/$EVIL.json" >"$TMP/stats.out" 2>"$TMP/stats.err" || fail "stats failed: $(cat -v "$TMP/stats.err")"
check "stats" "$TMP/stats.out"
check "stats (stderr)" "$TMP/stats.err"
grep -qF 'k_osc52\x1b]52;c;cHduZWQ=\x07end' "$TMP/stats.out" || fail "stats: the OSC 52 name is not shown escaped: $(cat -v "$TMP/stats.out" | grep k_osc52)"
grep -qF 'k_bidi\u202eevil\u202c\u2066x\u2069end' "$TMP/stats.out" || fail "stats: the bidi name is not shown escaped"
grep -qF 'k_c1\u009b2J\u009d0;T\u009cend' "$TMP/stats.out" || fail "stats: the C1 name is not shown escaped"
grep -qF 'evil\x1b]0;PWNED\x07\u202e.json' "$TMP/stats.out" || fail "stats: the file name is not shown escaped"
grep -qF 'stream\x1b[2J\u2067' "$TMP/stats.out" || fail "stats: the stream name (20 columns) is not shown escaped"
echo "stats: checked"

# ---- stats --json: valid, no raw bytes, names decode back to the originals
timeout -k 5 "$T" "$BIN" stats --json "$TMP/$EVIL.json" >"$TMP/stats.json" 2>"$TMP/json.err" || fail "stats --json failed"
check "stats --json" "$TMP/stats.json"
python3 - "$TMP/stats.json" "$TMP/names.json" "$TMP/$EVIL.json" <<'EOF' || fail "stats --json: not valid or names changed"
import json, sys
r = json.load(open(sys.argv[1]))
want = set(json.load(open(sys.argv[2])))
got = {k["name"] for k in r["top_kernels"]}
assert want <= got, (want - got)
assert r["files"][0]["path"].endswith(sys.argv[3].rsplit("/", 1)[1]), r["files"][0]["path"]
streams = [s["name"] for d in r["devices"] for s in d["streams"]]
assert "stream\x1b[2J\u2067name" in streams, streams
EOF
echo "stats --json: checked"

# ---- errors and warnings that name the file
timeout -k 5 "$T" "$BIN" stats "$TMP/$EVIL-bad.json" >/dev/null 2>"$TMP/err1" && fail "a broken trace loaded"
check "syntax error message" "$TMP/err1"
grep -qF 'evil\x1b]0;PWNED\x07\u202e-bad.json' "$TMP/err1" || fail "the error does not name the file escaped: $(cat -v "$TMP/err1")"
timeout -k 5 "$T" "$BIN" stats "$TMP/$EVIL-missing.json" >/dev/null 2>"$TMP/err2" && fail "a missing trace loaded"
check "missing file message" "$TMP/err2"
grep -q 'missing' "$TMP/err2" || fail "no message for a missing file"
timeout -k 5 "$T" "$BIN" stats "$TMP/$EVIL-cut.json" >/dev/null 2>"$TMP/err3"
check "truncation warning" "$TMP/err3"
grep -q 'truncated' "$TMP/err3" || fail "no truncation warning: $(cat -v "$TMP/err3")"
timeout -k 5 "$T" "$BIN" export "$TMP/t.json" -o "$TMP/$EVIL-out.json" >"$TMP/exp.out" 2>&1 || fail "export failed: $(cat -v "$TMP/exp.out")"
check "export summary" "$TMP/exp.out"
timeout -k 5 "$T" "$BIN" view --dump --frames 1 "$TMP/$EVIL.json" >"$TMP/dump.out" 2>&1 || fail "view --dump failed"
check "view --dump" "$TMP/dump.out"
echo "errors, warnings, export, view --dump: checked"

# ---- the TUI in tmux
if command -v tmux >/dev/null; then
    tmux_run 160 40 "$BIN" view "$TMP/$EVIL.json"
    tmux_cmd set -g allow-rename on 2>/dev/null
    wait_for_text "band:" 30 || fail "view did not draw"
    # select the OSC 0 kernel so the details panel shows its name too
    keys '/' 'k_osc0' Enter
    wait_for_text 'k_osc0?]0;PWNED-TITLE?end' 10 || fail "view: the OSC 0 name is not drawn with '?': $(grep -a k_osc0 "$TMP/screen" | head -2)"
    screen >/dev/null
    grep -qF 'evil?]0;PWNED??.json' "$TMP/screen" || fail "view: the file name is not drawn with '?' in the title: $(head -1 "$TMP/screen")"
    title=$(tmux_cmd display-message -p -t s '#{pane_title}')
    case $title in *PWNED*) fail "view: a name set the pane title to '$title'" ;; esac
    tmux_cmd capture-pane -p -e -t s >"$TMP/screen-e"
    LC_ALL=C grep -qaP '\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\xc2[\x80-\x9f]' "$TMP/screen-e" && fail "view: bidi or C1 characters on the screen"
    echo "view in tmux: checked (pane title '$title')"
else
    echo "tmux not installed: TUI part skipped"
fi

echo "term_inject.sh: $OVT_FAILS failures"
[ "$OVT_FAILS" -eq 0 ]
