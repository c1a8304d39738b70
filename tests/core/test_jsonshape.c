/* Known event shapes (read/jsonshape.c) against the member loop they stand in for
 * (JsIndex_reference):
 *  - each case learned, then every case matched against it, whole and cut at every
 *    length: what a shape takes is exactly what the member loop gives (spans, types,
 *    escapes, depth, end), and an object is always taken by its own shape;
 *  - one shape with random values (strings across 16-byte steps, UTF-8, numbers of any
 *    length, fractions, signs): every plain one is taken, none with an escape, a
 *    control character or an exponent's odd spelling is taken wrongly;
 *  - a trace of ever-new keys: the trie starts over when full and pauses when most
 *    objects miss, still exact;
 *  - GPU-first loads with shapes on and off: the same model field by field, the same
 *    passed-over events, span, warnings and errors. */
#include "testutil.h"
#include "ovtrace/read/jsonshape.h"
#include "../lib/jsoncases.h"
#include "../lib/samemembers.h"
#include "../lib/toggled.h"


/* The case's text after `shift` blanks and before a ',' (as in an event array), in a
 * buffer of exactly that size: ASan sees any read past it. */
static char *placed(const char *json, size_t shift, size_t *n) {
    size_t len = strlen(json);
    *n = shift + len + 1;
    char *b = malloc(*n);
    memset(b, ' ', shift);
    memcpy(b + shift, json, len);
    b[*n - 1] = ',';
    return b;
}

/* The shape match of the object at q in the window ending at end, against the member
 * loop; returns whether the shape took it. */
static bool check_match(JsShape *sh, const char *q, const char *end, size_t cap, const char *what) {
    JsCtx c1 = {.end = end}, c2 = {.end = end};
    JsMember got[64], want[64];
    size_t ng = 0, nw = 0;
    const char *after = NULL, *wend = q;
    bool taken = JsShape_match(sh, &c1, q, got, cap, &ng, &after);
    JsStatus st = JsIndex_reference(&c2, &wend, "args", 4, want, cap, &nw);
    if (taken) assert_members_as_loop(what, "a shape", q, got, ng, after, st, want, nw, wend);
    Js_free(&c1);
    Js_free(&c2);
    return taken;
}

/* Learns the object at q from the member loop's members; returns whether it could be
 * learned at all (plain JSON, keys unescaped). */
static bool learn(JsShape *sh, const char *q, const char *end) {
    JsCtx c = {.end = end};
    JsMember m[64];
    size_t n = 0;
    const char *e = q;
    bool ok = JsIndex_reference(&c, &e, "args", 4, m, 64, &n) == JS_OK;
    for (size_t i = 0; ok && i < n; i++) ok = !m[i].key.esc;
    if (ok) JsShape_learn(sh, q, m, n, e);
    Js_free(&c);
    return ok;
}

static void each_case_against_every_learned_shape(void **state) {
    (void)state;
    for (size_t k = 0; k < N_JSON_CASES; k++) {
        JsShape *sh = JsShape_new("args", 4);
        size_t n;
        char *b = placed(json_cases[k].json, 0, &n);
        bool learned = learn(sh, b, b + n);
        char what[96];
        snprintf(what, sizeof what, "case %zu against itself", k);
        bool taken = check_match(sh, b, b + n, 64, what);
        if (json_cases[k].plain && !(learned && taken)) fail_msg("case %zu: its own shape does not take it", k);
        if (!json_cases[k].plain && taken) fail_msg("case %zu: taken by its own shape", k);
        /* every cut: the window ends inside the object */
        for (size_t cut = 1; cut < n; cut++) check_match(sh, b, b + cut, 64, what);
        /* fewer members than it has */
        check_match(sh, b, b + n, 3, what);
        free(b);
        /* every other case, at shifts that move it across 16-byte steps */
        for (size_t j = 0; j < N_JSON_CASES; j++)
            for (size_t shift = 0; shift < 20; shift += 7) {
                char *o = placed(json_cases[j].json, shift, &n);
                snprintf(what, sizeof what, "case %zu against the shape of case %zu, shift %zu", j, k, shift);
                check_match(sh, o + shift, o + n, 64, what);
                for (size_t cut = shift + 1; cut < n; cut += 3) check_match(sh, o + shift, o + cut, 64, what);
                free(o);
            }
        JsShape_free(sh);
    }
}

