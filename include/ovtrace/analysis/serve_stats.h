/* Serving figures of a trace, computed from what the serving simulator and
 * the CUDA workload (--mode serve) write: "serve::step" ranges, "serve::request" ranges
 * (arrival to last token) and the counter series "[serve] GPU N batch size", "... queue
 * length", "... memory in use". Nothing is taken from elsewhere: a trace that lacks
 * them has no serving figures. */
#ifndef OVTRACE_SERVE_STATS_H
#define OVTRACE_SERVE_STATS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/analysis/counters.h"
#include "ovtrace/model/trace.h"

typedef struct {
    size_t steps;         /* serve::step ranges starting in [t0, t1) */
    int64_t window_ns;    /* first such step's start to the last one's end */
    double tokens;        /* sum of the batch-size samples of those steps (a token per request per step) */
    double throughput;    /* tokens per second over the window */
    double mean_batch, max_batch, mean_queue;
    size_t requests;      /* serve::request ranges ending in [t0, t1] */
    int64_t latency_p50_ns, latency_p99_ns, latency_max_ns; /* nearest rank */
    double latency_mean_ns;
    double memory_max, memory_mean; /* bytes, over the memory-in-use samples */
} ServeStats;

/* False when the range holds no serve::step range. */
bool ServeStats_compute(const Trace *t, const CounterSet *cs, int64_t t0, int64_t t1, ServeStats *out);

/* The figures' inputs, gathered in parts and finished once (ServeStats_compute; an MPI
 * run sums its processes' parts): steps and their window, request latencies, and the
 * counter samples fed in series order (floating-point sums depend on it). */
typedef struct {
    size_t steps;
    int64_t w0, w1;
    int64_t *lat;
    size_t n_lat, cap_lat;
    double tokens, batch_n, max_batch, queue_sum, queue_n, mem_sum, mem_n, memory_max;
} ServeParts;

static inline ServeParts ServeParts_init(void) { return (ServeParts){.w0 = INT64_MAX, .w1 = INT64_MIN}; }
/* Adds t's serve::step ranges starting in [t0, t1) and serve::request ranges ending in [t0, t1]. */
void ServeParts_events(ServeParts *p, const Trace *t, int64_t t0, int64_t t1);
/* 0 batch size, 1 queue length, 2 memory in use for a "[serve] ..." series name, else -1. */
int ServeParts_seriesKind(const char *name);
void ServeParts_sample(ServeParts *p, int kind, double v);
/* False when no step was added (the parts' latencies are sorted in place). */
bool ServeParts_finish(ServeParts *p, ServeStats *out);
void ServeParts_free(ServeParts *p);

#endif
