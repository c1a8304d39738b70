/* Timeline rendering: one pass per visible line, O(columns x log n) per row thanks to
 * the per-row index (tindex.c). */
#include "lanes_render.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "app.h"
#include "band.h"
#include "feature.h"

void Lanes_shortName(const char *name, char *out, size_t n, bool unicode) {
    if (!n) return;
    const char *s = name;
    if (!strncmp(s, "void ", 5)) s += 5;
    size_t o = 0;
    int depth = 0;
    for (; *s && o + 4 < n; s++) {
        if (*s == '(' && depth == 0 && s != name) break;
        if (*s == '<') {
            if (depth == 0) {
                out[o++] = '<';
                if (unicode) {
                    memcpy(out + o, "\xe2\x80\xa6", 3); /* … */
                    o += 3;
                } else {
                    out[o++] = '.';
                }
            }
            depth++;
            continue;
        }
        if (*s == '>' && depth > 0) {
            depth--;
            if (depth == 0) out[o++] = '>';
            continue;
        }
        if (depth == 0) out[o++] = *s;
    }
    out[o] = '\0';
}

void Lanes_rankLabel(const Trace *t, uint32_t source, char *buf, size_t n) {
    buf[0] = '\0';
    if (t->n_sources <= 1 || source >= t->n_sources) return;
    int32_t rank = t->sources[source].rank;
    bool repeats = false;
    for (size_t s = 0; s < t->n_sources && !repeats; s++) repeats = s != source && t->sources[s].rank == rank;
    if (!repeats) {
        snprintf(buf, n, "rank %d ", rank);
        return;
    }
    /* two inputs claim this rank: the file tells them apart */
    const char *path = t->sources[source].path ? t->sources[source].path : "?";
    const char *base = strrchr(path, '/');
    snprintf(buf, n, "rank %d %.40s ", rank, base ? base + 1 : path);
}

static void group_label(const App *a, uint32_t gi, char *buf, size_t n) {
    const Trace *t = a->t;
    const Group *G = &t->groups[gi];
    char rank[80];
    Lanes_rankLabel(t, G->source, rank, sizeof rank);
    if (a->runs_labelled && t->n_sources > 1) /* two runs: the group's label already names run and file */
        snprintf(rank, sizeof rank, "rank %d ", t->sources[G->source].rank);
    const char *pname = StrTab_get(t->strings, G->name);
    const char *label = StrTab_get(t->strings, G->label);
    char gpu_n[32];
    snprintf(gpu_n, sizeof gpu_n, "GPU %" PRId64, G->id);
    if (!strcmp(label, gpu_n)) label = ""; /* Kineto's "GPU N" label repeats the header */
    if (G->gpu)
        snprintf(buf, n, "%sGPU %" PRId64 "%s%s  %u stream%s", rank, G->id, *label ? "  " : "", label, G->n_lanes,
                 G->n_lanes == 1 ? "" : "s");
    else if (G->id < 0) /* a string pid ("Spans", ""): the string is its name */
        snprintf(buf, n, "%sCPU \"%s\"  %u thread%s", rank, StrTab_get(t->strings, (uint32_t)(-1 - G->id)),
                 G->n_lanes, G->n_lanes == 1 ? "" : "s");
    else
        snprintf(buf, n, "%sCPU pid %" PRId64 "%s%s  %u thread%s", rank, G->id, *pname ? "  " : "", pname,
                 G->n_lanes, G->n_lanes == 1 ? "" : "s");
}

/* Label of a line (group header text or lane name). */
static void Lanes_rowLabel(const App *a, size_t line, char *buf, size_t n) {
    const Line *L = &a->lines.v[line];
    const Trace *t = a->t;
    if (L->kind == LINE_GROUP) {
        group_label(a, L->group, buf, n);
        return;
    }
    if (L->kind == LINE_BAND) {
        snprintf(buf, n, " overlap");
        return;
    }
    const Row *r = &t->rows[L->row];
    const Lane *l = &t->lanes[L->lane];
    if (r->depth > 0) {
        snprintf(buf, n, "   %*s%u", (int)(r->depth < 8 ? r->depth : 8), "", (unsigned)r->depth);
        return;
    }
    const char *name = StrTab_get(t->strings, l->name);
    if (l->gpu) snprintf(buf, n, " %s", *name ? name : "stream");
    else if (*name) snprintf(buf, n, " %s", name);
    else snprintf(buf, n, " tid %" PRId64, l->tid);
}

