/* The engine's navigation keys: time (pan, zoom, fit, cursor), lanes (move, groups,
 * fold, clutter), events on a lane and the mouse. Handlers change the view state
 * through the App helpers and return what to redraw. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "ovtrace/base/alloc.h"
#include "app.h"
#include "feature.h"

/* ---- time ---- */

static unsigned k_pan(App *a, const TuiKey *k, int arg) {
    (void)k;
    int64_t t0 = a->v.t0, delta = (int64_t)((__int128)View_span(&a->v) * arg / 16);
    View_pan(&a->v, delta);
    /* the window cannot move (everything visible, or at an end): move the cursor alone */
    if (a->v.t0 == t0) View_moveCursor(&a->v, delta);
    a->v.follow = false;
    return REDRAW_VIEW;
}

/* < and >: the cursor alone, one plot column */
static unsigned k_cursor(App *a, const TuiKey *k, int arg) {
    (void)k;
    int64_t col = View_span(&a->v) / (a->v.cols > 0 ? a->v.cols : 1);
    View_moveCursor(&a->v, (col > 0 ? col : 1) * arg);
    return REDRAW_VIEW;
}

static unsigned k_zoom(App *a, const TuiKey *k, int arg) {
    (void)k;
    double f = arg > 0 ? arg / 100.0 : 100.0 / -arg;
    View_zoom(&a->v, f, a->v.cursor);
    return REDRAW_VIEW;
}

/* time under screen column x, or the cursor when x is outside the plot */
static int64_t time_at(const App *a, int x) {
    const Rect *p = &a->layout.plot;
    if (x < p->x || x >= p->x + p->w) return a->v.cursor;
    int64_t c0 = TraceIndex_colTime(a->v.t0, a->v.t1, p->w, x - p->x);
    int64_t c1 = TraceIndex_colTime(a->v.t0, a->v.t1, p->w, x - p->x + 1);
    return c0 + (c1 - c0) / 2;
}

static unsigned k_wheel(App *a, const TuiKey *k, int arg) {
    double f = arg > 0 ? 1.5 : 1 / 1.5;
    View_zoom(&a->v, f, time_at(a, k->x));
    return REDRAW_VIEW;
}

static unsigned k_fit_all(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    View_fitAll(&a->v);
    return REDRAW_VIEW;
}

static unsigned k_fit_sel(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (a->v.sel == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no event selected (./, pick one, / searches)");
        return REDRAW_VIEW;
    }
    const TraceEvent *e = &a->t->events[a->v.sel];
    View_fit(&a->v, e->ts, TraceEvent_end(e));
    a->v.cursor = e->ts;
    return REDRAW_VIEW;
}

static unsigned k_home_end(App *a, const TuiKey *k, int arg) {
    (void)k;
    if (arg < 0) View_home(&a->v);
    else View_end(&a->v);
    if (arg < 0) a->v.cursor = a->v.t0;
    else a->v.cursor = a->v.t1 - 1;
    /* . and , then step from the trace's start (end), not from the old selection */
    a->v.sel = SIZE_MAX;
    return REDRAW_VIEW;
}

/* ---- lines ---- */

static unsigned k_line(App *a, const TuiKey *k, int arg) {
    (void)k;
    size_t n = a->lines.n;
    if (!n) return REDRAW_NONE;
    long long line = (long long)a->v.line;
    long long page = a->v.rows > 1 ? a->v.rows - 1 : 1;
    if (arg == INT_MIN) line = 0;
    else if (arg == INT_MAX) line = (long long)n - 1;
    else if (arg == 1000) line += page;
    else if (arg == -1000) line -= page;
    else line += arg;
    if (line < 0) line = 0;
    if (line >= (long long)n) line = (long long)n - 1;
    App_selectLine(a, (size_t)line);
    return REDRAW_VIEW;
}

