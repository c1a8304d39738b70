/* The tables over everything but the events: lanes, flows, counters, collectives,
 * devices and steps. One generic virtual table drives them all; each table says how
 * many rows it has for its parameters (hidden columns: `devices(start, end)`,
 * `steps(pattern)`), what a cell holds, and, for the columns joins use (flows' from
 * and to, lanes' lane, collectives' id), how to find the rows with a given value
 * without a scan. Analysis results are computed the first time a table needs them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "query_internal.h"

/* Rows with column == value: [first, first + count) of perm, or of the rows when perm
 * is NULL. */
typedef struct {
    size_t first, count;
    const uint32_t *perm;
} Seek;

typedef struct {
    const char *name;
    const char *schema;
    int n_cols;
    int first_param; /* hidden parameter columns: [first_param, n_cols) */
    int seek_col[2]; /* columns seek() answers equalities on; -1: none */
    /* The rows for these parameters (one value per parameter column, NULL where not
     * given). SQLITE_OK with *state and *n, or an error in *err (sqlite3_mprintf). */
    int (*open)(QueryDb *q, sqlite3_value **params, void **state, size_t *n, char **err);
    void (*free)(void *state);
    bool (*seek)(QueryDb *q, void *state, int col, int64_t v, Seek *out);
    void (*column)(QueryDb *q, void *state, size_t row, int col, sqlite3_context *ctx);
} TableDef;

enum { MAX_PARAMS = 4 };

typedef struct {
    sqlite3_vtab base;
    QueryDb *q;
    const TableDef *def;
} Tab;

typedef struct {
    sqlite3_vtab_cursor base;
    Tab *tab;
    void *state;
    size_t n;     /* rows */
    Seek seek;    /* the rows to visit (perm NULL, first 0, count n: all) */
    size_t k;     /* position in seek */
    sqlite3_value *params[MAX_PARAMS];
} Cur;

/* ---------- small helpers for cells ---------- */

static void res_i64(sqlite3_context *c, int64_t v) { sqlite3_result_int64(c, v); }
static void res_opt(sqlite3_context *c, int64_t v, bool present) {
    if (present) sqlite3_result_int64(c, v);
    else sqlite3_result_null(c);
}
static void res_str(sqlite3_context *c, const char *s) { sqlite3_result_text(c, s, -1, SQLITE_STATIC); }
static void res_sid(sqlite3_context *c, const Trace *t, uint32_t id) {
    sqlite3_result_text(c, StrTab_get(t->strings, id), (int)StrTab_len(t->strings, id), SQLITE_STATIC);
}

/* Cells of the per-device figures, the names `stats --json` gives them (cli_jsonFigures). */
#define FIGURE_COLUMNS                                                                                               \
    "window_ns INTEGER, busy_ns INTEGER, idle_ns INTEGER, compute_ns INTEGER, comm_ns INTEGER, overlap_ns INTEGER," \
    " exposed_comm_ns INTEGER, memory_ns INTEGER, events INTEGER, overlap_ratio REAL"
enum { FIG_WINDOW, FIG_BUSY, FIG_IDLE, FIG_COMPUTE, FIG_COMM, FIG_OVERLAP, FIG_EXPOSED, FIG_MEMORY, FIG_EVENTS, FIG_RATIO };

static void res_figure(sqlite3_context *c, const DeviceFigures *d, int k) {
    switch (k) {
    case FIG_WINDOW: res_i64(c, d->window); break;
    case FIG_BUSY: res_i64(c, d->busy); break;
    case FIG_IDLE: res_i64(c, d->idle); break;
    case FIG_COMPUTE: res_i64(c, d->compute); break;
    case FIG_COMM: res_i64(c, d->comm); break;
    case FIG_OVERLAP: res_i64(c, d->overlap); break;
    case FIG_EXPOSED: res_i64(c, d->exposed); break;
    case FIG_MEMORY: res_i64(c, d->memory); break;
    case FIG_EVENTS: res_i64(c, (int64_t)d->n_events); break;
    default:
        if (d->has_comm) sqlite3_result_double(c, d->ratio);
        else sqlite3_result_null(c);
    }
}

/* ---------- lanes ---------- */

enum { LA_LANE, LA_RANK, LA_GPU, LA_DEVICE, LA_STREAM, LA_PID, LA_TID, LA_NAME, LA_PROCESS, LA_LABEL, LA_EVENTS,
       LA_ROWS, LA_FILE, LA__N };

