/* The collectives section of `ovtrace stats`: wait vs transfer per device,
 * stragglers, skew per collective, clock sanity. Additive to the overlap table/JSON. */
#ifndef OVTRACE_STATS_COLL_H
#define OVTRACE_STATS_COLL_H
#include <stdbool.h>
#include <stdio.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"

/* co: Coll_analyze's options (NULL: defaults). */
void stats_coll_table(FILE *out, const Trace *t, const OverlapFilter *f, const CollOptions *co);
/* Writes `,\n  "collectives": {...}` (the caller closes the top-level object). */
void stats_coll_json(FILE *out, const Trace *t, const OverlapFilter *f, const CollOptions *co);

/* Whether the section needs Coll_deviceSplit: with two ranks or more, and always in JSON
 * (it lists the devices). */
bool stats_coll_needsSplit(const CollReport *R, bool json);
/* The same sections from a report and device split computed elsewhere (an MPI run's
 * rank 0); neither is freed. Names resolve through t's strings. */
void stats_coll_tableWith(FILE *out, const Trace *t, const OverlapFilter *f, CollReport *R, CollDeviceSplit *dev,
                          size_t n_dev);
void stats_coll_jsonWith(FILE *out, const Trace *t, const OverlapFilter *f, CollReport *R, CollDeviceSplit *dev,
                         size_t n_dev);

#endif
