#!/usr/bin/env bash
# Malformed-input corpus through the real binary ("Input"): every case either
# loads with warnings (bad events skipped and counted, exit 0) or fails with a clear
# error (the file, and for syntax errors the byte offset, line, column and what was
# expected) and exit 1; never a signal (exit >= 128) and never a hang (timeout).
# The stored cases are tests/reliability/malformed/{ok,warn,err}-*; the big ones (2 MB
# names, 20,000 levels of nesting, binary garbage) are generated here.
#   malformed.sh OVTRACE_BIN CORPUS_DIR
set -u
bin=$1
corpus=$2
tmp=$(mktemp -d /tmp/ovtrace-malformed-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0
T=${OVTRACE_TEST_TIMEOUT:-60}

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# run CMD...: sets rc, err (stderr), out (stdout)
run() {
    timeout -k 5 "$T" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    out=$(head -c 4000 "$tmp/out")
    err=$(head -c 4000 "$tmp/err")
}

# check_signal WHAT: the process was not killed by a signal nor timed out
check_signal() {
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then fail "$1: hang (timeout ${T}s)"; return 1; fi
    if [ "$rc" -ge 128 ]; then fail "$1: killed by signal $((rc - 128)); stderr: $err"; return 1; fi
    if grep -qE 'AddressSanitizer|UndefinedBehaviorSanitizer|runtime error|LeakSanitizer' "$tmp/err"; then
        fail "$1: sanitizer report: $(grep -m3 -E 'ERROR|runtime error' "$tmp/err")"; return 1
    fi
    return 0
}

expect_warn() { # FILE: loads, exit 0, a warning on stderr
    local f=$1 name
    name=$(basename "$f")
    n=$((n + 1))
    run "$bin" stats "$f"
    check_signal "stats $name" || return
    [ "$rc" -eq 0 ] || { fail "stats $name: exit $rc, expected 0 (load with warnings); stderr: $err"; return; }
    grep -q 'warning:' <<<"$err" || fail "stats $name: no warning on stderr: $err"
    if [ -n "${2:-}" ]; then grep -qE -- "$2" <<<"${err//"$f"/FILE}" || fail "stats $name: warning '$err' does not match /$2/"; fi
    # the other readers of the same model must survive it too
    run "$bin" export "$f" -o "$tmp/out.json"
    check_signal "export $name" && { [ "$rc" -eq 0 ] || fail "export $name: exit $rc: $err"; }
    run "$bin" view "$f" --frames 4 --keys "<End>f<Tab>" --dump --size 100x30
    check_signal "view $name" && { [ "$rc" -eq 0 ] || fail "view $name: exit $rc: $err"; }
}

expect_ok() { # FILE [GREP]: loads, exit 0
    local f=$1 name
    name=$(basename "$f")
    n=$((n + 1))
    run "$bin" stats "$f"
    check_signal "stats $name" || return
    [ "$rc" -eq 0 ] || { fail "stats $name: exit $rc, expected 0; stderr: $err"; return; }
    if [ -n "${2:-}" ]; then grep -q -- "$2" "$tmp/out" || fail "stats $name: output lacks '$2'"; fi
    run "$bin" view "$f" --frames 3 --keys "<End>" --dump --size 100x30
    check_signal "view $name" && { [ "$rc" -eq 0 ] || fail "view $name: exit $rc: $err"; }
}

expect_err() { # FILE [REGEX]: exit 1, an error naming the file (and matching REGEX)
    local f=$1 name
    name=$(basename "$f")
    n=$((n + 1))
    run "$bin" stats "$f"
    check_signal "stats $name" || return
    [ "$rc" -ne 0 ] || { fail "stats $name: exit 0, expected an error"; return; }
    grep -qF -- "$f" <<<"$err" || fail "stats $name: the error does not name the file: $err"
    # the message alone: a pattern such as 'gzip' must not match the file's name
    local msg=${err//"$f"/FILE}
    if [ -n "${2:-}" ]; then grep -qE -- "$2" <<<"$msg" || fail "stats $name: error '$msg' does not match /$2/"; fi
    run "$bin" view "$f" --frames 2 --dump
    check_signal "view $name" && { [ "$rc" -ne 0 ] || fail "view $name: exit 0 on a bad file"; }
    run "$bin" export "$f" -o "$tmp/err-out.json"
    check_signal "export $name" && { [ "$rc" -ne 0 ] || fail "export $name: exit 0 on a bad file"; }
    [ ! -e "$tmp/err-out.json" ] || fail "export $name: wrote an output for a bad input"
    ls "$tmp" | grep -q 'tmp-' && fail "export $name: left a temporary file: $(ls "$tmp")"
}

SYNTAX='byte [0-9]+ \(line [0-9]+, column [0-9]+\): expected '

for f in "$corpus"/warn-*; do
    case $f in
    *gzip-trailing-garbage*) expect_warn "$f" 'warning: FILE: trailing garbage after the gzip data ignored \(from compressed byte 792\)' ;;
    *) expect_warn "$f" ;;
    esac
