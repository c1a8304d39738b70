/* The CUPTI collector's own logic (collector/cupti_collector.c) on the CPU, against a
 * stand-in libcupti (fake_cupti.c): records reach the ring set through the buffer
 * callbacks and the flusher; the drop count is read without the collector's lock; a
 * fork()ed child leaves the parent's collector alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "fake_cupti.h"
#include "ovtrace/collector/cupti.h"
#include "ovtrace/ring/ring.h"

static RingSet *small_set(void) {
    RingSetConfig rc = {4, 4096, 0, 0};
    RingSet *set = RingSet_new(&rc);
    assert_non_null(set);
    return set;
}

static CuptiConfig fast_config(void) {
    CuptiConfig cc;
    CuptiConfig_default(&cc);
    cc.flush_ms = 5;
    cc.n_buffers = 4;
    cc.max_buffers = 64;
    cc.buffer_bytes = 64 * 1024;
    return cc;
}

static void start(RingSet *set) {
    CuptiConfig cc = fast_config();
    char err[512];
    if (!Cupti_start(&cc, set, err, sizeof err)) fail_msg("%s", err);
}

static size_t drain_kernels(RingSet *set) {
    RingRecord r[256];
    size_t k = 0, n;
    while ((n = RingSet_drain_into(set, r, 256)) > 0)
        for (size_t i = 0; i < n; i++) k += r[i].kind == RING_KIND_KERNEL;
    return k;
}

/* The flusher's periodic (default) flush delivers complete records; Cupti_stop's forced
 * flush delivers the rest. */
static void test_flusher_and_stop(void **state) {
    (void)state;
    FakeCupti_reset();
    RingSet *set = small_set();
    start(set);
    FakeCupti_setComplete(true);
    FakeCupti_queueKernels(10);
    size_t got = 0;
    for (int i = 0; i < 2000 && got < 10; i++) {
        got += drain_kernels(set);
        usleep(1000);
    }
    assert_int_equal(got, 10);
    FakeCupti_setComplete(false);
    FakeCupti_queueKernels(5); /* incomplete: only a forced flush returns them */
    usleep(30000);
    assert_int_equal(drain_kernels(set), 0);
    Cupti_stop();
    assert_int_equal(drain_kernels(set), 5);
    assert_true(FakeCupti_counts().forced >= 1);
    assert_false(Cupti_running());
    RingSet_free(set);
}

/* CUPTI answers cuptiActivityGetNumDroppedRecords under its own lock, which a context
 * creation holds while it calls the collector's resource callback; the buffer callback
 * must not hold the collector's lock across that call. */
static void test_drop_count_outside_lock(void **state) {
    (void)state;
    FakeCupti_reset();
    RingSet *set = small_set();
    start(set);
    FakeCupti_dropsWithContextCreation(3);
    FakeCupti_queueKernels(1);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); /* CUPTI hands over a buffer */
    FakeCupti_quiesce();
    assert_int_equal(FakeCupti_counts().ctx_blocked, 0);
    assert_int_equal(Cupti_stats().cupti_dropped, 3);
    Cupti_stop();
    RingSet_free(set);
}

/* A child fork()ed after the collector started inherits its state and atexit handler but
 * not its flusher thread: its exit must neither wait for that thread nor flush (CUPTI
 * would hand it the parent's buffers again, under its own pid). */
static void test_fork_child_exit(void **state) {
    (void)state;
    FakeCupti_reset();
    RingSet *set = small_set();
    start(set);
    FakeCupti_queueKernels(4); /* pending in "CUPTI" when the child is forked */
    pid_t pid = fork();
    if (pid == 0) {
        exit(Cupti_running() ? 3 : 0); /* the collector's atexit handler runs here */
    }
    assert_true(pid > 0);
    int st = 0;
    pid_t w = 0;
    for (int i = 0; i < 500 && (w = waitpid(pid, &st, WNOHANG)) == 0; i++) usleep(10000);
    if (w == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        fail_msg("the child hung in exit() (joining a flusher thread it does not have)");
    }
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(FakeCupti_counts().foreign_calls, 0);
    assert_int_equal(drain_kernels(set), 0);
    assert_true(Cupti_running()); /* the parent's collector runs on */
    Cupti_stop();
    assert_int_equal(drain_kernels(set), 4);
    RingSet_free(set);
}

