/* Rank overview: with many ranks, one line per GPU device: its overlap band with the
 * columns where the device sits in exposed wait marked, and in the label the device's
 * exposed comm (whole trace) and how often its rank arrived last. O toggles it (on by
 * default from 8 ranks); Enter on a rank leaves it with that rank expanded. */
#ifndef OVTRACE_TUI_OVERVIEW_H
#define OVTRACE_TUI_OVERVIEW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/model/trace.h"
#include "lines.h"

struct App;

#define OVERVIEW_MIN_RANKS 8
/* What a rank line's label ("r7 1.6ms L5") holds, for the legend and the ? screen. */
#define OVERVIEW_LABEL_KEY "rN T Lk: rank N, exposed comm T (whole trace), arrived last k times"

/* Number of distinct ranks with GPU groups. */
size_t Overview_ranks(const Trace *t);
/* The overview's lines: one LINE_BAND per GPU group. */
void Overview_lines(Lines *L, const Trace *t);
/* Wait per column over [t0, t1): out[c] = ns of the column in the wait part of a matched
 * comm kernel of the group (sum over kernels, clipped to the column); for a run
 * summary, the waits it stores (GroupSummary). */
void Overview_waitColumns(const Trace *t, const CollReport *R, uint32_t group, int64_t t0, int64_t t1, int ncols,
                          int64_t *out);
/* The same for every group g with slot[g] != UINT32_MAX (slot: n_groups entries),
 * into out[slot[g] * ncols ...], n_slots rows: one pass over the members in their own
 * order, sequential in memory, where a walk up one group's events reads them far apart
 * (the whole-trace view: every member). */
void Overview_waitColumnsAll(const Trace *t, const CollReport *R, const uint32_t *slot, size_t n_slots, int64_t t0,
                             int64_t t1, int ncols, int64_t *out);
/* The overview is shown. */
bool Overview_on(const struct App *a);
/* A GPU group's exposed comm over the whole trace (comm not under compute, as
 * Coll_deviceSplit and Overlap_compute count it), from the view index's band sums;
 * -1 when the group has no GPU work. */
int64_t Overview_exposed(const struct App *a, uint32_t group);

#endif
