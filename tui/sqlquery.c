/* The : key: an SQL query over the trace (ovtrace/query/query.h, docs/sql.md). When
 * the result has an `id` column, its rows name events: they become a result list,
 * highlighted on the timeline and stepped with n/N from the first (Esc ends it); any
 * other result shows as a table over the timeline (j/k scroll, Esc closes). The
 * database is opened on the first query and closed when the model is replaced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/query/query.h"
#include "app.h"
#include "feature.h"

enum { SQL_MAX_ROWS = 2000, SQL_MAX_COLS = 16, SQL_CELL_W = 40 };

typedef struct {
    QueryDb *db;
    char sql[512]; /* the last query: the prompt's first text */
    /* the result list: event ids in result order, and sorted by (row, start) */
    uint32_t *ids, *by_row;
    size_t n_ids, at;
    bool walk;
    /* the table */
    bool table;
    char *head[SQL_MAX_COLS];
    char **cell; /* rows x cols */
    size_t rows, cols, more, top;
} SqlState;

extern const Feature Sql_feature;

static SqlState *state(const App *a) { return Feature_state(a, &Sql_feature); }

static void clear_result(SqlState *s) {
    free(s->ids);
    free(s->by_row);
    s->ids = s->by_row = NULL;
    s->n_ids = s->at = 0;
    s->walk = false;
    for (size_t c = 0; c < s->cols; c++) free(s->head[c]);
    for (size_t i = 0; i < s->rows * s->cols; i++) free(s->cell[i]);
    free(s->cell);
    s->cell = NULL;
    s->rows = s->cols = s->more = s->top = 0;
    s->table = false;
}

static void *sql_init(App *a) {
    (void)a;
    return xcalloc(1, sizeof(SqlState));
}

/* A new model: the ids and the database are the old one's. */
static void sql_retrace(App *a, void *st, const Trace *old) {
    (void)a, (void)old;
    SqlState *s = st;
    clear_result(s);
    QueryDb_close(s->db);
    s->db = NULL;
}

static void sql_free(App *a, void *st) {
    sql_retrace(a, st, NULL);
    free(st);
}

