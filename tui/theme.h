/* Glyph sets: Unicode (eighth blocks, box drawing) or the ASCII fallback, plus the
 * characters that tell band states and event classes apart without colour. */
#ifndef OVTRACE_TUI_THEME_H
#define OVTRACE_TUI_THEME_H
#include <stdbool.h>
#include <stdint.h>

#include "grid.h"

typedef struct {
    bool unicode;
    uint32_t hline, vline, full, cursor_mark, tick, tick_major;
    uint32_t left[9];                             /* left[k]: left k/8 of the cell filled (0 blank, 8 full) */
    uint32_t lower[9];                            /* lower[k]: bottom k/8 filled (how full a dense cell is) */
    uint32_t ev_start_part, ev_end_part, ev_tiny; /* ASCII: '[' ']' '|' */
    uint32_t band_color[BAND__COUNT];             /* band glyph when the state has a colour */
    uint32_t band_mono[BAND__COUNT];              /* band glyph without colour: one per state */
    uint32_t expanded, collapsed, legend_swatch, ellipsis;
} Glyphs;

const Glyphs *Glyphs_get(bool unicode);

/* Band state names for the legend and help. */
const char *BandState_label(BandState s);

#endif
