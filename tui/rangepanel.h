/* Range statistics panel: per device compute, comm, overlap, exposed, idle... and the
 * top kernels for the marked range, from Overlap_compute (the numbers of
 * `ovtrace stats --range`, in the same units: us with thousands separators). */
#ifndef OVTRACE_TUI_RANGEPANEL_H
#define OVTRACE_TUI_RANGEPANEL_H
#include <stdint.h>

#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"
#include "grid.h"
#include "theme.h"

/* Columns the panel of [a, b) needs: the device table and the equivalent command, whole
 * (the layout widens the side panel to them, or puts the panel at the bottom). */
int RangePanel_width(const Trace *t, const OverlapReport *R, int64_t a, int64_t b);
void RangePanel_render(Grid *g, Rect r, const Trace *t, const OverlapReport *R, int64_t a, int64_t b, const Glyphs *gl);

#endif
