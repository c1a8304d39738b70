/* The injection library's stop signals (collector/inject.c) against a stand-in libcupti:
 * a program that leaves SIGINT at its default and is interrupted (Ctrl-C under
 * `ovtrace record -- CMD` reaches it directly) still hands over what CUPTI holds and then
 * ends by that signal; a signal the program ignores stays ignored; a fork()ed child,
 * which has no stop thread, dies at once. Each case runs in a child process, as the
 * injected program would. */
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

#include "fake_cupti.h"
#include "ovtrace/ring/ring.h"

int InitializeInjection(void);

enum { PENDING_KERNELS = 7 };

/* The injected program: attaches through OVTRACE_SHM at "cuInit", has kernels CUPTI
 * has not completed yet, and is interrupted. */
static void program(const char *spec, bool ignore_int, bool in_child) {
    setenv(RING_SHM_ENV, spec, 1);
    setenv("OVTRACE_INJECT_QUIET", "1", 1);
    if (ignore_int) signal(SIGINT, SIG_IGN);
    FakeCupti_reset();
    InitializeInjection();
    FakeCupti_setComplete(false);
    FakeCupti_queueKernels(PENDING_KERNELS);
    if (in_child) {
        pid_t c = fork();
        if (c == 0) {
            kill(getpid(), SIGINT);
            for (int i = 0; i < 500; i++) usleep(10000); /* still here: the signal was swallowed */
            _exit(40);
        }
        int st = 0;
        waitpid(c, &st, 0);
        _exit(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT ? 0 : 41);
    }
    kill(getpid(), SIGINT);
    for (int i = 0; i < 50; i++) usleep(10000);
    _exit(ignore_int ? 0 : 42); /* interrupted programs never get here */
}

/* Runs program() in a child; returns its wait status. */
static int run_program(RingSet *set, bool ignore_int, bool in_child) {
    char spec[64];
    assert_int_equal(RingSet_export(set, spec, sizeof spec), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) program(spec, ignore_int, in_child);
    int st = 0;
    for (int i = 0; i < 2000; i++) { /* 20 s */
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return st;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    fail_msg("the injected program did not end within 20 s");
    return st;
}

static size_t drain_kernels(RingSet *set) {
    RingRecord r[256];
    size_t k = 0, n;
    while ((n = RingSet_drain_into(set, r, 256)) > 0)
        for (size_t i = 0; i < n; i++) k += r[i].kind == RING_KIND_KERNEL;
    return k;
}

static RingSet *shared_set(void) {
    RingSetConfig rc = {4, 4096, 0, 0};
    RingSet *set = RingSet_create_shared(&rc);
    assert_non_null(set);
    return set;
}

static void test_sigint_flushes_then_ends(void **state) {
    (void)state;
    RingSet *set = shared_set();
    int st = run_program(set, false, false);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGINT);
    assert_int_equal(drain_kernels(set), PENDING_KERNELS);
    RingSet_free(set);
}

static void test_ignored_signal_stays_ignored(void **state) {
    (void)state;
    RingSet *set = shared_set();
    int st = run_program(set, true, false);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    RingSet_free(set);
}

static void test_forked_child_dies_at_once(void **state) {
    (void)state;
    RingSet *set = shared_set();
    int st = run_program(set, false, true);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    RingSet_free(set);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigint_flushes_then_ends),
        cmocka_unit_test(test_ignored_signal_stays_ignored),
        cmocka_unit_test(test_forked_child_dies_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
