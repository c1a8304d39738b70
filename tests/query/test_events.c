/* The events table on a generated trace (GPU streams, nested CPU threads, 200k
 * events): every constraint the table takes over gives exactly the rows SQLite's own
 * filtering gives (the reference reads the table through a subquery with LIMIT -1,
 * which no constraint reaches), and a window query looks at a small share of the
 * events instead of all of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/query/query.h"

enum { N_GPU_LANES = 4, N_CPU_LANES = 3, N_NAMES = 40 };

static Trace *T;
static QueryDb *Q;
static size_t N;

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint32_t name_id(int k) {
    char nm[48];
    if (k % 10 == 3) snprintf(nm, sizeof nm, "ncclDevKernel_AllReduce_%d", k);
    else snprintf(nm, sizeof nm, "k%d", k);
    return StrTab_intern(T->strings, nm, strlen(nm));
}

/* GPU lanes: back-to-back kernels with gaps (one row each). CPU lanes: ops with nested
 * children (several rows), some zero-length. About 1 s in all, from t0 = 5 s. */
static void build(void) {
    T = Trace_new();
    uint32_t src = Trace_addSource(T, "generated");
    const int64_t t0 = 5000000000;
    uint32_t corr = 1;
    for (int l = 0; l < N_GPU_LANES; l++) {
        uint32_t lane = Trace_gpuLane(T, src, l / 2, 7 + l, l / 2, 7 + l);
        int64_t ts = t0;
        for (int i = 0; i < 30000; i++) {
            TraceEvent e = {0};
            e.ts = ts;
            e.dur = 1000 + (int64_t)(next_rand() % 40000);
            e.src = TRACE_NO_SRC;
            e.name = name_id((int)(next_rand() % N_NAMES));
            e.corr = corr++;
            e.lane = lane;
            e.kind = KIND_KERNEL;
            Trace_append(T, &e);
            ts += e.dur + (int64_t)(next_rand() % 3000);
        }
    }
    for (int l = 0; l < N_CPU_LANES; l++) {
        uint32_t lane = Trace_cpuLane(T, src, 100, 101 + l);
        int64_t ts = t0;
        for (int i = 0; i < 10000; i++) {
            TraceEvent e = {0};
            e.ts = ts;
            e.dur = 50000 + (int64_t)(next_rand() % 50000);
            e.src = TRACE_NO_SRC;
            e.name = name_id((int)(next_rand() % N_NAMES));
            e.lane = lane;
            e.kind = KIND_CPU_OP;
            Trace_append(T, &e);
            int64_t cts = ts + 100; /* children: two or three, each inside the parent */
            int kids = 2 + (int)(next_rand() % 2);
            for (int c = 0; c < kids; c++) {
                TraceEvent k = e;
                k.ts = cts;
                k.dur = c == 2 ? 0 : 10000 + (int64_t)(next_rand() % 5000);
                k.kind = KIND_RUNTIME;
                k.corr = corr++;
                Trace_append(T, &k);
                cts += k.dur + 500;
            }
            ts += e.dur + (int64_t)(next_rand() % 2000);
        }
    }
    Trace_finish(T);
    CommRules *r = CommRules_default();
    Classify_trace(T, r);
    CommRules_free(r);
    N = T->n_events;
}

static int setup(void **state) {
    (void)state;
    build();
    char err[256];
    Q = QueryDb_open(T, NULL, err, sizeof err);
    return Q ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    QueryDb_close(Q);
    Trace_free(T);
    return 0;
}

/* The one row of a query as int64s (NULL as INT64_MIN). */
static void row(const char *sql, int64_t *out, int n) {
    sqlite3_stmt *st;
    size_t next;
    QueryError e;
    if (!QueryDb_prepare(Q, sql, 0, &st, &next, &e)) fail_msg("%s: %s at %ld", sql, e.msg, e.offset);
    assert_non_null(st);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) fail_msg("%s: %s", sql, sqlite3_errmsg(QueryDb_sqlite(Q)));
    for (int i = 0; i < n; i++)
        out[i] = sqlite3_column_type(st, i) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(st, i);
    sqlite3_finalize(st);
}

