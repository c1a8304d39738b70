/* The events table: one row per model event, read in place from Trace.events.
 *
 * Constraints reach the cursor through xBestIndex: equalities on lane, rank, device,
 * stream, pid, tid and depth select rows of lanes; bounds on ts, ts_abs and end become
 * one binary search per row (a row's events are sorted by start and disjoint, so their
 * ends are sorted too) and a stop; equalities on name (one id looked up in the string
 * table), class, kind and correlation, and bounds on dur, are checked on the event
 * before SQLite sees it. Every constraint is left for SQLite to check again (the
 * pushdown only has to keep a superset), so type and collation rules stay SQLite's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "query_internal.h"

enum {
    EV_ID,
    EV_TS,
    EV_END,
    EV_DUR,
    EV_TS_ABS,
    EV_NAME,
    EV_CAT,
    EV_CLASS,
    EV_KIND,
    EV_RANK,
    EV_DEVICE,
    EV_STREAM,
    EV_PID,
    EV_TID,
    EV_LANE,
    EV_DEPTH,
    EV_CORR,
    EV__N
};

const char QUERY_EVENTS_SCHEMA[] =
    "CREATE TABLE events(id INTEGER, ts INTEGER, \"end\" INTEGER, dur INTEGER, ts_abs INTEGER, name TEXT, cat TEXT,"
    " class TEXT, kind TEXT, rank INTEGER, device INTEGER, stream INTEGER, pid INTEGER, tid INTEGER,"
    " lane INTEGER, depth INTEGER, correlation INTEGER)";

/* What the cursor knows before it looks at an event. Bounds are inclusive; times are
 * absolute ns. */
typedef struct {
    bool empty; /* contradictory equalities, or a name no event has */
    bool by_id; /* id bounds given: walk [id_lo, id_hi] and check everything per event */
    int64_t id_lo, id_hi, ts_lo, ts_hi, end_lo, end_hi, dur_lo, dur_hi;
    /* equalities and IN lists: has[col] says which are set; set[col] holds the values
     * admitted (sorted, distinct): integers, for EV_NAME string ids, for EV_CLASS and
     * EV_KIND the enum */
    bool has[EV__N];
    int64_t *set[EV__N];
    size_t n_set[EV__N];
} EvFilter;

typedef struct {
    sqlite3_vtab base;
    QueryDb *q;
} EvTab;

/* The selected events grouped by name, the names in their BINARY order, without a
 * permutation of the whole selection: each selected event gets the number of its
 * batch (a run of names in output order) in one byte, and the batches are produced
 * one at a time: a batch of one name is read straight off the byte array, a batch of
 * several is scattered by name into a buffer of at most `cap` events. Within a name,
 * index order. */
typedef struct {
    uint8_t *batch;       /* per event in [lo, hi): its batch, BN_NONE when not selected */
    size_t lo, hi;
    uint32_t *ids;        /* the selected names in output order */
    size_t n_ids;
    size_t *first;        /* batch b holds ids[first[b] .. first[b + 1]) */
    size_t n_batches, cur; /* cur: the batch being read */
    uint32_t *count;      /* per string id: its selected events, then its next slot */
    uint32_t *buf;        /* the current batch's events, grouped by name */
    size_t n_buf, at;
    size_t scan;          /* a one-name batch: where the next search starts */
} ByName;

enum { BN_NONE = 0xff, BN_MAX_BATCHES = 0xff };

static void by_name_free(ByName *g);

typedef struct {
    sqlite3_vtab_cursor base;
    QueryDb *q;
    EvFilter f;
    bool *lane_ok;   /* per lane: passes the lane equalities */
    size_t *ranges;  /* [begin, end) event index pairs, one per selected row, in index order */
    size_t n_ranges, ri;
    size_t i, stop;  /* the current event and the end of its range */
    bool eof;
    ByName *by_name; /* ORDER BY or GROUP BY name: the events grouped by name */
} EvCursor;