static void render_group(App *a, Grid *g, int y, int x0, int x1, size_t line, bool selected) {
    const Line *L = &a->lines.v[line];
    const Group *G = &a->t->groups[L->group];
    int role = selected ? ROLE_GROUP_SEL : ROLE_GROUP;
    Grid_fill(g, (Rect){x0, y, x1 - x0, 1}, ' ', role, 0);
    Grid_put(g, x0, y, a->collapsed[L->group] ? a->gl->collapsed : a->gl->expanded, role, ATTR_BOLD);
    char buf[256];
    group_label(a, L->group, buf, sizeof buf);
    int x = x0 + 2;
    x += Grid_text(g, x, y, x1 - x, buf, role, ATTR_BOLD);
    if (G->gpu) {
        double ratio;
        char r[96];
        if (TraceIndex_ratio(a->idx, a->t, L->group, a->v.t0, a->v.t1, &ratio))
            snprintf(r, sizeof r, "   overlap %.1f%% of comm hidden (ratio %.4f, visible range)", ratio * 100, ratio);
        else snprintf(r, sizeof r, "   no comm in the visible range");
        Grid_text(g, x, y, x1 - x, r, role, 0);
    } else if (a->collapsed[L->group]) {
        Grid_text(g, x, y, x1 - x, "   (Enter expands)", role, 0);
    }
}

/* glyph and role for one column of a row */
static void row_cell(App *a, Grid *g, int x, int y, int64_t ca, int64_t cb, const ColumnInfo *ci, EventClass rowcls,
                     bool cursor) {
    const Trace *t = a->t;
    const Glyphs *gl = a->gl;
    /* a counter sample among a thread's slices is drawn on its counter lane */
    if (ci->n == 0 || (ci->n == 1 && t->events[ci->ev].kind == KIND_COUNTER)) {
        Grid_put(g, x, y, cursor ? gl->vline : ' ', cursor ? ROLE_DIM : ROLE_DEFAULT, 0);
        return;
    }
    int64_t w = cb - ca;
    if (ci->n == 1) {
        const TraceEvent *e = &t->events[ci->ev];
        int role = ROLE_CLASS + e->cls;
        int64_t s = e->ts, en = TraceEvent_end(e);
        bool starts = s > ca, ends = en < cb;
        if (!starts && !ends) {
            Grid_put(g, x, y, gl->full, role, 0);
        } else if (starts && ends) {
            Grid_put(g, x, y, gl->ev_tiny, role, 0);
        } else if (ends) { /* filled from the left edge to en */
            int k = (int)(((en - ca) * 8 + w / 2) / w);
            if (k < 1) k = 1;
            if (k > 8) k = 8;
            Grid_put(g, x, y, gl->unicode ? gl->left[k] : (k == 8 ? gl->full : gl->ev_end_part), role, 0);
        } else { /* filled from s to the right edge: reverse of a left block */
            int k = (int)(((s - ca) * 8 + w / 2) / w); /* empty part */
            if (k < 0) k = 0;
            if (k > 7) k = 7;
            if (k == 0) Grid_put(g, x, y, gl->full, role, 0);
            else if (gl->unicode) Grid_put(g, x, y, gl->left[k], role, ATTR_REVERSE);
            else Grid_put(g, x, y, gl->ev_start_part, role, 0);
        }
        return;
    }
    /* several events: how full the cell is */
    EventClass cls = ci->n != UINT32_MAX ? (EventClass)t->events[ci->ev].cls : rowcls;
    int k = w > 0 ? (int)((ci->cov * 8 + w - 1) / w) : 8;
    if (k < 1) k = 1;
    if (k > 8) k = 8;
    Grid_put(g, x, y, gl->lower[k], ROLE_CLASS + cls, 0);
}