static int lanes_open(QueryDb *q, sqlite3_value **p, void **state, size_t *n, char **err) {
    (void)p, (void)err;
    *state = NULL;
    *n = q->t->n_lanes;
    return SQLITE_OK;
}

static bool lanes_seek(QueryDb *q, void *state, int col, int64_t v, Seek *out) {
    (void)state, (void)col;
    bool in = v >= 0 && (uint64_t)v < q->t->n_lanes;
    *out = (Seek){in ? (size_t)v : 0, in, NULL};
    return true;
}

static void lanes_column(QueryDb *q, void *state, size_t row, int col, sqlite3_context *c) {
    (void)state;
    const Trace *t = q->t;
    const Lane *l = &t->lanes[row];
    const Group *g = &t->groups[l->group];
    switch (col) {
    case LA_LANE: res_i64(c, (int64_t)row); break;
    case LA_RANK: res_i64(c, l->rank); break;
    case LA_GPU: res_i64(c, l->gpu); break;
    case LA_DEVICE: res_opt(c, l->device, l->gpu); break;
    case LA_STREAM: res_opt(c, l->stream, l->gpu); break;
    case LA_PID: res_opt(c, l->pid, l->pid >= 0); break;
    case LA_TID: res_opt(c, l->tid, l->tid >= 0); break;
    case LA_NAME: res_sid(c, t, l->name); break;
    case LA_PROCESS: res_sid(c, t, g->name); break;
    case LA_LABEL: res_sid(c, t, g->label); break;
    case LA_EVENTS: res_i64(c, (int64_t)l->count); break;
    case LA_ROWS: res_i64(c, l->n_rows); break;
    default: res_str(c, t->sources[l->source].path);
    }
}

/* ---------- flows ---------- */

enum { FL_FROM, FL_TO, FL_CAT, FL_ID, FL__N };

static int flows_open(QueryDb *q, sqlite3_value **p, void **state, size_t *n, char **err) {
    (void)p, (void)err;
    *state = NULL;
    *n = q->t->n_flows;
    return SQLITE_OK;
}

/* Flows are sorted by from; flow_by_to lists them by to. */
static bool flows_seek(QueryDb *q, void *state, int col, int64_t v, Seek *out) {
    (void)state;
    const Trace *t = q->t;
    *out = (Seek){0, 0, col == FL_TO ? t->flow_by_to : NULL};
    if (v < 0 || v > UINT32_MAX) return true;
    size_t lo = 0, hi = t->n_flows;
    while (lo < hi) { /* first flow whose end >= v */
        size_t mid = lo + (hi - lo) / 2;
        const Flow *f = &t->flows[col == FL_TO ? t->flow_by_to[mid] : mid];
        if ((col == FL_TO ? f->to : f->from) >= v) hi = mid;
        else lo = mid + 1;
    }
    size_t e = lo;
    while (e < t->n_flows) {
        const Flow *f = &t->flows[col == FL_TO ? t->flow_by_to[e] : e];
        if ((col == FL_TO ? f->to : f->from) != v) break;
        e++;
    }
    out->first = lo;
    out->count = e - lo;
    return true;
}

static void flows_column(QueryDb *q, void *state, size_t row, int col, sqlite3_context *c) {
    (void)state;
    const Flow *f = &q->t->flows[row];
    switch (col) {
    case FL_FROM: res_i64(c, f->from); break;
    case FL_TO: res_i64(c, f->to); break;
    case FL_CAT: res_sid(c, q->t, f->cat); break;
    default: res_i64(c, f->id);
    }
}

/* ---------- counters ---------- */

enum { CO_SERIES, CO_RANK, CO_DEVICE, CO_TS, CO_TS_ABS, CO_VALUE, CO_UNIT, CO_ID, CO__N };

typedef struct {
    const CounterSet *cs;
    size_t *start; /* per series: its first row; start[n] = rows */
} CountersState;

static int counters_open(QueryDb *q, sqlite3_value **p, void **state, size_t *n, char **err) {
    (void)p, (void)err;
    CountersState *s = xcalloc(1, sizeof *s);
    s->cs = Query_counters(q);
    s->start = xmalloc((s->cs->n + 1) * sizeof *s->start);
    size_t rows = 0;
    for (size_t k = 0; k < s->cs->n; k++) {
        s->start[k] = rows;
        rows += s->cs->s[k].n;
    }
    s->start[s->cs->n] = rows;
    *state = s;
    *n = rows;
    return SQLITE_OK;
}

