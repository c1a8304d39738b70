/* SQL over a loaded trace: an in-memory SQLite database whose tables are virtual
 * tables reading the finished model in place (no copy of the events) and the analysis
 * figures computed from it (docs/sql.md):
 *   events, lanes, flows, counters, collectives, devices(range), steps(pattern)
 * and the functions arg(id, key) (an event's argument, read from its source on demand),
 * median(x) and percentile(x, p). Constraints on events' id, ts/end, lane, rank, device,
 * stream, pid, tid, depth, name, class and kind reach the table (xBestIndex): a window
 * query binary-searches each row of each lane instead of scanning every event. */
#ifndef OVTRACE_QUERY_H
#define OVTRACE_QUERY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/model/trace.h"
#include "ovtrace/read/collargs.h"

typedef struct QueryDb QueryDb;

typedef struct {
    CollOptions coll; /* Coll_analyze's options for the collectives table */
    /* GROUP BY / ORDER BY name: the most events of several names grouped in memory at
     * once (0: a 64th of the selected events, at least 64Ki; tests: small batches) */
    size_t group_batch;
} QueryOptions;

/* Collectives matched as `stats` matches them: by the args the sources record. */
static inline QueryOptions QueryOptions_default(void) {
    QueryOptions o = {CollOptions_default(), 0};
    o.coll.args = CollArgs_fetch;
    return o;
}

/* Opens a database over t (finished and classified; it must outlive the database).
 * NULL with a message when SQLite cannot open one. o NULL: defaults. */
QueryDb *QueryDb_open(const Trace *t, const QueryOptions *o, char *err, size_t errlen);
void QueryDb_close(QueryDb *q);
sqlite3 *QueryDb_sqlite(QueryDb *q);

/* A statement that did not compile or failed while running: SQLite's message, and
 * where in the SQL text the error is (offset into the text passed to QueryDb_prepare,
 * -1 when SQLite does not say). */
typedef struct {
    char msg[512];
    long offset;
} QueryError;

/* Compiles the first statement of sql[from..]: *stmt (NULL when only blanks or comments
 * remain) and *next, where the following statement begins (an offset into sql). False
 * with *e filled on an error. */
bool QueryDb_prepare(QueryDb *q, const char *sql, size_t from, sqlite3_stmt **stmt, size_t *next, QueryError *e);
/* After sqlite3_step returned an error for a statement of sql starting at `from`: the
 * message and, where SQLite knows it, the offset into sql. */
void QueryDb_stepError(QueryDb *q, size_t from, QueryError *e);

/* The tables as "name", "CREATE TABLE name(...)" pairs, for .tables and .schema. */
size_t QueryDb_tableCount(void);
const char *QueryDb_tableName(size_t i);
const char *QueryDb_tableSchema(size_t i);

/* Events the events table has looked at since the database opened (tests and
 * benchmarks: a window query must look at far fewer than the trace holds). */
uint64_t QueryDb_eventsVisited(const QueryDb *q);
/* The most memory, in bytes, a grouping of the events by name (GROUP BY or ORDER BY
 * name answered by the table) has held since the database opened. */
size_t QueryDb_groupingBytes(const QueryDb *q);

#endif
