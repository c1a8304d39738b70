/* Many files read at once, a whole file per thread (read/load_many.c), against the same
 * files read one after another: the same model field by field (sources, ranks, merged
 * exports split back into ranks, string pids, flows, skips, truncation, warnings,
 * compressed input, GPU-first loads), the first failing file's error, progress and
 * previews on the caller's thread in file order, and a cancel that stops the workers. */
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#include "testutil.h"
#include "load_many.h"
#include "../lib/samemodel.h"

enum { N_FILES = 8, FILLER = 1500 };

static char g_dir[64];
static char *g_paths[N_FILES];

/* FILLER kernels on two streams of device `dev`, from ts 100 us on: files of similar size. */
static size_t filler(char *s, int dev) {
    size_t n = 0;
    for (int k = 0; k < FILLER; k++)
        n += (size_t)sprintf(s + n, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_%d\",\"pid\":%d,\"tid\":%d,"
                                    "\"ts\":%d.%03d,\"dur\":0.5,\"args\":{\"device\":%d,\"stream\":%d}}",
                             k % 7, dev, 7 + k % 2, 100 + k, k % 1000, dev, 7 + k % 2);
    return n;
}

/* File i's JSON: every file a different kind of trouble for the merge. */
static char *file_json(int i, size_t *len) {
    char *s = malloc(FILLER * 160 + 8192);
    size_t n = 0;
    switch (i) {
    case 2: /* a merged export: two ranks behind renamed pids, split back on loading */
        n += (size_t)sprintf(s, "{\"ovtrace\": {\"merged\": true, \"sources\": [{\"rank\": 8}, {\"rank\": 9, \"meta\": "
                                "{\"traceName\": \"nine\"}}]}, \"traceEvents\": [{\"ph\":\"M\",\"name\":\"process_name\","
                                "\"pid\":\"rank 9 pid 0\",\"args\":{\"name\":\"GPU 0\"}},"
                                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllToAll\",\"pid\":\"rank 8 pid 0\","
                                "\"tid\":20,\"ts\":50,\"dur\":9,\"args\":{\"device\":0,\"stream\":20}},"
                                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllToAll\",\"pid\":\"rank 9 pid 0\","
                                "\"tid\":20,\"ts\":51,\"dur\":8,\"args\":{\"device\":0,\"stream\":20}},"
                                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":\"rank 9 host\","
                                "\"tid\":3,\"ts\":40,\"dur\":2}");
        n += filler(s + n, 5);
        break;
    case 3: /* a base time that is no number: a warning, times as written */
        n += (size_t)sprintf(s, "{\"baseTimeNanoseconds\": \"soon\", \"traceEvents\": [{\"ph\":\"X\",\"cat\":\"kernel\","
                                "\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1,\"args\":{\"device\":0,\"stream\":7}}");
        n += filler(s + n, 0);
        break;
    case 7: /* a simulator recording */
        n += (size_t)sprintf(s, "{\"ovtrace\": {\"simulated\": true}, \"distributedInfo\": {\"rank\": 7, \"world_size\": 8},"
                                " \"traceEvents\": [{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"moe::gate\",\"pid\":0,"
                                "\"tid\":7,\"ts\":3,\"dur\":1,\"args\":{\"device\":0,\"stream\":7}}");
        n += filler(s + n, 0);
        break;
    default: /* Kineto-like: base time, rank, string pids, flows, counters, metadata, a skip, B without E */
        n += (size_t)sprintf(
            s,
            "{\"displayTimeUnit\": \"ns\", \"traceName\": \"r%d\", \"baseTimeNanoseconds\": %d000000000,"
            " \"distributedInfo\": {\"rank\": %d, \"world_size\": 8}, \"traceEvents\": ["
            "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":\"host %d\",\"tid\":7,\"args\":{\"name\":\"main\"}},"
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":\"host %d\",\"tid\":7,\"ts\":8,"
            "\"dur\":1,\"args\":{\"correlation\":42}},"
            "{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":42,\"pid\":\"host %d\",\"tid\":7,\"ts\":8},"
            "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":42,\"pid\":0,\"tid\":7,\"ts\":100,\"bp\":\"e\"},"
            "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":\"host %d\",\"tid\":7,\"ts\":9,\"args\":{\"bytes\":1.5e3}},"
            "{\"ph\":\"X\",\"name\":\"bad ts\",\"pid\":1,\"tid\":1,\"ts\":\"x%d\"},"
            "{\"ph\":\"B\",\"name\":\"open\",\"pid\":\"host %d\",\"tid\":8,\"ts\":5}",
            i, 1700 + i, i, i, i, i, i, i, i);
        n += filler(s + n, i % 2);
    }
    n += (size_t)sprintf(s + n, "]}");
    if (i == 5) n = n * 2 / 3; /* truncated: loads as far as it goes */
    *len = n;
    return s;
}

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/ovt-many-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    for (int i = 0; i < N_FILES; i++) {
        size_t len;
        char *json = file_json(i, &len);
        char *path = malloc(128);
        bool gz = i == 6; /* compressed: decompressed while parsed */
        snprintf(path, 128, "%s/rank%d.json%s", g_dir, i, gz ? ".gz" : "");
        size_t out_n = len;
        char *out = gz ? tu_compress(json, len, false, 6, &out_n) : json;
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(out, 1, out_n, f), out_n);
        fclose(f);
        if (out != json) free(out);
        free(json);
        g_paths[i] = path;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    for (int i = 0; i < N_FILES; i++) {
        unlink(g_paths[i]);
        free(g_paths[i]);
    }
    rmdir(g_dir);
    return 0;
}