/* A CUPTI clock that cannot be read fails the start with a message, instead of placing
 * every GPU event ~55 years before the host's. */
static void test_clock_failure(void **state) {
    (void)state;
    FakeCupti_reset();
    RingSet *set = small_set();
    FakeCupti_failTimestamp(true);
    CuptiConfig cc = fast_config();
    char err[512] = "";
    assert_false(Cupti_start(&cc, set, err, sizeof err));
    assert_non_null(strstr(err, "cuptiGetTimestamp"));
    assert_false(Cupti_running());
    FakeCupti_failTimestamp(false);
    start(set); /* and a later start works */
    assert_true(Cupti_running());
    Cupti_stop();
    RingSet_free(set);
}

/* The ring set's stop request: the flusher force-flushes what CUPTI holds (records that
 * a default flush would not return) and acknowledges with the number of events sent. */
static void test_stop_request(void **state) {
    (void)state;
    FakeCupti_reset();
    RingSet *set = small_set();
    start(set);
    assert_int_equal(RingSet_stopState(set).collectors, 1);
    FakeCupti_setComplete(false);
    FakeCupti_queueKernels(5);
    RingSet_requestStop(set);
    RingStopState st = RingSet_stopState(set);
    for (int i = 0; i < 2000 && st.acks < 1; i++) {
        usleep(1000);
        st = RingSet_stopState(set);
    }
    assert_int_equal(st.acks, 1);
    assert_int_equal(st.events_sent, 5);
    assert_int_equal(drain_kernels(set), 5); /* in the rings before the acknowledgement */
    assert_true(Cupti_running());            /* the program decides when to end */
    assert_int_equal(FakeCupti_counts().forced, 1);
    Cupti_stop();
    st = RingSet_stopState(set);
    assert_int_equal(st.collectors, 0);
    assert_int_equal(st.acks, 1); /* answered once */
    /* a request that comes while the collector stops is answered by its final flush */
    start(set);
    FakeCupti_queueKernels(2);
    RingSet_requestStop(set);
    Cupti_stop();
    st = RingSet_stopState(set);
    assert_int_equal(st.acks, 1);
    assert_int_equal(drain_kernels(set), 2);
    RingSet_free(set);
}

/* CUPTI keeps every buffer that holds a record of a kernel not yet run: the pool grows
 * past its start while CUPTI holds them all, up to max_buffers, and grown buffers come back
 * for reuse; past the cap a request gets no buffer and counts as a miss. */
static void test_pool_grows_while_held(void **state) {
    (void)state;
    FakeCupti_reset();
    RingSet *set = small_set();
    start(set);
    uint64_t misses0 = Cupti_poolMisses();
    assert_int_equal(FakeCupti_holdBuffers(40), 40); /* 4 at start, 36 grown */
    assert_int_equal(Cupti_poolMisses(), misses0);
    FakeCupti_releaseHeld();
    assert_int_equal(drain_kernels(set), 40);
    int grown = Cupti_buffersAllocated();
    assert_int_equal(grown, 40);
    assert_int_equal(FakeCupti_holdBuffers(40), 40); /* the same buffers again */
    assert_int_equal(Cupti_buffersAllocated(), grown);
    assert_int_equal(FakeCupti_holdBuffers(40), 24); /* the cap: 64 */
    assert_int_equal(Cupti_poolMisses(), misses0 + 16);
    assert_int_equal(Cupti_buffersAllocated(), 64);
    FakeCupti_releaseHeld();
    assert_int_equal(drain_kernels(set), 64);
    Cupti_stop();
    RingSet_free(set);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flusher_and_stop),
        cmocka_unit_test(test_drop_count_outside_lock),
        cmocka_unit_test(test_fork_child_exit),
        cmocka_unit_test(test_clock_failure),
        cmocka_unit_test(test_stop_request),
        cmocka_unit_test(test_pool_grows_while_held),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
