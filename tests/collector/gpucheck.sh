#!/bin/sh
# ovtrace-gpucheck (the GPU run's own consumer) without a GPU, on the live stand-in
# program: kernel counts, the overlap it computes, drops, and the stop handshake.
# usage: gpucheck.sh GPUCHECK LIVE_FAKE_PROGRAM
set -u
GC=$1
FAKE=$2
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ovtrace-gpucheck.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -q -- "$1" "$DIR/$2" || fail "$2 lacks $1: $(cat "$DIR/$2")"; }

# 1. two threads x 200 steps: a gemm per thread (each its own stream) and a dispatch
# kernel inside it (comm, fully overlapped), and CUPTI's drop counter (7)
"$GC" --assume-driver -- "$FAKE" burst 200 0 >"$DIR/b.out" 2>"$DIR/b.err" || fail "burst: $(cat "$DIR/b.err")"
has '^GPUCHECK {"program_exit": 0' b.out
has '"ring_drops": 0, "cupti_dropped": 7, "bad_gpu_records": 0' b.out
has '"kernel": 800, ' b.out
has '"runtime": 400, ' b.out
has '{"name": "fake::gemm_0", "count": 200, "mean_us": 400.00}' b.out
has '{"name": "fake::gemm_1", "count": 200, "mean_us": 400.00}' b.out
has '"void dpsk::ep::intranode::dispatch<8, 20>(dpsk::ep::DispatchArgs)", "count": 400, "mean_us": 200.00}' b.out
has '"device": 0, .* "overlap_ratio": 1.0000}' b.out
s=$(sed -n 's/.*"newest_end_before_now_s": \([0-9.-]*\).*/\1/p' "$DIR/b.out")
awk -v s="$s" 'BEGIN { exit !(s > -1 && s < 60) }' || fail "clock: newest event ends ${s}s before now"

# 2. the stop handshake: the stand-in flushes what it buffered and acknowledges before
# the SIGINT that ends it
"$GC" --assume-driver --stop-after 1.5 -- "$FAKE" stream >"$DIR/s.out" 2>"$DIR/s.err" || fail "stop: $(cat "$DIR/s.err")"
has '"stop": {"collectors": 1, "acknowledged": 1' s.out
sent=$(sed -n 's/.*"events_sent": \([0-9]*\).*/\1/p' "$DIR/s.out")
at=$(sed -n 's/.*"drained_at_ack": \([0-9]*\).*/\1/p' "$DIR/s.out")
[ "${sent:-0}" -gt 0 ] && [ "$sent" -le "$at" ] || fail "sent $sent by the ack, $at drained: $(cat "$DIR/s.out")"
pushed=$(sed -n 's/^live_fake_program: produced [0-9]* events, pushed \([0-9]*\);.*/\1/p' "$DIR/s.err")
has "\"drained\": $pushed}" s.out

# 3. usage; without a driver (where there is none) the launcher's message
"$GC" >/dev/null 2>&1 && fail "no arguments accepted"
if ! ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 >/dev/null 2>&1; then
    "$GC" -- "$FAKE" burst 1 0 >/dev/null 2>"$DIR/n.err" && fail "ran without a driver"
    has "no CUDA driver found" n.err
fi
echo ok
