/* Parallel slices against the single-threaded loader: the same model, event for event,
 * including traces built to mislead the slice guesser (strings and args holding "},{"),
 * B/E pairs that cross slices, string pids, bad events and truncation; and the same
 * for compressed input, parsed in slabs (read/slabfeed.c). */
#include "testutil.h"
#include "ovtrace/analysis/overlap.h"

static size_t g_slab; /* slab size (compressed input) or least slice size (a mapped file) of
                        * the parallel loads (0: default) */

static Trace *load_with(const char *path, int threads, char *err, size_t errlen) {
    LoadOptions o = {.threads = threads, .min_parallel_bytes = 1, .slab_bytes = g_slab, .cache = -1};
    const char *p[] = {path};
    return Load_files(p, 1, &o, err, errlen);
}

static void same_model(const Trace *a, const Trace *b) {
    assert_int_equal(a->n_events, b->n_events);
    assert_int_equal(a->n_lanes, b->n_lanes);
    assert_int_equal(a->n_flows, b->n_flows);
    assert_int_equal(a->diag.skipped, b->diag.skipped);
    assert_int_equal(a->diag.first_skip_offset, b->diag.first_skip_offset);
    assert_int_equal(a->diag.truncated, b->diag.truncated);
    for (size_t i = 0; i < a->n_events; i++) {
        const TraceEvent *x = &a->events[i], *y = &b->events[i];
        assert_int_equal(x->ts, y->ts);
        assert_int_equal(x->dur, y->dur);
        assert_int_equal(x->src, y->src);
        assert_int_equal(x->lane, y->lane);
        assert_int_equal(x->depth, y->depth);
        assert_int_equal(x->cls, y->cls);
        assert_string_equal(Trace_name(a, x), Trace_name(b, y));
    }
    for (size_t i = 0; i < a->n_lanes; i++) {
        assert_int_equal(a->lanes[i].pid, b->lanes[i].pid);
        assert_string_equal(StrTab_get(a->strings, a->lanes[i].name), StrTab_get(b->strings, b->lanes[i].name));
    }
    for (size_t i = 0; i < a->n_flows; i++) {
        assert_int_equal(a->flows[i].from, b->flows[i].from);
        assert_int_equal(a->flows[i].to, b->flows[i].to);
    }
}

static void check_file(const char *path, int threads, bool expect_slices) {
    char err[512];
    Trace *a = load_with(path, 1, err, sizeof err);
    if (!a) fail_msg("%s", err);
    Trace *b = load_with(path, threads, err, sizeof err);
    if (!b) fail_msg("%s", err);
    assert_int_equal(a->diag.parallel_slices, 0);
    if (expect_slices && b->diag.parallel_slices == 0) fail_msg("%s: no slice was adopted", path);
    same_model(a, b);
    Trace_free(a);
    Trace_free(b);
}

/* DeepSeek's trace, else (a plain clone) the shipped DeepSeek-like one */
static const char *real_trace(void) {
    return access(OVTRACE_DEEPSEEK, R_OK) == 0 ? OVTRACE_DEEPSEEK : OVTRACE_DEEPSEEK_LIKE;
}

static void deepseek_in_slices(void **state) {
    (void)state;
    for (int th = 2; th <= 8; th += 3) check_file(real_trace(), th, true);
}

/* A synthetic trace whose strings and args are full of "},{" so that many guesses land
 * inside strings or nested arrays; plus B/E pairs spanning the whole file. */
static char *tricky(size_t n_ev, bool cut) {
    size_t cap = n_ev * 260 + 256, n = 0;
    char *s = malloc(cap);
    n += (size_t)sprintf(s, "{\"traceEvents\":[{\"ph\":\"B\",\"name\":\"outer\",\"pid\":\"Spans\",\"tid\":1,\"ts\":0}");
    for (size_t i = 0; i < n_ev; i++) {
        switch (i % 4) {
        case 0:
            n += (size_t)sprintf(s + n, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k},{\\\"ph\\\":\\\"X\\\"%zu\","
                                        "\"pid\":0,\"tid\":7,\"ts\":%zu,\"dur\":1}", i % 13, i * 2);
            break;
        case 1:
            n += (size_t)sprintf(s + n, ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":\"Spans\",\"tid\":1,"
                                        "\"ts\":%zu,\"dur\":3,\"args\":{\"l\":[{\"a\":1},{\"b\":2}, {\"c\":[{},{}]}]}}", i * 2);
            break;
        case 2:
            n += (size_t)sprintf(s + n, ",{\"ph\":\"X\",\"name\":\"bad\",\"pid\":1,\"tid\":1,\"ts\":\"%zu\"}", i);
            break;
        default:
            n += (size_t)sprintf(s + n, ",{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":%zu,\"pid\":\"Spans\",\"tid\":1,\"ts\":%zu},"
                                        "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":%zu,\"pid\":0,\"tid\":7,\"ts\":%zu,\"bp\":\"e\"}",
                                 i, i * 2 - 4, i, i * 2 - 6);
        }
    }
    n += (size_t)sprintf(s + n, ",{\"ph\":\"E\",\"pid\":\"Spans\",\"tid\":1,\"ts\":%zu}]}", n_ev * 2 + 10);
    if (cut) s[n * 2 / 3] = '\0';
    return s;
}

