/* The overlap band (one line per GPU device) and the legend. A column's state is
 * its dominant non-idle state unless it is at least 7/8 idle; with colour the glyph
 * height shows how busy the slice is, without colour each state has its own glyph. */
#ifndef OVTRACE_TUI_BAND_H
#define OVTRACE_TUI_BAND_H
#include <stdint.h>

#include "ovtrace/analysis/overlap.h"
#include "grid.h"
#include "theme.h"

/* State shown for a column from its ns per state. */
BandState Band_pick(const int64_t ns[BAND__COUNT]);
/* Draws w columns from ns[c * BAND__COUNT + state]. */
void Band_renderRow(Grid *g, int x, int y, int w, const int64_t *ns, Caps caps, const Glyphs *gl);
/* The always-visible legend line; wait_glyph (0: none) names the wait part of matched
 * collectives (a feature's legend operation), after the band states, within 80 columns.
 * Then the event classes' colours, or note instead (a feature's legend_note: what its
 * lines show; NULL: none) where it fits whole. */
void Band_legend(Grid *g, Rect r, Caps caps, const Glyphs *gl, uint32_t wait_glyph, const char *note);

#endif
