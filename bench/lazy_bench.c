/* The lazy rank overview's first pass, step by step:
 *   lazy_bench [--full | --no-shapes] [--timing] FILE_OR_DIR...
 * times Load_files with LoadOptions.gpu_only (--full: the whole model; --no-shapes: the
 * skim without known event shapes, read/jsonshape.c, for a side-by-side run), then what the
 * overview computes before its first frame: Coll_analyze and the whole-trace
 * Coll_deviceSplit behind the labels. Prints events kept/passed over and peak RSS;
 * --timing also the CPU time of each of Coll_analyze's phases (CollOptions.timing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/read/collargs.h"
#include "ovtrace/read/jsonshape.h"
#include "ovtrace/read/load.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    bool full = false, no_shapes = false, timing = false;
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--full")) full = true;
        else if (!strcmp(argv[first], "--no-shapes")) no_shapes = true;
        else if (!strcmp(argv[first], "--timing")) timing = true;
        else break;
    }
    JsShape_setDisabled(no_shapes);
    if (argc <= first || (full && no_shapes)) {
        fprintf(stderr, "usage: lazy_bench [--full | --no-shapes] [--timing] FILE_OR_DIR...\n");
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
    if (timing) co.timing = stderr;
    CollReport *R = Coll_analyze(t, &co);
    double t2 = now_s();
    size_t n = 0;
    CollDeviceSplit *s = R ? Coll_deviceSplit(t, R, INT64_MIN, INT64_MAX, INT32_MIN, &n) : NULL;
    double t3 = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s: %zu events kept, %zu passed over, %zu sources; load %.3f s, Coll_analyze %.3f s, deviceSplit %.3f s, "
           "total %.3f s; peak RSS %ld MB\n",
           full ? "full" : no_shapes ? "gpu_only, no shapes" : "gpu_only", t->n_events, t->deferred, t->n_sources, t1 - t0, t2 - t1, t3 - t2, t3 - t0,
           ru.ru_maxrss / 1024);
    free(s);
    CollReport_free(R);
    Trace_free(t);
    return 0;
}
