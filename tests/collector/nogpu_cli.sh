#!/bin/sh
# Without a CUDA driver every GPU command exits non-zero, without crashing, with a
# message naming the missing driver and the hint --simulate (for workload, which has no
# such option: 'ovtrace live --simulate'). Skipped (77) where a
# driver is installed. usage: nogpu_cli.sh OVTRACE [OVTRACE-WORKLOAD]
set -u
ov=$1
wl=${2:-}
fail() { echo "FAIL: $*"; exit 1; }
for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /lib/x86_64-linux-gnu; do
  [ -e "$d/libcuda.so.1" ] && { echo "SKIP: a CUDA driver is installed ($d/libcuda.so.1)"; exit 77; }
done
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then echo "SKIP: a CUDA driver is installed"; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # name, then the command
  name=$1; shift
  "$@" >"$tmp/out" 2>&1 </dev/null
  rc=$?
  [ $rc -ne 0 ] || fail "$name: exit status 0"
  [ $rc -lt 128 ] || fail "$name: died from a signal (status $rc)"
  grep -q "no CUDA driver found" "$tmp/out" || fail "$name: message lacks 'no CUDA driver found': $(cat "$tmp/out")"
  grep -q -- "--simulate" "$tmp/out" || fail "$name: message lacks '--simulate': $(cat "$tmp/out")"
  echo "ok: $name -> status $rc: $(head -1 "$tmp/out")"
}

# workload takes no --simulate: its hint names the command that does
live_hint() {
  grep -q "'ovtrace live --simulate'" "$tmp/out" || fail "$name: the hint is not 'ovtrace live --simulate': $(cat "$tmp/out")"
}
check "ovtrace workload" "$ov" workload; live_hint
check "ovtrace workload --mode decode --steps 3" "$ov" workload --mode decode --steps 3; live_hint
check "ovtrace workload --gpus 2" "$ov" workload --gpus 2; live_hint
if [ -n "$wl" ]; then
  check "ovtrace-workload" "$wl" --mode serial; live_hint
  check "ovtrace-workload --gpus 1" "$wl" --gpus 1; live_hint
fi
# `ovtrace live|record --workload moe` and `-- CMD`: the driver check comes first.
check "ovtrace live --workload moe" "$ov" live --workload moe
check "ovtrace live --workload moe --mode decode --steps 3" "$ov" live --workload moe --mode decode --steps 3
check "ovtrace live --workload moe --headless" "$ov" live --workload moe --headless
check "ovtrace live --workload moe --gpus 2" "$ov" live --workload moe --gpus 2
check "ovtrace record --workload moe" "$ov" record -o "$tmp/w.json" --workload moe
check "ovtrace live -- true" "$ov" live -- true
check "ovtrace record -- true" "$ov" record -o "$tmp/t.json" -- true
[ -e "$tmp/w.json" ] || [ -e "$tmp/t.json" ] && fail "a refused record left a file"
exit 0
