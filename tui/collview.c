/* Collectives in the viewer (collview.h). */
#include "ovtrace/base/alloc.h"
#include "collview.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/model/timeunits.h"
#include "app.h"
#include "details.h"
#include "lanes_render.h"
#include "feature.h"

/* Not a glyph of the band states (░ ▒ █ ▄, ASCII . = + ! m) nor of event fills. */
uint32_t CollView_waitGlyph(bool unicode) { return unicode ? 0x259a : '-'; }

typedef struct {
    CollReport *report;     /* read through taken() */
    bool done;              /* matched for this model (report NULL: nothing to match) */
    struct Match *match;    /* the matching under way (taken() ends it), or NULL */
    const CollOptions *opt; /* Coll_analyze's options (NULL: defaults; the caller's) */
    CollDeviceSplit *split; /* the marked range, per device */
    size_t n_split;
    CollArrivals arrivals;  /* the marked range's instances: who arrived last */
    char straggler[256];    /* the marked range's straggler sentence (as stats --range) */
    int64_t split_a, split_b; /* what split was computed for */
} CollViewState;

extern const Feature CollView_feature;

static CollViewState *state(const App *a) { return Feature_state(a, &CollView_feature); }

/* Coll_analyze of one model on a thread of its own. The model outlives it: a model is
 * replaced through App_setTrace, whose retrace (cv_reset) joins the thread first. */
typedef struct Match {
    const Trace *t;
    const CollOptions *opt;
    CollReport *report; /* the thread's result */
    pthread_t th;
    bool started;
} Match;

static void *match_main(void *arg) {
    Match *m = arg;
    m->report = Coll_analyze(m->t, m->opt);
    return NULL;
}

/* Matches t on a thread of its own, so that what the viewer computes meanwhile (the
 * view index, the overview's figures) runs on the other cores; here when no thread
 * can start. */
static Match *match_start(const Trace *t, const CollOptions *opt) {
    Match *m = xcalloc(1, sizeof *m);
    m->t = t;
    m->opt = opt;
    m->started = pthread_create(&m->th, NULL, match_main, m) == 0;
    if (!m->started) match_main(m);
    return m;
}

/* The report, once the matching has ended (joined on the first use: the one change a
 * const view of the state makes). */
static CollReport *taken(const CollViewState *cs) {
    CollViewState *s = (CollViewState *)cs;
    Match *m = s->match;
    if (m) {
        if (m->started) pthread_join(m->th, NULL);
        s->report = m->report;
        s->match = NULL;
        free(m);
    }
    return s->report;
}

static void *cv_init(App *a) {
    (void)a;
    return xcalloc(1, sizeof(CollViewState));
}

/* Forgets the report and the split (the model was replaced). */
static void cv_reset(App *a, void *st, const Trace *old) {
    (void)a, (void)old;
    CollViewState *s = st;
    CollReport_free(taken(s));
    s->report = NULL;
    s->done = false;
    free(s->split);
    s->split = NULL;
    s->n_split = 0;
    CollArrivals_free(&s->arrivals);
}

static void cv_free(App *a, void *st) {
    cv_reset(a, st, NULL);
    free(st);
}

void CollView_setOptions(App *a, const CollOptions *opt) { state(a)->opt = opt; }
const CollOptions *CollView_options(const App *a) { return state(a)->opt; }
const CollReport *CollView_report(const App *a) { return taken(state(a)); }

bool CollView_matched(const App *a) { return state(a)->report || state(a)->match; }

const CollDeviceSplit *CollView_rangeSplit(const App *a, size_t *n) {
    *n = state(a)->n_split;
    return state(a)->split;
}

void CollView_adopt(App *a, CollReport *R) {
    CollViewState *s = state(a);
    CollReport_free(taken(s));
    s->report = R;
    s->done = true;
}

/* The legend names the wait glyph when a rank waited in a matched collective (for a
 * run summary: when it stores a wait). */
static uint32_t cv_legend(const App *a, const void *st) {
    const CollReport *R = taken(st);
    if (a->t->group_summary)
        for (size_t g = 0; g < a->t->n_groups; g++)
            if (a->t->group_summary[g].n_wait) return CollView_waitGlyph(a->gl->unicode);
    if (!R) return 0;
    for (size_t i = 0; i < R->n_ranks; i++)
        if (R->ranks[i].wait > 0) return CollView_waitGlyph(a->gl->unicode);
    return 0;
}

static bool several_ranks(const Trace *t) {
    for (size_t i = 1; i < t->n_sources; i++)
        if (t->sources[i].rank != t->sources[0].rank) return true;
    return false;
}

/* Matches once per model (two ranks or more), on a thread while the frame goes on; the
 * split follows the marked range. */
