#!/usr/bin/env bash
# The snapshot cache through the ovtrace binary, with XDG_CACHE_HOME in a temp
# directory: after a save (detached, so the test waits for the file), a hit gives
# byte-identical stats --json, stats tables, exports and viewer frames; auto mode
# leaves small traces alone; OVTRACE_CACHE, --cache and --no-cache decide; a changed
# input is a miss; a read-only cache directory gets nothing and costs nothing.
set -u
BIN=$1; DEEPSEEK=$2; DATA=$3; SAMPLES=$4
fails=0
check() { # description, condition...
    local d=$1; shift
    if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
unset OVTRACE_CACHE OVTRACE_CACHE_DEBUG   # CTest sets OVTRACE_CACHE=0 for other tests
snaps() { find "$XDG_CACHE_HOME" -name '*.ovsnap' 2>/dev/null | wc -l; }
wait_for() { # file-or-count test..., up to 30 s: the save runs detached
    for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done; return 1
}
has_snaps() { [ "$(snaps)" -ge "$1" ]; }

files=()
[ -r "$DEEPSEEK" ] && files+=("$DEEPSEEK")
files+=("$DATA/kineto-2node.json" "$DATA/legacy-2021.json" "$SAMPLES/demo-moe.json.gz" "$SAMPLES"/sim-*.json.zst)
n=0
for f in "${files[@]}"; do
    name=$(basename "$f")
    "$BIN" stats --json --no-cache --threads 1 "$f" >"$tmp/ref.json" 2>/dev/null
    "$BIN" stats --no-cache "$f" >"$tmp/ref.txt" 2>/dev/null
    "$BIN" stats --json --cache -v "$f" >"$tmp/miss.json" 2>"$tmp/miss.err"
    check "$name: first load misses" grep -q "cache: miss" "$tmp/miss.err"
    n=$((n + 1))
    check "$name: a snapshot is saved" wait_for has_snaps $n
    "$BIN" stats --json --cache -v "$f" >"$tmp/hit.json" 2>"$tmp/hit.err"
    check "$name: second load hits" grep -q "cache: hit" "$tmp/hit.err"
    check "$name: stats --json identical after a hit" cmp -s "$tmp/ref.json" "$tmp/hit.json"
    check "$name: stats --json identical on the saving run" cmp -s "$tmp/ref.json" "$tmp/miss.json"
    "$BIN" stats --cache "$f" >"$tmp/hit.txt" 2>/dev/null
    check "$name: stats table identical after a hit" cmp -s "$tmp/ref.txt" "$tmp/hit.txt"
done

# two files, one snapshot
two=("$DATA/kineto-2node.json" "$DATA/legacy-2021.json")
"$BIN" stats --json --no-cache "${two[@]}" >"$tmp/ref.json" 2>/dev/null
"$BIN" stats --json --cache "${two[@]}" >/dev/null 2>&1
n=$((n + 1))
check "two files: a snapshot is saved" wait_for has_snaps $n
"$BIN" stats --json --cache -v "${two[@]}" >"$tmp/hit.json" 2>"$tmp/hit.err"
check "two files: hit" grep -q "cache: hit" "$tmp/hit.err"
check "two files: stats --json identical" cmp -s "$tmp/ref.json" "$tmp/hit.json"

# args come from the source file by offset: an export after a hit is the same bytes
if [ -r "$DEEPSEEK" ]; then
    # the same command line both times: the export records it
    OVTRACE_CACHE=0 "$BIN" export -v "$DEEPSEEK" --class comm,compute -o - >"$tmp/ref-export.json" 2>/dev/null
    OVTRACE_CACHE=1 "$BIN" export -v "$DEEPSEEK" --class comm,compute -o - >"$tmp/hit-export.json" 2>"$tmp/exp.err"
    check "export: hit" grep -q "cache: hit" "$tmp/exp.err"
    check "export identical after a hit" cmp -s "$tmp/ref-export.json" "$tmp/hit-export.json"
    check "export wrote events" grep -q '"ph"' "$tmp/ref-export.json"
    "$BIN" view --no-cache "$DEEPSEEK" --dump --keys 'jjjl' --frames 5 --size 140x40 >"$tmp/ref-view" 2>&1
    "$BIN" view --cache "$DEEPSEEK" --dump --keys 'jjjl' --frames 5 --size 140x40 >"$tmp/hit-view" 2>&1
    check "viewer frames identical after a hit" cmp -s "$tmp/ref-view" "$tmp/hit-view"
    check "viewer frames are frames" test -s "$tmp/ref-view"
fi

# modes: auto skips small traces; OVTRACE_CACHE=0 / 1; the flags win over it
cp "$DATA/kineto-2node.json" "$tmp/x.json"
before=$(snaps)
"$BIN" stats -v "$tmp/x.json" >/dev/null 2>"$tmp/auto.err"
check "auto: small traces are not cached, and -v says so" grep -q "cache: off" "$tmp/auto.err"
OVTRACE_CACHE=0 "$BIN" stats "$tmp/x.json" >/dev/null 2>&1
OVTRACE_CACHE=1 "$BIN" stats --no-cache "$tmp/x.json" >/dev/null 2>&1
sleep 1
check "OVTRACE_CACHE=0 and --no-cache write nothing" test "$(snaps)" -eq "$before"
OVTRACE_CACHE=1 "$BIN" stats "$tmp/x.json" >/dev/null 2>&1
check "OVTRACE_CACHE=1 caches small traces" wait_for has_snaps $((before + 1))
OVTRACE_CACHE=0 "$BIN" stats --cache -v "$tmp/x.json" >/dev/null 2>"$tmp/flag.err"
check "--cache wins over OVTRACE_CACHE=0" grep -q "cache: hit" "$tmp/flag.err"

# invalidation
touch -d "2020-01-02 03:04:05" "$tmp/x.json"
"$BIN" stats --json --cache -v "$tmp/x.json" >"$tmp/a.json" 2>"$tmp/inv.err"
check "touch -d: miss (mtime)" grep -q "mtime changed" "$tmp/inv.err"
wait_for grep -q "saved" "$tmp/inv.err"
printf '\n' >>"$tmp/x.json"
"$BIN" stats --json --cache -v "$tmp/x.json" >"$tmp/b.json" 2>"$tmp/inv.err"
check "a byte appended: miss (size)" grep -q "size changed" "$tmp/inv.err"
check "the reparsed trace is the same" cmp -s "$tmp/a.json" "$tmp/b.json"

# damaged snapshot: the load parses instead and says why
wait_for grep -q "saved" "$tmp/inv.err"   # no save still running
for s in $(find "$XDG_CACHE_HOME" -name '*.ovsnap'); do truncate -s -100 "$s"; done
"$BIN" stats --json --cache -v "$DATA/legacy-2021.json" >"$tmp/c.json" 2>"$tmp/dmg.err"; rc=$?
check "truncated snapshot: exit 0" test $rc -eq 0
check "truncated snapshot: miss with a reason" grep -q "cache: miss: .*truncated or damaged" "$tmp/dmg.err"
"$BIN" stats --json --no-cache "$DATA/legacy-2021.json" >"$tmp/d.json" 2>/dev/null
check "truncated snapshot: the trace is parsed" cmp -s "$tmp/c.json" "$tmp/d.json"

# a read-only cache directory: nothing written, nothing fails (root ignores modes:
# the run drops to nobody)
mkdir -p "$tmp/ro/ovtrace"; chmod 555 "$tmp/ro/ovtrace"
cp "$DATA/kineto-2node.json" "$tmp/ro-in.json"; chmod 644 "$tmp/ro-in.json"; chmod 755 "$tmp"
as_user=()
if [ "$(id -u)" = 0 ]; then
    if command -v setpriv >/dev/null; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    else echo "skip read-only directory (root without setpriv)"; fi
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
    XDG_CACHE_HOME=$tmp/ro "${as_user[@]}" "$BIN" stats --json --cache -v "$tmp/ro-in.json" >"$tmp/ro.json" 2>"$tmp/ro.err"
    rc=$?
    check "read-only cache dir: exit 0" test $rc -eq 0
    "$BIN" stats --json --no-cache "$tmp/ro-in.json" >"$tmp/ro-ref.json" 2>/dev/null
    check "read-only cache dir: same output" cmp -s "$tmp/ro.json" "$tmp/ro-ref.json"
    check "read-only cache dir: -v says it was not saved" wait_for grep -q "not saved" "$tmp/ro.err"
    check "read-only cache dir: nothing written" test -z "$(ls -A "$tmp/ro/ovtrace")"
fi

# the directory and the cap: read by the CLI (README, Environment), handed to the library
snaps_in() { [ "$(find "$1" -name '*.ovsnap' 2>/dev/null | wc -l)" -eq "$2" ]; }
mkdir -p "$tmp/home" "$tmp/home2"
env -u XDG_CACHE_HOME HOME="$tmp/home" "$BIN" stats --cache "$DATA/legacy-2021.json" >/dev/null 2>&1
check "no XDG_CACHE_HOME: ~/.cache/ovtrace" wait_for snaps_in "$tmp/home/.cache/ovtrace" 1
XDG_CACHE_HOME=rel HOME="$tmp/home2" "$BIN" stats --cache "$DATA/legacy-2021.json" >/dev/null 2>&1
check "a relative XDG_CACHE_HOME is ignored: \$HOME/.cache/ovtrace" wait_for snaps_in "$tmp/home2/.cache/ovtrace" 1
env -u XDG_CACHE_HOME -u HOME "$BIN" stats --cache -v "$DATA/legacy-2021.json" >/dev/null 2>"$tmp/nodir.err"
check "neither set: no cache, and -v says so" grep -q "off: no cache directory" "$tmp/nodir.err"
capd=$tmp/cap
XDG_CACHE_HOME=$capd "$BIN" stats --cache "$DATA/legacy-2021.json" >/dev/null 2>&1
check "cap: first snapshot" wait_for snaps_in "$capd" 1
XDG_CACHE_HOME=$capd "$BIN" stats --cache "$DATA/kineto-2node.json" >/dev/null 2>&1
check "cap: second snapshot (the default cap keeps both)" wait_for snaps_in "$capd" 2
# a bad cap is refused with a warning, never read as a tiny cap that evicts everything
for bad in abc 2G 17592186044417; do
    cp "$DATA/kineto-memory.json" "$tmp/cap-$bad.json"
    XDG_CACHE_HOME=$capd OVTRACE_CACHE_MAX_MB=$bad "$BIN" stats --cache -v "$tmp/cap-$bad.json" >/dev/null 2>"$tmp/bad.err"
    check "OVTRACE_CACHE_MAX_MB=$bad: a warning" grep -q "OVTRACE_CACHE_MAX_MB needs a whole number of MB" "$tmp/bad.err"
    check "OVTRACE_CACHE_MAX_MB=$bad: saved" wait_for grep -q "saved" "$tmp/bad.err"
done
check "bad caps: the default cap evicted nothing" snaps_in "$capd" 5
cp "$DATA/kineto-2node.json" "$tmp/cap-in.json"
XDG_CACHE_HOME=$capd OVTRACE_CACHE_MAX_MB=0 "$BIN" stats --cache -v "$tmp/cap-in.json" >/dev/null 2>"$tmp/cap.err"
check "OVTRACE_CACHE_MAX_MB=0: saved" wait_for grep -q "saved" "$tmp/cap.err"
check "OVTRACE_CACHE_MAX_MB=0: only the snapshot just written is left" snaps_in "$capd" 1

check "help names the flags" bash -c "'$BIN' stats --help | grep -q -- '--no-cache'"
echo "$fails failure(s)"
exit $((fails > 0))