static void counters_free(void *state) {
    CountersState *s = state;
    if (s) free(s->start);
    free(s);
}

static void counters_column(QueryDb *q, void *state, size_t row, int col, sqlite3_context *c) {
    const CountersState *s = state;
    size_t lo = 0, hi = s->cs->n; /* the series holding row: last start <= row */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->start[mid] <= row) lo = mid;
        else hi = mid;
    }
    while (lo + 1 < s->cs->n && s->start[lo + 1] <= row) lo++; /* empty series share a start */
    const CounterSeries *cs = &s->cs->s[lo];
    uint32_t ev = cs->ev[row - s->start[lo]];
    const TraceEvent *e = &q->t->events[ev];
    switch (col) {
    case CO_SERIES: res_sid(c, q->t, cs->name); break;
    case CO_RANK: res_i64(c, q->t->lanes[cs->lane].rank); break;
    case CO_DEVICE: res_opt(c, cs->device, cs->device >= 0); break;
    case CO_TS: res_i64(c, Query_rel(q, e->ts)); break;
    case CO_TS_ABS: res_i64(c, e->ts); break;
    case CO_VALUE: sqlite3_result_double(c, e->value); break;
    case CO_UNIT:
        if (cs->bytes) res_str(c, "bytes");
        else sqlite3_result_null(c);
        break;
    default: res_i64(c, ev);
    }
}

/* ---------- collectives ---------- */

enum { CL_INSTANCE, CL_RANK, CL_NAME, CL_START, CL_END, CL_WAIT, CL_TRANSFER, CL_ARRIVED_LAST, CL_ID, CL_CHANNEL,
       CL_SEQ, CL_SKEW, CL__N };

static int coll_open(QueryDb *q, sqlite3_value **p, void **state, size_t *n, char **err) {
    (void)p, (void)err;
    const CollReport *r = Query_coll(q);
    *state = NULL;
    *n = r->n_members;
    return SQLITE_OK;
}

/* By event (the member holding it) or by instance (its members are contiguous). */
static bool coll_seek(QueryDb *q, void *state, int col, int64_t v, Seek *out) {
    (void)state;
    const CollReport *r = Query_coll(q);
    if (col == CL_INSTANCE) {
        bool in = v >= 0 && (uint64_t)v < r->n_inst;
        *out = (Seek){in ? r->inst[v].first : 0, in ? r->inst[v].n : 0, NULL};
        return true;
    }
    const CollMember *m = v >= 0 && (uint64_t)v < q->t->n_events ? Coll_memberOf(r, (size_t)v) : NULL;
    *out = (Seek){m ? (size_t)(m - r->members) : 0, m != NULL, NULL};
    return true;
}

static void coll_column(QueryDb *q, void *state, size_t row, int col, sqlite3_context *c) {
    (void)state;
    const CollReport *r = Query_coll(q);
    const CollMember *m = &r->members[row];
    const CollInstance *I = &r->inst[m->inst];
    switch (col) {
    case CL_INSTANCE: res_i64(c, m->inst); break;
    case CL_RANK: res_i64(c, m->rank); break;
    case CL_NAME: res_str(c, Coll_nameStr(q->t, r, I->name)); break;
    case CL_START: res_i64(c, Query_rel(q, m->start)); break;
    case CL_END: res_i64(c, Query_rel(q, m->end)); break;
    case CL_WAIT: res_i64(c, m->wait); break;
    case CL_TRANSFER: res_i64(c, m->transfer); break;
    /* as stats counts it: the last to start, when not all started at once */
    case CL_ARRIVED_LAST: res_i64(c, I->skew > 0 && row == (size_t)I->first + I->last); break;
    case CL_ID: res_i64(c, m->event); break;
    case CL_CHANNEL: res_i64(c, I->channel); break;
    case CL_SEQ: res_i64(c, (int64_t)I->seq); break;
    default: res_i64(c, I->skew);
    }
}

/* ---------- devices(range_start, range_end) ---------- */

enum { DV_RANK, DV_DEVICE, DV_WINDOW_START, DV_FIG0, DV_RANGE_START = DV_FIG0 + 10, DV_RANGE_END, DV__N };

