#!/usr/bin/env bash
# `cmake --install` into a temporary prefix: the installed ovtrace runs (--help,
# --version, stats on the demo trace), the man page renders, the completions, docs
# and LICENSE are in place, and the CUDA helpers sit where launch.c looks for them.
# usage: prefix.sh BUILD_DIR SOURCE_DIR FINDHELPER
# env (from tests/install.cmake): BINDIR PKGLIBDIR PKGLIBEXECDIR MANDIR DATADIR DOCDIR
#   HAVE_WORKLOAD HAVE_INJECT (1 when this build has them)
set -euo pipefail
build=$1 src=$2 findhelper=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/prefix

cmake --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
bin=$p/$BINDIR/ovtrace
[ -x "$bin" ] || fail "no $BINDIR/ovtrace"
"$bin" --help | grep -q "usage: ovtrace COMMAND" || fail "installed ovtrace --help"
ver=$("$bin" --version)
[[ $ver == "ovtrace "[0-9]* ]] || fail "--version: $ver"
# installed binaries carry no path into the build tree
if command -v readelf >/dev/null; then
    ! readelf -d "$bin" | grep -q "$build" || fail "the installed binary has an RPATH into the build tree"
fi
cd "$tmp" # nothing of the source or build tree is the working directory
out=$("$bin" stats --threads 1 "$src/sample-traces/demo-moe.json.gz")
grep -q "overlap per device" <<<"$out" || fail "installed ovtrace stats: $out"
ref=$("$build/cli/ovtrace" stats --threads 1 "$src/sample-traces/demo-moe.json.gz")
[ "$out" = "$ref" ] || fail "installed ovtrace stats differs from the build tree's"

# man page: present, gzipped, renders without warnings, one section per command
man=$p/$MANDIR/man1/ovtrace.1.gz
[ -f "$man" ] || fail "no $MANDIR/man1/ovtrace.1.gz"
gzip -t "$man" || fail "ovtrace.1.gz is not gzip"
zcat "$man" | grep -q "^\.TH OVTRACE 1 .*ovtrace ${ver#ovtrace }" || fail "man page: no .TH with the version $ver"
for c in VIEW STATS DIFF EXPORT LIVE RECORD WORKLOAD "INPUT OPTIONS" "KEY BINDINGS" ENVIRONMENT "EXIT STATUS" FILES; do
    zcat "$man" | grep -q "^\.SH $c\$" || fail "man page: no section $c"
done
zcat "$man" | grep -q "@[A-Z_]*@" && fail "man page: unconfigured @VARIABLE@"
if command -v groff >/dev/null; then
    zcat "$man" | groff -man -Tutf8 -ww 2>"$tmp/man.err" | sed 's/.\x08//g' >"$tmp/man.txt" || fail "groff: $(cat "$tmp/man.err")"
    [ ! -s "$tmp/man.err" ] || fail "groff warnings: $(cat "$tmp/man.err")"
    grep -q "EXIT STATUS" "$tmp/man.txt" || fail "rendered man page lacks EXIT STATUS"
    if command -v man >/dev/null; then
        MANPATH=$p/$MANDIR man -P cat ovtrace 2>/dev/null | grep -q "KEY BINDINGS" || fail "man ovtrace with MANPATH=$p/$MANDIR"
    fi
else
    echo "note: groff not installed: the man page was not rendered"
fi

# completions
bc=$p/$DATADIR/bash-completion/completions/ovtrace
[ -f "$bc" ] || fail "no $DATADIR/bash-completion/completions/ovtrace"
bash -n "$bc" || fail "bash completion: syntax"
r=$(bash -c '. "$1"; COMP_WORDS=(ovtrace st); COMP_CWORD=1; _ovtrace; echo "${COMPREPLY[*]}"' _ "$bc")
[ "$r" = stats ] || fail "bash completion of 'ovtrace st': '$r'"
zc=$p/$DATADIR/zsh/site-functions/_ovtrace # a prefix other than /usr
[ -f "$zc" ] || fail "no $DATADIR/zsh/site-functions/_ovtrace"
head -1 "$zc" | grep -q '^#compdef ovtrace' || fail "zsh completion: no #compdef line"
if command -v zsh >/dev/null; then zsh -n "$zc" || fail "zsh completion: syntax"; fi

# docs
for f in README.md LICENSE copyright docs/ARCHITECTURE.md docs/stats-json.md; do
    [ -f "$p/$DOCDIR/$f" ] || fail "no $DOCDIR/$f"
done
grep -q "MIT License" "$p/$DOCDIR/LICENSE" || fail "LICENSE"

# CUDA helpers: installed when built, found by the installed layout's lookup
# (launch.c: next to the binary, then PKGLIBDIR and PKGLIBEXECDIR relative to bin/)
cp "$findhelper" "$p/$BINDIR/findhelper"
unset OVTRACE_LIBDIR
if [ "$HAVE_INJECT" = 1 ]; then
    [ -f "$p/$PKGLIBDIR/libovtrace_inject.so" ] || fail "no $PKGLIBDIR/libovtrace_inject.so"
else
    mkdir -p "$p/$PKGLIBDIR" && : >"$p/$PKGLIBDIR/libovtrace_inject.so" # the lookup alone
fi
got=$("$p/$BINDIR/findhelper" libovtrace_inject.so) || fail "launch.c does not find $PKGLIBDIR/libovtrace_inject.so"
[ "$(realpath "$got")" = "$(realpath "$p/$PKGLIBDIR/libovtrace_inject.so")" ] || fail "found $got"
if [ "$HAVE_WORKLOAD" = 1 ]; then
    [ -x "$p/$PKGLIBEXECDIR/ovtrace-workload" ] || fail "no $PKGLIBEXECDIR/ovtrace-workload"
    # its libraries (libcupti from the toolkit) resolve through the installed RPATH
    ! ldd "$p/$PKGLIBEXECDIR/ovtrace-workload" | grep -q "not found" || fail "ovtrace-workload: $(ldd "$p/$PKGLIBEXECDIR/ovtrace-workload" | grep 'not found')"
else
    mkdir -p "$p/$PKGLIBEXECDIR" && printf '#!/bin/sh\n' >"$p/$PKGLIBEXECDIR/ovtrace-workload" && chmod +x "$p/$PKGLIBEXECDIR/ovtrace-workload"
fi
got=$("$p/$BINDIR/findhelper" ovtrace-workload) || fail "launch.c does not find $PKGLIBEXECDIR/ovtrace-workload"
[ "$(realpath "$got")" = "$(realpath "$p/$PKGLIBEXECDIR/ovtrace-workload")" ] || fail "found $got"
echo "ok: installed into a temporary prefix ($(find "$p" -type f | wc -l) files; workload $HAVE_WORKLOAD, injection library $HAVE_INJECT)"
