#!/usr/bin/env bash
# The kernel table (t) over a marked range that cuts kernels counts the time of each
# inside the range, as the range panel and stats --range do, and each says so ("time
# clipped to the range"); w shows the whole events' time and says that. Headless frames
# of the DeepEP fixture at 80x24 and 200x50, in colour, --color none and LANG=C.
# usage: range_kernels.sh OVTRACE DATA_DIR
set -u
BIN=$1 DATA=$2
R0=$DATA/moe-ep/rank0.json
WORDS="time clipped to the range"
fail() { echo "FAIL (range_kernels): $*"; [ -n "${out:-}" ] && echo "$out"; exit 1; }
# ns of "2.159ms", "975.5us", "45ns"
to_ns() { awk '{v=$1; if (v ~ /ms$/) m=1e6; else if (v ~ /us$/) m=1e3; else if (v ~ /ns$/) m=1; else m=1e9;
                sub(/[a-z]+$/, "", v); printf "%.0f\n", v * m}' <<<"$1"; }

for size in 80x24 200x50; do
  for mode in color none C; do
    view() {
      case $mode in
      color) "$BIN" view -q --dump --size "$size" "$@" "$R0" ;;
      none) "$BIN" view --color none -q --dump --size "$size" "$@" "$R0" ;;
      C) LANG=C LC_ALL=C "$BIN" view -q --dump --size "$size" "$@" "$R0" ;;
      esac
    }
    # the range panel: its command, its top kernels said to be clipped
    out=$(view --keys "m>>>>>>>>>>m") || fail "$size $mode: view failed"
    range=$(grep -oE "stats --range [0-9]+ns:[0-9]+ns" <<<"$out" | head -1 | cut -d' ' -f3)
    [ -n "$range" ] || fail "$size $mode: no equivalent command"
    [ "$size" = 200x50 ] && { grep -qF "top kernels ($WORDS)" <<<"$out" || fail "$size $mode: the panel does not say its time is clipped"; }
    st=$("$BIN" stats -q --top 1000 --range "$range" "$R0") || fail "stats failed"
    grep -qF "top kernels by total time ($WORDS)" <<<"$st" || fail "stats --range does not say its time is clipped"
    # the table over the same range: the same words, and stats' count and total per row
    out=$(view --keys "m>>>>>>>>>>mt") || fail "$size $mode: table failed"
    title=$(grep -m1 " Kernels in " <<<"$out")
    grep -qF ", $WORDS" <<<"$title" || fail "$size $mode: the table does not say its time is clipped"
    n=0
    while read -r count total _; do
      [[ $count =~ ^[0-9]+$ ]] || continue
      ns=$(to_ns "$total")
      # stats' row of that rank in the order: the same count, total us equal to 4 digits
      row=$(sed -n '/^top kernels/,/^$/p' <<<"$st" | awk 'NR > 2' | sed -n "$((n + 1))p")
      scount=$(awk '{print $1}' <<<"$row") sus=$(awk '{gsub(",", "", $2); print $2}' <<<"$row")
      [ "$count" = "$scount" ] || fail "$size $mode: row $n count $count, stats $scount"
      awk -v a="$ns" -v b="$sus" 'BEGIN { d = a / 1000 - b; if (d < 0) d = -d; exit !(d <= 1 || d <= b * 0.001) }' ||
        fail "$size $mode: row $n total $total, stats $sus us"
      n=$((n + 1))
    done < <(awk '/ count .* total/{s=1; next} s && /^ +[0-9]+ +[0-9.]+[mun]?s /{print} s && /^ *$/{exit}' <<<"$out")
    [ "$n" -ge 3 ] || fail "$size $mode: $n table rows compared"
    # w: the whole events' time, said so; at 200 columns the range (0..3.250ms) cuts the
    # second dispatch: 1.601ms inside, 2.141ms whole
    out=$(view --keys "m>>>>>>>>>>mtw") || fail "$size $mode: w failed"
    grep -m1 " Kernels in " <<<"$out" | grep -qF ", whole events' time" || fail "$size $mode: w does not say whole events"
    if [ "$size" = 200x50 ]; then
      grep -qE "^ +2 +2[.]141ms .*dispatch<false, 8, true, 8>" <<<"$out" || fail "$size $mode: w does not show whole times"
      out=$(view --keys "m>>>>>>>>>>mt") || fail "$size $mode: table failed"
      grep -qE "^ +2 +1[.]601ms .*dispatch<false, 8, true, 8>" <<<"$out" || fail "$size $mode: no clipped time"
    fi
  done
done
echo "ok (range_kernels)"