/* All cases in one trie: each still taken by its shape and only as the member loop. */
static void all_cases_in_one_trie(void **state) {
    (void)state;
    JsShape *sh = JsShape_new("args", 4);
    char *b[N_JSON_CASES];
    size_t n[N_JSON_CASES];
    for (size_t k = 0; k < N_JSON_CASES; k++) {
        b[k] = placed(json_cases[k].json, k % 5, &n[k]);
        learn(sh, b[k] + k % 5, b[k] + n[k]);
    }
    for (size_t k = 0; k < N_JSON_CASES; k++) {
        char what[64];
        snprintf(what, sizeof what, "case %zu in one trie", k);
        bool taken = check_match(sh, b[k] + k % 5, b[k] + n[k], 64, what);
        if (json_cases[k].plain != taken) fail_msg("case %zu: %s in one trie", k, taken ? "taken" : "not taken");
        free(b[k]);
    }
    JsShapeStats st = JsShape_stats(sh);
    assert_true(st.hits > 0 && st.learned > 0 && st.resets == 0);
    JsShape_free(sh);
}

static unsigned rnd(unsigned *r) {
    *r = *r * 1103515245u + 12345u;
    return *r >> 8;
}

/* A string value of random length: printable ASCII and UTF-8; `odd` puts one escape or
 * control character in it. */
static size_t rand_string(char *o, unsigned *r, bool odd) {
    static const char *const pieces[] = {"a", "Z", " ", ":", "{", "}", "[", ",", "\xc3\xa9", "\xe4\xb8\xad", "0", "~"};
    static const char *const oddities[] = {"\\\"", "\\\\", "\\n", "\\u0041", "\t", "\x01", "\x1f"};
    size_t len = rnd(r) % 40, n = 0, at = odd ? rnd(r) % (len + 1) : SIZE_MAX;
    for (size_t i = 0; i <= len; i++) {
        if (i == at) n += (size_t)sprintf(o + n, "%s", oddities[rnd(r) % (sizeof oddities / sizeof *oddities)]);
        if (i < len) n += (size_t)sprintf(o + n, "%s", pieces[rnd(r) % (sizeof pieces / sizeof *pieces)]);
    }
    return n;
}

/* A number: plain (sign, digits, fraction) or, with `odd`, an exponent or a leading zero. */
static size_t rand_number(char *o, unsigned *r, bool odd) {
    size_t n = 0;
    if (rnd(r) % 3 == 0) o[n++] = '-';
    size_t digits = 1 + rnd(r) % 20;
    for (size_t i = 0; i < digits; i++) o[n++] = (char)('0' + (i == 0 && digits > 1 ? 1 + rnd(r) % 9 : rnd(r) % 10));
    if (rnd(r) % 2) {
        o[n++] = '.';
        size_t f = 1 + rnd(r) % 12;
        for (size_t i = 0; i < f; i++) o[n++] = (char)('0' + rnd(r) % 10);
    }
    if (odd) n += (size_t)sprintf(o + n, "%s", rnd(r) % 2 ? "e5" : "E-3");
    return n;
}

/* One Kineto-like shape with random values: once learned, every plain object is taken,
 * and objects with odd values are taken only as the member loop gives them. */
