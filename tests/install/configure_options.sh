#!/usr/bin/env bash
# -DOVTRACE_CUDA=OFF leaves every CUDA part out even where the toolkit is found (and
# after a configure that found it: its paths stay cached), and -Werror is there only
# with -DOVTRACE_WERROR=ON (default OFF). Configures the source into a temporary
# build dir (no build).
# usage: configure_options.sh SOURCE_DIR HAVE_CUDA_PARTS (1: this build has them)
set -euo pipefail
src=$1 have_cuda=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
configure() {
    cmake -S "$src" -B "$tmp/b" -DBUILD_TESTING=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log"; fail "configure $*"; }
    cmake --build "$tmp/b" --target help >"$tmp/targets"
}
if [ "$have_cuda" = 1 ]; then # the toolkit is here: the default builds the CUDA parts
    configure
    grep -q '\.\.\. ovtrace_inject$' "$tmp/targets" || fail "default configure (toolkit found): no ovtrace_inject"
fi
configure -DOVTRACE_CUDA=OFF
for t in ovtrace_inject ovtrace-workload ovtrace_cupti ovtrace_cupti_translate; do
    grep -q "\.\.\. $t\$" "$tmp/targets" && fail "-DOVTRACE_CUDA=OFF still defines $t"
done
grep -q '\.\.\. ovtrace$' "$tmp/targets" || fail "no ovtrace target"
grep -q -- "-Werror" "$tmp/b/compile_commands.json" && fail "-Werror without OVTRACE_WERROR=ON"
grep -q -- "-Wall -Wextra" "$tmp/b/compile_commands.json" || fail "no -Wall -Wextra"
configure -DOVTRACE_CUDA=OFF -DOVTRACE_WERROR=ON
grep -q -- "-Werror" "$tmp/b/compile_commands.json" || fail "no -Werror with OVTRACE_WERROR=ON"
echo "ok: OVTRACE_CUDA=OFF (toolkit found: $have_cuda) and OVTRACE_WERROR"
