/* Rank overview (overview.h). */
#include "ovtrace/base/alloc.h"
#include "overview.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/overlap.h"
#include "app.h"
#include "collview.h"
#include "lanes_render.h"
#include "tindex.h"
#include "feature.h"
#include "lazyload.h"

typedef struct {
    bool on;
    int64_t *exposed; /* per group: the labels' exposed comm over the whole trace (-1: no
                         GPU work); NULL until computed */
    /* a frame's wait columns of every GPU group (wide windows), for its rank lines */
    int64_t *wait;    /* n_slots rows of wait_w columns */
    uint32_t *slot;   /* per group: its row, UINT32_MAX for the others */
    const CollReport *wait_R;
    int64_t wait_t0, wait_t1;
    int wait_w;
} OverviewState;

extern const Feature Overview_feature;

static OverviewState *state(const App *a) { return Feature_state(a, &Overview_feature); }

size_t Overview_ranks(const Trace *t) {
    size_t n = 0;
    int32_t last = INT32_MIN;
    bool sorted = true;
    for (uint32_t g = 0; g < t->n_groups; g++) { /* groups are in rank order */
        if (!t->groups[g].gpu) continue;
        if (t->groups[g].rank < last) sorted = false;
        if (t->groups[g].rank != last) n++;
        last = t->groups[g].rank;
    }
    return sorted ? n : t->n_sources;
}

void Overview_lines(Lines *L, const Trace *t) {
    L->n = 0;
    for (uint32_t g = 0; g < t->n_groups; g++) {
        if (!t->groups[g].gpu) continue;
        Lines_push(L, (Line){LINE_BAND, g, 0, 0});
    }
}

static void short_time(char *b, size_t n, int64_t ns) {
    if (ns >= 1000000000) snprintf(b, n, "%.2fs", (double)ns / 1e9);
    else if (ns >= 1000000) snprintf(b, n, "%.1fms", (double)ns / 1e6);
    else snprintf(b, n, "%.0fus", (double)ns / 1e3);
}

/* "r7 12.3ms L5": the device's exposed comm over the whole trace, times its rank arrived
 * last; '*' while the lazy load's CPU lanes are loading. */
static void label(const App *a, const OverviewState *s, uint32_t group, char *buf, size_t n) {
    const Group *G = &a->t->groups[group];
    int64_t exposed = s->exposed ? s->exposed[group] : -1;
    const CollReport *R = CollView_report(a);
    const CollRank *cr = R ? Coll_rank(R, G->rank) : NULL;
    char last[24];
    snprintf(last, sizeof last, "%zu", cr ? cr->arrived_last : 0);
    if (a->t->group_summary) { /* a run summary: its figures ('-' where it has none, format 1) */
        const GroupSummary *S = &a->t->group_summary[group];
        if (S->exposed >= 0) exposed = S->exposed;
        if (S->arrived_last >= 0) snprintf(last, sizeof last, "%" PRId64, S->arrived_last);
        else snprintf(last, sizeof last, "-");
    }
    char ex[24] = "-";
    if (exposed >= 0) short_time(ex, sizeof ex, exposed);
    /* '*': the rank's CPU lanes are still loading (lazy overview) */
    snprintf(buf, n, " r%d %s L%s%s", G->rank, ex, last, a->t->gpu_only ? " *" : "");
}

/* The column of x among bounds B[0..ncols] (B[c] = TraceIndex_colTime(c), B[0] <= x <
 * B[ncols]): the last c with B[c] <= x, as TraceIndex_colOf says, without its division. */
