/* The launcher (collector/launch.c) without a GPU: a stand-in program attaches to the
 * exported ring set and streams records; the session sees all of them, in order per
 * producer, and ends cleanly on the program's exit. Error paths give precise messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/collector/launch.h"
#include "ovtrace/ring/ring.h"

#ifndef FAKE_TARGET
#error FAKE_TARGET must name the stand-in program
#endif

typedef struct {
    uint64_t n[2];
    uint64_t next[2];
    bool order_ok;
    bool names_ok;
    RingSet *set;
} Seen;

static void on_rec(const RingRecord *r, uint32_t ring, void *ctx) {
    (void)ring;
    Seen *s = ctx;
    uint32_t t = r->spare;
    if (t > 1) {
        s->order_ok = false;
        return;
    }
    if (r->arg != s->next[t]) s->order_ok = false;
    s->next[t] = r->arg + 1;
    s->n[t]++;
    const char *nm = NameTable_get(RingSet_names(s->set), r->name_id, NULL);
    char want[32];
    snprintf(want, sizeof want, "fake kernel %u", t);
    if (!nm || strcmp(nm, want) != 0) s->names_ok = false;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void test_stream_until_exit(void **state) {
    (void)state;
    RingSetConfig rc = {.nrings = 8, .capacity = 4096, .name_bytes = 1 << 16, .name_slots = 1024};
    RingSet *set = RingSet_create_shared(&rc);
    assert_non_null(set);
    char out[] = "/tmp/ovtrace-launch-XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    char *argv[] = {FAKE_TARGET, "push", "200000", "3", NULL};
    LaunchConfig cfg;
    LaunchConfig_default(&cfg);
    cfg.argv = argv;
    cfg.inject = true;
    cfg.inject_lib = FAKE_TARGET; /* any existing file: the stand-in does not load it */
    cfg.nvtx_lib = "/nvtx/libcupti.so";
    cfg.check_driver = false;
    cfg.output_path = out;
    char err[512];
    unsetenv("NVTX_INJECTION64_PATH");
    Launch *l = Launch_start(&cfg, set, err, sizeof err);
    if (!l) fail_msg("%s", err);
    Seen s = {.order_ok = true, .names_ok = true, .set = set};
    assert_int_equal(Launch_exitCode(l), -1);
    /* 400k records through a 4096-slot ring: the consumer must keep up while it runs */
    while (!Launch_poll(l)) {
        if (RingSet_drain(set, on_rec, &s, 0) == 0) usleep(200);
    }
    RingSet_drain(set, on_rec, &s, 0); /* what was pushed before the exit */
    assert_int_equal(s.n[0], 200000);
    assert_int_equal(s.n[1], 200000);
    assert_true(s.order_ok);
    assert_true(s.names_ok);
    /* (RingSet_drops counts the stand-in's retried pushes into a full ring: not checked) */
    assert_int_equal(Launch_exitCode(l), 3);
    char d[128];
    assert_string_equal(Launch_describe(l, d, sizeof d), "exited with status 3");
    assert_int_equal(RingSet_active(set), 0); /* the dead producer's rings are free again */
    const char *txt = slurp(out);
    assert_non_null(txt);
    char want[600];
    snprintf(want, sizeof want, "CUDA_INJECTION64_PATH=%s\n", FAKE_TARGET);
    assert_non_null(strstr(txt, want));
    assert_non_null(strstr(txt, "OVTRACE_SHM=set"));
    assert_non_null(strstr(txt, "NVTX_INJECTION64_PATH=/nvtx/libcupti.so\n")); /* set by the launcher */
    Launch_free(l);
    unlink(out);
    RingSet_free(set);
}

static void test_no_injection_and_signal(void **state) {
    (void)state;
    RingSet *set = RingSet_create_shared(NULL);
    char out[] = "/tmp/ovtrace-launch-XXXXXX";
    int fd = mkstemp(out);
    close(fd);
    char *argv[] = {FAKE_TARGET, "sleep", NULL};
    LaunchConfig cfg;
    LaunchConfig_default(&cfg);
    cfg.argv = argv;
    cfg.check_driver = false;
    cfg.output_path = out;
    cfg.own_pgrp = true;
    setenv("CUDA_INJECTION64_PATH", "/should/not/leak", 1); /* inject=false: left as the user set it */
    cfg.nvtx_lib = "/nvtx/libcupti.so";                      /* only for an injected program */
    char err[512];
    Launch *l = Launch_start(&cfg, set, err, sizeof err);
    unsetenv("CUDA_INJECTION64_PATH");
    if (!l) fail_msg("%s", err);
    assert_false(Launch_wait(l, 100000000)); /* still running after 0.1 s */
    Launch_signal(l, SIGTERM);
    assert_true(Launch_wait(l, 5000000000LL));
    assert_int_equal(Launch_exitCode(l), 128 + SIGTERM);
    char d[128];
    assert_non_null(strstr(Launch_describe(l, d, sizeof d), "killed by signal 15"));
    assert_non_null(strstr(slurp(out), "CUDA_INJECTION64_PATH=/should/not/leak"));
    assert_non_null(strstr(slurp(out), "NVTX_INJECTION64_PATH=(unset)"));
    Launch_free(l);
    /* Launch_free stops a program that still runs */
    l = Launch_start(&cfg, set, err, sizeof err);
    assert_non_null(l);
    Launch_free(l);
    unlink(out);
    RingSet_free(set);
}

