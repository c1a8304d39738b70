/* The timeline body: group headers (with the device's overlap ratio for the visible
 * range), overlap bands and event rows drawn at sub-cell resolution. */
#ifndef OVTRACE_TUI_LANES_RENDER_H
#define OVTRACE_TUI_LANES_RENDER_H
#include <stdbool.h>
#include <stddef.h>

#include "ovtrace/model/trace.h"
#include "grid.h"

struct App;

/* Draws lines [v.top, v.top + plot.h) of a->lines into labels + plot. */
void Lanes_render(struct App *a, Grid *g, Rect labels, Rect plot);
/* A line's label in the labels column (selected: marked with '>', bold). */
void Lanes_label(const struct App *a, Grid *g, Rect labels, int y, const char *text, bool selected);
/* Draws group's overlap band into row y of plot; returns the per-column state sums
 * (BAND__COUNT per column, valid until the next frame). */
const int64_t *Lanes_band(struct App *a, Grid *g, uint32_t group, int y, Rect plot);
/* Display form of a (demangled) kernel name: no leading "void ", no parameter list,
 * template arguments folded to <…>. */
void Lanes_shortName(const char *name, char *out, size_t n, bool unicode);
/* "rank R " of a source when several are open, "rank R FILE " when another input
 * claims the same rank, "" for a single input. */
void Lanes_rankLabel(const Trace *t, uint32_t source, char *buf, size_t n);

#endif