static int col_at(const int64_t *B, int ncols, int64_t x) {
    int lo = 0, hi = ncols - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (B[mid] <= x) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Adds the part of the wait [ws, we) that falls in each column of bounds B. */
static void add_wait(int64_t *out, const int64_t *B, int ncols, int64_t ws, int64_t we) {
    if (ws < B[0]) ws = B[0];
    if (we > B[ncols]) we = B[ncols];
    if (we <= ws) return;
    for (int c = col_at(B, ncols, ws); c < ncols && B[c] < we; c++) {
        int64_t s = ws > B[c] ? ws : B[c], en = we < B[c + 1] ? we : B[c + 1];
        if (en > s) out[c] += en - s;
    }
}

static void wait_columns(const Trace *t, const CollReport *R, uint32_t group, const int64_t *B, int ncols,
                         int64_t *out) {
    if (t->group_summary) { /* a run summary: the waits it stores */
        const GroupSummary *S = &t->group_summary[group];
        for (size_t i = 0; i < S->n_wait; i++) add_wait(out, B, ncols, S->wait[2 * i], S->wait[2 * i + 1]);
        return;
    }
    if (!R) return;
    const Group *G = &t->groups[group];
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
        const Lane *L = &t->lanes[li];
        for (uint32_t k = 0; k < L->n_rows; k++) {
            /* a row's events in the window are those from its lower bound on, until one
             * starts at the end; their members follow each other in by_event */
            const Row *row = &t->rows[L->first_row + k];
            size_t i0 = Row_lowerBound(t, row, B[0]), cursor = 0;
            Coll_memberFrom(R, i0, &cursor);
            for (size_t m = cursor; m < R->n_members; m++) {
                size_t i = R->members[R->by_event[m]].event;
                if (m + 32 < R->n_members) __builtin_prefetch(&R->members[R->by_event[m + 32]]);
                const TraceEvent *e = &t->events[i];
                if (i >= row->first + row->count || e->ts >= B[ncols]) break;
                int64_t ws, we;
                size_t at = m;
                if (e->cls == CLASS_COMM && e->kind == KIND_KERNEL && Coll_waitPartFrom(R, i, &at, &ws, &we))
                    add_wait(out, B, ncols, ws, we);
            }
        }
    }
}

/* The columns' bounds, once: a wait finds its column by search, not by division. */
static int64_t *col_bounds(int64_t t0, int64_t t1, int ncols) {
    int64_t *B = xmalloc(((size_t)ncols + 1) * sizeof *B);
    for (int c = 0; c <= ncols; c++) B[c] = TraceIndex_colTime(t0, t1, ncols, c);
    return B;
}

void Overview_waitColumns(const Trace *t, const CollReport *R, uint32_t group, int64_t t0, int64_t t1, int ncols,
                          int64_t *out) {
    memset(out, 0, (size_t)ncols * sizeof *out);
    if (t1 <= t0 || ncols <= 0) return;
    int64_t *B = col_bounds(t0, t1, ncols);
    wait_columns(t, R, group, B, ncols, out);
    free(B);
}

void Overview_waitColumnsAll(const Trace *t, const CollReport *R, const uint32_t *slot, size_t n_slots, int64_t t0,
                             int64_t t1, int ncols, int64_t *out) {
    memset(out, 0, n_slots * (size_t)ncols * sizeof *out);
    if (t1 <= t0 || ncols <= 0) return;
    int64_t *B = col_bounds(t0, t1, ncols);
    if (t->group_summary || !R) {
        for (uint32_t g = 0; g < t->n_groups; g++)
            if (slot[g] != UINT32_MAX) wait_columns(t, R, g, B, ncols, out + (size_t)slot[g] * (size_t)ncols);
        free(B);
        return;
    }
    /* the members in their own order: an instance's, rank by rank; the k-th member of
     * the next instance is mostly on the same lane (hint[k]), else its event says */
    uint32_t *hint = xcalloc(R->n_ranks + 1, sizeof *hint);
    for (size_t i = 0; i < R->n_inst; i++) {
        const CollInstance *I = &R->inst[i];
        for (uint32_t k = 0; k < I->n && k <= R->n_ranks; k++) {
            const CollMember *m = &R->members[I->first + k];
            const Lane *L = &t->lanes[hint[k]];
            if (m->event < L->first || m->event >= L->first + L->count) hint[k] = t->events[m->event].lane;
            uint32_t g = t->lanes[hint[k]].group, sl = slot[g];
            int64_t dur = m->end - m->start;
            if (sl != UINT32_MAX)
                add_wait(out + (size_t)sl * (size_t)ncols, B, ncols, m->start, m->start + (m->wait < dur ? m->wait : dur));
        }
    }
    free(hint);
    free(B);
}

static void forget_waits(OverviewState *s) {
    free(s->wait);
    free(s->slot);
    s->wait = NULL;
    s->slot = NULL;
}

/* Group g's wait columns over the view. A window of a quarter of the trace or more
 * holds most members: every GPU group's columns at once, in one pass, kept for the
 * frame's other rank lines; a narrower one walks the group's own events. */
