/* Pure time-window arithmetic of the view. */
#include "viewstate.h"

#include <math.h>

void View_init(ViewState *v, int64_t min_t, int64_t max_t) {
    *v = (ViewState){0};
    v->cols = 80;
    v->rows = 10;
    v->sel = SIZE_MAX;
    v->mark0 = v->mark1 = VIEW_NO_MARK;
    v->panel = PANEL_DETAILS;
    v->min_t = min_t;
    v->max_t = max_t > min_t ? max_t : min_t + 1;
    View_fitAll(v);
    v->cursor = v->t0;
}

int64_t View_span(const ViewState *v) { return v->t1 - v->t0; }

/* The narrowest window: one ns per column, at least 10 ns. */
static int64_t View_minSpan(const ViewState *v) { return v->cols > 10 ? v->cols : 10; }

static int64_t extent(const ViewState *v) { return v->max_t - v->min_t; }

/* Sets the window [t0, t0 + span), t0 computed wide and moved so that both ends fit
 * int64 (the trace's extent may be up to 2^63 - 2 ns: timeunits.h); clamp_window then
 * brings it back to the extent. */
static void place(ViewState *v, __int128 t0, int64_t span) {
    if (t0 < INT64_MIN) t0 = INT64_MIN;
    if (t0 > (__int128)INT64_MAX - span) t0 = (__int128)INT64_MAX - span;
    v->t0 = (int64_t)t0;
    v->t1 = v->t0 + span;
}

static void clamp_cursor(ViewState *v) {
    if (v->cursor < v->t0) v->cursor = v->t0;
    if (v->cursor >= v->t1) v->cursor = v->t1 - 1;
}

/* Keeps the window inside the extent when it fits, centred when it does not. */
static void clamp_window(ViewState *v) {
    int64_t span = View_span(v);
    if (span >= extent(v)) {
        int64_t mid = v->min_t + extent(v) / 2;
        v->t0 = mid - span / 2;
        v->t1 = v->t0 + span;
        return;
    }
    if (v->t0 < v->min_t) {
        v->t0 = v->min_t;
        v->t1 = v->t0 + span;
    }
    if (v->t1 > v->max_t) {
        v->t1 = v->max_t;
        v->t0 = v->t1 - span;
    }
}

void View_setExtent(ViewState *v, int64_t min_t, int64_t max_t) {
    /* a window showing the whole old extent shows the whole new one (the lazy overview's
     * swap adds the CPU events' span; a frozen live buffer grows) */
    bool whole = v->t0 <= v->min_t && v->t1 >= v->max_t;
    v->min_t = min_t;
    v->max_t = max_t > min_t ? max_t : min_t + 1;
    if (whole && !v->follow) {
        int64_t off = v->cursor - v->t0;
        View_fitAll(v);
        v->cursor = v->t0 + off;
    } else if (v->follow) {
        int64_t span = View_span(v);
        int64_t off = v->cursor - v->t0;
        v->t1 = v->max_t;
        v->t0 = v->t1 - span;
        v->cursor = v->t0 + off;
    }
    clamp_window(v);
    clamp_cursor(v);
}

void View_zoom(ViewState *v, double factor, int64_t anchor) {
    int64_t span = View_span(v);
    double ns = (double)span / factor;
    /* out to 1.25 x the extent, or as far as int64 allows */
    int64_t ext = extent(v), room = INT64_MAX - ext;
    int64_t max_span = ext + (ext / 4 + 1 < room ? ext / 4 + 1 : room);
    int64_t nspan = ns < (double)View_minSpan(v) ? View_minSpan(v) : ns >= (double)max_span ? max_span : (int64_t)ns;
    if (anchor < v->t0 || anchor > v->t1) anchor = v->t0 + span / 2;
    double rel = span > 0 ? (double)(anchor - v->t0) / (double)span : 0.5;
    double off = rel * (double)nspan;
    place(v, (__int128)anchor - (off < (double)nspan ? llround(off) : nspan), nspan);
    clamp_window(v);
    clamp_cursor(v);
}

void View_pan(ViewState *v, int64_t delta) {
    int64_t t0 = v->t0;
    place(v, (__int128)v->t0 + delta, View_span(v));
    clamp_window(v);
    __int128 cur = (__int128)v->cursor + ((__int128)v->t0 - t0);
    v->cursor = cur < v->t0 ? v->t0 : cur >= v->t1 ? v->t1 - 1 : (int64_t)cur;
    clamp_cursor(v);
}

void View_fitAll(ViewState *v) {
    v->t0 = v->min_t;
    v->t1 = v->max_t;
    clamp_cursor(v);
}

void View_fit(ViewState *v, int64_t a, int64_t b) {
    if (b <= a) b = a + 1;
    int64_t span = b - a;
    int64_t margin = span / 20;
    if (margin > (INT64_MAX - span) / 2) margin = (INT64_MAX - span) / 2; /* a span near 2^63 */
    int64_t nspan = span + 2 * margin;
    if (nspan < View_minSpan(v)) {
        margin += (View_minSpan(v) - nspan) / 2;
        nspan = View_minSpan(v);
    }
    v->t0 = a - margin;
    v->t1 = v->t0 + nspan;
    clamp_window(v);
    clamp_cursor(v);
}

void View_show(ViewState *v, int64_t ts) {
    if (ts >= v->t0 && ts < v->t1) return;
    int64_t span = View_span(v);
    place(v, (__int128)ts - span / 4, span);
    clamp_window(v);
    clamp_cursor(v);
}

void View_home(ViewState *v) { View_pan(v, v->min_t - v->t0); }

void View_end(ViewState *v) { View_pan(v, v->max_t - v->t1); }

double View_zoomLevel(const ViewState *v) {
    int64_t span = View_span(v);
    return span > 0 ? (double)extent(v) / (double)span : 1.0;
}

void View_scrollToLine(ViewState *v, size_t n_lines) {
    if (n_lines == 0) {
        v->line = v->top = v->pinned = 0;
        return;
    }
    if (v->line >= n_lines) v->line = n_lines - 1;
    size_t p = v->pinned < n_lines ? v->pinned : n_lines;
    size_t rows = v->rows > 0 ? (size_t)v->rows : 1;
    rows = rows > p ? rows - p : 1; /* the rows that scroll */
    if (v->top < p) v->top = p;
    if (v->line >= p) {
        if (v->line < v->top) v->top = v->line;
        if (v->line >= v->top + rows) v->top = v->line - rows + 1;
    }
    if (v->top + rows > n_lines) v->top = n_lines - p > rows ? n_lines - rows : p;
}

bool View_rangeSet(const ViewState *v) { return v->mark0 != VIEW_NO_MARK && v->mark1 != VIEW_NO_MARK; }

void View_range(const ViewState *v, int64_t *a, int64_t *b) {
    *a = v->mark0 < v->mark1 ? v->mark0 : v->mark1;
    *b = v->mark0 < v->mark1 ? v->mark1 : v->mark0;
}

void View_moveCursor(ViewState *v, int64_t delta) {
    v->cursor += delta;
    clamp_cursor(v);
}

int View_clampRange(int64_t min_t, int64_t max_t, int64_t *a, int64_t *b) {
    if (*b <= *a) *b = *a + 1;
    if (*a >= max_t || *b <= min_t) return -1;
    int r = 0;
    if (*a < min_t) *a = min_t, r = 1;
    if (*b > max_t) *b = max_t, r = 1;
    return r;
}