/* NVTX_INJECTION64_PATH the user set is kept; the configured libcupti, if any, exists. */
static void test_nvtx_user_choice(void **state) {
    (void)state;
    RingSet *set = RingSet_create_shared(NULL);
    char out[] = "/tmp/ovtrace-launch-XXXXXX";
    int fd = mkstemp(out);
    close(fd);
    char *argv[] = {FAKE_TARGET, "push", "1", "0", NULL};
    LaunchConfig cfg;
    LaunchConfig_default(&cfg);
    cfg.argv = argv;
    cfg.inject = true;
    cfg.inject_lib = FAKE_TARGET;
    cfg.nvtx_lib = "/nvtx/libcupti.so";
    cfg.check_driver = false;
    cfg.output_path = out;
    setenv("NVTX_INJECTION64_PATH", "/user/choice.so", 1);
    char err[512];
    Launch *l = Launch_start(&cfg, set, err, sizeof err);
    unsetenv("NVTX_INJECTION64_PATH");
    if (!l) fail_msg("%s", err);
    assert_true(Launch_wait(l, 10000000000LL));
    const char *txt = slurp(out);
    assert_non_null(strstr(txt, "NVTX_INJECTION64_PATH=/user/choice.so\n"));
    assert_null(strstr(txt, "/nvtx/libcupti.so"));
    char cb[PATH_MAX];
    const char *cupti = Launch_cuptiLibrary(NULL, cb, sizeof cb);
    if (cupti) assert_int_equal(access(cupti, R_OK), 0);
    Launch_free(l);
    unlink(out);
    RingSet_free(set);
}

static void test_errors(void **state) {
    (void)state;
    RingSet *shared = RingSet_create_shared(NULL), *local = RingSet_new(NULL);
    char err[512];
    LaunchConfig cfg;
    LaunchConfig_default(&cfg);
    cfg.check_driver = false;
    assert_null(Launch_start(&cfg, shared, err, sizeof err)); /* no program */
    assert_non_null(strstr(err, "no program"));
    char *missing[] = {"ovtrace-no-such-program-xyz", NULL};
    cfg.argv = missing;
    assert_null(Launch_start(&cfg, shared, err, sizeof err));
    assert_non_null(strstr(err, "command not found in PATH"));
    char *missing_path[] = {"/nonexistent/prog", NULL};
    cfg.argv = missing_path;
    assert_null(Launch_start(&cfg, shared, err, sizeof err));
    assert_non_null(strstr(err, "no such executable"));
    char *ok[] = {FAKE_TARGET, "sleep", NULL};
    cfg.argv = ok;
    assert_null(Launch_start(&cfg, local, err, sizeof err)); /* not shareable */
    assert_non_null(strstr(err, "shared"));
    cfg.inject = true;
    cfg.inject_lib = "/nonexistent/libovtrace_inject.so";
    assert_null(Launch_start(&cfg, shared, err, sizeof err));
    assert_non_null(strstr(err, "not found"));
    /* the driver check: here (no GPU) it refuses with the hint */
    char msg[512];
    if (!Launch_cudaDriver(msg, sizeof msg)) {
        cfg.check_driver = true;
        cfg.inject_lib = NULL;
        assert_null(Launch_start(&cfg, shared, err, sizeof err));
        assert_non_null(strstr(err, "no CUDA driver found"));
        assert_non_null(strstr(err, "--simulate"));
        assert_string_equal(err, msg);
    }
    RingSet_free(shared);
    RingSet_free(local);
}

static void test_helpers(void **state) {
    (void)state;
    char p[4096];
    assert_false(Launch_findHelper("ovtrace-surely-not-there", p, sizeof p));
    /* OVTRACE_LIBDIR wins */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", FAKE_TARGET);
    *strrchr(dir, '/') = 0;
    setenv("OVTRACE_LIBDIR", dir, 1);
    const char *base = strrchr(FAKE_TARGET, '/') + 1;
    assert_true(Launch_findHelper(base, p, sizeof p));
    assert_string_equal(p, FAKE_TARGET);
    unsetenv("OVTRACE_LIBDIR");
    char err[512];
    char *args[] = {"--mode", "decode"};
    char **v = Launch_workloadArgv(true, args, 2, err, sizeof err);
    if (v) { /* built with CUDA: ovtrace-workload sits next to the binaries */
        assert_non_null(strstr(v[0], LAUNCH_WORKLOAD_BIN));
        assert_string_equal(v[1], "--collect");
        assert_string_equal(v[2], "--mode");
        assert_string_equal(v[3], "decode");
        assert_null(v[4]);
        Launch_freeArgv(v);
    } else {
        assert_non_null(strstr(err, "--simulate"));
    }
}

/* The libcupti an injected program's NVTX_INJECTION64_PATH names is found through the
 * injection library where it runs, as the dynamic loader finds it there: the path fixed
 * at configure time may not exist on the machine a build is carried to. */
static void test_cupti_of_injection_library(void **state) {
    (void)state;
    char out[PATH_MAX];
    assert_false(Launch_cuptiOf("/nonexistent/libovtrace_inject.so", out, sizeof out));
    assert_false(Launch_cuptiOf(FAKE_TARGET, out, sizeof out)); /* not a library */
    assert_false(Launch_cuptiOf("libc.so.6", out, sizeof out)); /* loads no libcupti */
#ifdef INJECT_LIB
    assert_true(Launch_cuptiOf(INJECT_LIB, out, sizeof out));
    assert_int_equal(out[0], '/');
    assert_non_null(strstr(out, "/libcupti.so"));
    assert_int_equal(access(out, R_OK), 0);
    /* with nothing configured it is also what the launcher picks */
    char cb[PATH_MAX];
    assert_non_null(Launch_cuptiLibrary(INJECT_LIB, cb, sizeof cb));
    assert_int_equal(access(cb, R_OK), 0);
#else
    skip();
#endif
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_until_exit),
        cmocka_unit_test(test_no_injection_and_signal),
        cmocka_unit_test(test_nvtx_user_choice),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_helpers),
        cmocka_unit_test(test_cupti_of_injection_library),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