static int64_t one(const char *fmt, ...) {
    char sql[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    int64_t v;
    row(sql, &v, 1);
    return v;
}

/* count, sum of ids, and events visited, of WHERE pred through the table and through a
 * subquery no constraint reaches */
static void agree(const char *pred) {
    char sql[1024];
    int64_t got[2], want[2];
    uint64_t v0 = QueryDb_eventsVisited(Q);
    snprintf(sql, sizeof sql, "SELECT count(*), coalesce(sum(id), -1) FROM events WHERE %s", pred);
    row(sql, got, 2);
    uint64_t pushed = QueryDb_eventsVisited(Q) - v0;
    snprintf(sql, sizeof sql,
             "SELECT count(*), coalesce(sum(id), -1) FROM (SELECT * FROM events LIMIT -1) WHERE %s", pred);
    row(sql, want, 2);
    if (got[0] != want[0] || got[1] != want[1])
        fail_msg("WHERE %s: %lld rows (id sum %lld) pushed down, %lld (%lld) filtered by SQLite", pred,
                 (long long)got[0], (long long)got[1], (long long)want[0], (long long)want[1]);
    assert_true(pushed <= N);
}

static void test_pushdown_agrees(void **state) {
    (void)state;
    int64_t span = T->t_max - T->t_min, a = span / 3, b = a + 2000000;
    char p[512];
    const char *fixed[] = {
        "lane = 3",
        "lane IN (1, 5)",
        "rank = 0 AND device = 1 AND stream = 9",
        "device = 0",
        "pid = 100 AND tid = 102",
        "pid = 0",
        "depth = 1",
        "depth = 2 AND lane = 6",
        "name = 'k7'",
        "name = 'K7' COLLATE NOCASE",
        "name = 'no such name'",
        "name IN ('k1', 'k2', 'ncclDevKernel_AllReduce_13')",
        "class = 'comm'",
        "class = 'communication'",
        "kind = 'runtime'",
        "kind = 'cpu_op' AND class = 'cpu'",
        "correlation = 1234",
        "correlation IS NULL",
        "dur > 40000",
        "dur = 0",
        "dur BETWEEN 1000 AND 1500",
        "id = 777",
        "id = 777.0",
        "id = 777.5",
        "id BETWEEN 100 AND 200",
        "id > 199990",
        "id < 0",
        "id >= 9223372036854775807",
        "id > 9223372036854775807",
        "ts < 0",
        "ts > 9223372036854775807",
        "ts < -9223372036854775808",
        "ts < NULL",
        "ts > '100000000'",
        "ts > 1.5e8 AND ts < 2.5e8",
        "ts > 1e300",
        "\"end\" < 1e-300",
        "lane = 2 AND lane = 3",
        "ts = (SELECT ts FROM events WHERE id = 555)",
        "ts_abs = (SELECT ts_abs FROM events WHERE id = 42)",
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) agree(fixed[i]);
    const char *windows[] = {
        "ts >= %lld AND ts < %lld",
        "ts > %lld AND ts <= %lld",
        "\"end\" > %lld AND \"end\" <= %lld",
        "\"end\" >= %lld AND ts <= %lld",
        "ts BETWEEN %lld AND %lld AND lane = 2 AND name = 'k3'",
        "ts BETWEEN %lld AND %lld AND depth = 1 AND kind = 'runtime'",
        "ts >= %lld AND ts <= %lld AND class = 'comm' AND dur > 20000",
        "\"end\" >= %lld AND ts < %lld AND rank = 0",
    };
    for (size_t i = 0; i < sizeof windows / sizeof *windows; i++) {
        snprintf(p, sizeof p, windows[i], (long long)a, (long long)b);
        agree(p);
    }
    /* absolute times */
    snprintf(p, sizeof p, "ts_abs >= %lld AND ts_abs < %lld", (long long)(T->t_min + a), (long long)(T->t_min + b));
    agree(p);
    /* a point: the events covering it */
    snprintf(p, sizeof p, "ts <= %lld AND \"end\" > %lld", (long long)a, (long long)a);
    agree(p);
}

/* A 1 ms window over a 1 s trace looks at about 1/1000 of the events (plus the binary
 * searches), not all of them; the rows are those the reference finds. */
static void test_window_visits_few(void **state) {
    (void)state;
    int64_t a = (T->t_max - T->t_min) / 2, b = a + 1000000;
    uint64_t v0 = QueryDb_eventsVisited(Q);
    int64_t n = one("SELECT count(*) FROM events WHERE ts >= %lld AND ts < %lld", (long long)a, (long long)b);
    uint64_t visited = QueryDb_eventsVisited(Q) - v0;
    int64_t want = 0;
    for (size_t i = 0; i < N; i++) {
        int64_t ts = T->events[i].ts - T->t_min;
        want += ts >= a && ts < b;
    }
    assert_int_equal(n, want);
    assert_true(want > 0);
    if (visited > N / 100) fail_msg("a 1 ms window visited %llu of %zu events", (unsigned long long)visited, N);
    assert_true(visited >= (uint64_t)want);
    /* a full scan visits everything */
    v0 = QueryDb_eventsVisited(Q);
    assert_int_equal(one("SELECT count(*) FROM events WHERE +ts >= %lld AND +ts < %lld", (long long)a, (long long)b),
                     want);
    assert_int_equal(QueryDb_eventsVisited(Q) - v0, N);
}

/* A lane's events and an id lookup: only those are looked at. */
static void test_lane_and_id_visits(void **state) {
    (void)state;
    uint64_t v0 = QueryDb_eventsVisited(Q);
    assert_int_equal(one("SELECT count(*) FROM events WHERE lane = 5"), (int64_t)T->lanes[5].count);
    assert_int_equal(QueryDb_eventsVisited(Q) - v0, T->lanes[5].count);
    const Row *r = &T->rows[T->lanes[5].first_row + 1];
    v0 = QueryDb_eventsVisited(Q);
    assert_int_equal(one("SELECT count(*) FROM events WHERE lane = 5 AND depth = 1"), (int64_t)r->count);
    assert_int_equal(QueryDb_eventsVisited(Q) - v0, r->count);
    v0 = QueryDb_eventsVisited(Q);
    assert_int_equal(one("SELECT count(*) FROM events WHERE lane IN (5, 6, 5) AND name IN ('k1', 'k2')"),
                     one("SELECT count(*) FROM events WHERE +lane IN (5, 6) AND +name IN ('k1', 'k2')"));
    assert_true(QueryDb_eventsVisited(Q) - v0 == T->lanes[5].count + T->lanes[6].count + N);
    v0 = QueryDb_eventsVisited(Q);
    assert_int_equal(one("SELECT dur FROM events WHERE id = 4242"), T->events[4242].dur);
    assert_int_equal(QueryDb_eventsVisited(Q) - v0, 1);
    /* a join on id: each outer row costs one event */
    v0 = QueryDb_eventsVisited(Q);
    assert_int_equal(one("WITH RECURSIVE g(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM g WHERE v < 50) "
                         "SELECT count(*) FROM g JOIN events e ON e.id = g.v * 1000"),
                     50);
    assert_true(QueryDb_eventsVisited(Q) - v0 <= 50);
}

/* Events come in id order (ORDER BY id costs no sort, and must still hold). */
static void test_order_by_id(void **state) {
    (void)state;
    int64_t a = (T->t_max - T->t_min) / 4, b = a + 5000000;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT id FROM events WHERE ts BETWEEN %lld AND %lld ORDER BY id", (long long)a,
             (long long)b);
    sqlite3_stmt *st;
    size_t next;
    QueryError e;
    assert_true(QueryDb_prepare(Q, sql, 0, &st, &next, &e));
    int64_t last = -1, n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        assert_true(id > last);
        last = id;
        n++;
    }
    sqlite3_finalize(st);
    assert_true(n > 0);
    /* with an IN list the cursor runs once per value: SQLite sorts */
    assert_int_equal(one("SELECT count(*) FROM (SELECT id, lag(id) OVER () AS p FROM "
                         "(SELECT id FROM events WHERE lane IN (4, 1) ORDER BY id)) WHERE p > id"),
                     0);
}