/* idxNum: rows come grouped by name, the names in ascending (or descending) order */
enum { EV_PLAN_BY_NAME = 1, EV_PLAN_DESC = 2 };

static int ev_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
    (void)argc, (void)argv, (void)err;
    int rc = sqlite3_declare_vtab(db, QUERY_EVENTS_SCHEMA);
    if (rc != SQLITE_OK) return rc;
    EvTab *v = xcalloc(1, sizeof *v);
    v->q = aux;
    *out = &v->base;
    return SQLITE_OK;
}

static int ev_disconnect(sqlite3_vtab *vt) {
    free(vt);
    return SQLITE_OK;
}

/* The operators the cursor uses, as one letter each in idxStr. */
static char op_letter(int op) {
    switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ: return '=';
    case SQLITE_INDEX_CONSTRAINT_GT: return '>';
    case SQLITE_INDEX_CONSTRAINT_GE: return 'g';
    case SQLITE_INDEX_CONSTRAINT_LT: return '<';
    case SQLITE_INDEX_CONSTRAINT_LE: return 'l';
    default: return 0;
    }
}

static int letter_op(char c) {
    switch (c) {
    case '=': return SQLITE_INDEX_CONSTRAINT_EQ;
    case '>': return SQLITE_INDEX_CONSTRAINT_GT;
    case 'g': return SQLITE_INDEX_CONSTRAINT_GE;
    case '<': return SQLITE_INDEX_CONSTRAINT_LT;
    case 'l': return SQLITE_INDEX_CONSTRAINT_LE;
    default: return SQLITE_INDEX_CONSTRAINT_EQ; /* 'I': an IN list */
    }
}

static bool is_range_col(int col) {
    return col == EV_ID || col == EV_TS || col == EV_TS_ABS || col == EV_END || col == EV_DUR;
}

static bool is_text_col(int col) { return col == EV_NAME || col == EV_CLASS || col == EV_KIND; }

/* Columns whose equalities and IN lists the cursor keeps as sets of values. */
static bool is_set_col(int col) { return col != EV_CAT && !is_range_col(col); }

/* Which constraints the cursor can use, and a cost that lets the planner prefer the
 * plans that use them (an id lookup is one event; a window a small share of them). */
static int ev_bestIndex(sqlite3_vtab *vt, sqlite3_index_info *info) {
    const QueryDb *q = ((EvTab *)vt)->q;
    double cost = (double)q->t->n_events + 1, rows = cost;
    char plan[2 * 64 + 1];
    int n = 0;
    bool id_eq = false, time_lo = false, time_hi = false, in_list = false;
    for (int i = 0; i < info->nConstraint && n < 64; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        char op = op_letter(c->op);
        if (!c->usable || !op || c->iColumn < 0) continue;
        int col = c->iColumn;
        if (op != '=' && !is_range_col(col)) continue;
        if (col == EV_CAT) continue;
        if (is_text_col(col)) {
            const char *coll = sqlite3_vtab_collation(info, i);
            if (coll && sqlite3_stricmp(coll, "BINARY")) continue;
        }
        /* an IN list on a set column comes in one call (a full scan per value would
         * multiply the work); on id and times, one lookup per value is cheap */
        if (op == '=' && sqlite3_vtab_in(info, i, -1)) {
            in_list = true;
            if (is_set_col(col) && sqlite3_vtab_in(info, i, 1)) op = 'I';
        }
        plan[2 * n] = (char)('A' + col);
        plan[2 * n + 1] = op;
        info->aConstraintUsage[i].argvIndex = ++n;
        info->aConstraintUsage[i].omit = 0;
        bool eq = op == '=' || op == 'I';
        bool lower = eq || op == '>' || op == 'g', upper = eq || op == '<' || op == 'l';
        if (col == EV_ID && eq) id_eq = true;
        else if (col == EV_ID) cost /= 4;
        else if (col == EV_LANE && eq) cost /= 64;
        else if (eq && (col == EV_RANK || col == EV_DEVICE || col == EV_STREAM || col == EV_PID ||
                               col == EV_TID || col == EV_DEPTH))
            cost /= 4;
        else if (col == EV_TS || col == EV_TS_ABS || col == EV_END) {
            time_lo |= lower;
            time_hi |= upper;
        } else rows /= 4; /* checked per event: fewer rows out, the same scan */
    }
    plan[2 * n] = '\0';
    if (time_lo && time_hi) cost /= 1000;
    else if (time_lo || time_hi) cost /= 4;
    if (rows > cost) rows = cost;
    if (id_eq) {
        cost = rows = 1;
        info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
    }
    info->estimatedCost = cost + 1;
    info->estimatedRows = (sqlite3_int64)(rows + 1);
    info->idxStr = sqlite3_mprintf("%s", plan);
    info->needToFreeIdxStr = 1;
    /* events come in index order, so ORDER BY id is free; not when SQLite runs the
     * cursor once per value of an IN list */
    if (!in_list && info->nOrderBy == 1 && info->aOrderBy[0].iColumn == EV_ID && !info->aOrderBy[0].desc)
        info->orderByConsumed = 1;
    /* GROUP BY name or ORDER BY name: a counting sort by name id here costs far less
     * than SQLite's sorter over the names' text */
    if (!in_list && info->nOrderBy == 1 && info->aOrderBy[0].iColumn == EV_NAME) {
        info->orderByConsumed = 1;
        info->idxNum = EV_PLAN_BY_NAME | (info->aOrderBy[0].desc ? EV_PLAN_DESC : 0);
    }
    return SQLITE_OK;
}

