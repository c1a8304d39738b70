/* Loader: every phase, both JSON forms, string pids/tids, legacy categories,
 * truncation, malformed input, compression, multiple files. */
#include <zlib.h>
#include <zstd.h>

#include "testutil.h"
#include "ovtrace/read/args.h"
#include "ovtrace/read/input.h"

static const Lane *lane_of(const Trace *t, long idx) { return &t->lanes[t->events[idx].lane]; }

static void object_form_all_phases(void **state) {
    (void)state;
    Trace *t = tu_load_ok(
        "{\"schemaVersion\":1,\"distributedInfo\":{\"rank\":3,\"world_size\":8},\"displayTimeUnit\":\"ms\","
        "\"traceName\":\"t1\",\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"GPU proc\"}},"
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"tid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"compute\"}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":100.5,\"dur\":10,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":42}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,\"tid\":9,\"ts\":99,\"dur\":2,"
        "\"args\":{\"correlation\":42}},"
        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":42,\"pid\":9,\"tid\":9,\"ts\":99.5},"
        "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":42,\"pid\":0,\"tid\":7,\"ts\":100.5,\"bp\":\"e\"},"
        "{\"ph\":\"B\",\"name\":\"outer\",\"pid\":9,\"tid\":9,\"ts\":50},"
        "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":9,\"tid\":9,\"ts\":60},"
        "{\"ph\":\"E\",\"pid\":9,\"tid\":9,\"ts\":70},"
        "{\"ph\":\"E\",\"pid\":9,\"tid\":9,\"ts\":120},"
        "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":9,\"tid\":9,\"ts\":80,\"s\":\"t\"},"
        "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":9,\"tid\":9,\"ts\":90,\"args\":{\"alloc\":12.5,\"free\":3}}"
        "],\"baseTimeNanoseconds\":1700000000000000000}");
    assert_int_equal(t->n_sources, 1);
    assert_int_equal(t->sources[0].rank, 3);
    assert_int_equal(t->sources[0].world_size, 8);
    assert_string_equal(t->sources[0].display_time_unit, "ms");
    assert_string_equal(t->sources[0].trace_name, "t1");
    assert_int_equal(t->sources[0].base_time_ns, INT64_C(1700000000000000000));
    assert_non_null(strstr(t->sources[0].meta_json, "\"distributedInfo\""));

    long k = tu_find(t, "gemm");
    assert_true(k >= 0);
    /* times are relative to baseTimeNanoseconds, which comes after the events */
    assert_int_equal(t->events[k].ts, INT64_C(1700000000000000000) + 100500);
    assert_int_equal(t->events[k].dur, 10000);
    assert_int_equal(t->events[k].kind, KIND_KERNEL);
    assert_int_equal(t->events[k].cls, CLASS_COMPUTE);
    assert_true(lane_of(t, k)->gpu);
    assert_int_equal(lane_of(t, k)->stream, 7);
    assert_string_equal(StrTab_get(t->strings, lane_of(t, k)->name), "compute");
    assert_int_equal(lane_of(t, k)->rank, 3);
    const Group *g = &t->groups[lane_of(t, k)->group];
    assert_string_equal(StrTab_get(t->strings, g->name), "GPU proc");
    assert_string_equal(StrTab_get(t->strings, g->label), "GPU 0");

    long r = tu_find(t, "cudaLaunchKernel");
    assert_int_equal(t->events[r].kind, KIND_RUNTIME);
    assert_int_equal(t->events[r].cls, CLASS_CPU);
    assert_int_equal(Trace_partner(t, (size_t)k), (size_t)r);
    assert_int_equal(Trace_partner(t, (size_t)r), (size_t)k);

    long outer = tu_find(t, "outer"), inner = tu_find(t, "inner");
    assert_int_equal(t->events[outer].dur, 70000);
    assert_int_equal(t->events[inner].dur, 10000);
    assert_int_equal(t->events[outer].depth, 0);
    assert_int_equal(t->events[inner].depth, 1);
    long mark = tu_find(t, "mark");
    assert_int_equal(t->events[mark].kind, KIND_INSTANT);
    long c1 = tu_find(t, "mem.alloc"), c2 = tu_find(t, "mem.free");
    assert_true(c1 >= 0 && c2 >= 0);
    assert_int_equal(t->events[c1].kind, KIND_COUNTER);
    assert_true(t->events[c1].value == 12.5);
    assert_true(t->events[c2].value == 3.0);
    assert_false(t->diag.truncated);
    assert_int_equal(t->diag.skipped, 0);
    Trace_free(t);
}

