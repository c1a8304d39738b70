/* Counter lanes: sparklines of counter series, their lines and their range figures. */
#include "counter_lane.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "app.h"
#include "lanes_render.h"
#include "tindex.h"
#include "feature.h"

void CounterLane_columns(const Trace *t, const CounterSeries *s, int64_t t0, int64_t t1, int W, double *val,
                         bool *has) {
    if (W <= 0) return;
    size_t j = Counter_lowerBound(t, s, t0);
    bool in_effect = j > 0;
    double cur = in_effect ? Counter_value(t, s, j - 1) : 0;
    for (int c = 0; c < W; c++) {
        int64_t ca = TraceIndex_colTime(t0, t1, W, c), cb = TraceIndex_colTime(t0, t1, W, c + 1);
        for (; j < s->n && t->events[s->ev[j]].ts <= ca; j++) { /* samples at the column's start */
            cur = Counter_value(t, s, j);
            in_effect = true;
        }
        bool h = in_effect;
        double m = cur;
        for (; j < s->n && t->events[s->ev[j]].ts < cb; j++) {
            double v = Counter_value(t, s, j);
            if (!h || v > m) m = v;
            h = true;
            cur = v;
            in_effect = true;
        }
        has[c] = h;
        val[c] = h ? m : 0;
    }
}

bool CounterLane_levels(const double *val, const bool *has, int W, uint8_t *lvl, double *min, double *max) {
    bool any = false;
    double lo = 0, hi = 0;
    for (int c = 0; c < W; c++) {
        if (!has[c]) continue;
        if (!any || val[c] < lo) lo = val[c];
        if (!any || val[c] > hi) hi = val[c];
        any = true;
    }
    for (int c = 0; c < W; c++) {
        if (!has[c]) lvl[c] = 0;
        else if (hi == lo) lvl[c] = lo == 0 ? 1 : 8;
        else {
            int k = 1 + (int)((val[c] - lo) / (hi - lo) * 7 + 0.5);
            lvl[c] = (uint8_t)(k < 1 ? 1 : k > 8 ? 8 : k);
        }
    }
    if (min) *min = lo;
    if (max) *max = hi;
    return any;
}