static void filter_free(EvFilter *f) {
    for (int col = 0; col < EV__N; col++) free(f->set[col]);
    memset(f, 0, sizeof *f);
}

static int ev_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
    EvCursor *c = xcalloc(1, sizeof *c);
    c->q = ((EvTab *)vt)->q;
    c->eof = true;
    *out = &c->base;
    return SQLITE_OK;
}

static int ev_close(sqlite3_vtab_cursor *cur) {
    EvCursor *c = (EvCursor *)cur;
    filter_free(&c->f);
    by_name_free(c->by_name);
    free(c->lane_ok);
    free(c->ranges);
    free(c);
    return SQLITE_OK;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static bool in_set(const EvFilter *f, int col, int64_t v) {
    if (!f->has[col]) return true;
    const int64_t *s = f->set[col];
    size_t lo = 0, hi = f->n_set[col];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < f->n_set[col] && s[lo] == v;
}

/* Another constraint on col admitting the n values v (any order, repeats allowed):
 * the admitted set becomes the intersection. Takes v. */
static void add_set(EvFilter *f, int col, int64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((!k || v[k - 1] != v[i]) && (!f->has[col] || in_set(f, col, v[i]))) v[k++] = v[i];
    free(f->set[col]);
    f->set[col] = v;
    f->n_set[col] = k;
    f->has[col] = true;
    if (!k) f->empty = true;
}

/* The value a text column holds for v: a string id or enum value; -1 when no event
 * holds it (NULL included: it equals nothing). */
static int64_t text_value(const Trace *t, int col, sqlite3_value *v) {
    const char *s = (const char *)sqlite3_value_text(v);
    if (!s || sqlite3_value_type(v) == SQLITE_NULL) return -1;
    size_t len = (size_t)sqlite3_value_bytes(v);
    if (strlen(s) != len) return -1; /* a NUL inside: no class or kind has one */
    if (col == EV_NAME) {
        uint32_t sid = StrTab_find(t->strings, s, len);
        return sid == STRTAB_NONE ? -1 : (int64_t)sid;
    }
    for (int k = 0; k < (col == EV_CLASS ? CLASS__COUNT : KIND__COUNT); k++)
        if (!strcmp(s, col == EV_CLASS ? EventClass_name((EventClass)k) : EventKind_name((EventKind)k))) return k;
    return -1;
}

/* Adds the value v admits to vals. False when v leaves the column to SQLite (text or
 * a blob compared with an integer column: affinity may turn '3' into 3). */
static bool collect(const Trace *t, int col, sqlite3_value *v, int64_t **vals, size_t *n, size_t *cap) {
    int64_t x = -1;
    if (is_text_col(col)) {
        x = text_value(t, col, v);
        if (x < 0) return true;
    } else {
        int type = sqlite3_value_type(v);
        if (type == SQLITE_TEXT || type == SQLITE_BLOB) return false;
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        if (!Query_bound(SQLITE_INDEX_CONSTRAINT_EQ, v, &lo, &hi) || lo != hi) return true; /* NULL, 2.5 */
        x = lo;
    }
    GROW(*vals, *cap, *n + 1);
    (*vals)[(*n)++] = x;
    return true;
}

/* An equality (arg is the value) or an IN list processed all at once (arg holds the
 * list) on a column held as a set. */
static void add_values(EvFilter *f, const Trace *t, int col, sqlite3_value *arg, bool list) {
    int64_t *vals = xmalloc(sizeof *vals);
    size_t n = 0, cap = 1;
    bool ok = true;
    if (!list) {
        ok = collect(t, col, arg, &vals, &n, &cap);
    } else {
        sqlite3_value *v;
        int rc;
        for (rc = sqlite3_vtab_in_first(arg, &v); ok && rc == SQLITE_OK && v; rc = sqlite3_vtab_in_next(arg, &v))
            ok = collect(t, col, v, &vals, &n, &cap);
        if (rc != SQLITE_OK && rc != SQLITE_DONE) ok = false;
    }
    if (ok) add_set(f, col, vals, n);
    else free(vals);
}

static void narrow(int64_t *lo, int64_t *hi, int64_t l, int64_t h) {
    if (l > *lo) *lo = l;
    if (h < *hi) *hi = h;
}

static void filter_parse(EvFilter *f, QueryDb *q, const char *plan, int argc, sqlite3_value **argv) {
    filter_free(f);
    f->id_lo = f->ts_lo = f->end_lo = f->dur_lo = INT64_MIN;
    f->id_hi = f->ts_hi = f->end_hi = f->dur_hi = INT64_MAX;
    for (int a = 0; a < argc && plan[2 * a]; a++) {
        int col = plan[2 * a] - 'A', op = letter_op(plan[2 * a + 1]);
        sqlite3_value *v = argv[a];
        if (plan[2 * a + 1] == 'I' || (op == SQLITE_INDEX_CONSTRAINT_EQ && is_set_col(col))) {
            add_values(f, q->t, col, v, plan[2 * a + 1] == 'I');
            continue;
        }
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        if (!Query_bound(op, v, &lo, &hi)) continue;
        if (lo > hi) f->empty = true;
        switch (col) {
        case EV_ID:
            f->by_id = true;
            narrow(&f->id_lo, &f->id_hi, lo, hi);
            break;
        case EV_TS: narrow(&f->ts_lo, &f->ts_hi, Query_abs(q, lo), Query_abs(q, hi)); break;
        case EV_TS_ABS: narrow(&f->ts_lo, &f->ts_hi, lo, hi); break;
        case EV_END: narrow(&f->end_lo, &f->end_hi, Query_abs(q, lo), Query_abs(q, hi)); break;
        default: narrow(&f->dur_lo, &f->dur_hi, lo, hi); break; /* EV_DUR */
        }
    }
    if (f->id_lo > f->id_hi || f->ts_lo > f->ts_hi || f->end_lo > f->end_hi || f->dur_lo > f->dur_hi)
        f->empty = true;
}

static bool lane_passes(const EvFilter *f, const Lane *l, uint32_t idx) {
    if (!in_set(f, EV_LANE, idx) || !in_set(f, EV_RANK, l->rank)) return false;
    if ((f->has[EV_DEVICE] || f->has[EV_STREAM]) && !l->gpu) return false; /* NULL there */
    if (!in_set(f, EV_DEVICE, l->device) || !in_set(f, EV_STREAM, l->stream)) return false;
    if ((f->has[EV_PID] && l->pid < 0) || (f->has[EV_TID] && l->tid < 0)) return false;
    return in_set(f, EV_PID, l->pid) && in_set(f, EV_TID, l->tid);
}

static int64_t dur_of(const TraceEvent *e) { return e->kind == KIND_COUNTER ? 0 : e->dur; }

/* The checks a row range does not settle. */
static bool event_passes(const EvFilter *f, const TraceEvent *e) {
    if (!in_set(f, EV_NAME, e->name) || !in_set(f, EV_CLASS, e->cls) || !in_set(f, EV_KIND, e->kind)) return false;
    if (f->has[EV_CORR] && (!e->corr || !in_set(f, EV_CORR, e->corr))) return false;
    int64_t d = dur_of(e);
    return d >= f->dur_lo && d <= f->dur_hi;
}

/* All of them (the id walk). */
static bool event_passes_all(const EvCursor *c, size_t i) {
    const TraceEvent *e = &c->q->t->events[i];
    if (!c->lane_ok[e->lane]) return false;
    if (!in_set(&c->f, EV_DEPTH, e->depth)) return false;
    int64_t end = TraceEvent_end(e);
    if (e->ts < c->f.ts_lo || e->ts > c->f.ts_hi || end < c->f.end_lo || end > c->f.end_hi) return false;
    return event_passes(&c->f, e);
}

/* First event of the row whose start (by_end: end) is >= x. Both are sorted in a row. */
static size_t row_first(const Trace *t, const Row *r, bool by_end, int64_t x) {
    size_t lo = 0, hi = r->count;
    const TraceEvent *ev = t->events + r->first;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t v = by_end ? TraceEvent_end(&ev[mid]) : ev[mid].ts;
        if (v >= x) hi = mid;
        else lo = mid + 1;
    }
    return r->first + lo;
}

