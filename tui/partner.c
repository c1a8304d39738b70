/* c: from a GPU op to the CPU runtime call that launched it and back (the ac2g flow or
 * the correlation id, Trace_partner); the selected event's flows drawn as arrows on
 * the timeline (launch -> kernel, and every other flow that starts or ends at it). */
#include "partner.h"

#include "app.h"
#include "lanes_render.h"
#include "feature.h"

/* Unicode or ASCII glyphs of the arrows. */
static uint32_t glyph(bool unicode, int which) {
    static const uint32_t U[] = {0x2502, 0x2500, 0x2514, 0x2518, 0x250C, 0x2510, 0x25BC, 0x25B2};
    static const char A[] = {'|', '-', '+', '+', '+', '+', 'v', '^'};
    return unicode ? U[which] : (uint32_t)A[which];
}
enum { G_V, G_H, G_DR, G_DL, G_UR, G_UL, G_DOWN, G_UP };

static void put(Grid *g, Rect clip, int x, int y, uint32_t ch) {
    if (x < clip.x || x >= clip.x + clip.w || y < clip.y || y >= clip.y + clip.h) return;
    Grid_put(g, x, y, ch, ROLE_CURSOR, ATTR_BOLD);
}

void Flow_drawArrow(Grid *g, Rect plot, int x0, int y0, int x1, int y1, bool unicode) {
    if (y0 == y1) return; /* one row: the two events show it */
    int dir = y1 > y0 ? 1 : -1, yh = y1 - dir; /* the row above (below) the head */
    if (yh == y0 && x1 == x0) return; /* next rows, one column: no cell between them */
    for (int y = y0 + dir; (yh - y) * dir > 0; y += dir) put(g, plot, x0, y, glyph(unicode, G_V));
    if (yh != y0) { /* room for the turn: a corner, then along yh to the head */
        int step = x1 > x0 ? 1 : -1;
        if (x1 != x0) {
            put(g, plot, x0, yh, glyph(unicode, dir > 0 ? (step > 0 ? G_DR : G_DL) : (step > 0 ? G_UR : G_UL)));
            for (int x = x0 + step; x != x1; x += step) put(g, plot, x, yh, glyph(unicode, G_H));
        }
    }
    put(g, plot, x1, yh, glyph(unicode, dir > 0 ? G_DOWN : G_UP));
}

/* The screen row of event e's line (its group header when the group is folded), or
 * the plot's edge beyond which it lies; *off: it is not on screen. */
static int row_of(const App *a, size_t e, bool *off) {
    const Rect *p = &a->layout.plot;
    uint32_t row = Lines_rowOfEvent(a->t, e);
    size_t line = Lines_findRow(&a->lines, row);
    if (line == SIZE_MAX) line = Lines_findGroup(&a->lines, a->t->lanes[a->t->events[e].lane].group);
    *off = false;
    if (line == SIZE_MAX) {
        *off = true;
        return -1;
    }
    for (int k = 0; k < p->h; k++)
        if (App_lineAtRow(a, k) == line) return p->y + k;
    *off = true;
    return line < a->v.top ? p->y : p->y + p->h - 1;
}

/* The column of time ts, clamped to the plot. */
static int col_of(const App *a, int64_t ts) {
    const Rect *p = &a->layout.plot;
    int64_t span = a->v.t1 - a->v.t0;
    if (span <= 0) return p->x;
    __int128 c = (__int128)(ts - a->v.t0) * p->w / span;
    return p->x + (int)(c < 0 ? 0 : c >= p->w ? p->w - 1 : c);
}

/* One arrow from event f to event t (at their starts). */
static void draw_flow(App *a, Grid *g, size_t f, size_t t) {
    bool off_f, off_t;
    int yf = row_of(a, f, &off_f), yt = row_of(a, t, &off_t);
    if (yf < 0 || yt < 0 || (off_f && off_t)) return;
    int xf = col_of(a, a->t->events[f].ts), xt = col_of(a, a->t->events[t].ts);
    if (off_t) yt += yt > yf ? 1 : -1; /* beyond the edge: the head lands on it */
    if (off_f) yf += yf > yt ? 1 : -1;
    Flow_drawArrow(g, a->layout.plot, xf, yf, xt, yt, a->gl->unicode);
}

/* The selected event's launch link and flows, over the timeline. */
static void partner_render(App *a, void *st, Grid *g, const Layout *L) {
    (void)st, (void)L;
    size_t sel = a->v.sel;
    const Trace *t = a->t;
    if (sel >= t->n_events) return;
    size_t p = Trace_partner(t, sel);
    if (p != SIZE_MAX) {
        bool launch = EventKind_isLaunch((EventKind)t->events[sel].kind);
        draw_flow(a, g, launch ? sel : p, launch ? p : sel);
    }
    int n = 0; /* the other flows, a few at most */
    for (size_t i = 0; i < t->n_flows && n < 8; i++) {
        const Flow *fl = &t->flows[i];
        if (fl->from != sel && fl->to != sel) continue;
        if ((fl->from == sel && fl->to == p) || (fl->to == sel && fl->from == p)) continue;
        draw_flow(a, g, fl->from, fl->to);
        n++;
    }
}

static unsigned k_partner(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (a->v.sel == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no event selected");
        return REDRAW_VIEW | KEEP_MSG;
    }
    size_t p = Trace_partner(a->t, a->v.sel);
    if (p == SIZE_MAX && a->t->gpu_only) {
        App_message(a, ROLE_DIM, "launch partner: CPU lanes still loading (see the title bar)");
        return REDRAW_VIEW;
    }
    if (p == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no launch partner (no ac2g flow or correlation id)");
        return REDRAW_VIEW | KEEP_MSG;
    }
    const TraceEvent *pe = &a->t->events[p];
    bool to_cpu = !a->t->lanes[pe->lane].gpu;
    App_selectEvent(a, p);
    char name[120];
    Lanes_shortName(Trace_name(a->t, pe), name, sizeof name, a->gl->unicode);
    App_message(a, ROLE_GOOD, "%s %s (c jumps back)", to_cpu ? "launched by" : "launches", name);
    return REDRAW_VIEW | KEEP_MSG;
}

static const KeyBinding PARTNER_KEYS[] = {
    {{'c'}, "c", "GPU op <-> the CPU runtime call that launched it", k_partner, 0},
};
const Feature Partner_feature = {.name = "launch partner", FEATURE_KEYS(PARTNER_KEYS), .render = partner_render};
