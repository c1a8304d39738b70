/* TUI frame benchmark: frame computation time (layout + rendering of every
 * visible line into the cell grid, no terminal) for a 200x60 view of a synthetic
 * 10M-event model, at fit-all, a middle zoom and the deepest zoom.
 * usage: frame_bench [--dump] [EVENTS] [FRAMES]   (defaults 10000000, 60; --dump: the
 * last frame of each zoom on stderr, to see what was measured) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ovtrace/model/trace.h"
#include "app.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void add(Trace *t, uint32_t lane, int64_t ts, int64_t dur, uint32_t name, EventKind k, EventClass c) {
    TraceEvent e;
    memset(&e, 0, sizeof e);
    e.ts = ts;
    e.dur = dur;
    e.src = TRACE_NO_SRC;
    e.name = name;
    e.lane = lane;
    e.kind = k;
    e.cls = c;
    Trace_append(t, &e);
}

/* a GPU stream of back-to-back kernels with small gaps */
static void gpu_stream(Trace *t, uint32_t lane, size_t n, const uint32_t *names, size_t nn, EventClass c, int64_t mean) {
    int64_t ts = 1000;
    for (size_t i = 0; i < n; i++) {
        ts += (int64_t)(rnd() % 400);
        int64_t d = mean / 2 + (int64_t)(rnd() % (uint64_t)mean);
        add(t, lane, ts, d, names[rnd() % nn], KIND_KERNEL, c);
        ts += d;
    }
}

/* CPU ops nested three deep */
static void cpu_thread(Trace *t, uint32_t lane, size_t n, const uint32_t *names) {
    int64_t ts = 1000;
    size_t i = 0;
    while (i + 4 <= n) {
        add(t, lane, ts, 4000, names[0], KIND_CPU_OP, CLASS_CPU);
        add(t, lane, ts + 100, 3000, names[1], KIND_CPU_OP, CLASS_CPU);
        add(t, lane, ts + 200, 1000, names[2], KIND_RUNTIME, CLASS_CPU);
        add(t, lane, ts + 1500, 1000, names[2], KIND_RUNTIME, CLASS_CPU);
        i += 4;
        ts += 4000 + (int64_t)(rnd() % 1000);
    }
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static bool g_dump; /* --dump */

static void measure(App *a, Grid *g, const char *label, int64_t span, int frames) {
    double *ms = malloc((size_t)frames * sizeof *ms);
    int64_t ext = a->t->t_max - a->t->t_min;
    for (int f = 0; f < frames; f++) {
        int64_t off = span >= ext ? 0 : (int64_t)(rnd() % (uint64_t)(ext - span));
        a->v.t0 = a->t->t_min + off;
        a->v.t1 = a->v.t0 + span;
        a->v.cursor = a->v.t0 + span / 2;
        double t0 = now();
        App_sync(a);
        App_render(a, g);
        ms[f] = (now() - t0) * 1e3;
    }
    qsort(ms, (size_t)frames, sizeof *ms, cmp_d);
    if (g_dump) Grid_dump(g, stderr); /* the last frame, to see what was measured */
    printf("| %-14s | %14lld | %8.3f | %8.3f | %8.3f |\n", label, (long long)span, ms[frames / 2],
           ms[frames * 9 / 10], ms[frames - 1]);
    free(ms);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--dump")) {
        g_dump = true;
        argc--;
        argv++;
    }
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    int frames = argc > 2 ? atoi(argv[2]) : 60;
    double t0 = now();
    Trace *t = Trace_new();
    uint32_t src = Trace_addSource(t, "synthetic");
    uint32_t gemm[3] = {StrTab_intern(t->strings, "void cutlass::device_kernel<Gemm>(Params)", 41),
                        StrTab_intern(t->strings, "flash_fwd_kernel", 16), StrTab_intern(t->strings, "cast", 4)};
    uint32_t comm[2] = {StrTab_intern(t->strings, "void dpsk::ep::internode::dispatch<false>(int4*)", 48),
                        StrTab_intern(t->strings, "void dpsk::ep::internode::combine<false>(int4*)", 47)};
    uint32_t mem[1] = {StrTab_intern(t->strings, "Memcpy DtoD", 11)};
    uint32_t cpu[3] = {StrTab_intern(t->strings, "aten::linear", 12), StrTab_intern(t->strings, "aten::mm", 8),
                       StrTab_intern(t->strings, "cudaLaunchKernel", 16)};
    /* 30% / 10% / 20% / 5% on four GPU streams, 35% nested CPU ops on two threads */
    gpu_stream(t, Trace_gpuLane(t, src, 0, 7, 0, 7), n * 30 / 100, gemm, 3, CLASS_COMPUTE, 2000);
    gpu_stream(t, Trace_gpuLane(t, src, 0, 23, 0, 23), n * 10 / 100, gemm, 3, CLASS_COMPUTE, 6000);
    gpu_stream(t, Trace_gpuLane(t, src, 0, 27, 0, 27), n * 20 / 100, comm, 2, CLASS_COMM, 3000);
    gpu_stream(t, Trace_gpuLane(t, src, 0, 30, 0, 30), n * 5 / 100, mem, 1, CLASS_MEMORY, 12000);
    cpu_thread(t, Trace_cpuLane(t, src, 100, 100), n * 25 / 100, cpu);
    cpu_thread(t, Trace_cpuLane(t, src, 100, 101), n * 10 / 100, cpu);
    Trace_finish(t);
    double t1 = now();
    Grid g;
    Grid_init(&g, 200, 60);
    App *a = App_new(t, (Caps){true, 256}, "bench");
    double t2 = now();
    for (uint32_t gi = 0; gi < t->n_groups; gi++) a->collapsed[gi] = false;
    App_rebuildLines(a);
    App_render(a, &g); /* sets the layout */
    size_t model = Trace_memoryBytes(t), index = TraceIndex_bytes(a->idx);
    printf("model: %zu events, %zu lanes, %zu rows, span %.3f s; built in %.2f s\n", t->n_events, t->n_lanes,
           t->n_rows, (double)(t->t_max - t->t_min) * 1e-9, t1 - t0);
    printf("view index: built in %.2f s; model %.1f B/event + index %.1f B/event = %.1f B/event\n", t2 - t1,
           (double)model / (double)t->n_events, (double)index / (double)t->n_events,
           (double)(model + index) / (double)t->n_events);
    int64_t full = t->t_max - t->t_min;
    int64_t deepest = a->layout.plot.w; /* 1 ns per column */
    int64_t middle = 1;
    while (middle * middle < full * deepest / 1) middle *= 2; /* ~ geometric mean */
    printf("\nframe computation, 200x60, %d frames each at random positions (ms)\n\n", frames);
    printf("| %-14s | %14s | %8s | %8s | %8s |\n", "zoom", "view span (ns)", "median", "p90", "max");
    printf("|----------------|----------------|----------|----------|----------|\n");
    measure(a, &g, "fit-all", full, frames);
    measure(a, &g, "middle", middle, frames);
    measure(a, &g, "deepest", deepest, frames);
    char err[128];
    Search_set(&a->search, t, "combine", err, sizeof err);
    measure(a, &g, "fit-all+search", full, frames);
    App_free(a);
    Grid_free(&g);
    Trace_free(t);
    return 0;
}
