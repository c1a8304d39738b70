#!/bin/sh
# What ovtrace writes opens in Perfetto with every event, name and flow: exports (plain,
# merged with string pids, clipped, from an Nsight Systems report), `record` outputs and
# the bundled samples pass tests/export/perfetto_rules.py, the rules of Perfetto's JSON
# importer; and the Nsight Systems export reloads with the report's own figures.
# usage: perfetto_import.sh OVTRACE DATA_DIR SAMPLES_DIR DEEPSEEK_TRACE
BIN=$1 DATA=$2 SAMPLES=$3 DS=$4
HERE=$(dirname "$0")
RULES="$HERE/perfetto_rules.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

python3 "$RULES" --self-test || exit 1

exp() { # name, then export arguments
    name=$1
    shift
    "$BIN" export -q --no-cache "$@" -o "$tmp/$name.json" || { echo "FAIL: export $name"; fail=1; }
}

python3 "$DATA/nsys/make.py" "$tmp/nsys" >/dev/null || { echo "FAIL: nsys fixture"; exit 1; }
exp nsys "$tmp/nsys/rank0.sqlite"
exp moe-merged --merge "$DATA/moe-ep"
exp moe-clip --merge --range 1ms:3ms --clip "$DATA/moe-ep"
for s in "$SAMPLES"/*.json.*; do
    exp "sample-$(basename "$s" | tr . _)" "$s"
done
"$BIN" record -o "$tmp/rec.json" --simulate --ranks 2 --steps 1 --seed 3 >/dev/null 2>&1 \
    || { echo "FAIL: record --ranks"; fail=1; }
"$BIN" record -o "$tmp/serve.json" --simulate --mode serve --steps 2 --speed 100 >/dev/null 2>&1 \
    || { echo "FAIL: record --mode serve"; fail=1; }
if [ -f "$DS" ]; then
    exp deepseek "$DS"
fi
python3 "$RULES" "$tmp"/*.json || fail=1

# the Nsight Systems export reloads with the report's figures (paths aside)
"$BIN" stats --json --no-cache "$tmp/nsys/rank0.sqlite" | grep -v '"path"' >"$tmp/a"
"$BIN" stats --json --no-cache "$tmp/nsys.json" | grep -v '"path"' >"$tmp/b"
if ! cmp -s "$tmp/a" "$tmp/b"; then
    echo "FAIL: stats of the Nsight Systems export differ from the report's"
    diff "$tmp/a" "$tmp/b" | head -10
    fail=1
fi
[ $fail = 0 ] && echo "perfetto_import: ok"
exit $fail
