#include "ovtrace/read/mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

static _Thread_local MapGuard *tl_guard; /* innermost armed guard of this thread */
static struct sigaction prev_bus;        /* whoever handled SIGBUS before us (libFuzzer, ASan) */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void on_bus(int sig, siginfo_t *si, void *uc) {
    MapGuard *g = tl_guard;
    if (g && si->si_code == BUS_ADRERR) { /* an access beyond the end of a mapped file */
        tl_guard = g->prev;
        siglongjmp(g->env, 1);
    }
    /* not ours: what would have happened without us */
    if (prev_bus.sa_flags & SA_SIGINFO) {
        if (prev_bus.sa_sigaction) prev_bus.sa_sigaction(sig, si, uc);
        return;
    }
    if (prev_bus.sa_handler != SIG_DFL && prev_bus.sa_handler != SIG_IGN) {
        prev_bus.sa_handler(sig);
        return;
    }
    signal(SIGBUS, SIG_DFL); /* the faulting access runs again and dies as it would have */
    if (si->si_code <= 0) raise(sig); /* sent by kill(): deliver it again */
}

/* Installs on_bus unless it is SIGBUS's handler already: checked at every arm, as
 * someone (a test framework, a sanitizer runtime) may have replaced it since. */
static void install(void) {
    pthread_mutex_lock(&mu);
    struct sigaction cur;
    if (sigaction(SIGBUS, NULL, &cur) == 0 && !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_bus)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_bus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        prev_bus = cur;
        sigaction(SIGBUS, &sa, NULL);
    }
    pthread_mutex_unlock(&mu);
}

void MapGuard_arm(MapGuard *g) {
    install();
    g->prev = tl_guard;
    tl_guard = g;
}

void MapGuard_disarm(MapGuard *g) { tl_guard = g->prev; }
