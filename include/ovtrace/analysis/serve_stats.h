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

#endif