uint32_t CounterLane_glyph(int k, bool unicode) {
    static const uint32_t U[9] = {' ', 0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
    static const char A[] = " _.-:=+*#";
    if (k < 0) k = 0;
    if (k > 8) k = 8;
    return unicode ? U[k] : (uint32_t)A[k];
}

void CounterLane_label(const Trace *t, const CounterSeries *s, char *buf, size_t n) {
    const char *name = StrTab_get(t->strings, s->name);
    if (!strncmp(name, "[serve] GPU ", 12) && s->device >= 0 && t->groups[s->group].gpu) {
        const char *rest = strchr(name + 12, ' '); /* after the device number */
        snprintf(buf, n, " %s", rest ? rest + 1 : name);
        return;
    }
    if (!strncmp(name, "[memory] ", 9)) {
        const char *key = strrchr(name, ' ');
        key = key ? key + 1 : name;
        const char *what = !strcmp(key, "Allocated") ? "allocated" : !strcmp(key, "Reserved") ? "reserved" : "bytes";
        if (s->device >= 0 && t->groups[s->group].gpu) snprintf(buf, n, " mem %s", what);
        else if (strstr(name, "[memory] CPU")) snprintf(buf, n, " CPU mem %s", what);
        else snprintf(buf, n, " %s", name + 9);
        return;
    }
    snprintf(buf, n, " %s", name);
}

void CounterLane_addLines(Lines *L, const Trace *t, const CounterSet *cs, const bool *collapsed) {
    (void)t;
    if (!cs || !cs->n) return;
    Lines out = {0};
    for (size_t i = 0; i < L->n;) {
        size_t j = i + 1; /* [i, j): one group's lines */
        while (j < L->n && L->v[j].kind != LINE_GROUP) j++;
        uint32_t g = L->v[i].group;
        for (size_t k = i; k < j; k++)
            if (L->v[k].kind != LINE_ROW || !(cs->lane_only[L->v[k].lane] || cs->row_only[L->v[k].row]))
                Lines_push(&out, L->v[k]);
        if (L->v[i].kind == LINE_GROUP && !(collapsed && collapsed[g]))
            for (size_t s = 0; s < cs->n; s++)
                if (cs->s[s].group == g) Lines_push(&out, (Line){LINE_COUNTER, g, cs->s[s].lane, (uint32_t)s});
        i = j;
    }
    free(L->v);
    *L = out;
}

/* The header words of the values column's two fields. */
static const char AT_HEAD[] = "at cursor", RANGE_HEAD[] = "view min..max";

CounterColumns CounterLane_valueColumns(int vwid, int plot_w) {
    CounterColumns c = {vwid > (int)sizeof AT_HEAD - 1 ? vwid : (int)sizeof AT_HEAD - 1, 2 * vwid + 2, 0};
    if (c.range < (int)sizeof RANGE_HEAD - 1) c.range = (int)sizeof RANGE_HEAD - 1;
    int both = 1 + c.at + 2 + c.range + 1, at = 1 + c.at + 1;
    /* the range field where the timeline keeps its room for it, else the value alone */
    if (plot_w - both - 1 >= COUNTER_PLOT_FOR_RANGE) c.w = both;
    else c.w = at;
    if (c.w != both) c.range = 0;
    return c;
}

void CounterLane_valueText(const CounterColumns *c, const char *at, const char *lo, const char *hi, char *buf,
                           size_t n) {
    if (!c->range) {
        snprintf(buf, n, " %*s ", c->at, at);
        return;
    }
    char r[112];
    if (lo && hi) snprintf(r, sizeof r, "%s..%s", lo, hi);
    else snprintf(r, sizeof r, "-");
    snprintf(buf, n, " %*s  %*s ", c->at, at, c->range, r);
}

void CounterLane_valueHead(const CounterColumns *c, char *buf, size_t n) {
    if (c->range) snprintf(buf, n, " %*s  %*s ", c->at, AT_HEAD, c->range, RANGE_HEAD);
    else snprintf(buf, n, " %*s ", c->at, AT_HEAD);
}

int CounterLane_valueWidth(const Trace *t, const CounterSet *cs) {
    int w = 1;
    for (size_t i = 0; cs && i < cs->n; i++) {
        const CounterSeries *s = &cs->s[i];
        for (size_t j = 0; j < s->n; j++) {
            char b[48];
            Counter_format(Counter_value(t, s, j), s->bytes, b, sizeof b);
            if ((int)strlen(b) > w) w = (int)strlen(b);
        }
    }
    return w;
}

static void render_series(const App *a, Grid *g, int y, Rect plot, const CounterSeries *s) {
    const ViewState *v = &a->v;
    int W = plot.w;
    double *val = xmalloc((size_t)W * sizeof *val);
    bool *has = xmalloc((size_t)W * sizeof *has);
    uint8_t *lvl = xmalloc((size_t)W);
    CounterLane_columns(a->t, s, v->t0, v->t1, W, val, has);
    CounterLane_levels(val, has, W, lvl, NULL, NULL);
    int role = ROLE_CLASS + (s->bytes ? CLASS_MEMORY : CLASS_OTHER);
    int cur = TraceIndex_colOf(v->t0, v->t1, W, v->cursor);
    for (int c = 0; c < W; c++) {
        if (c == cur && !lvl[c]) Grid_put(g, plot.x + c, y, a->gl->vline, ROLE_DIM, 0);
        else Grid_put(g, plot.x + c, y, CounterLane_glyph(lvl[c], a->gl->unicode), role, c == cur ? ATTR_REVERSE : 0);
    }
    free(val);
    free(has);
    free(lvl);
}

/* The values column of a series' line: the value in effect at the cursor, and the
 * min..max of the samples in view (what `stats --range` says over the view). */
static void render_values(const App *a, Grid *g, int y, Rect vals, const CounterColumns *cc, const CounterSeries *s) {
    if (vals.w <= 0) return;
    Grid_put(g, vals.x - 1, y, a->gl->vline, ROLE_DIM, 0);
    double at;
    CounterStats st;
    char sv[48] = "-", slo[48], shi[48], text[192];
    if (Counter_valueAt(a->t, s, a->v.cursor, &at)) Counter_format(at, s->bytes, sv, sizeof sv);
    bool any = cc->range && Counter_stats(a->t, s, a->v.t0, a->v.t1, &st);
    if (any) {
        Counter_format(st.min, s->bytes, slo, sizeof slo);
        Counter_format(st.max, s->bytes, shi, sizeof shi);
    }
    CounterLane_valueText(cc, sv, any ? slo : NULL, any ? shi : NULL, text, sizeof text);
    Grid_text(g, vals.x, y, vals.w, text, ROLE_PANEL_KEY, ATTR_BOLD);
}

int CounterPanel_render(Grid *g, Rect r, const Trace *t, const CounterSet *cs, int64_t a, int64_t b, bool ascii) {
    if (!cs || !cs->n || r.h <= 0 || r.w <= 0) return 0;
    int y = r.y;
    Grid_text(g, r.x, y++, r.w, "counter                  min         max        mean  samples", ROLE_PANEL_KEY,
              ATTR_BOLD);
    for (size_t i = 0; i < cs->n && y < r.y + r.h; i++) {
        const CounterSeries *s = &cs->s[i];
        CounterStats st;
        char name[64], smin[32] = "-", smax[32] = "-", smean[32] = "-";
        snprintf(name, sizeof name, "%s", StrTab_get(t->strings, s->name));
        if (Counter_stats(t, s, a, b, &st)) {
            Counter_format(st.min, s->bytes, smin, sizeof smin);
            Counter_format(st.max, s->bytes, smax, sizeof smax);
            Counter_format(st.mean, s->bytes, smean, sizeof smean);
        }
        char line[256];
        snprintf(line, sizeof line, "%-20.20s %11s %11s %11s %8zu", name, smin, smax, smean, st.n);
        Grid_textAscii(g, r.x, y++, r.w, line, ROLE_PANEL, 0, ascii);
    }
    return y - r.y;
}

/* ---- in the viewer ---- */

typedef struct {
    CounterSet *set; /* the model's series */
    int vwid;        /* the widest value of any sample, formatted */
} CounterLaneState;

extern const Feature CounterLane_feature;

static void *cl_init(App *a) {
    CounterLaneState *s = xcalloc(1, sizeof *s);
    s->set = CounterSet_build(a->t);
    s->vwid = CounterLane_valueWidth(a->t, s->set);
    return s;
}

static void cl_free(App *a, void *st) {
    (void)a;
    CounterSet_free(((CounterLaneState *)st)->set);
    free(st);
}

const CounterSet *CounterLane_set(const App *a) {
    return ((const CounterLaneState *)Feature_state(a, &CounterLane_feature))->set;
}

/* The series of the new model (the lines are built again after). */
static void cl_retrace(App *a, void *st, const Trace *old) {
    (void)old;
    CounterLaneState *s = st;
    CounterSet_free(s->set);
    s->set = CounterSet_build(a->t);
    s->vwid = CounterLane_valueWidth(a->t, s->set);
}

static void cl_lines(App *a, void *st, Lines *L) {
    CounterLane_addLines(L, a->t, ((CounterLaneState *)st)->set, a->collapsed);
}

/* Whether a counter line is among the timeline's lines. */
static bool has_lines(const App *a) {
    for (size_t i = 0; i < a->lines.n; i++)
        if (a->lines.v[i].kind == LINE_COUNTER) return true;
    return false;
}

/* The values column, on every line while a counter line is there (one time axis). */
static int cl_reserve(const App *a, const void *st, int plot_w) {
    if (!has_lines(a)) return 0;
    return CounterLane_valueColumns(((const CounterLaneState *)st)->vwid, plot_w).w;
}

/* The values column's header, over it in the ruler's rows. */
static void cl_render(App *a, void *st, Grid *g, const Layout *L) {
    if (L->values.w <= 0 || !has_lines(a)) return;
    CounterColumns cc = CounterLane_valueColumns(((CounterLaneState *)st)->vwid, L->plot.w + L->values.w + 1);
    char head[160];
    CounterLane_valueHead(&cc, head, sizeof head);
    Grid_fill(g, (Rect){L->values.x - 1, L->values.y, L->values.w + 1, 2}, ' ', ROLE_RULER, 0);
    Grid_text(g, L->values.x, L->values.y, L->values.w, head, ROLE_RULER_LABEL, 0);
    Grid_hline(g, L->values.x, L->values.y + 1, L->values.w, a->gl->hline, ROLE_RULER);
}

static bool cl_draw_line(App *a, void *st, Grid *g, const LineSlot *ls) {
    const CounterLaneState *cst = st;
    const CounterSet *cs = cst->set;
    const Line *L = ls->line;
    if (L->kind != LINE_COUNTER) return false;
    bool known = cs && L->row < cs->n;
    char label[160];
    if (known) CounterLane_label(a->t, &cs->s[L->row], label, sizeof label);
    else snprintf(label, sizeof label, " counter");
    Lanes_label(a, g, ls->labels, ls->y, label, ls->selected);
    if (!known) return true;
    render_series(a, g, ls->y, ls->plot, &cs->s[L->row]);
    Rect vals = a->layout.values;
    if (vals.w > 0) {
        CounterColumns cc = CounterLane_valueColumns(cst->vwid, ls->plot.w + vals.w + 1);
        render_values(a, g, ls->y, vals, &cc, &cs->s[L->row]);
    }
    return true;
}

/* The sample in effect at the cursor (else the first). */
static size_t cl_pick(const App *a, const void *st, const Line *L) {
    const CounterSet *cs = ((const CounterLaneState *)st)->set;
    if (L->kind != LINE_COUNTER || !cs || L->row >= cs->n) return SIZE_MAX;
    const CounterSeries *s = &cs->s[L->row];
    size_t j = Counter_lowerBound(a->t, s, a->v.cursor == INT64_MAX ? a->v.cursor : a->v.cursor + 1);
    return s->n ? s->ev[j ? j - 1 : 0] : SIZE_MAX;
}

/* The range panel's counter figures, at its bottom (up to half of it). */
static int cl_section(App *a, void *st, PanelMode host, Grid *g, Rect c) {
    const CounterSet *cs = ((CounterLaneState *)st)->set;
    if (host != PANEL_RANGE || !cs || !cs->n || c.h < 6) return 0;
    int ch = (int)cs->n + 1 < c.h / 2 ? (int)cs->n + 1 : c.h / 2;
    int64_t r0, r1;
    View_range(&a->v, &r0, &r1);
    CounterPanel_render(g, (Rect){c.x, c.y + c.h - ch, c.w, ch}, a->t, cs, r0, r1, !a->gl->unicode);
    return ch;
}

const Feature CounterLane_feature = {
    .name = "counter lanes",
    .init = cl_init,
    .free = cl_free,
    .retrace = cl_retrace,
    .lines = cl_lines,
    .draw_line = cl_draw_line,
    .plot_reserve = cl_reserve,
    .render = cl_render,
    .pick = cl_pick,
    .section = cl_section,
};
