/* The GPUs a recording ran on (collector/gpu_info.c, the "gpus" metadata of
 * live/session.c), against a stand-in driver library (fake_libcuda.c): names, SMs,
 * compute capability, memory, driver and CUDA versions; a hostile device name is
 * escaped; no driver means no "gpus" at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live_test_util.h"
#include "ovtrace/collector/gpu_info.h"
#include "ovtrace/collector/launch.h"
#include "ovtrace/live/live.h"
#include "ovtrace/read/hardware.h"

#ifndef FAKE_LIBCUDA
#error FAKE_LIBCUDA must name the stand-in driver library
#endif

static void test_query(void **st) {
    (void)st;
    GpuInfo gi;
    assert_false(GpuInfo_query(&gi, "/nonexistent/libcuda.so.1", NULL));
    assert_int_equal(gi.n_devices, 0);
    assert_false(GpuInfo_query(&gi, "libc.so.6", NULL)); /* loads, but is no driver */
    assert_true(GpuInfo_query(&gi, FAKE_LIBCUDA, FAKE_LIBCUDA));
    assert_int_equal(gi.n_devices, 2);
    assert_string_equal(gi.dev[0].name, "NVIDIA H200");
    assert_int_equal(gi.dev[0].sms, 132);
    assert_int_equal(gi.dev[0].cc_major, 9);
    assert_int_equal(gi.dev[0].cc_minor, 0);
    assert_int_equal(gi.dev[0].memory_bytes, (uint64_t)143771 << 20);
    assert_int_equal(gi.dev[1].sms, 7);
    assert_string_equal(gi.driver, "580.159.04");
    assert_int_equal(gi.cuda_driver, 13000);
    /* without NVML the driver version is left empty, the rest is there */
    assert_true(GpuInfo_query(&gi, FAKE_LIBCUDA, "/nonexistent/libnvidia-ml.so.1"));
    assert_string_equal(gi.driver, "");
    assert_int_equal(gi.n_devices, 2);
}

static char live_names[256]; /* the GPUs' names as the live model's title would show them */

/* Records a short program's session and returns the recording's "gpus" object (or NULL). */
static cJSON *recorded_gpus(const char *libcuda, cJSON **root, char **raw) {
    LiveSessionConfig cfg;
    LiveSessionConfig_default(&cfg);
    char *argv[] = {"/bin/true", NULL};
    LaunchConfig lc;
    LaunchConfig_default(&lc);
    lc.argv = argv;
    lc.inject = false;
    lc.check_driver = false;
    cfg.launch = &lc;
    cfg.gpu_libcuda = libcuda;
    cfg.gpu_libnvml = libcuda;
    char *p = tmp_path(".json");
    cfg.record_path = p;
    char err[512] = "";
    LiveSession *s = LiveSession_start(&cfg, err, sizeof err);
    if (!s) fail_msg("%s", err);
    while (!LiveSession_sourceDone(s)) usleep(1000);
    assert_true(LiveSession_stop(s, err, sizeof err));
    /* the live model carries the same metadata: the viewer's title reads it there */
    Trace *t = LiveStore_snapshot(LiveSession_store(s), SIZE_MAX, INT64_MIN);
    assert_non_null(t);
    if (!Hardware_names(t->n_sources ? t->sources[0].meta_json : NULL, live_names, sizeof live_names))
        live_names[0] = 0;
    Trace_free(t);
    LiveSession_free(s);
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    unlink(p);
    free(p);
    *raw = buf;
    *root = cJSON_Parse(buf);
    assert_non_null(*root);
    return cJSON_GetObjectItem(cJSON_GetObjectItem(*root, "ovtrace"), "gpus");
}

static void test_recording_names_gpus(void **st) {
    (void)st;
    cJSON *root;
    char *raw;
    cJSON *g = recorded_gpus(FAKE_LIBCUDA, &root, &raw);
    assert_non_null(g);
    assert_string_equal(cJSON_GetObjectItem(g, "driver")->valuestring, "580.159.04");
    assert_string_equal(cJSON_GetObjectItem(g, "cuda_driver")->valuestring, "13.0");
    cJSON *devs = cJSON_GetObjectItem(g, "devices");
    assert_int_equal(cJSON_GetArraySize(devs), 2);
    cJSON *d0 = cJSON_GetArrayItem(devs, 0), *d1 = cJSON_GetArrayItem(devs, 1);
    assert_string_equal(cJSON_GetObjectItem(d0, "name")->valuestring, "NVIDIA H200");
    assert_int_equal(cJSON_GetObjectItem(d0, "sms")->valueint, 132);
    assert_string_equal(cJSON_GetObjectItem(d0, "compute_capability")->valuestring, "9.0");
    assert_int_equal(cJSON_GetObjectItem(d0, "memory_mib")->valueint, 143771);
    /* the hostile name round-trips through JSON escapes, never as a raw ESC */
    assert_string_equal(cJSON_GetObjectItem(d1, "name")->valuestring, "evil\x1b[2J\"gpu");
    assert_null(strchr(raw, 0x1b));
    assert_string_equal(live_names, "NVIDIA H200; evil\x1b[2J\"gpu");
    cJSON_Delete(root);
    /* no driver: no "gpus" */
    assert_null(recorded_gpus("/nonexistent/libcuda.so.1", &root, &raw));
    assert_string_equal(live_names, "");
    cJSON_Delete(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query),
        cmocka_unit_test(test_recording_names_gpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
