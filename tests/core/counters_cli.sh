#!/bin/sh
# Counter series through the binary: stats lists each series with its
# min/max/mean (text and --json), a range selects the samples in it, export keeps
# every series (stats of the export equal those of the input), and series names from
# the trace reach the terminal without control characters.
# usage: counters_cli.sh OVTRACE DATA_DIR
set -u
BIN=$1 DATA=$2
FIX=$DATA/kineto-memory.json
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$BIN" stats "$FIX" >"$TMP/stats" || fail "stats failed"
# GPU 0 allocated 1, 3, 2, 0 MiB: min 0, max 3 MiB, mean 1.5 MiB (fixture's comments)
grep -Eq '^ +0 +4 +0 B +3\.00 MiB +1\.50 MiB  \[memory\] GPU 0 Total Allocated$' "$TMP/stats" \
  || { cat "$TMP/stats"; fail "GPU 0 Total Allocated figures"; }
grep -Eq '^ +0 +4 +2\.00 MiB +4\.00 MiB +3\.50 MiB  \[memory\] GPU 0 Total Reserved$' "$TMP/stats" \
  || fail "GPU 0 Total Reserved figures"
[ "$(grep -c '\[memory\]' "$TMP/stats")" = 9 ] || fail "not 9 memory series"
# the trace starts at the first sample (100 us): 50us:250us is [150 us, 350 us): 3 and 2 MiB
"$BIN" stats --range 50us:250us "$FIX" >"$TMP/range" || fail "stats --range failed"
grep -Eq '^ +0 +2 +2\.00 MiB +3\.00 MiB +2\.50 MiB  \[memory\] GPU 0 Total Allocated$' "$TMP/range" \
  || { cat "$TMP/range"; fail "range figures"; }
"$BIN" stats --json "$FIX" >"$TMP/json" || fail "stats --json failed"
grep -q '"name": "\[memory\] GPU 0 Total Allocated", "rank": 0, "device": 0, "unit": "bytes", "samples": 4, "min": 0, "max": 3145728, "mean": 1572864}' "$TMP/json" \
  || { cat "$TMP/json"; fail "json counters"; }
if command -v python3 >/dev/null; then python3 -m json.tool "$TMP/json" >/dev/null || fail "invalid JSON"; fi

# export keeps every sample: the counters section of stats is the same
"$BIN" export "$FIX" -o "$TMP/out.json" -q || fail "export failed"
"$BIN" stats "$TMP/out.json" | sed -n '/^counters/,$p' >"$TMP/c2"
sed -n '/^counters/,$p' "$TMP/stats" >"$TMP/c1"
[ -s "$TMP/c1" ] && cmp -s "$TMP/c1" "$TMP/c2" || { diff "$TMP/c1" "$TMP/c2"; fail "export lost counter samples"; }
# a range export keeps the samples in the range
"$BIN" export "$FIX" --range 50us:250us -o "$TMP/r.json" -q || fail "range export failed"
"$BIN" stats "$TMP/r.json" | grep -Eq '^ +0 +2 +2\.00 MiB +3\.00 MiB +2\.50 MiB  \[memory\] GPU 0 Total Allocated$' \
  || fail "range export figures"

# 40 series in one counter event: all listed; a hostile name is printed without ESC/BEL
{
  printf '[{"ph":"C","name":"\\u001b]0;pwn\\u0007x","pid":1,"tid":1,"ts":1,"args":{'
  i=0; while [ $i -lt 40 ]; do [ $i -gt 0 ] && printf ','; printf '"s%d":%d' $i $i; i=$((i+1)); done
  printf '}}]'
} >"$TMP/many.json"
"$BIN" stats "$TMP/many.json" >"$TMP/many" || fail "stats on 40 series failed"
[ "$(grep -c 'x\.s[0-9]' "$TMP/many")" = 40 ] || { cat "$TMP/many"; fail "not 40 series listed"; }
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/many" || LC_ALL=C grep -q "$(printf '\007')" "$TMP/many"; then
  fail "control characters from a series name reached the output"
fi
echo "ok"
