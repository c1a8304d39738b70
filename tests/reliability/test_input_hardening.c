/* input layer: a mapped input that shrinks while it is read (SIGBUS) during
 * a single-threaded load, a parallel load and an export; the details panel's fetch
 * leaking an fd and a mapping per retry; sources read from a pipe, which can never be
 * read again, refused by the re-readers (details, export) instead of blocking; a FIFO
 * without a writer cancelled; special entries of a directory input skipped. */
#include <dirent.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "core/testutil.h"
#include "ovtrace/read/args.h"
#include "ovtrace/write/export.h"
#include "ovtrace/read/input.h"

/* A Chrome trace of about `target` bytes: kernels on one stream. */
static char *big_trace(size_t target, size_t *len) {
    size_t cap = target + 4096, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "{\"traceEvents\":[");
    for (size_t i = 0; n < target; i++)
        n += (size_t)snprintf(s + n, cap - n,
                              "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%zu\",\"pid\":0,\"tid\":7,\"ts\":%zu,"
                              "\"dur\":1,\"args\":{\"device\":0,\"stream\":7}}",
                              i ? ",\n" : "", i, i * 2);
    n += (size_t)snprintf(s + n, cap - n, "]}\n");
    *len = n;
    return s;
}

static char *write_big(size_t target) {
    size_t n;
    char *s = big_trace(target, &n);
    char *p = tu_write(s, n, ".json");
    free(s);
    return p;
}

/* Shrinks the file to one page the first time it is called. */
static const char *g_shrink;
static void shrink_once(const char *path) {
    if (g_shrink && !strcmp(path, g_shrink)) {
        g_shrink = NULL;
        assert_int_equal(truncate(path, 4096), 0);
    }
}
static void shrink_on_progress(void *ctx, const char *path, uint64_t done, uint64_t total, size_t events) {
    (void)ctx, (void)done, (void)total, (void)events;
    shrink_once(path);
}

static void load_shrinks_midway(int threads) {
    char *p = write_big(48u << 20);
    g_shrink = p;
    LoadOptions o = {.threads = threads, .cache = -1, .progress = shrink_on_progress, .min_parallel_bytes = 1};
    char err[1024] = "";
    const char *paths[] = {p};
    Trace *t = Load_files(paths, 1, &o, err, sizeof err);
    assert_null(g_shrink); /* the file was cut while the loader was in it */
    assert_null(t);
    assert_non_null(strstr(err, p));
    assert_non_null(strstr(err, "changed while being read"));
    unlink(p);
}

static void sigbus_load_single(void **state) {
    (void)state;
    load_shrinks_midway(1);
}

/* workers parse slices of the same mapping: each must survive the fault too */
static void sigbus_load_parallel(void **state) {
    (void)state;
    load_shrinks_midway(4);
}

/* cut right after mapping: the very first read faults */
static void sigbus_load_at_open(void **state) {
    (void)state;
    char *p = write_big(8u << 20);
    g_shrink = p;
    Input_mappedHook = shrink_once;
    LoadOptions o = {.threads = 1, .cache = -1};
    char err[1024] = "";
    const char *paths[] = {p};
    Trace *t = Load_files(paths, 1, &o, err, sizeof err);
    Input_mappedHook = NULL;
    assert_null(g_shrink);
    assert_null(t);
    assert_non_null(strstr(err, "changed while being read"));
    unlink(p);
}

static size_t dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d));) n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    closedir(d);
    return n;
}

/* export maps the source again to copy its events: cut it there */
static void sigbus_export(void **state) {
    (void)state;
    char *p = write_big(24u << 20);
    LoadOptions o = {.threads = 1, .cache = -1};
    char err[1024] = "";
    const char *paths[] = {p};
    Trace *t = Load_files(paths, 1, &o, err, sizeof err);
    assert_non_null(t);
    char dir[] = "/tmp/ovtrace-sigbus-XXXXXX", out[256];
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/out.json", dir);
    g_shrink = p;
    Input_mappedHook = shrink_once;
    ExportFilter f = ExportFilter_all();
    ExportResult res;
    bool ok = Export_run(t, &f, out, &res, err, sizeof err);
    Input_mappedHook = NULL;
    assert_null(g_shrink);
    assert_false(ok);
    assert_non_null(strstr(err, "changed while being read"));
    assert_int_equal(dir_entries(dir), 0); /* neither the output nor its temporary file */
    assert_int_equal(rmdir(dir), 0);
    Trace_free(t);
    unlink(p);
}

/* Mappings of path in this process. */
static size_t mappings_of(const char *path) {
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    size_t n = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) n += strstr(line, path) != NULL;
    fclose(f);
    return n;
}

/* An event whose object is over 4 KB takes the fetch's retry path, which must not leak
 * an fd or a mapping of the whole file on any fetch. */
