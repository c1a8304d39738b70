/* one JSON member loop. Every path that walks an object's members
 * (the loader's events, their args and its top level, export's kept metadata, the
 * details view's Args_fetchRaw) is fed the same escaped keys and the same malformed
 * objects through its public entry point, and must behave as one:
 *  - an escaped key is its decoded name ("n\u0061me" is "name"), as in cJSON (the
 *    reference the loader is differential-tested against), whichever key it is and
 *    however much of it is escaped; of two equal keys the first counts;
 *  - a syntax error is an error naming the file, the byte and what was expected, the
 *    same expectation wherever the same object appears. */
#include <cjson/cJSON.h>

#include "ovtrace/read/args.h"
#include "ovtrace/write/export.h"
#include "testutil.h"

/* ---------- escaped keys ---------- */

/* Every key the loader looks for, as @key@ (a key and an arg "name" share a marker). */
static const char TEMPLATE[] =
    "{\"@traceEvents@\":["
    "{\"@ph@\":\"M\",\"@name@\":\"process_name\",\"@pid@\":1,\"@tid@\":0,\"@args@\":{\"@name@\":\"proc one\"}},"
    "{\"@ph@\":\"M\",\"@name@\":\"thread_name\",\"@pid@\":1,\"@tid@\":7,\"@args@\":{\"@name@\":\"worker\"}},"
    "{\"@ph@\":\"M\",\"@name@\":\"process_sort_index\",\"@pid@\":1,\"@tid@\":0,\"@args@\":{\"@sort_index@\":3}},"
    "{\"@ph@\":\"M\",\"@name@\":\"process_labels\",\"@pid@\":1,\"@tid@\":0,\"@args@\":{\"@labels@\":\"lbl\"}},"
    "{\"@ph@\":\"X\",\"@cat@\":\"cuda_runtime\",\"@name@\":\"cudaLaunchKernel\",\"@pid@\":1,\"@tid@\":7,"
    "\"@ts@\":10,\"@dur@\":2,\"@args@\":{\"@correlation@\":42}},"
    "{\"@ph@\":\"X\",\"@cat@\":\"kernel\",\"@name@\":\"gemm\",\"@pid@\":0,\"@tid@\":9,\"@ts@\":15,\"@dur@\":5,"
    "\"@args@\":{\"@device@\":3,\"@stream@\":9,\"@correlation@\":42}},"
    "{\"@ph@\":\"s\",\"@cat@\":\"ac2g\",\"@id@\":42,\"@name@\":\"ac2g\",\"@pid@\":1,\"@tid@\":7,\"@ts@\":10},"
    "{\"@ph@\":\"f\",\"@bp@\":\"e\",\"@cat@\":\"ac2g\",\"@id@\":42,\"@name@\":\"ac2g\",\"@pid@\":0,\"@tid@\":9,"
    "\"@ts@\":15},"
    "{\"@ph@\":\"B\",\"@name@\":\"step\",\"@pid@\":1,\"@tid@\":7,\"@ts@\":9},"
    "{\"@ph@\":\"E\",\"@pid@\":1,\"@tid@\":7,\"@ts@\":30},"
    "{\"@ph@\":\"C\",\"@name@\":\"bytes\",\"@pid@\":1,\"@tid@\":7,\"@ts@\":11,\"@args@\":{\"@bytes@\":5}},"
    "{\"@ph@\":\"i\",\"@name@\":\"[memory]\",\"@pid@\":1,\"@tid@\":7,\"@ts@\":12,"
    "\"@args@\":{\"@Total Allocated@\":100,\"@Device Type@\":1,\"@Device Id@\":3}}"
    "],\"@traceName@\":\"run a\",\"other\":1}";

static const char *const KEYS[] = {"traceEvents", "ph",          "name",       "pid",    "tid",
                                   "args",        "sort_index",  "labels",     "cat",    "ts",
                                   "dur",         "correlation", "device",     "stream", "id",
                                   "bp",          "bytes",       "Total Allocated", "Device Type", "Device Id",
                                   "traceName"};
enum { N_KEYS = sizeof KEYS / sizeof KEYS[0] };

typedef enum { ESC_NONE, ESC_FIRST, ESC_LAST, ESC_ALL } Esc;
static const char *const ESC_NAME[] = {"plain", "first byte \\u-escaped", "last byte \\u-escaped",
                                       "every byte \\u-escaped"};

/* key spelled with escape style e into out */
static void spell(const char *key, Esc e, char *out) {
    size_t n = strlen(key);
    for (size_t i = 0; i < n; i++) {
        bool esc = e == ESC_ALL || (e == ESC_FIRST && i == 0) || (e == ESC_LAST && i == n - 1);
        out += esc ? sprintf(out, "\\u%04x", (unsigned char)key[i]) : sprintf(out, "%c", key[i]);
    }
    *out = '\0';
}

