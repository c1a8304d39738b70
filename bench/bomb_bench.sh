#!/usr/bin/env bash
# Decompression bombs: the hardening cases, timed. Blanks between two
# events, compressed: 2 GB in a .zst and 3 GB in a .gz (36 s / 9.8 GB and 506 s before
# the fix). Prints load time, peak RSS and throughput of decompressed bytes.
#   bench/bomb_bench.sh OVTRACE_BIN [ZST_MB GZ_MB]   (default 2048 3072)
set -eu
bin=$1
zmb=${2:-2048}
gmb=${3:-3072}
tmp=$(mktemp -d /tmp/ovtrace-bomb-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
EV='{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":5,"args":{"device":0,"stream":7}}'
gen() { # OUT COMPRESSOR MB
    { printf '%s' "[$EV,"; head -c $(($3 << 20)) /dev/zero | tr '\0' ' '; printf '%s' "$EV]"; } | $2 >"$tmp/$1"
}
gen blanks.json.zst "zstd -q -1" "$zmb"
gen blanks.json.gz "gzip -1" "$gmb"
echo "| input | compressed | decompressed | load s | peak RSS | MB/s of decompressed input |"
echo "|---|---|---|---|---|---|"
for f in blanks.json.zst:$zmb blanks.json.gz:$gmb; do
    name=${f%%:*} mb=${f##*:}
    /usr/bin/time -o "$tmp/time" -f '%M %e' "$bin" stats --no-cache "$tmp/$name" >"$tmp/out"
    grep -q '^2 events' "$tmp/out" || { echo "bomb_bench: $name did not load 2 events" >&2; exit 1; }
    read -r kb secs <"$tmp/time"
    size=$(stat -c %s "$tmp/$name")
    echo "| $mb MB of blanks, ${name##*.} | $((size / 1024)) KB | $mb MB | $secs s | $((kb / 1024)) MB | $(awk -v m="$mb" -v s="$secs" 'BEGIN { printf "%.0f", m / s }') |"
done
