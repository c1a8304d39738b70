/* The hand-written scanner against cJSON, the reference: every X/i event of each
 * corpus file must come out of both with the same name, phase and times. cJSON holds
 * numbers as doubles, so times agree to within the double's precision, which at
 * epoch-scale microseconds is a few hundred ns: exactly why the loader does not use it
 * for timestamps. */
#include <cjson/cJSON.h>
#include <math.h>

#include "testutil.h"
#include "ovtrace/read/jsonscan.h"

typedef struct {
    const char *name;
    int64_t ts, dur;
} Ref;

static int cmp_ref(const void *a, const void *b) {
    const Ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->dur < y->dur ? -1 : x->dur > y->dur;
}

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    buf[len] = '\0';
    *n = (size_t)len;
    return buf;
}

static int64_t tol(double us) { return (int64_t)(ldexp(1.0, ilogb(us > 1 ? us : 1) - 52) * 1000.0) + 1; }

static void compare_file(const char *path) {
    size_t n;
    char *text = slurp(path, &n);
    cJSON *root = cJSON_ParseWithLength(text, n);
    assert_non_null(root);
    cJSON *evs = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    assert_true(cJSON_IsArray(evs));
    /* times are relative to a top-level baseTimeNanoseconds when there is one (the
     * fixtures' bases are exact in a double) */
    cJSON *bt = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "baseTimeNanoseconds") : NULL;
    int64_t base = cJSON_IsNumber(bt) ? (int64_t)bt->valuedouble : 0;
    size_t cap = (size_t)cJSON_GetArraySize(evs), nr = 0;
    Ref *ref = calloc(cap + 1, sizeof *ref);
    cJSON *e;
    cJSON_ArrayForEach(e, evs) {
        cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        if (!cJSON_IsString(ph) || (strcmp(ph->valuestring, "X") && strcmp(ph->valuestring, "i"))) continue;
        cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name"), *ts = cJSON_GetObjectItemCaseSensitive(e, "ts"),
              *dur = cJSON_GetObjectItemCaseSensitive(e, "dur");
        /* Kineto's "[memory]" instants with totals are counter samples in the model */
        cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        if (cJSON_IsString(name) && !strcmp(name->valuestring, "[memory]") &&
            cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(args, "Total Allocated")))
            continue;
        ref[nr].name = cJSON_IsString(name) ? name->valuestring : "";
        ref[nr].ts = base + (int64_t)llround(ts->valuedouble * 1000.0);
        ref[nr].dur = cJSON_IsNumber(dur) ? (int64_t)llround(dur->valuedouble * 1000.0) : 0;
        nr++;
    }
    char err[512];
    const char *paths[] = {path};
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    if (!t) fail_msg("%s", err);
    Ref *got = calloc(t->n_events + 1, sizeof *got);
    size_t ng = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *x = &t->events[i];
        if (x->kind == KIND_COUNTER) continue;
        got[ng++] = (Ref){Trace_name(t, x), x->ts, x->dur};
    }
    assert_int_equal(ng, nr);
    qsort(ref, nr, sizeof *ref, cmp_ref);
    qsort(got, ng, sizeof *got, cmp_ref);
    for (size_t i = 0; i < nr; i++) {
        if (strcmp(ref[i].name, got[i].name)) fail_msg("%s: name '%s' vs '%s'", path, ref[i].name, got[i].name);
        int64_t tt = tol((double)ref[i].ts / 1000.0);
        if (llabs(ref[i].ts - got[i].ts) > tt || llabs(ref[i].dur - got[i].dur) > tt)
            fail_msg("%s: %s ts %lld/%lld dur %lld/%lld", path, ref[i].name, (long long)ref[i].ts,
                     (long long)got[i].ts, (long long)ref[i].dur, (long long)got[i].dur);
    }
    free(got);
    free(ref);
    Trace_free(t);
    cJSON_Delete(root);
    free(text);
}

static void corpus_agrees(void **state) {
    (void)state;
    compare_file(OVTRACE_TESTDATA "/legacy-2021.json");
    compare_file(OVTRACE_TESTDATA "/kineto-2node.json");
    compare_file(OVTRACE_TESTDATA "/kineto-memory.json");
    compare_file(OVTRACE_DEEPSEEK_LIKE);
    if (access(OVTRACE_DEEPSEEK, R_OK) == 0) compare_file(OVTRACE_DEEPSEEK);
}

