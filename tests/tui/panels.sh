#!/usr/bin/env bash
# The side panels show every number whole at 80x24, 160x45 and 200x50 (headless frames of
# the two-rank DeepEP fixture): the details of a matched collective, the range figures
# with their equivalent command and wait table, the runs-compared figures; the kernel
# table tells its names apart and scrolls them, its title's key hints never cut.
set -u
BIN=$1 DATA=$2
R0=$DATA/moe-ep/rank0.json R1=$DATA/moe-ep/rank1.json
fail() { echo "FAIL (panels): $*"; [ -n "${out:-}" ] && echo "$out"; exit 1; }
has() { grep -qF -- "$1" <<<"$out" || fail "$size: '$1' missing"; }
has_re() { grep -qE -- "$1" <<<"$out" || fail "$size: /$1/ missing"; }

for size in 80x24 160x45 200x50; do
  # details: keys and values whole, a long value wrapped at word boundaries
  out=$("$BIN" view "$R0" "$R1" -q --dump --size "$size" --keys "jjj.") || fail "$size: details run failed"
  if [ "$size" = 80x24 ]; then
    has "this rank waited 0ns, transferred 110.000us"
    has "rank 0 arrived last (skew 9.138us)"
    out=$("$BIN" view "$R0" -q --dump --size "$size" --keys "jjj.") || fail "$size: one rank run failed"
  else
    has "rank 0 arrived last (skew 9.138us)"
    has "      2     0            9.138us           0ns  last"
    has "notify_dispatch<false, 8>(int"
  fi
  has "45.257us  (@1740461679001045257ns)"
  # range: the command and the wait table header whole
  out=$("$BIN" view "$R0" "$R1" -q --dump --size "$size" --keys "m>>>>>>>>>>m") || fail "$size: range run failed"
  grep -qE -- "= ovtrace stats --range 0ns:[0-9]+ns" <<<"$out" || fail "$size: range command cut"
  has "exp.wait  exp.xfer last waited on  (us)"
  has "ratio (us)"
  # runs compared: every figure and B - A
  out=$("$BIN" view --align start "$R0" "$R1" -q --dump --size "$size" --keys "C") || fail "$size: compare run failed"
  has_re "exposed +ratio \(us\)"
  has_re "B - A .* [+]432 +-0[.]0143$"
done
# the kernel table over the panel: names told apart at every width, > scrolls them
for size in 80x24 200x50; do
  out=$("$BIN" view "$R0" "$R1" -q --dump --size "$size" --keys "m>>>>>>>>>>mt") || fail "$size: table run failed"
  has "cutlass::device_kernel<m_groupe"
  has "cutlass::device_kernel<fp8_ptp1"
  has "dispatch<false, 8, true, 8>"
  # its title: whole parts, how time is counted and the closing key kept, no hint cut
  title=$(grep -m1 " Kernels in " <<<"$out" | sed 's/ *$//')
  grep -qE ", time clipped to the range  \((1-8 sort, )?.*t/Esc close\)$" <<<"$title" || fail "$size: title '$title'"
  grep -qF "(1-8 sort, " <<<"$title" || fail "$size: title without 1-8 sort: '$title'"
done
out=$("$BIN" view "$R0" "$R1" -q --dump --size 80x24 --keys "m>>>>>>>>>>mt>>>") || fail "scroll run failed"
has "grouped_gemm::cuda::m_grouped"
# no colour and the C locale: the same figures, in ASCII
size=200x50
out=$(LANG=C LC_ALL=C "$BIN" view --color none --align start "$R0" "$R1" -q --dump --size "$size" --keys "C") \
  || fail "C locale run failed"
has_re "B - A .* [+]432 +-0[.]0143$"
echo "ok (panels)"
