#!/usr/bin/env bash
# The ovtrace binary end to end: stats table/JSON, ranges, filters, errors, help.
set -u
BIN=$1; DEEPSEEK=$2; DATA=$3
fails=0
check() { # description, condition...
    local d=$1; shift
    if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

for c in view stats export live record workload; do
    check "help for $c" bash -c "'$BIN' $c --help | grep -q 'usage: ovtrace $c'"
done
check "top-level help lists commands" bash -c "'$BIN' --help | grep -q workload"
"$BIN" --list-options >/dev/null 2>"$tmp/err"; rc=$?
check "--list-options without a command: exit 2, says what it takes" \
    bash -c "[ $rc -eq 2 ] && grep -q 'list-options takes one command' '$tmp/err'"
check "top-level help names --version" bash -c "'$BIN' --help | grep -q -- '--version'"
check "--version prints the version" bash -c "'$BIN' --version | grep -Eq '^ovtrace [0-9]+\.[0-9]+'"
"$BIN" >/dev/null 2>&1; check "no args exits 2" test $? -eq 2
"$BIN" stats --bogus x 2>"$tmp/err"; rc=$?
check "unknown option rejected" test $rc -eq 2
check "unknown option named" grep -q -- "--bogus" "$tmp/err"
# a mistyped command is named as one, with the nearest command; a word that is neither
# a command nor a file says so, on a terminal or not
"$BIN" stat "$DATA/kineto-2node.json" 2>"$tmp/err"; rc=$?
check "ovtrace stat: exit 2" test $rc -eq 2
check "ovtrace stat: did you mean stats" grep -q "unknown command 'stat': did you mean 'stats'?" "$tmp/err"
"$BIN" frobnicate </dev/null 2>"$tmp/err" | cat; rc=${PIPESTATUS[0]}
check "ovtrace frobnicate: exit 2" test $rc -eq 2
check "ovtrace frobnicate: neither a command nor a file" grep -q "'frobnicate' is neither a command nor a file" "$tmp/err"
# a bad --top reads alike in stats and diff (no 19-digit bound)
for c in stats diff; do
    "$BIN" $c --top x "$DATA/moe-ep/rank0.json" "$DATA/moe-ep/rank1.json" >/dev/null 2>"$tmp/err"; rc=$?
    check "$c --top x: exit 2, a non-negative integer" \
        bash -c "[ $rc -eq 2 ] && grep -q -- \"^ovtrace: error: --top needs a non-negative integer, got 'x'\" '$tmp/err'"
done
# a rules file from the environment that cannot be read: the warning names the variable
OVTRACE_RULES=$tmp/no-such-rules "$BIN" stats "$DATA/moe-ep/rank0.json" >/dev/null 2>"$tmp/err"
check "OVTRACE_RULES missing: the warning names it" grep -q "^ovtrace: warning: OVTRACE_RULES: $tmp/no-such-rules: No such file" "$tmp/err"
# no input trace is a usage error (exit 2) that every reading command words alike
for c in stats view query export; do
    out=(); [ $c = export ] && out=(-o "$tmp/none.json")
    "$BIN" $c "${out[@]}" </dev/null >/dev/null 2>"$tmp/err"; rc=$?
    check "$c without a trace: exit 2" test $rc -eq 2
    check "$c without a trace: says so" grep -q "^ovtrace: error: $c needs at least one input trace (ovtrace $c .*see 'ovtrace $c --help')" "$tmp/err"
done
"$BIN" live </dev/null >/dev/null 2>"$tmp/err"
check "live without a source: nothing to watch" grep -q "nothing to watch: give --simulate" "$tmp/err"
# load warnings carry the prefix errors have, so a job's log greps them alike
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},' >"$tmp/cut.json"
"$BIN" stats "$tmp/cut.json" >/dev/null 2>"$tmp/err"
check "a truncated trace: 'ovtrace: warning:'" grep -q "^ovtrace: warning: .*cut.json: trace is truncated at byte" "$tmp/err"
# a --rank, --device or --stream that no GPU lane has is named, with the values there are
"$BIN" stats --rank 3 --stream 99 "$DATA/moe-ep" >"$tmp/out" 2>"$tmp/err"
check "stats --rank 3 of ranks 0, 1: said so" grep -q "^ovtrace: note: --rank 3 matches no GPU lane (ranks with GPU lanes: 0, 1)" "$tmp/err"
check "stats --stream 99: said so" grep -q "^ovtrace: note: --stream 99 matches no GPU lane (streams with GPU lanes: 7, 23, 27)" "$tmp/err"
check "stats --rank 3: the table says the selection is empty" grep -q "no GPU activity in the selection" "$tmp/out"
"$BIN" stats --rank 1 --stream 27 "$DATA/moe-ep" >/dev/null 2>"$tmp/err"
check "stats --rank 1 --stream 27 (both there): no note" test ! -s "$tmp/err"
"$BIN" stats -q --rank 3 "$DATA/moe-ep" >/dev/null 2>"$tmp/err"
check "stats -q --rank 3: no note" test ! -s "$tmp/err"
# stats --summary onto one of its own inputs is refused and the trace stays; a summary
# given to export, query or diff is refused as stats refuses it (its events are bands)
cp "$DATA/moe-ep/rank0.json" "$tmp/r0.json"
"$BIN" stats --summary "$tmp/r0.json" "$tmp/r0.json" >/dev/null 2>"$tmp/err"; rc=$?
check "stats --summary onto its input: exit 1 (as export's refusal)" test $rc -eq 1
check "stats --summary onto its input: says so" grep -q "refusing to overwrite input file .*r0.json" "$tmp/err"
check "stats --summary onto its input: the trace is intact" cmp -s "$DATA/moe-ep/rank0.json" "$tmp/r0.json"
"$BIN" stats --summary "$tmp/sum.json" "$tmp/r0.json" >/dev/null 2>&1
for c in export query diff; do
    case $c in export) extra=(-o "$tmp/fromsum.json") ;; query) extra=(-c 'select 1') ;; diff) extra=("$tmp/r0.json") ;; esac
    "$BIN" $c "$tmp/sum.json" "${extra[@]}" >/dev/null 2>"$tmp/err"; rc=$?
    check "$c of a run summary: exit 2" test $rc -eq 2
    check "$c of a run summary: says so" grep -q "sum.json is a run summary: .* $c reads the traces it names" "$tmp/err"