/* A parameter as a time relative to the trace start; NULL or absent: open. */
static bool param_time(sqlite3_value *v, int64_t *out, const char *what, char **err) {
    if (!v || sqlite3_value_type(v) == SQLITE_NULL) return true;
    if (sqlite3_value_type(v) != SQLITE_INTEGER) {
        *err = sqlite3_mprintf("%s must be an integer (ns from the trace start)", what);
        return false;
    }
    *out = sqlite3_value_int64(v);
    return true;
}

static int devices_open(QueryDb *q, sqlite3_value **p, void **state, size_t *n, char **err) {
    int64_t a = INT64_MIN, b = INT64_MAX;
    if (!param_time(p[0], &a, "devices' range_start", err) || !param_time(p[1], &b, "devices' range_end", err))
        return SQLITE_ERROR;
    const OverlapReport *R;
    *state = NULL;
    if (a == INT64_MIN && b == INT64_MAX) R = Query_overlap(q);
    else {
        OverlapFilter f = OverlapFilter_all();
        f.top_n = 0;
        f.t0 = a == INT64_MIN ? INT64_MIN : Query_abs(q, a);
        f.t1 = b == INT64_MAX ? INT64_MAX : Query_abs(q, b);
        R = Overlap_compute(q->t, &f);
        *state = (void *)R; /* owned by the cursor */
    }
    *n = R->n_devices;
    return SQLITE_OK;
}

static void devices_free(void *state) { OverlapReport_free(state); }

static void devices_column(QueryDb *q, void *state, size_t row, int col, sqlite3_context *c) {
    const OverlapReport *R = state ? state : Query_overlap(q);
    const DeviceFigures *d = &R->devices[row];
    if (col == DV_RANK) res_i64(c, d->rank);
    else if (col == DV_DEVICE) res_i64(c, d->device);
    else if (col == DV_WINDOW_START) res_i64(c, d->window_start);
    else res_figure(c, d, col - DV_FIG0);
}

/* ---------- steps(pattern) ---------- */

enum { ST_STEP, ST_MARKS, ST_CPU_START, ST_CPU_END, ST_GPU_START, ST_GPU_END, ST_FROM_LAUNCHES, ST_GPU_EVENTS,
       ST_FIG0, ST_PATTERN = ST_FIG0 + 10, ST__N };

static int steps_open(QueryDb *q, sqlite3_value **p, void **state, size_t *n, char **err) {
    *state = NULL;
    if (!p[0] || sqlite3_value_type(p[0]) == SQLITE_NULL) {
        *n = Query_steps(q)->n;
        return SQLITE_OK;
    }
    StepList *s = xcalloc(1, sizeof *s);
    char msg[256] = "";
    if (!Steps_find(q->t, (const char *)sqlite3_value_text(p[0]), s, msg, sizeof msg)) {
        free(s);
        *err = sqlite3_mprintf("steps' pattern: %s", msg);
        return SQLITE_ERROR;
    }
    *state = s;
    *n = s->n;
    return SQLITE_OK;
}

static void steps_free(void *state) {
    if (!state) return;
    StepList_free(state);
    free(state);
}

static void steps_column(QueryDb *q, void *state, size_t row, int col, sqlite3_context *c) {
    const StepList *s = state ? state : Query_steps(q);
    const Step *st = &s->steps[row];
    switch (col) {
    case ST_STEP: res_i64(c, st->key); break;
    case ST_MARKS: res_i64(c, (int64_t)st->n_marks); break;
    case ST_CPU_START: res_i64(c, Query_rel(q, st->cpu_start)); break;
    case ST_CPU_END: res_i64(c, Query_rel(q, st->cpu_end)); break;
    case ST_GPU_START: res_i64(c, Query_rel(q, st->gpu_start)); break;
    case ST_GPU_END: res_i64(c, Query_rel(q, st->gpu_end)); break;
    case ST_FROM_LAUNCHES: res_i64(c, st->gpu_from_launches); break;
    case ST_GPU_EVENTS: res_i64(c, (int64_t)st->gpu_events); break;
    default: res_figure(c, &st->fig, col - ST_FIG0);
    }
}

/* ---------- the tables ---------- */