static const Trace *sort_t;
static int by_row_cmp(const void *pa, const void *pb) {
    const TraceEvent *x = &sort_t->events[*(const uint32_t *)pa], *y = &sort_t->events[*(const uint32_t *)pb];
    uint32_t rx = Lines_rowOfEvent(sort_t, *(const uint32_t *)pa), ry = Lines_rowOfEvent(sort_t, *(const uint32_t *)pb);
    if (rx != ry) return rx < ry ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Selects result at (fits the view to it when it is off screen). */
static void show_result(App *a, SqlState *s) {
    uint32_t e = s->ids[s->at];
    App_selectEvent(a, e);
    const TraceEvent *ev = &a->t->events[e];
    if (ev->ts >= a->v.t1 || TraceEvent_end(ev) <= a->v.t0) View_fit(&a->v, ev->ts, TraceEvent_end(ev));
    App_message(a, ROLE_GOOD, "query result %zu/%zu: %.80s (n/N: next/previous, Esc ends)", s->at + 1, s->n_ids,
                Trace_name(a->t, ev));
}

/* Runs the first statement of sql: the ids of an `id` column, else the table. */
static void run(App *a, SqlState *s, const char *sql) {
    char err[256];
    if (!s->db && !(s->db = QueryDb_open(a->t, NULL, err, sizeof err))) {
        App_message(a, ROLE_ERROR, "sql: %s", err);
        return;
    }
    sqlite3_stmt *st = NULL;
    size_t next;
    QueryError qe;
    if (!QueryDb_prepare(s->db, sql, 0, &st, &next, &qe)) {
        if (qe.offset >= 0) App_message(a, ROLE_ERROR, "sql: %s (at column %ld)", qe.msg, qe.offset + 1);
        else App_message(a, ROLE_ERROR, "sql: %s", qe.msg);
        return;
    }
    if (!st) {
        App_message(a, ROLE_ERROR, "sql: no statement");
        return;
    }
    clear_result(s);
    int ncol = sqlite3_column_count(st), idcol = -1;
    s->cols = ncol < SQL_MAX_COLS ? (size_t)ncol : SQL_MAX_COLS;
    for (int c = 0; c < ncol; c++)
        if (idcol < 0 && !strcasecmp(sqlite3_column_name(st, c), "id")) idcol = c;
    for (size_t c = 0; c < s->cols; c++) s->head[c] = xstrdup(sqlite3_column_name(st, (int)c));
    size_t cap_ids = 0, cap_rows = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (idcol >= 0 && sqlite3_column_type(st, idcol) == SQLITE_INTEGER) {
            sqlite3_int64 id = sqlite3_column_int64(st, idcol);
            if (id >= 0 && (uint64_t)id < a->t->n_events) {
                if (s->n_ids == cap_ids) s->ids = xrealloc(s->ids, (cap_ids = cap_ids ? 2 * cap_ids : 64) * sizeof *s->ids);
                s->ids[s->n_ids++] = (uint32_t)id;
            }
        }
        if (s->rows == SQL_MAX_ROWS) {
            s->more++;
            continue;
        }
        if (s->rows == cap_rows)
            s->cell = xrealloc(s->cell, (cap_rows = cap_rows ? 2 * cap_rows : 64) * s->cols * sizeof *s->cell);
        for (size_t c = 0; c < s->cols; c++) {
            const unsigned char *v = sqlite3_column_text(st, (int)c);
            s->cell[s->rows * s->cols + c] = xstrdup(v ? (const char *)v : "NULL");
        }
        s->rows++;
    }
    if (rc != SQLITE_DONE) {
        QueryDb_stepError(s->db, 0, &qe);
        sqlite3_finalize(st);
        clear_result(s);
        App_message(a, ROLE_ERROR, "sql: %s", qe.msg);
        return;
    }
    sqlite3_finalize(st);
    if (s->n_ids) {
        s->by_row = xmalloc(s->n_ids * sizeof *s->by_row);
        memcpy(s->by_row, s->ids, s->n_ids * sizeof *s->ids);
        sort_t = a->t;
        qsort(s->by_row, s->n_ids, sizeof *s->by_row, by_row_cmp);
        s->walk = true;
        show_result(a, s);
        return;
    }
    s->table = true;
    App_message(a, ROLE_GOOD, "query: %zu rows%s (j/k scroll, Esc closes)", s->rows + s->more,
                s->more ? ", the first shown" : "");
}

static void submit(App *a, const char *text) {
    SqlState *s = state(a);
    snprintf(s->sql, sizeof s->sql, "%s", text);
    if (!text[0]) return;
    run(a, s, text);
}

static unsigned k_query(App *a, const TuiKey *k, int arg) {
    (void)k, (void)arg;
    Prompt_open(&a->prompt, "sql (an id column selects events, n/N step them): ", state(a)->sql, submit, NULL);
    return REDRAW_VIEW;
}

/* The open table takes the keys; the result list takes n, N and Esc. */
static bool sql_key(App *a, void *st, const TuiKey *k, unsigned *redraw) {
    SqlState *s = st;
    if (s->table) {
        if (k->code == TK_RESIZE || k->code == TK_INTERRUPT) return false;
        *redraw = REDRAW_VIEW;
        if (k->code == TK_ESC || k->code == 'q') s->table = false;
        else if ((k->code == 'j' || k->code == TK_DOWN) && s->top + 1 < s->rows) s->top++;
        else if ((k->code == 'k' || k->code == TK_UP) && s->top > 0) s->top--;
        else if (k->code == ':') return false; /* a new query */
        return true;
    }
    if (!s->walk) return false;
    if (k->code == 'n' || k->code == 'N') {
        if (k->code == 'n' && s->at + 1 < s->n_ids) s->at++;
        else if (k->code == 'N' && s->at > 0) s->at--;
        show_result(a, s);
        *redraw = REDRAW_VIEW;
        return true;
    }
    if (k->code == TK_ESC) {
        s->walk = false;
        App_message(a, ROLE_DIM, "query results cleared");
        *redraw = REDRAW_VIEW;
        return true;
    }
    return false;
}

