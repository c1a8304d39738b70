/* Extra sections of `ovtrace stats`: counter series and serving figures. */
#ifndef OVTRACE_CLI_STATS_EXTRA_H
#define OVTRACE_CLI_STATS_EXTRA_H
#include <stdio.h>

#include "ovtrace/analysis/collectives.h"
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

/* stats --summary OUT: per rank its devices' figures (R, grouped by rank) and bands
 * (bands: SUMMARY_COLUMNS x BAND__COUNT per device of R, over [t0, t1)), its matched
 * comm kernels (C, names through t) and its trace's path (t's sources). False after
 * saying why. */
bool StatsSummary_write(const char *out, const Trace *t, const OverlapReport *R, const int64_t *bands,
                        const CollReport *C, int64_t t0, int64_t t1);

#endif
