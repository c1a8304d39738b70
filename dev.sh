#!/usr/bin/env bash
# ovtrace developer entry point.
#   ./dev.sh demo   install missing Debian packages, build, open the demo trace in the TUI
#                   (a simulated prefill recording; sample-traces/README.md lists the others)
#   ./dev.sh test   install missing Debian packages, build, run the whole test suite, then
#                   build Debug (-O0) once, run the suite again under ASan+UBSan (stored
#                   fuzz crashes included), the ring tests under TSan and a short
#                   deterministic fuzz session (tests/sanitize.sh;
#                   fuzz/run.sh SECONDS runs a longer one)
#   ./dev.sh build  install missing Debian packages and build
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(build-essential cmake pkg-config libncurses-dev libcjson-dev libzstd-dev zlib1g-dev
          libcmocka-dev libsqlite3-dev libedit-dev tmux zstd gzip python3 clang libclang-rt-14-dev
          time                    # peak RSS in tests/reliability/terminal.sh
          libopenmpi-dev openmpi-bin     # stats under mpirun (scaleout/, tests/scaleout)
          dpkg-dev file groff-base zsh)  # the last line: tests/install (the .deb, man page, zsh)

install_missing() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "dev.sh: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

build() {
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOVTRACE_WERROR=ON >/dev/null
    cmake --build build -j"$(nproc)"
}

case "${1:-}" in
    demo)
        install_missing
        build
        exec build/cli/ovtrace view sample-traces/sim-prefill.json.zst
        ;;
    test)
        install_missing
        build
        ctest --test-dir build --output-on-failure -j"$(nproc)"
        tests/sanitize.sh
        ;;
    build)
        install_missing
        build
        ;;
    *)
        sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
        exit 2
        ;;
esac