done
"$BIN" stats "$tmp/sum.json" "$tmp/r0.json" >/dev/null 2>"$tmp/err"
check "a run summary beside a trace: named as a summary" grep -q "sum.json: a run summary (stats --summary), not a trace" "$tmp/err"
# a range wholly outside the trace: the same error from stats, view and export (which
# writes no empty trace)
for c in stats view export; do
    case $c in
    view) "$BIN" view --dump --range 200ms:300ms "$DATA/moe-ep/rank0.json" >/dev/null 2>"$tmp/err"; rc=$? ;;
    stats) "$BIN" stats --range 200ms:300ms "$DATA/moe-ep/rank0.json" >/dev/null 2>"$tmp/err"; rc=$? ;;
    export) "$BIN" export --range 200ms:300ms "$DATA/moe-ep/rank0.json" -o "$tmp/out.json" >/dev/null 2>"$tmp/err"
            rc=$?; check "export --range outside the trace: no file" test ! -e "$tmp/out.json" ;;
    esac
    check "$c --range outside the trace: exit 2" test $rc -eq 2
    check "$c --range outside the trace: says so" grep -q "lies outside the trace, which spans 0..40.62ms" "$tmp/err"
done
# a CPU-only trace opens with its threads shown (nothing else to show), a trace with GPU
# streams with its CPU groups folded under them
printf '[{"ph":"X","name":"op_a","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"op_b","pid":1,"tid":2,"ts":5,"dur":10}]' >"$tmp/cpu.json"
"$BIN" view --dump --size 80x24 "$tmp/cpu.json" >"$tmp/cpu.dump"
check "CPU-only trace: its threads are open" grep -q "thread 2 .*op_b" "$tmp/cpu.dump"
check "CPU-only trace: the group is not folded" grep -Eq "^(▼|-) CPU pid 1  2 threads" "$tmp/cpu.dump"
"$BIN" view --dump --size 80x24 "$DATA/kineto-2node.json" >"$tmp/gpu.dump"
check "GPU trace: CPU groups folded" grep -Eq "^(▶|\+) CPU" "$tmp/gpu.dump"
# at 80 columns the title keeps the cursor whole (never "cursor 31m" or a bare "cursor"),
# dropping zoom and view first
cp "$DATA/moe-ep/rank0.json" "$tmp/a-rather-long-trace-file-name-rank0.json"
"$BIN" view --dump --size 80x24 --keys "llllllllllll" "$tmp/a-rather-long-trace-file-name-rank0.json" | head -1 >"$tmp/title"
check "80 columns: the cursor is whole in the title" grep -Eq "cursor [0-9.]+(ns|us|ms|s)( |$)" "$tmp/title"
# `ovtrace FILE...` is view: view's options may come first, as after `ovtrace view`
for opts in "--color none" "-v" "--range 0:100us" "-q" "--color=none --ascii"; do
    "$BIN" $opts --dump --size 80x20 "$DATA/kineto-2node.json" >"$tmp/o1" 2>/dev/null; rc=$?
    "$BIN" view $opts --dump --size 80x20 "$DATA/kineto-2node.json" >"$tmp/o2" 2>/dev/null
    check "ovtrace $opts FILE exits 0" test $rc -eq 0
    check "ovtrace $opts FILE is view $opts FILE" cmp -s "$tmp/o1" "$tmp/o2"
