#!/bin/sh
# ovtrace-workload's multi-GPU options, without a GPU. NCCL is loaded at run time, so a
# missing or unusable libnccl.so.2 is explained (status 3) before any GPU is touched; bad
# --gpus values are usage errors (2); the toolkit's real NCCL loads (every call the
# workload makes resolves, version >= 2.17), after which the missing driver is what is
# reported. usage: workload_nccl_cli.sh OVTRACE-WORKLOAD [LIBNCCL]
set -u
wl=$1
nccl=${2:-}
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # status, text, then the command
  want=$1; text=$2; shift 2
  "$@" >"$tmp/out" 2>&1 </dev/null
  rc=$?
  [ $rc -eq "$want" ] || fail "$*: status $rc, want $want: $(cat "$tmp/out")"
  grep -qF -- "$text" "$tmp/out" || fail "$*: message lacks '$text': $(cat "$tmp/out")"
  echo "ok: $* -> $rc: $(head -1 "$tmp/out")"
}

expect 3 "--gpus 4 needs NCCL (libnccl-not-installed.so.2 not found)" \
  env OVTRACE_NCCL_LIB=libnccl-not-installed.so.2 "$wl" --gpus 4
expect 3 "--gpus 1 for the one-GPU emulation" env OVTRACE_NCCL_LIB=libnccl-not-installed.so.2 "$wl" --gpus 2
expect 3 "libc.so.6 has no ncclGetVersion" env OVTRACE_NCCL_LIB=libc.so.6 "$wl" --gpus 2 --mode decode
expect 2 "--device picks the GPU of a one-GPU run" "$wl" --gpus 2 --device 1
expect 2 "bad value for --gpus: '0'" "$wl" --gpus 0
expect 2 "bad value for --gpus: 'two'" "$wl" --gpus two

if [ -z "$nccl" ]; then
  echo "SKIP (rest): no libnccl.so.2 found at configure time"
  exit 0
fi
for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /lib/x86_64-linux-gnu; do
  [ -e "$d/libcuda.so.1" ] && { echo "SKIP (rest): a CUDA driver is installed ($d/libcuda.so.1)"; exit 0; }
done
# the real NCCL passes the check: what stops the run is the missing driver
expect 3 "no CUDA driver found" env OVTRACE_NCCL_LIB="$nccl" "$wl" --gpus 4 --mode serial
exit 0
