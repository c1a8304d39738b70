/* The side panel (panel.c): details of the selection or statistics of the marked range. */
#ifndef OVTRACE_TUI_PANEL_H
#define OVTRACE_TUI_PANEL_H
#include "ovtrace/analysis/overlap.h"

struct App;

/* The figures of the marked range (Overlap_compute, as `ovtrace stats --range`); NULL
 * before the first frame with a range. */
const OverlapReport *Panel_rangeReport(const struct App *a);

#endif