done
"$BIN" --bogus "$DATA/kineto-2node.json" 2>"$tmp/err"; rc=$?
check "an option view does not have is still refused" test $rc -eq 2

# a rank beyond 32 bits is refused, not wrapped onto rank 1 (2^32 + 1) or read as "all"
for r in 4294967297 2147483648 -1 x; do
    "$BIN" stats --rank "$r" "$DATA/moe-ep/rank1.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    check "stats --rank $r rejected" test $rc -eq 2
    check "stats --rank $r says the range" grep -q -- "--rank needs an integer in 0..2147483647, got '$r'" "$tmp/err"
done

"$BIN" stats "$DATA/nope.json" 2>"$tmp/err"; rc=$?
check "missing file exits 1" test $rc -eq 1
check "missing file message" grep -q "nope.json: No such file" "$tmp/err"
printf '{"traceEvents":[{"ph":"X","ts":1,}]}' >"$tmp/bad.json"
"$BIN" stats "$tmp/bad.json" 2>"$tmp/err"; rc=$?
check "syntax error exits 1" test $rc -eq 1
check "syntax error has offset" grep -q "bad.json: byte 33 (line 1, column 34): expected a string key" "$tmp/err"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":1,"dur":2},{"ph":"X","na' >"$tmp/cut.json"
"$BIN" stats "$tmp/cut.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "truncated trace exits 0" test $rc -eq 0
check "truncated trace warns" grep -q "truncated at byte 83" "$tmp/err"
check "truncated trace loads prefix" grep -q "^1 events" "$tmp/out"
# compressed: the offset is in the decompressed JSON, and where the compressed data ends is said too
gzip -c "$tmp/cut.json" >"$tmp/cut.json.gz"
"$BIN" stats "$tmp/cut.json.gz" >"$tmp/out" 2>"$tmp/err"
check "truncated gzip trace: the offset is the decompressed JSON's" grep -q \
    "cut.json.gz: trace is truncated at byte 83 of the decompressed JSON (its gzip data ends at compressed byte $(stat -c %s "$tmp/cut.json.gz");" "$tmp/err"
