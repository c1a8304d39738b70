/* What the user is looking at: the visible time window, the time cursor, the
 * selected line and event, collapsed groups, range marks and panel modes. Time
 * operations (zoom, pan, fit) are pure functions of this struct. */
#ifndef OVTRACE_TUI_VIEWSTATE_H
#define OVTRACE_TUI_VIEWSTATE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIEW_NO_MARK INT64_MIN

typedef enum { PANEL_DETAILS, PANEL_RANGE } PanelMode;

typedef struct {
    int64_t t0, t1;       /* visible [t0, t1), absolute ns */
    int64_t cursor;       /* time cursor, absolute ns */
    int64_t min_t, max_t; /* model extent */
    int cols;             /* plot columns (set by the layout; deepest zoom = 1 ns per column) */
    int rows;             /* timeline lines shown (set by the layout) */
    size_t line, top;     /* selected line, first line shown below the pinned ones */
    size_t pinned;        /* lines [0, pinned) stay at the top of the timeline (pin.c) */
    size_t sel;           /* selected event or SIZE_MAX */
    int64_t mark0, mark1; /* range marks (VIEW_NO_MARK) */
    PanelMode panel;
    bool panel_hidden;
    bool follow, frozen; /* live mode: keep the newest data in view / stop updating */
    int panel_scroll;    /* first content line of the details panel ({ and }) */
} ViewState;

void View_init(ViewState *v, int64_t min_t, int64_t max_t);
/* The model changed (live mode, the lazy overview's full load): new extent; in follow
 * mode the window slides to the end, a window that showed the whole extent still does. */
void View_setExtent(ViewState *v, int64_t min_t, int64_t max_t);
int64_t View_span(const ViewState *v);
/* factor > 1 zooms in. anchor keeps its screen position. */
void View_zoom(ViewState *v, double factor, int64_t anchor);
/* Moves the window (and the cursor with it) by delta ns, kept within the extent. */
void View_pan(ViewState *v, int64_t delta);
void View_fitAll(ViewState *v);
/* Shows [a, b) with a small margin. */
void View_fit(ViewState *v, int64_t a, int64_t b);
/* Scrolls (keeping the zoom) so that ts is visible; no change if it already is. */
void View_show(ViewState *v, int64_t ts);
void View_home(ViewState *v);
void View_end(ViewState *v);
/* Zoom relative to fit-all (1.0 = everything visible). */
double View_zoomLevel(const ViewState *v);
/* Keeps the selected line on screen: a pinned one always is; another inside
 * [top, top + rows - pinned), top never among the pinned lines. */
void View_scrollToLine(ViewState *v, size_t n_lines);
bool View_rangeSet(const ViewState *v);
/* Moves the cursor by delta ns within the visible window (the window stays). */
void View_moveCursor(ViewState *v, int64_t delta);
/* Fits a requested range [*a, *b) to the extent [min_t, max_t): 0 when inside, 1 when
 * clamped to the extent, -1 when it lies wholly outside (nothing to show). */
int View_clampRange(int64_t min_t, int64_t max_t, int64_t *a, int64_t *b);
/* Ordered marks: [*a, *b). */
void View_range(const ViewState *v, int64_t *a, int64_t *b);

#endif