/* The text of a one-row, one-column query (malloc'd). */
static char *text(const char *sql) {
    sqlite3_stmt *st;
    size_t next;
    QueryError e;
    if (!QueryDb_prepare(Q, sql, 0, &st, &next, &e)) fail_msg("%s: %s", sql, e.msg);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const char *v = (const char *)sqlite3_column_text(st, 0);
    char *out = strdup(v ? v : "");
    sqlite3_finalize(st);
    return out;
}

/* Every by-name form against SQLite's sorter (the same query over a subquery no
 * constraint or ordering reaches), under the first n_preds of: every event, a 20 ms
 * window, kernels, two lanes. */
static void check_by_name_forms(const char *what, size_t n_preds) {
    int64_t a = (T->t_max - T->t_min) / 3, b = a + 20000000;
    const char *forms[] = {
        "SELECT group_concat(name || ':' || n || ':' || d, ';') FROM (SELECT name, count(*) n, sum(dur) d FROM %s"
        " GROUP BY name)",
        "SELECT group_concat(name || ':' || n, ';') FROM (SELECT name, count(*) n, sum(dur) AS total FROM %s"
        " GROUP BY name ORDER BY total DESC LIMIT 7)",
        "SELECT group_concat(name || ':' || id, ';') FROM (SELECT name, id FROM %s ORDER BY name DESC, id)",
        "SELECT group_concat(name || ':' || n, ';') FROM (SELECT name, count(*) n FROM %s GROUP BY name"
        " ORDER BY name DESC)",
        "SELECT group_concat(name, ';') FROM (SELECT name FROM %s ORDER BY name DESC)",
        "SELECT group_concat(name, ';') FROM (SELECT name FROM %s ORDER BY name)",
        "SELECT group_concat(name, ';') FROM (SELECT DISTINCT name FROM %s ORDER BY name)",
        "SELECT group_concat(name || ':' || id, ';') FROM (SELECT name, id FROM %s ORDER BY name)",
    };
    char where[256], from[300], sql[1024];
    const char *preds[] = {"1", NULL, "kind = 'kernel'", "lane IN (2, 5)"};
    for (size_t p = 0; p < n_preds; p++) {
        if (preds[p]) snprintf(where, sizeof where, "%s", preds[p]);
        else snprintf(where, sizeof where, "ts >= %lld AND ts < %lld", (long long)a, (long long)b);
        for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
            snprintf(from, sizeof from, "events WHERE %s", where);
            snprintf(sql, sizeof sql, forms[f], from);
            char *got = text(sql);
            snprintf(from, sizeof from, "(SELECT * FROM events LIMIT -1) WHERE %s", where);
            snprintf(sql, sizeof sql, forms[f], from);
            char *want = text(sql);
            if (strcmp(got, want))
                fail_msg("%s, form %zu, WHERE %s: the table's grouping differs from SQLite's", what, f, where);
            assert_true(strlen(got) > 0);
            free(got);
            free(want);
        }
    }
}