static void cv_sync(App *a, void *st) {
    CollViewState *s = st;
    if (!s->done) {
        s->done = true;
        if (several_ranks(a->t)) s->match = match_start(a->t, s->opt);
    }
    if (!View_rangeSet(&a->v) || !taken(s)) return;
    int64_t r0, r1;
    View_range(&a->v, &r0, &r1);
    if (s->split && r0 == s->split_a && r1 == s->split_b) return;
    free(s->split);
    s->split = Coll_deviceSplit(a->t, s->report, r0, r1, INT32_MIN, &s->n_split);
    CollArrivals_free(&s->arrivals);
    Coll_arrivals(s->report, r0, r1, &s->arrivals);
    Coll_stragglerLine(s->report, &s->arrivals, true, s->straggler, sizeof s->straggler);
    s->split_a = r0;
    s->split_b = r1;
}

App *App_newMatching(Trace *t, Caps caps, const char *title, const CollOptions *opt) {
    Match *m = several_ranks(t) ? match_start(t, opt) : NULL;
    App *a = App_new(t, caps, title);
    CollViewState *s = state(a);
    s->opt = opt;
    s->match = m;
    s->done = true;
    return a;
}

/* In a cell that a single comm kernel fills, the part before the last rank arrived
 * gets the wait glyph in the dim role; cells holding a name are left. */
static void cv_mark_row(App *a, void *st, Grid *g, int y, Rect plot, uint32_t row, const ColumnInfo *cols) {
    const CollReport *R = taken(st);
    (void)row;
    if (!R) return;
    const Trace *t = a->t;
    const ViewState *v = &a->v;
    int W = plot.w;
    uint32_t glyph = CollView_waitGlyph(a->gl->unicode);
    for (int c = 0; c < W;) {
        if (cols[c].n != 1) {
            c++;
            continue;
        }
        size_t ev = cols[c].ev;
        int e = c;
        while (e < W && cols[e].n == 1 && cols[e].ev == ev) e++;
        const TraceEvent *te = &t->events[ev];
        int64_t ws, we;
        if (te->cls == CLASS_COMM && te->kind == KIND_KERNEL && Coll_waitPart(R, ev, &ws, &we) && we > ws) {
            for (int k = c; k < e; k++) {
                int64_t ca = TraceIndex_colTime(v->t0, v->t1, W, k), cb = TraceIndex_colTime(v->t0, v->t1, W, k + 1);
                int64_t mid = ca + (cb - ca) / 2;
                if (mid < ws || mid >= we) continue; /* the cell is mostly transfer */
                Cell *cell = Grid_at(g, plot.x + k, y);
                if (cell->role == ROLE_CLASS_TEXT + CLASS_COMM) { /* the name stays, off the comm colour */
                    cell->role = ROLE_DIM;
                    continue;
                }
                if (cell->role == ROLE_MATCH) { /* a search match keeps its colour, shows the glyph */
                    cell->ch = glyph;
                    continue;
                }
                if (cell->role != ROLE_CLASS + CLASS_COMM) continue;
                cell->ch = glyph;
                cell->role = ROLE_DIM;
                cell->attr = 0;
            }
        }
        c = e;
    }
}

/* The member of the selection, or NULL. */
static const CollMember *sel_member(const App *a) {
    const CollReport *R = taken(state(a));
    if (!R || a->v.sel == SIZE_MAX || a->v.sel >= a->t->n_events) return NULL;
    return Coll_memberOf(R, a->v.sel);
}

int CollView_detailsLines(const App *a) {
    const CollMember *m = sel_member(a);
    if (!m) return 0;
    return 4 + (int)taken(state(a))->inst[m->inst].n;
}

static void fmt(char *b, size_t n, int64_t ns) { Details_formatPrecise(b, n, ns); }

/* The instance's members in arrival order (members are stored by rank): an index. */
static uint32_t *arrival_order(const CollMember *mb, uint32_t n) {
    uint32_t *ord = xmalloc((n ? n : 1) * sizeof *ord);
    for (uint32_t i = 0; i < n; i++) ord[i] = i;
    for (uint32_t i = 1; i < n; i++) { /* insertion: n is the rank count */
        uint32_t x = ord[i], j = i;
        while (j > 0 && (mb[ord[j - 1]].start > mb[x].start ||
                         (mb[ord[j - 1]].start == mb[x].start && mb[ord[j - 1]].rank > mb[x].rank))) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = x;
    }
    return ord;
}

/* The arrivals table: its header and rows (row: arrival, rank, start, wait, "  last"). */
#define ARRIVAL_HEAD "arrival  rank  start after first          wait   x/X: last/next rank"
#define ARRIVAL_ROW  "%7u  %4d  %17s  %12s"
/* The wait table of the range panel: its header, rows and what they mean (the
 * columns and words of `stats --range`'s collectives table). */
