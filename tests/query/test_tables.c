/* The tables over analysis results and the SQL functions: lanes, flows, counters,
 * collectives, devices and steps against the model and the analysis they read, and
 * against figures computed another way in SQL (a collective's wait from its members'
 * starts, a step's exposed comm as the sum of devices() over its window); arg() on
 * every JSON value type, plain and gzip; median() and percentile(); errors with their
 * place in the SQL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/testutil.h"
#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/counters.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/analysis/steps.h"
#include "ovtrace/query/query.h"

static QueryDb *Q;

static QueryDb *open_db(const Trace *t) {
    char err[256];
    QueryDb *q = QueryDb_open(t, NULL, err, sizeof err);
    if (!q) fail_msg("%s", err);
    return q;
}

static Trace *load(const char *const *paths, size_t n) {
    char err[512];
    Trace *t = Load_files(paths, n, NULL, err, sizeof err);
    if (!t) fail_msg("%s", err);
    return t;
}

static Trace *load_moe(void) {
    const char *p[] = {OVTRACE_TESTDATA "/moe-ep/rank0.json", OVTRACE_TESTDATA "/moe-ep/rank1.json"};
    return load(p, 2);
}

static sqlite3_stmt *prep(const char *sql) {
    sqlite3_stmt *st;
    size_t next;
    QueryError e;
    if (!QueryDb_prepare(Q, sql, 0, &st, &next, &e)) fail_msg("%s: %s at %ld", sql, e.msg, e.offset);
    assert_non_null(st);
    return st;
}

static int64_t one(const char *fmt, ...) {
    char sql[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    sqlite3_stmt *st = prep(sql);
    if (sqlite3_step(st) != SQLITE_ROW) fail_msg("%s: %s", sql, sqlite3_errmsg(QueryDb_sqlite(Q)));
    int64_t v = sqlite3_column_type(st, 0) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static double onef(const char *sql) {
    sqlite3_stmt *st = prep(sql);
    if (sqlite3_step(st) != SQLITE_ROW) fail_msg("%s: %s", sql, sqlite3_errmsg(QueryDb_sqlite(Q)));
    double v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* ---------- lanes, flows ---------- */

static void test_lanes_flows(void **state) {
    (void)state;
    Trace *t = load_moe();
    Q = open_db(t);
    assert_int_equal(one("SELECT count(*) FROM lanes"), t->n_lanes);
    assert_int_equal(one("SELECT sum(events) FROM lanes"), t->n_events);
    assert_int_equal(one("SELECT sum(rows) FROM lanes"), t->n_rows);
    /* every event's lane, rank and device agree with its lane's row */
    assert_int_equal(one("SELECT count(*) FROM events e JOIN lanes l ON l.lane = e.lane "
                         "WHERE l.rank = e.rank AND l.device IS e.device AND l.stream IS e.stream"),
                     t->n_events);
    assert_int_equal(one("SELECT count(*) FROM lanes WHERE gpu AND name LIKE 'stream %%'"),
                     one("SELECT count(*) FROM lanes WHERE gpu"));
    assert_true(t->n_flows > 0);
    assert_int_equal(one("SELECT count(*) FROM flows"), t->n_flows);
    /* a lookup by from or to finds exactly what a scan finds */
    for (const char *col = "\"from\""; col; col = strcmp(col, "\"to\"") ? "\"to\"" : NULL) {
        assert_int_equal(one("SELECT count(*) FROM events e JOIN flows f ON f.%s = e.id", col), t->n_flows);
        assert_int_equal(one("SELECT count(*) FROM events e JOIN (SELECT * FROM flows LIMIT -1) f ON f.%s = e.id",
                             col),
                         t->n_flows);
    }
    /* ac2g flows go from a launch to GPU work with the same correlation id */
    assert_int_equal(one("SELECT count(*) FROM flows f JOIN events a ON a.id = f.\"from\" JOIN events b ON b.id = f.\"to\""
                         " WHERE f.cat = 'ac2g' AND (a.kind NOT IN ('runtime', 'driver') OR b.device IS NULL)"),
                     0);
    QueryDb_close(Q);
    Trace_free(t);
}

