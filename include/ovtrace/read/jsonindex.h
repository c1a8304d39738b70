/* Two-stage parsing of the loader's event objects, as simdjson does: stage 1 finds,
 * 64 bytes per step with no branch per byte, every structural position of a chunk of
 * the window ('{' '}' '[' ']' ',' ':' outside strings, the quote that opens each string,
 * the first byte of each scalar, and any backslash or control character inside a
 * string); stage 2 walks those positions to split one object into its members without
 * looking at the bytes between them (a string ends at the last quote before the
 * position after it, a number at the last byte that is no blank).
 *
 * The scanner in jsonscan.c stays the reference: stage 2 reads literals, numbers with
 * an exponent and nested containers with it, and gives up (returns false) on anything
 * unusual: an escape or a control character in a string, a syntax error, a value
 * reaching the window end, more members than the caller's array holds. The caller then
 * parses the object with the reference scanner, so errors, offsets and results are the
 * reference's. When stage 2 succeeds, its members are exactly those Js_members would
 * pass to its callback. */
#ifndef OVTRACE_JSONINDEX_H
#define OVTRACE_JSONINDEX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/read/jsonscan.h"

/* Bytes indexed at a time: the index holds at most one position per byte of a chunk. */
#define JSINDEX_CHUNK (64u << 10)

typedef struct {
    const char *origin, *lim; /* positions of [origin, lim) are indexed */
    uint32_t *pos;            /* offsets from origin, ascending */
    size_t n;                 /* positions in pos */
    size_t cur;               /* the next position stage 2 looks at */
} JsIndex;

/* One member as Js_members passes it: key (raw, as Js_memberKey gives it) and value
 * (as Js_value gives it). depth 1: a member of the object value of the depth-0 member
 * before it, whose key is the nest key. */
typedef struct {
    Tok key, val;
    uint8_t depth;
} JsMember;

/* Stage 2 on (false) or off (true): tests and the fuzz target compare both. */
void JsIndex_setDisabled(bool off);
bool JsIndex_disabled(void);

void JsIndex_free(JsIndex *ix);
/* Forgets what was indexed (the window's bytes moved or changed). */
static inline void JsIndex_reset(JsIndex *ix) {
    ix->origin = ix->lim = NULL;
    ix->n = ix->cur = 0;
}

/* Stage 1 on [from, min(from + JSINDEX_CHUNK, end)); from must be outside any string
 * (an element's first byte). Never reads at or past end. */
void JsIndex_build(JsIndex *ix, const char *from, const char *end);

/* Stage 2 on the object at q ('{', outside any string), in the window that ends at
 * c->end: its members in out[0..*n_out) (the members of the object value of a member
 * whose raw key is nest[0..nest_n) follow that member, at depth 1), *after past its
 * '}'. False: not handled, nothing to use (parse the object with Js_members). The
 * index is built or extended from q as needed. */
bool JsIndex_object(JsIndex *ix, JsCtx *c, const char *q, const char *nest, size_t nest_n, JsMember *out,
                    size_t cap, size_t *n_out, const char **after);

/* What JsIndex_object gives, from the reference scanner alone (Js_members; the nest key
 * compared raw, as stage 2 sees keys): for tests and the fuzz target. *pp at '{', left
 * after the '}' on JS_OK; more than cap members is an error. */
JsStatus JsIndex_reference(JsCtx *c, const char **pp, const char *nest, size_t nest_n, JsMember *out, size_t cap,
                           size_t *n_out);

#endif