static const int64_t *wait_row(const App *a, OverviewState *s, const CollReport *R, uint32_t g, int w,
                               int64_t *own) {
    const Trace *t = a->t;
    int64_t t0 = a->v.t0, t1 = a->v.t1;
    if ((uint64_t)t1 - (uint64_t)t0 < ((uint64_t)t->t_max - (uint64_t)t->t_min) / 4) {
        Overview_waitColumns(t, R, g, t0, t1, w, own);
        return own;
    }
    if (!s->wait || s->wait_R != R || s->wait_t0 != t0 || s->wait_t1 != t1 || s->wait_w != w) {
        forget_waits(s);
        s->slot = xmalloc((t->n_groups + 1) * sizeof *s->slot);
        size_t n = 0;
        for (uint32_t k = 0; k < t->n_groups; k++) s->slot[k] = t->groups[k].gpu ? (uint32_t)n++ : UINT32_MAX;
        s->wait = xmalloc((n + 1) * (size_t)w * sizeof *s->wait);
        Overview_waitColumnsAll(t, R, s->slot, n, t0, t1, w, s->wait);
        s->wait_R = R;
        s->wait_t0 = t0;
        s->wait_t1 = t1;
        s->wait_w = w;
    }
    return s->wait + (size_t)s->slot[g] * (size_t)w;
}

/* After the band of a rank line is drawn: columns where the device is mostly in exposed
 * comm and more than half of the column is wait get the wait glyph. */
static void mark_band(const App *a, OverviewState *s, Grid *g, int x, int y, int w, uint32_t group,
                      const int64_t *band) {
    const CollReport *R = CollView_report(a);
    if ((!R && !a->t->group_summary) || w <= 0) return;
    int64_t *own = xmalloc((size_t)w * sizeof *own);
    const int64_t *wait = wait_row(a, s, R, group, w, own);
    uint32_t glyph = CollView_waitGlyph(a->gl->unicode);
    for (int c = 0; c < w; c++) {
        const int64_t *s = &band[c * BAND__COUNT];
        int64_t col = TraceIndex_colTime(a->v.t0, a->v.t1, w, c + 1) - TraceIndex_colTime(a->v.t0, a->v.t1, w, c);
        int64_t most = 0;
        for (int k = 0; k < BAND__COUNT; k++)
            if (s[k] > most) most = s[k];
        if (s[BAND_EXPOSED] == most && most > 0 && wait[c] * 2 > col) {
            Cell *cell = Grid_at(g, x + c, y);
            cell->ch = glyph;
            cell->role = ROLE_BAND + BAND_EXPOSED;
        }
    }
    free(own);
}

static unsigned k_toggle(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    OverviewState *s = state(a);
    uint32_t g = a->lines.n ? a->lines.v[a->v.line].group : 0;
    s->on = !s->on;
    App_rebuildLines(a);
    size_t line = Lines_findGroup(&a->lines, g);
    if (s->on) {
        for (size_t i = 0; i < a->lines.n; i++)
            if (a->lines.v[i].group == g) line = i;
    }
    a->v.line = line != SIZE_MAX ? line : 0;
    View_scrollToLine(&a->v, a->lines.n);
    App_message(a, ROLE_GOOD,
                s->on ? "rank overview: one line per device (Enter expands a rank, O: all lanes)"
                      : "all lanes (O: rank overview)");
    return REDRAW_VIEW;
}

/* Enter or Space on a rank: that rank expanded, the overview off. */
static bool ov_activate(App *a, void *st, const TuiKey *k, unsigned *redraw) {
    (void)k;
    OverviewState *s = st;
    if (!s->on) return false;
    uint32_t g = a->lines.v[a->v.line].group;
    s->on = false;
    for (uint32_t i = 0; i < a->t->n_groups; i++)
        if (a->t->groups[i].gpu) a->collapsed[i] = i != g;
    a->collapsed[g] = false;
    App_rebuildLines(a);
    size_t line = Lines_findGroup(&a->lines, g);
    a->v.line = line != SIZE_MAX ? line : 0;
    View_scrollToLine(&a->v, a->lines.n);
    if (a->t->summary) { /* a run summary: the rank's own trace replaces it */
        const Group *G = &a->t->groups[g];
        char what[64];
        snprintf(what, sizeof what, "rank %d's trace", G->rank);
        if (LazyLoad_openFile(a, a->t->sources[G->source].path, what))
            App_message(a, ROLE_GOOD, "rank %d: loading its trace (the summary's bands until then)", G->rank);
        else App_message(a, ROLE_ERROR, "rank %d: a trace is already loading", G->rank);
    } else if (a->t->gpu_only) /* lazy overview: the rank's CPU lanes arrive with the full load */
        App_message(a, ROLE_GOOD, "rank %d expanded: GPU lanes; CPU lanes loading (they appear when loaded; O: overview)",
                    a->t->groups[g].rank);
    else App_message(a, ROLE_GOOD, "rank %d expanded (O: back to the rank overview)", a->t->groups[g].rank);
    *redraw = REDRAW_VIEW;
    return true;
}

