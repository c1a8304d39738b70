/* Nsight Systems input: the SQLite database `nsys export --type sqlite` writes, read
 * with SQLite into the model as a Kineto trace of the same run would be:
 *   CUPTI_ACTIVITY_KIND_KERNEL   kernels on (deviceId, streamId) lanes, names through
 *                                StringIds (demangledName, else shortName)
 *   CUPTI_ACTIVITY_KIND_MEMCPY   copies ("Memcpy HtoD", ...; PtoP is peer-to-peer)
 *   CUPTI_ACTIVITY_KIND_MEMSET   sets
 *   CUPTI_ACTIVITY_KIND_RUNTIME  CUDA API calls on their threads ("cudaLaunchKernel",
 *                                the "_v7000" version suffix dropped), linked to their
 *                                GPU work by correlationId (Trace_finish derives the links)
 *   NVTX_EVENTS                  push/pop and start/end ranges, marks, on their threads
 *   TARGET_INFO_GPU              device names (through TARGET_INFO_CUDA_DEVICE's gpuId
 *                                -> cudaId where it exists); ThreadNames: thread names
 *   TARGET_INFO_SESSION_START_TIME  utcEpochNs, added to every time (absolute, as Kineto)
 * globalTid packs the process and thread ids: pid = globalTid / 2^24 mod 2^24, tid =
 * globalTid mod 2^24. Tables the export leaves out because they would be empty are
 * skipped; a table that exists without a column this reader needs is an error naming
 * both. Only tables are read (a view of the same name is not one). The model holds no source text for these events (args are not fetched). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/read/input.h"
#include "ovtrace/read/load.h"

bool Load_isSqlite(const char *path) {
    static const char magic[16] = "SQLite format 3";
    char head[16];
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    bool is = fread(head, 1, sizeof head, f) == sizeof head && !memcmp(head, magic, sizeof magic);
    fclose(f);
    return is;
}

typedef struct {
    Trace *t;
    sqlite3 *db;
    const char *path;
    uint32_t source;
    int64_t epoch; /* utcEpochNs, or 0 */
    uint32_t *sid;  /* StringIds id -> StrTab id (STRTAB_NONE: unknown) */
    size_t n_sid;
    char *err;
    size_t errlen;
} Nsys;

static bool has_table(Nsys *N, const char *name) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(N->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    bool has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return has;
}

/* The statement, or an error that names the table and what SQLite says is missing
 * ("no such column: streamId"). */
static sqlite3_stmt *prepare(Nsys *N, const char *table, const char *sql) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(N->db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(N->err, N->errlen, "%s: Nsight Systems export: table %s: %s (a schema this reader does not know)",
                 N->path, table, sqlite3_errmsg(N->db));
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

static bool step_error(Nsys *N, const char *table, int rc) {
    if (rc == SQLITE_DONE) return true;
    snprintf(N->err, N->errlen, "%s: Nsight Systems export: reading %s: %s", N->path, table, sqlite3_errmsg(N->db));
    return false;
}

static uint32_t intern(Nsys *N, const char *s) { return StrTab_intern(N->t->strings, s, strlen(s)); }

/* A name through StringIds; "" when the id is unknown or NULL. */
static uint32_t string_id(Nsys *N, sqlite3_stmt *st, int col) {
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return 0;
    sqlite3_int64 id = sqlite3_column_int64(st, col);
    return id >= 0 && (uint64_t)id < N->n_sid && N->sid[id] != STRTAB_NONE ? N->sid[id] : 0;
}

static bool load_strings(Nsys *N) {
    sqlite3_stmt *st = prepare(N, "StringIds", "SELECT id, value FROM StringIds");
    if (!st) return false;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 id = sqlite3_column_int64(st, 0);
        if (id < 0 || id > (1 << 30)) continue; /* ids are small and dense */
        if ((uint64_t)id >= N->n_sid) {
            size_t n = N->n_sid ? N->n_sid : 1024;
            while (n <= (uint64_t)id) n *= 2;
            N->sid = xrealloc(N->sid, n * sizeof *N->sid);
            for (size_t i = N->n_sid; i < n; i++) N->sid[i] = STRTAB_NONE;
            N->n_sid = n;
        }
        const char *v = (const char *)sqlite3_column_text(st, 1);
        N->sid[id] = StrTab_intern(N->t->strings, v ? v : "", v ? (size_t)sqlite3_column_bytes(st, 1) : 0);
    }
    sqlite3_finalize(st);
    return step_error(N, "StringIds", rc);
}

static int64_t abs_ns(Nsys *N, sqlite3_int64 t) { return (int64_t)t + N->epoch; }

