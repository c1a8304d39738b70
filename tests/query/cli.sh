#!/usr/bin/env bash
# ovtrace query through the binary: several -c run in order, the aligned table, --csv
# and --json (valid, exact integers), an error gives SQLite's message with its offset,
# line and column and exit status 1 (later -c do not run), SQL on standard input with
# dot commands, a usage error for a trace on stdin without -c, and names from the trace
# reach the terminal escaped in every output mode.
# usage: cli.sh OVTRACE DATA_DIR
set -u
BIN=$1 DATA=$2
MOE=$DATA/moe-ep
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
not() { ! "$@"; }
check() { # description, condition...
    local d=$1; shift
    if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}

# -c in order; the table: a header, dashes, numbers right-aligned
"$BIN" query -q "$MOE" -c 'SELECT count(*) AS n FROM events' -c "SELECT 'second' AS s" >"$TMP/t" 2>"$TMP/e"
check "-c: exit 0" test $? -eq 0
check "-c: the results in order" diff <(printf '  n\n---\n984\ns\n------\nsecond\n') "$TMP/t"
check "-c: nothing on stderr" test ! -s "$TMP/e"

# several statements in one -c; statements without rows print nothing
"$BIN" query -q "$MOE" -c 'CREATE TEMP TABLE k AS SELECT name, dur FROM events WHERE kind = "kernel"; SELECT count(*) FROM k' >"$TMP/t"
check "one -c, two statements" test "$(tail -1 "$TMP/t" | tr -d ' ')" = 304

# --csv: header, quoted fields with commas, exact numbers
"$BIN" query -q --csv "$MOE" -c "SELECT id, name, ts_abs, 'a\"b' AS q, NULL AS z FROM events WHERE id = 0" >"$TMP/csv"
check "--csv: header" test "$(head -1 "$TMP/csv")" = "id,name,ts_abs,q,z"
check "--csv: row" grep -qx '0,"void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128, false, 128, false>(__nv_bfloat16 const\*, int, unsigned char\*, float\*, int, int, int, int, bool, float, __nv_fp8_interpretation_t)",1740461679001009634,"a""b",' "$TMP/csv"

# --json: one array per statement, valid, integers exact
"$BIN" query -q --json "$MOE" -c 'SELECT ts_abs, 0.5 AS half FROM events WHERE id = 0' >"$TMP/json"
check "--json: valid" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/json"
check "--json: exact int64" grep -q '"ts_abs": 1740461679001009634, "half": 0.5' "$TMP/json"
"$BIN" query -q --json "$MOE" -c 'SELECT 1 AS a WHERE 0' >"$TMP/json0"
check "--json: no rows is []" test "$(cat "$TMP/json0")" = "[]"

# errors: message, offset, line, column, a caret; exit 1; later -c do not run
"$BIN" query -q "$MOE" -c 'SELECT 1' -c $'SELECT id,\n  FROM events' -c "SELECT 'not run'" >"$TMP/t" 2>"$TMP/e"
check "syntax error: exit 1" test $? -eq 1
check "syntax error: names the -c, message and place" \
    grep -q "^ovtrace: error: -c 2: near \"FROM\": syntax error (offset 13, line 2, column 3)" "$TMP/e"
check "syntax error: the line and a caret under the place" diff <(printf '    FROM events\n    ^\n') <(tail -2 "$TMP/e")
check "syntax error: later -c not run" not grep -q 'not run' "$TMP/t"
"$BIN" query -q "$MOE" -c 'SELECT nosuch FROM events' 2>"$TMP/e" >/dev/null
check "unknown column: offset" grep -q "no such column: nosuch (offset 7, line 1, column 8)" "$TMP/e"
"$BIN" query -q "$MOE" -c $'SELECT name\n  FROM ' 2>"$TMP/e" >/dev/null
check "incomplete input: the place is the end" \
    grep -q "incomplete input: the statement ends early (offset 18, line 2, column 7)" "$TMP/e"
"$BIN" query -q "$MOE" -c "SELECT * FROM steps('x[')" 2>"$TMP/e" >/dev/null
check "runtime error: exit 1 with the message" test $? -eq 1 -a -n "$(grep "steps' pattern" "$TMP/e")"

# SQL on standard input (not a terminal), with dot commands; an unknown one stops it
printf '.tables\nSELECT count(*)\n  FROM lanes;\n.schema flows\nSELECT 7\n' | "$BIN" query -q "$MOE" >"$TMP/t" 2>"$TMP/e"
check "stdin: exit 0" test $? -eq 0
check "stdin: .tables" grep -qx 'events  lanes  flows  counters  collectives  devices  steps' "$TMP/t"
check "stdin: a statement over two lines" grep -qx ' *10' "$TMP/t"
check "stdin: .schema" grep -q '^CREATE TABLE flows("from" INTEGER, "to" INTEGER, cat TEXT, id INTEGER);$' "$TMP/t"
check "stdin: the last statement needs no ';'" test "$(tail -1 "$TMP/t" | tr -d ' ')" = 7
printf '.nosuch\nSELECT 8;\n' | "$BIN" query -q "$MOE" >"$TMP/t" 2>"$TMP/e"
check "stdin: unknown dot command is an error" test $? -eq 1 -a ! -s "$TMP/t"
"$BIN" query -q - <"$MOE/rank0.json" >/dev/null 2>"$TMP/e"
check "trace on stdin without -c: usage error" test $? -eq 2
"$BIN" query -q - -c 'SELECT count(*) FROM events' <"$MOE/rank0.json" >"$TMP/t"
check "trace on stdin with -c" test "$(tail -1 "$TMP/t" | tr -d ' ')" = 495

# hostile names: escaped in the table and CSV, \u escapes in JSON
cat >"$TMP/evil.json" <<'J'
{"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "k\u001b]52;c;aGk=\u0007\u202e", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"s": "\u001b[2J"}}
]}
J
for mode in "" --csv --json; do
    "$BIN" query -q $mode "$TMP/evil.json" -c "SELECT name, arg(id, 's') AS s FROM events" -c "SELECT '$(printf '\033')[31mred' AS x" >"$TMP/o" 2>&1
    check "hostile names ${mode:-table}: no ESC, BEL or U+202E reaches the output" \
        not grep -q "$(printf '\033\\|\007\\|\342\200\256')" "$TMP/o"
    check "hostile names ${mode:-table}: shown escaped" grep -q '\\x1b\|\\u001b' "$TMP/o"
done

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"
