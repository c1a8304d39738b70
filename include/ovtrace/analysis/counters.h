/* Counter series: the samples of "ph":"C" events and of Kineto's "[memory]" instants,
 * grouped into series by (lane, name) and ordered by time, for counter lanes in the
 * viewer, the range panel, stats and export. Derived from a finished Trace; no limit on
 * the number of series. */
#ifndef OVTRACE_COUNTERS_H
#define OVTRACE_COUNTERS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

typedef struct {
    uint32_t name;  /* StrTab id of the series ("ctr.key", "[memory] GPU 0 Total Allocated") */
    uint32_t lane;  /* the model lane holding its samples */
    uint32_t group; /* where it is shown: the GPU group of its device for "[memory] GPU N"
                     * and "[serve] GPU N" series, else its lane's group */
    int64_t device; /* those series: N; else -1 */
    bool bytes;     /* values are bytes: a [memory] series, or one named "... memory in use" */
    size_t n;
    const uint32_t *ev; /* n event indices, by (ts, index) */
} CounterSeries;

typedef struct CounterSet {
    CounterSeries *s;
    size_t n;
    uint32_t *pool;  /* all series' event indices */
    bool *lane_only; /* per lane: every event of it is a counter sample */
    bool *row_only;  /* per row: every event of it is a counter sample (drawn as counter lanes instead) */
} CounterSet;

/* Never NULL (exits on out of memory); an empty set when the trace has no counters. */
CounterSet *CounterSet_build(const Trace *t);
void CounterSet_free(CounterSet *cs);

static inline double Counter_value(const Trace *t, const CounterSeries *s, size_t i) {
    return t->events[s->ev[i]].value;
}
/* First sample with ts >= ts (s->n if none). */
size_t Counter_lowerBound(const Trace *t, const CounterSeries *s, int64_t ts);
/* The value in effect at ts: the last sample at or before ts. False before the first. */
bool Counter_valueAt(const Trace *t, const CounterSeries *s, int64_t ts, double *v);

typedef struct {
    size_t n; /* samples in [t0, t1) */
    double min, max, mean, last; /* over those samples (mean: arithmetic) */
} CounterStats;
/* Statistics of the samples in [t0, t1). False (and n = 0) when none falls there. */
bool Counter_stats(const Trace *t, const CounterSeries *s, int64_t t0, int64_t t1, CounterStats *out);
/* A value for people: bytes as "1.50 MiB", other values with %g. */
void Counter_format(double v, bool bytes, char *buf, size_t n);

#endif
