/* Fuzz target: the loader's two-stage parse (read/jsonindex.c) against the member loop
 * it stands in for (JsIndex_reference). The first byte picks the vector unit (SSE2,
 * AVX2 or AVX-512), how many members the caller holds and where the window ends; the
 * rest is the text. Stage 2 runs at every '{' of it (up to 256, one index kept across
 * them, as the loader keeps it across events), each time with the object's window;
 * whenever it takes an object, the member loop must accept it too, end at the same byte
 * and give the same members (key and value spans, types, escapes, depth). The text sits
 * in a buffer of exactly its size, so ASan sees any read past the window. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/read/jsonindex.h"

static int same_tok(const Tok *a, const Tok *b) {
    return a->p == b->p && a->n == b->n && a->type == b->type && a->esc == b->esc;
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
    JsMember got[64], want[64];
    int objects = 0;
    for (const char *q = text; q < end && objects < 256; q++) {
        if (*q != '{') continue;
        objects++;
        JsCtx c1 = {.end = end}, c2 = {.end = end};
        size_t ng = 0, nw = 0;
        const char *after = NULL, *wend = q;
        int taken = JsIndex_object(&ix, &c1, q, "args", 4, got, cap, &ng, &after);
        JsStatus st = JsIndex_reference(&c2, &wend, "args", 4, want, cap, &nw);
        if (taken) {
            if (st != JS_OK || after != wend || ng != nw) abort();
            for (size_t i = 0; i < ng; i++)
                if (!same_tok(&got[i].key, &want[i].key) || !same_tok(&got[i].val, &want[i].val) ||
                    got[i].depth != want[i].depth)
                    abort();
        }
        Js_free(&c1);
        Js_free(&c2);
    }
    JsIndex_free(&ix);
    Js_setSimd(0);
    free(text);
    return 0;
}