static const TableDef TABLES[] = {
    {"lanes",
     "CREATE TABLE lanes(lane INTEGER, rank INTEGER, gpu INTEGER, device INTEGER, stream INTEGER, pid INTEGER,"
     " tid INTEGER, name TEXT, process TEXT, label TEXT, events INTEGER, rows INTEGER, file TEXT)",
     LA__N, LA__N, {LA_LANE, -1}, lanes_open, NULL, lanes_seek, lanes_column},
    {"flows", "CREATE TABLE flows(\"from\" INTEGER, \"to\" INTEGER, cat TEXT, id INTEGER)", FL__N, FL__N,
     {FL_FROM, FL_TO}, flows_open, NULL, flows_seek, flows_column},
    {"counters",
     "CREATE TABLE counters(series TEXT, rank INTEGER, device INTEGER, ts INTEGER, ts_abs INTEGER, value REAL,"
     " unit TEXT, id INTEGER)",
     CO__N, CO__N, {-1, -1}, counters_open, counters_free, NULL, counters_column},
    {"collectives",
     "CREATE TABLE collectives(instance INTEGER, rank INTEGER, name TEXT, start INTEGER, \"end\" INTEGER, wait INTEGER,"
     " transfer INTEGER, arrived_last INTEGER, id INTEGER, channel INTEGER, seq INTEGER, skew INTEGER)",
     CL__N, CL__N, {CL_ID, CL_INSTANCE}, coll_open, NULL, coll_seek, coll_column},
    {"devices",
     "CREATE TABLE devices(rank INTEGER, device INTEGER, window_start_ns INTEGER, " FIGURE_COLUMNS
     ", range_start HIDDEN, range_end HIDDEN)",
     DV__N, DV_RANGE_START, {-1, -1}, devices_open, devices_free, NULL, devices_column},
    {"steps",
     "CREATE TABLE steps(step INTEGER, marks INTEGER, cpu_start INTEGER, cpu_end INTEGER, gpu_start INTEGER,"
     " gpu_end INTEGER, from_launches INTEGER, gpu_events INTEGER, " FIGURE_COLUMNS ", pattern HIDDEN)",
     ST__N, ST_PATTERN, {-1, -1}, steps_open, steps_free, NULL, steps_column},
};
#define N_TABLES (sizeof TABLES / sizeof TABLES[0])

size_t Query_tableDefCount(void) { return N_TABLES; }
const char *Query_tableDefName(size_t i) { return TABLES[i].name; }
const char *Query_tableDefSchema(size_t i) { return TABLES[i].schema; }

/* ---------- the generic virtual table ---------- */

typedef struct {
    QueryDb *q;
    const TableDef *def;
} ModuleAux;

static int tab_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
    (void)argc, (void)argv, (void)err;
    const ModuleAux *m = aux;
    int rc = sqlite3_declare_vtab(db, m->def->schema);
    if (rc != SQLITE_OK) return rc;
    Tab *v = xcalloc(1, sizeof *v);
    v->q = m->q;
    v->def = m->def;
    *out = &v->base;
    return SQLITE_OK;
}

static int tab_disconnect(sqlite3_vtab *vt) {
    free(vt);
    return SQLITE_OK;
}

/* idxNum: bit p set when parameter p is given (argv in parameter order), then
 * (seek column slot + 1) << 8 when an equality on a seek column follows as the last
 * argument. */
static int tab_bestIndex(sqlite3_vtab *vt, sqlite3_index_info *info) {
    const TableDef *def = ((Tab *)vt)->def;
    int n_params = def->n_cols - def->first_param;
    int param_at[MAX_PARAMS] = {-1, -1, -1, -1};
    bool param_unusable[MAX_PARAMS] = {false};
    int seek_at = -1, seek_slot = -1;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
        int p = c->iColumn - def->first_param;
        if (p >= 0 && p < n_params) {
            if (!c->usable) param_unusable[p] = true;
            else if (param_at[p] < 0) param_at[p] = i;
            continue;
        }
        for (int s = 0; s < 2 && c->usable && seek_at < 0; s++)
            if (def->seek_col[s] >= 0 && c->iColumn == def->seek_col[s]) seek_at = i, seek_slot = s;
    }
    int argv_n = 0, idx = 0;
    for (int p = 0; p < n_params; p++) {
        /* a parameter given from a table not yet open: ask for a plan that opens it first */
        if (param_at[p] < 0 && param_unusable[p]) return SQLITE_CONSTRAINT;
        if (param_at[p] < 0) continue;
        info->aConstraintUsage[param_at[p]].argvIndex = ++argv_n;
        info->aConstraintUsage[param_at[p]].omit = 1;
        idx |= 1 << p;
    }
    if (seek_at >= 0) {
        info->aConstraintUsage[seek_at].argvIndex = ++argv_n;
        info->aConstraintUsage[seek_at].omit = 0;
        idx |= (seek_slot + 1) << 8;
        info->estimatedCost = 10;
        info->estimatedRows = 2;
    } else {
        info->estimatedCost = 10000;
        info->estimatedRows = 1000;
    }
    info->idxNum = idx;
    return SQLITE_OK;
}