#define SPLIT_HEAD "%-6s %9s %9s %9s %9s %9s %4s %9s  (us)"
#define SPLIT_ROW  "%-6s %9s %9s %9s %9s %9s %4zu %9s"
#define SPLIT_NOTE "wait: before the last rank arrived; exp.: exposed (nothing computes); last: collectives the rank arrived last at; waited on: the others' wait for it"

/* One line per rank from y on, in arrival order; short of room, the last arrival still
 * shows on the last line. */
static void render_arrivals(Grid *g, Rect r, int y, const CollReport *R, const CollMember *m) {
    const CollInstance *I = &R->inst[m->inst];
    const CollMember *mb = &R->members[I->first];
    uint32_t n = I->n, *ord = arrival_order(mb, n);
    int room = r.y + r.h - y;
    for (uint32_t i = 0; i < n && y < r.y + r.h; i++, y++) {
        if ((int)n > room && y == r.y + r.h - 1) i = n - 1;
        const CollMember *x = &mb[ord[i]];
        char st[32], wt[32];
        fmt(st, sizeof st, x->start - I->first_start);
        fmt(wt, sizeof wt, x->wait);
        int role = x == m ? ROLE_SELECTED_TEXT : x->rank == I->last_rank ? ROLE_BAD : ROLE_PANEL;
        Grid_printf(g, r.x, y, r.w, role, 0, ARRIVAL_ROW "%s", i + 1, x->rank, st, wt,
                    x->rank == I->last_rank ? "  last" : "");
    }
    free(ord);
}

/* The collective of member m (the selection): its name and skew, this rank's wait and
 * transfer, then every rank in arrival order. */
static void render_details(Grid *g, Rect r, const Trace *t, const CollReport *R, const CollMember *m, bool unicode) {
    if (!m || r.h <= 0) return;
    const CollInstance *I = &R->inst[m->inst];
    int y = r.y;
    char name[160], w[32], tr[32], sk[32];
    Lanes_shortName(Coll_nameStr(t, R, I->name), name, sizeof name, unicode);
    fmt(sk, sizeof sk, I->skew);
    Grid_printf(g, r.x, y++, r.w, ROLE_PANEL_KEY, ATTR_BOLD, "collective #%" PRIu64 " on %u ranks: %s", I->seq, I->n,
                name);
    if (y >= r.y + r.h) return;
    fmt(w, sizeof w, m->wait);
    fmt(tr, sizeof tr, m->transfer);
    Grid_printf(g, r.x, y++, r.w, ROLE_PANEL, 0, "this rank waited %s, transferred %s", w, tr);
    if (y >= r.y + r.h) return;
    Grid_printf(g, r.x, y++, r.w, ROLE_PANEL, 0, "rank %d arrived last (skew %s)", I->last_rank, sk);
    if (y >= r.y + r.h) return;
    Grid_text(g, r.x, y++, r.w, ARRIVAL_HEAD, ROLE_PANEL_KEY, 0);
    render_arrivals(g, r, y, R, m);
}

int CollView_rangeLines(const App *a, int w) {
    const CollViewState *s = state(a);
    const CollReport *R = taken(s);
    if (!R || !s->split || !View_rangeSet(&a->v)) return 0;
    Rect r = {0, 0, w, 1};
    int why = R->unreliable ? Details_wrapText(NULL, r, 0, R->unreliable_why, 0) : 0;
    return 1 + (int)(s->n_split < 8 ? s->n_split : 8) + Details_wrapText(NULL, r, 0, s->straggler, 0) +
           Details_wrapText(NULL, r, 0, SPLIT_NOTE, 0) + why;
}

/* The columns the section's tables take (the panel is laid out to show them whole). */
static int cv_width(const App *a, const void *st) {
    (void)st;
    char h[128];
    if (a->v.panel == PANEL_RANGE && View_rangeSet(&a->v))
        return CollView_rangeLines(a, 80) ? snprintf(h, sizeof h, SPLIT_HEAD, "", "", "", "", "", "", "", "") : 0;
    return sel_member(a) ? (int)strlen(ARRIVAL_HEAD) : 0;
}

/* The straggler of the range, then wait vs transfer per device over the range (8
 * devices at most) with the collectives each rank arrived last at and the others' wait
 * for it. */
