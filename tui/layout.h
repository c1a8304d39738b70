/* Screen layout: a pure function of the terminal size and what is shown.
 *
 *   title                                   (1 line)
 *   ruler labels / ticks                    (2 lines)
 *   lane labels | plot        [| panel]     (rest)
 *   [panel, when the screen is narrow]
 *   legend                                  (1 line)
 *   status bar                              (1 line)
 */
#ifndef OVTRACE_TUI_LAYOUT_H
#define OVTRACE_TUI_LAYOUT_H
#include <stdbool.h>

#include "grid.h"

#define LAYOUT_MIN_W 80
#define LAYOUT_MIN_H 24

typedef struct {
    bool too_small;
    Rect title, ruler, labels, plot, panel, legend, status;
    /* columns at the right of the plot, for every line, that a feature reserved
     * (Layout_reserveRight; w 0: none), from the ruler's rows (a header) to the plot's
     * last: the ruler and the plot end before them */
    Rect values;
    bool panel_right; /* panel at the right (wide screens) or at the bottom */
} Layout;

Layout Layout_compute(int w, int h, bool panel_visible);
/* The same for a panel whose content needs panel_need columns (0: any): on wide
 * screens the side panel grows to fit it, up to half the width; content wider than
 * that gets the full-width panel at the bottom instead. */
Layout Layout_computeFor(int w, int h, bool panel_visible, int panel_need);
/* Takes cols columns (and a separator) off the plot's and the ruler's right end for
 * L->values, the same for every line so that the time axis stays one; nothing when the
 * plot would keep fewer than LAYOUT_MIN_PLOT columns. Returns whether it did. */
#define LAYOUT_MIN_PLOT 32
bool Layout_reserveRight(Layout *L, int cols);

#endif
