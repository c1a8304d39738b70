/* Sub-row assignment: subrows_bench SHAPE N [REPEAT] builds one CPU
 * lane of N intervals through the public API and times Trace_finish (one thread, best
 * of REPEAT, default 3). Shapes: identical (all [0, 1 ms)), nested (interval k is
 * [k, 2N - k) us: depth k), random (starts and lengths uniform over 10 ms, ~N/5 deep
 * at the peak), staircase (interval k is [k, k + 1000) us: ~1000 rows in use, rows
 * freed and retaken all the time). Prints: shape, N, sub-rows, finish wall and CPU
 * time (one thread: the CPU time is the wall time on an idle machine). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ovtrace/model/trace.h"

static double now_s(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static Trace *build(const char *shape, size_t n) {
    Trace *t = Trace_new();
    uint32_t src = Trace_addSource(t, "bench");
    uint32_t lane = Trace_cpuLane(t, src, 1, 1);
    uint64_t seed = 42;
    for (size_t k = 0; k < n; k++) {
        TraceEvent e = {0};
        e.lane = lane;
        e.kind = KIND_CPU_OP;
        e.src = k;
        if (!strcmp(shape, "identical")) {
            e.ts = 0;
            e.dur = 1000000;
        } else if (!strcmp(shape, "nested")) {
            e.ts = (int64_t)k * 1000;
            e.dur = (int64_t)(2 * n - 2 * k) * 1000;
        } else if (!strcmp(shape, "staircase")) {
            e.ts = (int64_t)k * 1000;
            e.dur = 1000000;
        } else {
            e.ts = (int64_t)(rng(&seed) % 10000000);
            e.dur = (int64_t)(rng(&seed) % 10000000);
        }
        Trace_append(t, &e);
    }
    return t;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: subrows_bench identical|nested|random|staircase N [REPEAT]\n");
        return 2;
    }
    size_t n = (size_t)strtoull(argv[2], NULL, 10);
    int repeat = argc > 3 ? atoi(argv[3]) : 3;
    double best = 1e30, best_cpu = 1e30;
    uint32_t rows = 0;
    for (int r = 0; r < (repeat > 0 ? repeat : 1); r++) {
        Trace *t = build(argv[1], n);
        double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        Trace_finishThreads(t, 1);
        double dt = now_s(CLOCK_MONOTONIC) - t0, dc = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (dt < best) best = dt;
        if (dc < best_cpu) best_cpu = dc;
        rows = t->n_lanes ? t->lanes[0].n_rows : 0;
        Trace_free(t);
    }
    printf("%s %zu events: %u sub-rows, Trace_finish %.3f s wall, %.3f s CPU\n", argv[1], n, rows, best, best_cpu);
    return 0;
}
