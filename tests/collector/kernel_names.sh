#!/bin/sh
# The workload binary's kernels have the names the simulator uses (demangled, as CUPTI
# reports them): moe::<phase>(moe::GemmArgs) and the DeepEP-style comm signatures.
# usage: kernel_names.sh OVTRACE-WORKLOAD
set -u
bin=$1
fail() { echo "FAIL: $*"; exit 1; }
command -v nm >/dev/null || { echo "SKIP: nm not installed"; exit 77; }
syms=$(nm -C "$bin")
for k in 'moe::attn_proj(moe::GemmArgs)' 'moe::gate(moe::GemmArgs)' 'moe::expert_gemm(moe::GemmArgs)' \
         'moe::shared_expert(moe::GemmArgs)' \
         'void dpsk::ep::intranode::dispatch<8, 20>(dpsk::ep::DispatchArgs)' \
         'void dpsk::ep::intranode::combine<8, 20>(dpsk::ep::CombineArgs)' \
         'void dpsk::ep::internode::dispatch<8, 20>(dpsk::ep::DispatchArgs)' \
         'void dpsk::ep::internode::combine<8, 20>(dpsk::ep::CombineArgs)'; do
  echo "$syms" | grep -qF " $k" || fail "kernel '$k' missing"
done
echo "ok: kernel names match the schedule"
