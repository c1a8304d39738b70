/* Snapshot cache (read/snapshot.c): the model from a snapshot is the parsed model,
 * byte for byte; a snapshot is used only while its inputs are unchanged; a truncated
 * or damaged snapshot is a miss and the trace is parsed instead; nothing is written
 * where the cache directory cannot be written. Every test runs with its cache directory
 * (LoadOptions.cache_opt, what the CLI resolves from $XDG_CACHE_HOME) in a fresh temp
 * directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ovtrace/read/load.h"
#include "ovtrace/read/snapshot.h"
#include "../lib/samemodel.h"

static char g_tmp[256];   /* per test: XDG_CACHE_HOME and scratch files */
static char g_cache[300]; /* g_tmp/cache: what $XDG_CACHE_HOME would be */
static char g_dir[PATH_MAX]; /* the cache directory the CLI would resolve: g_cache/ovtrace */
static uint64_t g_max;       /* the cache cap (0: the default) */

/* The cache directory for this $XDG_CACHE_HOME, as the CLI resolves it. */
static void use_cache_home(const char *xdg) {
    if (!Snapshot_cacheDir(xdg, NULL, g_dir, sizeof g_dir)) g_dir[0] = '\0';
}

static int setup(void **state) {
    (void)state;
    snprintf(g_tmp, sizeof g_tmp, "/tmp/ovtrace-cache-test-XXXXXX");
    if (!mkdtemp(g_tmp)) return -1;
    snprintf(g_cache, sizeof g_cache, "%s/cache", g_tmp);
    use_cache_home(g_cache);
    g_max = 0;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", g_tmp, g_tmp);
    return system(cmd) == 0 ? 0 : -1;
}

static char *tmp_path(const char *name) {
    static char p[8][512];
    static int slot;
    char *s = p[slot++ % 8];
    snprintf(s, sizeof p[0], "%s/%.200s", g_tmp, name);
    return s;
}

static void copy_file(const char *from, const char *to) {
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    assert_non_null(a);
    assert_non_null(b);
    char buf[65536];
    for (size_t k; (k = fread(buf, 1, sizeof buf, a)) > 0;) assert_int_equal(fwrite(buf, 1, k, b), k);
    fclose(a);
    assert_int_equal(fclose(b), 0);
}