static void render_range(Grid *g, Rect r, const CollViewState *s) {
    if (r.h <= 0) return;
    int y = r.y;
    /* who the others waited for first: the table may not fit whole */
    y += Details_wrapText(g, r, y, s->straggler, s->arrivals.straggler >= 0 ? ROLE_BAD : ROLE_PANEL);
    if (y >= r.y + r.h) return;
    Grid_printf(g, r.x, y++, r.w, ROLE_PANEL_KEY, ATTR_BOLD, SPLIT_HEAD, "dev", "comm", "wait", "transfer", "exp.wait",
                "exp.xfer", "last", "waited on");
    const CollReport *R = taken(s);
    for (size_t i = 0; i < s->n_split && i < 8 && y < r.y + r.h; i++, y++) {
        const CollDeviceSplit *d = &s->split[i];
        const CollRank *cr = Coll_rank(R, d->rank);
        size_t ri = cr ? (size_t)(cr - R->ranks) : R->n_ranks; /* the arrays hold one slot more */
        char c[6][32], dev[32];
        Time_formatUs(c[0], 32, d->comm);
        Time_formatUs(c[1], 32, d->wait);
        Time_formatUs(c[2], 32, d->transfer);
        Time_formatUs(c[3], 32, d->exposed_wait);
        Time_formatUs(c[4], 32, d->exposed_transfer);
        Time_formatUs(c[5], 32, s->arrivals.waited_for[ri]);
        snprintf(dev, sizeof dev, "r%d:%" PRId64, d->rank, d->device);
        Grid_printf(g, r.x, y, r.w, d->exposed_wait > d->exposed_transfer ? ROLE_BAD : ROLE_PANEL, 0,
                    SPLIT_ROW, dev, c[0], c[1], c[2], c[3], c[4], s->arrivals.last[ri], c[5]);
    }
    if (y < r.y + r.h) y += Details_wrapText(g, r, y, SPLIT_NOTE, ROLE_DIM);
    if (y < r.y + r.h && R->unreliable) Details_wrapText(g, r, y, R->unreliable_why, ROLE_ERROR);
}

/* At the bottom of the details panel: the selected collective on every rank; of the
 * range panel: wait vs transfer per device. At most half the panel. */
static int cv_section(App *a, void *st, PanelMode host, Grid *g, Rect c) {
    const CollViewState *s = st;
    int n = host == PANEL_RANGE ? CollView_rangeLines(a, c.w) : CollView_detailsLines(a);
    if (n > c.h / 2) n = c.h / 2;
    Rect r = {c.x, c.y + c.h - n, c.w, n};
    if (host == PANEL_RANGE) render_range(g, r, s);
    else render_details(g, r, a->t, taken(s), sel_member(a), a->gl->unicode);
    return n;
}

/* x: the selected comm kernel's instance on the rank that arrived last; X: on the
 * next rank (cycles). */
static unsigned k_jump(App *a, const TuiKey *k, int arg) {
    (void)k;
    const CollReport *R = taken(state(a));
    if (a->v.sel == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no event selected");
        return REDRAW_VIEW;
    }
    if (!R) {
        App_message(a, ROLE_ERROR, "collectives need two ranks or more (open every rank's file)");
        return REDRAW_VIEW;
    }
    const CollMember *m = Coll_memberOf(R, a->v.sel);
    if (!m) {
        App_message(a, ROLE_ERROR, "not a matched collective (comm kernels matched on two ranks or more)");
        return REDRAW_VIEW;
    }
    const CollInstance *I = &R->inst[m->inst];
    const CollMember *mb = &R->members[I->first], *to;
    if (arg == 0) {
        to = &mb[I->last];
    } else { /* members are in rank order: the next one, cycling */
        uint32_t i = (uint32_t)(m - mb);
        to = &mb[(i + 1) % I->n];
    }
    App_selectEvent(a, to->event);
    char w[32];
    Details_formatPrecise(w, sizeof w, to->wait);
    if (arg == 0)
        App_message(a, ROLE_GOOD, "rank %d arrived last (others waited up to %s%s)", to->rank,
                    (Details_formatPrecise(w, sizeof w, I->skew), w), "; X: next rank");
    else App_message(a, ROLE_GOOD, "rank %d: waited %s for rank %d", to->rank, w, I->last_rank);
    return REDRAW_VIEW;
}

static const KeyBinding COLL_KEYS[] = {
    {{'x'}, "x", "collective: the same instance on the rank that arrived last", k_jump, 0},
    {{'X'}, "X", "collective: the same instance on the next rank", k_jump, 1},
};

const Feature CollView_feature = {
    .name = "collectives",
    FEATURE_KEYS(COLL_KEYS),
    .init = cv_init,
    .free = cv_free,
    .retrace = cv_reset,
    .sync = cv_sync,
    .mark_row = cv_mark_row,
    .legend = cv_legend,
    .section = cv_section,
    .panel_width = cv_width,
};
