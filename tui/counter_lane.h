/* Counter lanes: each counter series (ovtrace/analysis/counters.h) drawn as its own
 * line, a sparkline/area chart scaled to the series' min/max in view; in a values
 * column the layout reserves at the right of the plot (headed "at cursor" and "view
 * min..max"), the value in effect at the time cursor and the min..max of the samples in
 * view, as `stats --range` gives them over the view; and their min/max/mean in the
 * range panel. The column, level and values-column computations are pure and tested
 * without curses. */
#ifndef OVTRACE_TUI_COUNTER_LANE_H
#define OVTRACE_TUI_COUNTER_LANE_H
#include <stdbool.h>
#include <stddef.h>
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
/* The values column: its two fields' widths and the columns it takes (w). */
typedef struct {
    int at, range, w; /* range 0: the value at the cursor alone */
} CounterColumns;
/* The timeline keeps at least this many columns beside the range field. */
#define COUNTER_PLOT_FOR_RANGE 80
/* For values vwid columns wide at most and a plot of plot_w columns before the
 * reservation: the value at the cursor, and the min..max in view where the plot keeps
 * COUNTER_PLOT_FOR_RANGE columns beside it. */
CounterColumns CounterLane_valueColumns(int vwid, int plot_w);
/* A line's values text (c->w columns): at right-aligned, then "lo..hi" ("-" when lo or
 * hi is NULL: no sample in view) where c has the range field. */
void CounterLane_valueText(const CounterColumns *c, const char *at, const char *lo, const char *hi, char *buf,
                           size_t n);
/* The column's header: "at cursor" and "view min..max" over the fields. */
void CounterLane_valueHead(const CounterColumns *c, char *buf, size_t n);
/* The widest formatted sample value of the set's series (at least 1). */
int CounterLane_valueWidth(const Trace *t, const CounterSet *cs);
/* The model's series (the lines, the range panel's figures). */
const CounterSet *CounterLane_set(const struct App *a);
/* "counter  min  max  mean  samples" for [a, b) into r; returns the lines used. */
int CounterPanel_render(Grid *g, Rect r, const Trace *t, const CounterSet *cs, int64_t a, int64_t b, bool ascii);

#endif