static void render_row(App *a, Grid *g, int y, Rect plot, uint32_t row) {
    const Trace *t = a->t;
    const ViewState *v = &a->v;
    int W = plot.w;
    ColumnInfo *cols = a->colbuf;
    TraceIndex_rowColumns(a->idx, t, row, v->t0, v->t1, W, cols);
    EventClass rowcls = TraceIndex_rowClass(a->idx, row);
    int cur = TraceIndex_colOf(v->t0, v->t1, W, v->cursor);
    bool has_matches = a->search.active && row < a->search.n_rows && a->search.row_n[row] > 0;
    const Row *r = &t->rows[row];
    for (int c = 0; c < W; c++) {
        int64_t ca = TraceIndex_colTime(v->t0, v->t1, W, c), cb = TraceIndex_colTime(v->t0, v->t1, W, c + 1);
        row_cell(a, g, plot.x + c, y, ca, cb, &cols[c], rowcls, c == cur);
        if (has_matches && cols[c].n) {
            bool m;
            if (cols[c].n != UINT32_MAX) {
                m = Search_anyIn(&a->search, t, row, cols[c].ev, cols[c].ev + cols[c].n);
            } else {
                size_t j0 = Row_lowerBound(t, r, ca), j1 = TraceIndex_firstStartAtOrAfter(t, r, cb);
                m = Search_anyIn(&a->search, t, row, j0, j1);
            }
            if (m) {
                Cell *cell = Grid_at(g, plot.x + c, y);
                cell->role = ROLE_MATCH;
            }
        }
    }
    /* names inside events wide enough to hold them */
    for (int c = 0; c < W;) {
        if (cols[c].n != 1) {
            c++;
            continue;
        }
        size_t ev = cols[c].ev;
        int e = c;
        while (e < W && cols[e].n == 1 && cols[e].ev == ev) e++;
        int len = e - c;
        if (len >= 4 && t->events[ev].name != 0) {
            char name[256];
            Lanes_shortName(Trace_name(t, &t->events[ev]), name, sizeof name, a->gl->unicode);
            const TraceEvent *te = &t->events[ev];
            bool match = Search_matches(&a->search, te);
            int role = (ev == v->sel ? ROLE_SELECTED_TEXT : match ? ROLE_MATCH_TEXT : ROLE_CLASS_TEXT + te->cls);
            int avail = len - 2;
            size_t cols_needed = Utf8_columns(name);
            if ((int)cols_needed > avail) { /* drop the namespaces: "dpsk::ep::internode::combine<…>" -> "combine<…>" */
                const char *last = name;
                int depth = 0;
                for (const char *q = name; *q; q++) {
                    if (*q == '<') depth++;
                    else if (*q == '>' && depth) depth--;
                    else if (!depth && q[0] == ':' && q[1] == ':') last = q + 2;
                }
                if (last != name) {
                    memmove(name, last, strlen(last) + 1);
                    cols_needed = Utf8_columns(name);
                }
            }
            if ((int)cols_needed > avail && avail >= 2) {
                /* truncate with an ellipsis */
                const char *p = name;
                for (int i = 0; i < avail - 1; i++) Utf8_decode(&p);
                size_t off = (size_t)(p - name);
                if (a->gl->unicode && off + 4 < sizeof name) memcpy(name + off, "\xe2\x80\xa6", 4);
                else if (off + 2 < sizeof name) memcpy(name + off, "~", 2);
            }
            Grid_textAscii(g, plot.x + c + 1, y, avail, name, role, 0, !a->gl->unicode);
        }
        c = e;
    }
    Features_markRow(a, g, y, plot, row, cols); /* e.g. the wait parts of collectives */
    /* the selected event */
    if (v->sel != SIZE_MAX && v->sel >= r->first && v->sel < r->first + r->count) {
        const TraceEvent *se = &t->events[v->sel];
        int cs = TraceIndex_colOf(v->t0, v->t1, W, se->ts);
        int64_t end = TraceEvent_end(se);
        int ce = TraceIndex_colOf(v->t0, v->t1, W, end > se->ts ? end - 1 : se->ts);
        for (int c = cs < 0 ? 0 : cs; c <= ce && c < W; c++) {
            Cell *cell = Grid_at(g, plot.x + c, y);
            if (cell->role == ROLE_SELECTED_TEXT) continue;
            if (cell->ch == ' ' && cell->role != ROLE_CLASS_TEXT + se->cls) cell->ch = a->gl->ev_tiny;
            if (cell->role >= ROLE_CLASS_TEXT && cell->role < ROLE_CLASS_TEXT + CLASS__COUNT) cell->role = ROLE_SELECTED_TEXT;
            else cell->role = ROLE_SELECTED;
        }
    }
}