static void array_form_strings_and_legacy(void **state) {
    (void)state;
    /* 2021 legacy categories, string tids, no metadata at all, flows with cat async */
    Trace *t = tu_load_ok(
        "[{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k\",\"pid\":1,\"tid\":\"stream 7\",\"ts\":10,\"dur\":5,"
        "\"args\":{\"correlation\":5}},"
        "{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":\"Spans\",\"tid\":\"\",\"ts\":8,\"dur\":1,"
        "\"args\":{\"correlation\":5}},"
        "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::mm\",\"pid\":\"Spans\",\"tid\":\"\",\"ts\":7,\"dur\":3},"
        "{\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"Memcpy PtoP (Device -> Device)\",\"pid\":1,\"tid\":\"stream 9\","
        "\"ts\":11,\"dur\":2},"
        "{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"Memset (Device)\",\"pid\":1,\"tid\":\"stream 9\",\"ts\":14,\"dur\":1}"
        "]");
    long k = tu_find(t, "k");
    assert_true(lane_of(t, k)->gpu);
    assert_int_equal(lane_of(t, k)->stream, 7);
    assert_int_equal(lane_of(t, k)->device, 1);
    long rt = tu_find(t, "cudaLaunchKernel");
    assert_false(lane_of(t, rt)->gpu);
    assert_true(lane_of(t, rt)->pid < 0); /* string pid key */
    assert_string_equal(StrTab_get(t->strings, t->groups[lane_of(t, rt)->group].name), "Spans");
    assert_int_equal(t->events[tu_find(t, "aten::mm")].kind, KIND_CPU_OP);
    /* no flow events: correlation ids still link launch and kernel */
    assert_int_equal(Trace_partner(t, (size_t)k), (size_t)rt);
    long p2p = tu_find(t, "Memcpy PtoP (Device -> Device)");
    assert_int_equal(t->events[p2p].cls, CLASS_COMM);
    assert_int_equal(t->events[tu_find(t, "Memset (Device)")].cls, CLASS_MEMORY);
    /* GPU groups come first */
    assert_true(t->groups[0].gpu);
    Trace_free(t);
}

static void huge_ints_and_escapes(void **state) {
    (void)state;
    Trace *t = tu_load_ok(
        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\\u00e9\\n\\\"q\\\"\\ud83d\\ude00\","
        "\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1,\"args\":{\"big\":123456789012345678901234567890,"
        "\"nested\":{\"x\":[1,2,{\"y\":null}]},\"neg\":-1e-400}},"
        "{\"\\u0070h\":\"X\",\"name\":\"escaped-key\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":1}]}");
    assert_true(tu_find(t, "a\xc3\xa9\n\"q\"\xf0\x9f\x98\x80") >= 0);
    assert_true(tu_find(t, "escaped-key") >= 0);
    Trace_free(t);
}

static void sub_rows_for_overlap(void **state) {
    (void)state;
    /* overlapping (not nested) kernels on one stream must not be dropped */
    Trace *t = tu_load_ok("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":1,\"ts\":0,\"dur\":10},"
                          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,\"tid\":1,\"ts\":5,\"dur\":10},"
                          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"pid\":0,\"tid\":1,\"ts\":10,\"dur\":3},"
                          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"d\",\"pid\":0,\"tid\":1,\"ts\":12,\"dur\":1}]");
    assert_int_equal(t->n_events, 4);
    assert_int_equal(t->n_lanes, 1);
    assert_int_equal(t->events[tu_find(t, "a")].depth, 0);
    assert_int_equal(t->events[tu_find(t, "b")].depth, 1);
    assert_int_equal(t->events[tu_find(t, "c")].depth, 0); /* touches a: same row */
    assert_int_equal(t->events[tu_find(t, "d")].depth, 2);
    assert_int_equal(t->lanes[0].n_rows, 3);
    for (size_t r = 0; r < t->n_rows; r++) { /* each row sorted and disjoint */
        const Row *row = &t->rows[r];
        for (size_t i = row->first + 1; i < row->first + row->count; i++)
            assert_true(TraceEvent_end(&t->events[i - 1]) <= t->events[i].ts);
    }
    Trace_free(t);
}

