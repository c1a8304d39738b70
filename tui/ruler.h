/* Time ruler: tick spacing of 1/2/5 x 10^k ns, labels in the unit that suits the
 * spacing (ns, us, ms, s), the cursor and range marks. Times are shown relative to the
 * start of the trace, like `ovtrace stats --range`. */
#ifndef OVTRACE_TUI_RULER_H
#define OVTRACE_TUI_RULER_H
#include <stddef.h>
#include <stdint.h>

#include "grid.h"
#include "theme.h"
#include "viewstate.h"

/* Smallest 1/2/5 x 10^k ns step whose ticks are at least min_gap columns apart. */
int64_t Ruler_step(int64_t span, int cols, int min_gap);
/* Unit for values that must resolve `resolution` ns: its size in ns, name, and the
 * decimals needed. */
int Ruler_unit(int64_t resolution, int64_t *unit_ns, const char **name);
/* rel_ns formatted to the given resolution, e.g. "12.5ms", "812ns", "1.204s". */
int Ruler_format(char *buf, size_t n, int64_t rel_ns, int64_t resolution);
/* Draws the two ruler lines in r (the plot's columns) and the cursor time in left. */
void Ruler_render(Grid *g, Rect r, Rect left, const ViewState *v, const Glyphs *gl);

#endif
