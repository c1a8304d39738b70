/* Collectives in the viewer: the wait part of each matched comm kernel drawn
 * apart from its transfer part, the matched instances of the selected comm kernel on all
 * ranks (details panel), wait vs transfer per device for the marked range (range panel),
 * and the x / X keys (the same collective on the rank that arrived last / the next rank).
 * The matching (Coll_analyze) runs once per model, on the first frame, when it holds two
 * ranks or more. */
#ifndef OVTRACE_TUI_COLLVIEW_H
#define OVTRACE_TUI_COLLVIEW_H
#include <stdint.h>

#include "ovtrace/tui/grid.h"
#include "ovtrace/tui/keys.h"
#include "ovtrace/tui/tindex.h"

struct App;

/* Brings the report (and the range split) up to date; called from App_sync. */
void CollView_sync(struct App *a);
/* Frees what the app holds (model replaced or app freed). */
void CollView_reset(struct App *a);
/* Marks the wait parts in one timeline row (after names, before the selection). In a
 * cell that a single comm kernel fills, the part before the last rank arrived is drawn
 * with the wait glyph in the dim role: ▚ (Unicode) or '-' (ASCII), so it stays apart
 * from the transfer (█ / '=') and from the band glyphs without colour too. Cells holding a name are left. */
void CollView_markRow(struct App *a, Grid *g, int y, Rect plot, uint32_t row, const ColumnInfo *cols);
/* Lines the collective section of the details panel needs (0: the selection is not a
 * matched comm kernel) and its rendering into r. */
int CollView_detailsLines(const struct App *a);
void CollView_renderDetails(struct App *a, Grid *g, Rect r);
/* The same for the range panel: wait vs transfer per device over the marked range. */
int CollView_rangeLines(const struct App *a);
void CollView_renderRange(struct App *a, Grid *g, Rect r);
/* x: the selected comm kernel's instance on the rank that arrived last; X: on the next
 * rank (cycles). */
unsigned CollView_keyJump(struct App *a, const TuiKey *k, int arg);

/* The wait glyph (Unicode ▚, ASCII '-'). */
uint32_t CollView_waitGlyph(bool unicode);
/* The wait glyph when the model has matched collectives with a wait (the legend names
 * it then), else 0. */
uint32_t CollView_legendGlyph(const struct App *a);

#endif