/* ---------- counters ---------- */

static void test_counters(void **state) {
    (void)state;
    const char *p[] = {OVTRACE_TESTDATA "/kineto-memory.json"};
    Trace *t = load(p, 1);
    Q = open_db(t);
    CounterSet *cs = CounterSet_build(t);
    size_t n = 0;
    for (size_t i = 0; i < cs->n; i++) n += cs->s[i].n;
    assert_true(n > 0);
    assert_int_equal(one("SELECT count(*) FROM counters"), n);
    assert_int_equal(one("SELECT count(DISTINCT series) FROM counters"), cs->n);
    /* each sample is an event of kind counter at the same time */
    assert_int_equal(one("SELECT count(*) FROM counters c JOIN events e ON e.id = c.id "
                         "WHERE e.kind = 'counter' AND e.ts = c.ts AND e.ts_abs = c.ts_abs"),
                     n);
    assert_int_equal(one("SELECT max(value) FROM counters WHERE series = '[memory] GPU 0 Total Allocated'"), 3145728);
    assert_int_equal(one("SELECT count(*) FROM counters WHERE series LIKE '[memory] GPU 1%%' AND device = 1"), 6);
    assert_int_equal(one("SELECT count(*) FROM counters WHERE unit IS NOT 'bytes'"), 0);
    CounterSet_free(cs);
    QueryDb_close(Q);
    Trace_free(t);
}

/* ---------- collectives ---------- */

static void test_collectives(void **state) {
    (void)state;
    Trace *t = load_moe();
    Q = open_db(t);
    QueryOptions o = QueryOptions_default();
    CollReport *r = Coll_analyze(t, &o.coll);
    assert_true(r->n_members > 0);
    assert_int_equal(one("SELECT count(*) FROM collectives"), r->n_members);
    assert_int_equal(one("SELECT count(DISTINCT instance) FROM collectives"), r->n_inst);
    /* wait is the last start of the instance minus the own start; transfer the own end
     * minus that last start; start and end are the kernel's */
    assert_int_equal(one("SELECT count(*) FROM collectives c WHERE c.wait != "
                         "(SELECT max(start) FROM collectives d WHERE d.instance = c.instance) - c.start"),
                     0);
    assert_int_equal(one("SELECT count(*) FROM collectives c WHERE c.transfer != "
                         "c.\"end\" - (SELECT max(start) FROM collectives d WHERE d.instance = c.instance)"),
                     0);
    assert_int_equal(one("SELECT count(*) FROM collectives c JOIN events e ON e.id = c.id "
                         "WHERE e.ts = c.start AND e.\"end\" = c.\"end\" AND e.rank = c.rank AND e.class = 'comm'"),
                     r->n_members);
    /* one rank arrived last where the starts differ, as stats counts it */
    assert_int_equal(one("SELECT count(*) FROM (SELECT instance, sum(arrived_last) n, max(start) - min(start) s "
                         "FROM collectives GROUP BY instance) WHERE n != (s > 0)"),
                     0);
    assert_int_equal(one("SELECT count(*) FROM collectives WHERE arrived_last AND wait != 0"), 0);
    size_t last = 0;
    for (size_t i = 0; i < r->n_ranks; i++) last += r->ranks[i].arrived_last;
    assert_int_equal(one("SELECT sum(arrived_last) FROM collectives"), last);
    /* a lookup by event id */
    assert_int_equal(one("SELECT count(*) FROM events e JOIN collectives c ON c.id = e.id"), r->n_members);
    CollReport_free(r);
    QueryDb_close(Q);
    Trace_free(t);
}

/* ---------- devices, steps ---------- */

