/* The loader's two-stage parse (read/jsonindex.c) against its references:
 *  - stage 1's structural positions against a byte-at-a-time model of the same
 *    definition, on random text of quotes, backslash runs, operators and control
 *    characters across 64-byte blocks, with SSE2 and with AVX2;
 *  - stage 2's members against the member loop's (JsIndex_reference) for events with
 *    escapes, \" and backslash runs at block edges, long strings, control characters,
 *    every kind of number and literal, nested args, duplicate keys, syntax errors, at
 *    every offset of a block and cut at every length: what stage 2 takes is exactly
 *    what the member loop gives, and it takes every plain event;
 *  - whole loads with stage 2 on and off (plain, gzip and zstd windows, two threads,
 *    the GPU-first skim): the same model field by field, or the same error. */
#include "testutil.h"
#include "ovtrace/read/jsonindex.h"
#include "../lib/jsoncases.h"
#include "../lib/samemembers.h"
#include "../lib/toggled.h"

/* ---------- stage 1 against a model ---------- */

static bool blank(unsigned char ch) { return ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r'; }
static bool op(unsigned char ch) { return ch == '{' || ch == '}' || ch == '[' || ch == ']' || ch == ',' || ch == ':'; }

/* The positions stage 1 should mark in b[0..n), from outside any string. */
static size_t model(const unsigned char *b, size_t n, uint32_t *out) {
    size_t m = 0, run = 0; /* backslashes just before b[i] */
    bool in_string = false, prev_scalar = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = b[i];
        bool escaped = run % 2 == 1;
        bool quote = ch == '"' && !escaped;
        if (quote) in_string = !in_string; /* a closing quote is outside: in_string false there */
        bool inside = in_string;           /* an opening quote counts as inside, as its prefix XOR does */
        bool scalar = !op(ch) && !blank(ch) && ch != '"' && !inside;
        bool start = scalar && !prev_scalar;
        prev_scalar = scalar;
        bool ctl = ch < 0x20;
        if ((op(ch) && !ctl && !inside) || (quote && inside) || start || ((ch == '\\' || ctl) && inside))
            out[m++] = (uint32_t)i;
        run = ch == '\\' ? run + 1 : 0;
    }
    return m;
}

static void stage1_matches_the_model(void **state) {
    (void)state;
    static const unsigned char alphabet[] = {'"', '"', '\\', '\\', '\\', ' ', '{', '}', '[', ']', ',', ':',
                                             'a', '1', '-', '\n', '\t', 0x01, 0x0c, 0x1a, 0x80, 0xff};
    uint32_t *want = malloc((JSINDEX_CHUNK + 64) * sizeof *want);
    int best = Js_setSimd(0);
    unsigned r = 1;
    for (int level = 1; level <= best; level++) {
        Js_setSimd(level);
        for (int round = 0; round < 3000; round++) {
            r = r * 1103515245u + 12345u;
            size_t n = 1 + (r >> 8) % 400;
            unsigned char *b = malloc(n); /* exact size: ASan sees any read past the end */
            for (size_t i = 0; i < n; i++) {
                r = r * 1103515245u + 12345u;
                /* long runs of one byte now and then: backslash runs across block edges */
                b[i] = i && (r >> 20) % 3 == 0 ? b[i - 1] : alphabet[(r >> 8) % sizeof alphabet];
            }
            JsIndex ix = {0};
            JsIndex_build(&ix, (const char *)b, (const char *)b + n);
            size_t m = model(b, n, want);
            if (ix.n != m || memcmp(ix.pos, want, m * sizeof *want))
                fail_msg("simd %d round %d: %zu positions, the model %zu", level, round, ix.n, m);
            JsIndex_free(&ix);
            free(b);
        }
    }
    Js_setSimd(0);
    free(want);
}

/* ---------- stage 2 against the member loop ---------- */

/* Stage 2 on the object at q in a window ending at end, against the member loop.
 * Returns whether stage 2 took it. */
static bool check_object(const char *q, const char *end, size_t cap, const char *what) {
    JsCtx c1 = {.end = end}, c2 = {.end = end};
    JsIndex ix = {0};
    JsMember got[64] = {0}, want[64] = {0};
    size_t ng = 0, nw = 0;
    const char *after = NULL, *wend = q;
    bool taken = JsIndex_object(&ix, &c1, q, "args", 4, got, cap, &ng, &after);
    JsStatus st = JsIndex_reference(&c2, &wend, "args", 4, want, cap, &nw);
    if (taken) assert_members_as_loop(what, "stage 2", q, got, ng, after, st, want, nw, wend);
    Js_free(&c1);
    Js_free(&c2);
    JsIndex_free(&ix);
    return taken;
}

static void stage2_agrees_with_the_member_loop(void **state) {
    (void)state;
    int best = Js_setSimd(0);
    for (int level = 1; level <= best; level++) {
        Js_setSimd(level);
        for (size_t k = 0; k < N_JSON_CASES; k++) {
            size_t len = strlen(json_cases[k].json);
            for (size_t shift = 0; shift < 64; shift++) {
                /* the object after shift blanks, followed by ",": as in an event array */
                size_t n = shift + len + 1;
                char *b = malloc(n);
                memset(b, ' ', shift);
                memcpy(b + shift, json_cases[k].json, len);
                b[n - 1] = ',';
                char what[64];
                snprintf(what, sizeof what, "case %zu shift %zu simd %d", k, shift, level);
                bool taken = check_object(b + shift, b + n, 64, what);
                if (taken != json_cases[k].plain)
                    fail_msg("%s: stage 2 %s it", what, taken ? "took" : "left");
                /* every cut: the window ends inside the object (a number at the end
                 * may go on in the next chunk) */
                for (size_t cut = shift + 1; cut < n; cut += shift % 7 + 1) check_object(b + shift, b + cut, 64, what);
                free(b);
            }
        }
    }
    Js_setSimd(0);
}