static void session_start(Nsys *N) {
    if (!has_table(N, "TARGET_INFO_SESSION_START_TIME")) return;
    sqlite3_stmt *st = prepare(N, "TARGET_INFO_SESSION_START_TIME", "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
    if (!st) return; /* relative times are still consistent within the file */
    if (sqlite3_step(st) == SQLITE_ROW) N->epoch = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    N->err[0] = '\0';
}

/* One GPU activity table: kernels, copies or sets. */
static bool load_gpu(Nsys *N, const char *table, const char *sql, EventKind kind) {
    if (!has_table(N, table)) return true;
    sqlite3_stmt *st = prepare(N, table, sql);
    if (!st) return false;
    static const char *const COPY[] = {"", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH",
                                       "PtoP"};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        /* columns: start, end, deviceId, streamId, correlationId, name id (kernels) or copyKind */
        int64_t dev = sqlite3_column_int64(st, 2), stream = sqlite3_column_int64(st, 3);
        TraceEvent e = {0};
        e.ts = abs_ns(N, sqlite3_column_int64(st, 0));
        e.dur = abs_ns(N, sqlite3_column_int64(st, 1)) - e.ts;
        if (e.dur < 0) e.dur = 0;
        e.src = TRACE_NO_SRC;
        e.corr = (uint32_t)sqlite3_column_int64(st, 4);
        e.kind = kind;
        if (kind == KIND_KERNEL) {
            e.name = string_id(N, st, 5);
            if (!e.name) e.name = string_id(N, st, 6);
        } else if (kind == KIND_MEMCPY) {
            sqlite3_int64 k = sqlite3_column_int64(st, 5);
            char nm[32];
            snprintf(nm, sizeof nm, "Memcpy %s", k > 0 && k <= 10 ? COPY[k] : "?");
            e.name = intern(N, nm);
            if (k == 10) e.flags |= EVF_MEMCPY_P2P;
        } else {
            e.name = intern(N, "Memset (Device)");
        }
        e.lane = Trace_gpuLane(N->t, N->source, dev, stream, dev, stream);
        Trace_append(N->t, &e);
    }
    sqlite3_finalize(st);
    return step_error(N, table, rc);
}

static void split_tid(sqlite3_int64 g, int64_t *pid, int64_t *tid) {
    *pid = (int64_t)((g >> 24) & 0xffffff);
    *tid = (int64_t)(g & 0xffffff);
}

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", as CUPTI names it in Kineto traces. */
static uint32_t api_name(Nsys *N, uint32_t id) {
    const char *s = StrTab_get(N->t->strings, id);
    const char *v = strrchr(s, '_');
    if (!v || v[1] != 'v' || !v[2] || strspn(v + 2, "0123456789") != strlen(v + 2)) return id;
    return StrTab_intern(N->t->strings, s, (size_t)(v - s));
}

static bool load_runtime(Nsys *N) {
    const char *table = "CUPTI_ACTIVITY_KIND_RUNTIME";
    if (!has_table(N, table)) return true;
    sqlite3_stmt *st =
        prepare(N, table, "SELECT start, end, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    if (!st) return false;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t pid, tid;
        split_tid(sqlite3_column_int64(st, 2), &pid, &tid);
        TraceEvent e = {0};
        e.ts = abs_ns(N, sqlite3_column_int64(st, 0));
        e.dur = abs_ns(N, sqlite3_column_int64(st, 1)) - e.ts;
        if (e.dur < 0) e.dur = 0;
        e.src = TRACE_NO_SRC;
        e.corr = (uint32_t)sqlite3_column_int64(st, 3);
        e.name = api_name(N, string_id(N, st, 4));
        e.kind = KIND_RUNTIME;
        e.lane = Trace_cpuLane(N->t, N->source, pid, tid);
        Trace_append(N->t, &e);
    }
    sqlite3_finalize(st);
    return step_error(N, table, rc);
}

/* NVTX: 59 push/pop range, 60 start/end range, 34 mark; other types (domains,
 * categories, names) describe, they do not happen. */
static bool load_nvtx(Nsys *N) {
    const char *table = "NVTX_EVENTS";
    if (!has_table(N, table)) return true;
    sqlite3_stmt *st = prepare(N, table,
                               "SELECT start, end, eventType, globalTid, text, textId FROM NVTX_EVENTS"
                               " WHERE eventType IN (34, 59, 60)");
    if (!st) return false;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int type = sqlite3_column_int(st, 2);
        bool open = sqlite3_column_type(st, 1) == SQLITE_NULL;
        if (open && type != 34) continue; /* a range still open when the capture ended */
        int64_t pid, tid;
        split_tid(sqlite3_column_int64(st, 3), &pid, &tid);
        TraceEvent e = {0};
        e.ts = abs_ns(N, sqlite3_column_int64(st, 0));
        e.dur = open ? 0 : abs_ns(N, sqlite3_column_int64(st, 1)) - e.ts;
        if (e.dur < 0) e.dur = 0;
        e.src = TRACE_NO_SRC;
        const char *text = (const char *)sqlite3_column_text(st, 4);
        e.name = text ? StrTab_intern(N->t->strings, text, (size_t)sqlite3_column_bytes(st, 4)) : string_id(N, st, 5);
        e.kind = type == 34 ? KIND_INSTANT : KIND_ANNOTATION;
        e.lane = Trace_cpuLane(N->t, N->source, pid, tid);
        Trace_append(N->t, &e);
    }
    sqlite3_finalize(st);
    return step_error(N, table, rc);
}

