#!/bin/sh
# correctness: parallel and single-threaded loads give byte-identical
# `stats --json` (and the same warnings, errors and exit status) on every test trace:
# tests/data (the moe-ep pair included), the sample traces, the malformed corpus,
# DeepSeek's trace (else the shipped moe-ep rank 0) plain, gzip and zstd, and cuts of it. Parallel loading is forced on these small files (plain: slices
# from 1 byte on; compressed: 4 kB slabs), with 2 and 3 threads.
# usage: stats_threads.sh OVTRACE SOURCE_DIR DEEPSEEK
BIN=$1 SRC=$2 DEEPSEEK=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0

check() {
    f=$1
    "$BIN" stats --json --no-cache --threads 1 "$f" >"$tmp/ref.out" 2>"$tmp/ref.err"
    rc1=$?
    for th in 2 3; do
        "$BIN" stats --json --no-cache --threads $th --debug-parallel-min-bytes=1 --debug-slab-bytes=4096 "$f" >"$tmp/par.out" 2>"$tmp/par.err"
        rc2=$?
        if [ $rc1 -ne $rc2 ] || ! cmp -s "$tmp/ref.out" "$tmp/par.out" || ! cmp -s "$tmp/ref.err" "$tmp/par.err"; then
            echo "FAIL: $f: --threads 1 (rc $rc1) and --threads $th (rc $rc2) differ"
            diff "$tmp/ref.out" "$tmp/par.out" | head -5
            diff "$tmp/ref.err" "$tmp/par.err" | head -5
            fail=1
        fi
    done
    n=$((n + 1))
}

for f in "$SRC"/tests/data/* "$SRC"/tests/data/moe-ep/*.json "$SRC"/sample-traces/*.json* \
    "$SRC"/tests/reliability/malformed/*; do
    [ -f "$f" ] && check "$f"
done
if [ ! -r "$DEEPSEEK" ]; then
    # a plain clone: the shipped DeepSeek-like trace takes its place (same cases)
    echo "note: $DEEPSEEK not found: the cases below use tests/data/moe-ep/rank0.json"
    DEEPSEEK=$SRC/tests/data/moe-ep/rank0.json
fi
if [ -r "$DEEPSEEK" ]; then
    cp "$DEEPSEEK" "$tmp/ds.json"
    gzip -1 -c "$DEEPSEEK" >"$tmp/ds.json.gz"
    zstd -q -1 -c "$DEEPSEEK" >"$tmp/ds.json.zst"
    size=$(wc -c <"$DEEPSEEK")
    head -c $((size / 3)) "$DEEPSEEK" >"$tmp/ds-cut.json"
    head -c $((size * 2 / 3)) "$DEEPSEEK" | zstd -q -1 -c >"$tmp/ds-cut.json.zst"
    for f in "$tmp"/ds*; do check "$f"; done
else
    echo "note: $DEEPSEEK not found: DeepSeek cases skipped"
fi
[ $n -ge 30 ] || { echo "FAIL: only $n traces checked"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $n traces, stats --json identical with 1, 2 and 3 threads"
exit $fail
