/* Rank overview: with many ranks, one line per GPU device: its overlap band
 * with the columns where the device sits in exposed wait marked, and in the label the
 * device's exposed comm (whole trace) and how often its rank arrived last. O toggles it
 * (on by default from 8 ranks); Enter on a rank leaves it with that rank expanded. */
#ifndef OVTRACE_TUI_OVERVIEW_H
#define OVTRACE_TUI_OVERVIEW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"
#include "ovtrace/tui/grid.h"
#include "ovtrace/tui/keys.h"
#include "ovtrace/tui/lines.h"

struct App;
struct CollReport;

#define OVERVIEW_MIN_RANKS 8

/* Number of distinct ranks with GPU groups. */
size_t Overview_ranks(const Trace *t);
/* The overview's lines: one LINE_BAND per GPU group. */
void Overview_lines(Lines *L, const Trace *t);
/* Label of a rank line: "r7 exp 12.3ms L5" (exposed comm of the device over the whole
 * trace, times its rank arrived last). */
void Overview_label(struct App *a, uint32_t group, char *buf, size_t n);
/* Wait per column over [t0, t1): out[c] = ns of the column in the wait part of a matched
 * comm kernel of the group (sum over kernels, clipped to the column). */
void Overview_waitColumns(const Trace *t, const struct CollReport *R, uint32_t group, int64_t t0, int64_t t1,
                          int ncols, int64_t *out);
/* After the band of a rank line is drawn: columns where the device is mostly in exposed
 * comm and more than half of the column is wait get the wait glyph. */
void Overview_markBand(struct App *a, Grid *g, int x, int y, int w, uint32_t group, const int64_t *band);
/* O: toggle the overview; Enter (in the overview): that rank expanded, overview off. */
unsigned Overview_keyToggle(struct App *a, const TuiKey *k, int arg);
unsigned Overview_enter(struct App *a);

#endif
