/* The query database: an in-memory SQLite connection with the trace's virtual tables
 * and functions registered, the analysis results its tables share, and errors that say
 * where in the SQL they are. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "query_internal.h"

int64_t Query_abs(const QueryDb *q, int64_t rel) {
    int64_t o = q->t->t_min, r;
    if (__builtin_add_overflow(rel, o, &r)) return rel < 0 ? INT64_MIN : INT64_MAX;
    return r;
}

/* floor/ceil of d clamped to int64 (d not NaN). */
static int64_t clamp_down(double d) {
    if (d < -9.2e18) return INT64_MIN;
    if (d > 9.2e18) return INT64_MAX;
    return (int64_t)floor(d);
}
static int64_t clamp_up(double d) {
    if (d < -9.2e18) return INT64_MIN;
    if (d > 9.2e18) return INT64_MAX;
    return (int64_t)ceil(d);
}

bool Query_bound(int op, sqlite3_value *v, int64_t *lo, int64_t *hi) {
    bool lower = op == SQLITE_INDEX_CONSTRAINT_GT || op == SQLITE_INDEX_CONSTRAINT_GE ||
                 op == SQLITE_INDEX_CONSTRAINT_EQ;
    bool upper = op == SQLITE_INDEX_CONSTRAINT_LT || op == SQLITE_INDEX_CONSTRAINT_LE ||
                 op == SQLITE_INDEX_CONSTRAINT_EQ;
    int64_t l, h;
    if (sqlite3_value_type(v) == SQLITE_INTEGER) {
        int64_t x = sqlite3_value_int64(v);
        l = h = x;
        if (op == SQLITE_INDEX_CONSTRAINT_GT) {
            if (x == INT64_MAX) l = INT64_MAX, h = INT64_MIN; /* nothing is greater */
            else l = x + 1;
        } else if (op == SQLITE_INDEX_CONSTRAINT_LT) {
            if (x == INT64_MIN) l = INT64_MAX, h = INT64_MIN;
            else h = x - 1;
        }
    } else if (sqlite3_value_type(v) == SQLITE_FLOAT) {
        double d = sqlite3_value_double(v);
        if (isnan(d)) return false;
        l = clamp_down(d); /* a superset: 2.5 admits 2 .. 3 */
        h = clamp_up(d);
    } else {
        return false; /* text, blob, NULL: SQLite's comparison rules decide */
    }
    if (lower) *lo = l;
    if (upper) *hi = h;
    if (l > h && lower && upper) *lo = l, *hi = h;
    return true;
}

CounterSet *Query_counters(QueryDb *q) {
    if (!q->counters) q->counters = CounterSet_build(q->t);
    return q->counters;
}

CollReport *Query_coll(QueryDb *q) {
    if (!q->coll) q->coll = Coll_analyze(q->t, &q->opt.coll);
    return q->coll;
}

const OverlapReport *Query_overlap(QueryDb *q) {
    if (!q->overlap) {
        OverlapFilter f = OverlapFilter_all();
        f.top_n = 0;
        q->overlap = Overlap_compute(q->t, &f);
    }
    return q->overlap;
}

const StepList *Query_steps(QueryDb *q) {
    if (!q->steps_ready) {
        char err[64];
        Steps_find(q->t, NULL, &q->steps, err, sizeof err); /* no regex: cannot fail */
        q->steps_ready = true;
    }
    return &q->steps;
}

QueryDb *QueryDb_open(const Trace *t, const QueryOptions *o, char *err, size_t errlen) {
    QueryDb *q = xcalloc(1, sizeof *q);
    q->t = t;
    q->opt = o ? *o : QueryOptions_default();
    q->arg_event = SIZE_MAX;
    int rc = sqlite3_open_v2(":memory:", &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY,
                             NULL);
    if (rc == SQLITE_OK) rc = Query_registerEvents(q);
    if (rc == SQLITE_OK) rc = Query_registerTables(q);
    if (rc == SQLITE_OK) rc = Query_registerFunctions(q);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "sqlite: %s", q->db ? sqlite3_errmsg(q->db) : sqlite3_errstr(rc));
        QueryDb_close(q);
        return NULL;
    }
    return q;
}

void QueryDb_close(QueryDb *q) {
    if (!q) return;
    sqlite3_close_v2(q->db);
    if (q->counters) CounterSet_free(q->counters);
    if (q->coll) CollReport_free(q->coll);
    if (q->overlap) OverlapReport_free(q->overlap);
    if (q->steps_ready) StepList_free(&q->steps);
    free(q->arg_raw);
    free(q);
}

sqlite3 *QueryDb_sqlite(QueryDb *q) { return q->db; }

uint64_t QueryDb_eventsVisited(const QueryDb *q) { return q->visited; }

size_t QueryDb_groupingBytes(const QueryDb *q) { return q->grouping_bytes; }

static void set_error(QueryDb *q, size_t from, QueryError *e) {
    snprintf(e->msg, sizeof e->msg, "%s", sqlite3_errmsg(q->db));
    int off = sqlite3_error_offset(q->db);
    e->offset = off >= 0 ? (long)(from + (size_t)off) : -1;
}

bool QueryDb_prepare(QueryDb *q, const char *sql, size_t from, sqlite3_stmt **stmt, size_t *next, QueryError *e) {
    const char *tail = NULL;
    *stmt = NULL;
    int rc = sqlite3_prepare_v2(q->db, sql + from, -1, stmt, &tail);
    *next = tail ? (size_t)(tail - sql) : strlen(sql);
    if (rc != SQLITE_OK) {
        set_error(q, from, e);
        sqlite3_finalize(*stmt);
        *stmt = NULL;
        return false;
    }
    return true;
}

void QueryDb_stepError(QueryDb *q, size_t from, QueryError *e) { set_error(q, from, e); }

size_t QueryDb_tableCount(void) { return 1 + Query_tableDefCount(); }

const char *QueryDb_tableName(size_t i) { return i == 0 ? "events" : Query_tableDefName(i - 1); }

const char *QueryDb_tableSchema(size_t i) { return i == 0 ? QUERY_EVENTS_SCHEMA : Query_tableDefSchema(i - 1); }
