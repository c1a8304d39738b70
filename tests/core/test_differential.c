/* The hand-written scanner against cJSON, the reference: every X/i event of each
 * corpus file must come out of both with the same name, phase, times and (kernels)
 * stream. Of two equal keys the last counts (JSON.parse, browsers, Perfetto); cJSON's
 * lookup returns the first, so the reference takes the last member itself. cJSON holds
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
    int64_t stream; /* kernels: the lane's stream; -2 for other events */
} Ref;

/* The reference's lookup: the last member named key. */
static cJSON *last(const cJSON *obj, const char *key) {
    cJSON *found = NULL;
    if (!cJSON_IsObject(obj)) return NULL;
    for (cJSON *c = obj->child; c; c = c->next)
        if (c->string && !strcmp(c->string, key)) found = c;
    return found;
}

static int cmp_ref(const void *a, const void *b) {
    const Ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
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

/* The reference's X/i events of a parsed file, sorted; *n of them (malloc'd). Only
 * kernels when kernels_only. */
static Ref *reference(const cJSON *root, bool kernels_only, size_t *n) {
    const cJSON *evs = cJSON_IsArray(root) ? root : last(root, "traceEvents");
    assert_true(cJSON_IsArray(evs));
    /* times are relative to a top-level baseTimeNanoseconds when there is one (the
     * fixtures' bases are exact in a double) */
    const cJSON *bt = cJSON_IsObject(root) ? last(root, "baseTimeNanoseconds") : NULL;
    int64_t base = cJSON_IsNumber(bt) ? (int64_t)bt->valuedouble : 0;
    size_t cap = (size_t)cJSON_GetArraySize(evs), nr = 0;
    Ref *ref = calloc(cap + 1, sizeof *ref);
    cJSON *e;
    cJSON_ArrayForEach(e, evs) {
        cJSON *ph = last(e, "ph");
        if (!cJSON_IsString(ph) || (strcmp(ph->valuestring, "X") && strcmp(ph->valuestring, "i"))) continue;
        cJSON *name = last(e, "name"), *ts = last(e, "ts"), *dur = last(e, "dur"), *cat = last(e, "cat");
        /* Kineto's "[memory]" instants with totals are counter samples in the model */
        cJSON *args = last(e, "args");
        if (cJSON_IsString(name) && !strcmp(name->valuestring, "[memory]") &&
            cJSON_IsNumber(last(args, "Total Allocated")))
            continue;
        bool x = !strcmp(ph->valuestring, "X");
        int64_t stream = -2;
        const char *c = cJSON_IsString(cat) ? cat->valuestring : "";
        if (x && (!strcmp(c, "kernel") || !strcmp(c, "Kernel") || !strcmp(c, "gpu_op"))) {
            cJSON *st = last(args, "stream"), *tid = last(e, "tid");
            stream = cJSON_IsNumber(st) ? (int64_t)st->valuedouble : cJSON_IsNumber(tid) ? (int64_t)tid->valuedouble : 0;
        }
        if (kernels_only && stream == -2) continue;
        ref[nr].name = cJSON_IsString(name) ? name->valuestring : "";
        ref[nr].ts = base + (int64_t)llround(ts->valuedouble * 1000.0);
        ref[nr].dur = x && cJSON_IsNumber(dur) ? (int64_t)llround(dur->valuedouble * 1000.0) : 0;
        ref[nr].stream = stream;
        nr++;
    }
    qsort(ref, nr, sizeof *ref, cmp_ref);
    *n = nr;
    return ref;
}

/* Loads path (GPU lanes only: gpu_only) and checks its events against ref. */
static void compare_load(const char *path, const Ref *ref, size_t nr, bool gpu_only) {
    char err[512];
    const char *paths[] = {path};
    LoadOptions o = {.cache = -1, .gpu_only = gpu_only};
    Trace *t = Load_files(paths, 1, &o, err, sizeof err);
    if (!t) fail_msg("%s", err);
    Ref *got = calloc(t->n_events + 1, sizeof *got);
    size_t ng = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *x = &t->events[i];
        if (x->kind == KIND_COUNTER || (gpu_only && x->kind != KIND_KERNEL)) continue;
        const Lane *l = &t->lanes[x->lane];
        got[ng++] = (Ref){Trace_name(t, x), x->ts, x->dur, x->kind == KIND_KERNEL && l->gpu ? l->stream : -2};
    }
    assert_int_equal(ng, nr);
    qsort(got, ng, sizeof *got, cmp_ref);
    for (size_t i = 0; i < nr; i++) {
        if (strcmp(ref[i].name, got[i].name)) fail_msg("%s: name '%s' vs '%s'", path, ref[i].name, got[i].name);
        int64_t tt = tol((double)ref[i].ts / 1000.0);
        if (llabs(ref[i].ts - got[i].ts) > tt || llabs(ref[i].dur - got[i].dur) > tt || ref[i].stream != got[i].stream)
            fail_msg("%s: %s ts %lld/%lld dur %lld/%lld stream %lld/%lld", path, ref[i].name, (long long)ref[i].ts,
                     (long long)got[i].ts, (long long)ref[i].dur, (long long)got[i].dur, (long long)ref[i].stream,
                     (long long)got[i].stream);
    }
    free(got);
    Trace_free(t);
}

