/* The hardware line of a recording (read/hardware.c) from the "gpus" metadata that
 * `ovtrace record` writes: one GPU, several of one kind, mixed kinds, missing fields, no
 * GPUs at all, hostile and oversized metadata (bounded, no over-read). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/read/hardware.h"

#define H200 "{\"device\": %d, \"name\": \"NVIDIA H200\", \"sms\": 132, \"compute_capability\": \"9.0\", \"memory_mib\": 143155}"

static char out[512];

static const char *describe(const char *meta) {
    memset(out, 'x', sizeof out);
    return Hardware_describe(meta, out, sizeof out) ? out : NULL;
}

static void test_one_gpu(void **st) {
    (void)st;
    char meta[1024];
    snprintf(meta, sizeof meta,
             "{\"ovtrace\": {\"simulated\": false, \"gpus\": {\"driver\": \"580.159.04\", \"cuda_driver\": \"13.0\", "
             "\"devices\": [" H200 "]}}}",
             0);
    assert_string_equal(describe(meta),
                        "NVIDIA H200 (132 SMs, compute 9.0, 139.8 GiB), driver 580.159.04, CUDA 13.0");
}

static void test_several(void **st) {
    (void)st;
    char meta[2048];
    snprintf(meta, sizeof meta,
             "{\"ovtrace\": {\"gpus\": {\"driver\": \"580.159.04\", \"devices\": [" H200 ", " H200 ", " H200
             ", {\"device\": 3, \"name\": \"NVIDIA H100 80GB HBM3\", \"sms\": 132}]}}}",
             0, 1, 2);
    assert_string_equal(describe(meta), "3 x NVIDIA H200 (132 SMs, compute 9.0, 139.8 GiB); NVIDIA H100 80GB HBM3 "
                                        "(132 SMs), driver 580.159.04");
    /* the names alone, for the viewer's title */
    assert_true(Hardware_names(meta, out, sizeof out));
    assert_string_equal(out, "3 x NVIDIA H200; NVIDIA H100 80GB HBM3");
    assert_false(Hardware_names("{\"ovtrace\": {}}", out, sizeof out));
}

static void test_none(void **st) {
    (void)st;
    assert_null(describe(NULL));
    assert_string_equal(out, "");
    assert_null(describe("{}"));
    assert_null(describe("{\"ovtrace\": {\"simulated\": true}}"));
    assert_null(describe("{\"ovtrace\": {\"gpus\": {\"devices\": []}}}"));
    assert_null(describe("{\"ovtrace\": {\"gpus\": {\"devices\": 7}}}"));
    assert_null(describe("not json"));
    /* a device with nothing known still says there was one */
    assert_string_equal(describe("{\"ovtrace\": {\"gpus\": {\"devices\": [{}]}}}"), "unnamed GPU");
    /* the last of equal keys counts, as everywhere in the loader */
    assert_string_equal(describe("{\"ovtrace\": {\"gpus\": {\"devices\": [{\"name\": \"A\"}]}}, "
                                 "\"ovtrace\": {\"gpus\": {\"devices\": [{\"name\": \"B\"}]}}}"),
                        "B");
}

/* The text is the trace's: returned as it is (the printer escapes it), cut to the buffer,
 * however many devices a hostile file lists. */
static void test_hostile(void **st) {
    (void)st;
    assert_string_equal(describe("{\"ovtrace\": {\"gpus\": {\"devices\": [{\"name\": \"evil\\u001b[2J\"}]}}}"),
                        "evil\x1b[2J");
    size_t n = 200000;
    char *meta = malloc(64 + n * 16);
    size_t k = (size_t)sprintf(meta, "{\"ovtrace\": {\"gpus\": {\"devices\": [");
    for (size_t i = 0; i < n; i++) k += (size_t)sprintf(meta + k, "%s{\"name\": \"G%zu\"}", i ? "," : "", i % 2);
    sprintf(meta + k, "]}}}");
    assert_non_null(describe(meta));
    assert_true(strlen(out) < sizeof out);
    assert_int_equal(strncmp(out, "G0; G1; G0; ", 12), 0);
    free(meta);
    char tiny[8];
    assert_true(Hardware_describe("{\"ovtrace\": {\"gpus\": {\"devices\": [{\"name\": \"NVIDIA H200\"}]}}}", tiny,
                                  sizeof tiny));
    assert_string_equal(tiny, "NVIDIA ");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_gpu),
        cmocka_unit_test(test_several),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
