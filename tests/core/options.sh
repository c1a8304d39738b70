#!/usr/bin/env bash
# Every subcommand parses its options with getopt_long (cli/opts.c): each value option
# works as --opt VALUE and as --opt=VALUE, unknown options, abbreviations, a missing
# value and a value given to a flag are usage errors (exit 2) that name the option, and
# positional arguments ('-' for stdin, '--' then a file named like an option) still work.
# The option list comes from the tables (ovtrace --list-options CMD), so an option added
# without a sample value here, or missing from --help (long and short name), fails.
set -u
BIN=$(realpath "$1"); ROOT=$2
fails=0
differs() { ! cmp -s "$1" "$2"; }
check() { # description, condition...
    local d=$1; shift
    if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
SAMPLE=$ROOT/sample-traces/demo-moe.json.gz
: >"$tmp/rules"

# A value the option accepts while parsing (checked later values are fine too: parsing
# stops at the unknown option after it, before anything runs).
sample() {
    case "$1" in
    --range) echo 0:1ms ;; --align) echo start ;; --lazy) echo off ;; --color|--colour) echo auto ;; --size) echo 80x20 ;;
    --keys) echo q ;; --mode) echo decode ;; --link) echo nvlink ;; --batching) echo fixed ;;
    --workload) echo moe ;; --class) echo comm ;; --command) echo 'select 1' ;; --rules) echo "$tmp/rules" ;; --step|--comm|--not-comm|--comm-stream|--name|--exclude) echo x ;;
    --mem-cap) echo 1GiB ;; --jitter) echo 0.1 ;; --max-token) echo 1M ;; --a|--b) echo "$SAMPLE" ;;
    --output|--debug-frame-log|--summary) echo "$tmp/out.json" ;;
    --threads|--rank|--device|--stream|--top|--frames|--comm-sms|--tokens|--layers|--experts|--topk|--hidden|\
    --tflops|--seed|--speed|--steps|--duration|--retention|--interval|--window|--gpus|--ranks|--imbalance|\
    --clock-skew|--rate|--min-batch|--max-batch|--prompt-tokens|--out-tokens|--warmup|--min-dur|\
    --debug-load-throttle-ms|--debug-lazy-delay-ms|--debug-lazy-stall-ms|--debug-cache-wait-ms|--debug-parallel-min-bytes|--debug-slab-bytes) echo 1 ;;
    *) return 1 ;;
    esac
}

for cmd in view stats diff export query live record workload; do
    "$BIN" --list-options "$cmd" >"$tmp/opts" || { echo "FAIL --list-options $cmd"; fails=$((fails + 1)); continue; }
    check "$cmd: the table lists options" test -s "$tmp/opts"
    "$BIN" "$cmd" --help >"$tmp/help" 2>&1
    # record shares live's table; --headless, --interval and --window are live's
    [ "$cmd" = record ] && "$BIN" live --help >>"$tmp/help" 2>&1
    check "$cmd: help mentions --opt=VALUE" grep -q -- '--opt=VALUE' "$tmp/help"
    while IFS=$'\t' read -r name kind short hidden; do
        [ -n "$name" ] || continue
        if [ "$hidden" != hidden ] && [ "$short" != hidden ]; then
            check "$cmd: $name is in --help" grep -q -e "$name\\b" "$tmp/help"
            [ -z "$short" ] || check "$cmd: $short is in --help" grep -q -e "$short[ ,]" "$tmp/help"
        fi
        if [ "$kind" = flag ]; then
            "$BIN" "$cmd" "$name=1" >/dev/null 2>"$tmp/e"; rc=$?
            check "$cmd $name=1: exit 2 (a flag takes no value)" test $rc -eq 2
            check "$cmd $name=1: says so" grep -q -e "option $name takes no value" "$tmp/e"
            continue
        fi
        if ! v=$(sample "$name"); then
            echo "FAIL $cmd: no sample value for $name in this test"; fails=$((fails + 1)); continue
        fi
        for form in eq sep; do
            if [ $form = eq ]; then "$BIN" "$cmd" "$name=$v" --zz-no-such-option >/dev/null 2>"$tmp/e"; rc=$?
            else "$BIN" "$cmd" "$name" "$v" --zz-no-such-option >/dev/null 2>"$tmp/e"; rc=$?; fi
            check "$cmd $name ($form): accepted, parsing goes on to the next option" \
                grep -q "unknown option '--zz-no-such-option' for $cmd (see 'ovtrace $cmd --help')" "$tmp/e"
            check "$cmd $name ($form): exit 2" test $rc -eq 2
        done
        "$BIN" "$cmd" "$name" >/dev/null 2>"$tmp/e"; rc=$?
        check "$cmd $name without a value: exit 2" test $rc -eq 2
        check "$cmd $name without a value: says so" grep -q -e "$name needs a value" "$tmp/e"
    done <"$tmp/opts"
    "$BIN" "$cmd" --zz >/dev/null 2>"$tmp/e"; rc=$?
    check "$cmd --zz: exit 2" test $rc -eq 2
    check "$cmd --zz: clear error" grep -q "^ovtrace: error: unknown option '--zz' for $cmd (see 'ovtrace $cmd --help')" "$tmp/e"
