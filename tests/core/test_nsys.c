/* Nsight Systems input: the fixture (tests/data/nsys/make.py, written into the build
 * tree by core.nsys_fixture) loads into lanes, names, classes, launch links, ranges and
 * device names as its Kineto twin does, and gives the same overlap figures; a database
 * that lacks a table or a column this reader needs is an error that names it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "ovtrace/analysis/overlap.h"
#include "ovtrace/analysis/steps.h"
#include "ovtrace/read/input.h"
#include "ovtrace/read/load.h"

static const char *dir = OVTRACE_NSYS_FIXTURE;

static Trace *load(const char *path, char *err, size_t errlen) {
    const char *p[] = {path};
    return Load_files(p, 1, NULL, err, errlen);
}

static Trace *load_ok(const char *name) {
    char path[1200], err[512] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    Trace *t = load(path, err, sizeof err);
    if (!t) fail_msg("%s: %s", path, err);
    return t;
}

static size_t count(const Trace *t, EventKind kind, int cls, const char *name) {
    size_t n = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->kind != kind || (cls >= 0 && e->cls != cls)) continue;
        if (name && strcmp(Trace_name(t, e), name)) continue;
        n++;
    }
    return n;
}

static void test_detects_sqlite(void **state) {
    (void)state;
    char path[1200];
    snprintf(path, sizeof path, "%s/rank0.sqlite", dir);
    assert_true(Load_isSqlite(path));
    snprintf(path, sizeof path, "%s/rank0-kineto.json", dir);
    assert_false(Load_isSqlite(path));
}

/* What the fixture holds, as make.py wrote it. */
static void test_model(void **state) {
    (void)state;
    Trace *t = load_ok("rank0.sqlite");
    assert_int_equal(t->sources[0].compression, COMP_SQLITE);
    assert_int_equal(count(t, KIND_KERNEL, CLASS_COMPUTE, NULL), 12);
    assert_int_equal(count(t, KIND_KERNEL, CLASS_COMM,
                           "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"),
                     4);
    assert_int_equal(count(t, KIND_MEMCPY, CLASS_COMM, "Memcpy PtoP"), 2); /* peer-to-peer: comm */
    assert_int_equal(count(t, KIND_MEMCPY, CLASS_MEMORY, "Memcpy HtoD"), 2);
    assert_int_equal(count(t, KIND_MEMSET, -1, NULL), 2);
    /* CUDA calls with the version suffix dropped, each linked to its GPU op */
    assert_int_equal(count(t, KIND_RUNTIME, -1, "cudaLaunchKernel"), 16);
    assert_int_equal(count(t, KIND_RUNTIME, -1, "cudaMemcpyAsync"), 4);
    size_t linked = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (!EventKind_isGpuWork((EventKind)e->kind)) continue;
        size_t p = Trace_partner(t, i);
        assert_true(p != SIZE_MAX);
        assert_int_equal(t->events[p].kind, KIND_RUNTIME);
        assert_int_equal(t->events[p].corr, e->corr);
        assert_true(t->events[p].ts < e->ts);
        linked++;
    }
    assert_int_equal(linked, 22); /* 16 kernels, 4 copies, 2 sets */
    /* NVTX: ranges on their threads (the domain record is not an event), a mark */
    assert_int_equal(count(t, KIND_ANNOTATION, -1, "ProfilerStep#1"), 1);
    assert_int_equal(count(t, KIND_ANNOTATION, -1, "forward"), 2);
    assert_int_equal(count(t, KIND_ANNOTATION, -1, "dataloader"), 1);
    assert_int_equal(count(t, KIND_INSTANT, -1, "checkpoint"), 1);
    assert_int_equal(count(t, KIND_ANNOTATION, -1, "NCCL"), 0);
    /* lanes: two streams of device 0 (through TARGET_INFO_CUDA_DEVICE: GPU 5 is device
     * 0), two threads of pid 4242 with their names */
    size_t gpu = 0, cpu = 0;
    for (size_t l = 0; l < t->n_lanes; l++) {
        const Lane *L = &t->lanes[l];
        const char *gname = StrTab_get(t->strings, t->groups[L->group].name);
        if (L->gpu) {
            gpu++;
            assert_int_equal(L->device, 0);
            assert_true(L->stream == 7 || L->stream == 13);
            assert_string_equal(gname, "NVIDIA H100 80GB HBM3");
            assert_string_equal(StrTab_get(t->strings, t->groups[L->group].label), "GPU 0");
        } else {
            cpu++;
            assert_int_equal(L->pid, 4242);
            assert_string_equal(StrTab_get(t->strings, L->name), L->tid == 4242 ? "python3" : "pt_data_worker");
        }
    }
    assert_int_equal(gpu, 2);
    assert_int_equal(cpu, 2);
    /* absolute times: the session's Unix time plus the event's offset */
    assert_int_equal(t->t_min, 1740461679000000000 + 0);
    StepList s;
    char err[128];
    assert_true(Steps_find(t, NULL, &s, err, sizeof err));
    assert_int_equal(s.n, 2);
    assert_true(s.steps[0].gpu_from_launches);
    StepList_free(&s);
    Trace_free(t);
}