/* More members than the caller holds, and objects longer than a chunk: left to the
 * member loop, never cut short. */
static void stage2_leaves_what_does_not_fit(void **state) {
    (void)state;
    const char *ten = "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"j\":10}";
    size_t n = strlen(ten);
    assert_false(check_object(ten, ten + n, 8, "ten members, room for 8"));
    assert_true(check_object(ten, ten + n, 10, "ten members, room for 10"));
    /* a name longer than a chunk: the walk runs out of positions */
    size_t big = JSINDEX_CHUNK + 100;
    char *b = malloc(big + 20);
    size_t o = (size_t)sprintf(b, "{\"name\":\"");
    memset(b + o, 'x', big - o);
    o = big;
    o += (size_t)sprintf(b + o, "\",\"ts\":1},");
    assert_false(check_object(b, b + o, 64, "longer than a chunk"));
    free(b);
}

/* ---------- whole loads, stage 2 on and off ---------- */

/* A trace of plain and unusual events (each case's object with the fields an event
 * needs), some thousand of each, so that objects straddle chunks and windows. */
static char *mixed_trace(size_t *len, bool broken) {
    size_t cap = 32u << 20, o = 0;
    char *b = malloc(cap);
    o += (size_t)sprintf(b + o, "{\"traceEvents\": [\n");
    for (int i = 0; i < 60000; i++) {
        const char *name = i % 5 == 0 ? LONG_NAME : i % 5 == 1 ? "n\\u0061me \\\"esc\\\"" : i % 5 == 2 ? "k" : "aten::mm";
        const char *cat = i % 3 == 0 ? "kernel" : "cpu_op";
        if (i % 97 == 0) /* a counter whose args come before its ph: read twice */
            o += (size_t)sprintf(b + o,
                                 "%s{\"args\": {\"bytes\": %d, \"device\": 0, \"free\": %d.5, \"s\": \"x\"}, "
                                 "\"ph\": \"C\", \"name\": \"mem\", \"pid\": 0, \"tid\": 1, \"ts\": %d}",
                                 i ? ",\n" : "", i, i / 2, 1000000 + i * 3);
        else if (i % 89 == 0) /* a counter, ph first: its series are read with the args */
            o += (size_t)sprintf(b + o,
                                 "%s{\"ph\": \"C\", \"name\": \"q%d\", \"pid\": 0, \"tid\": 1, \"ts\": %d, "
                                 "\"args\": {\"a\": %d, \"b\": \"x\", \"c\": 2.5, \"a\": %d}}",
                                 i ? ",\n" : "", i % 3, 1000000 + i * 3, i, i + 1);
        else
            o += (size_t)sprintf(b + o,
                                 "%s{\"ph\": \"X\", %s\"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
                                 "\"ts\": %d.%03d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": %d, "
                                 "\"%s\": %d, \"Input Dims\": [[%d, 2], []], \"s\": \"%s\"%s}}",
                                 i ? ",\n" : "", /* an earlier args object: the last one counts */
                                 i % 17 == 0 ? "\"args\": {\"stream\": 99, \"correlation\": 777}, " : "", cat,
                                 name, i % 3 == 0 ? 0 : 100, 7 + i % 4, 1000000 + i * 3, i % 1000, 1 + i % 5, 7 + i % 4,
                                 i % 17 == 0 ? "External id" : "correlation", i, i, i % 11 == 0 ? "a\\\\b" : "plain",
                                 i % 13 == 0 ? ", \"n\\u0061me\": \"arg name\"" : "");
        if (broken && i == 45000) o += (size_t)sprintf(b + o, ", {\"ph\": \"X\" \"ts\": 1}");
    }
    o += (size_t)sprintf(b + o, "\n]}\n");
    assert_true(o < cap);
    *len = o;
    return b;
}

static void same_load(const char *path, int threads, bool gpu_only) {
    assert_same_load_toggled(path, threads, gpu_only, JsIndex_setDisabled);
}

static void loads_agree_with_stage2_on_and_off(void **state) {
    (void)state;
    for (int broken = 0; broken < 2; broken++) {
        size_t n;
        char *json = mixed_trace(&n, broken);
        char *plain = tu_write(json, n, ".json");
        size_t zn, gn;
        char *z = tu_compress(json, n, true, 3, &zn);
        char *zpath = tu_write(z, zn, ".json.zst");
        char *g = tu_compress(json, n, false, 6, &gn);
        char *gpath = tu_write(g, gn, ".json.gz");
        int best = Js_setSimd(0);
        for (int level = 1; level <= best; level++) {
            Js_setSimd(level);
            same_load(plain, 1, false);
            same_load(plain, 2, false);
            same_load(plain, 1, true);
        }
        Js_setSimd(0);
        same_load(zpath, 1, false);
        same_load(zpath, 2, false);
        same_load(gpath, 1, false);
        unlink(plain);
        unlink(zpath);
        unlink(gpath);
        free(z);
        free(g);
        free(json);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stage1_matches_the_model),
        cmocka_unit_test(stage2_agrees_with_the_member_loop),
        cmocka_unit_test(stage2_leaves_what_does_not_fit),
        cmocka_unit_test(loads_agree_with_stage2_on_and_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
