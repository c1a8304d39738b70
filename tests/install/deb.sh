#!/usr/bin/env bash
# `cpack -G DEB` from the build dir: the package's fields (name, version, maintainer,
# Depends from dpkg-shlibdeps), its contents (no build paths, no CUDA pieces), and the
# binary extracted with dpkg-deb -x running from there.
# usage: deb.sh BUILD_DIR SOURCE_DIR VERSION
set -euo pipefail
build=$1 src=$2 version=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in cpack dpkg-deb dpkg-shlibdeps file; do
    command -v "$t" >/dev/null || { echo "SKIP: $t not installed (dev.sh installs dpkg-dev and file)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; fail "cpack -G DEB"; }
arch=$(dpkg --print-architecture)
deb=$tmp/out/ovtrace_${version}_${arch}.deb
[ -f "$deb" ] || fail "no $(basename "$deb"): $(ls "$tmp/out")"

dpkg-deb -I "$deb" >"$tmp/info"
field() { sed -n "s/^ $1: //p" "$tmp/info"; }
[ "$(field Package)" = ovtrace ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version) (project: $version)"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture)"
[[ $(field Maintainer) == *"<"*@*">" ]] || fail "Maintainer: $(field Maintainer)"
grep -q "^ Description: terminal trace viewer" "$tmp/info" || fail "no Description"
deps=$(field Depends)
for d in libc6 libcjson1 libncursesw6 libzstd1 zlib1g; do
    grep -q "\b$d\b" <<<"$deps" || fail "Depends lacks $d: $deps"
done
grep -qi "cuda\|cupti\|nvidia" <<<"$deps" && fail "Depends names CUDA pieces: $deps"

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/bin/ovtrace /usr/share/man/man1/ovtrace.1.gz /usr/share/bash-completion/completions/ovtrace \
    /usr/share/zsh/vendor-completions/_ovtrace /usr/share/doc/ovtrace/copyright /usr/share/doc/ovtrace/README.md \
    /usr/share/doc/ovtrace/docs/ARCHITECTURE.md; do
    grep -qx "$f" "$tmp/files" || fail "the package lacks $f"
done
grep -q "ovtrace-workload\|libovtrace_inject" "$tmp/files" && fail "the package holds the CUDA pieces: $(grep 'workload\|inject' "$tmp/files")"
outside=$(grep -v '^/$' "$tmp/files" | grep -v '^/usr/' || true)
[ -z "$outside" ] || fail "files outside /usr: $outside"

# unpacked somewhere else, the binary runs (no path into the build tree)
dpkg-deb -x "$deb" "$tmp/root"
bin=$tmp/root/usr/bin/ovtrace
file "$bin" | grep -q "stripped" && ! file "$bin" | grep -q "not stripped" || fail "not stripped: $(file "$bin")"
[ "$("$bin" --version)" = "ovtrace $version" ] || fail "--version: $("$bin" --version)"
cd "$tmp"
"$bin" stats --threads 1 "$src/sample-traces/demo-moe.json.gz" | grep -q "overlap per device" || fail "stats from the unpacked package"
# every shared library resolves from the system (what Depends promises on Debian 12)
! ldd "$bin" | grep -q "not found" || fail "ldd: $(ldd "$bin" | grep 'not found')"
echo "ok: $(basename "$deb"), $(stat -c %s "$deb") bytes, Depends: $deps"
