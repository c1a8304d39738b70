/* Inside the query stage: the database's state shared by its tables and functions. */
#ifndef OVTRACE_QUERY_INTERNAL_H
#define OVTRACE_QUERY_INTERNAL_H
#include <sqlite3.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/counters.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/analysis/steps.h"
#include "ovtrace/query/query.h"

struct QueryDb {
    sqlite3 *db;
    const Trace *t;
    QueryOptions opt;
    uint64_t visited; /* events the events table looked at */
    size_t grouping_bytes; /* the most a grouping by name held */
    /* analysis results, computed the first time a table needs them */
    CounterSet *counters;
    CollReport *coll;
    OverlapReport *overlap; /* the whole trace, as `stats` computes it */
    StepList steps;         /* ProfilerStep#N */
    bool steps_ready;
    /* arg(): the last event's source text (a row usually asks for several keys) */
    size_t arg_event;
    char *arg_raw;
    size_t arg_len;
};

/* Relative ns (from the trace start) to absolute and back, saturating. */
int64_t Query_abs(const QueryDb *q, int64_t rel);
static inline int64_t Query_rel(const QueryDb *q, int64_t abs_ns) { return abs_ns - q->t->t_min; }

/* The lazily computed analysis results. */
CounterSet *Query_counters(QueryDb *q);
CollReport *Query_coll(QueryDb *q);
const OverlapReport *Query_overlap(QueryDb *q);
const StepList *Query_steps(QueryDb *q);

/* A constraint's value as an inclusive int64 bound [*lo, *hi] that contains every
 * integer the comparison `column OP value` admits (a superset: SQLite checks the
 * constraint again). False when the value gives no bound (text, NULL). */
bool Query_bound(int op, sqlite3_value *v, int64_t *lo, int64_t *hi);

/* Modules: the events table (vt_events.c) and the tables over analysis results
 * (vt_tables.c). Each registers its eponymous virtual tables; SQLITE_OK or an error. */
int Query_registerEvents(QueryDb *q);
int Query_registerTables(QueryDb *q);
/* arg(), median(), percentile() (functions.c). */
int Query_registerFunctions(QueryDb *q);

/* The declared schemas: the events table's, and the other tables' in .tables order. */
extern const char QUERY_EVENTS_SCHEMA[];
size_t Query_tableDefCount(void);
const char *Query_tableDefName(size_t i);
const char *Query_tableDefSchema(size_t i);

#endif