awk 'BEGIN { printf "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}";
             for (i = 0; i < 5000; i++) printf ",\n{\"ph\":\"X\",\"name\":\"k%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}", i * 7919 % 5003, i + 2;
             print "]}" }' | gzip -c | head -c 4000 >"$tmp/cutz.json.gz"
"$BIN" stats "$tmp/cutz.json.gz" >"$tmp/out" 2>"$tmp/err"
check "a cut gzip stream: the JSON offset, the compressed file's end" \
    grep -q "cutz.json.gz: trace is truncated at byte [0-9]* of the decompressed JSON (its gzip data ends at compressed byte 4000;" "$tmp/err"
gzip -c "$tmp/bad.json" >"$tmp/bad.json.gz"
"$BIN" stats "$tmp/bad.json.gz" 2>"$tmp/err"
check "syntax error in a gzip trace: the decompressed JSON's offset" \
    grep -q "bad.json.gz: byte 33 of the decompressed JSON (line 1, column 34): expected a string key" "$tmp/err"
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":"x","dur":2},{"ph":"X","name":"b","pid":1,"tid":1,"ts":1,"dur":2}]}' |
    gzip -c >"$tmp/skip.json.gz"
"$BIN" stats "$tmp/skip.json.gz" >/dev/null 2>"$tmp/err"
check "a skipped event in a gzip trace: the decompressed JSON's offset" \
    grep -q "first in .*skip.json.gz at byte 16 of the decompressed JSON: \"ts\" is not a number" "$tmp/err"

if [ -r "$DEEPSEEK" ]; then
    "$BIN" stats "$DEEPSEEK" >"$tmp/table"
    check "table has the reference figures" grep -Eq "129,012 +128,515 +497 +124,338 +113,030 +108,868 +4,162 +[0-9,]+ +0.9632" "$tmp/table"
    check "table lists stream 27" grep -Eq " 27 stream 27 +40 " "$tmp/table"
    "$BIN" stats --json "$DEEPSEEK" >"$tmp/s.json"
    check "json is valid" python3 -m json.tool "$tmp/s.json" >/dev/null
    check "json exact ns" python3 - "$tmp/s.json" <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))['devices'][0]
assert (d['comm_ns'],d['compute_ns'],d['overlap_ns'],d['exposed_comm_ns'],d['window_ns'],d['idle_ns'])==(113030000,124338000,108868000,4162000,129012000,497000), d
assert round(d['overlap_ratio'],4)==0.9632
assert [s['stream'] for s in d['streams']]==[7,23,27]
PY
    # a range split in two adds up to the whole
    "$BIN" stats --json --range 0:60ms "$DEEPSEEK" >"$tmp/a.json"
    "$BIN" stats --json --range 60ms: "$DEEPSEEK" >"$tmp/b.json"
    check "ranges add up" python3 - "$tmp/a.json" "$tmp/b.json" <<'PY'
import json,sys
a=json.load(open(sys.argv[1]))['devices'][0]; b=json.load(open(sys.argv[2]))['devices'][0]
assert a['comm_ns']+b['comm_ns']==113030000 and a['overlap_ns']+b['overlap_ns']==108868000, (a,b)
PY
    "$BIN" stats --json --stream 27 "$DEEPSEEK" >"$tmp/s27.json"
    check "stream filter" python3 -c "import json,sys; d=json.load(open('$tmp/s27.json'))['devices'][0]; assert d['events']==40 and d['comm_ns']==113030000 and d['overlap_ns']==0, d"
    "$BIN" stats --rank 5 "$DEEPSEEK" >"$tmp/r5"
    check "rank filter with no match" grep -q "no GPU activity" "$tmp/r5"
    "$BIN" stats --not-comm 'dpsk::ep' "$DEEPSEEK" >"$tmp/nc"
    check "--not-comm reclassifies (like HTA would)" grep -q "no comm" "$tmp/nc"
    "$BIN" stats --range 10ms:5ms "$DEEPSEEK" 2>"$tmp/err"; rc=$?
    check "bad range rejected" test $rc -eq 2
    check "bad range explained" grep -q "end is before start" "$tmp/err"
    gzip -c "$DEEPSEEK" >"$tmp/d.json.gz"; zstd -q -c "$DEEPSEEK" >"$tmp/d.bin"
    for f in "$tmp/d.json.gz" "$tmp/d.bin"; do
        "$BIN" stats --json "$f" | python3 -c "import json,sys; d=json.load(sys.stdin)['devices'][0]; assert d['overlap_ns']==108868000" 
        check "compressed $(basename "$f")" test $? -eq 0
    done
