/* Pinned tracks (key P): the selected lane, or a group with its lines, moved to the top
 * of the timeline, where it stays while the rest scrolls (the engine draws lines
 * [0, v.pinned) first, App_lineAtRow). P again on a pinned line unpins it. A pin names
 * its line by kind, group and row, so folding, v and the lines of other features keep
 * it; a new model clears the pins (its groups and rows are numbered anew). */
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "app.h"
#include "feature.h"

enum { PIN_MAX = 32 };

typedef struct {
    Line pin[PIN_MAX]; /* in pin order; a LINE_GROUP pin takes its group's lines along */
    size_t n;
} PinState;

extern const Feature Pin_feature;

static void *pin_init(App *a) {
    (void)a;
    return xcalloc(1, sizeof(PinState));
}

static void pin_free(App *a, void *st) {
    (void)a;
    free(st);
}

static void pin_retrace(App *a, void *st, const Trace *old) {
    (void)a, (void)old;
    ((PinState *)st)->n = 0;
}

static bool same_line(const Line *x, const Line *y) {
    return x->kind == y->kind && x->group == y->group && (x->kind == LINE_GROUP || x->row == y->row);
}

/* Whether line l goes with pin p (a group pin takes its group's every line). */
static bool pinned_by(const Line *p, const Line *l) {
    return p->kind == LINE_GROUP ? l->group == p->group : same_line(p, l);
}

/* The pinned lines first, in pin order, then the others in their order. */
static void pin_lines(App *a, void *st, Lines *L) {
    PinState *s = st;
    if (!s->n || !L->n) return;
    Line *out = xmalloc(L->n * sizeof *out);
    bool *taken = xcalloc(L->n, sizeof *taken);
    size_t o = 0;
    for (size_t p = 0; p < s->n; p++)
        for (size_t i = 0; i < L->n; i++)
            if (!taken[i] && pinned_by(&s->pin[p], &L->v[i])) out[o++] = L->v[i], taken[i] = true;
    a->v.pinned = o;
    for (size_t i = 0; i < L->n; i++)
        if (!taken[i]) out[o++] = L->v[i];
    memcpy(L->v, out, L->n * sizeof *out);
    free(taken);
    free(out);
}

/* Where line l is now (after a rebuild), SIZE_MAX if gone. */
static size_t find_line(const App *a, const Line *l) {
    for (size_t i = 0; i < a->lines.n; i++)
        if (same_line(&a->lines.v[i], l)) return i;
    return SIZE_MAX;
}

static unsigned k_pin(App *a, const TuiKey *k, int arg) {
    (void)k, (void)arg;
    PinState *s = Feature_state(a, &Pin_feature);
    if (a->v.line >= a->lines.n) {
        App_message(a, ROLE_ERROR, "no line selected (j/k)");
        return REDRAW_VIEW;
    }
    Line l = a->lines.v[a->v.line];
    if (l.kind == LINE_BAND) l.kind = LINE_GROUP; /* the band stands for its device: pin the group */
    size_t at = SIZE_MAX;
    for (size_t i = 0; i < s->n; i++)
        if (same_line(&s->pin[i], &l)) at = i;
    if (at != SIZE_MAX) {
        memmove(&s->pin[at], &s->pin[at + 1], (s->n - at - 1) * sizeof *s->pin);
        s->n--;
        App_message(a, ROLE_DIM, "unpinned");
    } else if (s->n == PIN_MAX) {
        App_message(a, ROLE_ERROR, "%d lines pinned already: P on one unpins it", PIN_MAX);
        return REDRAW_VIEW;
    } else {
        s->pin[s->n++] = l;
        App_message(a, ROLE_GOOD, "pinned to the top: it stays while the rest scrolls (P again unpins)");
    }
    App_rebuildLines(a);
    size_t now = find_line(a, &l);
    if (now != SIZE_MAX) a->v.line = now;
    View_scrollToLine(&a->v, a->lines.n);
    return REDRAW_VIEW | KEEP_MSG;
}

/* A rule under the pinned lines, over the labels: where the scrolling starts. */
static void pin_render(App *a, void *st, Grid *g, const Layout *L) {
    (void)st;
    if (!a->v.pinned || a->v.pinned >= (size_t)L->labels.h) return;
    int y = L->labels.y + (int)a->v.pinned - 1;
    for (int x = L->labels.x; x < L->labels.x + L->labels.w; x++) {
        Cell *c = Grid_at(g, x, y);
        if (c) c->attr |= ATTR_UNDERLINE;
    }
}

static const KeyBinding PIN_KEYS[] = {
    {{'P'}, "P", "pin the selected lane (or group) to the top / unpin it", k_pin, 0},
};

const Feature Pin_feature = {
    .name = "pinned tracks",
    FEATURE_KEYS(PIN_KEYS),
    .init = pin_init,
    .free = pin_free,
    .retrace = pin_retrace,
    .lines = pin_lines,
    .render = pin_render,
};
