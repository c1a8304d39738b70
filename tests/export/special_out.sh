#!/usr/bin/env bash
# Output to special files: `export -o` and `record -o` stream to a
# FIFO, a character device or "-" in place (never replace them with a regular file),
# follow a symlink and replace its target (the link stays), and report a full device
# (/dev/full) as ENOSPC with exit 1.
# Character devices: private nodes made with mknod (null 1:3, full 1:7) where allowed,
# so a broken build cannot destroy the system's /dev/null; else /dev/null and /dev/full.
#   special_out.sh OVTRACE_BIN
set -u
bin=$1
trace=$(cd "$(dirname "$0")/../data" && pwd)/kineto-2node.json
tmp=$(mktemp -d /tmp/ovtrace-special-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
T=${OVTRACE_TEST_TIMEOUT:-60}
cd "$tmp" || exit 1

null=/dev/null full=/dev/full
if mknod "$tmp/null" c 1 3 2>/dev/null && mknod "$tmp/full.json.zst" c 1 7 2>/dev/null; then
    null=$tmp/null full=$tmp/full.json.zst
fi
echo "devices: $null $full"

# events in a trace file, by Python's json (an independent parser)
n_events() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["traceEvents"]))' "$1" 2>/dev/null; }
# the reference: the same export to a regular file
timeout -k 5 "$T" "$bin" export "$trace" -o "$tmp/ref.json" --merge -q >/dev/null 2>"$tmp/err" || fail "reference export: $(cat "$tmp/err")"
ref=$(n_events "$tmp/ref.json")
[ -n "$ref" ] && [ "$ref" -gt 0 ] || fail "reference export has no events"

# ---- export to a FIFO: streamed, the FIFO stays one
mkfifo "$tmp/pipe.json"
timeout 30 cat "$tmp/pipe.json" >"$tmp/from-pipe.json" &
pids+=($!)
timeout -k 5 "$T" "$bin" export "$trace" -o "$tmp/pipe.json" --merge -q >"$tmp/out" 2>"$tmp/err" || fail "export to a FIFO: exit $?: $(cat "$tmp/err")"
wait "${pids[-1]}"
[ -p "$tmp/pipe.json" ] || fail "export replaced the FIFO with a $(stat -c %F "$tmp/pipe.json")"
[ "$(n_events "$tmp/from-pipe.json")" = "$ref" ] || fail "the FIFO's reader did not get the trace ($(wc -c <"$tmp/from-pipe.json") bytes)"
[ -z "$(ls -A "$tmp" | grep tmp)" ] || fail "export to a FIFO left $(ls -A "$tmp" | grep tmp)"
# a compressed stream through a FIFO (the name's extension picks zstd)
mkfifo "$tmp/pipe.json.zst"
timeout 30 cat "$tmp/pipe.json.zst" >"$tmp/from-pipe.zst" &
pids+=($!)
timeout -k 5 "$T" "$bin" export "$trace" -o "$tmp/pipe.json.zst" --merge -q >/dev/null 2>"$tmp/err" || fail "export to a .zst FIFO: $(cat "$tmp/err")"
wait "${pids[-1]}"
zstd -dc "$tmp/from-pipe.zst" >"$tmp/from-pipe-zst.json" 2>/dev/null || fail "the .zst FIFO's stream is not zstd"
[ "$(n_events "$tmp/from-pipe-zst.json")" = "$ref" ] || fail "the .zst FIFO's stream is not the trace"
echo "export -o FIFO: checked"

# ---- export to a character device: written in place
timeout -k 5 "$T" "$bin" export "$trace" -o "$null" --merge >"$tmp/out" 2>"$tmp/err" || fail "export -o $null: exit $?: $(cat "$tmp/err")"
[ -c "$null" ] || fail "export replaced $null with a $(stat -c %F "$null")"
grep -q "wrote" "$tmp/err" || fail "export -o $null: the summary should go to stderr: $(cat "$tmp/out")"
ls -A "$(dirname "$null")" | grep -q "\.$(basename "$null")\.tmp-" && fail "export -o $null created a temporary file beside it"
echo "export -o $null: checked"

# ---- /dev/full: ENOSPC, exit 1, the device untouched
timeout -k 5 "$T" "$bin" export "$trace" -o "$full" --merge -q >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || fail "export -o $full: exit $rc (expected 1)"
grep -q "No space left on device" "$tmp/err" || fail "export -o $full: no ENOSPC message: $(cat "$tmp/err")"
[ -c "$full" ] || fail "export replaced $full"
timeout -k 5 "$T" "$bin" export "$trace" -o - --merge -q >/dev/full 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "No space left on device" "$tmp/err" || fail "export -o - >/dev/full: exit $rc: $(cat "$tmp/err")"
echo "export -o $full: exit 1, $(head -1 "$tmp/err")"

# ---- "-" and /dev/stdout into a pipe: the trace alone on stdout, the summary on stderr
timeout -k 5 "$T" "$bin" export "$trace" -o - --merge 2>"$tmp/err" | cat >"$tmp/stdout.json"
[ "$(n_events "$tmp/stdout.json")" = "$ref" ] || fail "export -o - is not the trace"
# /dev/stdout's way (a link to /proc/self/fd/1, a link to "pipe:[N]"), through a private
# link so that a broken build replaces that link rather than the system's /dev/stdout
ln -s /proc/self/fd/1 "$tmp/stdout-link"
timeout -k 5 "$T" "$bin" export "$trace" -o "$tmp/stdout-link" --merge 2>"$tmp/err" | cat >"$tmp/devstdout.json"
[ "$(n_events "$tmp/devstdout.json")" = "$ref" ] || fail "export -o LINK-TO-/proc/self/fd/1 | cat is not the trace: $(head -c 200 "$tmp/devstdout.json")"
[ -L "$tmp/stdout-link" ] || fail "export replaced the link to /proc/self/fd/1"
echo "export -o - / -o /proc/self/fd/1: checked"

