#!/usr/bin/env bash
# `ovtrace view A B --align start|step` in tmux at 120x40 on the shipped pair
# (tests/data/diff; figures worked out in cli.sh): each run on its own zero, groups
# labelled with run and file, A above B rank by rank; C opens the A-vs-B panel for the
# visible range, V folds to one run and back. Exit 77 (skipped) without tmux.
set -u
BIN=$1 DATA=$2
D=$DATA/diff
A="$D/a-r0.json,$D/a-r1.json" B="$D/b-r0.json,$D/b-r1.json"
W=120 H=40
. "$(dirname "$0")/../lib/tmux.sh"
tmux_require
tmux_init view_compare

# view ALIGN: both runs in a fresh tmux server, drawn
view() {
  tmux_run $W $H "$BIN" view --align "$1" "$A" "$B"
  wait_for_text "band:" 60 || fail "viewer did not draw"
}
nth_header() { grep -E '^[▼▶] rank' "$TMP/screen" | sed -n "${1}p"; }

view start
expect 'grep -q "A a-r0.json +1 vs B b-r0.json +1 (aligned at start)" "$TMP/screen"' "title does not name both runs"
# both runs start at 0 (B's file is 5,000 s later on its own clock); the ruler spans 200 us
expect 'grep -q "view 0us..200us (200us)" "$TMP/screen"' "runs not on their own zero"
expect 'nth_header 1 | grep -q "rank 0 GPU 0  A a-r0.json"' "first group is not rank 0 of A"
expect 'nth_header 3 | grep -q "rank 0 GPU 0  B b-r0.json"' "rank 0 of B is not under rank 0 of A"
expect 'nth_header 1 | grep -q "ratio 0.5556"' "A rank 0 ratio"
expect 'nth_header 3 | grep -q "ratio 0.6667"' "B rank 0 ratio"
keys C
expect 'grep -q "Runs compared, visible range" "$TMP/screen"' "C did not open the compare panel"
expect 'grep -Eq "^ A a-r0.json \+1 +355 +310 +205 +170 +65 +105 +0.3824" "$TMP/screen"' "run A figures"
expect 'grep -Eq "^ B b-r0.json \+1 +355 +310 +204 +180 +74 +106 +0.4111" "$TMP/screen"' "run B figures"
expect 'grep -Eq "^ B - A +0 +0 +-1 +\+10 +\+9 +\+1 +\+0.0288" "$TMP/screen"' "B - A row"
expect 'grep -A1 "kernels changed most" "$TMP/screen" | grep -Eq "^ +4 +3 +200 +150 +-50  void gemm<float>"' "kernel changes"
# zoom on the first 100 us (step 1 on both clocks): the panel follows the visible range
keys + 
expect 'grep -Eq "^ B - A " "$TMP/screen" && ! grep -Eq "^ A a-r0.json \+1 +355 " "$TMP/screen"' "panel did not follow the zoom"
keys 0
expect 'grep -Eq "^ A a-r0.json \+1 +355 " "$TMP/screen"' "panel did not return to the full range"
keys V
expect 'grep -q "showing A a-r0.json +1, other run folded" "$TMP/screen"' "V did not focus run A"
expect 'nth_header 3 | grep -q "^▶ rank 0 GPU 0  B b-r0.json"' "run B not folded"
expect 'nth_header 1 | grep -q "^▼ rank 0 GPU 0  A a-r0.json"' "run A folded"
keys V
expect 'nth_header 1 | grep -q "^▶ rank 0 GPU 0  A a-r0.json"' "second V did not fold A"
keys V
expect 'grep -q "showing both runs" "$TMP/screen"' "third V did not show both"
keys C
expect '! grep -q "Runs compared" "$TMP/screen"' "C did not close the panel"
keys q
wait_for_file "$TMP/rc" || fail "viewer did not quit"
[ "$(cat "$TMP/rc")" = 0 ] || fail "exit status $(cat "$TMP/rc")"

# --align step: 0 at each run's ProfilerStep#1 (1000 us on A's clock, 5001000 us on B's),
# the same stretch as start here; the title says so
view step
expect 'grep -q "(aligned at first step)" "$TMP/screen"' "title does not say step"
expect 'grep -q "view 0us..200us" "$TMP/screen"' "step alignment"
keys q
echo "ok"