void Lanes_label(const App *a, Grid *g, Rect labels, int y, const char *text, bool selected) {
    int lrole = selected ? ROLE_LABEL_SEL : ROLE_LABEL;
    Grid_fill(g, (Rect){labels.x, y, labels.w, 1}, ' ', lrole, 0);
    if (selected) Grid_put(g, labels.x, y, '>', lrole, ATTR_BOLD);
    Grid_textAscii(g, labels.x + 1, y, labels.w - 1, text, lrole, selected ? ATTR_BOLD : 0, !a->gl->unicode);
}

const int64_t *Lanes_band(App *a, Grid *g, uint32_t group, int y, Rect plot) {
    TraceIndex_band(a->idx, a->t, group, a->v.t0, a->v.t1, plot.w, a->bandbuf);
    Band_renderRow(g, plot.x, y, plot.w, a->bandbuf, a->caps, a->gl);
    return a->bandbuf;
}

void Lanes_render(App *a, Grid *g, Rect labels, Rect plot) {
    const ViewState *v = &a->v;
    if (plot.w <= 0 || plot.h <= 0) return;
    if (a->scratch_cols < plot.w) {
        free(a->colbuf);
        free(a->bandbuf);
        a->colbuf = xmalloc((size_t)plot.w * sizeof *a->colbuf);
        a->bandbuf = xmalloc((size_t)plot.w * BAND__COUNT * sizeof *a->bandbuf);
        a->scratch_cols = plot.w;
    }
    int sep = labels.x + labels.w;
    /* a group's header line runs on over the values column a feature reserved */
    const Rect *vals = &a->layout.values;
    int right = vals->w > 0 && vals->x == plot.x + plot.w + 1 ? vals->x + vals->w : plot.x + plot.w;
    for (int y = plot.y; y < plot.y + plot.h; y++) Grid_put(g, sep, y, a->gl->vline, ROLE_DIM, 0);
    for (int k = 0; k < plot.h; k++) {
        size_t line = App_lineAtRow(a, k);
        int y = plot.y + k;
        if (line == SIZE_MAX) break;
        const Line *L = &a->lines.v[line];
        bool selected = line == v->line;
        if (L->kind == LINE_GROUP) {
            render_group(a, g, y, labels.x, right, line, selected);
            continue;
        }
        if (Features_drawLine(a, g, &(LineSlot){L, y, labels, plot, selected})) continue;
        char label[160];
        Lanes_rowLabel(a, line, label, sizeof label);
        Lanes_label(a, g, labels, y, label, selected);
        if (L->kind == LINE_BAND) {
            Lanes_band(a, g, L->group, y, plot);
        } else {
            render_row(a, g, y, plot, L->row);
        }
    }
    /* say what v would show, below the last line when there is room */
    size_t p = v->pinned < a->lines.n ? v->pinned : a->lines.n;
    size_t shown = p + (a->lines.n > v->top ? a->lines.n - v->top : 0);
    if (a->n_hidden && !a->show_all && shown < (size_t)plot.h) {
        char note[128];
        snprintf(note, sizeof note, "%zu empty or annotation-only CPU group%s hidden (v shows them)", a->n_hidden,
                 a->n_hidden == 1 ? "" : "s");
        Grid_text(g, labels.x + 1, plot.y + (int)shown, plot.x + plot.w - labels.x - 1, note, ROLE_DIM, 0);
    }
}
