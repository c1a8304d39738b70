/* SQL over a large trace: query_bench FILE... loads the files (Load_files, as
 * `ovtrace query` does), opens the query database and times, best of 3:
 *   window  SELECT count(*), sum(dur) FROM events WHERE ts >= A AND ts < A + 1 ms
 *           (A: the middle of the trace; the constraint reaches the table)
 *   scan    the same WHERE with +ts: no constraint reaches the table, every event is read
 *   lane    the same window on one GPU lane (lane and ts pushed down)
 *   group   SELECT name, count(*), sum(dur) FROM events GROUP BY name, grouped by the table,
 *           and the same through SQLite's sorter (a subquery with LIMIT -1 in between)
 *   top     the 10 kernels with the largest total time (GROUP BY name over kernels)
 * Each row: the time, the events the table looked at (QueryDb_eventsVisited), the
 * rows returned, the resident memory the query added at its peak (peak RSS during its
 * runs minus RSS after the load) and the most SQLite itself held (its own allocator's
 * high-water mark); then the model's memory and the most any query added, against the
 * model. Results in bench/README.md. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ovtrace/query/query.h"
#include "ovtrace/read/load.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* VmRSS or VmHWM of this process, kB. */
static long status_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n)) v = atol(line + n + 1);
    if (f) fclose(f);
    return v;
}

/* Resets VmHWM to the current RSS (Linux 4.0+), so the peak is the queries'. */
static void reset_peak(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static int64_t run(QueryDb *q, const char *sql, size_t *rows) {
    sqlite3_stmt *st;
    size_t next;
    QueryError e;
    if (!QueryDb_prepare(q, sql, 0, &st, &next, &e) || !st) {
        fprintf(stderr, "query_bench: %s: %s\n", sql, e.msg);
        exit(1);
    }
    int64_t sum = 0;
    *rows = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sum += sqlite3_column_int64(st, sqlite3_column_count(st) - 1);
        (*rows)++;
    }
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "query_bench: %s: %s\n", sql, sqlite3_errmsg(QueryDb_sqlite(q)));
        exit(1);
    }
    sqlite3_finalize(st);
    return sum;
}

static long g_rss_loaded;  /* kB after the load */
static long g_peak_added;  /* kB, the most any query added */

static void bench(QueryDb *q, const char *label, const char *sql) {
    reset_peak();
    sqlite3_memory_highwater(1);
    double best = 1e30;
    uint64_t visited = 0;
    size_t rows = 0;
    int64_t check = 0;
    for (int k = 0; k < 3; k++) {
        uint64_t v0 = QueryDb_eventsVisited(q);
        double t0 = now_s();
        check = run(q, sql, &rows);
        double dt = now_s() - t0;
        visited = QueryDb_eventsVisited(q) - v0;
        if (dt < best) best = dt;
    }
    long added = status_kb("VmHWM:") - g_rss_loaded;
    if (added > g_peak_added) g_peak_added = added;
    printf("| %s | %.3f ms | %" PRIu64 " | %zu | %" PRId64 " | %.1f MB | %.1f MB |\n", label, best * 1e3, visited,
           rows, check, (double)added / 1e3, (double)sqlite3_memory_highwater(0) / 1e6);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: query_bench FILE...\n");
        return 2;
    }
    char err[1024];
    LoadOptions lo = {.threads = 0};
    double t0 = now_s();
    Trace *t = Load_files((const char *const *)argv + 1, (size_t)argc - 1, &lo, err, sizeof err);
    if (!t) {
        fprintf(stderr, "query_bench: %s\n", err);
        return 1;
    }
    double load = now_s() - t0;
    g_rss_loaded = status_kb("VmRSS:");
    QueryDb *q = QueryDb_open(t, NULL, err, sizeof err);
    if (!q) {
        fprintf(stderr, "query_bench: %s\n", err);
        return 1;
    }
    int64_t mid = (t->t_max - t->t_min) / 2, w = 1000000;
    uint32_t gpu_lane = 0;
    for (size_t l = 0; l < t->n_lanes; l++)
        if (t->lanes[l].gpu && t->lanes[l].count > t->lanes[gpu_lane].count) gpu_lane = (uint32_t)l;
    printf("%s: %zu events, %zu lanes, %zu rows, span %.3f s, loaded in %.2f s\n\n", argv[1], t->n_events,
           t->n_lanes, t->n_rows, (double)(t->t_max - t->t_min) / 1e9, load);
    printf("| query | time (best of 3) | events visited | rows | check | memory added | SQLite's own |\n"
           "|---|---|---|---|---|---|---|\n");
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*), sum(dur) FROM events WHERE ts >= %" PRId64 " AND ts < %" PRId64, mid,
             mid + w);
    bench(q, "window: 1 ms, ts pushed down", sql);
    snprintf(sql, sizeof sql, "SELECT count(*), sum(dur) FROM events WHERE +ts >= %" PRId64 " AND +ts < %" PRId64,
             mid, mid + w);
    bench(q, "scan: the same 1 ms, +ts (no pushdown)", sql);
    snprintf(sql, sizeof sql,
             "SELECT count(*), sum(dur) FROM events WHERE lane = %u AND ts >= %" PRId64 " AND ts < %" PRId64,
             gpu_lane, mid, mid + w);
    bench(q, "window on the busiest GPU lane", sql);
    bench(q, "group: name, count(*), sum(dur) GROUP BY name",
          "SELECT name, count(*), sum(dur) FROM events GROUP BY name");
    bench(q, "the same GROUP BY through SQLite's sorter (a subquery hides the grouping)",
          "SELECT name, count(*), sum(dur) FROM (SELECT name, dur FROM events LIMIT -1) GROUP BY name");
    bench(q, "top 10 kernels by total time",
          "SELECT name, count(*), sum(dur) AS total FROM events WHERE kind = 'kernel' GROUP BY name "
          "ORDER BY total DESC LIMIT 10");
    printf("\nmodel %.1f MB; resident memory the queries added at their peak: %.1f MB (%.1f%% of the model)\n",
           (double)Trace_memoryBytes(t) / 1e6, (double)g_peak_added / 1e3,
           100.0 * (double)g_peak_added * 1e3 / (double)Trace_memoryBytes(t));
    QueryDb_close(q);
    Trace_free(t);
    return 0;
}
