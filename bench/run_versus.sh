#!/usr/bin/env bash
# Side by side in one run: node's JSON.parse of a trace, ovtrace's loader from a
# reference build (BASE_BUILD, e.g. main's), and from BUILD, one and two threads,
# interleaved round by round (so a busy spell of the machine hits all alike), best of
# ROUNDS. Prints a markdown table and the load average before and after.
# Usage: bench/run_versus.sh BUILD BASE_BUILD FILE [ROUNDS]
set -euo pipefail
build=$1 base=$2 f=$3 rounds=${4:-5}
mb=$(stat -c %s "$f" | awk '{printf "%.1f", $1 / 1e6}')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
out=$(mktemp "${TMPDIR:-/tmp}/ovtrace-versus.XXXXXX"); trap 'rm -f "$out"' EXIT
for _ in $(seq "$rounds"); do
    # node: JSON.parse alone (the text already read) and read + parse, in seconds
    node -e '
        const fs = require("fs"), t0 = process.hrtime.bigint();
        const s = fs.readFileSync(process.argv[1], "utf8"), t1 = process.hrtime.bigint();
        JSON.parse(s);
        const t2 = process.hrtime.bigint();
        console.log("node JSON.parse\t" + Number(t2 - t1) / 1e9);
        console.log("node read + JSON.parse\t" + Number(t2 - t0) / 1e9);' "$f" >>"$out"
    for b in "$base" "$build"; do
        for th in 1 0; do
            "$b/bench/load_bench" --threads "$th" "$f" |
                awk -F'\t' -v name="ovtrace $b --threads $th" \
                    '{split($4, s, " "); split($9, r, " "); split($11, p, " ");
                      print name "\t" s[1] "\t" r[1] "\t" p[1]}' >>"$out"
        done
    done
done
node_best=$(awk -F'\t' '$1 == "node JSON.parse" {if (b == "" || $2 < b) b = $2} END {print b}' "$out")
echo "| $mb MB, best of $rounds | s | MB/s | vs node JSON.parse | B/event resident / peak |"
echo "|---|---|---|---|---|"
awk -F'\t' -v mb="$mb" -v nb="$node_best" '
    { if (!($1 in best) || $2 < best[$1]) { best[$1] = $2; r[$1] = $3; p[$1] = $4 } if (!($1 in ord)) ord[$1] = n++ }
    END { for (k in ord) key[ord[k]] = k
          for (i = 0; i < n; i++) { k = key[i]
              printf "| %s | %.3f | %.0f | %.1fx | %s |\n", k, best[k], mb / best[k], nb / best[k],
                     (k in r) && r[k] != "" ? r[k] " / " p[k] : "-" } }' "$out"
echo
echo "load average (1, 5, 15 min) before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