static Trace *load(const char *const *paths, size_t n, int threads, bool gpu_only, char *err, size_t errlen) {
    LoadOptions o = {.threads = threads, .cache = -1, .gpu_only = gpu_only};
    return Load_files(paths, n, &o, err, errlen);
}

static void same_as_in_turn(bool gpu_only) {
    char err[1024];
    const char *const *p = (const char *const *)g_paths;
    assert_true(LoadMany_wanted(p, N_FILES, 2));
    Trace *a = load(p, N_FILES, 1, gpu_only, err, sizeof err);
    if (!a) fail_msg("%s", err);
    assert_int_equal(a->parallel_files, 0);
    /* what the files hold, so the comparison compares something */
    assert_true(a->n_sources > N_FILES); /* the merged export split into two ranks */
    assert_true(a->diag.truncated && a->simulated && a->input_warning);
    if (!gpu_only) assert_true(a->diag.skipped >= 1); /* a GPU-first load passes the bad CPU event over */
    for (int th = 2; th <= 4; th += 2) {
        Trace *b = load(p, N_FILES, th, gpu_only, err, sizeof err);
        if (!b) fail_msg("%s", err);
        assert_int_equal(b->parallel_files, N_FILES);
        assert_same_model(a, b);
        assert_str_or_null(a->input_warning, b->input_warning);
        assert_int_equal(a->deferred, b->deferred);
        assert_int_equal(a->gpu_only, b->gpu_only);
        Trace_free(b);
    }
    Trace_free(a);
}

static void same_model_as_files_in_turn(void **state) {
    (void)state;
    same_as_in_turn(false);
}

static void gpu_first_load_same_as_in_turn(void **state) {
    (void)state;
    same_as_in_turn(true);
}

/* Too few files for the threads, or one file outweighing a thread's share: slices. */
static void when_whole_files_pay(void **state) {
    (void)state;
    const char *const *p = (const char *const *)g_paths;
    assert_false(LoadMany_wanted(p, N_FILES, 1));
    assert_false(LoadMany_wanted(p, 3, 2));
    assert_true(LoadMany_wanted(p, 4, 2));
    assert_false(LoadMany_wanted(p, 5, 2)); /* three files against two: slices share better */
    assert_true(LoadMany_wanted(p, 6, 2));
    assert_true(LoadMany_wanted(p, N_FILES, 2));
    assert_false(LoadMany_wanted(p, N_FILES, 3));
    assert_true(LoadMany_wanted(p, 6, 3));
    assert_false(LoadMany_wanted(p, N_FILES, 5));
    char big[128];
    snprintf(big, sizeof big, "%s/big.json", g_dir);
    size_t len;
    char *json = file_json(0, &len);
    FILE *f = fopen(big, "wb");
    assert_non_null(f);
    fwrite(json, 1, len - 2, f);
    for (int k = 0; k < 11; k++) { /* the events 11 times more: one file as large as all others */
        char *body = strchr(json, '[') + 1;
        fputc(',', f);
        fwrite(body, 1, (size_t)(json + len - 2 - body), f);
    }
    fputs("]}", f);
    fclose(f);
    free(json);
    const char *with_big[] = {g_paths[0], g_paths[1], g_paths[3], g_paths[4], big};
    assert_false(LoadMany_wanted(with_big, 5, 2));
    char err[1024];
    Trace *t = load(with_big, 5, 2, false, err, sizeof err);
    if (!t) fail_msg("%s", err);
    assert_int_equal(t->parallel_files, 0);
    Trace_free(t);
    const char *with_dir[] = {g_paths[0], g_paths[1], g_paths[3], g_dir};
    assert_false(LoadMany_wanted(with_dir, 4, 2)); /* not a regular file */
    unlink(big);
}

/* A file that cannot be read (missing, then a syntax error after it): the error is the
 * first one in file order, word for word the one the one-by-one read gives. */