static void check_devices(const Trace *t, const char *from, int64_t t0, int64_t t1) {
    OverlapFilter f = OverlapFilter_all();
    f.t0 = t0;
    f.t1 = t1;
    OverlapReport *R = Overlap_compute(t, &f);
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT rank, device, window_start_ns, window_ns, busy_ns, idle_ns, compute_ns, comm_ns, overlap_ns,"
             " exposed_comm_ns, memory_ns, events, overlap_ratio FROM %s",
             from);
    sqlite3_stmt *st = prep(sql);
    size_t i = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        assert_true(i < R->n_devices);
        const DeviceFigures *d = &R->devices[i++];
        int64_t want[] = {d->rank, d->device, d->window_start, d->window, d->busy, d->idle, d->compute, d->comm,
                          d->overlap, d->exposed, d->memory, (int64_t)d->n_events};
        for (int c = 0; c < 12; c++) assert_int_equal(sqlite3_column_int64(st, c), want[c]);
        if (d->has_comm) assert_true(sqlite3_column_double(st, 12) == d->ratio);
        else assert_int_equal(sqlite3_column_type(st, 12), SQLITE_NULL);
    }
    sqlite3_finalize(st);
    assert_int_equal(i, R->n_devices);
    OverlapReport_free(R);
}

static void test_devices_steps(void **state) {
    (void)state;
    Trace *t = load_moe();
    Q = open_db(t);
    check_devices(t, "devices", INT64_MIN, INT64_MAX);
    int64_t a = 5000000, b = 12000000;
    char from[64];
    snprintf(from, sizeof from, "devices(%lld, %lld)", (long long)a, (long long)b);
    check_devices(t, from, t->t_min + a, t->t_min + b);
    snprintf(from, sizeof from, "devices(%lld)", (long long)a);
    check_devices(t, from, t->t_min + a, INT64_MAX);
    check_devices(t, "devices(NULL, 7000000)", INT64_MIN, t->t_min + 7000000);
    /* the range columns echo the arguments */
    assert_int_equal(one("SELECT range_end FROM devices(1, 2)"), 2);
    StepList s;
    char err[128];
    assert_true(Steps_find(t, NULL, &s, err, sizeof err));
    assert_true(s.n > 0);
    assert_int_equal(one("SELECT count(*) FROM steps"), s.n);
    assert_int_equal(one("SELECT exposed_comm_ns FROM steps ORDER BY step LIMIT 1"), s.steps[0].fig.exposed);
    assert_int_equal(one("SELECT gpu_start FROM steps ORDER BY step LIMIT 1"), s.steps[0].gpu_start - t->t_min);
    /* a step's figures are the devices' over its GPU window, summed */
    assert_int_equal(one("SELECT count(*) FROM steps s WHERE s.exposed_comm_ns != "
                         "(SELECT sum(d.exposed_comm_ns) FROM devices(s.gpu_start, s.gpu_end) d)"),
                     0);
    assert_int_equal(one("SELECT count(*) FROM steps s WHERE s.busy_ns != "
                         "(SELECT sum(d.busy_ns) FROM devices(s.gpu_start, s.gpu_end) d)"),
                     0);
    /* a pattern: the same steps by regex */
    assert_int_equal(one("SELECT count(*) FROM steps('^ProfilerStep#[0-9]+$')"), s.n);
    assert_int_equal(one("SELECT count(*) FROM steps('no step is called this')"), 0);
    StepList_free(&s);
    QueryDb_close(Q);
    Trace_free(t);
}

/* ---------- arg() ---------- */

static const char ARGS_TRACE[] =
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5,\n"
    "  \"args\": {\"s\": \"a\\\"b\\u00e9\", \"i\": 42, \"big\": 9007199254740993, \"neg\": -3, \"f\": 1.5,"
    " \"e\": 2e3, \"t\": true, \"no\": false, \"n\": null, \"o\": {\"x\": [1, 2]}, \"l\": [\"p\"], \"i\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"bare\", \"pid\": 1, \"tid\": 1, \"ts\": 11, \"dur\": 1}\n"
    "]}\n";

static void expect_int(const char *key, int64_t v) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT arg(id, '%s'), typeof(arg(id, '%s')) FROM events WHERE name = 'k'", key, key);
    sqlite3_stmt *st = prep(sql);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal(sqlite3_column_text(st, 1), "integer");
    assert_int_equal(sqlite3_column_int64(st, 0), v);
    sqlite3_finalize(st);
}

