#!/usr/bin/env bash
# Headless frames of an 8-rank simulated run (view --dump): the rank overview's labels
# (r7 1.6ms L5) are explained in the legend and on the ? screen, and a marked range's
# panel has stats --range's straggler sentence and its last / waited on columns with the
# same numbers, its quantities never split from their units; at 80x24 and 200x50, in colour,
# --color none and LANG=C.
# usage: rank_range.sh OVTRACE
set -u
BIN=$1
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL (rank_range): $*"; [ -n "${out:-}" ] && echo "$out"; exit 1; }
mkdir "$TMP/d" && "$BIN" record --simulate --ranks 8 --steps 2 -o "$TMP/d/r.json" >/dev/null 2>&1 || fail "record failed"
D=$TMP/d

# the legend (wide enough) and the ? screen say what a rank label holds
out=$("$BIN" view -q --dump --size 200x50 "$D") || fail "view failed"
grep -q "^> r0 [0-9.]*ms L[0-9]" <<<"$out" || fail "no rank overview"
grep -qF "rN T Lk: rank N, exposed comm T (whole trace), arrived last k times" <<<"$out" || fail "legend does not explain the labels"
out=$("$BIN" view -q --dump --size 80x24 --keys '?<PgDn><PgDn><PgDn><PgDn><PgDn><PgDn><PgDn>' "$D") || fail "help failed"
grep -qF "r7 the rank, 1.6ms its device's exposed comm over the whole trace," <<<"$out" || fail "? does not explain r7 1.6ms"
grep -qF "L5 the collectives at which the rank arrived last" <<<"$out" || fail "? does not explain L5"

# the panel's numbers against stats --range over the range it names
for size in 80x24 200x50; do
  for mode in color none C; do
    args=(-q --dump --size "$size" --range 20ms:80ms --keys '[<End>]')
    case $mode in
    color) out=$("$BIN" view "${args[@]}" "$D") ;;
    none) out=$("$BIN" view --color none "${args[@]}" "$D") ;;
    C) out=$(LANG=C LC_ALL=C "$BIN" view "${args[@]}" "$D") ;;
    esac || fail "$size $mode: view failed"
    range=$(grep -oE "stats --range [0-9]+ns:[0-9]+ns" <<<"$out" | head -1 | cut -d' ' -f3)
    [ -n "$range" ] || fail "$size $mode: no equivalent command"
    st=$("$BIN" stats -q --range "$range" "$D") || fail "stats --range $range failed"
    # the sentence (wrapped in the panel: its lines joined)
    want=$(grep "^straggler:" <<<"$st")
    [ -n "$want" ] || fail "stats has no straggler line"
    got=$(awk '/ straggler: /{s=1} s&&/ dev  /{exit} s' <<<"$out" | sed -E 's/^.*(│|[|]) //; s/^ //' | tr '\n' ' ' | sed 's/  */ /g; s/ $//')
    [ "$got" = "$want" ] || fail "$size $mode: straggler '$got' is not stats' '$want'"
    # its quantity on one line: the wrap never parts a number from its unit
    qty=$(grep -oE "waited [0-9.]+ [a-z]+ for it" <<<"$want")
    [ -n "$qty" ] || fail "stats' straggler line has no 'waited T for it'"
    grep -qF -- "${qty#waited }" <<<"$out" || fail "$size $mode: '${qty#waited }' split over two lines"
    # last and waited on of every row the panel shows, against stats' columns 9 and 10
    grep -qE "last waited on  \(us\)" <<<"$out" || fail "$size $mode: no last / waited on columns"
    rows=0
    while read -r dev comm wait xfer ew ex last waited; do
      r=${dev#r}; r=${r%%:*}
      line=$(awk -v r="$r" '$1 == r && NF == 11' <<<"$(sed -n '/^comm per device/,/^straggler/p' <<<"$st")")
      [ "$(awk '{print $9, $10}' <<<"$line")" = "$last $waited" ] || fail "$size $mode: rank $r: '$last $waited' vs stats '$line'"
      rows=$((rows + 1))
    done < <(awk '/last waited on/{s=1; next} s && / r[0-9]+:[0-9]+ /{sub(/^.*(│|[|]) /, ""); sub(/^ /, ""); print; next} s && !/ r[0-9]+:[0-9]+ /{s=0}' <<<"$out")
    [ "$rows" -ge 1 ] || fail "$size $mode: no rows in the wait table"
    [ "$size" = 200x50 ] && [ "$rows" != 8 ] && fail "$size $mode: $rows rows, not 8"
  done
done
echo "ok (rank_range)"