done

# the values reach the command: both forms give the same output
"$BIN" stats --threads 1 --top 3 --range 0:10ms "$SAMPLE" >"$tmp/a" 2>&1
"$BIN" stats --threads=1 --top=3 --range=0:10ms "$SAMPLE" >"$tmp/b" 2>&1
check "stats: --opt=value and --opt value agree" cmp -s "$tmp/a" "$tmp/b"
check "stats --top=3 lists 3 kernels" test "$(sed -n '/top kernels/,/^$/p' "$tmp/b" | grep -c '^ *[0-9]')" -eq 3
"$BIN" stats --threads=1 --top=0 "$SAMPLE" >"$tmp/c" 2>&1
check "stats --top=0 differs from --top=3" differs "$tmp/b" "$tmp/c"
# --top 0 lists every kernel in stats and in diff alike
kernels() { sed -n "/$1/,/^\$/p" "$2" | grep -c '^ *[0-9]'; }
"$BIN" stats --threads=1 --top=100000 "$SAMPLE" >"$tmp/c2" 2>&1
"$BIN" diff --top=0 "$SAMPLE" "$SAMPLE" >"$tmp/c3" 2>&1
nall=$(kernels 'top kernels' "$tmp/c2")
check "stats --top=0 lists every kernel ($nall)" test "$nall" -gt 3 -a "$(kernels 'top kernels' "$tmp/c")" -eq "$nall"
check "diff --top=0 lists every kernel, as stats does" test "$(kernels 'kernels by absolute change' "$tmp/c3")" -eq "$nall"
"$BIN" view --dump --size=60x12 "$SAMPLE" >"$tmp/v" 2>&1
check "view --size=60x12: 60 columns" test "$(awk '{ print length }' "$tmp/v" | sort -n | tail -1)" -le 60
"$BIN" export "$SAMPLE" --output="$tmp/x.json" --class=comm 2>&1 | sed "s|$tmp/x.json|OUT|" >"$tmp/xm"
check "export --output=FILE writes FILE" test -s "$tmp/x.json"
"$BIN" export "$SAMPLE" -o"$tmp/y.json" --class comm 2>&1 | sed "s|$tmp/y.json|OUT|" >"$tmp/ym"
check "export -oFILE writes FILE, the same events" cmp -s "$tmp/xm" "$tmp/ym"
check "export --class=comm kept only some events" grep -q "wrote [0-9]* events to OUT" "$tmp/xm"
"$BIN" export "$SAMPLE" -o="$tmp/z.json" >/dev/null 2>"$tmp/e"; rc=$?
check "export -o=FILE: exit 2, no file '=...'" test $rc -eq 2 -a ! -e "$tmp/=$tmp/z.json"
check "export -o=FILE: says how" grep -q "takes its value as '-o VALUE' or '--output=VALUE'" "$tmp/e"
"$BIN" stats -qv "$SAMPLE" >/dev/null 2>&1
check "stats -qv: short options cluster" test $? -eq 0

