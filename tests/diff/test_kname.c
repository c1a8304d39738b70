/* KernelName_normalize: grouping keys for `diff --group-names`, on names as profilers
 * write them (demangled by Kineto, mangled by some CUPTI/ROCm paths) and on junk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ovtrace/analysis/kname.h"

static void expect(const char *in, const char *want) {
    char *got = KernelName_normalize(in);
    if (strcmp(got, want)) fail_msg("'%s' -> '%s', want '%s'", in, got, want);
    free(got);
}

static void test_demangled(void **state) {
    (void)state;
    expect("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::BinaryFunctor<float, "
           "float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, "
           "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > "
           "const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl<...>::{lambda(int)#1})",
           "at::native::elementwise_kernel");
    expect("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
           "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    expect("void (anonymous namespace)::elementwise_kernel_with_index<int, F>(int, F)",
           "(anonymous namespace)::elementwise_kernel_with_index");
    expect("void dpsk::ep::internode::combine<true, 8>(int4*, float*) [clone .kd]", "dpsk::ep::internode::combine");
    expect("cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_relu_f16_64x64_32x4_nn_align8>(Params)",
           "cutlass::Kernel2");
    expect("void foo::bar(int) const", "foo::bar");
    expect("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
    expect("  rotary_kernel  ", "rotary_kernel");
    /* operator names keep their symbols */
    expect("void ns::S<int>::operator()<float>(float)", "ns::S::operator()");
    expect("bool ns::operator< <int>(int, int)", "ns::operator<");
}

static void test_mangled(void **state) {
    (void)state;
    expect("_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIS2_EEvRNS_18TensorIteratorBaseERKT_"
           "EUliE_EEviT1_",
           "at::native::elementwise_kernel");
    /* a mangled and a demangled spelling of one kernel share the key */
    char *m = KernelName_normalize("_ZN4dpsk2ep9internode7combineILb1ELi8EEEvP4int4Pf");
    char *d = KernelName_normalize("void dpsk::ep::internode::combine<true, 8>(int4*, float*)");
    assert_string_equal(m, d);
    free(m);
    free(d);
    expect("_ZN2at6native54_GLOBAL__N__d8ceb000_21_DistributionNormal_cu_17e44f7d43distribution_elementwise_grid_"
           "stride_kernelIfLi4EZZZNS0_9templates4cuda20normal_kernelIPNS_17CUDAGeneratorImplEEEvRKNS_10TensorBaseEddT_"
           "ENKUlvE_clEvENKUlvE0_clEvEUlP24curandStatePhilox4_32_10E_ZNS1_27distribution_nullary_kernelIff6float4S7_SM_"
           "ZNS4_IS7_EEvSA_ddSB_EUlfE_EEvRNS_18TensorIteratorBaseET_T2_RKT3_EUliS0_E_EEvlNS_15PhiloxCudaStateET1_SO_",
           "at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel");
    expect("_Z13rotary_kernelPfi", "rotary_kernel");
    expect("_ZNSt6vector4sizeEv", "std::vector::size");
}

static void test_junk(void **state) {
    (void)state;
    /* never crashes, never reads past the end, always returns something */
    const char *junk[] = {"", "<<<<", ")))(((", "_Z", "_ZN", "_ZN999999999999abc", "_ZN3ab", "operator", "operator<",
                          "a<b(c>d)e", "[clone", "(anonymous namespace)", "void ", "\xff\xfe<\x01>"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        char *k = KernelName_normalize(junk[i]);
        assert_non_null(k);
        assert_true(strlen(k) <= strlen(junk[i]) + 32);
        free(k);
    }
    expect("_ZN3ab", "_ZN3ab"); /* truncated mangled name: kept as written */
    expect("foo(int, fl", "foo");   /* a cut parameter list still goes */
    expect(")))(((", ")))");        /* stray closers are text, an unclosed '(' is a parameter list */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demangled),
        cmocka_unit_test(test_mangled),
        cmocka_unit_test(test_junk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
