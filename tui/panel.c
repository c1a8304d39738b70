/* The side panel: the details of the selected event (details.c), or the statistics of
 * the marked range (rangepanel.c, r toggles), with the other features' sections at its
 * bottom; the range marks and the panel keys. */
#include "panel.h"

#include <stdio.h>
#include <stdlib.h>

#include "ovtrace/base/alloc.h"
#include "app.h"
#include "details.h"
#include "rangepanel.h"
#include "feature.h"

typedef struct {
    DetailsCache details;     /* of the selected event */
    OverlapReport *report;    /* of the marked range */
    int64_t range_a, range_b; /* what report was computed for */
} PanelState;

extern const Feature Panel_feature;

static void *pn_init(App *a) {
    (void)a;
    PanelState *s = xcalloc(1, sizeof *s);
    Details_init(&s->details);
    return s;
}

/* Forgets the cached details and figures (the model was replaced). */
static void pn_retrace(App *a, void *st, const Trace *old) {
    (void)a, (void)old;
    PanelState *s = st;
    Details_free(&s->details);
    OverlapReport_free(s->report);
    s->report = NULL;
}

static void pn_free(App *a, void *st) {
    pn_retrace(a, st, NULL);
    free(st);
}

const OverlapReport *Panel_rangeReport(const App *a) {
    return ((const PanelState *)Feature_state(a, &Panel_feature))->report;
}

/* The selection's fields (args read from the trace file once per event) and the marked
 * range's figures (once per range). */
static void pn_sync(App *a, void *st) {
    PanelState *s = st;
    if (s->details.idx != a->v.sel) a->v.panel_scroll = 0; /* a new event's fields start at the top */
    Details_build(&s->details, a->t, a->v.sel);
    if (!View_rangeSet(&a->v)) return;
    int64_t r0, r1;
    View_range(&a->v, &r0, &r1);
    if (s->report && r0 == s->range_a && r1 == s->range_b) return;
    OverlapReport_free(s->report);
    OverlapFilter f = OverlapFilter_all();
    f.t0 = r0;
    f.t1 = r1;
    s->report = Overlap_compute(a->t, &f);
    s->range_a = r0;
    s->range_b = r1;
}

static bool showing_range(const App *a, const PanelState *s) {
    return a->v.panel == PANEL_RANGE && View_rangeSet(&a->v) && s->report;
}

/* The columns the content takes (the range figures' table, the details' keys and
 * values): the layout widens the side panel to them, or puts it at the bottom. */
static int pn_width(const App *a, const void *st) {
    const PanelState *s = st;
    if (showing_range(a, s)) return RangePanel_width(a->t, s->report, s->range_a, s->range_b);
    return Details_width(&s->details);
}

static bool pn_panel(App *a, void *st, Grid *g, Rect panel, bool at_right) {
    PanelState *s = st;
    if (showing_range(a, s)) {
        Rect c = Panel_frame(g, panel, at_right, "Range statistics (r: details, Esc: clear)", a->gl);
        c.h -= Features_sections(a, PANEL_RANGE, g, c);
        RangePanel_render(g, c, a->t, s->report, s->range_a, s->range_b, a->gl);
        return true;
    }
    Rect c = Panel_frame(g, panel, at_right, "Details (i hides)", a->gl);
    c.h -= Features_sections(a, PANEL_DETAILS, g, c);
    int total = Details_renderScroll(g, c, &s->details, a->gl, !a->gl->unicode, a->v.panel_scroll);
    if (a->v.panel_scroll > total - c.h) a->v.panel_scroll = total - c.h > 0 ? total - c.h : 0;
    return true;
}

static unsigned k_mark(App *a, const TuiKey *k, int arg) {
    (void)k;
    ViewState *v = &a->v;
    int64_t c = v->cursor;
    if (arg == 0) {
        v->mark0 = c;
    } else if (arg == 1) {
        if (v->mark0 == VIEW_NO_MARK) v->mark0 = v->t0;
        v->mark1 = c;
    } else {
        if (v->mark0 == VIEW_NO_MARK || v->mark1 != VIEW_NO_MARK) {
            v->mark0 = c;
            v->mark1 = VIEW_NO_MARK;
        } else {
            v->mark1 = c;
        }
    }
    if (View_rangeSet(v)) {
        if (v->mark0 == v->mark1) {
            App_message(a, ROLE_ERROR, "empty range: move the cursor (select an event, click) before ]");
            v->mark1 = VIEW_NO_MARK;
            return REDRAW_VIEW | KEEP_MSG;
        }
        v->panel = PANEL_RANGE;
        v->panel_hidden = false;
        App_message(a, ROLE_GOOD, "range marked: statistics in the panel (r: details, Esc: clear)");
    } else {
        App_message(a, ROLE_DIM, "range start marked; select the end and press ] (or m)");
    }
    return REDRAW_VIEW | KEEP_MSG;
}

static unsigned k_panel(App *a, const TuiKey *k, int arg) {
    (void)k;
    if (arg == 0) {
        a->v.panel_hidden = !a->v.panel_hidden;
    } else {
        if (!View_rangeSet(&a->v)) {
            App_message(a, ROLE_ERROR, "no range: [ and ] (or m twice) mark one");
            return REDRAW_VIEW;
        }
        a->v.panel = a->v.panel == PANEL_RANGE ? PANEL_DETAILS : PANEL_RANGE;
        a->v.panel_hidden = false;
    }
    return REDRAW_VIEW;
}

/* { and }: scroll the details panel by a page (every field is reachable) */
static unsigned k_panel_scroll(App *a, const TuiKey *k, int arg) {
    (void)k;
    int page = a->layout.panel.h > 4 ? a->layout.panel.h - 3 : 1;
    if (a->v.panel_hidden || a->layout.panel.h <= 0) {
        App_message(a, ROLE_ERROR, "the panel is hidden (i shows it)");
        return REDRAW_VIEW;
    }
    a->v.panel_scroll += arg * page;
    if (a->v.panel_scroll < 0) a->v.panel_scroll = 0;
    return REDRAW_VIEW;
}

static const KeyBinding PANEL_KEYS[] = {
    {{'['}, "[", "mark the range start at the cursor", k_mark, 0},
    {{']'}, "]", "mark the range end at the cursor", k_mark, 1},
    {{'m'}, "m", "mark start, then end (again: new range)", k_mark, 2},
    {{'r'}, "r", "panel: range statistics / details", k_panel, 1},
    {{'i'}, "i", "hide / show the panel", k_panel, 0},
    {{'}'}, "}", "scroll the details panel down a page", k_panel_scroll, 1},
    {{'{'}, "{", "scroll the details panel up a page", k_panel_scroll, -1},
};

const Feature Panel_feature = {
    .name = "panel",
    FEATURE_KEYS(PANEL_KEYS),
    .init = pn_init,
    .free = pn_free,
    .retrace = pn_retrace,
    .sync = pn_sync,
    .panel_width = pn_width,
    .panel = pn_panel,
};