static void misleading_text_and_crossing_pairs(void **state) {
    (void)state;
    for (int cut = 0; cut < 2; cut++) {
        char *json = tricky(20000, cut);
        char *p = tu_write(json, strlen(json), ".json");
        for (int th = 2; th <= 7; th++) check_file(p, th, false);
        unlink(p);
        free(json);
    }
}

/* 30,000 kernels on 5 streams, without B/E (so slices must really be used), in array
 * form or object form with a key after the array. */
static char *plain_events(bool object, size_t *len) {
    size_t n_ev = 30000, cap = n_ev * 120, n = 0;
    char *s = malloc(cap);
    n += (size_t)sprintf(s, object ? "{\"traceEvents\":[" : "[");
    for (size_t i = 0; i < n_ev; i++)
        n += (size_t)sprintf(s + n, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%zu\",\"pid\":0,\"tid\":%zu,"
                                    "\"ts\":%zu,\"dur\":1}", i ? ",\n" : "", i % 50, i % 5, i);
    n += (size_t)sprintf(s + n, object ? "],\"traceName\":\"x\"}" : "]");
    *len = n;
    return s;
}

static void slices_adopted_on_plain_events(void **state) {
    (void)state;
    size_t n;
    char *s = plain_events(false, &n);
    char *p = tu_write(s, n, ".json");
    check_file(p, 4, true);
    unlink(p);
    free(s);
}

/* n launches on a CPU thread, each with its kernel on a GPU stream and an ac2g flow
 * (s on the launch, f on the kernel): 2n events and 2n flow points. No correlation ids,
 * so a flow lost on the way is not derived again from them. */
static char *launch_flows(size_t n, size_t *len) {
    size_t cap = n * 400 + 64, k = 0;
    char *s = malloc(cap);
    k += (size_t)sprintf(s, "[");
    for (size_t i = 0; i < n; i++)
        k += (size_t)sprintf(s + k,
                             "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                             "\"tid\":1,\"ts\":%zu,\"dur\":5},\n"
                             "{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":%zu,\"pid\":1,\"tid\":1,\"ts\":%zu},\n"
                             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%zu\",\"pid\":0,\"tid\":7,\"ts\":%zu,"
                             "\"dur\":4,\"args\":{\"device\":0,\"stream\":7}},\n"
                             "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":%zu,\"pid\":0,\"tid\":7,\"ts\":%zu,\"bp\":\"e\"}",
                             i ? ",\n" : "", i * 10, i + 1, i * 10 + 1, i % 9, i * 10 + 3, i + 1, i * 10 + 3);
    k += (size_t)sprintf(s + k, "]");
    *len = k;
    return s;
}

/* Slices larger than the blocks Trace_absorb copies at a time (32k events, 32k flow
 * points): every launch keeps its kernel's flow, as on one thread. */
static void large_slices_keep_their_flows(void **state) {
    (void)state;
    size_t n, launches = 60000;
    char *s = launch_flows(launches, &n);
    char *p = tu_write(s, n, ".json");
    for (int th = 2; th <= 3; th++) check_file(p, th, true);
    char err[512];
    Trace *t = load_with(p, 2, err, sizeof err);
    if (!t) fail_msg("%s", err);
    assert_int_equal(t->n_events, 2 * launches);
    assert_int_equal(t->n_flows, launches);
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == KIND_KERNEL) { /* its launch started 3 us before it */
            size_t l = Trace_partner(t, i);
            if (l == SIZE_MAX) fail_msg("the kernel at %lld ns has no launch", (long long)t->events[i].ts);
            assert_int_equal(t->events[l].ts, t->events[i].ts - 3000);
        }
    Trace_free(t);
    unlink(p);
    free(s);
}

/* A mapped file cut into many more slices than threads (small slab_bytes): the threads
 * take them in turn and the main parser parses a free one in place, adopts a finished
 * one, or parses the free ones ahead while a thread is still at the one it reached. Every
 * way the slices fall gives the model of one thread: plain events, flows that cross
 * slices, text built to mislead the guesses, B/E pairs across slices and a cut file. */