static void expect_text(const char *key, const char *v) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT arg(id, '%s'), typeof(arg(id, '%s')) FROM events WHERE name = 'k'", key, key);
    sqlite3_stmt *st = prep(sql);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal(sqlite3_column_text(st, 1), v ? "text" : "null");
    if (v) assert_string_equal(sqlite3_column_text(st, 0), v);
    sqlite3_finalize(st);
}

static void check_args(const char *path) {
    const char *p[] = {path};
    Trace *t = load(p, 1);
    Q = open_db(t);
    expect_text("s", "a\"b\xc3\xa9");
    expect_int("i", 7); /* the last of two equal keys counts */
    expect_int("big", 9007199254740993);
    expect_int("neg", -3);
    expect_int("t", 1);
    expect_int("no", 0);
    expect_text("n", NULL);
    expect_text("missing", NULL);
    expect_text("o", "{\"x\": [1, 2]}");
    expect_text("l", "[\"p\"]");
    assert_true(onef("SELECT arg(id, 'f') FROM events WHERE name = 'k'") == 1.5);
    assert_true(onef("SELECT arg(id, 'e') FROM events WHERE name = 'k'") == 2000);
    assert_int_equal(one("SELECT json_extract(arg(id, 'o'), '$.x[1]') FROM events WHERE name = 'k'"), 2);
    /* no args, no event, NULL id */
    assert_int_equal(one("SELECT arg(id, 'i') IS NULL FROM events WHERE name = 'bare'"), 1);
    assert_int_equal(one("SELECT arg(12345, 'i') IS NULL"), 1);
    assert_int_equal(one("SELECT arg(NULL, 'i') IS NULL"), 1);
    QueryDb_close(Q);
    Trace_free(t);
}

static void test_arg(void **state) {
    (void)state;
    char *plain = tu_write(ARGS_TRACE, strlen(ARGS_TRACE), ".json");
    check_args(plain);
    size_t n;
    char *gz = tu_compress(ARGS_TRACE, strlen(ARGS_TRACE), false, 6, &n);
    char *gzp = tu_write(gz, n, ".json.gz");
    check_args(gzp);
    free(gz);
    unlink(gzp);
    /* a source that changed since loading: an error that says so, not a wrong value */
    const char *p[] = {plain};
    Trace *t = load(p, 1);
    Q = open_db(t);
    FILE *f = fopen(plain, "w");
    fputs("[]", f);
    fclose(f);
    sqlite3_stmt *st = prep("SELECT arg(id, 'i') FROM events WHERE name = 'k'");
    assert_int_equal(sqlite3_step(st), SQLITE_ERROR);
    assert_non_null(strstr(sqlite3_errmsg(QueryDb_sqlite(Q)), "arg():"));
    sqlite3_finalize(st);
    QueryDb_close(Q);
    Trace_free(t);
    unlink(plain);
}

/* ---------- median(), percentile() ---------- */

static void test_percentiles(void **state) {
    (void)state;
    Trace *t = load_moe();
    Q = open_db(t);
    const char *v = "(SELECT 4 AS x UNION ALL SELECT 1 UNION ALL SELECT NULL UNION ALL SELECT 3 UNION ALL SELECT 2)";
    char sql[256];
    struct {
        const char *f;
        double want;
    } cases[] = {{"median(x)", 2.5},          {"percentile(x, 0)", 1},   {"percentile(x, 100)", 4},
                 {"percentile(x, 25)", 1.75}, {"percentile(x, 50)", 2.5}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(sql, sizeof sql, "SELECT %s FROM %s", cases[i].f, v);
        assert_true(onef(sql) == cases[i].want);
    }
    assert_int_equal(one("SELECT median(x) IS NULL FROM (SELECT NULL AS x)"), 1);
    /* a kernel's median duration, against the middle of its sorted durations */
    int64_t n = one("SELECT count(*) FROM events WHERE name LIKE '%%FlashAttnFwd%%'");
    assert_true(n % 2 == 0 && n > 0);
    double m = onef("SELECT median(dur) FROM events WHERE name LIKE '%FlashAttnFwd%'");
    double lo = (double)one("SELECT dur FROM events WHERE name LIKE '%%FlashAttnFwd%%' ORDER BY dur LIMIT 1 OFFSET %lld",
                            (long long)(n / 2 - 1));
    double hi = (double)one("SELECT dur FROM events WHERE name LIKE '%%FlashAttnFwd%%' ORDER BY dur LIMIT 1 OFFSET %lld",
                            (long long)(n / 2));
    assert_true(m == (lo + hi) / 2);
    sqlite3_stmt *st = prep("SELECT percentile(x, 101) FROM (SELECT 1 AS x)");
    assert_int_equal(sqlite3_step(st), SQLITE_ERROR);
    sqlite3_finalize(st);
    QueryDb_close(Q);
    Trace_free(t);
}

