/* The viewer's run comparison: fold to one run (V), and the diff panel for the visible
 * range (X), from the same Overlap_compute as `stats` and the range panel. */
#include "compare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/model/timeunits.h"
#include "app.h"
#include "details.h"
#include "feature.h"

/* The runs of the model and the keys' state; n_runs 0: not comparing. */
typedef struct {
    size_t n_runs;
    uint32_t *run_of_source;           /* per source */
    char names[COMPARE_MAX_RUNS][96];  /* "A a.json" */
    int64_t offsets[COMPARE_MAX_RUNS]; /* the origin each run was shifted by */
    int focus;                         /* -1 both, else the run shown expanded */
    bool panel;                        /* the diff panel replaces the details panel */
    /* the panel's figures, for [fig_t0, fig_t1) */
    int64_t fig_t0, fig_t1;
    bool valid;
    DeviceFigures fig[COMPARE_MAX_RUNS]; /* sums over the run's devices */
    size_t n_devices[COMPARE_MAX_RUNS];
    size_t n_changes;
    CompareKernel changes[COMPARE_TOP_KERNELS]; /* biggest kernel changes in the range */
} CompareState;

extern const Feature Compare_feature;

static void *cmp_init(App *a) {
    (void)a;
    CompareState *c = xcalloc(1, sizeof *c);
    c->focus = -1;
    return c;
}

static void cmp_free(App *a, void *st) {
    (void)a;
    CompareState *c = st;
    free(c->run_of_source);
    free(c);
}

void Compare_setRuns(App *a, uint32_t *run_of_source, size_t n_runs, const char *const *names, const int64_t *offsets) {
    CompareState *c = Feature_state(a, &Compare_feature);
    free(c->run_of_source);
    c->n_runs = n_runs < COMPARE_MAX_RUNS ? n_runs : COMPARE_MAX_RUNS;
    c->run_of_source = run_of_source;
    for (size_t r = 0; r < c->n_runs; r++) {
        snprintf(c->names[r], sizeof c->names[r], "%s", names[r]);
        c->offsets[r] = offsets[r];
    }
    a->runs_labelled = true;
}