static void *ov_init(App *a) {
    OverviewState *s = xcalloc(1, sizeof *s);
    s->on = Overview_ranks(a->t) >= OVERVIEW_MIN_RANKS || a->t->summary; /* a summary is its overview */
    return s;
}

static void ov_retrace(App *a, void *st, const Trace *old) {
    (void)a, (void)old;
    OverviewState *s = st;
    free(s->exposed);
    s->exposed = NULL;
    forget_waits(s);
}

static void ov_free(App *a, void *st) {
    ov_retrace(a, st, NULL);
    free(st);
}

bool Overview_on(const App *a) { return state(a)->on; }

/* Whether group g has GPU work (what Coll_deviceSplit counts). */
static bool has_gpu_work(const Trace *t, uint32_t g) {
    const Group *G = &t->groups[g];
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
        const Lane *L = &t->lanes[li];
        for (size_t i = L->first; i < L->first + L->count; i++)
            if (Overlap_counts(&t->events[i])) return true;
    }
    return false;
}

int64_t Overview_exposed(const App *a, uint32_t group) {
    const Trace *t = a->t;
    if (group >= t->n_groups || !t->groups[group].gpu || !has_gpu_work(t, group)) return -1;
    int64_t band[BAND__COUNT];
    TraceIndex_band(a->idx, t, group, t->t_min, t->t_max, 1, band);
    return band[BAND_EXPOSED];
}

/* The labels' exposed comm, where the collectives are matched (after the collectives
 * view's sync). It needs no matching: the view index's band sums hold it. */
static void ov_sync(App *a, void *st) {
    OverviewState *s = st;
    if (!s->on || s->exposed || !CollView_matched(a)) return;
    s->exposed = xmalloc((a->t->n_groups + 1) * sizeof *s->exposed);
    for (uint32_t g = 0; g < a->t->n_groups; g++) s->exposed[g] = Overview_exposed(a, g);
}

/* The overview's lines replace the timeline's. */
static void ov_lines(App *a, void *st, Lines *L) {
    if (((OverviewState *)st)->on) Overview_lines(L, a->t);
}

/* A rank line: its label, its device's band, the wait columns marked. */
static bool ov_draw_line(App *a, void *st, Grid *g, const LineSlot *ls) {
    OverviewState *s = st;
    if (!s->on || ls->line->kind != LINE_BAND) return false;
    char text[160];
    label(a, s, ls->line->group, text, sizeof text);
    Lanes_label(a, g, ls->labels, ls->y, text, ls->selected);
    const int64_t *band = Lanes_band(a, g, ls->line->group, ls->y, ls->plot);
    mark_band(a, s, g, ls->plot.x, ls->y, ls->plot.w, ls->line->group, band);
    return true;
}

/* The legend says what a rank line's label holds (the events' colours: no event is drawn). */
static const char *ov_legend_note(const App *a, const void *st) {
    (void)a;
    return ((const OverviewState *)st)->on ? OVERVIEW_LABEL_KEY : NULL;
}

static const KeyBinding OVERVIEW_KEYS[] = {
    {{'O'}, "O", "rank overview: one line per device (default from 8 ranks); Enter expands", k_toggle, 0},
};

const Feature Overview_feature = {
    .name = "rank overview",
    FEATURE_KEYS(OVERVIEW_KEYS),
    .init = ov_init,
    .free = ov_free,
    .retrace = ov_retrace,
    .sync = ov_sync,
    .activate = ov_activate,
    .lines = ov_lines,
    .draw_line = ov_draw_line,
    .legend_note = ov_legend_note,
};
