/* The collectives section of `ovtrace stats`: wait vs transfer per device,
 * stragglers, skew per collective, clock sanity. Additive to the overlap table/JSON. */
#ifndef OVTRACE_STATS_COLL_H
#define OVTRACE_STATS_COLL_H
#include <stdio.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"

/* co: Coll_analyze's options (NULL: defaults). */
void stats_coll_table(FILE *out, const Trace *t, const OverlapFilter *f, const CollOptions *co);
/* Writes `,\n  "collectives": {...}` (the caller closes the top-level object). */
void stats_coll_json(FILE *out, const Trace *t, const OverlapFilter *f, const CollOptions *co);

#endif
