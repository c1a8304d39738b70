/* libovtrace_inject.so: the CUPTI collector injected into any CUDA program.
 *
 * `ovtrace live -- CMD` / `ovtrace record -o F -- CMD` start CMD with
 *   CUDA_INJECTION64_PATH=<dir of ovtrace>/libovtrace_inject.so
 *   OVTRACE_SHM=fd:N (the shared ring set the viewer/recorder drains)
 *   NVTX_INJECTION64_PATH=<libcupti.so>   (NVTX ranges become CUPTI MARKER records; set by
 *                                          the launcher: a setenv here, inside cuInit,
 *                                          could race with the program's own getenv)
 * The CUDA driver dlopens this library at cuInit and calls InitializeInjection, which
 * attaches to the ring set and starts the collector (include/ovtrace/collector/cupti.h). At exit
 * (atexit, registered after the CUDA runtime's own handlers, so it runs before them)
 * the collector does a forced flush; so it does on a stop signal the program leaves at its
 * default (see install_stop_signals). Nothing here may break the target: every failure
 * is reported on stderr and the program runs on uncollected. Only InitializeInjection
 * is exported (-fvisibility=hidden). */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/collector/cupti.h"
#include "ovtrace/ring/ring.h"

#define EXPORT __attribute__((visibility("default")))

static pthread_once_t once = PTHREAD_ONCE_INIT;
static RingSet *g_set;
static int g_quiet;

static void report(void) {
    if (!Cupti_running()) return;
    Cupti_stop();
    CuptiTrStats st = Cupti_stats();
    uint64_t ring_drops = g_set ? RingSet_drops(g_set) : 0;
    if (!g_quiet && (st.cupti_dropped || ring_drops || Cupti_poolMisses()))
        fprintf(stderr,
                "ovtrace-inject[%d]: %llu events sent; dropped: %llu by CUPTI (%llu buffer requests unmet), %llu by "
                "the ring\n",
                (int)getpid(), (unsigned long long)st.events, (unsigned long long)st.cupti_dropped,
                (unsigned long long)Cupti_poolMisses(), (unsigned long long)ring_drops);
    /* the mapping stays: a thread of the target might still push */
}

/* ---- stop signals ----------------------------------------------------------------------
 * Under `ovtrace record -o F -- CMD` the program shares the terminal's process group, so
 * Ctrl-C reaches it directly, and a CUDA program without a handler of its own dies at
 * once: its atexit flush never runs and what CUPTI still holds is lost. So for each stop
 * signal left at its default action at start, a handler wakes a thread of ours that stops
 * the collector with a forced flush and then raises the signal again with its default
 * action: the program ends as it would have, exit status included, a few milliseconds
 * later. The handler only makes async-signal-safe calls. A second signal, or one in a
 * fork()ed child (which has no such thread), takes the default action at once. A program
 * that installs its own handler later replaces ours and keeps its own behaviour. */
static const int STOP_SIGS[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP_SIGS (sizeof STOP_SIGS / sizeof STOP_SIGS[0])
static sem_t g_stop_sem;
static volatile sig_atomic_t g_stop_sig;
static pid_t g_pid;

static void default_action(int sig) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static void on_stop_signal(int sig) {
    int saved = errno;
    if (getpid() != g_pid || g_stop_sig) {
        default_action(sig);
        raise(sig); /* pending until this handler returns, then the default action */
    } else {
        g_stop_sig = sig;
        sem_post(&g_stop_sem);
    }
    errno = saved;
}

static void *stop_thread(void *arg) {
    (void)arg;
    while (sem_wait(&g_stop_sem) != 0 && errno == EINTR) {
    }
    int sig = g_stop_sig;
    report();
    default_action(sig);
    kill(getpid(), sig); /* process-directed: this thread blocks every signal */
    return NULL;
}

static void install_stop_signals(void) {
    int todo[N_STOP_SIGS], n = 0;
    for (size_t i = 0; i < N_STOP_SIGS; i++) {
        struct sigaction old;
        if (sigaction(STOP_SIGS[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
            todo[n++] = STOP_SIGS[i];
    }
    if (!n || sem_init(&g_stop_sem, 0, 0) != 0) return;
    g_pid = getpid();
    /* the thread takes no signal of the program's: every one goes to the program's threads */
    sigset_t all, prev;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &prev);
    pthread_t t;
    int rc = pthread_create(&t, NULL, stop_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
    if (rc != 0) return; /* the default actions stay: collected until the last periodic flush */
    pthread_detach(t);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int i = 0; i < n; i++) sigaction(todo[i], &sa, NULL);
}

static void init(void) {
    const char *q = getenv("OVTRACE_INJECT_QUIET");
    g_quiet = q && *q && strcmp(q, "0") != 0;
    const char *spec = getenv(RING_SHM_ENV);
    if (!spec || !*spec) {
        fprintf(stderr, "ovtrace-inject: %s is not set (start the program with `ovtrace live -- CMD` or "
                        "`ovtrace record -o FILE -- CMD`); not collecting\n", RING_SHM_ENV);
        return;
    }
    g_set = RingSet_attach(spec);
    if (!g_set) {
        fprintf(stderr, "ovtrace-inject: cannot attach to the ovtrace ring set %s=%s: %s; not collecting\n",
                RING_SHM_ENV, spec, strerror(errno));
        return;
    }
    CuptiConfig cfg;
    CuptiConfig_default(&cfg);
    char err[768];
    if (!Cupti_start(&cfg, g_set, err, sizeof err)) {
        fprintf(stderr, "ovtrace-inject: %s; not collecting\n", err);
        return;
    }
    atexit(report);
    install_stop_signals();
}

EXPORT int InitializeInjection(void) {
    pthread_once(&once, init);
    return 1; /* the driver goes on either way */
}