/* The same run as a Kineto trace: every device figure equal, kernel for kernel. */
static void test_same_figures_as_kineto(void **state) {
    (void)state;
    Trace *a = load_ok("rank0.sqlite"), *b = load_ok("rank0-kineto.json");
    assert_int_equal(a->t_min, b->t_min);
    assert_int_equal(a->t_max, b->t_max);
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *ra = Overlap_compute(a, &f), *rb = Overlap_compute(b, &f);
    assert_int_equal(ra->n_devices, 1);
    assert_int_equal(rb->n_devices, 1);
    const DeviceFigures *x = &ra->devices[0], *y = &rb->devices[0];
    int64_t fx[] = {x->window_start, x->window, x->busy, x->idle, x->compute, x->comm, x->overlap, x->exposed,
                    x->memory, (int64_t)x->n_events};
    int64_t fy[] = {y->window_start, y->window, y->busy, y->idle, y->compute, y->comm, y->overlap, y->exposed,
                    y->memory, (int64_t)y->n_events};
    for (size_t i = 0; i < sizeof fx / sizeof *fx; i++) assert_int_equal(fx[i], fy[i]);
    assert_true(x->exposed > 0 && x->overlap > 0); /* the fixture has both */
    assert_int_equal(ra->n_kernels, rb->n_kernels);
    for (size_t i = 0; i < ra->n_kernels; i++) {
        assert_string_equal(StrTab_get(a->strings, ra->kernels[i].name), StrTab_get(b->strings, rb->kernels[i].name));
        assert_int_equal(ra->kernels[i].total, rb->kernels[i].total);
        assert_int_equal(ra->kernels[i].cls, rb->kernels[i].cls);
    }
    OverlapReport_free(ra);
    OverlapReport_free(rb);
    Trace_free(a);
    Trace_free(b);
}

/* A database built from SQL: the error names the table and the column. */
static void expect_error(const char *sql, const char *want1, const char *want2) {
    char path[] = "/tmp/ovtrace-nsys-XXXXXX.sqlite";
    int fd = mkstemps(path, 7);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) fail_msg("%s", msg);
    sqlite3_close(db);
    char err[512] = "";
    Trace *t = load(path, err, sizeof err);
    unlink(path);
    assert_null(t);
    if (!strstr(err, want1) || !strstr(err, want2)) fail_msg("'%s' lacks '%s' or '%s'", err, want1, want2);
}

static void test_schema_errors(void **state) {
    (void)state;
    expect_error("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, correlationId INT,"
                 " demangledName INT, shortName INT);",
                 "table CUPTI_ACTIVITY_KIND_KERNEL", "no such column: streamId");
    expect_error("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, nameId INT);",
                 "table CUPTI_ACTIVITY_KIND_RUNTIME", "no such column: correlationId");
    expect_error("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (x INT);", "not an Nsight Systems export",
                 "no table StringIds");
    expect_error("CREATE TABLE t (x INT);", "not an Nsight Systems export", "CUPTI_ACTIVITY_KIND_KERNEL");
    /* a view named like a table never runs (this one would never end) */
    expect_error("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL"
                 " SELECT x + 1 FROM c) SELECT x AS start, x AS end, 0 AS deviceId, 0 AS streamId,"
                 " 0 AS correlationId, 0 AS demangledName, 0 AS shortName FROM c;",
                 "not an Nsight Systems export", "CUPTI_ACTIVITY_KIND_KERNEL");
    expect_error("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT, end INT, deviceId INT, streamId INT,"
                 " correlationId INT);",
                 "without GPU activity", "NVTX");
}

/* A directory of ranks takes *.sqlite files too. */
static void test_directory(void **state) {
    (void)state;
    char err[512] = "";
    const char *p[] = {dir};
    Trace *t = Load_files(p, 1, NULL, err, sizeof err);
    if (!t) fail_msg("%s", err);
    assert_int_equal(t->n_sources, 2); /* the export and its Kineto twin, as two ranks */
    bool sqlite = false;
    for (size_t i = 0; i < t->n_sources; i++) sqlite |= t->sources[i].compression == COMP_SQLITE;
    assert_true(sqlite);
    Trace_free(t);
}

int main(void) {
    char path[1200];
    snprintf(path, sizeof path, "%s/rank0.sqlite", dir);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "%s: missing (the test core.nsys_fixture writes it with tests/data/nsys/make.py)\n", path);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detects_sqlite),         cmocka_unit_test(test_model),
        cmocka_unit_test(test_same_figures_as_kineto), cmocka_unit_test(test_schema_errors),
        cmocka_unit_test(test_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
