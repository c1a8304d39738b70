#!/bin/sh
# The devices table is the devices array of `stats --json`: the same rows in the same
# order, every figure under the same name with the same value (the ratio as stats
# prints it, to 6 decimals), over the whole trace and over a range (devices(A, B)
# against stats --range). Skips (77) when the trace is absent (../shared is not part
# of the repository).
# usage: devices_stats.sh OVTRACE TRACE
set -u
BIN=$1 TRACE=$2
[ -e "$TRACE" ] || { echo "SKIP: $TRACE not found"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$BIN" stats -q --json "$TRACE" >"$TMP/stats.json" || fail "stats --json failed"
"$BIN" query -q --json "$TRACE" -c 'SELECT * FROM devices' >"$TMP/query.json" || fail "query failed"
"$BIN" stats -q --json --range 2ms:9ms "$TRACE" >"$TMP/stats_range.json" || fail "stats --range failed"
"$BIN" query -q --json "$TRACE" -c 'SELECT * FROM devices(2000000, 9000000)' >"$TMP/query_range.json" \
  || fail "query devices(A, B) failed"

python3 - "$TMP" <<'PY' || exit 1
import json, sys
tmp = sys.argv[1]
for stats_file, query_file in (("stats.json", "query.json"), ("stats_range.json", "query_range.json")):
    stats = json.load(open(f"{tmp}/{stats_file}"))["devices"]
    rows = json.load(open(f"{tmp}/{query_file}"))
    if not stats:
        sys.exit(f"FAIL: {stats_file} lists no devices")
    if len(rows) != len(stats):
        sys.exit(f"FAIL: {query_file}: {len(rows)} devices, stats has {len(stats)}")
    for d, r in zip(stats, rows):
        for key, want in d.items():
            if key == "streams":
                continue
            if key not in r:
                sys.exit(f"FAIL: devices has no column {key}")
            got = r[key]
            if key == "overlap_ratio" and got is not None:
                got = round(got, 6)
            if got != want:
                sys.exit(f"FAIL: {query_file} rank {d['rank']} device {d['device']}: {key} = {got}, stats: {want}")
        extra = set(r) - set(d) - {"range_start", "range_end"}
        if extra:
            sys.exit(f"FAIL: devices has columns stats does not: {sorted(extra)}")
    print(f"ok   {query_file}: {len(rows)} devices equal stats --json")
PY
