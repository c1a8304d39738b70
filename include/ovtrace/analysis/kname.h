/* Kernel name normalisation for `ovtrace diff --group-names`: names that differ only in
 * template arguments, parameter lists, return type or mangling map to one key. A
 * small, dependency-free reading of Itanium mangled names (no libstdc++ demangler):
 * only the qualified name is recovered, which is all the key needs. */
#ifndef OVTRACE_KNAME_H
#define OVTRACE_KNAME_H

/* The grouping key of a kernel name, malloc'd. Examples:
 *   "void at::native::elementwise_kernel<128, 2, F>(int, F)" -> "at::native::elementwise_kernel"
 *   "_ZN2at6native18elementwise_kernelILi128ELi2EEEviT_"    -> "at::native::elementwise_kernel"
 *   "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"  -> "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
 *   "void (anonymous namespace)::k<int>(int)"               -> "(anonymous namespace)::k"
 * A name it cannot read is returned unchanged (trimmed). Never fails on any input. */
char *KernelName_normalize(const char *name);

#endif