static void args_fetch_no_leak(void **state) {
    (void)state;
    char big[12000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    size_t cap = sizeof big + 512;
    char *json = malloc(cap);
    int n = snprintf(json, cap,
                     "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":5,"
                     "\"args\":{\"device\":0,\"stream\":7,\"big\":\"%s\"}}]",
                     big);
    size_t obj_len = (size_t)n - 2; /* without the brackets */
    for (int comp = 0; comp < 3; comp++) {
        size_t zn = (size_t)n;
        char *data = comp ? tu_compress(json, (size_t)n, comp == 2, 6, &zn) : json;
        char *p = tu_write(data, zn, comp == 0 ? ".json" : comp == 1 ? ".json.gz" : ".json.zst");
        if (comp) free(data);
        char err[1024] = "";
        const char *paths[] = {p};
        LoadOptions o = {.cache = -1};
        Trace *t = Load_files(paths, 1, &o, err, sizeof err);
        assert_non_null(t);
        assert_int_equal(t->n_events, 1);
        size_t before_fd = 0;
        DIR *d = opendir("/proc/self/fd");
        for (struct dirent *de; (de = readdir(d));) before_fd++;
        closedir(d);
        for (int i = 0; i < 64; i++) {
            size_t len = 0;
            char *raw = Args_fetchRaw(t, 0, &len, err, sizeof err);
            assert_non_null(raw);
            assert_int_equal(len, obj_len);
            assert_memory_equal(raw, json + 1, obj_len);
            free(raw);
        }
        size_t after_fd = 0;
        d = opendir("/proc/self/fd");
        for (struct dirent *de; (de = readdir(d));) after_fd++;
        closedir(d);
        assert_int_equal(after_fd, before_fd);
        assert_int_equal(mappings_of(p), 0); /* not one mapping of the file per fetch */
        Trace_free(t);
        unlink(p);
    }
    free(json);
}

/* A trace read from a pipe: loaded once; the details and export, which read sources
 * again, say why they cannot (opening a FIFO again would block forever). */
static void pipe_source_refused_by_rereaders(void **state) {
    (void)state;
    const char *json = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":5}]";
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    assert_int_equal(write(fd[1], json, strlen(json)), (ssize_t)strlen(json));
    close(fd[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd[0]);
    const char *paths[] = {path};
    char err[1024] = "";
    /* the cache on, for any size: a pipe is still never peeked at, looked up or saved */
    char cdir[] = "/tmp/ovtrace-pipe-cache-XXXXXX";
    assert_non_null(mkdtemp(cdir));
    LoadOptions lo = {.cache = 1, .cache_opt = {cdir, 0}, .cache_sync = true};
    Trace *t = Load_files(paths, 1, &lo, err, sizeof err);
    assert_int_equal(dir_entries(cdir), 0);
    assert_int_equal(rmdir(cdir), 0);
    assert_non_null(t);
    assert_int_equal(t->n_events, 1);
    size_t len;
    assert_null(Args_fetchRaw(t, 0, &len, err, sizeof err));
    assert_non_null(strstr(err, "not a regular file"));
    ExportFilter f = ExportFilter_all();
    ExportResult res;
    char dir[] = "/tmp/ovtrace-pipe-XXXXXX", out[256];
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/out.json", dir);
    assert_false(Export_run(t, &f, out, &res, err, sizeof err));
    assert_non_null(strstr(err, "not a regular file"));
    assert_int_equal(dir_entries(dir), 0);
    assert_int_equal(rmdir(dir), 0);
    close(fd[0]); /* kept open: /dev/fd/N must still name the pipe */
    Trace_free(t);
}

/* A FIFO that never gets a writer: the load waits in a cancellable poll, and a cancel
 * request ends it within a second instead of never (the TUI's "cancelling..."). */
static atomic_int g_cancel;
static void *cancel_later(void *arg) {
    (void)arg;
    usleep(200 * 1000);
    g_cancel = 1;
    return NULL;
}

static void fifo_load_cancels(void **state) {
    (void)state;
    char dir[] = "/tmp/ovt-fifo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/f.json", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    g_cancel = 0;
    LoadOptions o = {.cancel = &g_cancel, .threads = 1};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, cancel_later, NULL), 0);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    char err[256] = "";
    const char *paths[] = {fifo};
    Trace *t = Load_files(paths, 1, &o, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    pthread_join(th, NULL);
    assert_null(t);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    assert_true(s < 2.0);
    unlink(fifo);
    rmdir(dir);
}

/* A directory expands to its regular trace files: a FIFO, a subdirectory, a dangling
 * symlink and a symlink loop named *.json are skipped with one warning that counts
 * them, and the load neither hangs nor fails. */
static void dir_skips_special_entries(void **state) {
    (void)state;
    char dir[] = "/tmp/ovt-dir-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[5][96];
    const char *names[] = {"a.json", "fifo.json", "sub.json", "dang.json", "loop.json"};
    for (int i = 0; i < 5; i++) snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
    FILE *f = fopen(p[0], "w");
    assert_non_null(f);
    fputs("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}]", f);
    fclose(f);
    assert_int_equal(mkfifo(p[1], 0600), 0);
    assert_int_equal(mkdir(p[2], 0700), 0);
    assert_int_equal(symlink("nothing", p[3]), 0);
    assert_int_equal(symlink("loop.json", p[4]), 0);
    char err[256] = "";
    const char *paths[] = {dir};
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(t->n_events, 1);
    assert_non_null(t->dir_warning);
    assert_non_null(strstr(t->dir_warning, "skipped 4 directory entries"));
    Trace_free(t);
    unlink(p[0]);
    t = Load_files(paths, 1, NULL, err, sizeof err); /* nothing loadable left: an error */
    assert_null(t);
    assert_non_null(strstr(err, "regular files"));
    unlink(p[1]), rmdir(p[2]), unlink(p[3]), unlink(p[4]);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sigbus_load_single),
        cmocka_unit_test(sigbus_load_parallel),
        cmocka_unit_test(sigbus_load_at_open),
        cmocka_unit_test(sigbus_export),
        cmocka_unit_test(args_fetch_no_leak),
        cmocka_unit_test(pipe_source_refused_by_rereaders),
        cmocka_unit_test(fifo_load_cancels),
        cmocka_unit_test(dir_skips_special_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
