/* Extra sections of `ovtrace stats`: counter series and serving figures. */
#ifndef OVTRACE_CLI_STATS_EXTRA_H
#define OVTRACE_CLI_STATS_EXTRA_H
#include <stdio.h>

#include "ovtrace/analysis/counters.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/analysis/serve_stats.h"

/* Text: one line per counter series with samples, min, max, mean in the selection. */
void StatsCounters_print(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f);
/* JSON: ',\n  "counters": [...]' (a member of the top-level object). */
void StatsCounters_json(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f);

/* Their parts, one series at a time (an MPI run's processes render their own series):
 * whether a series is selected, the text section's heading, one text line, one JSON
 * object. */
bool StatsCounters_selected(const Trace *t, const CounterSeries *s, const OverlapFilter *f);
void StatsCounters_head(FILE *out);
void StatsCounters_line(FILE *out, const Trace *t, const CounterSeries *s, const OverlapFilter *f);
void StatsCounters_entry(FILE *out, const Trace *t, const CounterSeries *s, const OverlapFilter *f);

/* Serving figures (throughput, batch, latency p50/p99, memory) when the trace has
 * serve::step ranges; text section, and ',\n  "serving": {...}|null' in JSON. */
void StatsServe_print(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f);
void StatsServe_json(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f);

/* The same from figures computed elsewhere (JSON: NULL writes null). */
void StatsServe_printStats(FILE *out, const ServeStats *s);
void StatsServe_jsonStats(FILE *out, const ServeStats *s);

#endif
