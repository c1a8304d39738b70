#!/bin/sh
# sample-traces/make_demo.py: --help prints usage and writes nothing; with no argument
# it writes demo-moe.json.gz beside itself, the same JSON as the shipped sample.
ROOT=$1
fails=0
check() { # description, condition...
    d=$1; shift
    if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/run" "$tmp/gen"
cp "$ROOT/sample-traces/make_demo.py" "$tmp/gen/"
(cd "$tmp/run" && python3 "$tmp/gen/make_demo.py" --help) >"$tmp/help" 2>&1; rc=$?
check "--help: exit 0, prints usage" test $rc -eq 0 -a "$(grep -c '^usage: make_demo.py' "$tmp/help")" -eq 1
check "--help: writes no file" test -z "$(ls -A "$tmp/run")" -a "$(ls -A "$tmp/gen")" = make_demo.py
(cd "$tmp/run" && python3 "$tmp/gen/make_demo.py" --bogus) >/dev/null 2>"$tmp/err"; rc=$?
check "--bogus: exit 2, writes no file" test $rc -eq 2 -a ! -e "$tmp/run/--bogus"
(cd "$tmp/run" && python3 "$tmp/gen/make_demo.py") >/dev/null 2>&1
check "no argument: writes demo-moe.json.gz beside the script" test -s "$tmp/gen/demo-moe.json.gz"
gzip -dc "$tmp/gen/demo-moe.json.gz" >"$tmp/a.json"
gzip -dc "$ROOT/sample-traces/demo-moe.json.gz" >"$tmp/b.json"
check "the default output is the shipped sample's JSON" cmp -s "$tmp/a.json" "$tmp/b.json"
(cd "$tmp/run" && python3 "$tmp/gen/make_demo.py" out.json.gz) >/dev/null 2>&1
check "OUT: writes OUT, the same bytes" cmp -s "$tmp/run/out.json.gz" "$tmp/gen/demo-moe.json.gz"
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
