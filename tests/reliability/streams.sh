#!/usr/bin/env bash
# Inputs that can be read only once: process substitution <(...), a pipe on
# standard input ("-"), a FIFO; plain, gzip and zstd. Each must load exactly as the
# regular file does, under a timeout (a loader that opens a FIFO twice waits forever).
# Commands that read a source again (export) must refuse it with a message.
#   streams.sh OVTRACE_BIN
set -u
bin=$1
for tool in zstd gzip mkfifo; do
    command -v "$tool" >/dev/null || { echo "streams.sh: $tool not found: skipped"; exit 77; }
done
tmp=$(mktemp -d /tmp/ovtrace-streams-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
T=${OVTRACE_TEST_TIMEOUT:-30}
fails=0
n=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# 3 MB of trace: more than a pipe buffer and than one read of the compressed reader
python3 - "$tmp/t.json" <<'PY'
import sys
ev = []
for i in range(20000):
    ev.append('{"ph":"X","cat":"kernel","name":"gemm_%d","pid":0,"tid":%d,"ts":%d,"dur":3,'
              '"args":{"device":0,"stream":%d,"correlation":%d}}' % (i % 50, 7 + i % 3, i * 5, 7 + i % 3, i + 1))
open(sys.argv[1], "w").write('{"traceEvents":[\n' + ",\n".join(ev) + "\n]}\n")
PY
gzip -c "$tmp/t.json" >"$tmp/t.json.gz"
zstd -q -c "$tmp/t.json" >"$tmp/t.json.zst"
"$bin" stats --no-cache "$tmp/t.json" >"$tmp/ref" 2>&1 || fail "stats of the regular file failed: $(cat "$tmp/ref")"
tail -n +2 "$tmp/ref" >"$tmp/ref.body" # the first line names the file and its compression
grep -q '^20000 events' "$tmp/ref.body" || fail "reference: not 20000 events: $(head -3 "$tmp/ref.body")"

# check WHAT RC: exit 0, and the same report as the regular file
check() {
    n=$((n + 1))
    if [ "$2" -eq 124 ] || [ "$2" -eq 137 ]; then fail "$1: hang (timeout ${T}s)"; return; fi
    [ "$2" -eq 0 ] || { fail "$1: exit $2: $(head -c 600 "$tmp/err")"; return; }
    tail -n +2 "$tmp/out" | cmp -s - "$tmp/ref.body" || fail "$1: report differs from the regular file's"
}

for f in t.json t.json.gz t.json.zst; do
    timeout -k 5 "$T" "$bin" stats <(cat "$tmp/$f") >"$tmp/out" 2>"$tmp/err"
    check "stats <(cat $f)" $?
    cat "$tmp/$f" | timeout -k 5 "$T" "$bin" stats - >"$tmp/out" 2>"$tmp/err"
    check "cat $f | stats -" "${PIPESTATUS[1]}"
    # with --cache too: the cache must not open (peek at) the FIFO before the parser
    for opt in --quiet --cache; do
        rm -f "$tmp/fifo"
        mkfifo "$tmp/fifo"
        # the writer opens the FIFO inside its own timeout: a reader that never comes ends it
        timeout -k 5 "$T" sh -c 'cat "$1" >"$2"' _ "$tmp/$f" "$tmp/fifo" 2>/dev/null &
        writer=$!
        timeout -k 5 "$T" "$bin" stats $opt "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"
        check "stats $opt FIFO ($f)" $?
        wait "$writer"
    done
done

# a stream is read once: export (which reads each event's text again) refuses it
n=$((n + 1))
timeout -k 5 "$T" "$bin" export <(cat "$tmp/t.json") -o "$tmp/x.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q 'not a regular file' "$tmp/err"; then
    fail "export of a pipe: exit $rc, expected 1 with 'not a regular file': $(head -c 400 "$tmp/err")"
fi
[ ! -e "$tmp/x.json" ] || fail "export of a pipe: wrote an output"
ls "$tmp" | grep -q 'tmp' && fail "export of a pipe: left a temporary file: $(ls "$tmp")"

echo "streams.sh: $n cases, $fails failures"
[ "$fails" -eq 0 ]
