#!/usr/bin/env bash
# tests/gpu/carry.sh [DIR]: prepares the GPU run on this machine for a GPU machine that
# lacks the project's -dev packages. Builds the CLI, the workload, the injection library,
# ovtrace-gpucheck and the GPU test (Release, without MPI, whose libraries the GPU
# machine would also need), and copies them with every shared library they load that is
# not the C library's or the driver's into DIR (default build-gpurun, ignored by git).
# On the GPU machine, in the checkout: bash tests/gpu/run-carried.sh DIR (everything
# under $OUT; the libraries copied are used only where that machine lacks them).
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:-build-gpurun}
case "$DIR" in /*) ;; *) DIR=$REPO/$DIR ;; esac
B=$REPO/build-gpu
mkdir -p "$B"
cmake -S "$REPO" -B "$B" -DCMAKE_BUILD_TYPE=Release -DOVTRACE_MPI=OFF -DBUILD_TESTING=ON >"$B/carry-configure.log" 2>&1 ||
    { echo "carry.sh: configure failed: $B/carry-configure.log" >&2; exit 1; }
grep 'ovtrace:' "$B/carry-configure.log" | sed 's/^-- //'
cmake --build "$B" -j"$(nproc)" --target ovtrace ovtrace-workload ovtrace_inject ovtrace-gpucheck \
    test_collector_gpu_collect >"$B/carry-build.log" 2>&1 || { echo "carry.sh: build failed: $B/carry-build.log" >&2; exit 1; }
[ -x "$B/cli/ovtrace-workload" ] || { echo "carry.sh: no ovtrace-workload: the CUDA toolkit was not found" >&2; exit 1; }
rm -rf "$DIR"
mkdir -p "$DIR/cli" "$DIR/tests" "$DIR/lib"
cp "$B/cli/ovtrace" "$B/cli/ovtrace-workload" "$B/cli/libovtrace_inject.so" "$DIR/cli/"
cp "$B/tests/ovtrace-gpucheck" "$B/tests/test_collector_gpu_collect" "$DIR/tests/"
# the test names the workload and the injection library by their paths here
printf '%s\n' "$B" >"$DIR/built-at"
for f in "$DIR"/cli/* "$DIR"/tests/*; do ldd "$f"; done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libcuda)\.so' | while read -r l; do cp -L "$l" "$DIR/lib/"; done
strip "$DIR/cli/ovtrace" "$DIR"/tests/* 2>/dev/null || true
echo "carry.sh: $DIR ($(du -sh "$DIR" | cut -f1)): $(ls "$DIR/lib" | tr '\n' ' ')"
echo "carry.sh: on the GPU machine: bash tests/gpu/run-carried.sh ${1:-build-gpurun}"