# ---- a terminal: refused (the events' bytes, names included, would reach it raw)
if command -v script >/dev/null; then
    script -qec "\"$bin\" export \"$trace\" -o - --merge -q; echo rc=\$?" /dev/null >"$tmp/tty.out" 2>&1 </dev/null
    grep -q "refusing to write a trace to a terminal" "$tmp/tty.out" && grep -q "rc=1" "$tmp/tty.out" ||
        fail "export -o - to a terminal: $(head -c 300 "$tmp/tty.out" | cat -v)"
    grep -q '"traceEvents"' "$tmp/tty.out" && fail "export wrote the trace to a terminal"
    echo "export -o - to a terminal: checked"
fi

# ---- symlinks: the target is replaced, atomically beside it; the link stays
mkdir -p "$tmp/a" "$tmp/b"
echo '{"traceEvents":[]}' >"$tmp/b/real.json"
ln -s ../b/real.json "$tmp/a/link.json"
timeout -k 5 "$T" "$bin" export "$trace" -o "$tmp/a/link.json" --merge -q >/dev/null 2>"$tmp/err" || fail "export to a symlink: $(cat "$tmp/err")"
[ -L "$tmp/a/link.json" ] && [ "$(readlink "$tmp/a/link.json")" = ../b/real.json ] || fail "the symlink was replaced"
[ -f "$tmp/b/real.json" ] && [ "$(n_events "$tmp/b/real.json")" = "$ref" ] || fail "the symlink's target does not hold the export"
[ "$(ls -A "$tmp/a")" = link.json ] && [ "$(ls -A "$tmp/b")" = real.json ] || fail "files left: $(ls -A "$tmp/a" "$tmp/b")"
# a chain of two links, and a dangling link (its target is created)
ln -s "$tmp/a/link.json" "$tmp/link2.json"
ln -s b/new.json "$tmp/dangling.json"
timeout -k 5 "$T" "$bin" export "$trace" -o "$tmp/link2.json" --merge -q 2>"$tmp/err" >/dev/null || fail "export to a link chain: $(cat "$tmp/err")"
[ -L "$tmp/link2.json" ] && [ -L "$tmp/a/link.json" ] || fail "a link of the chain was replaced"
timeout -k 5 "$T" "$bin" export "$trace" -o "$tmp/dangling.json" --merge -q 2>"$tmp/err" >/dev/null || fail "export to a dangling link: $(cat "$tmp/err")"
[ -L "$tmp/dangling.json" ] && [ "$(n_events "$tmp/b/new.json")" = "$ref" ] || fail "a dangling link's target was not created"
# a link to an input is still refused
ln -s "$trace" "$tmp/to-input.json"
timeout -k 5 "$T" "$bin" export "$trace" -o "$tmp/to-input.json" --merge -q >/dev/null 2>"$tmp/err" && fail "export overwrote its input through a symlink"
grep -q "refusing to overwrite input" "$tmp/err" || fail "no refusal for a symlink to the input: $(cat "$tmp/err")"
echo "export -o SYMLINK: checked"

# ---- record (simulated): the same for FIFO, device, symlink, full device
if "$bin" record --help 2>&1 | grep -q -- --simulate; then
    mkfifo "$tmp/rec.json"
    timeout 30 cat "$tmp/rec.json" >"$tmp/from-rec.json" &
    pids+=($!)
    timeout -k 5 "$T" "$bin" record -o "$tmp/rec.json" --simulate --duration 1.5 >/dev/null 2>"$tmp/err" || fail "record to a FIFO: $(cat "$tmp/err")"
    wait "${pids[-1]}"
    [ -p "$tmp/rec.json" ] || fail "record replaced the FIFO"
    n=$(n_events "$tmp/from-rec.json")
    [ -n "$n" ] && [ "$n" -gt 100 ] || fail "record's FIFO reader got no complete trace"
    timeout -k 5 "$T" "$bin" record -o "$null" --simulate --duration 1.2 >/dev/null 2>"$tmp/err" || fail "record -o $null: $(cat "$tmp/err")"
    [ -c "$null" ] || fail "record replaced $null"
    timeout -k 5 "$T" "$bin" record -o "$full" --simulate --duration 1.2 >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 1 ] && grep -q "No space left on device" "$tmp/err" || fail "record -o $full: exit $rc: $(cat "$tmp/err")"
    [ -c "$full" ] || fail "record replaced $full"
    echo '{"traceEvents":[]}' >"$tmp/b/rec-real.json"
    ln -s b/rec-real.json "$tmp/rec-link.json"
    timeout -k 5 "$T" "$bin" record -o "$tmp/rec-link.json" --simulate --duration 1.2 >/dev/null 2>"$tmp/err" || fail "record to a symlink: $(cat "$tmp/err")"
    [ -L "$tmp/rec-link.json" ] || fail "record replaced the symlink"
    n=$(n_events "$tmp/b/rec-real.json")
    [ -n "$n" ] && [ "$n" -gt 100 ] || fail "record did not write the symlink's target"
    timeout -k 5 "$T" "$bin" record -o - --simulate --duration 1.2 2>/dev/null >"$tmp/rec-stdout.json"
    n=$(n_events "$tmp/rec-stdout.json")
    [ -n "$n" ] && [ "$n" -gt 100 ] || fail "record -o - wrote no complete trace"
    echo "record -o FIFO / $null / $full / SYMLINK / -: checked"
fi

echo "special_out.sh: $fails failures"
[ "$fails" -eq 0 ]