static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }
static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

static int cmp_range(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The [begin, end) index range of each selected row's events inside the time bounds. */
static void plan_rows(EvCursor *c) {
    const Trace *t = c->q->t;
    c->ranges = xmalloc((2 * t->n_rows + 1) * sizeof *c->ranges);
    c->n_ranges = 0;
    for (size_t k = 0; k < t->n_rows; k++) {
        const Row *r = &t->rows[k];
        if (!c->lane_ok[r->lane] || !r->count) continue;
        if (!in_set(&c->f, EV_DEPTH, r->depth)) continue;
        size_t b = r->first, e = r->first + r->count;
        if (c->f.ts_lo != INT64_MIN) b = max_sz(b, row_first(t, r, false, c->f.ts_lo));
        if (c->f.end_lo != INT64_MIN) b = max_sz(b, row_first(t, r, true, c->f.end_lo));
        if (c->f.ts_hi != INT64_MAX) e = min_sz(e, row_first(t, r, false, c->f.ts_hi + 1));
        if (c->f.end_hi != INT64_MAX) e = min_sz(e, row_first(t, r, true, c->f.end_hi + 1));
        if (b >= e) continue;
        c->ranges[2 * c->n_ranges] = b;
        c->ranges[2 * c->n_ranges + 1] = e;
        c->n_ranges++;
    }
    qsort(c->ranges, c->n_ranges, 2 * sizeof *c->ranges, cmp_range);
}

/* Moves to the first event at or after c->i that passes; sets eof past the last. */
static void settle(EvCursor *c) {
    const Trace *t = c->q->t;
    if (c->f.by_id) {
        for (; c->i < c->stop; c->i++) {
            c->q->visited++;
            if (event_passes_all(c, c->i)) return;
        }
        c->eof = true;
        return;
    }
    for (;;) {
        for (; c->i < c->stop; c->i++) {
            c->q->visited++;
            if (event_passes(&c->f, &t->events[c->i])) return;
        }
        if (c->ri >= c->n_ranges) {
            c->eof = true;
            return;
        }
        c->i = c->ranges[2 * c->ri];
        c->stop = c->ranges[2 * c->ri + 1];
        c->ri++;
    }
}

/* Strings by BINARY collation: bytes, then length (names may hold NUL bytes). */
static const StrTab *g_names;
static int cmp_name(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    size_t lx = StrTab_len(g_names, x), ly = StrTab_len(g_names, y);
    int r = memcmp(StrTab_get(g_names, x), StrTab_get(g_names, y), lx < ly ? lx : ly);
    return r ? r : lx < ly ? -1 : lx > ly;
}

static void by_name_free(ByName *g) {
    if (!g) return;
    free(g->batch);
    free(g->ids);
    free(g->first);
    free(g->count);
    free(g->buf);
    free(g);
}

/* Cuts ids (in output order) into runs of names holding at most `cap` events together
 * (a name with more is a run of its own), at most BN_MAX_BATCHES runs: the last takes
 * whatever remains. Returns the largest run of several names, in events. */
static size_t cut_batches(ByName *g, size_t cap) {
    g->first = xmalloc((g->n_ids + 1) * sizeof *g->first);
    g->n_batches = 0;
    size_t run = 0, largest = 0, k0 = 0;
    for (size_t k = 0; k < g->n_ids; k++) {
        size_t m = g->count[g->ids[k]];
        if (k > k0 && run + m > cap && g->n_batches + 1 < BN_MAX_BATCHES) {
            if (k - k0 > 1 && run > largest) largest = run;
            g->first[g->n_batches++] = k0;
            k0 = k, run = 0;
        }
        run += m;
    }
    if (g->n_ids) {
        if (g->n_ids - k0 > 1 && run > largest) largest = run;
        g->first[g->n_batches++] = k0;
    }
    g->first[g->n_batches] = g->n_ids;
    return largest;
}

/* The next event of the current batch at or after `from`, in index order. */
static size_t batch_next(const ByName *g, size_t from) {
    const uint8_t *p = memchr(g->batch + (from - g->lo), (int)g->cur, g->hi - from);
    return p ? g->lo + (size_t)(p - g->batch) : SIZE_MAX;
}

/* Makes batch g->cur readable: a batch of several names is scattered into buf by name
 * (count[] becomes each name's next slot), a batch of one is read in place. */
static void load_batch(ByName *g, const Trace *t, uint64_t *visited) {
    size_t k0 = g->first[g->cur], k1 = g->first[g->cur + 1];
    g->at = g->n_buf = 0;
    g->scan = g->lo;
    if (k1 - k0 == 1) return;
    uint32_t pos = 0;
    for (size_t k = k0; k < k1; k++) {
        uint32_t id = g->ids[k], m = g->count[id];
        g->count[id] = pos;
        pos += m;
    }
    for (size_t i = batch_next(g, g->lo); i != SIZE_MAX; i = batch_next(g, i + 1)) {
        g->buf[g->count[t->events[i].name]++] = (uint32_t)i;
        (*visited)++;
    }
    g->n_buf = pos;
}

/* The next event of the grouping into c->i, or eof. */
static void step_by_name(EvCursor *c) {
    ByName *g = c->by_name;
    const Trace *t = c->q->t;
    while (g->cur < g->n_batches) {
        if (g->first[g->cur + 1] - g->first[g->cur] > 1) {
            if (g->at < g->n_buf) {
                c->i = g->buf[g->at++];
                return;
            }
        } else {
            size_t i = g->scan < g->hi ? batch_next(g, g->scan) : SIZE_MAX;
            if (i != SIZE_MAX) {
                c->i = i;
                g->scan = i + 1;
                return;
            }
        }
        if (++g->cur < g->n_batches) load_batch(g, t, &c->q->visited);
    }
    c->eof = true;
}

/* Orders the events the cursor selects by name. One walk counts them per string id
 * and finds the index span they lie in; the names that occur are sorted by their text
 * and cut into batches; a second walk writes each event's batch number. 1 byte per
 * event of the span and 4 per event of the largest batch (a 64th of the selection, at
 * least 64Ki, or QueryOptions.group_batch), where a permutation would take 4 bytes per
 * selected event. `start` is the cursor as xFilter set it up, before the first settle. */
static void collect_by_name(EvCursor *c, const EvCursor *start, bool desc) {
    const Trace *t = c->q->t;
    ByName *g = xcalloc(1, sizeof *g);
    size_t n = 0, n_str = StrTab_count(t->strings);
    g->count = xcalloc(n_str + 1, sizeof *g->count);
    g->lo = SIZE_MAX;
    for (; !c->eof; c->i++, settle(c)) {
        if (g->count[t->events[c->i].name]++ == 0) g->n_ids++;
        if (c->i < g->lo) g->lo = c->i;
        if (c->i >= g->hi) g->hi = c->i + 1;
        n++;
    }
    c->by_name = g;
    if (!n) {
        c->eof = true;
        return;
    }
    g->ids = xmalloc(g->n_ids * sizeof *g->ids);
    g->n_ids = 0;
    for (uint32_t s = 0; s < n_str; s++)
        if (g->count[s]) g->ids[g->n_ids++] = s;
    g_names = t->strings; /* qsort has no context argument; one thread runs a query */
    qsort(g->ids, g->n_ids, sizeof *g->ids, cmp_name);
    if (desc)
        for (size_t a = 0, b = g->n_ids - 1; a < b; a++, b--) {
            uint32_t x = g->ids[a];
            g->ids[a] = g->ids[b];
            g->ids[b] = x;
        }
    size_t cap = c->q->opt.group_batch ? c->q->opt.group_batch : n / 64;
    if (!c->q->opt.group_batch && cap < (1u << 16)) cap = 1u << 16;
    size_t largest = cut_batches(g, cap);
    uint8_t *batch_of = xmalloc(n_str + 1); /* per string id */
    for (size_t b = 0; b < g->n_batches; b++)
        for (size_t k = g->first[b]; k < g->first[b + 1]; k++) batch_of[g->ids[k]] = (uint8_t)b;
    g->batch = xmalloc(g->hi - g->lo);
    memset(g->batch, BN_NONE, g->hi - g->lo);
    c->i = start->i, c->stop = start->stop, c->ri = start->ri, c->eof = false;
    for (settle(c); !c->eof; c->i++, settle(c)) g->batch[c->i - g->lo] = batch_of[t->events[c->i].name];
    free(batch_of);
    g->buf = xmalloc((largest ? largest : 1) * sizeof *g->buf);
    size_t held = (g->hi - g->lo) + largest * sizeof *g->buf;
    if (held > c->q->grouping_bytes) c->q->grouping_bytes = held;
    c->eof = false;
    g->cur = 0;
    load_batch(g, t, &c->q->visited);
    step_by_name(c);
}

static int ev_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv) {
    EvCursor *c = (EvCursor *)cur;
    const Trace *t = c->q->t;
    filter_parse(&c->f, c->q, idxStr ? idxStr : "", argc, argv);
    free(c->ranges);
    by_name_free(c->by_name);
    c->by_name = NULL;
    c->ranges = NULL;
    c->n_ranges = c->ri = c->i = c->stop = 0;
    c->eof = false;
    if (c->f.empty || !t->n_events) {
        c->eof = true;
        return SQLITE_OK;
    }
    free(c->lane_ok);
    c->lane_ok = xmalloc(t->n_lanes + 1);
    for (size_t l = 0; l < t->n_lanes; l++) c->lane_ok[l] = lane_passes(&c->f, &t->lanes[l], (uint32_t)l);
    if (c->f.by_id) {
        int64_t last = (int64_t)t->n_events - 1;
        if (c->f.id_hi < 0 || c->f.id_lo > last) {
            c->eof = true;
            return SQLITE_OK;
        }
        c->i = c->f.id_lo < 0 ? 0 : (size_t)c->f.id_lo;
        c->stop = (size_t)(c->f.id_hi > last ? last : c->f.id_hi) + 1;
    } else {
        plan_rows(c);
    }
    EvCursor start = *c;
    settle(c);
    if (idxNum & EV_PLAN_BY_NAME) collect_by_name(c, &start, idxNum & EV_PLAN_DESC);
    return SQLITE_OK;
}

