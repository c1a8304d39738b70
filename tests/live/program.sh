#!/bin/sh
# A program as the source, without a GPU: `ovtrace record|live -- CMD` with a stand-in
# (live_fake_program) that writes records through the shared ring set (OVTRACE_SHM)
# as the CUPTI collector would. The CUDA driver check is bypassed with the TEST-ONLY
# --debug-assume-driver; the injection library is a dummy file (the stand-in does
# not load it), found through OVTRACE_LIBDIR.
# usage: program.sh OVTRACE LIVE_FAKE_PROGRAM
set -u
BIN=$1
FAKE=$2
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ovtrace-live-prog.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$DIR/lib"
: >"$DIR/lib/libovtrace_inject.so"
export OVTRACE_LIBDIR="$DIR/lib"

# 1. the whole record path from a foreign process through the shared ring to the file
"$BIN" record --debug-assume-driver -o "$DIR/burst.json.zst" -- "$FAKE" burst 5000 0 >"$DIR/burst.out" 2>"$DIR/burst.err"
rc=$?
[ $rc -eq 0 ] || fail "record -- stand-in exited $rc: $(cat "$DIR/burst.err")"
grep -q "CUDA_INJECTION64_PATH=$DIR/lib/libovtrace_inject.so" "$DIR/burst.out" || fail "no injection path: $(cat "$DIR/burst.out")"
grep -q "OVTRACE_SHM=set" "$DIR/burst.out" || fail "OVTRACE_SHM not exported"
grep -q "CUPTI dropped records 7" "$DIR/burst.err" || fail "CUPTI drops not reported: $(cat "$DIR/burst.err")"
grep -q "program exited with status 0" "$DIR/burst.err" || fail "no program end: $(cat "$DIR/burst.err")"
"$BIN" stats --top 5 "$DIR/burst.json.zst" >"$DIR/burst.stats" 2>&1 || fail "stats of the recording: $(cat "$DIR/burst.stats")"
# 2 threads x 5000 steps x (api + kernel + dispatch) + 2 counters
grep -q "^30002 events" "$DIR/burst.stats" || fail "event count: $(head -3 "$DIR/burst.stats")"
grep -q "fake::gemm_0" "$DIR/burst.stats" || fail "no stand-in kernels: $(cat "$DIR/burst.stats")"
grep -q "fake::gemm_1" "$DIR/burst.stats" || fail "second producer missing"
grep -q "dpsk::ep::intranode::dispatch" "$DIR/burst.stats" || fail "comm kernels missing"
zstd -dcq "$DIR/burst.json.zst" >"$DIR/burst.json" || fail "zstd"
grep -q '"simulated": false' "$DIR/burst.json" || fail "not marked real"
grep -q 'SIMULATED' "$DIR/burst.json" && fail "real data marked SIMULATED"
grep -q '"mode": "injected"' "$DIR/burst.json" || fail "collector mode not recorded"
grep -q "\"command\": \[\"$FAKE\", \"burst\", \"5000\", \"0\"\]" "$DIR/burst.json" || fail "command not recorded"
grep -q '"dropped_records": 7' "$DIR/burst.json" || fail "CUPTI drops not in the metadata"
grep -q '"exit_status": 0' "$DIR/burst.json" || fail "exit status not in the metadata"
grep -q '"complete": true' "$DIR/burst.json" || fail "recording not complete"

# 2. a failing program: its status is passed on, the recording is still complete
"$BIN" record --debug-assume-driver -o "$DIR/st3.json" -- "$FAKE" burst 10 3 >/dev/null 2>"$DIR/st3.err"
rc=$?
[ $rc -eq 3 ] || fail "program status 3 became $rc: $(cat "$DIR/st3.err")"
grep -q '"exit_status": 3' "$DIR/st3.json" || fail "status 3 not recorded"
"$BIN" stats -q "$DIR/st3.json" >/dev/null || fail "stats after a failing program"

# 3. --duration stops a program that runs on: SIGINT, its last flush is drained into the file
"$BIN" record --debug-assume-driver -o "$DIR/dur.json" --duration 1 -- "$FAKE" stream >/dev/null 2>"$DIR/dur.err"
rc=$?
[ $rc -eq 0 ] || fail "record --duration exited $rc: $(cat "$DIR/dur.err")"
grep -q "stopped after --duration" "$DIR/dur.err" || fail "no stop message: $(cat "$DIR/dur.err")"
grep -q '"final flush"' "$DIR/dur.json" || fail "the program's final records were not drained"
grep -q '"exit_status": 0' "$DIR/dur.json" || fail "stream stand-in did not stop cleanly on SIGINT"
n=$(grep -c '"fake::gemm_0"' "$DIR/dur.json")
[ "$n" -gt 100 ] || fail "only $n kernels in 1 s"