/* GROUP BY name and ORDER BY name come from the table already grouped (no sorter):
 * the groups, their order and the rows within them are those SQLite's sorter gives,
 * whether the names come in batches of several (the default: 64Ki events of the 200k
 * at once, about 13 names; 12,000: two or three), each name alone (1 event: every name
 * is a batch of its own), and holding a byte per event, not a 4-byte permutation. */
static void test_by_name(void **state) {
    (void)state;
    check_by_name_forms("default batches", 4);
    size_t held = QueryDb_groupingBytes(Q);
    assert_true(held > 0);
    if (held > N + 4 * 65536) fail_msg("grouping by name held %zu bytes for %zu events", held, N);
    QueryDb *keep = Q;
    const size_t batches[] = {12000, 1};
    for (size_t k = 0; k < 2; k++) {
        QueryOptions o = QueryOptions_default();
        o.group_batch = batches[k];
        char err[256], what[64];
        Q = QueryDb_open(T, &o, err, sizeof err);
        assert_non_null(Q);
        snprintf(what, sizeof what, "batches of %zu events", batches[k]);
        check_by_name_forms(what, 2);
        assert_true(QueryDb_groupingBytes(Q) <= N + 4 * batches[k] * 3);
        QueryDb_close(Q);
    }
    Q = keep;
}

