#!/bin/sh
# Library code reads no environment: the CLI reads the documented variables
# once (README, "Environment") and hands them over in option structs. The exceptions
# below are listed one by one, each with its reason; a new getenv in any library folder
# (base/ to tui/) fails here until it is moved to the CLI or added with a reason.
# The benchmark programs (bench/) take their settings on their command lines, so that
# the reproduction lines in bench/README.md say everything: none may read the environment.
ROOT=$1
allowed='
ring/shmring.c:RING_SHM_ENV                 the injected process finds its ring set (process boundary)
collector/inject.c:RING_SHM_ENV             the injection library runs inside the profiled program
collector/inject.c:OVTRACE_INJECT_QUIET     the same
collector/cupti_collector.c:name            the same (collector settings passed through the environment)
collector/cupti_collector.c:NVTX_INJECTION64_PATH  the same
collector/launch.c:OVTRACE_LIBDIR           where helpers are installed (documented; tests point it at stand-ins)
collector/launch.c:PATH                     finding the program to run, as execvp does
tui/crt.c:TERM                              terminal conventions (ncurses reads them too; documented)
tui/crt.c:NO_COLOR                          the same
tui/crt.c:ESCDELAY                          the same: a user setting is left alone
tui/crt.c:LINES                             the same; a size beyond any screen is clamped (ncurses allocates per cell)
tui/crt.c:COLUMNS                           the same
'
fail=0
found=$(cd "$ROOT" && grep -rnoE '\b(secure_)?getenv\(("?[A-Za-z0-9_]+"?)' base model read analysis write scaleout ring collector kernels live tui bench --include='*.c' --include='*.h' |
    sed -E 's/^([^:]+):[0-9]+:(secure_)?getenv\("?([A-Za-z0-9_]+)"?$/\1:\3/' | sort -u)
for f in $found; do
    if echo "$allowed" | grep -q "^$f "; then echo "ok   $f (allowed)"
    else echo "FAIL $f: reads the environment: library code gets it from cli/ in an option struct, a bench program from its command line"; fail=1; fi
done
# nothing listed that is gone
for f in $(echo "$allowed" | awk 'NF {print $1}'); do
    echo "$found" | grep -qx "$f" || { echo "FAIL $f is allowed here but no longer read: drop it from the list"; fail=1; }
done
exit $fail