static void cur_reset(Cur *c) {
    if (c->state && c->tab->def->free) c->tab->def->free(c->state);
    c->state = NULL;
    for (int p = 0; p < MAX_PARAMS; p++) {
        sqlite3_value_free(c->params[p]);
        c->params[p] = NULL;
    }
}

static int tab_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
    Cur *c = xcalloc(1, sizeof *c);
    c->tab = (Tab *)vt;
    *out = &c->base;
    return SQLITE_OK;
}

static int tab_close(sqlite3_vtab_cursor *cur) {
    cur_reset((Cur *)cur);
    free(cur);
    return SQLITE_OK;
}

static int tab_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv) {
    (void)idxStr;
    Cur *c = (Cur *)cur;
    const TableDef *def = c->tab->def;
    QueryDb *q = c->tab->q;
    cur_reset(c);
    int a = 0;
    for (int p = 0; p < def->n_cols - def->first_param; p++)
        if (idxNum & (1 << p) && a < argc) c->params[p] = sqlite3_value_dup(argv[a++]);
    char *err = NULL;
    int rc = def->open(q, c->params, &c->state, &c->n, &err);
    if (rc != SQLITE_OK) {
        sqlite3_free(c->tab->base.zErrMsg);
        c->tab->base.zErrMsg = err;
        c->n = 0;
        return rc;
    }
    c->seek = (Seek){0, c->n, NULL};
    int slot = (idxNum >> 8) - 1;
    if (slot >= 0 && a < argc) {
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        if (Query_bound(SQLITE_INDEX_CONSTRAINT_EQ, argv[a], &lo, &hi)) {
            if (lo == hi) def->seek(q, c->state, def->seek_col[slot], lo, &c->seek);
            else if (lo > hi) c->seek.count = 0;
        }
    }
    c->k = 0;
    return SQLITE_OK;
}

static int tab_next(sqlite3_vtab_cursor *cur) {
    ((Cur *)cur)->k++;
    return SQLITE_OK;
}

static int tab_eof(sqlite3_vtab_cursor *cur) {
    Cur *c = (Cur *)cur;
    return c->k >= c->seek.count;
}

static size_t cur_row(const Cur *c) {
    size_t at = c->seek.first + c->k;
    return c->seek.perm ? c->seek.perm[at] : at;
}

static int tab_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
    *rowid = (sqlite3_int64)cur_row((Cur *)cur);
    return SQLITE_OK;
}

static int tab_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
    Cur *c = (Cur *)cur;
    const TableDef *def = c->tab->def;
    if (col >= def->first_param) {
        sqlite3_value *v = c->params[col - def->first_param];
        if (v) sqlite3_result_value(ctx, v);
        else sqlite3_result_null(ctx);
        return SQLITE_OK;
    }
    def->column(c->tab->q, c->state, cur_row(c), col, ctx);
    return SQLITE_OK;
}

static const sqlite3_module TABLE_MODULE = {
    .iVersion = 0,
    .xConnect = tab_connect,
    .xBestIndex = tab_bestIndex,
    .xDisconnect = tab_disconnect,
    .xOpen = tab_open,
    .xClose = tab_close,
    .xFilter = tab_filter,
    .xNext = tab_next,
    .xEof = tab_eof,
    .xColumn = tab_column,
    .xRowid = tab_rowid,
};

int Query_registerTables(QueryDb *q) {
    for (size_t i = 0; i < N_TABLES; i++) {
        ModuleAux *m = xmalloc(sizeof *m);
        *m = (ModuleAux){q, &TABLES[i]};
        int rc = sqlite3_create_module_v2(q->db, TABLES[i].name, &TABLE_MODULE, m, free);
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}
