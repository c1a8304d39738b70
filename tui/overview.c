/* Rank overview (include/ovtrace/tui/overview.h). */
#include "ovtrace/base/alloc.h"
#include "ovtrace/tui/overview.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/tui/app.h"
#include "ovtrace/tui/collview.h"
#include "ovtrace/tui/tindex.h"
#include "feature.h"

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

void Overview_label(App *a, uint32_t group, char *buf, size_t n) {
    const Group *G = &a->t->groups[group];
    int64_t exposed = -1;
    for (size_t i = 0; i < a->n_ov_split; i++)
        if (a->ov_split[i].group == group) exposed = a->ov_split[i].exposed;
    const CollRank *cr = a->coll ? Coll_rank(a->coll, G->rank) : NULL;
    char ex[24] = "-";
    if (exposed >= 0) short_time(ex, sizeof ex, exposed);
    /* '*': the rank's CPU lanes are still loading (lazy overview) */
    snprintf(buf, n, " r%d %s L%zu%s", G->rank, ex, cr ? cr->arrived_last : 0, a->t->gpu_only ? " *" : "");
}

void Overview_waitColumns(const Trace *t, const CollReport *R, uint32_t group, int64_t t0, int64_t t1, int ncols,
                          int64_t *out) {
    memset(out, 0, (size_t)ncols * sizeof *out);
    if (!R || t1 <= t0 || ncols <= 0) return;
    const Group *G = &t->groups[group];
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
        const Lane *l = &t->lanes[li];
        for (uint32_t k = 0; k < l->n_rows; k++) {
            const Row *r = &t->rows[l->first_row + k];
            for (size_t i = Row_lowerBound(t, r, t0); i < r->first + r->count; i++) {
                const TraceEvent *e = &t->events[i];
                if (e->ts >= t1) break;
                int64_t ws, we;
                if (e->cls != CLASS_COMM || e->kind != KIND_KERNEL || !Coll_waitPart(R, i, &ws, &we)) continue;
                if (ws < t0) ws = t0;
                if (we > t1) we = t1;
                if (we <= ws) continue;
                int c0 = TraceIndex_colOf(t0, t1, ncols, ws), c1 = TraceIndex_colOf(t0, t1, ncols, we - 1);
                for (int c = c0 < 0 ? 0 : c0; c <= c1 && c < ncols; c++) {
                    int64_t ca = TraceIndex_colTime(t0, t1, ncols, c), cb = TraceIndex_colTime(t0, t1, ncols, c + 1);
                    int64_t s = ws > ca ? ws : ca, en = we < cb ? we : cb;
                    if (en > s) out[c] += en - s;
                }
            }
        }
    }
}

void Overview_markBand(App *a, Grid *g, int x, int y, int w, uint32_t group, const int64_t *band) {
    if (!a->coll || w <= 0) return;
    int64_t *wait = xmalloc((size_t)w * sizeof *wait);
    Overview_waitColumns(a->t, a->coll, group, a->v.t0, a->v.t1, w, wait);
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
    free(wait);
}

unsigned Overview_keyToggle(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    uint32_t g = a->lines.n ? a->lines.v[a->v.line].group : 0;
    a->overview = !a->overview;
    App_rebuildLines(a);
    size_t line = Lines_findGroup(&a->lines, g);
    if (a->overview) {
        for (size_t i = 0; i < a->lines.n; i++)
            if (a->lines.v[i].group == g) line = i;
    }
    a->v.line = line != SIZE_MAX ? line : 0;
    View_scrollToLine(&a->v, a->lines.n);
    App_message(a, ROLE_GOOD, a->overview ? "rank overview: one line per device (Enter expands a rank, O: all lanes)"
                                          : "all lanes (O: rank overview)");
    return REDRAW_VIEW;
}

unsigned Overview_enter(App *a) {
    if (!a->lines.n) return REDRAW_NONE;
    uint32_t g = a->lines.v[a->v.line].group;
    a->overview = false;
    for (uint32_t i = 0; i < a->t->n_groups; i++)
        if (a->t->groups[i].gpu) a->collapsed[i] = i != g;
    a->collapsed[g] = false;
    App_rebuildLines(a);
    size_t line = Lines_findGroup(&a->lines, g);
    a->v.line = line != SIZE_MAX ? line : 0;
    View_scrollToLine(&a->v, a->lines.n);
    if (a->t->gpu_only) /* lazy overview: the rank's CPU lanes arrive with the full load */
        App_message(a, ROLE_GOOD, "rank %d expanded: GPU lanes; CPU lanes loading (they appear when loaded; O: overview)",
                    a->t->groups[g].rank);
    else App_message(a, ROLE_GOOD, "rank %d expanded (O: back to the rank overview)", a->t->groups[g].rank);
    return REDRAW_VIEW;
}

static const KeyBinding OVERVIEW_KEYS[] = {
    {{'O'}, "O", "rank overview: one line per device (default from 8 ranks); Enter expands", Overview_keyToggle, 0},
};
const Feature Overview_feature = {.name = "rank overview", FEATURE_KEYS(OVERVIEW_KEYS)};