static void many_slices_per_thread(void **state) {
    (void)state;
    static const size_t slices[] = {4096, 65536};
    size_t n;
    char *s = plain_events(false, &n);
    char *p = tu_write(s, n, ".json");
    char *f = launch_flows(20000, &n);
    char *pf = tu_write(f, n, ".json");
    for (size_t i = 0; i < sizeof slices / sizeof slices[0]; i++) {
        g_slab = slices[i];
        for (int th = 2; th <= 5; th++) {
            check_file(p, th, true);
            check_file(pf, th, true);
        }
        for (int cut = 0; cut < 2; cut++) {
            char *json = tricky(20000, cut);
            char *pt = tu_write(json, strlen(json), ".json");
            for (int th = 2; th <= 4; th++) check_file(pt, th, false);
            unlink(pt);
            free(json);
        }
    }
    g_slab = 0;
    unlink(p);
    unlink(pf);
    free(s);
    free(f);
}

/* Resident memory of this process that maps files (RssFile, and RssShmem for a /tmp
 * on tmpfs), kB; -1 when /proc says neither. */
static long rss_file_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "RssFile:", 8) || !strncmp(line, "RssShmem:", 9))
            kb = (kb < 0 ? 0 : kb) + strtol(strchr(line, ':') + 1, NULL, 10);
    fclose(f);
    return kb;
}

static void note_rss_file(void *ctx, const char *path, uint64_t done, uint64_t total, size_t events) {
    (void)path, (void)done, (void)total, (void)events;
    long *most = ctx, kb = rss_file_kb();
    if (kb > *most) *most = kb;
}

/* The mapped file's pages are given back as they are parsed (by the main parser every
 * 8 MB, by a thread at the end of each slice it parsed), not all at the end: at every
 * progress report, the last one after the whole array included, the resident file
 * pages stay well below the file (a thread's slice, a quarter of it at first, is given
 * back when done), where they would reach all of it. */
static void parsed_pages_given_back(void **state) {
    (void)state;
    size_t n;
    char *s = launch_flows(130000, &n); /* about 48 MB */
    char *p = tu_write(s, n, ".json");
    long base = rss_file_kb();
    if (base < 0) skip();
    for (int th = 1; th <= 2; th++) {
        long most = 0;
        LoadOptions o = {.threads = th, .cache = -1, .progress = note_rss_file, .progress_ctx = &most};
        const char *paths[] = {p};
        char err[512];
        Trace *t = Load_files(paths, 1, &o, err, sizeof err);
        if (!t) fail_msg("%s", err);
        assert_int_equal(t->n_flows, 130000);
        if (th == 2 && t->diag.parallel_slices == 0) fail_msg("no slice was adopted");
        long file_kb = (long)(n >> 10);
        if (most - base > file_kb * 3 / 4)
            fail_msg("%d thread(s): %ld kB of file pages resident during the load, of a %ld kB file", th, most - base, file_kb);
        Trace_free(t);
    }
    unlink(p);
    free(s);
}

/* Negative keys encode string pids/tids, so a numeric "pid": -166 must not be read as
 * string number 165 (a heap overflow in Trace_absorb, input found by fuzz_load_parallel).
 * It is keyed by its text, stays apart from pid 166 and from a string pid "x", and the
 * parallel load agrees. */
static void negative_numeric_ids(void **state) {
    (void)state;
    size_t n_ev = 20000, cap = n_ev * 120, n = 0;
    char *s = malloc(cap);
    n += (size_t)sprintf(s, "[");
    static const char *pids[] = {"-166", "166", "\"x\"", "-1", "0"};
    for (size_t i = 0; i < n_ev; i++)
        n += (size_t)sprintf(s + n, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":%s,\"tid\":%s,"
                                    "\"ts\":%zu,\"dur\":1}", i ? ",\n" : "", pids[i % 5], i % 2 ? "-3" : "3", i);
    sprintf(s + n, "]");
    char *p = tu_write(s, strlen(s), ".json");
    check_file(p, 4, true);
    char err[512];
    Trace *t = load_with(p, 1, err, sizeof err);
    if (!t) fail_msg("%s", err);
    assert_int_equal(t->n_events, n_ev);
    assert_int_equal(t->diag.skipped, 0);
    assert_int_equal(t->n_lanes, 10); /* 5 pids x tids 3 and -3: nothing merged */
    int named_minus3 = 0;
    for (size_t i = 0; i < t->n_lanes; i++) {
        const char *ln = StrTab_get(t->strings, t->lanes[i].name);
        if (!strcmp(ln, "-3")) named_minus3++;
        else assert_string_equal(ln, "thread 3");
    }
    assert_int_equal(named_minus3, 5);
    Trace_free(t);
    unlink(p);
    free(s);
}

