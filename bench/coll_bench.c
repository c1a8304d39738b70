/* Collective matching and skew at scale: coll_bench [--no-split] [--timing]
 * [RANKS] [EVENTS_PER_RANK] [COMM_FRACTION] builds an in-memory trace of RANKS ranks with EVENTS_PER_RANK GPU
 * kernels each (a compute stream and a comm stream; COMM_FRACTION of them are DeepEP
 * dispatch/combine kernels, default 0.5), with rank-dependent arrival jitter, then times
 * Coll_analyze (matching, waits, skew per name, clock offsets, member index) and
 * Coll_deviceSplit over all devices (the exposed wait/transfer split of stats). Best of 3.
 * Prints one row for bench/README.md. --no-split: Coll_analyze alone (no device split,
 * no Overlap_compute); --timing: Coll_analyze's steps on stderr (CollOptions.timing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/read/collargs.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv) {
    bool split = true;
    CollOptions co = CollOptions_default();
    co.args = CollArgs_fetch; /* as `ovtrace stats` and the viewer run it */
    for (; argc > 1 && !strncmp(argv[1], "--", 2); argc--, argv++) {
        if (!strcmp(argv[1], "--no-split")) split = false;
        else if (!strcmp(argv[1], "--timing")) co.timing = stderr;
        else {
            fprintf(stderr, "coll_bench: unknown option '%s'\n", argv[1]);
            return 2;
        }
    }
    int ranks = argc > 1 ? atoi(argv[1]) : 64;
    long per = argc > 2 ? atol(argv[2]) : 1000000;
    double frac = argc > 3 ? atof(argv[3]) : 0.5;
    if (ranks < 1 || per < 1 || frac < 0 || frac > 1) {
        fprintf(stderr, "usage: coll_bench [--no-split] [--timing] [RANKS] [EVENTS_PER_RANK] [COMM_FRACTION]\n");
        return 2;
    }
    double t0 = now_s();
    Trace *t = Trace_new();
    const char *names[2] = {"void dpsk::ep::internode::dispatch<8, 20>(dpsk::ep::DispatchArgs)",
                            "void dpsk::ep::internode::combine<8, 20>(dpsk::ep::CombineArgs)"};
    uint32_t nid[2], gemm = StrTab_intern(t->strings, "sm90_gemm", 9);
    for (int k = 0; k < 2; k++) nid[k] = StrTab_intern(t->strings, names[k], strlen(names[k]));
    long n_comm = (long)((double)per * frac), n_comp = per - n_comm;
    t->events = malloc((size_t)ranks * (size_t)per * sizeof *t->events);
    t->cap_events = (size_t)ranks * (size_t)per;
    for (int r = 0; r < ranks; r++) {
        char p[32];
        snprintf(p, sizeof p, "rank%d", r);
        uint32_t s = Trace_addSource(t, p);
        t->sources[s].rank = r;
        uint32_t lc = Trace_gpuLane(t, s, r % 8, 20, r % 8, 20), lk = Trace_gpuLane(t, s, r % 8, 7, r % 8, 7);
        /* collective k spans [k * 10 us, k * 10 us + 8 us); each rank arrives up to 3 us late */
        for (long k = 0; k < n_comm; k++) {
            TraceEvent e = {0};
            int64_t base = k * 10000;
            e.ts = base + (int64_t)(next() % 3000);
            e.dur = base + 8000 - e.ts;
            e.src = TRACE_NO_SRC;
            e.kind = KIND_KERNEL;
            e.name = nid[k & 1];
            e.lane = lc;
            Trace_append(t, &e);
        }
        for (long k = 0; k < n_comp; k++) {
            TraceEvent e = {0};
            e.ts = k * 10000 + 1000;
            e.dur = 5000;
            e.src = TRACE_NO_SRC;
            e.kind = KIND_KERNEL;
            e.name = gemm;
            e.lane = lk;
            Trace_append(t, &e);
        }
    }
    Trace_finish(t);
    CommRules *rules = CommRules_default();
    Classify_trace(t, rules);
    CommRules_free(rules);
    fprintf(stderr, "built %zu events in %.1f s\n", t->n_events, now_s() - t0);
    double best_a = 1e9, best_s = 1e9, cpu_a = 1e9;
    size_t inst = 0, members = 0;
    for (int rep = 0; rep < 3; rep++) {
        double a = now_s(), ca = cpu_s();
        CollReport *R = Coll_analyze(t, &co);
        double b = now_s(), cb = cpu_s();
        if (cb - ca < cpu_a) cpu_a = cb - ca;
        size_t nd;
        CollDeviceSplit *D = !split ? NULL : Coll_deviceSplit(t, R, INT64_MIN, INT64_MAX, INT32_MIN, &nd);
        if (!D) nd = (size_t)ranks;
        double c = now_s();
        if (b - a < best_a) best_a = b - a;
        if (c - b < best_s) best_s = c - b;
        inst = R->n_inst;
        members = R->n_members;
        if (R->unmatched || R->mismatched || nd != (size_t)ranks) {
            fprintf(stderr, "unexpected: %zu unmatched, %zu mismatched, %zu devices\n", R->unmatched, R->mismatched, nd);
            return 1;
        }
        free(D);
        CollReport_free(R);
    }
    double o0 = now_s();
    OverlapFilter of = OverlapFilter_all();
    OverlapReport *O = !split ? NULL : Overlap_compute(t, &of);
    fprintf(stderr, "Overlap_compute (for comparison): %.3f s\n", now_s() - o0);
    OverlapReport_free(O);
    printf("| %d x %ld events (%.0f%% comm) | %zu | %zu | %zu | %.3f s (CPU %.3f s) | %.3f s |\n", ranks, per,
           frac * 100, t->n_events, inst, members, best_a, cpu_a, best_s);
    Trace_free(t);
    return 0;
}