static void write_file(const char *p, const void *d, size_t n) {
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    if (n) assert_int_equal(fwrite(d, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static uint8_t *read_file(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(*n + 1);
    assert_int_equal(fread(d, 1, *n, f), *n);
    d[*n] = '\0';
    fclose(f);
    return d;
}

static bool exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

/* Loads with the given cache mode, saving synchronously; notes land in *log. */
static Trace *load(const char *const *paths, size_t n, int cache, char **log) {
    char err[1024];
    size_t len;
    char *buf = NULL;
    FILE *m = open_memstream(&buf, &len);
    LoadOptions o = {.cache = cache, .cache_opt = {g_dir, g_max}, .cache_sync = true, .cache_log = m};
    Trace *t = Load_files(paths, n, &o, err, sizeof err);
    fclose(m);
    if (!t) fprintf(stderr, "%s\n", err);
    assert_non_null(t);
    if (log) *log = buf;
    else free(buf);
    return t;
}

static Trace *parse(const char *const *paths, size_t n) { return load(paths, n, -1, NULL); }

/* Unusual content: skipped and ignored events, counters (double values), instants, B
 * without E, flows, string pids, metadata, non-ASCII names (the loader turns an escaped
 * NUL into '?': the string table test covers NULs in names). */
static const char ODD[] =
    "{\"displayTimeUnit\": \"ns\", \"traceName\": \"odd\", \"baseTimeNanoseconds\": 1700000000000000000,"
    " \"distributedInfo\": {\"rank\": 3, \"world_size\": 8}, \"traceEvents\": ["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":\"host\",\"tid\":7,\"args\":{\"name\":\"main \\u00e9\"}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":42}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\\u0000tail\",\"pid\":0,\"tid\":7,\"ts\":12.5,\"dur\":1,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":\"host\",\"tid\":7,\"ts\":8,"
    "\"dur\":1,\"args\":{\"correlation\":42}},"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":42,\"pid\":\"host\",\"tid\":7,\"ts\":8},"
    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":42,\"pid\":0,\"tid\":7,\"ts\":10,\"bp\":\"e\"},"
    "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":\"host\",\"tid\":7,\"ts\":9,\"args\":{\"bytes\":1.5e3}},"
    "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":\"host\",\"tid\":7,\"ts\":11,\"s\":\"t\"},"
    "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"open\",\"pid\":\"host\",\"tid\":8,\"ts\":3},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bad\",\"pid\":\"host\",\"tid\":7,\"ts\":\"x\",\"dur\":1},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"neg\",\"pid\":\"host\",\"tid\":7,\"ts\":4,\"dur\":-1},"
    "{\"ph\":\"b\",\"cat\":\"async\",\"name\":\"a\",\"id\":1,\"pid\":\"host\",\"tid\":7,\"ts\":4},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy PtoP\",\"pid\":0,\"tid\":9,\"ts\":20,\"dur\":3,"
    "\"args\":{\"device\":0,\"stream\":9}}]}";

/* Round trip: parse, save, load the snapshot (and classify it), compare. */
static void round_trip(const char *const *paths, size_t n) {
    Trace *a = parse(paths, n);
    char cp[PATH_MAX], err[512], why[512];
    assert_true(Snapshot_cachePath(g_dir, paths, n, cp, sizeof cp));
    assert_true(strncmp(cp, g_cache, strlen(g_cache)) == 0); /* under $XDG_CACHE_HOME */
    if (!Snapshot_save(a, paths, n, NULL, cp, g_max, err, sizeof err)) fail_msg("save: %s", err);
    for (int threads = 1; threads <= 3; threads++) {
        Trace *b = Snapshot_load(paths, n, cp, threads, why, sizeof why);
        if (!b) fail_msg("load: %s", why);
        CommRules *r = CommRules_default();
        Classify_trace(b, r);
        CommRules_free(r);
        assert_same_model(a, b);
        Trace_free(b);
    }
    /* and through Load_files: the first load saves, the second is a hit */
    unlink(cp);
    char *log;
    Trace *c = load(paths, n, 1, &log);
    assert_non_null(strstr(log, "saved"));
    free(log);
    Trace_free(c);
    c = load(paths, n, 1, &log);
    if (!strstr(log, "hit")) fail_msg("expected a hit: %s", log);
    free(log);
    assert_same_model(a, c);
    Trace_free(c);
    Trace_free(a);
}

static void round_trip_deepseek(void **state) {
    (void)state;
    /* DeepSeek's trace, else (a plain clone) the shipped DeepSeek-like one */
    const char *p[] = {access(OVTRACE_DEEPSEEK, R_OK) == 0 ? OVTRACE_DEEPSEEK : OVTRACE_DEEPSEEK_LIKE};
    round_trip(p, 1);
}

static void round_trip_samples(void **state) {
    (void)state;
    const char *files[] = {OVTRACE_TESTDATA "/kineto-2node.json", OVTRACE_TESTDATA "/legacy-2021.json",
                           OVTRACE_SAMPLES "/demo-moe.json.gz", OVTRACE_SAMPLES "/sim-decode.json.zst",
                           OVTRACE_SAMPLES "/sim-prefill.json.zst", OVTRACE_SAMPLES "/sim-serial.json.zst"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) round_trip(&files[i], 1);
    round_trip(files, 2); /* two files, two sources */
    const char *dir[] = {OVTRACE_TESTDATA "/kineto-2node.json", OVTRACE_TESTDATA "/legacy-2021.json",
                         OVTRACE_SAMPLES "/sim-decode.json.zst"};
    round_trip(dir, 3);
}

static void round_trip_odd(void **state) {
    (void)state;
    char *p = tmp_path("odd.json");
    write_file(p, ODD, sizeof ODD - 1);
    const char *paths[] = {p};
    Trace *t = parse(paths, 1);
    /* the content this test is about is really there */
    assert_true(t->diag.skipped >= 2);
    assert_true(t->diag.ignored >= 1);
    assert_non_null(t->diag.first_skip_path);
    assert_true(t->n_flows >= 1);
    bool counter = false;
    for (size_t i = 0; i < t->n_events; i++) counter |= t->events[i].kind == KIND_COUNTER;
    assert_true(counter);
    Trace_free(t);
    round_trip(paths, 1);
}

/* Renamed by the path the caller gives: the same file by another spelling hits, and
 * its source (and diag paths) are named as given this time. */
static void sources_named_as_given(void **state) {
    (void)state;
    char *p = tmp_path("odd.json");
    write_file(p, ODD, sizeof ODD - 1);
    const char *abs[] = {p};
    Trace *a = load(abs, 1, 1, NULL);
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(g_tmp), 0);
    const char *rel[] = {"./odd.json"};
    char *log;
    Trace *b = load(rel, 1, 1, &log);
    assert_int_equal(chdir(cwd), 0);
    assert_non_null(strstr(log, "hit"));
    free(log);
    assert_string_equal(b->sources[0].path, "./odd.json");
    assert_string_equal(b->diag.first_skip_path, "./odd.json");
    assert_string_equal(a->sources[0].path, p);
    Trace_free(a);
    Trace_free(b);
}

/* Classes come from the rules of each run, not from the run that saved. */
static void classes_follow_current_rules(void **state) {
    (void)state;
    const char *p[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    Trace *t = load(p, 1, 1, NULL); /* saved with the default rules */
    size_t comm = 0;
    for (size_t i = 0; i < t->n_events; i++) comm += t->events[i].cls == CLASS_COMM;
    assert_true(comm > 0);
    Trace_free(t);
    CommRules *r = CommRules_default();
    char err[256];
    assert_true(CommRules_addLine(r, "not-comm .", err, sizeof err));
    size_t len;
    char *buf;
    FILE *m = open_memstream(&buf, &len);
    LoadOptions o = {.rules = r, .cache = 1, .cache_opt = {g_dir, g_max}, .cache_sync = true, .cache_log = m};
    t = Load_files(p, 1, &o, err, sizeof err);
    fclose(m);
    assert_non_null(t);
    assert_non_null(strstr(buf, "hit"));
    free(buf);
    for (size_t i = 0; i < t->n_events; i++) assert_int_not_equal(t->events[i].cls, CLASS_COMM);
    Trace_free(t);
    CommRules_free(r);
}

static void set_mtime(const char *p, time_t sec) {
    struct timespec ts[2] = {{sec, 0}, {sec, 0}};
    assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

/* A miss says why; the reload parses and saves the new content. */
static void expect_miss(const char *p, const char *reason) {
    const char *paths[] = {p};
    char *log;
    Trace *t = load(paths, 1, 1, &log);
    if (!strstr(log, reason)) fail_msg("expected '%s' in: %s", reason, log);
    assert_non_null(strstr(log, "saved"));
    free(log);
    Trace *ref = parse(paths, 1);
    assert_same_model(ref, t);
    Trace_free(ref);
    Trace_free(t);
    t = load(paths, 1, 1, &log);
    if (!strstr(log, "hit")) fail_msg("expected a hit after the new save: %s", log);
    free(log);
    Trace_free(t);
}

static void invalidated_when_input_changes(void **state) {
    (void)state;
    char *p = tmp_path("t.json");
    copy_file(OVTRACE_TESTDATA "/kineto-2node.json", p);
    set_mtime(p, 1600000000);
    const char *paths[] = {p};
    char *log;
    Trace_free(load(paths, 1, 1, &log));
    assert_non_null(strstr(log, "no snapshot yet"));
    free(log);
    Trace_free(load(paths, 1, 1, &log));
    assert_non_null(strstr(log, "hit"));
    free(log);
    /* touch -d: same size, other mtime */
    set_mtime(p, 1600000100);
    expect_miss(p, "mtime changed");
    /* one byte appended (whitespace: still the same trace, but not the same file) */
    FILE *f = fopen(p, "ab");
    fputc('\n', f);
    fclose(f);
    expect_miss(p, "size changed");
    /* an edit that keeps the size, with the mtime put back */
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    size_t n;
    uint8_t *d = read_file(p, &n);
    char *k = strstr((char *)d, "\"dur\": 5");
    assert_non_null(k);
    k[7] = '6'; /* a duration changes; the same size */
    write_file(p, d, n);
    free(d);
    struct timespec keep[2] = {st.st_mtim, st.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, p, keep, 0), 0);
    expect_miss(p, "ctime changed");
    /* replaced by a copy with the same size and mtime */
    char *q = tmp_path("t2.json");
    copy_file(p, q);
    assert_int_equal(stat(p, &st), 0);
    struct timespec same[2] = {st.st_mtim, st.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, q, same, 0), 0);
    assert_int_equal(rename(q, p), 0);
    expect_miss(p, "inode changed");
}

/* A snapshot is refused when an input changed between the start of loading and the save. */
static void not_saved_when_changed_during_load(void **state) {
    (void)state;
    char *p = tmp_path("t.json");
    copy_file(OVTRACE_TESTDATA "/kineto-2node.json", p);
    const char *paths[] = {p};
    SnapshotFileId before;
    assert_true(Snapshot_fileId(p, &before));
    Trace *t = parse(paths, 1);
    FILE *f = fopen(p, "ab");
    fputc(' ', f);
    fclose(f);
    char cp[PATH_MAX], err[512];
    assert_true(Snapshot_cachePath(g_dir, paths, 1, cp, sizeof cp));
    assert_false(Snapshot_save(t, paths, 1, &before, cp, g_max, err, sizeof err));
    assert_non_null(strstr(err, "changed while it was loaded"));
    assert_false(exists(cp));
    Trace_free(t);
}

/* Cut at many lengths and with flipped bytes: never a model, always a miss, and
 * Load_files parses instead. */
static void damaged_snapshots_miss(void **state) {
    (void)state;
    const char *paths[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    Trace *ref = parse(paths, 1);
    char cp[PATH_MAX], err[512], why[512];
    assert_true(Snapshot_cachePath(g_dir, paths, 1, cp, sizeof cp));
    assert_true(Snapshot_save(ref, paths, 1, NULL, cp, g_max, err, sizeof err));
    size_t n;
    uint8_t *good = read_file(cp, &n);
    assert_true(n > 100);
    /* every length shorter than the file */
    for (size_t cut = 0; cut < n; cut++) {
        write_file(cp, good, cut);
        Trace *t = Snapshot_load(paths, 1, cp, 2, why, sizeof why);
        if (t) fail_msg("a snapshot cut at %zu of %zu bytes loaded", cut, n);
        assert_true(why[0] != '\0');
    }
    /* every byte flipped, and single bits at every eighth byte */
    uint8_t *bad = malloc(n);
    for (size_t i = 0; i < n; i++) {
        for (int bit = -1; bit < 8; bit++) {
            if (bit >= 0 && i % 8) continue;
            memcpy(bad, good, n);
            bad[i] ^= bit < 0 ? 0xff : (uint8_t)(1u << bit);
            write_file(cp, bad, n);
            Trace *t = Snapshot_load(paths, 1, cp, 2, why, sizeof why);
            if (t) fail_msg("a snapshot with byte %zu of %zu flipped (bit %d) loaded", i, n, bit);
        }
    }
    /* garbage appended */
    memcpy(bad, good, n);
    write_file(cp, good, n);
    FILE *f = fopen(cp, "ab");
    fputs("junk", f);
    fclose(f);
    assert_null(Snapshot_load(paths, 1, cp, 2, why, sizeof why));
    /* Load_files falls back to parsing, says why, and replaces the damaged file */
    write_file(cp, good, n / 2);
    char *log;
    Trace *t = load(paths, 1, 1, &log);
    assert_non_null(strstr(log, "miss"));
    assert_non_null(strstr(log, "saved"));
    free(log);
    assert_same_model(ref, t);
    Trace_free(t);
    size_t n2;
    uint8_t *again = read_file(cp, &n2);
    assert_int_equal(n2, n);
    free(again);
    free(bad);
    free(good);
    Trace_free(ref);
}

/* A model of several event blocks (128k events each), built directly: round trip on
 * 1-3 threads, then damage inside the blocks. */
static void multi_block_model(void **state) {
    (void)state;
    char *in = tmp_path("synthetic.json");
    write_file(in, "{}", 2); /* the snapshot only needs the input to exist */
    const char *paths[] = {in};
    Trace *ref = Trace_new();
    uint32_t src = Trace_addSource(ref, in), lanes[6], names[500];
    for (int l = 0; l < 6; l++) lanes[l] = l < 4 ? Trace_gpuLane(ref, src, 0, l, 0, l) : Trace_cpuLane(ref, src, 1, l);
    for (int i = 0; i < 500; i++) {
        char nm[32];
        int len = snprintf(nm, sizeof nm, "kernel_%d", i);
        names[i] = StrTab_intern(ref->strings, nm, (size_t)len);
    }
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < 300000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int l = (int)(i % 6);
        TraceEvent e = {0};
        e.lane = lanes[l];
        e.ts = (int64_t)i * 1000 + (int64_t)(x % 700);
        e.src = i * 200 + x % 50;
        e.name = names[x % 500];
        e.corr = i % 3 ? 0 : (uint32_t)i;
        e.kind = l < 4 ? KIND_KERNEL : KIND_CPU_OP;
        if (l == 5 && i % 7 == 0) {
            e.kind = KIND_COUNTER;
            e.value = (double)(x % 100000) / 7.0;
        } else {
            e.dur = (int64_t)(x % 9000); /* overlaps: several rows per lane */
        }
        Trace_append(ref, &e);
    }
    Trace_finish(ref);
    CommRules *r = CommRules_default();
    Classify_trace(ref, r);
    if (ref->n_events != 300000 || ref->n_rows <= 6) fail_msg("%zu events, %zu rows", ref->n_events, ref->n_rows);
    char cp[PATH_MAX], err[512], why[512];
    assert_true(Snapshot_cachePath(g_dir, paths, 1, cp, sizeof cp));
    assert_true(Snapshot_save(ref, paths, 1, NULL, cp, g_max, err, sizeof err));
    for (int threads = 1; threads <= 3; threads++) {
        Trace *t = Snapshot_load(paths, 1, cp, threads, why, sizeof why);
        if (!t) fail_msg("%s", why);
        Classify_trace(t, r);
        assert_same_model(ref, t);
        Trace_free(t);
    }
    CommRules_free(r);
    assert_true(Snapshot_cachePath(g_dir, paths, 1, cp, sizeof cp));
    assert_true(Snapshot_save(ref, paths, 1, NULL, cp, g_max, err, sizeof err));
    size_t n;
    uint8_t *good = read_file(cp, &n);
    uint8_t *bad = malloc(n);
    for (size_t k = 1; k < 64; k++) {
        size_t i = 16 + (n - 40) * k / 64;
        memcpy(bad, good, n);
        bad[i] ^= 0x20;
        write_file(cp, bad, n);
        assert_null(Snapshot_load(paths, 1, cp, 2, why, sizeof why));
        write_file(cp, good, i);
        assert_null(Snapshot_load(paths, 1, cp, 2, why, sizeof why));
    }
    write_file(cp, good, n);
    Trace *t = Snapshot_load(paths, 1, cp, 2, why, sizeof why);
    if (!t) fail_msg("%s", why); /* the intact file still loads: the misses were the damage */
    Trace_free(t);
    free(bad);
    free(good);
    Trace_free(ref);
}

/* The snapshot of one set of inputs is never taken for another's. */
static void other_inputs_miss(void **state) {
    (void)state;
    const char *a[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    const char *b[] = {OVTRACE_TESTDATA "/legacy-2021.json"};
    const char *ab[] = {a[0], b[0]};
    Trace *t = parse(a, 1);
    char cp[PATH_MAX], err[512], why[512];
    assert_true(Snapshot_cachePath(g_dir, a, 1, cp, sizeof cp));
    assert_true(Snapshot_save(t, a, 1, NULL, cp, g_max, err, sizeof err));
    assert_null(Snapshot_load(b, 1, cp, 1, why, sizeof why));
    assert_non_null(strstr(why, "other inputs"));
    assert_null(Snapshot_load(ab, 2, cp, 1, why, sizeof why));
    assert_non_null(strstr(why, "other inputs"));
    char cb[PATH_MAX], cab[PATH_MAX];
    assert_true(Snapshot_cachePath(g_dir, b, 1, cb, sizeof cb));
    assert_true(Snapshot_cachePath(g_dir, ab, 2, cab, sizeof cab));
    assert_string_not_equal(cp, cb);
    assert_string_not_equal(cp, cab);
    /* sources that are not the inputs are refused */
    assert_false(Snapshot_save(t, b, 1, NULL, cb, g_max, err, sizeof err));
    Trace_free(t);
}

/* Automatic mode: small inputs are not cached; the option decides; no options or no
 * cache directory: no cache (the library reads no environment: $OVTRACE_CACHE,
 * $XDG_CACHE_HOME and $HOME are the CLI's, tests/cache/cli.sh). */
static void modes(void **state) {
    (void)state;
    const char *p[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    char cp[PATH_MAX];
    assert_true(Snapshot_cachePath(g_dir, p, 1, cp, sizeof cp));
    char *log;
    Trace_free(load(p, 1, 0, &log));
    assert_false(exists(cp));
    assert_non_null(strstr(log, "off"));
    free(log);
    Trace_free(load(p, 1, -1, NULL));
    assert_false(exists(cp));
    Trace_free(load(p, 1, 1, NULL));
    assert_true(exists(cp));
    unlink(cp);
    /* a library caller that passes no options never writes into a cache, whatever
     * the environment says (the C tests must not fill ~/.cache) */
    setenv("OVTRACE_CACHE", "1", 1);
    char err[512];
    Trace *t = Load_files(p, 1, NULL, err, sizeof err);
    assert_non_null(t);
    Trace_free(t);
    assert_false(exists(cp));
    unsetenv("OVTRACE_CACHE");
    /* no cache directory at all */
    char keep[PATH_MAX];
    snprintf(keep, sizeof keep, "%s", g_dir);
    g_dir[0] = '\0';
    Trace_free(load(p, 1, 1, &log));
    assert_non_null(strstr(log, "no cache directory"));
    free(log);
    snprintf(g_dir, sizeof g_dir, "%s", keep);
    assert_false(exists(cp));
    /* the directory: $XDG_CACHE_HOME/ovtrace if absolute; a relative one is ignored
     * (XDG spec): $HOME/.cache/ovtrace; neither: none */
    char d[PATH_MAX], want[PATH_MAX];
    assert_true(Snapshot_cacheDir("rel", g_tmp, d, sizeof d));
    snprintf(want, sizeof want, "%s/.cache/ovtrace", g_tmp);
    assert_string_equal(d, want);
    assert_true(Snapshot_cacheDir(g_cache, g_tmp, d, sizeof d));
    snprintf(want, sizeof want, "%s/ovtrace", g_cache);
    assert_string_equal(d, want);
    assert_false(Snapshot_cacheDir(NULL, NULL, d, sizeof d));
    assert_false(Snapshot_cacheDir("rel", "", d, sizeof d));
    assert_false(Snapshot_cachePath(NULL, p, 1, d, sizeof d));
}

/* Where the cache cannot be written the load works and writes nothing. */
static void unwritable_cache_dir(void **state) {
    (void)state;
    const char *p[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    /* the cache home is a file: no directory can be made there */
    char *file = tmp_path("plainfile");
    write_file(file, "x", 1);
    use_cache_home(file);
    char *log;
    Trace *t = load(p, 1, 1, &log);
    assert_non_null(strstr(log, "not saved"));
    free(log);
    Trace_free(t);
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    /* a read-only directory: root ignores modes, so the load runs as nobody then */
    char *ro = tmp_path("ro");
    assert_int_equal(mkdir(ro, 0755), 0);
    char *dir = tmp_path("ro/ovtrace");
    assert_int_equal(mkdir(dir, 0555), 0);
    use_cache_home(ro);
    char *in = tmp_path("in.json"); /* readable by nobody */
    copy_file(p[0], in);
    chmod(in, 0644);
    chmod(g_tmp, 0755);
    const char *paths[] = {in};
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        char err[512];
        LoadOptions o = {.cache = 1, .cache_opt = {g_dir, 0}, .cache_sync = true};
        Trace *x = Load_files(paths, 1, &o, err, sizeof err);
        _exit(x ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    DIR *dd = opendir(dir);
    assert_non_null(dd);
    int entries = 0;
    for (struct dirent *de; (de = readdir(dd));) entries += de->d_name[0] != '.';
    closedir(dd);
    assert_int_equal(entries, 0);
    use_cache_home(g_cache);
}

/* An input inside the cache directory is never written beside. */
static void never_beside_an_input(void **state) {
    (void)state;
    char dir[PATH_MAX];
    assert_true(Snapshot_cacheDir(g_cache, NULL, dir, sizeof dir));
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    char in[PATH_MAX + 16];
    snprintf(in, sizeof in, "%s/t.json", dir);
    copy_file(OVTRACE_TESTDATA "/kineto-2node.json", in);
    const char *p[] = {in};
    char *log;
    Trace_free(load(p, 1, 1, &log));
    assert_non_null(strstr(log, "lives in the cache directory"));
    free(log);
    char cp[PATH_MAX];
    assert_true(Snapshot_cachePath(g_dir, p, 1, cp, sizeof cp));
    assert_false(exists(cp));
}

/* The default save runs in a detached process: the snapshot appears shortly after. */
static void detached_save(void **state) {
    (void)state;
    const char *p[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    char cp[PATH_MAX], err[512];
    assert_true(Snapshot_cachePath(g_dir, p, 1, cp, sizeof cp));
    char *logp = tmp_path("notes.log");
    LoadOptions o = {.cache = 1, .cache_opt = {g_dir, 0}, .cache_log_path = logp};
    Trace *t = Load_files(p, 1, &o, err, sizeof err);
    assert_non_null(t);
    for (int i = 0; i < 600 && !exists(cp); i++) usleep(50 * 1000);
    assert_true(exists(cp));
    /* the writer's note follows the rename */
    char *notes = NULL;
    for (int i = 0; i < 200; i++) {
        size_t n;
        free(notes);
        notes = exists(logp) ? (char *)read_file(logp, &n) : NULL;
        if (notes && strstr(notes, "detached")) break;
        usleep(50 * 1000);
    }
    assert_non_null(notes);
    assert_non_null(strstr(notes, "saved"));
    assert_non_null(strstr(notes, "detached"));
    free(notes);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "ls -A '%s'/ovtrace | grep -q tmp", g_cache); /* .NAME.tmp-PID-XXXXXX */
    assert_int_not_equal(system(cmd), 0);
    Trace_free(t);
}

/* Old snapshots are evicted, least recently used first, beyond the size cap. */
static void eviction(void **state) {
    (void)state;
    const char *a[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    const char *b[] = {OVTRACE_TESTDATA "/legacy-2021.json"};
    char ca[PATH_MAX], cb[PATH_MAX], dir[PATH_MAX];
    assert_true(Snapshot_cachePath(g_dir, a, 1, ca, sizeof ca));
    assert_true(Snapshot_cachePath(g_dir, b, 1, cb, sizeof cb));
    snprintf(dir, sizeof dir, "%s", g_dir);
    Trace_free(load(a, 1, 1, NULL));
    set_mtime(ca, 1000000000); /* long unused */
    char stale[PATH_MAX + 32];
    snprintf(stale, sizeof stale, "%s/%s", dir, "0123456789abcdef.ovsnap");
    write_file(stale, "old", 3);
    set_mtime(stale, 1000000001);
    g_max = 1; /* OVTRACE_CACHE_MAX_MB=0: everything but the snapshot just written goes */
    Trace_free(load(b, 1, 1, NULL));
    g_max = 0;
    assert_true(exists(cb));
    assert_false(exists(ca));
    assert_false(exists(stale));
    /* under the cap nothing goes */
    Trace_free(load(a, 1, 1, NULL));
    assert_true(exists(ca) && exists(cb));
}

static void strtab_adopt_rejects_bad_layouts(void **state) {
    (void)state;
    uint32_t lens[] = {0, 3, 2};
    char *ok = malloc(8);
    memcpy(ok, "\0abc\0de\0", 8);
    StrTab *st = StrTab_adopt(ok, 8, lens, 3);
    assert_non_null(st);
    assert_string_equal(StrTab_get(st, 1), "abc");
    assert_int_equal(StrTab_intern(st, "de", 2), 2);
    assert_int_equal(StrTab_intern(st, "new", 3), 3);
    StrTab_free(st);
    char bad[8];
    memcpy(bad, "\0abc\0de\0", 8);
    assert_null(StrTab_adopt(bad, 7, lens, 3)); /* arena shorter than the lengths */
    uint32_t more[] = {0, 3, 1};
    assert_null(StrTab_adopt(bad, 8, more, 3)); /* a string not followed by its NUL */
    uint32_t first[] = {1, 2, 2};
    assert_null(StrTab_adopt(bad, 8, first, 3)); /* id 0 is not "" */
    /* strings may hold NULs: lengths, not terminators, delimit them */
    uint32_t nl[] = {0, 3};
    char *withnul = malloc(5);
    memcpy(withnul, "\0a\0b\0", 5);
    st = StrTab_adopt(withnul, 5, nl, 2);
    assert_non_null(st);
    assert_int_equal(StrTab_len(st, 1), 3);
    assert_int_equal(StrTab_intern(st, "a\0b", 3), 1);
    assert_int_equal(StrTab_intern(st, "a", 1), 2);
    StrTab_free(st);
    char dup[9];
    memcpy(dup, "\0ab\0ab\0", 7);
    uint32_t dl[] = {0, 2, 2};
    assert_null(StrTab_adopt(dup, 7, dl, 3)); /* a string twice */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(strtab_adopt_rejects_bad_layouts, setup, teardown),
        cmocka_unit_test_setup_teardown(round_trip_deepseek, setup, teardown),
        cmocka_unit_test_setup_teardown(round_trip_samples, setup, teardown),
        cmocka_unit_test_setup_teardown(round_trip_odd, setup, teardown),
        cmocka_unit_test_setup_teardown(sources_named_as_given, setup, teardown),
        cmocka_unit_test_setup_teardown(classes_follow_current_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(invalidated_when_input_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(not_saved_when_changed_during_load, setup, teardown),
        cmocka_unit_test_setup_teardown(damaged_snapshots_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(multi_block_model, setup, teardown),
        cmocka_unit_test_setup_teardown(other_inputs_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(modes, setup, teardown),
        cmocka_unit_test_setup_teardown(unwritable_cache_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(never_beside_an_input, setup, teardown),
        cmocka_unit_test_setup_teardown(detached_save, setup, teardown),
        cmocka_unit_test_setup_teardown(eviction, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
