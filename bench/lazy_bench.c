/* The lazy rank overview's first pass, step by step:
 *   lazy_bench [--full] FILE_OR_DIR...
 * times Load_files with LoadOptions.gpu_only (--full: the whole model), then what the
 * overview computes before its first frame: Coll_analyze and the whole-trace
 * Coll_deviceSplit behind the labels. Prints events kept/passed over and peak RSS.
 * Then, best of 3 on the loaded model, the first frame's figures both ways: serial
 * (Coll_analyze, then the split with its report) and as the viewer computes them
 * (Coll_analyze on a thread beside the split without a report, which the labels'
 * exposed comm does not need). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/read/collargs.h"
#include "ovtrace/read/load.h"

static double now_s(void);

typedef struct {
    const Trace *t;
    const CollOptions *co;
    CollReport *R;
} Match;

static void *match_main(void *arg) {
    Match *m = arg;
    m->R = Coll_analyze(m->t, m->co);
    return NULL;
}

/* The first frame's figures, serial and side by side: seconds of each, best of 3. */
static void first_frame(const Trace *t, const CollOptions *co, double *serial, double *side) {
    *serial = *side = 1e9;
    for (int k = 0; k < 3; k++) {
        size_t n;
        double a = now_s();
        CollReport *R = Coll_analyze(t, co);
        free(Coll_deviceSplit(t, R, INT64_MIN, INT64_MAX, INT32_MIN, &n));
        double b = now_s();
        CollReport_free(R);
        double c = now_s();
        Match m = {t, co, NULL};
        pthread_t th;
        bool threaded = pthread_create(&th, NULL, match_main, &m) == 0;
        if (!threaded) match_main(&m);
        free(Coll_deviceSplit(t, NULL, INT64_MIN, INT64_MAX, INT32_MIN, &n));
        if (threaded) pthread_join(th, NULL);
        double d = now_s();
        CollReport_free(m.R);
        if (b - a < *serial) *serial = b - a;
        if (d - c < *side) *side = d - c;
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    bool full = argc > 1 && !strcmp(argv[1], "--full");
    int first = full ? 2 : 1;
    if (argc <= first) {
        fprintf(stderr, "usage: lazy_bench [--full] FILE_OR_DIR...\n");
        return 2;
    }
    LoadOptions o = {.cache = -1, .gpu_only = !full};
    char err[1024];
    double t0 = now_s();
    Trace *t = Load_files((const char *const *)argv + first, (size_t)(argc - first), &o, err, sizeof err);
    if (!t) {
        fprintf(stderr, "lazy_bench: %s\n", err);
        return 1;
    }
    double t1 = now_s();
    CollOptions co = CollOptions_default();
    co.args = CollArgs_fetch; /* as the viewer runs it */
    CollReport *R = Coll_analyze(t, &co);
    double t2 = now_s();
    size_t n = 0;
    CollDeviceSplit *s = R ? Coll_deviceSplit(t, R, INT64_MIN, INT64_MAX, INT32_MIN, &n) : NULL;
    double t3 = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s: %zu events kept, %zu passed over, %zu sources; load %.3f s, Coll_analyze %.3f s, deviceSplit %.3f s, "
           "total %.3f s; peak RSS %ld MB\n",
           full ? "full" : "gpu_only", t->n_events, t->deferred, t->n_sources, t1 - t0, t2 - t1, t3 - t2, t3 - t0,
           ru.ru_maxrss / 1024);
    double serial, side;
    first_frame(t, &co, &serial, &side);
    printf("first frame's figures (best of 3): serial %.3f s, matching beside the split %.3f s\n", serial, side);
    free(s);
    CollReport_free(R);
    Trace_free(t);
    return 0;
}