static void truncated_loads_prefix(void **state) {
    (void)state;
    const char *full = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
                       "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},"
                       "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1}]}";
    const char *cut_b = strstr(full, "{\"ph\":\"X\",\"name\":\"c\"");
    /* cut at every byte from just after b to just before the end */
    for (const char *cut = cut_b - 1; cut < full + strlen(full) - 2; cut++) {
        char buf[512];
        size_t n = (size_t)(cut - full);
        memcpy(buf, full, n);
        buf[n] = '\0';
        char err[256];
        Trace *t = tu_load(buf, err, sizeof err);
        if (!t) fail_msg("cut at %zu: %s", n, err);
        assert_true(tu_find(t, "a") >= 0);
        assert_true(tu_find(t, "b") >= 0);
        bool has_c = tu_find(t, "c") >= 0;
        assert_int_equal(has_c, n > (size_t)(strstr(full, "]}") - full) - 1);
        assert_true(t->diag.truncated);
        Trace_free(t);
    }
}

static void syntax_errors_have_position(void **state) {
    (void)state;
    char err[512];
    Trace *t = tu_load("{\"traceEvents\":[\n{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},\n{\"ph\" \"X\"}]}", err,
                       sizeof err);
    assert_null(t);
    assert_non_null(strstr(err, "byte 61"));
    assert_non_null(strstr(err, "line 3, column 7"));
    assert_non_null(strstr(err, "expected ':'"));
    struct { const char *json, *want; } cases[] = {
        {"", "empty file"},
        {"   \n", "no JSON content"},
        {"\x89PNG\r\n\x1a\n\0\0garbage", "expected '{' or '['"},
        {"{\"foo\": 1}", "no trace events"},
        {"[]", "no trace events"},
        {"{\"traceEvents\": 5}", "traceEvents must be an array"},
        {"[{\"ph\":\"X\",\"name\":\"a\\q\",\"ts\":1}]", "valid escape"},
        {"[{\"ph\":\"X\",\"ts\":1}] trailing", "end of file"},
        {"[{\"ph\":\"X\",\"ts\":01}]", "',' or '}'"},
        {"[{\"ph\":\"X\",\"ts\":\"12\",\"name\":\"a\"}]", "no valid trace event"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = tu_write(cases[i].json, strlen(cases[i].json) + (i == 2 ? 9 : 0), ".json");
        const char *paths[] = {p};
        t = Load_files(paths, 1, NULL, err, sizeof err);
        unlink(p);
        if (t) fail_msg("case %zu loaded", i);
        if (!strstr(err, cases[i].want)) fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].want);
        assert_non_null(strstr(err, "/tmp/ovtrace-test-")); /* names the file */
    }
}

static void bad_values_skipped_and_counted(void **state) {
    (void)state;
    Trace *t = tu_load_ok("[{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
                          "{\"ph\":\"X\",\"name\":\"s\",\"pid\":1,\"tid\":1,\"ts\":\"1\",\"dur\":1},"
                          "{\"ph\":\"X\",\"name\":\"n\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":-4},"
                          "{\"ph\":\"X\",\"name\":\"o\",\"pid\":{},\"tid\":1,\"ts\":1,\"dur\":1},"
                          "[1,2],"
                          "{\"ph\":\"X\",\"name\":\"ok2\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1}]");
    assert_int_equal(t->n_events, 2);
    assert_int_equal(t->diag.skipped, 4);
    assert_string_equal(t->diag.first_skip_reason, "\"ts\" is not a number");
    assert_int_equal(t->diag.first_skip_offset, 55);
    Trace_free(t);
}

static void deep_nesting_and_big_names(void **state) {
    (void)state;
    size_t depth = 20000, name_len = 2u << 20;
    size_t cap = depth * 2 + name_len + 512;
    char *s = malloc(cap);
    size_t n = (size_t)sprintf(s, "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"deep\":");
    memset(s + n, '[', depth);
    n += depth;
    memset(s + n, ']', depth);
    n += depth;
    n += (size_t)sprintf(s + n, "},\"name\":\"");
    memset(s + n, 'x', name_len);
    n += name_len;
    n += (size_t)sprintf(s + n, "\"}]");
    s[n] = '\0';
    Trace *t = tu_load_ok(s);
    assert_int_equal(t->n_events, 1);
    assert_int_equal(StrTab_len(t->strings, t->events[0].name), name_len);
    /* unterminated nesting is a truncation, not a crash */
    s[n - 3 - name_len - 11 - depth / 2] = '\0';
    Trace_free(t);
    char err[256];
    t = tu_load(s, err, sizeof err);
    if (t) Trace_free(t); /* nothing complete before the cut: an error is fine too */
    free(s);
}