static unsigned k_group(App *a, const TuiKey *k, int arg) {
    (void)k;
    size_t n = a->lines.n;
    if (!n) return REDRAW_NONE;
    size_t i = a->v.line;
    for (size_t step = 0; step < n; step++) {
        i = arg > 0 ? (i + 1) % n : (i + n - 1) % n;
        if (a->lines.v[i].kind == LINE_GROUP) break;
    }
    App_selectLine(a, i);
    return REDRAW_VIEW;
}

static unsigned k_toggle(App *a, const TuiKey *k, int arg) {
    (void)arg;
    if (!a->lines.n) return REDRAW_NONE;
    unsigned r;
    if (Features_activate(a, k, &r)) return r; /* a rank of the overview; live: Space freezes */
    uint32_t g = a->lines.v[a->v.line].group;
    a->collapsed[g] = !a->collapsed[g];
    App_rebuildLines(a);
    a->v.line = Lines_findGroup(&a->lines, g);
    if (a->v.sel != SIZE_MAX && a->t->lanes[a->t->events[a->v.sel].lane].group == g && a->collapsed[g])
        a->v.sel = SIZE_MAX;
    View_scrollToLine(&a->v, a->lines.n);
    return REDRAW_VIEW;
}

/* v: show / hide the groups Lines_clutter leaves out */
static unsigned k_clutter(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (!a->n_hidden && !a->show_all) {
        App_message(a, ROLE_DIM, "no empty or annotation-only groups to show");
        return REDRAW_VIEW;
    }
    size_t line = a->lines.n ? a->v.line : 0;
    uint32_t keep = a->lines.n ? a->lines.v[line].group : 0;
    a->show_all = !a->show_all;
    App_rebuildLines(a);
    size_t at = Lines_findGroup(&a->lines, keep);
    a->v.line = at != SIZE_MAX ? at : 0;
    View_scrollToLine(&a->v, a->lines.n);
    App_message(a, ROLE_DIM, "%zu empty or annotation-only group%s %s (v %s)", a->n_hidden, a->n_hidden == 1 ? "" : "s",
                a->show_all ? "shown" : "hidden", a->show_all ? "hides them" : "shows them");
    return REDRAW_VIEW;
}

/* ---- events ---- */

static unsigned k_event(App *a, const TuiKey *k, int arg) {
    (void)k;
    if (!a->lines.n || a->lines.v[a->v.line].kind != LINE_ROW) {
        App_message(a, ROLE_ERROR, "select a lane first (j/k)");
        return REDRAW_VIEW;
    }
    uint32_t ri = a->lines.v[a->v.line].row;
    const Row *r = &a->t->rows[ri];
    if (!r->count) return REDRAW_NONE;
    size_t sel = a->v.sel, next;
    bool in_row = sel != SIZE_MAX && sel >= r->first && sel < r->first + r->count;
    if (arg > 0) {
        next = in_row ? sel + 1 : TraceIndex_firstStartAtOrAfter(a->t, r, a->v.cursor);
        if (next >= r->first + r->count) {
            App_message(a, ROLE_DIM, "last event of the lane");
            return REDRAW_VIEW;
        }
    } else {
        size_t j = in_row ? sel : TraceIndex_firstStartAtOrAfter(a->t, r, a->v.cursor);
        if (j == r->first) {
            App_message(a, ROLE_DIM, "first event of the lane");
            return REDRAW_VIEW;
        }
        next = j - 1;
    }
    App_selectEvent(a, next);
    return REDRAW_VIEW;
}

/* ---- the mouse ---- */

