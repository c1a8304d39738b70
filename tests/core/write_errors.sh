#!/usr/bin/env bash
# Write errors on stdout: stats, stats --json, view --dump and the
# help printed everything into stdio's buffer, whose final flush failed unseen, and
# exited 0 to /dev/full. Each must exit 1 and say why (ENOSPC); to a good stdout, 0.
# A closed stdout (>&-) is an error too.
#   write_errors.sh OVTRACE_BIN TRACE
set -u
bin=$1
trace=$2
[ -w /dev/full ] || { echo "no /dev/full: skipped"; exit 77; }
tmp=$(mktemp -d /tmp/ovtrace-wrerr-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

for cmd in "stats" "stats --json" "view --dump" "view --dump --size 300x200" "stats --help" "--version"; do
    # shellcheck disable=SC2086 # cmd is a word list
    "$bin" $cmd "$trace" >/dev/full 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 1 ] || fail "$cmd > /dev/full: exit $rc, want 1"
    grep -q 'cannot write to standard output: No space left on device' "$tmp/err" ||
        fail "$cmd > /dev/full: no clear message: $(head -3 "$tmp/err")"
    # shellcheck disable=SC2086
    "$bin" $cmd "$trace" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] && [ -s "$tmp/out" ] || fail "$cmd > file: exit $rc, $(wc -c <"$tmp/out") bytes: $(head -3 "$tmp/err")"
    echo "$cmd: /dev/full -> exit 1 with the message; a file -> exit 0"
done
"$bin" stats "$trace" >&- 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q 'cannot write to standard output' "$tmp/err" ||
    fail "stats >&-: exit $rc: $(head -3 "$tmp/err")"

echo "write_errors.sh: $fails failures"
[ "$fails" -eq 0 ]