void Compare_figures(const Trace *t, const uint32_t *run_of_source, size_t n_runs, int64_t t0, int64_t t1,
                     DeviceFigures *out, size_t *n_devices) {
    memset(out, 0, n_runs * sizeof *out);
    memset(n_devices, 0, n_runs * sizeof *n_devices);
    OverlapFilter f = OverlapFilter_all();
    f.t0 = t0;
    f.t1 = t1;
    f.top_n = 0;
    OverlapReport *R = Overlap_compute(t, &f);
    for (size_t i = 0; i < R->n_devices; i++) {
        const DeviceFigures *d = &R->devices[i];
        uint32_t r = run_of_source[t->groups[d->group].source];
        if (r >= n_runs) continue;
        DeviceFigures *T = &out[r];
        T->window += d->window;
        T->busy += d->busy;
        T->idle += d->idle;
        T->compute += d->compute;
        T->comm += d->comm;
        T->overlap += d->overlap;
        T->exposed += d->exposed;
        T->memory += d->memory;
        T->n_events += d->n_events;
        n_devices[r]++;
    }
    for (size_t r = 0; r < n_runs; r++) {
        out[r].has_comm = out[r].comm > 0;
        out[r].ratio = out[r].has_comm ? (double)out[r].overlap / (double)out[r].comm : 0.0;
    }
    OverlapReport_free(R);
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* true when x ranks before y */
static bool change_before(const CompareKernel *x, const CompareKernel *y) {
    int64_t dx = abs64(x->total[1] - x->total[0]), dy = abs64(y->total[1] - y->total[0]);
    if (dx != dy) return dx > dy;
    int64_t mx = x->total[0] > x->total[1] ? x->total[0] : x->total[1];
    int64_t my = y->total[0] > y->total[1] ? y->total[0] : y->total[1];
    if (mx != my) return mx > my;
    return x->name < y->name;
}

size_t Compare_kernelChanges(const Trace *t, const uint32_t *run_of_source, int64_t t0, int64_t t1,
                             CompareKernel *out, size_t max) {
    size_t n_names = StrTab_count(t->strings);
    CompareKernel *k = xcalloc(n_names ? n_names : 1, sizeof *k);
    for (uint32_t li = 0; li < t->n_lanes; li++) {
        const Lane *l = &t->lanes[li];
        uint32_t run = run_of_source[l->source];
        if (!l->gpu || run > 1) continue;
        for (LaneWindow w = LaneWindow_begin(t, l, t0, t1); LaneWindow_next(&w);) {
            if (w.ev->kind != KIND_KERNEL) continue;
            k[w.ev->name].count[run]++;
            k[w.ev->name].total[run] += w.end > w.start ? w.end - w.start : 0;
        }
    }
    /* keep the top max by insertion: max is small */
    size_t n = 0;
    for (size_t i = 0; i < n_names; i++) {
        if (!k[i].count[0] && !k[i].count[1]) continue;
        k[i].name = (uint32_t)i;
        size_t j = n < max ? n++ : max;
        if (j == max && !change_before(&k[i], &out[max - 1])) continue;
        if (j == max) j = max - 1;
        while (j > 0 && change_before(&k[i], &out[j - 1])) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = k[i];
    }
    free(k);
    return n;
}

/* The focused run's groups as they open by default (CPU processes folded), the other
 * run's all folded; both runs: the defaults. */
static void apply_focus(App *a, const CompareState *c) {
    Lines_defaultCollapsed(a->t, a->collapsed);
    for (size_t g = 0; g < a->t->n_groups; g++) {
        int r = (int)c->run_of_source[a->t->groups[g].source];
        if (c->focus >= 0 && r != c->focus) a->collapsed[g] = true;
    }
    App_rebuildLines(a);
    if (a->v.line >= a->lines.n) a->v.line = a->lines.n ? a->lines.n - 1 : 0;
}

/* The keys' state, or NULL with a message when no runs are compared. */
static CompareState *comparing(App *a) {
    CompareState *c = Feature_state(a, &Compare_feature);
    if (c->n_runs) return c;
    App_message(a, ROLE_ERROR, "not comparing runs (ovtrace view A B --align start)");
    return NULL;
}

static unsigned k_focus(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    CompareState *c = comparing(a);
    if (!c) return REDRAW_VIEW;
    /* both -> first run -> second run -> both */
    c->focus = c->focus + 1 >= (int)c->n_runs ? -1 : c->focus + 1;
    apply_focus(a, c);
    if (c->focus < 0) App_message(a, ROLE_STATUS, "showing both runs (V: only %s)", c->names[0]);
    else App_message(a, ROLE_STATUS, "showing %s, other run folded (V: next)", c->names[c->focus]);
    return REDRAW_VIEW;
}

static unsigned k_panel(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    CompareState *c = comparing(a);
    if (!c) return REDRAW_VIEW;
    c->panel = !c->panel;
    if (c->panel) a->v.panel_hidden = false;
    return REDRAW_VIEW;
}

/* The panel's figures follow the visible range. */
static void cmp_sync(App *a, void *st) {
    CompareState *c = st;
    if (!c->panel) return;
    if (c->valid && c->fig_t0 == a->v.t0 && c->fig_t1 == a->v.t1) return;
    Compare_figures(a->t, c->run_of_source, c->n_runs, a->v.t0, a->v.t1, c->fig, c->n_devices);
    c->n_changes = c->n_runs == 2 ? Compare_kernelChanges(a->t, c->run_of_source, a->v.t0, a->v.t1, c->changes,
                                                          COMPARE_TOP_KERNELS)
                                  : 0;
    c->fig_t0 = a->v.t0;
    c->fig_t1 = a->v.t1;
    c->valid = true;
}

static void fig_cells(char cell[8][32], const DeviceFigures *d) {
    int64_t v[6] = {d->window, d->busy, d->compute, d->comm, d->overlap, d->exposed};
    for (int k = 0; k < 6; k++) Time_formatUs(cell[k], 32, v[k]);
    if (d->has_comm) snprintf(cell[6], 32, "%.4f", d->ratio);
    else snprintf(cell[6], 32, "no comm");
}

static void delta_cells(char cell[8][32], const DeviceFigures *x, const DeviceFigures *y) {
    int64_t v[6] = {y->window - x->window, y->busy - x->busy, y->compute - x->compute,
                    y->comm - x->comm, y->overlap - x->overlap, y->exposed - x->exposed};
    for (int k = 0; k < 6; k++) {
        cell[k][0] = v[k] > 0 ? '+' : '-';
        Time_formatUs(cell[k] + 1, 31, v[k] < 0 ? -v[k] : v[k]);
        if (v[k] == 0) memmove(cell[k], cell[k] + 1, strlen(cell[k]));
    }
    if (x->has_comm && y->has_comm) snprintf(cell[6], 32, "%+.4f", y->ratio - x->ratio);
    else snprintf(cell[6], 32, "-");
}

/* Width of the run-name column: the longest name, 8 to 28 columns. */
static int name_width(const CompareState *c) {
    int w = 8;
    for (size_t k = 0; k < c->n_runs; k++)
        if ((int)strlen(c->names[k]) > w) w = (int)strlen(c->names[k]);
    return w > 28 ? 28 : w;
}

static const char *const FIG_HEAD[7] = {"window", "busy", "compute", "comm", "overlap", "exposed", "ratio"};

/* The cells of row k (a run, or B - A when k == n_runs); false for a run without GPU
 * activity in the range. */
static bool row_cells(const CompareState *c, size_t k, char cell[8][32]) {
    if (k == c->n_runs) {
        delta_cells(cell, &c->fig[0], &c->fig[1]);
        return true;
    }
    if (!c->n_devices[k]) return false;
    fig_cells(cell, &c->fig[k]);
    return true;
}

/* Each figure column as wide as its header or its widest cell: the figures are never
 * cut where the panel is narrow. Returns the columns the figures take. */
static int fig_widths(const CompareState *c, int wid[7]) {
    char cell[8][32];
    for (int j = 0; j < 7; j++) wid[j] = (int)strlen(FIG_HEAD[j]);
    size_t rows = c->n_runs + (c->n_runs == 2);
    for (size_t k = 0; k < rows; k++) {
        if (!row_cells(c, k, cell)) continue;
        for (int j = 0; j < 7; j++)
            if ((int)strlen(cell[j]) > wid[j]) wid[j] = (int)strlen(cell[j]);
    }
    int w = 0;
    for (int j = 0; j < 7; j++) w += wid[j] + 1;
    return w;
}

static void figures_header(Grid *g, Rect r, int y, int name_w, const int wid[7]) {
    int x = r.x + name_w + 1;
    for (int k = 0; k < 7; k++) {
        char h[16];
        snprintf(h, sizeof h, "%*s", wid[k], FIG_HEAD[k]);
        x += Grid_text(g, x, y, r.x + r.w - x, h, ROLE_PANEL_KEY, ATTR_BOLD) + 1;
    }
    Grid_text(g, x, y, r.x + r.w - x, "(us)", ROLE_DIM, 0);
}

/* One line per run, then B - A (green when less communication is exposed); returns
 * the next free line. */
static int figures_rows(Grid *g, Rect r, int y, const CompareState *c, int name_w, const int wid[7]) {
    char cell[8][32];
    for (size_t k = 0; k <= c->n_runs && y < r.y + r.h; k++, y++) {
        bool delta = k == c->n_runs;
        if (delta && c->n_runs < 2) break;
        int role = ROLE_PANEL;
        if (!row_cells(c, k, cell)) {
            Grid_text(g, r.x, y, name_w, c->names[k], ROLE_PANEL, ATTR_BOLD);
            Grid_text(g, r.x + name_w + 1, y, r.w - name_w - 1, "no GPU activity in the range", ROLE_DIM, 0);
            continue;
        }
        if (delta) {
            int64_t d = c->fig[1].exposed - c->fig[0].exposed;
            role = d < 0 ? ROLE_GOOD : d > 0 ? ROLE_BAD : ROLE_PANEL;
        }
        Grid_text(g, r.x, y, name_w, delta ? "B - A" : c->names[k], ROLE_PANEL, ATTR_BOLD);
        int x = r.x + name_w + 1;
        for (int j = 0; j < 7; j++) {
            char v[48];
            snprintf(v, sizeof v, "%*.32s", wid[j], cell[j]);
            x += Grid_text(g, x, y, r.x + r.w - x, v, role, 0) + 1;
        }
    }
    return y;
}

/* The kernels that changed most, leaving the last line free; returns the next line. */
static int kernel_rows(Grid *g, Rect r, int y, const CompareState *c, const Trace *t) {
    if (!c->n_changes || y + 1 >= r.y + r.h) return y;
    Grid_printf(g, r.x, y++, r.w, ROLE_PANEL_KEY, ATTR_BOLD, "%8s %8s %10s %10s %10s  %s", "count A", "count B",
                "total A", "total B", "B - A", "kernels changed most in the range (us)");
    for (size_t i = 0; i < c->n_changes && y < r.y + r.h - 1; i++, y++) {
        const CompareKernel *k = &c->changes[i];
        char ta[32], tb[32], dd[8][32];
        Time_formatUs(ta, sizeof ta, k->total[0]);
        Time_formatUs(tb, sizeof tb, k->total[1]);
        DeviceFigures x = {0}, z = {0};
        x.window = k->total[0];
        z.window = k->total[1];
        delta_cells(dd, &x, &z);
        int x0 = r.x + Grid_printf(g, r.x, y, r.w, ROLE_PANEL, 0, "%8zu %8zu %10s %10s %10s  ", k->count[0],
                                   k->count[1], ta, tb, dd[0]);
        Grid_text(g, x0, y, r.x + r.w - x0, StrTab_get(t->strings, k->name), ROLE_PANEL, 0);
    }
    return y;
}

/* The figures' columns: run names, the seven figures, "(us)". */
static int cmp_width(const App *a, const void *st) {
    (void)a;
    const CompareState *c = st;
    int wid[7];
    return c && c->panel && c->valid ? name_width(c) + 1 + fig_widths(c, wid) + 4 : 0;
}

/* The diff panel, when it is on, instead of the side panel. */
static bool cmp_panel(App *a, void *st, Grid *g, Rect panel, bool at_right) {
    CompareState *c = st;
    if (!c->panel || !c->valid) return false;
    Rect r = Panel_frame(g, panel, at_right, "Runs compared, visible range (C: details)", a->gl);
    if (r.w <= 0 || r.h <= 0) return true;
    int y = r.y;
    char s0[32], s1[32];
    Time_format(s0, sizeof s0, c->fig_t0);
    Time_format(s1, sizeof s1, c->fig_t1);
    Grid_printf(g, r.x, y++, r.w, ROLE_PANEL, 0, "%s..%s of each run (aligned clocks), all devices summed", s0, s1);
    int name_w = name_width(c), wid[7];
    fig_widths(c, wid);
    if (y < r.y + r.h) figures_header(g, r, y++, name_w, wid);
    y = figures_rows(g, r, y, c, name_w, wid);
    y = kernel_rows(g, r, y, c, a->t);
    if (y < r.y + r.h)
        Grid_text(g, r.x, y, r.w, "V: show both runs / only A / only B    ovtrace diff A B: every figure, per kernel",
                  ROLE_DIM, 0);
    return true;
}

static const KeyBinding COMPARE_KEYS[] = {
    {{'V'}, "V", "runs compared (view A B --align): both / only A / only B", k_focus, 0},
    {{'C'}, "C", "runs compared: A vs B panel for the visible range", k_panel, 0},
};

const Feature Compare_feature = {
    .name = "runs compared",
    FEATURE_KEYS(COMPARE_KEYS),
    .init = cmp_init,
    .free = cmp_free,
    .sync = cmp_sync,
    .panel = cmp_panel,
    .panel_width = cmp_width,
};