static void invalid_utf8_names_display(void **state) {
    (void)state;
    Trace *t = tu_load_ok("[{\"ph\":\"X\",\"name\":\"bad\xff\xfe\xc3(\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]");
    assert_string_equal(Trace_name(t, &t->events[0]), "bad??" "?(");
    Trace_free(t);
}

static void write_gz(const char *path, const char *data, size_t n) {
    gzFile g = gzopen(path, "wb");
    assert_non_null(g);
    assert_int_equal(gzwrite(g, data, (unsigned)n), (int)n);
    gzclose(g);
}

static const char *SMALL = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,"
                           "\"ts\":1,\"dur\":2},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,"
                           "\"ts\":5,\"dur\":2}]}";

static void gzip_and_zstd_by_magic(void **state) {
    (void)state;
    char err[256];
    /* misleading extensions: content decides */
    char *gz = tu_write("", 0, ".json");
    write_gz(gz, SMALL, strlen(SMALL));
    size_t zn;
    char *z = tu_compress(SMALL, strlen(SMALL), true, 3, &zn);
    char *zp = tu_write(z, zn, ".gz");
    const char *paths[] = {gz, zp};
    for (int i = 0; i < 2; i++) {
        Trace *t = Load_files(&paths[i], 1, NULL, err, sizeof err);
        if (!t) fail_msg("%s", err);
        assert_int_equal(t->n_events, 2);
        assert_int_equal(t->sources[0].compression, i == 0 ? COMP_GZIP : COMP_ZSTD);
        /* args are fetched back through the decompressor */
        size_t len;
        char *raw = Args_fetchRaw(t, 1, &len, err, sizeof err);
        assert_non_null(raw);
        assert_non_null(strstr(raw, "\"k2\""));
        free(raw);
        Trace_free(t);
    }
    /* truncated compressed streams load what they hold and warn */
    char *cut = tu_write(z, zn - 6, ".zst");
    Trace *t = Load_files((const char *[]){cut}, 1, NULL, err, sizeof err);
    if (t) {
        assert_true(t->diag.truncated);
        Trace_free(t);
    }
    unlink(gz);
    unlink(zp);
    unlink(cut);
    free(z);
}

static void big_compressed_window(void **state) {
    (void)state;
    /* more than the 4 MB decompression window, with events straddling refills */
    size_t n_ev = 60000, cap = n_ev * 120 + 64, n = 0;
    char *s = malloc(cap);
    n += (size_t)sprintf(s, "{\"traceEvents\":[");
    for (size_t i = 0; i < n_ev; i++)
        n += (size_t)sprintf(s + n, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%zu\",\"pid\":0,\"tid\":%zu,"
                                    "\"ts\":%zu.%03zu,\"dur\":1}",
                             i ? ",\n" : "", i, i % 97, i * 2, i % 1000);
    n += (size_t)sprintf(s + n, "]}");
    size_t zn;
    char *z = tu_compress(s, n, true, 3, &zn);
    char *zp = tu_write(z, zn, ".json.zst");
    char *gz = tu_write("", 0, ".json.gz");
    write_gz(gz, s, n);
    char err[256];
    for (int i = 0; i < 2; i++) {
        Trace *t = Load_files((const char *[]){i ? gz : zp}, 1, NULL, err, sizeof err);
        if (!t) fail_msg("%s", err);
        assert_int_equal(t->n_events, n_ev);
        assert_false(t->diag.truncated);
        long k = tu_find(t, "k59999");
        assert_int_equal(t->events[k].ts, 59999 * 2 * 1000 + 999);
        Trace_free(t);
    }
    unlink(zp);
    unlink(gz);
    free(z);
    free(s);
}

/* The zstd window is bounded by --max-token: a --long frame whose window (256 MiB) is
 * over both zstd's default limit and the token limit fails with a message that says
 * so (before: 2 GB of decoder memory for an 84 KB bomb); with a token limit that
 * covers it, the same file loads. 140 MB of blanks, written without a content size so
 * the frame keeps its declared window. */