# abbreviations are refused (getopt_long would take --thr for --threads)
"$BIN" stats --thr 1 "$SAMPLE" >/dev/null 2>"$tmp/e"; rc=$?
check "stats --thr: exit 2" test $rc -eq 2
check "stats --thr: unknown option" grep -q "unknown option '--thr' for stats" "$tmp/e"
"$BIN" stats -z "$SAMPLE" >/dev/null 2>"$tmp/e"; rc=$?
check "stats -z: exit 2, unknown option '-z'" test $rc -eq 2 -a "$(grep -c "unknown option '-z'" "$tmp/e")" -eq 1
"$BIN" export "$SAMPLE" -o >/dev/null 2>"$tmp/e"; rc=$?
check "export -o without a value: exit 2, names -o" test $rc -eq 2 -a "$(grep -c 'option -o needs a value' "$tmp/e")" -eq 1

# positional arguments: '-' is standard input, '--' ends the options
"$BIN" stats --threads=1 - <"$SAMPLE" >"$tmp/p1" 2>&1
check "stats -: reads standard input" grep -q "632 events" "$tmp/p1"
cp "$SAMPLE" "$tmp/--odd.json.gz"
(cd "$tmp" && "$BIN" stats --threads=1 -- --odd.json.gz) >"$tmp/p2" 2>&1
check "stats -- --odd.json.gz: a file named like an option" grep -q "632 events" "$tmp/p2"
"$BIN" stats "$SAMPLE" --threads=1 >"$tmp/p3" 2>&1
check "stats FILE --opt=value: options after files" grep -q "632 events" "$tmp/p3"
"$BIN" diff --json=1 "$SAMPLE" "$SAMPLE" >/dev/null 2>&1
check "diff --json=1: exit 2" test $? -eq 2
"$BIN" diff --top=1 "$SAMPLE" "$SAMPLE" >"$tmp/d" 2>&1
check "diff --top=1 A B runs" grep -q "B - A" "$tmp/d"
"$BIN" live --simulate --headless --duration=0.3 --interval=0.1 --mode=decode >"$tmp/l" 2>&1
check "live --duration=0.3 --mode=decode: runs and ends" grep -q "SIMULATED decode" "$tmp/l"
"$BIN" record --simulate --steps=2 --output="$tmp/r.json" >/dev/null 2>&1
check "record --output=FILE --steps=2 writes FILE" test -s "$tmp/r.json"
"$BIN" live -- >/dev/null 2>"$tmp/e"; rc=$?
check "live -- (no program): exit 2" test $rc -eq 2

# the timing logs are options now, and reach every loader: stats and the view
"$BIN" stats --debug-finish-timing --debug-coll-timing "$ROOT/tests/data/moe-ep" >/dev/null 2>"$tmp/tm"
check "stats --debug-finish-timing: Trace_finish's steps on stderr" grep -q "^finish: flowidx" "$tmp/tm"
check "stats --debug-coll-timing: Coll_analyze's steps on stderr" grep -q "^coll index" "$tmp/tm"
"$BIN" stats "$ROOT/tests/data/moe-ep" >/dev/null 2>"$tmp/tm0"
check "stats: no timing without the options" test ! -s "$tmp/tm0"
"$BIN" view --dump --size 80x20 --debug-finish-timing --debug-coll-timing "$ROOT/tests/data/moe-ep" >/dev/null 2>"$tmp/tv"
check "view --debug-finish-timing --debug-coll-timing: both logs" \
    bash -c "grep -q '^finish: flowidx' '$tmp/tv' && grep -q '^coll index' '$tmp/tv'"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