/* ---------- compressed input: slabs ---------- */

/* json compressed both ways, loaded single-threaded and in slabs of several sizes with
 * 2-5 workers: the same model. expect_slices: slabs must have been adopted. */
static void check_compressed(const char *json, size_t n, bool expect_slices) {
    static const size_t slabs[] = {4096, 5000, 65536, 1 << 20};
    for (int zstd = 0; zstd < 2; zstd++) {
        size_t zn;
        char *z = tu_compress(json, n, zstd, 1, &zn);
        char *p = tu_write(z, zn, zstd ? ".json.zst" : ".json.gz");
        for (size_t i = 0; i < sizeof slabs / sizeof slabs[0]; i++) {
            if (slabs[i] * 4 > n && i) continue;
            g_slab = slabs[i];
            check_file(p, 2 + (int)(i % 4), expect_slices);
        }
        g_slab = 0;
        unlink(p);
        free(z);
    }
}

static void compressed_deepseek_in_slabs(void **state) {
    (void)state;
    FILE *f = fopen(real_trace(), "rb");
    if (!f) skip();
    char *s = malloc(4u << 20);
    size_t n = fread(s, 1, 4u << 20, f);
    fclose(f);
    check_compressed(s, n, true);
    free(s);
}

static void compressed_misleading_text_and_cuts(void **state) {
    (void)state;
    for (int cut = 0; cut < 2; cut++) {
        char *json = tricky(20000, cut);
        check_compressed(json, strlen(json), false);
        free(json);
    }
}

static void compressed_plain_events_adopted(void **state) {
    (void)state;
    size_t n;
    char *s = plain_events(true, &n);
    check_compressed(s, n, true);
    free(s);
}

/* A syntax error deep in a compressed trace: the same message (file, byte, line,
 * column) whether slabs were adopted before it or not. */
static void error_position(bool one_line) {
    /* one line: 6.6 MB, more than the 4 MB decompression window, so that the column
     * counts bytes that left the window */
    size_t n_ev = one_line ? 100000 : 30000, cap = n_ev * 120, n = 0, bad = 0;
    char *s = malloc(cap);
    n += (size_t)sprintf(s, "{\"traceEvents\":[");
    for (size_t i = 0; i < n_ev; i++) {
        n += (size_t)sprintf(s + n, "%s{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":1,\"ts\":%zu,\"dur\":1}",
                             i ? (one_line ? "," : ",\n") : "", i);
        if (i == n_ev * 3 / 4) {
            bad = n + 1;
            n += (size_t)sprintf(s + n, " x");
        }
    }
    n += (size_t)sprintf(s + n, "]}");
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < bad; i++)
        if (s[i] == '\n') line++, line_start = i + 1;
    char want[96];
    snprintf(want, sizeof want, "byte %zu of the decompressed JSON (line %zu, column %zu)", bad, line,
             bad - line_start + 1);
    assert_true(one_line ? line == 1 : line == n_ev * 3 / 4 + 1);
    for (int zstd = 0; zstd < 2; zstd++) {
        size_t zn;
        char *z = tu_compress(s, n, zstd, 1, &zn);
        char *p = tu_write(z, zn, zstd ? ".json.zst" : ".json.gz");
        char e1[512] = "", e2[512] = "";
        assert_null(load_with(p, 1, e1, sizeof e1));
        g_slab = 4096;
        assert_null(load_with(p, 3, e2, sizeof e2));
        g_slab = 0;
        if (!strstr(e1, want)) fail_msg("'%s' lacks '%s'", e1, want);
        assert_string_equal(e1, e2);
        unlink(p);
        free(z);
    }
    free(s);
}

static void compressed_error_position(void **state) {
    (void)state;
    error_position(false);
    error_position(true);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(negative_numeric_ids),
        cmocka_unit_test(compressed_deepseek_in_slabs),
        cmocka_unit_test(compressed_misleading_text_and_cuts),
        cmocka_unit_test(compressed_plain_events_adopted),
        cmocka_unit_test(compressed_error_position),
        cmocka_unit_test(deepseek_in_slices),
        cmocka_unit_test(misleading_text_and_crossing_pairs),
        cmocka_unit_test(slices_adopted_on_plain_events),
        cmocka_unit_test(large_slices_keep_their_flows),
        cmocka_unit_test(many_slices_per_thread),
        cmocka_unit_test(parsed_pages_given_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
