/* Collectives in the viewer: the wait part of each matched comm kernel drawn apart from
 * its transfer part, the matched instances of the selected comm kernel on all ranks
 * (details panel), wait vs transfer per device for the marked range (range panel), and
 * the x / X keys (the same collective on the rank that arrived last / the next rank).
 * The matching (Coll_analyze) runs once per model holding two ranks or more, on a thread
 * of its own: from App_newMatching (beside the view index) or else the first frame on. */
#ifndef OVTRACE_TUI_COLLVIEW_H
#define OVTRACE_TUI_COLLVIEW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/analysis/collectives.h"

struct App;

/* Coll_analyze's options (CollView_setOptions, ovtrace/tui/viewer.h). */
const CollOptions *CollView_options(const struct App *a);
/* The matched collectives of the model (NULL: not matched yet, or fewer than two ranks);
 * waits for the matching thread when it still runs. */
const CollReport *CollView_report(const struct App *a);
/* Whether the model has (or is being given) a report: CollView_report will not be NULL. */
bool CollView_matched(const struct App *a);
/* Wait vs transfer per device over the marked range (*n of them). */
const CollDeviceSplit *CollView_rangeSplit(const struct App *a, size_t *n);
/* Takes R as the model's matched collectives (matched by the lazy load's thread). */
void CollView_adopt(struct App *a, CollReport *R);
/* Lines the collective section of the details panel needs (0: the selection is not a
 * matched comm kernel), and of the range panel w columns wide (its notes wrap). */
int CollView_detailsLines(const struct App *a);
int CollView_rangeLines(const struct App *a, int w);

/* The wait glyph (Unicode ▚, ASCII '-'): not a glyph of the band states nor of event
 * fills, so the wait stays apart from the transfer (█ / '=') without colour too. */
uint32_t CollView_waitGlyph(bool unicode);

#endif
