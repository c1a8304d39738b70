/* Fuzz target: the GPU-first skim (read/jsonpeek.c), at each instruction-set level the
 * CPU has. Differential: where the validating scanner (Js_value) reads the input as one
 * JSON object, the skim finds the same end; wherever the skim says OK, its end and the
 * ph/cat/ts/dur it hands back lie inside the input, and every level agrees. Then the
 * input is loaded as a trace GPU-first (the skim over its event array) and in full: a
 * full load that succeeds means the GPU-first one does too. */
#include "fuzz_common.h"
#include "jsonpeek.h"
#include "ovtrace/read/jsonscan.h"

static void inside(const uint8_t *d, size_t n, const char *p, size_t len) {
    if (p && ((const uint8_t *)p < d || (const uint8_t *)p + len > d + n)) {
        fprintf(stderr, "skim: a member's text outside the input\n");
        abort();
    }
}

static void peek_levels(const uint8_t *d, size_t n) {
    const char *s = (const char *)d, *end = s + n;
    JsPeekStatus first = JSPEEK_BAD;
    const char *first_end = NULL;
    for (int lv = 1; lv <= JsPeek_simdMost(); lv++) {
        JsPeek_setSimd(lv);
        JsPeek pk;
        const char *e = NULL;
        JsPeekStatus st = JsPeek_object(s, end, &pk, &e);
        if (st == JSPEEK_OK) {
            if (!e || e <= s || e > end) abort();
            inside(d, n, pk.ph, pk.ph_n);
            inside(d, n, pk.cat, pk.cat_n);
            inside(d, n, pk.ts, pk.ts_n);
            inside(d, n, pk.dur, pk.dur_n);
        }
        if (lv == 1) {
            first = st, first_end = e;
        } else if (st != first || (st == JSPEEK_OK && e != first_end)) {
            fprintf(stderr, "skim: level %d differs from SSE2\n", lv);
            abort();
        }
    }
    JsPeek_setSimd(0);
    JsCtx c = {.end = end};
    const char *q = s;
    Tok v;
    if (n && *s == '{' && Js_value(&c, &q, &v) == JS_OK && (first != JSPEEK_OK || first_end != q)) {
        fprintf(stderr, "skim: a valid object's end is %ld, the skim says status %d end %ld\n", (long)(q - s),
                (int)first, first_end ? (long)(first_end - s) : -1L);
        abort();
    }
    Js_free(&c);
}

static Trace *load(const char *path, bool gpu_only) {
    LoadOptions o = {.cache = -1, .gpu_only = gpu_only, .threads = 1};
    char err[1024] = "";
    Trace *t = Load_files(&path, 1, &o, err, sizeof err);
    if (!t && !err[0]) {
        fprintf(stderr, "load failed without a message\n");
        abort();
    }
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    peek_levels(data, size);
    int fd = fz_memfd(data, size);
    char path[64];
    fz_fdpath(fd, path, sizeof path);
    Trace *full = load(path, false), *gpu = load(path, true);
    if (full && !gpu) {
        fprintf(stderr, "the full load succeeds, the GPU-first one fails\n");
        abort();
    }
    if (gpu) fz_exercise(gpu);
    Trace_free(full);
    Trace_free(gpu);
    close(fd);
    return 0;
}
