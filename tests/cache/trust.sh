#!/usr/bin/env bash
# The snapshot cache trusts only what this user wrote: the cache
# directory is 0700 (made so even when it existed with a looser mode, unless it is a
# symlink: then its mode is left alone), snapshots 0600;
# a snapshot that is writable by group or others, owned by another user (when the test
# runs as root, so it can chown), a symlink, or in a directory that others can write or
# another user owns is ignored (the JSON is parsed) and `-v` says why.
#   trust.sh OVTRACE_BIN DATA_DIR
set -u
BIN=$1 DATA=$2
fails=0
check() { # description, condition...
    local d=$1; shift
    if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fails=$((fails + 1)); fi
}
tmp=$(mktemp -d /tmp/ovtrace-trust-XXXXXX); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
unset OVTRACE_CACHE OVTRACE_CACHE_DEBUG
umask 022 # a usual umask: the modes below must not come from it
trace=$tmp/t.json
cp "$DATA/kineto-2node.json" "$trace"
dir=$XDG_CACHE_HOME/ovtrace
snap() { find "$dir" -name '*.ovsnap' 2>/dev/null | head -1; }
wait_snap() { for _ in $(seq 300); do [ -n "$(snap)" ] && return 0; sleep 0.1; done; return 1; }
mode() { stat -c %a "$1"; }
# A load that ignores the snapshot saves a fresh one (0600) from a detached process
# after it returns: poll for it, and let it land before the file is changed again.
wait_mode() { for _ in $(seq 300); do [ "$(mode "$1")" = "$2" ] && return 0; sleep 0.1; done; return 1; }
load() { "$BIN" stats --cache -v "$trace" 2>&1 >/dev/null; } # the -v notes
hit() { load | grep -q "cache: hit"; }
# a detached saver of an earlier load may still write its "saved" note to the stderr it
# inherited: each load's notes go to a new file, not into the old one truncated
fresh_v() { rm -f "$tmp/v"; }

# a cache directory that already exists, with a loose mode
mkdir -p "$XDG_CACHE_HOME"
mkdir -m 0755 "$dir"
load >/dev/null
check "a snapshot is saved" wait_snap
s=$(snap)
check "the cache directory becomes 0700 (was 0755): $(mode "$dir")" [ "$(mode "$dir")" = 700 ]
check "the snapshot is 0600: $(mode "$s")" [ "$(mode "$s")" = 600 ]
check "a snapshot of ours is used" hit

chmod 0666 "$s"
fresh_v; load >"$tmp/v"
check "a snapshot writable by others is ignored: $(cat "$tmp/v" | head -1)" grep -q "writable by others (mode 666): ignored" "$tmp/v"
check "... and saved again, 0600" wait_mode "$s" 600
chmod 0620 "$s"
fresh_v; load >"$tmp/v"
check "a snapshot writable by its group is ignored" grep -q "writable by its group (mode 620): ignored" "$tmp/v"
check "... and saved again, 0600" wait_mode "$s" 600
chmod 0600 "$s"
check "0600 again: used" hit

mv "$s" "$tmp/real.ovsnap"
ln -s "$tmp/real.ovsnap" "$s"
fresh_v; load >"$tmp/v"
check "a symlink in place of a snapshot is ignored" grep -q "a symlink, not a snapshot written here: ignored" "$tmp/v"
rm -f "$s"
mv "$tmp/real.ovsnap" "$s"
check "back in place: used" hit

chmod 0777 "$dir"
fresh_v; load >"$tmp/v"
check "a cache directory writable by others is ignored" grep -q "cache directory is writable by others (mode 777): ignored" "$tmp/v"
check "... and the next save makes it 0700 again" wait_mode "$dir" 700

if [ "$(id -u)" = 0 ]; then
    chown 12345 "$s"
    fresh_v; load >"$tmp/v"
    check "a snapshot owned by another user is ignored" grep -q "owned by uid 12345, not by this user (uid 0): ignored" "$tmp/v"
    chown 0 "$s"
    check "ours again: used" hit
    chown 12345 "$dir"
    fresh_v; load >"$tmp/v"
    check "a cache directory owned by another user is ignored" grep -q "cache directory is owned by uid 12345" "$tmp/v"
    check "... and not chmod'ed or written: $(mode "$dir")" [ "$(mode "$dir")" = 700 ] && [ "$(stat -c %u "$dir")" = 12345 ]
    chown 0 "$dir"
else
    echo "skip ownership cases: not root (cannot chown)"
fi

# a cache directory that is a symlink to a shared (2775) directory: its mode is left
# alone (setgid and group bits kept), and being group-writable it is not used
shared=$tmp/shared
mkdir "$shared" && chmod 2775 "$shared"
mkdir -p "$tmp/cache2"
ln -s "$shared" "$tmp/cache2/ovtrace"
fresh_v; XDG_CACHE_HOME=$tmp/cache2 "$BIN" stats --cache -v "$trace" >/dev/null 2>"$tmp/v"
check "a symlinked shared cache directory keeps its mode: $(mode "$shared")" [ "$(mode "$shared")" = 2775 ]
check "... and is not used (group-writable)" grep -q "writable by its group (mode 775): ignored" "$tmp/v"

echo "trust.sh: $fails failures"
[ "$fails" -eq 0 ]
