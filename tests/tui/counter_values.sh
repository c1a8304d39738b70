#!/usr/bin/env bash
# Counter lanes of a simulated serving run, headless (view --dump) at 80x24 and 200x50,
# in colour, --color none and LANG=C: the values sit in a column of their own right of
# the plot under "at cursor" (and "view min..max" where the screen is wide), nothing of a
# value is drawn over a sparkline, and the min..max of the whole view is what stats says
# (the lowest sample, not the lowest column's largest value).
# usage: counter_values.sh OVTRACE
set -u
BIN=$1
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL (counter_values): $*"; [ -n "${out:-}" ] && echo "$out"; exit 1; }
T=$TMP/serve.json
"$BIN" record --simulate --mode serve --duration 0.3 -o "$T" >/dev/null 2>&1 || fail "record failed"
st=$("$BIN" stats -q "$T") || fail "stats failed"
# stats' "min max" of a series, formatted as the viewer formats them
minmax() { sed -n '/^counters/,/^$/p' <<<"$st" | grep -F "$1" | awk '{ if ($4 ~ /^(B|KiB|MiB|GiB|TiB)$/) print $3 " " $4 ".." $5 " " $6; else print $3 ".." $4 }'; }
for size in 80x24 200x50; do
  for mode in color none C; do
    case $mode in
    color) out=$("$BIN" view -q --dump --size "$size" "$T") ;;
    none) out=$("$BIN" view --color none -q --dump --size "$size" "$T") ;;
    C) out=$(LANG=C LC_ALL=C "$BIN" view -q --dump --size "$size" "$T") ;;
    esac || fail "$size $mode: view failed"
    grep -q "at cursor" <<<"$(sed -n 2p <<<"$out")" || fail "$size $mode: no 'at cursor' over the values"
    for name in "batch size" "memory in use" "queue length" "tokens/s"; do
      line=$(grep -F "  $name " <<<"$out" | head -1)
      [ -n "$line" ] || fail "$size $mode: no $name lane"
      # label | plot | values [| side panel]: no digit inside the plot
      plot=$(awk -F '[|]|│' '{print $2}' <<<"$line")
      vals=$(awk -F '[|]|│' '{print $3}' <<<"$line")
      [ "${#plot}" -ge 30 ] || fail "$size $mode: no $name sparkline"
      grep -q "[0-9]" <<<"$plot" && fail "$size $mode: a value drawn over the $name sparkline"
      [ -n "$(tr -d ' ' <<<"$vals")" ] || fail "$size $mode: no value for $name"
      if [ "$size" = 200x50 ]; then
        want=$(minmax "$name")
        sed 's/  */ /g' <<<"$vals" | grep -qF " $want" || fail "$size $mode: $name view min..max '$vals', stats '$want'"
      fi
    done
    [ "$size" = 200x50 ] && { grep -q "view min..max" <<<"$(sed -n 2p <<<"$out")" || fail "$size $mode: no 'view min..max'"; }
  done
done
echo "ok (counter_values)"
