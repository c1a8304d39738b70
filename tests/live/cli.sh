#!/bin/sh
# End to end: `ovtrace record --simulate` (Ctrl-C, SIGKILL, --duration), `ovtrace live
# --headless`, and the clear errors without a source or without a GPU.
set -u
BIN="$1"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ovtrace-live-cli.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. Ctrl-C after ~1.5 s leaves a complete, loadable file with everything so far
"$BIN" record -o "$DIR/int.json.zst" --simulate --mode prefill --speed 4 2>"$DIR/int.err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid; rc=$?
[ $rc -eq 0 ] || fail "record after SIGINT exited $rc: $(cat "$DIR/int.err")"
grep -q "stopped by signal" "$DIR/int.err" || fail "no stop message: $(cat "$DIR/int.err")"
"$BIN" stats "$DIR/int.json.zst" >"$DIR/int.stats" 2>&1 || fail "stats of the interrupted recording: $(cat "$DIR/int.stats")"
grep -q "dpsk::ep::intranode::dispatch" "$DIR/int.stats" || fail "no dispatch kernels in the recording"
grep -qi "truncat" "$DIR/int.stats" && fail "interrupted recording is truncated"
n=$(sed -n 's/^recorded \([0-9]*\) events.*/\1/p' "$DIR/int.err")
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no event count in: $(cat "$DIR/int.err")"
"$BIN" stats "$DIR/int.json.zst" | grep -q "^$n events" || fail "recorded $n events, the file holds $(head -2 "$DIR/int.stats")"

# 2. SIGTERM as well
"$BIN" record -o "$DIR/term.json.gz" --simulate --mode decode 2>/dev/null &
pid=$!
sleep 1
kill -TERM $pid
wait $pid || fail "record after SIGTERM exited non-zero"
"$BIN" stats -q "$DIR/term.json.gz" >/dev/null || fail "stats after SIGTERM"

# 3. SIGKILL: the last checkpoint (every second) is on disk and loads
"$BIN" record -o "$DIR/kill.json" --simulate --mode serial --speed 4 2>/dev/null &
pid=$!
sleep 2.5
kill -KILL $pid
wait $pid 2>/dev/null
"$BIN" stats "$DIR/kill.json" >"$DIR/kill.stats" 2>&1 || fail "stats after SIGKILL: $(cat "$DIR/kill.stats")"
grep -q "moe::expert_gemm" "$DIR/kill.stats" || fail "no kernels after SIGKILL"

# 4. --duration and --steps stop by themselves; simulated data is marked
"$BIN" record -o "$DIR/dur.json.zst" --simulate --mode decode --duration 0.5 2>/dev/null || fail "--duration"
"$BIN" record -o "$DIR/steps.json" --simulate --steps 2 --layers 1 --speed 50 2>/dev/null || fail "--steps"
grep -q '"simulated": true' "$DIR/steps.json" || fail "recording not marked simulated"
grep -q 'SIMULATED' "$DIR/steps.json" || fail "lanes not marked SIMULATED"
[ $(grep -c '"moe::gate"' "$DIR/steps.json") -eq 4 ] || fail "2 steps x 1 layer x 2 micro-batches should give 4 gates"

# 5. clear errors
"$BIN" record -o "$DIR/x.json" >/dev/null 2>"$DIR/e1"; rc=$?
[ $rc -ne 0 ] && grep -q -- "--simulate" "$DIR/e1" || fail "record without a source: rc $rc, $(cat "$DIR/e1")"
"$BIN" record -o "$DIR/x.json" --mode decode 2>"$DIR/e2"; [ $? -ne 0 ] && grep -q "add --simulate" "$DIR/e2" || fail "sim option without --simulate"
"$BIN" record -o "$DIR/x.json" --simulate --comm-sms 500 2>"$DIR/e3"; [ $? -ne 0 ] && grep -q "comm-sms" "$DIR/e3" || fail "bad --comm-sms accepted"
"$BIN" record -o "$DIR/x.json" -- true 2>"$DIR/e4"; rc=$?
[ $rc -ne 0 ] || fail "record -- CMD succeeded"
if ! ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 >/dev/null 2>&1; then
    grep -q "no CUDA driver" "$DIR/e4" && grep -q -- "--simulate" "$DIR/e4" || fail "no-GPU message: $(cat "$DIR/e4")"
fi
"$BIN" live 2>"$DIR/e5"; [ $? -ne 0 ] && grep -q -- "--simulate" "$DIR/e5" || fail "live without a source"
[ -e "$DIR/x.json" ] && fail "a failed record left a file"

# 6. live --headless prints the rolling meter once a second
"$BIN" live --simulate --headless --duration 2.2 --speed 2 >"$DIR/live.out" 2>&1 || fail "live --headless: $(cat "$DIR/live.out")"
[ $(grep -c "overlap" "$DIR/live.out") -ge 2 ] || fail "meter lines: $(cat "$DIR/live.out")"
grep -q "drops 0" "$DIR/live.out" || fail "no drop counter: $(cat "$DIR/live.out")"
grep -q "SIMULATED" "$DIR/live.out" || fail "not marked simulated"
echo "ok"
