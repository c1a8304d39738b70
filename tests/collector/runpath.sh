#!/bin/sh
# The CUDA binaries find libcupti through their own RUNPATH (the toolkit's directory is
# not always in ld.so.conf), and that RUNPATH has no empty entry (ld.so would read it as
# the current directory, and load a libcupti planted there).
# usage: runpath.sh CUPTI_LIBDIR FILE...
set -u
dir=$1
shift
fail() { echo "FAIL: $*"; exit 1; }
command -v readelf >/dev/null || { echo "SKIP: readelf not installed"; exit 77; }
for f in "$@"; do
    [ -f "$f" ] || fail "$f not built"
    rp=$(readelf -d "$f" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]$/\2/p')
    [ -n "$rp" ] || fail "$f has no RUNPATH"
    case ":$rp:" in *"::"*) fail "$f: empty entry in RUNPATH '$rp'";; esac
    case ":$rp:" in *":$dir:"*) ;; *) fail "$f: RUNPATH '$rp' does not name $dir";; esac
    if command -v ldd >/dev/null; then
        env -u LD_LIBRARY_PATH ldd "$f" 2>&1 | grep 'libcupti' | grep -q 'not found' && fail "$f: libcupti not found"
    fi
    echo "ok: $f RUNPATH $rp"
done