static unsigned k_click(App *a, const TuiKey *k, int arg) {
    (void)arg;
    const Layout *L = &a->layout;
    if (L->too_small) return REDRAW_NONE;
    int y0 = L->plot.y;
    if (k->y >= L->ruler.y && k->y < L->ruler.y + L->ruler.h && k->x >= L->plot.x) {
        a->v.cursor = time_at(a, k->x);
        return REDRAW_VIEW;
    }
    if (k->y < y0 || k->y >= y0 + L->plot.h || k->x >= L->plot.x + L->plot.w) return REDRAW_NONE;
    size_t line = App_lineAtRow(a, k->y - y0);
    if (line == SIZE_MAX) return REDRAW_NONE;
    const Line *ln = &a->lines.v[line];
    if (ln->kind == LINE_GROUP) {
        a->v.line = line;
        return k_toggle(a, k, 0);
    }
    if (k->x >= L->plot.x) a->v.cursor = time_at(a, k->x);
    a->v.line = line;
    View_scrollToLine(&a->v, a->lines.n);
    if (ln->kind == LINE_ROW && k->x >= L->plot.x) {
        int64_t col = View_span(&a->v) / (L->plot.w > 0 ? L->plot.w : 1);
        size_t e = App_eventAt(a, ln->row, a->v.cursor, col + 1);
        a->v.sel = e;
        if (e == SIZE_MAX) App_message(a, ROLE_DIM, "no event there");
    } else {
        App_selectLine(a, line);
    }
    return REDRAW_VIEW;
}

/* A drag with button 1: on the timeline it marks a range, on the ruler it pans. */
typedef struct {
    enum { DRAG_NONE, DRAG_RANGE, DRAG_PAN } kind;
    int x0;         /* the column it started at */
    int64_t time0;  /* the time under it (a range's first end) */
    int64_t view0;  /* the window's start then (a pan) */
    bool moved;     /* a column away from x0 at least once */
} NavState;

extern const Feature Nav_feature;

static void *nav_init(App *a) {
    (void)a;
    return xcalloc(1, sizeof(NavState));
}

static void nav_free(App *a, void *st) {
    (void)a;
    free(st);
}

/* time under column x of the plot, x clamped to it */
static int64_t time_at_clamped(const App *a, int x) {
    const Rect *p = &a->layout.plot;
    if (x < p->x) x = p->x;
    if (x >= p->x + p->w) x = p->x + p->w - 1;
    return time_at(a, x);
}

/* Button 1 down: a click (cursor, lane, event, fold) that may become a drag. */
static unsigned k_press(App *a, const TuiKey *k, int arg) {
    NavState *s = Feature_state(a, &Nav_feature);
    const Layout *L = &a->layout;
    s->kind = DRAG_NONE;
    s->moved = false;
    if (L->too_small) return REDRAW_NONE;
    bool on_ruler = k->y >= L->ruler.y && k->y < L->ruler.y + L->ruler.h && k->x >= L->plot.x &&
                    k->x < L->plot.x + L->plot.w;
    bool on_plot = k->y >= L->plot.y && k->y < L->plot.y + L->plot.h && k->x >= L->plot.x &&
                   k->x < L->plot.x + L->plot.w;
    if (on_ruler || on_plot) {
        s->kind = on_ruler ? DRAG_PAN : DRAG_RANGE;
        s->x0 = k->x;
        s->time0 = time_at(a, k->x);
        s->view0 = a->v.t0;
    }
    return k_click(a, k, arg);
}

/* Motion with button 1 down: the range from the press to here (its figures in the
 * panel as the marks keys give them), or the window dragged along with the mouse. */
static unsigned k_drag(App *a, const TuiKey *k, int arg) {
    (void)arg;
    NavState *s = Feature_state(a, &Nav_feature);
    if (s->kind == DRAG_NONE || a->layout.plot.w <= 0) return REDRAW_NONE;
    if (k->x != s->x0) s->moved = true;
    if (!s->moved) return REDRAW_NONE;
    if (s->kind == DRAG_PAN) {
        int64_t per_col = View_span(&a->v) / a->layout.plot.w;
        View_pan(&a->v, s->view0 - (int64_t)(k->x - s->x0) * per_col - a->v.t0);
        a->v.follow = false;
        return REDRAW_VIEW;
    }
    int64_t t = time_at_clamped(a, k->x);
    if (t == s->time0) return REDRAW_NONE;
    a->v.mark0 = s->time0;
    a->v.mark1 = t;
    a->v.cursor = t;
    a->v.panel = PANEL_RANGE;
    a->v.panel_hidden = false;
    return REDRAW_VIEW;
}

