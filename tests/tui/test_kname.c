/* Kernel names told apart in a narrow column (tui/kname.c) on DeepSeek-like names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kname.h"

static const char *const DPSK[] = {
    "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::"
    "fp8_ptp128c::GemmKernel::Params)",
    "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::"
    "cuda::m_grouped_fp8_ptp128c::GemmKernel::Params)",
    "void cutlass::device_kernel<flash::FlashAttnBwd<cutlass::bfloat16_t, 64, 128> >(flash::Params)",
    "void cutlass::device_kernel<flash::FlashAttnFwdSm90<cutlass::bfloat16_t, 128, 128> >(flash::Params)",
    "void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*)",
    "void dpsk::ep::internode::dispatch<true, 8, true, 8>(int4*, float*, long*, float*)",
    "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*)",
};
enum { N = sizeof DPSK / sizeof DPSK[0] };

static void run(int width, char **out) { KName_distinct(DPSK, N, width, true, out); }
static void drop(char **out) {
    for (size_t i = 0; i < N; i++) free(out[i]);
}

static void test_simplify(void **s) {
    (void)s;
    char b[256];
    KName_simplify(DPSK[4], true, b, sizeof b);
    assert_string_equal(b, "dispatch<false, 8, true, 8>");
    KName_simplify(DPSK[2], true, b, sizeof b);
    assert_string_equal(b, "device_kernel<FlashAttnBwd<bfloat16_t, 64, 128> >");
    KName_simplify(DPSK[4], false, b, sizeof b);
    assert_string_equal(b, "dpsk::ep::internode::dispatch<false, 8, true, 8>");
    KName_simplify("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", true, b, sizeof b);
    assert_string_equal(b, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
}

/* Columns of UTF-8 text (one per code point). */
static int columns(const char *s) {
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Every form different from every other one, and within the width. */
static void assert_distinct(char **out, int width) {
    for (size_t i = 0; i < N; i++) {
        assert_true(columns(out[i]) <= width);
        for (size_t j = 0; j < i; j++) assert_string_not_equal(out[i], out[j]);
    }
}

static void test_wide_column(void **s) {
    (void)s;
    char *out[N];
    run(80, out);
    /* the two GEMMs keep the one qualifier that tells them apart */
    assert_string_equal(out[0], "cutlass::device_kernel<fp8_ptp128c::GemmKernel>");
    assert_string_equal(out[1], "cutlass::device_kernel<m_grouped_fp8_ptp128c::GemmKernel>");
    assert_string_equal(out[2], "device_kernel<FlashAttnBwd<bfloat16_t, 64, 128> >");
    assert_string_equal(out[4], "dispatch<false, 8, true, 8>");
    assert_distinct(out, 80);
    drop(out);
}

static void test_narrow_column_keeps_what_differs(void **s) {
    (void)s;
    char *out[N];
    run(20, out);
    /* dispatch<false...> and <true...>: the shared arguments become an ellipsis */
    assert_string_equal(out[4], "dispatch<false, …>");
    assert_string_equal(out[5], "dispatch<true, …>");
    /* no other combine: every argument is shared */
    assert_string_equal(out[6], "combine<…>");
    /* the GEMMs and the flash kernels: past what they share */
    assert_string_equal(out[0], "device_kernel<…fp8_…");
    assert_string_equal(out[1], "device_kernel<…m_gr…");
    assert_string_equal(out[2], "device_kernel<…Bwd<…");
    assert_distinct(out, 20);
    drop(out);
}

static void test_ascii(void **s) {
    (void)s;
    char *out[N];
    KName_distinct(DPSK, N, 20, false, out);
    assert_string_equal(out[4], "dispatch<false, ...>");
    drop(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simplify),
        cmocka_unit_test(test_wide_column),
        cmocka_unit_test(test_narrow_column_keeps_what_differs),
        cmocka_unit_test(test_ascii),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