static void zstd_window_follows_max_token(void **state) {
    (void)state;
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 28);
    ZSTD_CCtx_setParameter(c, ZSTD_c_enableLongDistanceMatching, 1);
    size_t cap = 1 << 20, zn = 0;
    char *z = malloc(cap), *blank = malloc(1 << 20);
    memset(blank, ' ', 1 << 20);
    const char *head = "[", *tail = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}]";
    for (int i = 0; i < 142; i++) {
        const char *p = i == 0 ? head : i == 141 ? tail : blank;
        size_t len = i == 0 ? 1 : i == 141 ? strlen(tail) : (size_t)(1 << 20);
        ZSTD_inBuffer in = {p, len, 0};
        ZSTD_EndDirective end = i == 141 ? ZSTD_e_end : ZSTD_e_continue;
        for (size_t left = 1; left;) {
            if (cap - zn < (1 << 16)) z = realloc(z, cap *= 2);
            ZSTD_outBuffer out = {z, cap, zn};
            left = ZSTD_compressStream2(c, &out, &in, end);
            assert_false(ZSTD_isError(left));
            zn = out.pos;
            if (end == ZSTD_e_continue && in.pos == in.size) break;
        }
    }
    ZSTD_freeCCtx(c);
    char *zp = tu_write(z, zn, ".json.zst");
    char err[512] = "";
    LoadOptions o = {.max_token = 1 << 20, .threads = 1};
    Trace *t = Load_files((const char *[]){zp}, 1, &o, err, sizeof err);
    if (t) { /* a loader may keep what came before the error: nothing did */
        assert_int_equal(t->n_events, 0);
        Trace_free(t);
    }
    assert_non_null(strstr(err, "--max-token"));
    o.max_token = (uint64_t)512 << 20;
    t = Load_files((const char *[]){zp}, 1, &o, err, sizeof err);
    if (!t) fail_msg("%s", err);
    assert_int_equal(t->n_events, 1);
    Trace_free(t);
    unlink(zp);
    free(z);
    free(blank);
}

