/* Cost of `ovtrace diff` beyond loading: diff_bench A B [--repeat N] [--step REGEX]
 * times, in one process with the snapshot cache off, (1) loading A then B (each freed
 * before the next, as diff does) and (2) the whole comparison as `ovtrace diff` runs
 * it: load A, summarise, free, load B, summarise, free, compare. Each N times
 * (default 3), interleaved, best of each. Prints one table row:
 * sizes, events, load s, diff s, overhead %, summarise s (both runs), compare s, and
 * the CPU seconds (all threads) of the loads and of the diff, best of each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ovtrace/analysis/diff.h"
#include "ovtrace/read/collargs.h"
#include "ovtrace/read/load.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process (all threads): steadier than wall time on a shared
 * machine, where other jobs take the cores away at random. */
static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static Trace *load(const char *path, size_t *events) {
    LoadOptions lo = {.cache = -1};
    char err[1024];
    Trace *t = Load_files(&path, 1, &lo, err, sizeof err);
    if (!t) {
        fprintf(stderr, "diff_bench: %s\n", err);
        exit(1);
    }
    if (events) *events = t->n_events;
    return t;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: diff_bench A B [--repeat N] [--step REGEX]\n");
        return 2;
    }
    int repeat = 3;
    DiffOptions o = DiffOptions_default();
    o.coll.args = CollArgs_fetch; /* as `ovtrace diff` runs it */
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--step") && i + 1 < argc) o.step_regex = argv[++i];
    }
    double best_load = 1e30, best_diff = 1e30, best_sum = 0, best_cmp = 0, cpu_load = 1e30, cpu_diff = 1e30;
    size_t ev[2] = {0, 0};
    size_t kernels = 0, steps[2] = {0, 0};
    for (int r = 0; r < repeat; r++) {
        double t0 = now(), c0 = cpu();
        for (int s = 0; s < 2; s++) Trace_free(load(argv[1 + s], &ev[s]));
        double load_s = now() - t0;
        if (load_s < best_load) best_load = load_s;
        if (cpu() - c0 < cpu_load) cpu_load = cpu() - c0;

        t0 = now();
        c0 = cpu();
        double sum = 0;
        DiffRun *run[2];
        for (int s = 0; s < 2; s++) {
            Trace *t = load(argv[1 + s], NULL);
            double a = now();
            char err[256];
            run[s] = DiffRun_summarize(t, &o, err, sizeof err);
            if (!run[s]) {
                fprintf(stderr, "diff_bench: %s\n", err);
                return 1;
            }
            sum += now() - a;
            Trace_free(t);
        }
        double m0 = now();
        DiffReport *R = Diff_compare(run[0], run[1]);
        double cmp = now() - m0;
        double diff_s = now() - t0;
        if (cpu() - c0 < cpu_diff) cpu_diff = cpu() - c0;
        kernels = R->n_kernels;
        steps[0] = run[0]->steps.n;
        steps[1] = run[1]->steps.n;
        DiffReport_free(R);
        DiffRun_free(run[0]);
        DiffRun_free(run[1]);
        if (diff_s < best_diff) best_diff = diff_s, best_sum = sum, best_cmp = cmp;
    }
    struct stat sa, sb;
    stat(argv[1], &sa);
    stat(argv[2], &sb);
    printf("| %.1f MB + %.1f MB | %zu + %zu | %.3f s | %.3f s | %+.1f%% | %.3f s | %.4f s | %.2f s / %.2f s (%+.1f%%) | "
           "%zu kernels, %zu/%zu steps |\n",
           (double)sa.st_size / 1e6, (double)sb.st_size / 1e6, ev[0], ev[1], best_load, best_diff,
           100.0 * (best_diff - best_load) / best_load, best_sum, best_cmp, cpu_load, cpu_diff,
           100.0 * (cpu_diff - cpu_load) / cpu_load, kernels, steps[0], steps[1]);
    return 0;
}