/* More names than a byte numbers batches: the last batch takes the names left over
 * and the grouping still matches SQLite's. */
static void test_by_name_many_names(void **state) {
    (void)state;
    Trace *keep_t = T;
    QueryDb *keep_q = Q;
    T = Trace_new();
    uint32_t src = Trace_addSource(T, "names");
    uint32_t lane = Trace_gpuLane(T, src, 0, 7, 0, 7);
    for (int i = 0; i < 3000; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "kernel_%03d", (int)(next_rand() % 600));
        TraceEvent e = {0};
        e.ts = 1000 * (int64_t)i;
        e.dur = 500;
        e.src = TRACE_NO_SRC;
        e.name = StrTab_intern(T->strings, nm, strlen(nm));
        e.lane = lane;
        e.kind = KIND_KERNEL;
        Trace_append(T, &e);
    }
    Trace_finish(T);
    QueryOptions o = QueryOptions_default();
    o.group_batch = 1;
    char err[256];
    Q = QueryDb_open(T, &o, err, sizeof err);
    assert_non_null(Q);
    char *got = text("SELECT group_concat(name || ':' || id, ';') FROM (SELECT name, id FROM events ORDER BY name)");
    char *want = text("SELECT group_concat(name || ':' || id, ';') FROM "
                      "(SELECT name, id FROM (SELECT * FROM events LIMIT -1) ORDER BY name, id)");
    assert_string_equal(got, want);
    assert_true(one("SELECT count(DISTINCT name) FROM events") > 255);
    free(got);
    free(want);
    QueryDb_close(Q);
    Trace_free(T);
    T = keep_t;
    Q = keep_q;
}

/* Cells: relative and absolute times, NULLs where a lane has no device or a kernel no
 * correlation, the names the model gives kinds and classes. */
static void test_cells(void **state) {
    (void)state;
    int64_t r[8];
    size_t i = T->lanes[0].first;
    const TraceEvent *e = &T->events[i];
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT ts, \"end\", dur, ts_abs, rank, device, stream, depth FROM events WHERE id = %zu",
             i);
    row(sql, r, 8);
    assert_int_equal(r[0], e->ts - T->t_min);
    assert_int_equal(r[1], e->ts + e->dur - T->t_min);
    assert_int_equal(r[2], e->dur);
    assert_int_equal(r[3], e->ts);
    assert_int_equal(r[5], T->lanes[0].device);
    assert_int_equal(r[6], T->lanes[0].stream);
    assert_int_equal(one("SELECT count(*) FROM events WHERE kind = 'kernel' AND cat = 'kernel'"),
                     N_GPU_LANES * 30000);
    assert_int_equal(one("SELECT count(*) FROM events WHERE device IS NULL"), (int64_t)N - N_GPU_LANES * 30000);
    assert_int_equal(one("SELECT count(*) FROM events WHERE kind = 'cpu_op' AND correlation IS NULL"),
                     N_CPU_LANES * 10000);
    assert_int_equal(one("SELECT count(DISTINCT class) FROM events WHERE kind = 'kernel'"), 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pushdown_agrees), cmocka_unit_test(test_window_visits_few),
        cmocka_unit_test(test_lane_and_id_visits), cmocka_unit_test(test_order_by_id),
        cmocka_unit_test(test_by_name),          cmocka_unit_test(test_by_name_many_names),
        cmocka_unit_test(test_cells),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