static void compare_file(const char *path) {
    size_t n;
    char *text = slurp(path, &n);
    cJSON *root = cJSON_ParseWithLength(text, n);
    assert_non_null(root);
    size_t nr;
    Ref *ref = reference(root, false, &nr);
    compare_load(path, ref, nr, false);
    free(ref);
    ref = reference(root, true, &nr); /* the GPU-first load's object skip reads keys too */
    compare_load(path, ref, nr, true);
    free(ref);
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

/* Events whose ts, dur, name, ph, cat, args and args.stream appear twice, in every
 * order, with values that differ: the loader (and the GPU-first load's object skip)
 * read the last of each, as the reference does. */
static void duplicate_keys_last_wins(void **state) {
    (void)state;
    static const char *phs[] = {"\"ph\":\"X\"", "\"ph\":\"i\"", "\"ph\":5"};
    static const char *cats[] = {"\"cat\":\"kernel\"", "\"cat\":\"cpu_op\""};
    size_t cap = 1 << 20, o = 0;
    char *b = malloc(cap);
    o += (size_t)snprintf(b + o, cap - o, "{\"traceEvents\":[");
    unsigned r = 7;
    for (int i = 0; i < 2000; i++) {
        r = r * 1103515245u + 12345u;
        unsigned x = r >> 8;
        /* the members, each twice but "pid", in an order set by x */
        char m[12][96];
        int k = 0;
        snprintf(m[k++], sizeof m[0], "%s", phs[x % 3]);
        snprintf(m[k++], sizeof m[0], "%s", phs[(x >> 2) % 2]);
        snprintf(m[k++], sizeof m[0], "%s", cats[(x >> 3) % 2]);
        snprintf(m[k++], sizeof m[0], "%s", cats[(x >> 4) % 2]);
        snprintf(m[k++], sizeof m[0], "\"ts\":%d", 1000 + i);
        snprintf(m[k++], sizeof m[0], "\"ts\":%d.5", 5000 + i);
        snprintf(m[k++], sizeof m[0], "\"dur\":%u", 1 + (x >> 5) % 9);
        snprintf(m[k++], sizeof m[0], "\"dur\":%u", 10 + (x >> 9) % 9);
        snprintf(m[k++], sizeof m[0], "\"name\":\"first%d\"", i);
        snprintf(m[k++], sizeof m[0], "\"name\":\"last%d\"", i);
        snprintf(m[k++], sizeof m[0], "\"args\":{\"device\":0,\"stream\":%u,\"stream\":%u}", 3 + (x >> 12) % 3,
                 7 + (x >> 14) % 3);
        snprintf(m[k++], sizeof m[0], "\"args\":%s", (x >> 16) % 2 ? "{\"stream\":20,\"device\":0}" : "{\"device\":0}");
        /* a rotation and a swap of pairs: both values of a key come in either order */
        int rot = (int)((x >> 17) % 12);
        o += (size_t)snprintf(b + o, cap - o, "%s{\"pid\":0,\"tid\":1", i ? "," : "");
        for (int j = 0; j < k; j++) {
            int idx = (j + rot) % k;
            if ((x >> 21) & 1) idx ^= 1;
            o += (size_t)snprintf(b + o, cap - o, ",%s", m[idx]);
        }
        o += (size_t)snprintf(b + o, cap - o, "}");
    }
    o += (size_t)snprintf(b + o, cap - o, "]}");
    char *path = tu_write(b, o, ".json");
    free(b);
    compare_file(path);
    unlink(path);
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
        cmocka_unit_test(duplicate_keys_last_wins),
        cmocka_unit_test(exact_where_double_is_not),
        cmocka_unit_test(vector_step_edges_agree),
        cmocka_unit_test(control_character_in_any_step_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
