/* Known shapes of event objects: how the GPU-first load splits the objects it skims.
 *
 * A trace writes its events from a handful of templates, so two events of one kind
 * differ only in their values: the bytes between one value and the next (blanks,
 * commas, colons, the keys, the braces of args) repeat exactly. JsShape keeps those
 * separators in a trie learned from objects already split into members: an edge is the
 * separator before a value, a node the place after that value. An object is then
 * matched by comparing each separator whole and reading only its values: a string up
 * to its closing quote, a number by its digits. No key is looked at, and no structural
 * index is built (stage 2's, jsonindex.h, would cover the 64 KB ahead, most of which
 * the skim passes over).
 *
 * A match gives exactly the members JsIndex_reference (and JsIndex_object) would give:
 * the same key and value spans, types, depth and end. Anything unusual fails the match
 * and goes to the caller's slower path: a separator not in the trie, an escape or
 * control character in a string, a value reaching the window's end, more members than
 * the caller holds. Literals, numbers with an exponent and nested containers are read
 * by the reference scanner, as stage 2 reads them. The trie is bounded; when it fills
 * it starts over, and when most objects miss (a trace of ever-new keys) matching pauses
 * for a while, so an odd trace pays a bounded share for it. */
#ifndef OVTRACE_JSONSHAPE_H
#define OVTRACE_JSONSHAPE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/read/jsonindex.h"

typedef struct JsShape JsShape;

/* A trie for objects whose members with raw key nest[0..nest_n) hold an object whose
 * members follow at depth 1 (as JsIndex_object nests them). */
JsShape *JsShape_new(const char *nest, size_t nest_n);
void JsShape_free(JsShape *sh);

/* The object at q ('{'), in the window ending at c->end, matched against the known
 * shapes: true with its members in out[0..*n_out) and *after past its '}', as
 * JsIndex_object would give them; false when no known shape fits (nothing to use). */
bool JsShape_match(JsShape *sh, JsCtx *c, const char *q, JsMember *out, size_t cap, size_t *n_out,
                   const char **after);

/* Learns the shape of the object at q from its members m[0..n) and its end, as
 * JsIndex_object or JsIndex_reference gave them (keys with escapes are not learned). */
void JsShape_learn(JsShape *sh, const char *q, const JsMember *m, size_t n, const char *after);

/* False while matching pauses (most recent objects missed): a caller that learns
 * from a slower parse it would not otherwise run skips that too. */
bool JsShape_active(const JsShape *sh);

/* What the trie did, for tests and benchmarks. */
typedef struct {
    uint64_t hits, misses, learned, resets, paused;
    size_t edges;
} JsShapeStats;
JsShapeStats JsShape_stats(const JsShape *sh);

/* Off (true) for tests that compare the loader with and without it. */
void JsShape_setDisabled(bool off);
bool JsShape_disabled(void);

#endif