/* ---------- errors ---------- */

static void expect_error(const char *sql, size_t from, const char *msg, long offset) {
    sqlite3_stmt *st;
    size_t next;
    QueryError e;
    assert_false(QueryDb_prepare(Q, sql, from, &st, &next, &e));
    assert_null(st);
    if (!strstr(e.msg, msg)) fail_msg("'%s': message '%s' lacks '%s'", sql, e.msg, msg);
    assert_int_equal(e.offset, offset);
}

static void test_errors(void **state) {
    (void)state;
    Trace *t = load_moe();
    Q = open_db(t);
    expect_error("SELECT * FORM events", 0, "syntax error", 9);
    expect_error("SELECT nosuch FROM events", 0, "no such column: nosuch", 7);
    expect_error("SELECT 1; SELECT nosuch FROM lanes", 9, "no such column: nosuch", 17);
    expect_error("SELECT * FROM nosuch", 0, "no such table: nosuch", -1); /* SQLite gives no place */
    expect_error("SELECT 1;\n  SELECT name FROM lanes WHERE\n", 9, "incomplete input", -1);
    /* statements one after another */
    const char *two = "SELECT 1; SELECT 2 ; -- done\n";
    sqlite3_stmt *st;
    size_t next;
    QueryError e;
    assert_true(QueryDb_prepare(Q, two, 0, &st, &next, &e));
    assert_non_null(st);
    sqlite3_finalize(st);
    assert_int_equal(next, 9);
    assert_true(QueryDb_prepare(Q, two, next, &st, &next, &e));
    assert_non_null(st);
    sqlite3_finalize(st);
    assert_true(QueryDb_prepare(Q, two, next, &st, &next, &e));
    assert_null(st);
    /* an error while running: a bad steps() pattern */
    st = prep("SELECT * FROM steps('x[')");
    assert_int_equal(sqlite3_step(st), SQLITE_ERROR);
    QueryDb_stepError(Q, 0, &e);
    assert_non_null(strstr(e.msg, "steps' pattern"));
    sqlite3_finalize(st);
    st = prep("SELECT * FROM devices('soon')");
    assert_int_equal(sqlite3_step(st), SQLITE_ERROR);
    QueryDb_stepError(Q, 0, &e);
    assert_non_null(strstr(e.msg, "range_start must be an integer"));
    sqlite3_finalize(st);
    QueryDb_close(Q);
    Trace_free(t);
}

/* The declared schemas are what .schema prints: each table answers SELECT * with them. */
static void test_schemas(void **state) {
    (void)state;
    Trace *t = load_moe();
    Q = open_db(t);
    assert_int_equal(QueryDb_tableCount(), 7);
    for (size_t i = 0; i < QueryDb_tableCount(); i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT * FROM %s LIMIT 1", QueryDb_tableName(i));
        sqlite3_stmt *st = prep(sql);
        assert_non_null(strstr(QueryDb_tableSchema(i), QueryDb_tableName(i)));
        for (int c = 0; c < sqlite3_column_count(st); c++)
            assert_non_null(strstr(QueryDb_tableSchema(i), sqlite3_column_name(st, c)));
        sqlite3_finalize(st);
    }
    QueryDb_close(Q);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes_flows),   cmocka_unit_test(test_counters), cmocka_unit_test(test_collectives),
        cmocka_unit_test(test_devices_steps), cmocka_unit_test(test_arg),      cmocka_unit_test(test_percentiles),
        cmocka_unit_test(test_errors),        cmocka_unit_test(test_schemas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
