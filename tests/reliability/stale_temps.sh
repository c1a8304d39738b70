#!/usr/bin/env bash
# Temporary files of exports and recordings, without ../shared. Every writer creates
# DIR/.NAME.tmp-PID-XXXXXX beside its target (base/atomicfile.c):
#  1. stale ones beside the target are removed by the next export/record to that name:
#     .NAME.tmp-PID-XXXXXX whose PID is not running, owned by us, regular files, a
#     minute old; everything else is left alone (a live PID, a fresh file, another
#     name, a symlink, a name that only looks similar);
#  2. SIGUSR1, SIGALRM (and SIGINT/TERM/HUP) during an export remove its temporary file;
#     `record` stops cleanly on SIGHUP, SIGUSR1 and SIGALRM (as on SIGINT/TERM): a
#     complete file, no temporary file, even before its first checkpoint;
#  3. a symlink planted beside the target, at a name a temporary file could be given
#     (the PID is known before the program starts), is never followed: the file it
#     leads to stays as it was, and the output is written.
#   stale_temps.sh OVTRACE_BIN
set -u
bin=$1
tmp=$(mktemp -d /tmp/ovtrace-stale-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
T=${OVTRACE_TEST_TIMEOUT:-60}
small=$(cd "$(dirname "$0")/../data" && pwd)/kineto-2node.json

# a PID that is not running: a child that has exited and been reaped
sh -c 'exit 0' &
dead=$!
wait "$dead"
kill -0 "$dead" 2>/dev/null && { echo "pid $dead reused at once; rerun"; exit 1; }
live=$$

# ---- 1. stale temporary files
d=$tmp/stale
mkdir -p "$d"
old() { : >"$d/$1"; touch -d '-5 minutes' "$d/$1"; }
old ".out.json.tmp-$dead-aB3xYz"  # process gone: removed
old ".out.json.tmp-$dead-Qw12er"  # another one: removed
old ".out.json.tmp-$live-aB3xYz"  # process running: kept
: >"$d/.out.json.tmp-$dead-fresh1" # written within the last minute: kept
old ".other.json.tmp-$dead-aB3xYz" # another output's: kept
old ".out.json.tmp-$dead-aB3xY"    # not six characters: kept
old ".out.json.tmp-aB3xYz"         # no PID: kept (cannot tell)
old "out.json.tmp.$dead"           # not the pattern (no leading dot): kept
old ".out.json.tmp-${dead}x-aB3xYz" # not a PID: kept
ln -s /dev/null "$d/.out.json.tmp-$dead-symlnk" # not a regular file: kept
keep=".out.json.tmp-$live-aB3xYz .out.json.tmp-$dead-fresh1 .other.json.tmp-$dead-aB3xYz .out.json.tmp-$dead-aB3xY .out.json.tmp-aB3xYz out.json.tmp.$dead .out.json.tmp-${dead}x-aB3xYz .out.json.tmp-$dead-symlnk"
timeout -k 5 "$T" "$bin" export "$small" -o "$d/out.json" --merge -q >/dev/null 2>"$tmp/err" || fail "export: $(cat "$tmp/err")"
for f in ".out.json.tmp-$dead-aB3xYz" ".out.json.tmp-$dead-Qw12er"; do
    [ ! -e "$d/$f" ] || fail "export left the stale $f"
done
for f in $keep; do
    [ -e "$d/$f" ] || [ -L "$d/$f" ] || fail "export removed $f, which is not a stale temporary file of ours"
done
[ -s "$d/out.json" ] || fail "export wrote nothing"
echo "export: 2 stale temporary files to remove, 8 look-alikes to keep: checked"

# record and the rank simulator clean beside their targets too: the same cleaner
if "$bin" record --help 2>&1 | grep -q -- --simulate; then
    old ".rec.json.tmp-$dead-Qw12er"
    old ".rec.json.tmp-$live-Qw12er"
    timeout -k 5 "$T" "$bin" record -o "$d/rec.json" --simulate --duration 1 >/dev/null 2>"$tmp/err" || fail "record: $(cat "$tmp/err")"
    [ ! -e "$d/.rec.json.tmp-$dead-Qw12er" ] || fail "record left stale temporary files: $(ls -A "$d" | grep rec)"
    [ -e "$d/.rec.json.tmp-$live-Qw12er" ] || fail "record removed the temporary file of a running process"
    old ".sim.rank1.json.tmp-$dead-Qw12er"
    timeout -k 5 "$T" "$bin" record -o "$d/sim.json" --simulate --ranks 2 --steps 1 >/dev/null 2>"$tmp/err" ||
        fail "record --ranks: $(cat "$tmp/err")"
    [ ! -e "$d/.sim.rank1.json.tmp-$dead-Qw12er" ] || fail "record --ranks left a stale temporary file"
    echo "record, record --ranks: stale temporary files: checked"
fi

# ---- 2. signals during an export remove the temporary file
# an input big enough that a .gz export of it takes a while (about 40 MB)
python3 - "$tmp/big.json" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"traceEvents":[\n')
    parts = []
    for i in range(300000):
        parts.append('{"ph":"X","cat":"kernel","name":"gemm_kernel_%d","pid":0,"tid":%d,"ts":%d.5,"dur":3.25,"args":{"device":0,"stream":%d,"correlation":%d,"note":"padding padding padding"}}' % (i % 97, 7 + i % 4, i * 5, 7 + i % 4, i))
    f.write(",\n".join(parts))
    f.write("\n]}\n")
EOF
wait_temp() { # DIR NAME PID: until the temporary file holds 64 KB
    local i f
    for i in $(seq 1 3000); do
        kill -0 "$3" 2>/dev/null || return 1
        f=$(ls -A "$1" | grep -E "^\.$2\.tmp-" | head -1)
        [ -n "$f" ] && [ "$(stat -c %s "$1/$f" 2>/dev/null || echo 0)" -ge 65536 ] && return 0
        sleep 0.01
    done
    return 1
}
for sig in USR1 ALRM INT TERM HUP; do
    d=$tmp/sig-$sig
    mkdir -p "$d"
    # SIGINT back to its default: background jobs of a script start with it ignored
    env --default-signal=INT "$bin" export "$tmp/big.json" -o "$d/out.json.gz" -q --threads 1 >/dev/null 2>"$tmp/err" &
    pid=$!
    pids+=("$pid")
    if ! wait_temp "$d" out.json.gz "$pid"; then
        wait "$pid"
        fail "export finished or failed before SIG$sig could be sent (rc $?): $(head -3 "$tmp/err")"
        continue
    fi
    kill -s "$sig" "$pid"
    wait "$pid" 2>/dev/null
    rc=$?
    [ "$rc" -ge 128 ] || fail "export: exit $rc after SIG$sig (expected death by the signal)"
    left=$(ls -A "$d")
    [ -z "$left" ] || fail "export killed by SIG$sig left: $left"
    echo "export killed by SIG$sig mid-write: exit $rc, $( [ -z "$left" ] && echo "nothing left" || echo "left $left")"
done

if "$bin" record --help 2>&1 | grep -q -- --simulate; then
    for sig in HUP USR1 ALRM; do
        d=$tmp/rec-$sig
        mkdir -p "$d"
        "$bin" record -o "$d/rec.json.zst" --simulate >/dev/null 2>"$tmp/err" &
        pid=$!
        pids+=("$pid")
        sleep 0.4 # before the first checkpoint (1 s)
        kill -s "$sig" "$pid"
        wait "$pid"
        rc=$?
        [ "$rc" -eq 0 ] || fail "record: exit $rc after SIG$sig (expected a clean stop): $(cat "$tmp/err")"
        [ "$(ls -A "$d")" = rec.json.zst ] || fail "record stopped by SIG$sig left: $(ls -A "$d" | tr '\n' ' ')"
        timeout -k 5 "$T" "$bin" stats "$d/rec.json.zst" >"$tmp/st" 2>&1 || fail "record stopped by SIG$sig: the file does not load"
        grep -q truncated "$tmp/st" && fail "record stopped by SIG$sig: the file is truncated"
        echo "record stopped by SIG$sig: exit $rc, $(ls -A "$d" | tr '\n' ' ')"
    done
fi

# ---- 3. a planted symlink is not followed
# `exec` keeps the PID: the writer runs as the shell that planted the links, at the
# names a temporary file of that PID could have (a fixed suffix, or none).
plant_and_run() { # DIR NAME VICTIM ARGS...: links to VICTIM, then ovtrace ARGS with that PID
    bash -c 'd=$1 n=$2 v=$3; shift 3
             for s in "$n.tmp.$$" "$n.tmp" ".$n.tmp-$$-XXXXXX" ".$n.tmp-$$-aB3xYz"; do ln -s "$v" "$d/$s"; done
             exec "$@"' plant "$@"
}
if "$bin" record --help 2>&1 | grep -q -- --simulate; then
    d=$tmp/planted
    mkdir -p "$d"
    printf 'precious\n' >"$tmp/victim"
    plant_and_run "$d" rec.json "$tmp/victim" "$bin" record -o "$d/rec.json" --simulate --duration 1 >/dev/null 2>"$tmp/err" ||
        fail "record beside planted symlinks: $(cat "$tmp/err")"
    plant_and_run "$d" out.json "$tmp/victim" "$bin" export "$small" -o "$d/out.json" --merge -q >/dev/null 2>"$tmp/err" ||
        fail "export beside planted symlinks: $(cat "$tmp/err")"
    plant_and_run "$d" sim.rank0.json "$tmp/victim" "$bin" record -o "$d/sim.json" --simulate --ranks 2 --steps 1 \
        >/dev/null 2>"$tmp/err" || fail "record --ranks beside planted symlinks: $(cat "$tmp/err")"
    [ "$(cat "$tmp/victim")" = precious ] || fail "a writer followed a planted symlink: the victim file changed"
    for f in rec.json out.json sim.rank0.json; do
        "$bin" stats "$d/$f" >/dev/null 2>&1 || fail "$f beside planted symlinks: no loadable output"
        [ ! -L "$d/$f" ] || fail "$f is a symlink"
    done
    [ "$(find "$d" -type l | wc -l)" -eq 12 ] || fail "the planted symlinks changed: $(ls -A "$d" | tr '\n' ' ')"
    echo "planted symlinks at the temporary names: not followed, outputs written"
fi

echo "stale_temps.sh: $fails failures"
[ "$fails" -eq 0 ]