static void one_shape_random_values(void **state) {
    (void)state;
    JsShape *sh = JsShape_new("args", 4);
    unsigned r = 7;
    size_t plain = 0, taken_plain = 0;
    for (int round = 0; round < 20000; round++) {
        bool odd = round > 0 && rnd(&r) % 4 == 0;
        int which = odd ? (int)(rnd(&r) % 3) : -1; /* 0: name, 1: ts, 2: an args string */
        char b[512];
        size_t n = (size_t)sprintf(b, "{\"ph\": \"X\", \"name\": \"");
        n += rand_string(b + n, &r, which == 0);
        n += (size_t)sprintf(b + n, "\", \"ts\": ");
        n += rand_number(b + n, &r, which == 1);
        n += (size_t)sprintf(b + n, ", \"dur\": ");
        n += rand_number(b + n, &r, false);
        n += (size_t)sprintf(b + n, ",\n  \"args\": {\"s\": \"");
        n += rand_string(b + n, &r, which == 2);
        n += (size_t)sprintf(b + n, "\", \"n\": ");
        n += rand_number(b + n, &r, false);
        n += (size_t)sprintf(b + n, "}},");
        char *o = malloc(n); /* exact size */
        memcpy(o, b, n);
        char what[64];
        snprintf(what, sizeof what, "round %d", round);
        if (round == 0) learn(sh, o, o + n);
        bool taken = check_match(sh, o, o + n, 64, what);
        if (!odd) {
            plain++;
            taken_plain += taken;
        } else if (taken && which != 1) {
            fail_msg("%s: a string with an escape or a control character was taken", what);
        }
        if (round % 97 == 0) { /* every cut, against a trie of its own (misses would pause this one) */
            JsShape *cs = JsShape_new("args", 4);
            learn(cs, o, o + n);
            for (size_t cut = 1; cut < n; cut++) check_match(cs, o, o + cut, 64, what);
            JsShape_free(cs);
        }
        free(o);
    }
    if (taken_plain != plain) fail_msg("%zu of %zu plain objects taken", taken_plain, plain);
    JsShape_free(sh);
}

/* Ever-new keys: the trie fills and starts over, matching pauses when most miss, and
 * it learns again after the pause; what it takes stays exact. */
static void new_keys_bound_the_trie(void **state) {
    (void)state;
    JsShape *sh = JsShape_new("args", 4);
    size_t taken = 0;
    for (int i = 0; i < 60000; i++) {
        char b[128];
        /* every fourth object repeats an earlier key, so some are taken */
        int n = snprintf(b, sizeof b, "{\"ph\":\"X\",\"k%d\":%d,\"ts\":%d},", i % 4 == 0 ? i % 64 : i, i, i);
        if (check_match(sh, b, b + n, 64, "new keys")) taken++;
        else learn(sh, b, b + n);
    }
    JsShapeStats st = JsShape_stats(sh);
    assert_true(st.resets > 0);     /* full: started over */
    assert_true(st.paused > 0);     /* most missed: paused */
    assert_true(st.edges <= 2048);  /* bounded */
    assert_true(taken > 0);
    /* after the pause it learns and takes again */
    char b[] = "{\"ph\":\"X\",\"again\":1,\"ts\":2},";
    for (int i = 0; i < 40000 && !check_match(sh, b, b + sizeof b - 1, 64, "again"); i++) learn(sh, b, b + sizeof b - 1);
    assert_true(check_match(sh, b, b + sizeof b - 1, 64, "again"));
    JsShape_free(sh);
}

/* Objects at the limits of what is learned: 128 members that are all empty args
 * objects (three separator marks each, more than one separator may hold), long
 * separators (more than the trie holds), 129 members, and 64 args objects of one member
 * each (128 members: learned). ASan sees any write past the learner's arrays. */
static void learning_at_the_limits(void **state) {
    (void)state;
    for (int kind = 0; kind < 4; kind++) {
        size_t cap = 1u << 20, n = 0;
        char *b = malloc(cap);
        int members = kind == 0 ? 128 : kind == 1 ? 120 : kind == 2 ? 129 : 64;
        b[n++] = '{';
        for (int i = 0; i < members; i++) {
            if (i) b[n++] = ',';
            if (kind == 1) { /* 1000 blanks before each value: 120 KB of separators */
                n += (size_t)sprintf(b + n, "\"k%d\":", i);
                memset(b + n, ' ', 1000);
                n += 1000;
                n += (size_t)sprintf(b + n, "%d", i);
            } else if (kind == 2) {
                n += (size_t)sprintf(b + n, "\"k%d\":%d", i, i);
            } else if (kind == 0) {
                n += (size_t)sprintf(b + n, "\"args\":{}");
            } else {
                n += (size_t)sprintf(b + n, "\"args\":{\"a\":%d}", i);
            }
        }
        b[n++] = '}';
        b[n++] = ',';
        JsShape *sh = JsShape_new("args", 4);
        JsCtx c = {.end = b + n};
        JsMember *m = malloc(200 * sizeof *m);
        size_t nm = 0;
        const char *e = b;
        assert_int_equal(JsIndex_reference(&c, &e, "args", 4, m, 200, &nm), JS_OK);
        JsShape_learn(sh, b, m, nm, e);
        JsMember got[200];
        size_t ng = 0;
        const char *after = NULL;
        JsCtx c2 = {.end = b + n};
        bool taken = JsShape_match(sh, &c2, b, got, 200, &ng, &after);
        assert_int_equal(taken, kind == 3);
        if (taken) {
            assert_int_equal(ng, nm);
            assert_ptr_equal(after, e);
        }
        Js_free(&c);
        Js_free(&c2);
        free(m);
        free(b);
        JsShape_free(sh);
    }
}