/* Button 1 up: the drag ends (the last motion's place counts too). */
static unsigned k_release(App *a, const TuiKey *k, int arg) {
    NavState *s = Feature_state(a, &Nav_feature);
    unsigned r = k_drag(a, k, arg);
    if (s->kind == DRAG_RANGE && s->moved && View_rangeSet(&a->v))
        App_message(a, ROLE_GOOD, "range marked: statistics in the panel (r: details, Esc: clear)");
    s->kind = DRAG_NONE;
    return r | REDRAW_VIEW | KEEP_MSG;
}

static unsigned k_mouse(App *a, const TuiKey *k, int arg) {
    return k->code == TK_PRESS ? k_press(a, k, arg) : k->code == TK_DRAG ? k_drag(a, k, arg) : k_release(a, k, arg);
}

static const KeyBinding NAV_KEYS[] = {
    {{TK_LEFT, 'h', 'a'}, "Left h a", "pan left", k_pan, -2},
    {{TK_RIGHT, 'l', 'd'}, "Right l d", "pan right", k_pan, 2},
    {{TK_SLEFT, 'H', 'A'}, "S-Left H A", "pan left, large step", k_pan, -8},
    {{TK_SRIGHT, 'L', 'D'}, "S-Right L D", "pan right, large step", k_pan, 8},
    {{'+', '=', 'w'}, "+ = w", "zoom in (around the cursor)", k_zoom, 200},
    {{'-', 's'}, "- s", "zoom out", k_zoom, -200},
    {{'W', '*'}, "W *", "zoom in, large step", k_zoom, 800},
    {{'S', '_'}, "S _", "zoom out, large step", k_zoom, -800},
    {{TK_WHEEL_UP}, "wheel up", "zoom in at the mouse", k_wheel, 1},
    {{TK_WHEEL_DOWN}, "wheel down", "zoom out at the mouse", k_wheel, -1},
    {{'0', 'z'}, "0 z", "fit everything", k_fit_all, 0},
    {{'f'}, "f", "fit the selected event", k_fit_sel, 0},
    {{TK_HOME}, "Home", "go to the start of the trace", k_home_end, -1},
    {{TK_END}, "End", "go to the end of the trace", k_home_end, 1},
    {{'<'}, "<", "move the cursor one column left (Left/h do too when the view cannot pan)", k_cursor, -1},
    {{'>'}, ">", "move the cursor one column right", k_cursor, 1},
    {{TK_UP, 'k'}, "Up k", "previous lane", k_line, -1},
    {{TK_DOWN, 'j'}, "Down j", "next lane", k_line, 1},
    {{TK_SUP, 'K'}, "S-Up K", "5 lanes up", k_line, -5},
    {{TK_SDOWN, 'J'}, "S-Down J", "5 lanes down", k_line, 5},
    {{TK_PGUP}, "PgUp", "page up", k_line, -1000},
    {{TK_PGDN}, "PgDn", "page down", k_line, 1000},
    {{'g'}, "g", "first lane", k_line, INT_MIN},
    {{'G'}, "G", "last lane", k_line, INT_MAX},
    {{TK_TAB}, "Tab", "next group (device / process)", k_group, 1},
    {{TK_BTAB}, "S-Tab", "previous group", k_group, -1},
    {{'v'}, "v", "show / hide empty and annotation-only CPU groups (hidden at start)", k_clutter, 0},
    {{TK_ENTER, ' '}, "Enter Space", "collapse / expand the group (live: Space on a lane freezes)", k_toggle, 0},
    {{'.'}, ".", "next event on the lane", k_event, 1},
    {{','}, ",", "previous event on the lane", k_event, -1},
    {{TK_CLICK}, "click", "select the event and its lane (or fold a group header)", k_click, 0},
    {{TK_PRESS, TK_DRAG, TK_RELEASE}, "drag", "on the timeline: mark a range (its statistics in the panel); on the ruler: pan", k_mouse, 0},
};
const Feature Nav_feature = {.name = "navigation", FEATURE_KEYS(NAV_KEYS), .init = nav_init, .free = nav_free};
