/* The launch partner (c) and the selected event's flows drawn on the timeline. */
#ifndef OVTRACE_TUI_PARTNER_H
#define OVTRACE_TUI_PARTNER_H
#include <stdbool.h>

#include "grid.h"

/* An arrow from (x0, y0) to the cell before (x1, y1) on the way there: along column
 * x0, then a corner and along the row next to y1 to a head over x1 (▼ or ▲; ASCII
 * v ^), clipped to plot. On next rows, only the head (on y0's row, over x1); nothing
 * on one row or on next rows in one column. */
void Flow_drawArrow(Grid *g, Rect plot, int x0, int y0, int x1, int y1, bool unicode);

#endif