fi
samples=$DATA/../../sample-traces
"$BIN" view "$samples/sim-prefill.json.zst" --dump --frames 1 --size 120x30 >"$tmp/sim" 2>&1
check "simulated recordings say so in the viewer" bash -c "head -1 '$tmp/sim' | grep -q SIMULATED"
"$BIN" view "$samples/demo-moe.json.gz" --dump --frames 1 --size 120x30 >"$tmp/demo" 2>&1
check "recorded traces are not marked simulated" bash -c "! head -1 '$tmp/demo' | grep -q SIMULATED"
"$BIN" view x.json 2>"$tmp/err"; rc=$?
if grep -q "not implemented" "$tmp/err"; then check "pending view says so" test $rc -eq 3; fi
# a recording on a GPU says which: the hardware line, its text escaped (ESC, bidi)
printf '%s' '{"ovtrace": {"simulated": false, "gpus": {"driver": "580.159.04", "cuda_driver": "13.0", "devices": [{"name": "evil\u001b[2J\u202egpu", "sms": 4}, {"name": "NVIDIA H200", "sms": 132, "compute_capability": "9.0", "memory_mib": 143155}]}}, "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"device": 0, "stream": 7}}]}' >"$tmp/hw.json"
"$BIN" stats "$tmp/hw.json" >"$tmp/hw.out" 2>&1
check "stats names the GPUs a recording ran on" \
    grep -qF 'recorded on evil\x1b[2J\u202egpu (4 SMs); NVIDIA H200 (132 SMs, compute 9.0, 139.8 GiB), driver 580.159.04, CUDA 13.0' "$tmp/hw.out"
check "the hardware line prints no raw ESC" bash -c "! grep -q \$'\\x1b' '$tmp/hw.out'"
"$BIN" stats --json "$tmp/hw.json" >"$tmp/hw.jout" 2>&1
check "stats --json gives the hardware per file" grep -qF '"hardware": "evil\u001b[2J\u202egpu (4 SMs); NVIDIA H200' "$tmp/hw.jout"
"$BIN" view --dump "$tmp/hw.json" >"$tmp/hw.dump" 2>&1
check "the viewer's title names the GPUs, escaped" bash -c "head -1 '$tmp/hw.dump' | grep -qF 'hw.json on evil\x1b[2J\u202egpu; NVIDIA H200 '"
check "the viewer's screen has no raw ESC from the trace" bash -c "! grep -q \$'\\x1b' '$tmp/hw.dump'"
check "a trace without GPUs in its metadata has no hardware line" bash -c "! '$BIN' stats '$DATA/moe-ep/rank0.json' | grep -q 'recorded on'"
# CUPTI's event and context syncs (stream -1) hold no GPU work: no row of their own
printf '%s' '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"device": 0, "stream": 7}}, {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 1, "dur": 5, "args": {"device": 0, "stream": -1}}]}' >"$tmp/sync.json"
"$BIN" stats "$tmp/sync.json" >"$tmp/sync.out" 2>&1
check "stats: the kernel's stream has its row" grep -qE '^ +0 +0 +7 stream 7 +1 +2$' "$tmp/sync.out"
check "stats: no row for a lane of syncs alone" bash -c "! grep -qE '^ +0 +0 +-1 ' '$tmp/sync.out'"
echo "$fails failure(s)"
exit $((fails > 0))