static int ev_next(sqlite3_vtab_cursor *cur) {
    EvCursor *c = (EvCursor *)cur;
    if (c->by_name) {
        step_by_name(c);
        return SQLITE_OK;
    }
    c->i++;
    settle(c);
    return SQLITE_OK;
}

static int ev_eof(sqlite3_vtab_cursor *cur) { return ((EvCursor *)cur)->eof; }

static int ev_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
    *rowid = (sqlite3_int64)((EvCursor *)cur)->i;
    return SQLITE_OK;
}

static void result_id(sqlite3_context *ctx, int64_t v, bool present) {
    if (present) sqlite3_result_int64(ctx, v);
    else sqlite3_result_null(ctx);
}

static int ev_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
    EvCursor *c = (EvCursor *)cur;
    const Trace *t = c->q->t;
    const TraceEvent *e = &t->events[c->i];
    const Lane *l = &t->lanes[e->lane];
    switch (col) {
    case EV_ID: sqlite3_result_int64(ctx, (sqlite3_int64)c->i); break;
    case EV_TS: sqlite3_result_int64(ctx, Query_rel(c->q, e->ts)); break;
    case EV_END: sqlite3_result_int64(ctx, Query_rel(c->q, TraceEvent_end(e))); break;
    case EV_DUR: sqlite3_result_int64(ctx, dur_of(e)); break;
    case EV_TS_ABS: sqlite3_result_int64(ctx, e->ts); break;
    case EV_NAME:
        sqlite3_result_text(ctx, StrTab_get(t->strings, e->name), (int)StrTab_len(t->strings, e->name),
                            SQLITE_STATIC);
        break;
    case EV_CAT: sqlite3_result_text(ctx, EventKind_category((EventKind)e->kind), -1, SQLITE_STATIC); break;
    case EV_CLASS: sqlite3_result_text(ctx, EventClass_name((EventClass)e->cls), -1, SQLITE_STATIC); break;
    case EV_KIND: sqlite3_result_text(ctx, EventKind_name((EventKind)e->kind), -1, SQLITE_STATIC); break;
    case EV_RANK: sqlite3_result_int64(ctx, l->rank); break;
    case EV_DEVICE: result_id(ctx, l->device, l->gpu); break;
    case EV_STREAM: result_id(ctx, l->stream, l->gpu); break;
    case EV_PID: result_id(ctx, l->pid, l->pid >= 0); break; /* a string pid has no number */
    case EV_TID: result_id(ctx, l->tid, l->tid >= 0); break;
    case EV_LANE: sqlite3_result_int64(ctx, e->lane); break;
    case EV_DEPTH: sqlite3_result_int64(ctx, e->depth); break;
    case EV_CORR: result_id(ctx, e->corr, e->corr != 0); break;
    default: sqlite3_result_null(ctx);
    }
    return SQLITE_OK;
}

static const sqlite3_module EVENTS_MODULE = {
    .iVersion = 0,
    .xConnect = ev_connect,
    .xBestIndex = ev_bestIndex,
    .xDisconnect = ev_disconnect,
    .xOpen = ev_open,
    .xClose = ev_close,
    .xFilter = ev_filter,
    .xNext = ev_next,
    .xEof = ev_eof,
    .xColumn = ev_column,
    .xRowid = ev_rowid,
};

int Query_registerEvents(QueryDb *q) { return sqlite3_create_module_v2(q->db, "events", &EVENTS_MODULE, q, NULL); }