/* The result events of a row, in the match colour. */
static void sql_mark_row(App *a, void *st, Grid *g, int y, Rect plot, uint32_t row, const ColumnInfo *cols) {
    (void)cols;
    SqlState *s = st;
    if (!s->walk) return;
    const Trace *t = a->t;
    size_t lo = 0, hi = s->n_ids; /* the first result of the row */
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (Lines_rowOfEvent(t, s->by_row[m]) < row) lo = m + 1;
        else hi = m;
    }
    for (size_t i = lo; i < s->n_ids && Lines_rowOfEvent(t, s->by_row[i]) == row; i++) {
        const TraceEvent *e = &t->events[s->by_row[i]];
        if (e->ts >= a->v.t1) break;
        if (TraceEvent_end(e) <= a->v.t0) continue;
        int c0 = TraceIndex_colOf(a->v.t0, a->v.t1, plot.w, e->ts);
        int c1 = TraceIndex_colOf(a->v.t0, a->v.t1, plot.w, TraceEvent_end(e) - 1);
        for (int c = c0 < 0 ? 0 : c0; c <= c1 && c < plot.w; c++) {
            Cell *cell = Grid_at(g, plot.x + c, y);
            if (cell && cell->role != ROLE_SELECTED && cell->role != ROLE_SELECTED_TEXT)
                cell->role = cell->role >= ROLE_CLASS_TEXT && cell->role < ROLE_BAND ? ROLE_MATCH_TEXT : ROLE_MATCH;
        }
    }
}

/* The table over the timeline and the panel: columns as wide as their cells (up to 40). */
static void sql_render(App *a, void *st, Grid *g, const Layout *L) {
    (void)a;
    SqlState *s = st;
    if (!s->table) return;
    Rect r = {0, L->labels.y, L->title.w, L->legend.y - L->labels.y};
    Grid_fill(g, r, ' ', ROLE_PANEL, 0);
    Grid_printf(g, r.x + 1, r.y, r.w - 1, ROLE_PANEL_TITLE, ATTR_BOLD, "Query: %zu rows%s  (j/k scroll, Esc close)",
                s->rows + s->more, s->more ? " (the first 2000 shown)" : "");
    int wid[SQL_MAX_COLS], x = r.x + 1;
    for (size_t c = 0; c < s->cols; c++) {
        wid[c] = (int)Utf8_columns(s->head[c]);
        for (size_t i = 0; i < s->rows; i++) {
            int w = (int)Utf8_columns(s->cell[i * s->cols + c]);
            if (w > wid[c]) wid[c] = w;
        }
        if (wid[c] > SQL_CELL_W) wid[c] = SQL_CELL_W;
        Grid_text(g, x, r.y + 1, r.x + r.w - x < wid[c] ? r.x + r.w - x : wid[c], s->head[c], ROLE_PANEL_KEY, ATTR_BOLD);
        x += wid[c] + 2;
    }
    for (int k = 0; r.y + 2 + k < r.y + r.h && s->top + (size_t)k < s->rows; k++) {
        x = r.x + 1;
        for (size_t c = 0; c < s->cols && x < r.x + r.w; c++) {
            int w = r.x + r.w - x < wid[c] ? r.x + r.w - x : wid[c];
            Grid_text(g, x, r.y + 2 + k, w, s->cell[(s->top + (size_t)k) * s->cols + c], ROLE_PANEL, 0);
            x += wid[c] + 2;
        }
    }
}

/* The open table takes the panel's place too. */
static bool sql_panel(App *a, void *st, Grid *g, Rect panel, bool at_right) {
    (void)a, (void)g, (void)panel, (void)at_right;
    return ((SqlState *)st)->table;
}

static const KeyBinding SQL_KEYS[] = {
    {{':'}, ":", "SQL query (docs/sql.md): rows with an id column are events (highlighted, n/N step); else a table",
     k_query, 0},
};

const Feature Sql_feature = {
    .name = "sql",
    FEATURE_KEYS(SQL_KEYS),
    .init = sql_init,
    .free = sql_free,
    .retrace = sql_retrace,
    .key = sql_key,
    .mark_row = sql_mark_row,
    .render = sql_render,
    .panel = sql_panel,
};
