#!/bin/sh
# One out-of-memory policy (base/alloc.h): the application layers (cli/, tui/, live/)
# allocate through the x* wrappers, which print and exit 3, so no path of theirs can
# quietly skip work or dereference NULL when memory runs out. The file stages (model/,
# read/, analysis/, write/) and base/ may still return an error where the size comes
# from the input (a snapshot file's counts), and collector/ and ring/ link no
# ovtrace_base (they run inside the profiled program). A raw
# malloc, calloc, realloc, strdup, strndup or open_memstream in cli/, tui/ or live/
# fails here.
ROOT=$1
found=$(cd "$ROOT" && grep -rnE '(^|[^x_A-Za-z0-9])(malloc|calloc|realloc|strdup|strndup|open_memstream)\(' \
    cli tui live --include='*.c' --include='*.h' | grep -vE '^[^:]+:[0-9]+:\s*(/\*|\*)')
if [ -n "$found" ]; then
    echo "FAIL: raw allocation outside base/alloc.h's wrappers:"
    echo "$found"
    exit 1
fi
n=$(cd "$ROOT" && grep -rhoE '\bx(malloc|calloc|realloc|strdup|strndup|open_memstream)\(' cli tui live --include='*.c' | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: no x* allocation found at all: is the pattern broken?"; exit 1; }
echo "ok: cli/, tui/ and live/ allocate only through the x* wrappers ($n calls)"