static void many_files_by_rank(void **state) {
    (void)state;
    char a[512], b[512], err[256];
    snprintf(a, sizeof a, "{\"distributedInfo\":{\"rank\":1},\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\","
                          "\"name\":\"r1\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1}]}");
    snprintf(b, sizeof b, "{\"distributedInfo\":{\"rank\":0},\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\","
                          "\"name\":\"r0\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1}]}");
    char dir[] = "/tmp/ovtrace-dir-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char pa[600], pb[600], pc[600];
    snprintf(pa, sizeof pa, "%s/a.json", dir);
    snprintf(pb, sizeof pb, "%s/b.json.gz", dir);
    snprintf(pc, sizeof pc, "%s/notes.txt", dir);
    FILE *f = fopen(pa, "w");
    fputs(a, f);
    fclose(f);
    write_gz(pb, b, strlen(b));
    f = fopen(pc, "w");
    fputs("ignored", f);
    fclose(f);
    Trace *t = Load_files((const char *[]){dir}, 1, NULL, err, sizeof err);
    if (!t) fail_msg("%s", err);
    assert_int_equal(t->n_sources, 2);
    assert_int_equal(t->n_groups, 2);
    /* ordered by rank although rank 1 is the first file */
    assert_int_equal(t->groups[0].rank, 0);
    assert_int_equal(t->groups[1].rank, 1);
    assert_int_equal(t->lanes[t->events[tu_find(t, "r1")].lane].rank, 1);
    Trace_free(t);
    /* no rank info: file order */
    const char *noinfo = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"x\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1}]";
    char *p1 = tu_write(noinfo, strlen(noinfo), ".json"), *p2 = tu_write(noinfo, strlen(noinfo), ".json");
    t = Load_files((const char *[]){p1, p2}, 2, NULL, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(t->sources[0].rank, 0);
    assert_int_equal(t->sources[1].rank, 1);
    assert_int_equal(t->n_lanes, 2);
    Trace_free(t);
    unlink(p1);
    unlink(p2);
    unlink(pa);
    unlink(pb);
    unlink(pc);
    rmdir(dir);
}

static void metadata_sort_order(void **state) {
    (void)state;
    Trace *t = tu_load_ok(
        "[{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":0,\"tid\":3,\"args\":{\"sort_index\":1}},"
        "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":0,\"tid\":1,\"args\":{\"sort_index\":2}},"
        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":5,\"tid\":0,\"args\":{\"sort_index\":1}},"
        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":6,\"tid\":0,\"args\":{\"sort_index\":0}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"s1\",\"pid\":0,\"tid\":1,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"s3\",\"pid\":0,\"tid\":3,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"p5\",\"pid\":5,\"tid\":5,\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"p6\",\"pid\":6,\"tid\":6,\"ts\":1,\"dur\":1}]");
    assert_int_equal(t->lanes[0].stream, 3); /* sort index 1 before 2 */
    assert_int_equal(t->lanes[1].stream, 1);
    assert_int_equal(t->groups[1].id, 6);
    assert_int_equal(t->groups[2].id, 5);
    Trace_free(t);
}

static void simulated_recordings_are_marked(void **state) {
    (void)state;
    char err[256];
    const char *sim[] = {OVTRACE_SAMPLES "/sim-prefill.json.zst"};
    Trace *t = Load_files(sim, 1, NULL, err, sizeof err);
    if (!t) fail_msg("%s", err);
    assert_true(t->simulated);
    Trace_free(t);
    t = tu_load_ok("{\"ovtrace\":{\"simulated\":false},\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1}]}");
    assert_false(t->simulated);
    Trace_free(t);
}

/* B and E pair up by (pid, tid), as the format says: a B whose args put it on GPU
 * stream 7 is closed by an E of the same thread that carries no args (an E matched by
 * lane instead would land on another stream, leave the B open to the end of the trace
 * and add an empty lane). Two threads interleave their B/E pairs. */
static void b_e_pair_by_thread(void **state) {
    (void)state;
    Trace *t = tu_load_ok(
        "[{\"ph\":\"B\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,\"tid\":3,\"ts\":0,"
        "\"args\":{\"device\":0,\"stream\":7}},"
        "{\"ph\":\"B\",\"name\":\"op\",\"pid\":1,\"tid\":4,\"ts\":1},"
        "{\"ph\":\"E\",\"cat\":\"kernel\",\"pid\":1,\"tid\":3,\"ts\":10},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":4,\"ts\":21},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":1,\"tid\":3,\"ts\":5,"
        "\"dur\":10,\"args\":{\"device\":0,\"stream\":9}},"
        "{\"ph\":\"X\",\"name\":\"end\",\"pid\":1,\"tid\":4,\"ts\":30,\"dur\":1}]");
    long k = tu_find(t, "k"), op = tu_find(t, "op");
    assert_true(k >= 0 && op >= 0);
    assert_int_equal(t->events[k].dur, 10000);
    assert_int_equal(lane_of(t, k)->stream, 7);
    assert_int_equal(t->events[op].dur, 20000);
    assert_int_equal(t->diag.skipped, 0);
    size_t gpu_lanes = 0;
    for (size_t i = 0; i < t->n_lanes; i++) gpu_lanes += t->lanes[i].gpu;
    assert_int_equal(gpu_lanes, 2); /* streams 7 and 9, none for the E */
    Trace_free(t);
}

/* Consecutive events repeat their pid and tid text: a repeat takes the last key, and
 * only the same text of the same type is a repeat (5 and "5" are two processes, -1 is
 * keyed by its text, 17 digits are more than the 16 bytes compared, escapes count as
 * written). Each event's lane must be the one its own ids name. */
static void repeated_ids(void **state) {
    (void)state;
    static const char *const pids[] = {"5", "5", "\"5\"", "\"5\"", "5", "-1", "-1", "12345678901234567",
                                       "12345678901234568", "12345678901234567", "\"a\\u0062\"", "\"ab\"", "5"};
    enum { N = sizeof pids / sizeof pids[0] };
    char json[4096];
    size_t o = (size_t)sprintf(json, "[");
    for (int i = 0; i < N; i++)
        o += (size_t)sprintf(json + o, "%s{\"ph\":\"X\",\"name\":\"e%d\",\"pid\":%s,\"tid\":%s,\"ts\":%d,\"dur\":1}",
                             i ? "," : "", i, pids[i], i % 3 ? "7" : "\"7\"", i * 10);
    sprintf(json + o, "]");
    Trace *t = tu_load_ok(json);
    assert_int_equal(t->n_events, N);
    for (int i = 0; i < N; i++) {
        char name[8];
        snprintf(name, sizeof name, "e%d", i);
        const Lane *l = lane_of(t, tu_find(t, name));
        for (int j = 0; j < N; j++) { /* same lane exactly when both ids are spelled alike */
            snprintf(name, sizeof name, "e%d", j);
            bool same = !strcmp(pids[i], pids[j]) && (i % 3 != 0) == (j % 3 != 0);
            assert_int_equal(lane_of(t, tu_find(t, name)) == l, same);
        }
    }
    Trace_free(t);
}

/* Thread metadata names a GPU lane only where it is that thread's lane: a device-wide
 * sync with args.stream -1 on tid 1 beside stream 1 gets a label of its own, and the
 * stream-1 lane keeps the thread's name and sort index. */
static void lanes_sharing_a_thread_keep_their_labels(void **state) {
    (void)state;
    Trace *t = tu_load_ok(
        "[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":1,\"args\":{\"name\":\"stream 1\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":0,\"tid\":1,\"args\":{\"sort_index\":9}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"compute\"}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":1,\"ts\":1,\"dur\":1,"
        "\"args\":{\"device\":0,\"stream\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Context Sync\",\"pid\":0,\"tid\":1,\"ts\":3,\"dur\":1,"
        "\"args\":{\"device\":0,\"stream\":-1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k7\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1,"
        "\"args\":{\"device\":0,\"stream\":7}}]");
    long k1 = tu_find(t, "k1"), sync = tu_find(t, "Context Sync"), k7 = tu_find(t, "k7");
    assert_true(k1 >= 0 && sync >= 0 && k7 >= 0);
    const Lane *a = lane_of(t, k1), *b = lane_of(t, sync), *c = lane_of(t, k7);
    assert_ptr_not_equal(a, b);
    assert_int_equal(b->stream, -1);
    assert_string_equal(StrTab_get(t->strings, a->name), "stream 1");
    assert_string_equal(StrTab_get(t->strings, b->name), "stream -1");
    assert_string_equal(StrTab_get(t->strings, c->name), "compute"); /* alone on its thread */
    assert_int_equal(a->sort_index, 9);
    assert_int_equal(b->sort_index, -1);
    Trace_free(t);
}

/* A summary's t0_ns and t1_ns are read exactly: epoch-scale ns with odd last digits
 * (a double would round them to a multiple of 256) bound its bands to the ns. */
static void summary_times_are_exact(void **state) {
    (void)state;
    const char *json = "{\"ovtrace_summary\": 2, \"t0_ns\": 1700000000000000123, \"t1_ns\": 1700000000001000077,"
                       " \"columns\": 2, \"ranks\": [{\"rank\": 0, \"path\": \"r0.json\", \"arrived_last\": 0,"
                       " \"devices\": [{\"device\": 0, \"run_exposed_comm_ns\": 0, \"band\": \"ff000000ff000000\"}],"
                       " \"comm\": []}]}";
    char *p = tu_write(json, strlen(json), ".json");
    char err[256];
    Trace *t = Load_summaryFile(p, err, sizeof err);
    if (!t) fail_msg("%s", err);
    assert_true(t->n_events > 0);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < t->n_events; i++) {
        if (t->events[i].ts < lo) lo = t->events[i].ts;
        if (TraceEvent_end(&t->events[i]) > hi) hi = TraceEvent_end(&t->events[i]);
    }
    assert_int_equal(lo, INT64_C(1700000000000000123));
    assert_int_equal(hi, INT64_C(1700000000001000077));
    Trace_free(t);
    unlink(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lanes_sharing_a_thread_keep_their_labels),
        cmocka_unit_test(object_form_all_phases),
        cmocka_unit_test(b_e_pair_by_thread),
        cmocka_unit_test(repeated_ids),
        cmocka_unit_test(array_form_strings_and_legacy),
        cmocka_unit_test(huge_ints_and_escapes),
        cmocka_unit_test(sub_rows_for_overlap),
        cmocka_unit_test(truncated_loads_prefix),
        cmocka_unit_test(syntax_errors_have_position),
        cmocka_unit_test(bad_values_skipped_and_counted),
        cmocka_unit_test(deep_nesting_and_big_names),
        cmocka_unit_test(invalid_utf8_names_display),
        cmocka_unit_test(gzip_and_zstd_by_magic),
        cmocka_unit_test(big_compressed_window),
        cmocka_unit_test(zstd_window_follows_max_token),
        cmocka_unit_test(many_files_by_rank),
        cmocka_unit_test(metadata_sort_order),
        cmocka_unit_test(simulated_recordings_are_marked),
        cmocka_unit_test(summary_times_are_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
