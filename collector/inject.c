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
 * the collector does a forced flush. Nothing here may break the target: every failure
 * is reported on stderr and the program runs on uncollected. Only InitializeInjection
 * is exported (-fvisibility=hidden). */
#include <errno.h>
#include <pthread.h>
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
}

EXPORT int InitializeInjection(void) {
    pthread_once(&once, init);
    return 1; /* the driver goes on either way */
}