# 4. Ctrl-C (SIGINT to record; the program gets its own from us) leaves a loadable file
"$BIN" record --debug-assume-driver -o "$DIR/int.json.gz" -- "$FAKE" stream >/dev/null 2>"$DIR/int.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid; rc=$?
[ $rc -eq 0 ] || fail "record after SIGINT exited $rc: $(cat "$DIR/int.err")"
grep -q "stopped by signal" "$DIR/int.err" || fail "no signal message: $(cat "$DIR/int.err")"
"$BIN" stats "$DIR/int.json.gz" >"$DIR/int.stats" 2>&1 || fail "stats after SIGINT: $(cat "$DIR/int.stats")"
grep -q "dispatch" "$DIR/int.stats" || fail "no events after SIGINT"
gzip -dc "$DIR/int.json.gz" | grep -q '"final flush"' || fail "final flush lost after SIGINT"

# 5. live --headless follows the program and ends with it
"$BIN" live --debug-assume-driver --headless --interval 0.2 -- "$FAKE" burst 20000 0 >"$DIR/live.out" 2>"$DIR/live.err"
rc=$?
[ $rc -eq 0 ] || fail "live --headless -- stand-in exited $rc: $(cat "$DIR/live.err")"
grep -q "CUPTI injected" "$DIR/live.out" || fail "headless header: $(cat "$DIR/live.out")"
grep -q "drops 0 cupti 7" "$DIR/live.out" || fail "drop figures: $(cat "$DIR/live.out")"
grep -q "GPU0 overlap" "$DIR/live.out" || fail "no meter: $(cat "$DIR/live.out")"
grep -q "program exited with status 0" "$DIR/live.err" || fail "no end message: $(cat "$DIR/live.err")"

# 6. --workload moe: ovtrace-workload --collect with the workload options passed on (a
# stand-in script in OVTRACE_LIBDIR logs its arguments and streams like the real one)
printf '#!/bin/sh\necho "$@" > "%s/workload.args"\nexec "%s" burst 100 0\n' "$DIR" "$FAKE" >"$DIR/lib/ovtrace-workload"
chmod +x "$DIR/lib/ovtrace-workload"
"$BIN" record --debug-assume-driver -o "$DIR/wl.json" --workload moe --mode decode --comm-sms 24 --steps 3 \
    --tokens 64 --layers 2 --experts 16 --topk 4 --hidden 1024 --link ib --tflops 400 --device 0 --gpus 1 \
    >/dev/null 2>"$DIR/wl.err" || fail "record --workload moe: $(cat "$DIR/wl.err")"
[ "$(cat "$DIR/workload.args")" = "--collect --mode decode --comm-sms 24 --steps 3 --tokens 64 --layers 2 --experts 16 --topk 4 --hidden 1024 --link ib --tflops 400 --device 0 --gpus 1" ] ||
    fail "workload arguments: $(cat "$DIR/workload.args")"
grep -q "CUPTI in-process: workload moe decode" "$DIR/wl.err" || fail "workload source: $(cat "$DIR/wl.err")"
grep -q '"mode": "in-process"' "$DIR/wl.json" || fail "in-process collector not recorded"
grep -q '"simulated": false' "$DIR/wl.json" || fail "workload data not marked real"
"$BIN" stats -q "$DIR/wl.json" >/dev/null || fail "workload recording does not load"
"$BIN" live --debug-assume-driver --headless --workload moe --seed 3 2>"$DIR/e0"; rc=$?
[ $rc -eq 2 ] && grep -q "simulator option" "$DIR/e0" || fail "--seed with --workload: rc $rc $(cat "$DIR/e0")"
"$BIN" live --headless --simulate --gpus 2 2>"$DIR/e0"; rc=$?
[ $rc -eq 2 ] && grep -q "workload moe option" "$DIR/e0" || fail "--gpus with --simulate: rc $rc $(cat "$DIR/e0")"
"$BIN" live --debug-assume-driver --headless --workload moe --gpus 0 2>"$DIR/e0"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--gpus needs a GPU count" "$DIR/e0" || fail "--gpus 0: rc $rc $(cat "$DIR/e0")"
# headless live passes on the status of a program that fails by itself
printf '#!/bin/sh\nexit 5\n' >"$DIR/lib/ovtrace-workload"
"$BIN" live --debug-assume-driver --headless --workload moe >/dev/null 2>&1; rc=$?
[ $rc -eq 5 ] || fail "live --headless with a failing workload exited $rc, not 5"

# 7. errors: a missing program leaves no file; without the driver bypass the no-GPU message
"$BIN" record --debug-assume-driver -o "$DIR/none.json" -- ovtrace-no-such-program-xyz 2>"$DIR/e1"
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] || fail "missing program: status $rc"
grep -q "command not found" "$DIR/e1" || fail "missing program message: $(cat "$DIR/e1")"
[ -e "$DIR/none.json" ] && fail "a failed start left a file"
if ! ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 >/dev/null 2>&1; then
    "$BIN" record -o "$DIR/none.json" -- "$FAKE" burst 1 0 >/dev/null 2>"$DIR/e2"
    rc=$?
    [ $rc -ne 0 ] && grep -q "no CUDA driver found" "$DIR/e2" && grep -q -- "--simulate" "$DIR/e2" ||
        fail "no-driver message: rc $rc $(cat "$DIR/e2")"
    [ -e "$DIR/none.json" ] && fail "the no-driver error left a file"
fi
echo "ok"