/* Device names and labels, thread names: the viewer's group and lane titles. */
static bool load_names(Nsys *N) {
    if (has_table(N, "TARGET_INFO_GPU")) {
        /* TARGET_INFO_CUDA_DEVICE maps the GPU (gpuId) to the CUDA device the activity
         * tables name (cudaId); without it, the GPU's id is taken as the device */
        bool map = has_table(N, "TARGET_INFO_CUDA_DEVICE");
        sqlite3_stmt *st = map ? prepare(N, "TARGET_INFO_CUDA_DEVICE",
                                         "SELECT c.cudaId, g.name FROM TARGET_INFO_GPU g"
                                         " JOIN TARGET_INFO_CUDA_DEVICE c ON g.id = c.gpuId GROUP BY c.cudaId")
                               : prepare(N, "TARGET_INFO_GPU", "SELECT id, name FROM TARGET_INFO_GPU");
        if (!st) return false;
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t dev = sqlite3_column_int64(st, 0);
            const char *name = (const char *)sqlite3_column_text(st, 1);
            char label[32];
            snprintf(label, sizeof label, "GPU %" PRId64, dev);
            if (name) Trace_setMeta(N->t, N->source, META_PROCESS_NAME, dev, 0, name, strlen(name), 0);
            Trace_setMeta(N->t, N->source, META_PROCESS_LABELS, dev, 0, label, strlen(label), 0);
        }
        sqlite3_finalize(st);
    }
    if (has_table(N, "ThreadNames")) {
        sqlite3_stmt *st = prepare(N, "ThreadNames", "SELECT globalTid, nameId FROM ThreadNames");
        if (!st) return false;
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t pid, tid;
            split_tid(sqlite3_column_int64(st, 0), &pid, &tid);
            uint32_t id = string_id(N, st, 1);
            Trace_setMeta(N->t, N->source, META_THREAD_NAME, pid, tid, StrTab_get(N->t->strings, id),
                          StrTab_len(N->t->strings, id), 0);
        }
        sqlite3_finalize(st);
    }
    return true;
}

bool Load_nsysFile(Trace *t, const char *path, char *err, size_t errlen) {
    Nsys N = {.t = t, .path = path, .err = err, .errlen = errlen};
    err[0] = '\0';
    if (sqlite3_open_v2(path, &N.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, N.db ? sqlite3_errmsg(N.db) : "cannot open the SQLite database");
        sqlite3_close(N.db);
        return false;
    }
    /* the file is input like any trace: its schema runs nothing of its own (a view is
     * not a table here, and functions in its schema are refused) */
    sqlite3_db_config(N.db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_db_config(N.db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    bool ok = true;
    static const char *const ACTIVITY[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                           "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME"};
    bool any = false;
    for (size_t i = 0; i < sizeof ACTIVITY / sizeof *ACTIVITY; i++) any |= has_table(&N, ACTIVITY[i]);
    if (!any || !has_table(&N, "StringIds")) {
        snprintf(err, errlen,
                 "%s: an SQLite database, but not an Nsight Systems export: no table %s (export with "
                 "'nsys export --type sqlite')",
                 path, any ? "StringIds" : "CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET or _RUNTIME");
        ok = false;
    }
    if (ok) {
        N.source = Trace_addSource(t, path);
        t->sources[N.source].compression = COMP_SQLITE;
        session_start(&N);
        ok = load_strings(&N);
    }
    ok = ok &&
         load_gpu(&N, "CUPTI_ACTIVITY_KIND_KERNEL",
                  "SELECT start, end, deviceId, streamId, correlationId, demangledName, shortName"
                  " FROM CUPTI_ACTIVITY_KIND_KERNEL",
                  KIND_KERNEL) &&
         load_gpu(&N, "CUPTI_ACTIVITY_KIND_MEMCPY",
                  "SELECT start, end, deviceId, streamId, correlationId, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY",
                  KIND_MEMCPY) &&
         load_gpu(&N, "CUPTI_ACTIVITY_KIND_MEMSET",
                  "SELECT start, end, deviceId, streamId, correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET", KIND_MEMSET) &&
         load_runtime(&N) && load_nvtx(&N) && load_names(&N);
    if (ok && t->n_events == 0) {
        snprintf(err, errlen, "%s: Nsight Systems export without GPU activity, CUDA calls or NVTX ranges", path);
        ok = false;
    }
    free(N.sid);
    sqlite3_close(N.db);
    return ok;
}