/* ---------- GPU-first loads, shapes on and off ---------- */

/* Events of a few shapes the GPU-first load passes over or keeps, with the oddities the
 * skim must decide alike either way. */
static char *skim_trace(size_t *len, int variant) {
    size_t cap = 16u << 20, o = 0;
    char *b = malloc(cap);
    /* the span's ends are CPU ops passed over: the earliest first, the latest last */
#define CPU_OP                                                                                          \
    "{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, \"tid\": 2,\n    " \
    "\"ts\": %d.000, \"dur\": %d,\n    \"args\": {\n      \"External id\": %d,\"Ev Idx\": %d%s\n    }\n  }"
    o += (size_t)sprintf(b + o, "{\"traceEvents\": [\n");
    /* CPU ops whose ids the model refuses: they span nothing, though earlier than all */
    o += (size_t)sprintf(b + o, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"bad id\", \"pid\": true, "
                                "\"tid\": 2, \"ts\": 1, \"dur\": 1},\n");
    o += (size_t)sprintf(b + o, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"bad id\", \"pid\": 1, "
                                "\"tid\": {\"a\": 1}, \"ts\": 2, \"dur\": 1},\n");
    o += (size_t)sprintf(b + o, CPU_OP, 1, 999000, 5, 1, 1, "");
    for (int i = 0; i < 40000; i++) {
        const char *sep = ",\n";
        int ts = 1000000 + i * 3;
        switch (i % 23) {
        case 0: /* a counter, args before ph */
            o += (size_t)sprintf(b + o, "%s{\"args\": {\"bytes\": %d}, \"ph\": \"C\", \"name\": \"mem\", \"pid\": 0, "
                                        "\"tid\": 1, \"ts\": %d}", sep, i, ts);
            break;
        case 1: /* an escaped key: left to the member loop */
            o += (size_t)sprintf(b + o, "%s{\"p\\u0068\": \"X\", \"cat\": \"cpu_op\", \"name\": \"e\", \"pid\": 1, "
                                        "\"tid\": 2, \"ts\": %d, \"dur\": 1}", sep, ts);
            break;
        case 2: /* an escaped cat */
            o += (size_t)sprintf(b + o, "%s{\"ph\": \"X\", \"cat\": \"k\\u0065rnel\", \"name\": \"k\", \"pid\": 0, "
                                        "\"tid\": 7, \"ts\": %d, \"dur\": 2}", sep, ts);
            break;
        case 3: /* ph twice: the last counts */
            o += (size_t)sprintf(b + o, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"ph\": \"i\", \"name\": \"twice\", "
                                        "\"pid\": 0, \"tid\": 7, \"ts\": %d, \"s\": \"t\"}", sep, ts);
            break;
        case 4: /* odd ids and times */
            o += (size_t)sprintf(b + o, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ids\", \"pid\": %s, "
                                        "\"tid\": \"t%d\", \"ts\": %s, \"dur\": %s}",
                                 sep, i % 3 == 0 ? "true" : "\"p\"", i % 5, i % 2 ? "\"12\"" : "null",
                                 i % 4 == 0 ? "[1]" : "3");
            break;
        case 5: /* ph inside args only */
            o += (size_t)sprintf(b + o, "%s{\"cat\": \"cpu_op\", \"name\": \"nested\", \"pid\": 1, \"tid\": 2, "
                                        "\"ts\": %d, \"dur\": 4, \"args\": {\"ph\": \"X\"}}", sep, ts);
            break;
        case 6: /* a GPU memcpy with a string that has an escape */
            o += (size_t)sprintf(b + o, "%s{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy \\\"HtoD\\\"\", "
                                        "\"pid\": 0, \"tid\": 8, \"ts\": %d, \"dur\": 5, \"args\": {\"device\": 0, "
                                        "\"stream\": 8, \"correlation\": %d}}", sep, ts, i);
            break;
        case 7:
        case 8:
        case 9: /* kernels */
            o += (size_t)sprintf(b + o, "%s{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, "
                                        "\"tid\": %d,\n    \"ts\": %d.%03d, \"dur\": %d,\n    \"args\": {\n      "
                                        "\"External id\": %d, \"device\": 0, \"stream\": %d, \"correlation\": %d,\n"
                                        "      \"grid\": [%d, 1, 1]\n    }\n  }",
                                 sep, i % 7, 7 + i % 3, ts, i % 1000, 1 + i % 9, i, 7 + i % 3, i, i % 200);
            break;
        case 10: /* a runtime launch */
            o += (size_t)sprintf(b + o, "%s{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                                        "\"pid\": 1, \"tid\": 2, \"ts\": %d, \"dur\": 1, \"args\": {\"correlation\": %d}}",
                                 sep, ts, i + 1);
            break;
        case 11: /* a flow */
            o += (size_t)sprintf(b + o, "%s{\"ph\": \"s\", \"id\": %d, \"pid\": 1, \"tid\": 2, \"ts\": %d, "
                                        "\"cat\": \"ac2g\", \"name\": \"ac2g\"}", sep, i, ts);
            break;
        case 12: /* exponent times */
            o += (size_t)sprintf(b + o, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"exp\", \"pid\": 1, "
                                        "\"tid\": 2, \"ts\": %de0, \"dur\": 1.5E1}", sep, ts);
            break;
        default: /* CPU ops of a few shapes */
            o += (size_t)sprintf(b + o, "%s", sep);
            o += (size_t)sprintf(b + o, CPU_OP, i % 11, ts, 1 + i % 13, i, i % 50,
                                 i % 3 == 0 ? ", \"Fwd thread id\": 1, \"Sequence number\": 20703" : "");
        }
        if (variant == 1 && i == 30000) o += (size_t)sprintf(b + o, ",\n{\"ph\": \"X\" \"ts\": 1}");
        if (variant == 2 && i == 30000) break; /* cut: no closing */
    }
    if (variant == 2) {
        o -= 10; /* inside the last event */
    } else {
        o += (size_t)sprintf(b + o, ",\n");
        o += (size_t)sprintf(b + o, CPU_OP, 2, 1000000 + 40000 * 3, 99999, 2, 2, "");
        o += (size_t)sprintf(b + o, "\n]}\n");
    }
#undef CPU_OP
    assert_true(o < cap);
    *len = o;
    return b;
}

static void gpu_first_loads_agree_with_shapes_on_and_off(void **state) {
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        size_t n;
        char *json = skim_trace(&n, variant);
        char *plain = tu_write(json, n, ".json");
        size_t zn;
        char *z = tu_compress(json, n, true, 3, &zn);
        char *zpath = tu_write(z, zn, ".json.zst");
        assert_same_load_toggled(plain, 1, true, JsShape_setDisabled);
        assert_same_load_toggled(plain, 2, true, JsShape_setDisabled);
        assert_same_load_toggled(zpath, 2, true, JsShape_setDisabled);
        assert_same_load_toggled(plain, 2, false, JsShape_setDisabled);
        unlink(plain);
        unlink(zpath);
        free(z);
        free(json);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_case_against_every_learned_shape),
        cmocka_unit_test(all_cases_in_one_trie),
        cmocka_unit_test(one_shape_random_values),
        cmocka_unit_test(new_keys_bound_the_trie),
        cmocka_unit_test(learning_at_the_limits),
        cmocka_unit_test(gpu_first_loads_agree_with_shapes_on_and_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
