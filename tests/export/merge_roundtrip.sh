#!/bin/sh
# `export --merge` keeps rank identity. Two ranks that both use GPU 0
# merged into one file reopen as the same ranks, devices, streams and figures:
# `stats --json` of the inputs equals that of the merged file (all ranks, and each rank
# alone), file paths aside. Inputs: the shipped pair tests/data/moe-ep (always) and
# DeepSeek's trace copied as ranks 0 and 1 (when ../shared has it).
# usage: merge_roundtrip.sh OVTRACE DATA_DIR DEEPSEEK_TRACE
BIN=$1 DATA=$2 DS=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

strip() { grep -v '"path"' "$1"; } # file paths differ by construction

roundtrip() { # name in0 in1 [ext]
    name=$1 a=$2 b=$3 ext=${4:-json}
    out="$tmp/$name-merged.$ext"
    "$BIN" export -q --no-cache "$a" "$b" --merge -o "$out" || { echo "FAIL: $name: export"; fail=1; return; }
    for sel in "" "--rank 0" "--rank 1"; do
        # shellcheck disable=SC2086
        "$BIN" stats --json --no-cache $sel "$a" "$b" >"$tmp/in.json"
        # shellcheck disable=SC2086
        "$BIN" stats --json --no-cache $sel "$out" >"$tmp/out.json"
        strip "$tmp/in.json" >"$tmp/in.s"
        strip "$tmp/out.json" >"$tmp/out.s"
        if ! cmp -s "$tmp/in.s" "$tmp/out.s"; then
            echo "FAIL: $name ${sel:-all ranks}: stats of the merged file differ"
            diff "$tmp/in.s" "$tmp/out.s" | head -8
            fail=1
        fi
    done
    # two devices, one per rank, both device 0
    n=$(python3 -c 'import json,sys; print(sum(1 for d in json.load(open(sys.argv[1]))["devices"] if d["device"] == 0))' "$tmp/in.json")
    [ "$n" = 1 ] || { echo "FAIL: $name: rank 1 alone should be one device (got $n)"; fail=1; }
    "$BIN" stats --json --no-cache "$out" | grep -c '"device": 0, "window_start_ns"' >"$tmp/n"
    [ "$(cat "$tmp/n")" = 2 ] || { echo "FAIL: $name: merged file has $(cat "$tmp/n") devices, want 2"; fail=1; }
    echo "$name: merged round trip ok ($out)"
}

roundtrip moe-ep "$DATA/moe-ep/rank0.json" "$DATA/moe-ep/rank1.json"
roundtrip moe-ep-zst "$DATA/moe-ep/rank0.json" "$DATA/moe-ep/rank1.json" json.zst
if [ -r "$DS" ]; then
    cp "$DS" "$tmp/r0.json"
    python3 - "$DS" "$tmp/r1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["distributedInfo"]["rank"] = 1
json.dump(d, open(sys.argv[2], "w"))
PY
    roundtrip deepseek "$tmp/r0.json" "$tmp/r1.json"
    # each rank's figures are DeepSeek's reference ones
    [ "$(grep -c '"overlap_ratio": 0.963178' "$tmp/in.json")" -ge 1 ] || { echo "FAIL: deepseek ratio"; fail=1; }
else
    echo "note: $DS not found: DeepSeek case skipped"
fi
# hostile "merged" metadata: odd source lists and rank/pid texts load, nothing moves wrongly
cat >"$tmp/odd.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"k1","pid":"rank 1 pid 99999999999999999999","tid":7,"ts":1,"dur":2,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"k2","pid":"rank 99 pid 3","tid":7,"ts":2,"dur":2,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"k3","pid":"rank 1 pid 3","tid":7,"ts":3,"dur":2,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"cpu_op","name":"op","pid":"rank 0 host","tid":"main","ts":1,"dur":5},
{"ph":"X","cat":"kernel","name":"k4","pid":"rank x","tid":7,"ts":4,"dur":2,"args":{"device":0,"stream":7}}
],
"ovtrace":{"export":1,"merged":true,"sources":[{"rank":"x"},5,{"rank":1,"meta":{"distributedInfo":{"rank":7}}},{"rank":1e300}]}}
JSON
"$BIN" stats --json --no-cache "$tmp/odd.json" >"$tmp/odd.out" 2>&1 || { echo "FAIL: odd merged metadata"; cat "$tmp/odd.out"; fail=1; }
grep -q '"events": 5' "$tmp/odd.out" || { echo "FAIL: odd merged metadata lost events"; fail=1; }
"$BIN" view "$tmp/odd.json" -q --dump --size 100x30 >/dev/null 2>&1 || { echo "FAIL: odd merged file does not open"; fail=1; }
[ $fail -eq 0 ] && echo "ok"
exit $fail
