/* Counter lanes: each counter series (ovtrace/analysis/counters.h) drawn as its own
 * line, a sparkline/area chart scaled to the series' min/max in view, with the value
 * under the time cursor; and their min/max/mean in the range panel. The column and
 * level computations are pure and tested without curses. */
#ifndef OVTRACE_TUI_COUNTER_LANE_H
#define OVTRACE_TUI_COUNTER_LANE_H
#include <stdbool.h>
#include <stdint.h>

#include "ovtrace/analysis/counters.h"
#include "grid.h"
#include "lines.h"

struct App;

/* Column c of W over [t0, t1): the largest value the series takes in it (the value in
 * effect at the column's start and every sample inside); has[c] is false before the
 * first sample. */
void CounterLane_columns(const Trace *t, const CounterSeries *s, int64_t t0, int64_t t1, int W, double *val, bool *has);
/* Levels 1..8 scaled to the min/max of the columns with data (0: no data); a flat series
 * is level 1 at zero, else 8. Returns false when no column has data. */
bool CounterLane_levels(const double *val, const bool *has, int W, uint8_t *lvl, double *min, double *max);
/* Level k (0..8) as a glyph: ' ' then ▁▂▃▄▅▆▇█, or ' ' then "_.-:=+*#" in ASCII. */
uint32_t CounterLane_glyph(int k, bool unicode);
/* Short label of a series: "mem allocated" for a [memory] series shown under its GPU. */
void CounterLane_label(const Trace *t, const CounterSeries *s, char *buf, size_t n);
/* After Lines_buildFiltered: the rows (and lanes) that hold only counter samples are dropped and
 * each expanded group gets one LINE_COUNTER line per series shown in it. */
void CounterLane_addLines(Lines *L, const Trace *t, const CounterSet *cs, const bool *collapsed);
/* The model's series (the lines, the range panel's figures). */
const CounterSet *CounterLane_set(const struct App *a);
/* "counter  min  max  mean  samples" for [a, b) into r; returns the lines used. */
int CounterPanel_render(Grid *g, Rect r, const Trace *t, const CounterSet *cs, int64_t a, int64_t b, bool ascii);

#endif