done
for f in "$corpus"/ok-*; do
    case $f in
    *.zst) expect_ok "$f" '^8 events' ;; # kineto-2node.json, compressed
    *) expect_ok "$f" ;;
    esac
done
expect_err "$corpus/err-empty.json" 'empty file'
expect_err "$corpus/err-whitespace.json" 'no JSON content'
expect_err "$corpus/err-not-a-trace-object.json" 'no trace events found'
expect_err "$corpus/err-not-a-trace-string.json" "$SYNTAX'\\{' or '\\['"
expect_err "$corpus/err-not-a-trace-number.json" "$SYNTAX"
expect_err "$corpus/err-array-of-numbers.json" 'no valid trace event \(5 skipped'
expect_err "$corpus/err-traceevents-not-array.json" "${SYNTAX}'\\['"
expect_err "$corpus/err-only-bad-events.json" 'no valid trace event \(3 skipped; first at byte 16'
expect_err "$corpus/err-unterminated-string-first.json" 'no trace events|no valid trace event'
expect_err "$corpus/err-syntax-missing-comma.json" "byte 74 \\(line 3, column 3\\): expected ',' or '\\]' after an event"
expect_err "$corpus/err-syntax-bad-literal.json" "$SYNTAX"
expect_err "$corpus/err-syntax-bad-escape.json" "$SYNTAX"
expect_err "$corpus/err-syntax-control-char.json" "$SYNTAX"
expect_err "$corpus/err-syntax-bad-number.json" "$SYNTAX"
expect_err "$corpus/err-trailing-garbage.json" "${SYNTAX}end of file after the trace"
expect_err "$corpus/err-nul-bytes.json" "${SYNTAX}.*byte 0x00"
expect_err "$corpus/err-gzip-magic-junk.json.gz" 'corrupt gzip stream near compressed byte 4: unknown compression method'
expect_err "$corpus/err-zstd-magic-junk.json.zst" 'corrupt zstd stream \(frame at compressed byte 0\): Unsupported frame parameter'
# compressed inputs with a bad check or garbage: their real error, not "empty file"
expect_err "$corpus/err-gzip-bad-crc.json.gz" 'corrupt gzip stream near compressed byte 788: incorrect data check'
expect_err "$corpus/err-gzip-bad-length.json.gz" 'corrupt gzip stream near compressed byte 792: incorrect length check'
expect_err "$corpus/err-gzip-corrupt-deflate.json.gz" 'corrupt gzip stream near compressed byte 11: invalid block type'
expect_err "$corpus/err-gzip-magic-only.json.gz" 'truncated gzip stream: it ends before any data \(at compressed byte 2\)'
expect_err "$corpus/err-zstd-bad-checksum.json.zst" "corrupt zstd stream \\(frame at compressed byte 0\\): Restored data doesn't match checksum"
expect_err "$corpus/err-zstd-trailing-garbage.json.zst" 'corrupt zstd stream \(frame at compressed byte 850\): Unknown frame descriptor'
# a frame that declares a 2 GB window (zstd --long=31): refused within the default
# --max-token (the decoder's memory grows to the window), loaded when the limit allows it
expect_err "$corpus/err-zstd-long31.json.zst" 'needs a window over 256 MiB, more than --max-token allows'
n=$((n + 1))
run "$bin" stats --max-token 2G "$corpus/err-zstd-long31.json.zst"
check_signal "stats --max-token 2G err-zstd-long31" &&
    { [ "$rc" -eq 0 ] && grep -q '^8 events' "$tmp/out" || fail "stats --max-token 2G err-zstd-long31: exit $rc: $err"; }
