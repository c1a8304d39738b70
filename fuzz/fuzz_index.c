/* Fuzz target: the loader's two-stage parse (read/jsonindex.c) and its known event
 * shapes (read/jsonshape.c) against the member loop they stand in for
 * (JsIndex_reference). The first byte picks the vector unit (SSE2, AVX2 or AVX-512),
 * how many members the caller holds and where the window ends; the rest is the text.
 * Stage 2 runs at every '{' of it (up to 256, one index kept across them, as the loader
 * keeps it across events), each time with the object's window; whenever it takes an
 * object, the member loop must accept it too, end at the same byte and give the same
 * members (key and value spans, types, escapes, depth). Each object the member loop
 * accepts is learned as a shape, and each object is first matched against the shapes
 * learned before it: what a shape takes is held to the same standard. The text sits in
 * a buffer of exactly its size, so ASan sees any read past the window. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/read/jsonindex.h"
#include "ovtrace/read/jsonshape.h"

static int same_tok(const Tok *a, const Tok *b) {
    return a->p == b->p && a->n == b->n && a->type == b->type && a->esc == b->esc;
}

/* got[0..ng) and its end against the member loop's want[0..nw) (st: its status). */
static void same_members(const JsMember *got, size_t ng, const char *after, JsStatus st, const JsMember *want,
                         size_t nw, const char *wend) {
    if (st != JS_OK || after != wend || ng != nw) abort();
    for (size_t i = 0; i < ng; i++)
        if (!same_tok(&got[i].key, &want[i].key) || !same_tok(&got[i].val, &want[i].val) ||
            got[i].depth != want[i].depth)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t flags = data[0];
    size_t n = size - 1;
    char *text = malloc(n ? n : 1);
    if (n) memcpy(text, data + 1, n);
    /* bit 0: SSE2, or (bit 4) AVX2 or AVX-512 where the CPU has them */
    Js_setSimd(flags & 1 ? 2 + ((flags >> 4) & 1) : 1);
    size_t cap = flags & 2 ? 4 + (flags >> 4) : 64; /* few members: the walk stops at cap */
    /* bits 2-3: the window ends at the text's end, or a quarter, half or three quarters in */
    const char *end = text + n - (n * ((flags >> 2) & 3)) / 4;
    JsIndex ix = {0};
    JsShape *sh = JsShape_new("args", 4);
    JsMember got[64], want[64];
    int objects = 0;
    for (const char *q = text; q < end && objects < 256; q++) {
        if (*q != '{') continue;
        objects++;
        JsCtx c1 = {.end = end}, c2 = {.end = end}, c3 = {.end = end};
        size_t ng = 0, nw = 0;
        const char *after = NULL, *wend = q;
        JsStatus st = JsIndex_reference(&c2, &wend, "args", 4, want, cap, &nw);
        if (JsShape_match(sh, &c3, q, got, cap, &ng, &after)) same_members(got, ng, after, st, want, nw, wend);
        if (JsIndex_object(&ix, &c1, q, "args", 4, got, cap, &ng, &after))
            same_members(got, ng, after, st, want, nw, wend);
        bool plain = st == JS_OK;
        for (size_t i = 0; plain && i < nw; i++) plain = !want[i].key.esc;
        if (plain) JsShape_learn(sh, q, want, nw, wend);
        Js_free(&c1);
        Js_free(&c2);
        Js_free(&c3);
    }
    JsShape_free(sh);
    JsIndex_free(&ix);
    Js_setSimd(0);
    free(text);
    return 0;
}