static void exact_where_double_is_not(void **state) {
    (void)state;
    /* the scanner is exact: 1712195495519689.047 us is ...689047 ns, not the double's ...689000 */
    char err[256];
    const char *p[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    Trace *t = Load_files(p, 1, NULL, err, sizeof err);
    assert_non_null(t);
    long k = tu_find(t, "sm90_xmma_gemm_bf16bf16_bf16f32");
    assert_int_equal(t->events[k].ts, INT64_C(1712195495519689047));
    assert_int_equal(t->events[k].dur, 100001);
    Trace_free(t);
}

/* The vector scanner's edge cases, under SSE2 and AVX2: escapes and backslash runs at
 * every offset of its 16- and 32-byte steps, strings spanning many steps, raw UTF-8 and
 * \\u escapes (surrogate pairs too). Each event is shifted by a pad of 0..70 bytes so
 * every piece lands on every position of a step; cJSON decodes the same names. */
static const char *const tricky[] = {
    "q\\\"q",         "\\\\",          "\\\\\\\"",       "\\\\\\\\\\\\",   "a\\/b\\nc\\td",
    "\\u00e9t\\u00E9",  "\\ud83d\\ude00!", "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", "\\\\\\\\\\\"x\\\\",
};

static size_t put_name(char *o, size_t at, int shift, int piece) {
    size_t n = at;
    for (int i = 0; i < shift; i++) o[n++] = (char)('a' + i % 26);
    for (int rep = 0; rep < 1 + piece % 3; rep++) {
        const char *t = tricky[(size_t)(piece + rep) % (sizeof tricky / sizeof *tricky)];
        memcpy(o + n, t, strlen(t));
        n += strlen(t);
        for (int i = 0; i < (piece * 37 + rep * 61) % 150; i++) o[n++] = (char)('A' + i % 26); /* up to 150 bytes more */
    }
    return n - at;
}

static void vector_step_edges_agree(void **state) {
    (void)state;
    size_t cap = 16u << 20, n = 0;
    char *o = malloc(cap);
    n += (size_t)sprintf(o + n, "{\"traceEvents\": [\n");
    int k = 0;
    for (int pad = 0; pad <= 70; pad++) {
        for (int piece = 0; piece < 24; piece++, k++) {
            n += (size_t)sprintf(o + n, "%s{\"pad\": \"%.*s\", \"ph\": \"X\", \"name\": \"", k ? ",\n" : "", pad,
                                 "----------------------------------------------------------------------------");
            n += put_name(o, n, piece % 7 * 9, piece + pad);
            /* blanks of every length and kind around the tokens (read eight bytes at a time) */
            static const char *const blank[] = {"", " ", "  ", "\t", "\r\n", "\n        ", "         \t ",
                                                "\n\n\n\n\n\n\n\n\n", " \r \n \t \r \n \t \r \n \t "};
            const char *b1 = blank[k % 9], *b2 = blank[(k / 9) % 9];
            n += (size_t)sprintf(o + n, "\"%s,%s\"ts\"%s:%s%d.%03d%s,%s\"dur\":%s%d%s, \"pid\": 1, \"tid\": %d%s}", b1, b2, b2,
                                 b1, 1000000 + k, k % 1000, b2, b1, b2, k % 97, b1, pad % 3, b2);
        }
    }
    n += (size_t)sprintf(o + n, "\n]}\n");
    assert_true(n < cap);
    char *path = tu_write(o, n, ".json");
    int best = Js_setSimd(0);
    for (int level = 1; level <= best; level++) {
        assert_int_equal(Js_setSimd(level), level);
        compare_file(path);
    }
    Js_setSimd(0);
    unlink(path);
    free(o);
}

/* A raw control character ends no string: at each offset of a step the loader stops
 * there, with either vector unit (cJSON is no reference here: it lets them through). */
static void control_character_in_any_step_is_an_error(void **state) {
    (void)state;
    int best = Js_setSimd(0);
    for (int level = 1; level <= best; level++) {
        Js_setSimd(level);
        for (int at = 0; at < 140; at += 3) {
            char name[200];
            memset(name, 'n', sizeof name);
            name[at] = '\x01';
            char json[600];
            int len = snprintf(json, sizeof json,
                               "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"%.*s\", \"ts\": 1, \"dur\": 1, "
                               "\"pid\": 1, \"tid\": 1}, {\"ph\": \"X\", \"name\": \"pad\", \"ts\": 2, \"pid\": 1, "
                               "\"tid\": 1, \"args\": {\"long enough\": \"for a whole vector step after the name\"}}]}",
                               (int)sizeof name, name);
            assert_true(len > 0 && (size_t)len < sizeof json);
            char err[512] = "";
            Trace *t = tu_load(json, err, sizeof err);
            if (t) fail_msg("a control character at %d (simd %d) loaded", at, level);
            assert_non_null(strstr(err, "control characters"));
        }
    }
    Js_setSimd(0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_agrees),
        cmocka_unit_test(exact_where_double_is_not),
        cmocka_unit_test(vector_step_edges_agree),
        cmocka_unit_test(control_character_in_any_step_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
