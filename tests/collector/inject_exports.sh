#!/bin/sh
# libovtrace_inject.so exports InitializeInjection (what CUDA_INJECTION64_PATH needs),
# nothing else of ours, and does not link the CUDA runtime (NVIDIA's injection pattern).
# usage: inject_exports.sh LIB
set -u
lib=$1
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$lib" ] || fail "$lib not built"
command -v nm >/dev/null || { echo "SKIP: nm not installed"; exit 77; }
syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWDBRV]$/ {print $3}')
echo "$syms" | grep -qx InitializeInjection || fail "InitializeInjection not exported: $syms"
other=$(echo "$syms" | grep -v -x -e InitializeInjection -e _init -e _fini -e '' || true)
[ -z "$other" ] || fail "unexpected exports: $other"
nm -D "$lib" | grep -q ' T InitializeInjection$' || fail "InitializeInjection is not a function"
if command -v readelf >/dev/null; then
  needed=$(readelf -d "$lib" | grep NEEDED)
  echo "$needed" | grep -q 'libcupti' || fail "does not link libcupti: $needed"
  echo "$needed" | grep -q 'libcudart' && fail "links the CUDA runtime: $needed"
fi
echo "ok: $lib exports InitializeInjection only"