/* The template with key `which` spelled with e (the others plain); malloc'd. */
static char *make(const char *tmpl, const char *which, Esc e) {
    char *out = malloc(strlen(tmpl) * 6 + 1), *o = out;
    for (const char *p = tmpl; *p;) {
        if (*p != '@') {
            *o++ = *p++;
            continue;
        }
        const char *q = strchr(p + 1, '@');
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(q - p - 1), p + 1);
        spell(key, which && !strcmp(key, which) ? e : ESC_NONE, o);
        o += strlen(o);
        p = q + 1;
    }
    *o = '\0';
    return out;
}

/* Everything the model took from the keys, as text. */
static char *summary(const Trace *t) {
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
#define PUT(...) n += (size_t)snprintf(s + n, cap - n, __VA_ARGS__)
    PUT("events %zu flows %zu skipped %zu name '%s'\n", t->n_events, t->n_flows, t->diag.skipped,
        t->sources[0].trace_name ? t->sources[0].trace_name : "");
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        const Lane *l = &t->lanes[e->lane];
        const Group *g = &t->groups[l->group];
        PUT("%s kind %d ts %lld %s %g corr %u lane %s%d pid %lld tid %lld dev %lld stream %lld '%s' sort %lld "
            "group '%s' '%s' sort %lld\n",
            Trace_name(t, e), (int)e->kind, (long long)e->ts, e->kind == KIND_COUNTER ? "value" : "dur",
            e->kind == KIND_COUNTER ? e->value : (double)e->dur, e->corr, l->gpu ? "gpu" : "cpu", l->rank,
            (long long)l->pid, (long long)l->tid, (long long)l->device, (long long)l->stream,
            StrTab_get(t->strings, l->name), (long long)l->sort_index, StrTab_get(t->strings, g->name),
            StrTab_get(t->strings, g->label), (long long)g->sort_index);
    }
#undef PUT
    return s;
}

static void escaped_keys_load_as_plain(void **state) {
    (void)state;
    char *plain_json = make(TEMPLATE, NULL, ESC_NONE);
    Trace *plain = tu_load_ok(plain_json);
    char *want = summary(plain);
    /* the plain trace exercises every key (else the comparison proves nothing) */
    assert_int_equal(plain->n_flows, 1);
    assert_true(tu_find(plain, "bytes") >= 0);
    assert_true(tu_find(plain, "[memory] GPU 3 Total Allocated") >= 0);
    assert_string_equal(plain->sources[0].trace_name, "run a");
    int bad = 0;
    for (int e = ESC_FIRST; e <= ESC_ALL; e++) {
        for (int k = 0; k < N_KEYS; k++) {
            char *json = make(TEMPLATE, KEYS[k], (Esc)e);
            /* the reference: cJSON reads the escaped key as the key */
            cJSON *root = cJSON_Parse(json);
            assert_non_null(root);
            assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "traceEvents")), 12);
            assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "traceName")->valuestring, "run a");
            cJSON_Delete(root);
            char err[512] = "";
            Trace *t = tu_load(json, err, sizeof err);
            char *got = t ? summary(t) : strdup(err);
            if (strcmp(got, want)) {
                fprintf(stderr, "key \"%s\" with its %s loads differently:\n--- plain\n%s--- escaped\n%s", KEYS[k],
                        ESC_NAME[e], want, got);
                bad++;
            }
            free(got);
            if (t) Trace_free(t);
            free(json);
        }
    }
    free(want);
    Trace_free(plain);
    free(plain_json);
    assert_int_equal(bad, 0);
}

/* Of two equal keys the last counts (JSON.parse, browsers, Perfetto), spelled with
 * escapes or not: event members, args members and top-level members alike. */
static void last_of_equal_keys_counts(void **state) {
    (void)state;
    Trace *t = tu_load_ok("{\"traceEvents\":[{\"ph\":\"X\",\"n\\u0061me\":\"first\",\"name\":\"second\",\"pid\":1,"
                          "\"tid\":1,\"ts\":1,\"dur\":1},"
                          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":1,\"ts\":1,\"dur\":1,"
                          "\"args\":{\"stream\":7,\"str\\u0065am\":9},\"args\":{\"stream\":3}},"
                          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":1,\"ts\":1,\"dur\":1,"
                          "\"args\":{\"stream\":3},\"args\":{\"stream\":7,\"str\\u0065am\":9}},"
                          "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":2,\"args\":{\"a\":1,\"b\":2,\"a\":5}}],"
                          "\"trac\\u0065Name\":\"one\",\"traceName\":\"two\"}");
    assert_int_equal(tu_find(t, "first"), -1);
    assert_true(tu_find(t, "second") >= 0);
    assert_int_equal(t->lanes[t->events[tu_find(t, "k")].lane].stream, 3);
    assert_int_equal(t->lanes[t->events[tu_find(t, "k2")].lane].stream, 9);
    long a = tu_find(t, "mem.a"), b = tu_find(t, "mem.b");
    assert_true(a >= 0 && b >= 0);
    assert_true(t->events[a].value == 5.0); /* one series per key, with its last value */
    size_t series = 0;
    for (size_t i = 0; i < t->n_events; i++) series += t->events[i].kind == KIND_COUNTER;
    assert_int_equal(series, 2);
    assert_string_equal(t->sources[0].trace_name, "two");
    Trace_free(t);
}

