#!/usr/bin/env bash
# tests/gpu/run-carried.sh [DIR]: the GPU run (run.sh) with the binaries tests/gpu/carry.sh
# copied into DIR (default build-gpurun). Only the libraries this machine lacks are taken
# from DIR/lib (LD_LIBRARY_PATH), so its own CUDA, Python and PyTorch libraries stay in
# use. The GPU test finds the workload where it was built (DIR/built-at): a link there.
# At the end everything under $OUT is packed into all.tgz.NN (15 MB pieces) beside
# summary.txt, for a transfer that returns few files.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:-build-gpurun}
case "$DIR" in /*) ;; *) DIR=$REPO/$DIR ;; esac
OUT=${OUT:-$REPO/build-gpu-out}
mkdir -p "$OUT" /tmp/ovtrace-missing-libs
for f in "$DIR"/cli/* "$DIR"/tests/*; do ldd "$f"; done | awk '/not found/ {print $1}' | sort -u | while read -r l; do
    cp "$DIR/lib/$l" /tmp/ovtrace-missing-libs/ && echo "run-carried.sh: $l from $DIR/lib"
done
export LD_LIBRARY_PATH=/tmp/ovtrace-missing-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for f in "$DIR"/cli/* "$DIR"/tests/*; do ldd "$f" | grep 'not found' | sed "s|^|run-carried.sh: $f: |"; done
at=$(cat "$DIR/built-at" 2>/dev/null)
if [ -n "$at" ] && [ ! -e "$at" ]; then mkdir -p "$(dirname "$at")" && ln -s "$DIR" "$at"; fi
OVTRACE_BUILD=$DIR OUT=$OUT bash "$REPO/tests/gpu/run.sh"
cd "$OUT" && tar czf /tmp/ovtrace-gpu-all.tgz --exclude=cache . &&
    find . -mindepth 1 -maxdepth 1 ! -name summary.txt -exec rm -rf {} + &&
    split -b 15M -d /tmp/ovtrace-gpu-all.tgz all.tgz. && ls -la