# ok-zstd-skippable-frame loads: the ok-* loop above
expect_err "$tmp/does-not-exist.json" 'No such file'
mkdir -p "$tmp/empty-dir"
expect_err "$tmp/empty-dir" 'no \*\.json'

# ---- generated: 2 MB names, 20,000 levels of nesting, binary garbage
python3 - "$tmp" <<'PY'
import os, random, sys
d = sys.argv[1]
big = "n" * (2 << 20)
open(os.path.join(d, "gen-2mb-name.json"), "w").write(
    '{"traceEvents":[{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":1,"dur":5,"args":{"device":0,"stream":7}},'
    '{"ph":"X","cat":"kernel","name":"small","pid":0,"tid":7,"ts":10,"dur":5,"args":{"device":0,"stream":7,"big":"%s"}},'
    '{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"%s"}}]}' % (big, big, big))
deep = 20000
open(os.path.join(d, "gen-nest-args.json"), "w").write(
    '[{"ph":"X","name":"deep","pid":0,"tid":0,"ts":1,"dur":1,"args":{"x":%s1%s}}]' % ("[" * deep, "]" * deep))
open(os.path.join(d, "gen-nest-meta.json"), "w").write(
    '{"deep":%s{}%s,"traceEvents":[{"ph":"X","name":"a","pid":0,"tid":0,"ts":1,"dur":1}]}'
    % ('{"a":' * deep, "}" * deep))
open(os.path.join(d, "gen-nest-top.json"), "w").write("[" * deep + "]" * deep)
open(os.path.join(d, "gen-nest-unclosed.json"), "w").write("[" * deep)
open(os.path.join(d, "gen-nest-objects.json"), "w").write('[{"ph":"X","a":' + '{"a":' * deep + "1" + "}" * deep + "}]")
r = random.Random(9)
open(os.path.join(d, "gen-garbage.json"), "wb").write(bytes(r.getrandbits(8) for _ in range(1 << 20)))
open(os.path.join(d, "gen-garbage-after-bracket.json"), "wb").write(b"[" + bytes(r.getrandbits(8) for _ in range(1 << 16)))
PY
expect_ok "$tmp/gen-2mb-name.json" '2 events'
expect_ok "$tmp/gen-nest-args.json" '1 events'
expect_ok "$tmp/gen-nest-meta.json" '1 events'
expect_err "$tmp/gen-nest-top.json" 'no valid trace event'
expect_err "$tmp/gen-nest-unclosed.json" 'no valid trace event|no trace events'
expect_err "$tmp/gen-nest-objects.json" 'no valid trace event'
expect_err "$tmp/gen-garbage.json" "$SYNTAX"
expect_err "$tmp/gen-garbage-after-bracket.json" "$SYNTAX"
# a 2 MB name through export and back: byte-identical name
run "$bin" export "$tmp/gen-2mb-name.json" -o "$tmp/big-out.json"
check_signal "export gen-2mb-name.json" && { [ "$rc" -eq 0 ] || fail "export 2 MB name: exit $rc: $err"; }
python3 -c 'import sys; sys.exit(0 if open(sys.argv[1]).read().count("n" * 2097152) >= 2 else 1)' "$tmp/big-out.json" \
    || fail "export 2 MB name: names not kept whole"

echo "malformed.sh: $n cases, $fails failures"
[ "$fails" -eq 0 ]