/* ---------- export's kept metadata ---------- */

/* Loads json from a temp file that stays (export reads the events again); unlink *path. */
static Trace *load_kept(const char *json, char **path) {
    *path = tu_write(json, strlen(json), ".json");
    const char *paths[] = {*path};
    char err[512] = "";
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    if (!t) fail_msg("load failed: %s", err);
    return t;
}

/* Exports t to a temp file; returns the output parsed by cJSON. */
static cJSON *export_parsed(const Trace *t) {
    char out[] = "/tmp/ovtrace-members-XXXXXX.json";
    int fd = mkstemps(out, 5);
    assert_true(fd >= 0);
    close(fd);
    ExportFilter f = ExportFilter_all();
    ExportResult r;
    char err[512] = "";
    if (!Export_run(t, &f, out, &r, err, sizeof err)) fail_msg("export failed: %s", err);
    FILE *fp = fopen(out, "rb");
    assert_non_null(fp);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    unlink(out);
    buf[n] = '\0';
    cJSON *root = cJSON_Parse(buf);
    assert_non_null(root);
    return root;
}

static int count_members(const cJSON *obj, const char *key) {
    int n = 0;
    for (const cJSON *c = obj->child; c; c = c->next) n += !strcmp(c->string, key);
    return n;
}

static void export_recognises_escaped_keys(void **state) {
    (void)state;
    static const char *const META[] = {"traceName", "ovtrace"};
    for (int e = ESC_NONE; e <= ESC_ALL; e++) {
        for (size_t k = 0; k < 2; k++) {
            char *json = make("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}],"
                              "\"@traceName@\":\"run a\",\"@ovtrace@\":{\"note\":1},\"kept\":2}",
                              META[k], (Esc)e);
            char *path;
            Trace *t = load_kept(json, &path);
            cJSON *out = export_parsed(t);
            unlink(path);
            /* one traceName (the source's, with the filter) and one ovtrace (export's own) */
            if (count_members(out, "traceName") != 1 || count_members(out, "ovtrace") != 1)
                fail_msg("export of a source whose \"%s\" key has its %s: %d traceName, %d ovtrace", META[k],
                         ESC_NAME[e], count_members(out, "traceName"), count_members(out, "ovtrace"));
            const char *tn = cJSON_GetObjectItemCaseSensitive(out, "traceName")->valuestring;
            assert_memory_equal(tn, "run a (ovtrace export", 21);
            assert_non_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(out, "ovtrace"),
                                                             "export"));
            assert_int_equal(cJSON_GetObjectItemCaseSensitive(out, "kept")->valueint, 2);
            cJSON_Delete(out);
            Trace_free(t);
            free(json);
        }
    }
    /* of two traceNames the last counts, as for the loader */
    char *path;
    Trace *t = load_kept("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}],"
                         "\"traceName\":\"first\",\"traceName\":\"second\"}",
                         &path);
    assert_string_equal(t->sources[0].trace_name, "second");
    cJSON *out = export_parsed(t);
    unlink(path);
    assert_int_equal(count_members(out, "traceName"), 1);
    assert_memory_equal(cJSON_GetObjectItemCaseSensitive(out, "traceName")->valuestring, "second (", 8);
    cJSON_Delete(out);
    Trace_free(t);
}

/* ---------- syntax errors ---------- */

typedef struct {
    const char *what, *obj;
    size_t at; /* byte of the error in obj */
    const char *expected;
} Bad;

static const Bad BAD[] = {
    {"missing colon", "{\"ph\" \"X\"}", 6, "':' after object key"},
    {"trailing comma", "{\"ph\":\"X\",}", 10, "a string key"},
    {"missing comma", "{\"ph\":\"X\" \"ts\":1}", 10, "',' or '}' after object member"},
    {"non-string key", "{ph:\"X\"}", 1, "a string key or '}'"},
    {"non-string key after a comma", "{\"ph\":\"X\",7:1}", 10, "a string key"},
};
enum { N_BAD = sizeof BAD / sizeof BAD[0] };