static void first_failing_file_named(void **state) {
    (void)state;
    char bad[128], missing[128];
    snprintf(bad, sizeof bad, "%s/bad.json", g_dir);
    snprintf(missing, sizeof missing, "%s/missing.json", g_dir);
    FILE *f = fopen(bad, "wb");
    assert_non_null(f);
    fputs("@ not a trace", f);
    fclose(f);
    const char *order[2][N_FILES] = {
        {g_paths[0], g_paths[1], g_paths[3], bad, g_paths[4], missing, g_paths[6], g_paths[7]},
        {g_paths[0], missing, g_paths[3], bad, g_paths[4], g_paths[1], g_paths[6], g_paths[7]},
    };
    for (int k = 0; k < 2; k++) {
        char e1[1024] = "", e2[1024] = "";
        Trace *a = load(order[k], N_FILES, 1, false, e1, sizeof e1);
        assert_null(a);
        for (int th = 2; th <= 4; th++) {
            Trace *b = load(order[k], N_FILES, th, false, e2, sizeof e2);
            assert_null(b);
            assert_string_equal(e1, e2);
        }
        if (!strstr(e1, k == 0 ? bad : missing)) fail_msg("%s", e1);
    }
    unlink(bad);
}

typedef struct {
    pthread_t caller;
    int wrong_thread;
    const char *last_path;
    int file;       /* index of last_path in g_paths */
    int backwards;  /* a report of a file before the last one reported */
    uint64_t done[N_FILES], total[N_FILES];
    size_t events_at_end[N_FILES];
    size_t observed, observe_back;
    atomic_int cancel;
    int cancel_at; /* set cancel on the first report of this file (-1: never) */
} Watch;

static int file_of(const char *path) {
    for (int i = 0; i < N_FILES; i++)
        if (!strcmp(path, g_paths[i])) return i;
    return -1;
}

static void on_progress(void *ctx, const char *path, uint64_t done, uint64_t total, size_t events) {
    Watch *w = ctx;
    if (!pthread_equal(pthread_self(), w->caller)) w->wrong_thread++;
    int i = file_of(path);
    assert_true(i >= 0);
    if (i < w->file) w->backwards++;
    w->file = i;
    w->done[i] = done;
    w->total[i] = total;
    if (done == total) w->events_at_end[i] = events;
    if (i == w->cancel_at) w->cancel = 1;
}

static void on_observe(void *ctx, const Trace *partial) {
    Watch *w = ctx;
    if (!pthread_equal(pthread_self(), w->caller)) w->wrong_thread++;
    if (partial->n_events < w->observed) w->observe_back++;
    w->observed = partial->n_events;
}

static Trace *load_watched(int threads, Watch *w, int cancel_at, char *err, size_t errlen) {
    memset(w, 0, sizeof *w);
    w->caller = pthread_self();
    w->cancel_at = cancel_at;
    LoadOptions o = {.threads = threads, .cache = -1, .progress = on_progress, .progress_ctx = w,
                     .observe = on_observe, .observe_ctx = w, .cancel = &w->cancel};
    return Load_files((const char *const *)g_paths, N_FILES, &o, err, errlen);
}

static void progress_on_the_callers_thread_in_order(void **state) {
    (void)state;
    char err[1024];
    Watch a, b;
    Trace *ta = load_watched(1, &a, -1, err, sizeof err);
    if (!ta) fail_msg("%s", err);
    Trace *tb = load_watched(2, &b, -1, err, sizeof err);
    if (!tb) fail_msg("%s", err);
    assert_int_equal(tb->parallel_files, N_FILES);
    assert_int_equal(b.wrong_thread, 0);
    assert_int_equal(b.backwards, 0);
    assert_int_equal(b.observe_back, 0);
    assert_true(b.observed > 0);
    for (int i = 0; i < N_FILES; i++) {
        /* every file reported whole at its end, with the events of the files so far */
        assert_true(b.total[i] > 0);
        assert_int_equal(b.done[i], b.total[i]);
        assert_int_equal(b.total[i], a.total[i]);
        assert_int_equal(b.events_at_end[i], a.events_at_end[i]);
        if (i) assert_true(b.events_at_end[i] > b.events_at_end[i - 1]);
    }
    Trace_free(ta);
    Trace_free(tb);
}

static void cancel_stops_the_workers(void **state) {
    (void)state;
    char err[1024] = "";
    Watch w;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    Trace *t = load_watched(2, &w, 2, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_null(t);
    assert_non_null(strstr(err, "cancelled"));
    assert_true((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9 < 10.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_model_as_files_in_turn),
        cmocka_unit_test(gpu_first_load_same_as_in_turn),
        cmocka_unit_test(when_whole_files_pay),
        cmocka_unit_test(first_failing_file_named),
        cmocka_unit_test(progress_on_the_callers_thread_in_order),
        cmocka_unit_test(cancel_stops_the_workers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
