#!/usr/bin/env bash
# Decompression bombs: 300 MB of whitespace in a few hundred KB of zstd or
# gzip, between events, after a comma, in the top-level object, and inside one event.
# Whitespace between values must stream through in bounded memory (a window that kept
# it, rescanning it after every refill, takes minutes and gigabytes); a single value over
# --max-token (default 256 MB) is an error with its byte offset, in bounded memory.
# Every run has a timeout and a ceiling on its peak RSS.
#   bombs.sh OVTRACE_BIN
set -u
bin=$1
for tool in zstd gzip /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "bombs.sh: $tool not found: skipped"; exit 77; }
done
tmp=$(mktemp -d /tmp/ovtrace-bombs-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
T=${OVTRACE_TEST_TIMEOUT:-120}
fails=0
n=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
EV='{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":5,"args":{"device":0,"stream":7}}'

# gen OUT COMPRESSOR PREFIX SUFFIX BYTES: PREFIX, BYTES of blanks, SUFFIX, compressed
gen() {
    { printf '%s' "$3"; head -c "$5" /dev/zero | tr '\0' ' '; printf '%s' "$4"; } | $2 >"$tmp/$1"
}

# The RSS ceilings are for a normal build; ASan's quarantine keeps freed windows (the
# window grows by realloc) and its shadow adds more: 3x there (tests/sanitize.sh).
scale=1
if ldd "$bin" 2>/dev/null | grep -q 'libasan'; then scale=3; fi

# run NAME RSS_MB ARGS...: ovtrace ARGS under a timeout; sets rc, err, out, rss (MB)
run() {
    local name=$1 limit=$(($2 * scale))
    shift 2
    n=$((n + 1))
    timeout -k 5 "$T" /usr/bin/time -o "$tmp/time" -f '%M %e' "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    # the last line: time says "Command exited with non-zero status" before it
    local kb secs
    read -r kb secs < <(tail -n 1 "$tmp/time" 2>/dev/null)
    rss=$((${kb:-0} / 1024))
    echo "$name: exit $rc, ${secs:-?} s, peak RSS $rss MB"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then fail "$name: hang (timeout ${T}s)"; return 1; fi
    [ "$rss" -le "$limit" ] || fail "$name: peak RSS $rss MB, over $limit MB"
    return 0
}

B=$((300 << 20))
gen between.json.zst "zstd -q -1" "[$EV," "$EV]" $B
gen toplevel.json.gz "gzip -1" '{"a":1, ' "\"traceEvents\":[$EV,$EV,$EV]}" $B
gen after-array.json.gz "gzip -1" "{\"traceEvents\":[$EV] " '}' $B
gen inside.json.zst "zstd -q -1" '[{"ph":"X",' '"name":"k","pid":0,"tid":7,"ts":1,"dur":5}]' $B
ls -la "$tmp"/*.zst "$tmp"/*.gz | awk '{print $5, $9}'

if run "between events (.zst)" 150 stats --no-cache "$tmp/between.json.zst"; then
    [ "$rc" -eq 0 ] && grep -q '^2 events' "$tmp/out" || fail "between: exit $rc, expected 2 events: $(head -c 300 "$tmp/err")"
fi
if run "top-level object (.gz)" 150 stats --no-cache "$tmp/toplevel.json.gz"; then
    [ "$rc" -eq 0 ] && grep -q '^3 events' "$tmp/out" || fail "top-level: exit $rc, expected 3 events: $(head -c 300 "$tmp/err")"
fi
if run "after the event array (.gz)" 150 stats --no-cache "$tmp/after-array.json.gz"; then
    [ "$rc" -eq 0 ] && grep -q '^1 events' "$tmp/out" || fail "after-array: exit $rc, expected 1 event: $(head -c 300 "$tmp/err")"
fi
# one event of 300 MB: over the default limit; the window holds at most about the limit
if run "inside one event (.zst)" 400 stats --no-cache "$tmp/inside.json.zst"; then
    [ "$rc" -eq 1 ] && grep -q 'inside.json.zst: byte 1 of the decompressed JSON: a single JSON value is larger than the --max-token limit (268435456 bytes)' "$tmp/err" ||
        fail "inside: exit $rc, expected the --max-token error at byte 1: $(head -c 300 "$tmp/err")"
fi
# a small limit: a 2 MB name is refused with its offset (compressed or not: the limit is
# the same whatever the window holds), and accepted under a larger one
off=$(python3 -c '
import gzip, sys
ev = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":5}"
big = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":9,\"dur\":5}" % ("n" * (2 << 20))
open(sys.argv[1], "wb").write(gzip.compress(("[" + ev + ",\n" + big + "]").encode()))
print(1 + len(ev) + 2)  # the big event starts after "[", the first event and ",\n"
' "$tmp/name.json.gz")
if run "2 MB name, --max-token 1M" 150 stats --no-cache --max-token 1M "$tmp/name.json.gz"; then
    [ "$rc" -eq 1 ] && grep -q "name.json.gz: byte $off of the decompressed JSON: a single JSON value is larger than the --max-token limit (1048576 bytes)" "$tmp/err" ||
        fail "--max-token 1M: exit $rc, expected the error at byte $off: $(head -c 300 "$tmp/err")"
fi
gzip -dc "$tmp/name.json.gz" >"$tmp/name.json"
if run "2 MB name, plain, --max-token 1M" 150 stats --no-cache --max-token 1M --threads 1 "$tmp/name.json"; then
    [ "$rc" -eq 1 ] && grep -q "name.json: byte $off: a single JSON value is larger" "$tmp/err" ||
        fail "plain --max-token 1M: exit $rc, expected the error at byte $off: $(head -c 300 "$tmp/err")"
fi
if run "2 MB name, --max-token 3M" 150 stats --no-cache --max-token 3M "$tmp/name.json.gz"; then
    [ "$rc" -eq 0 ] && grep -q '^2 events' "$tmp/out" || fail "--max-token 3M: exit $rc: $(head -c 300 "$tmp/err")"
fi
n=$((n + 1))
"$bin" stats --max-token 12X "$tmp/name.json.gz" >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && grep -q -- '--max-token needs a size' "$tmp/err" || fail "--max-token 12X accepted"

echo "bombs.sh: $n cases, $fails failures"
[ "$fails" -eq 0 ]