/* err names the file, then "byte N" (N whole), then "expected EXPECTED" (all of it). */
static bool says(const char *err, const char *path, size_t byte, const char *expected) {
    char want[64];
    snprintf(want, sizeof want, "byte %zu", byte);
    const char *b = strstr(err, path), *at = b ? strstr(b, want) : NULL, *e = at ? strstr(at, "expected ") : NULL;
    if (!e || (at[strlen(want)] >= '0' && at[strlen(want)] <= '9')) return false;
    size_t n = strlen(expected);
    return !strncmp(e + 9, expected, n) && (e[9 + n] == '\0' || e[9 + n] == ',');
}

static int load_error(const char *prefix, const Bad *b, const char *suffix, const char *where) {
    char json[512], err[512] = "";
    snprintf(json, sizeof json, "%s%s%s", prefix, b->obj, suffix);
    char *path = tu_write(json, strlen(json), ".json");
    const char *paths[] = {path};
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    int bad = 0;
    if (t || !says(err, path, strlen(prefix) + b->at, b->expected)) {
        fprintf(stderr, "%s as %s: want an error at byte %zu expecting %s; got %s\n", b->what, where,
                strlen(prefix) + b->at, b->expected, t ? "a trace" : err);
        bad = 1;
    }
    if (t) Trace_free(t);
    unlink(path);
    return bad;
}

static void syntax_errors_agree(void **state) {
    (void)state;
    int bad = 0;
    for (int i = 0; i < N_BAD; i++) {
        const Bad *b = &BAD[i];
        bad += load_error("{\"traceEvents\":[", b, "]}", "an event");
        bad += load_error("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"args\":", b, "}]}", "an event's args");
        bad += load_error("", b, "", "the top level");
        bad += load_error("{\"traceEvents\":[],\"deviceProperties\":[", b, "]}", "a nested top-level value");

        /* export: the kept top-level members */
        char *tpath;
        Trace *t = load_kept("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]}",
                             &tpath);
        free(t->sources[0].meta_json);
        t->sources[0].meta_json = strdup(b->obj);
        char out[] = "/tmp/ovtrace-members-XXXXXX.json", err[512] = "";
        int fd = mkstemps(out, 5);
        close(fd);
        ExportFilter f = ExportFilter_all();
        ExportResult r;
        bool ok = Export_run(t, &f, out, &r, err, sizeof err);
        if (ok || !says(err, t->sources[0].path, b->at, b->expected)) {
            fprintf(stderr, "%s in export's kept metadata: want an error at byte %zu expecting %s; got %s\n", b->what,
                    b->at, b->expected, ok ? "success" : err);
            bad++;
        }
        unlink(out);
        unlink(tpath);

        /* Args_fetchRaw: the event's text changed since loading */
        char good[] = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]}";
        char *path = tu_write(good, strlen(good), ".json");
        const char *paths[] = {path};
        Trace *u = Load_files(paths, 1, NULL, err, sizeof err);
        assert_non_null(u);
        char changed[512];
        snprintf(changed, sizeof changed, "{\"traceEvents\":[%s]}", b->obj);
        FILE *fp = fopen(path, "wb");
        fputs(changed, fp);
        fclose(fp);
        size_t len;
        char *raw = Args_fetchRaw(u, 0, &len, err, sizeof err);
        if (raw || !says(err, path, 16 + b->at, b->expected)) {
            fprintf(stderr, "%s in the details' source text: want an error at byte %zu expecting %s; got %s\n",
                    b->what, 16 + b->at, b->expected, raw ? raw : err);
            bad++;
        }
        free(raw);
        unlink(path);
        Trace_free(u);
        Trace_free(t);
    }
    assert_int_equal(bad, 0);
}

/* An object cut short: a file that ends early loads up to the last complete event with
 * a warning at that offset; a complete text (export's metadata) that ends early is an
 * error at its end. */
static void truncated_objects(void **state) {
    (void)state;
    char *path;
    Trace *t = load_kept("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
                         "{\"ph\":\"X\",\"args\":{\"a\":1",
                         &path);
    assert_true(t->diag.truncated);
    assert_int_equal(t->diag.truncated_offset, 68);
    assert_int_equal(t->n_events, 1);
    free(t->sources[0].meta_json);
    t->sources[0].meta_json = strdup("{\"a\":1");
    char out[] = "/tmp/ovtrace-members-XXXXXX.json", err[512] = "";
    int fd = mkstemps(out, 5);
    close(fd);
    ExportFilter f = ExportFilter_all();
    ExportResult r;
    assert_false(Export_run(t, &f, out, &r, err, sizeof err));
    assert_true(says(err, t->sources[0].path, 6, "the rest of the object (the text ends early)"));
    unlink(out);
    unlink(path);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escaped_keys_load_as_plain),
        cmocka_unit_test(last_of_equal_keys_counts),
        cmocka_unit_test(export_recognises_escaped_keys),
        cmocka_unit_test(syntax_errors_agree),
        cmocka_unit_test(truncated_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
