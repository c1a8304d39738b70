/* Hand-written JSON scanner for the loader's hot path. It validates as it goes and
 * reports the byte offset and what it expected; it never recurses (nesting depth is
 * bounded only by memory). cJSON stays the reference: tests/test_differential.c
 * checks that both agree on every event of the corpus. */
#ifndef OVTRACE_JSONSCAN_H
#define OVTRACE_JSONSCAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef enum { JS_OK = 0, JS_MORE, JS_ERR } JsStatus;

typedef enum { TOK_NONE = 0, TOK_STRING, TOK_NUMBER, TOK_OBJECT, TOK_ARRAY, TOK_TRUE, TOK_FALSE, TOK_NULL } TokType;

/* A value's bytes inside the scan window. For strings p/n exclude the quotes. */
typedef struct {
    const char *p;
    uint32_t n;
    uint8_t type; /* TokType */
    bool esc;     /* string contains backslash escapes */
} Tok;

typedef struct {
    const char *end;     /* end of valid data in the window */
    const char *err_at;  /* where the error was found */
    const char *expected;
    uint8_t *stack; /* nesting stack for skip_value */
    size_t stack_cap;
} JsCtx;
/* Which vector unit scans strings and builds the structural index (jsonindex.h): 0
 * picks the best the CPU has, 1 forces SSE2, 2 AVX2, 3 AVX2 with AVX-512 (BW and VBMI2)
 * for the index, each when present (tests run every level). Returns the one in use (1
 * to 3; 0 without SSE2). */
int Js_setSimd(int level);
/* The vector unit in use (as Js_setSimd returns it), chosen on first use. */
int Js_simd(void);
/* The best vector unit the CPU has, in Js_setSimd's numbering (the skim, jsonpeek.c,
 * asks it too). */
int Js_simdMost(void);

void Js_free(JsCtx *c);
/* Bit 7 of each byte of v set where that byte is not zero (exact: no carry between
 * bytes, unlike the classic has-zero test). */
static inline uint64_t Js_nonzero8(uint64_t v) {
    return (((v & 0x7F7F7F7F7F7F7F7Fu) + 0x7F7F7F7F7F7F7F7Fu) | v) & 0x8080808080808080u;
}
/* Past the blanks at p. A token byte (every blank is <= ' ') leaves at once, as does
 * the one space after ':' or ','; longer blanks go
 * eight bytes per step, found by four exact byte compares in a 64-bit word: an
 * indentation's length costs no branch per character. */
static inline const char *Js_ws(const char *p, const char *end) {
    if (p < end && (unsigned char)*p > ' ') return p;
    if (end - p >= 2 && *p == ' ' && (unsigned char)p[1] > ' ') return p + 1; /* ": " and ", " */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        uint64_t token = Js_nonzero8(x ^ 0x2020202020202020u) & Js_nonzero8(x ^ 0x0a0a0a0a0a0a0a0au) &
                         Js_nonzero8(x ^ 0x0d0d0d0d0d0d0d0du) & Js_nonzero8(x ^ 0x0909090909090909u);
        if (token) return p + (__builtin_ctzll(token) >> 3);
        p += 8;
    }
#endif
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}
/* First byte at or after p that is '"', '\\' or a control character, or end: where a
 * string's plain run stops. Kernel names run to hundreds of bytes, so this is most of
 * the loader's string work: 16 bytes per step where SSE2 is there (every x86-64), never
 * reading past end. */
static inline const char *Js_plainRun(const char *p, const char *end) {
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
                                   _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl)); /* x <= 0x1f */
        int mask = _mm_movemask_epi8(hit);
        if (mask) return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20) p++;
    return p;
}
/* Newlines in p[0..n), for line numbers in error messages (one per-line memchr call
 * would cost more than parsing the lines). */
uint64_t Js_countNewlines(const char *p, size_t n);
/* Each scanner takes *pp at the first byte of the value and leaves it after it. */
JsStatus Js_string(JsCtx *c, const char **pp, Tok *t);
/* Any value; t records its type and span (for containers: the whole text). */
JsStatus Js_value(JsCtx *c, const char **pp, Tok *t);
/* Decodes a string token (escapes, \u surrogates) into out (>= t->n bytes + 1).
 * Invalid UTF-8 bytes become '?' so names always display. Returns the length. */
size_t Js_decode(const Tok *t, char *out);
/* '{' that starts an array element after "}," in [from, end), or NULL. Only a guess:
 * the bytes could sit inside a string (parallel loaders verify it by landing there). */
const char *Js_guessElement(const char *from, const char *end);
/* Integer value of a number token (must be integral and fit int64). */
bool Js_int(const Tok *t, int64_t *v);
/* The nearest double to a number token, read in the C locale whatever LC_NUMERIC says.
 * False if t is not a number or its magnitude is beyond a double's range; a value
 * closer to 0 than the smallest double reads as 0, as in JSON.parse. */
bool Js_double(const Tok *t, double *v);

/* ---------- object members: the one member loop ----------
 * Every walk over an object's members (Js_value, the loader's events and args, its
 * top level, export's metadata, the details panel) goes through these steps, so all
 * agree on the grammar and report an error the same way: JS_ERR with c->err_at (the
 * byte) and c->expected (what should have been there). Keys are compared decoded, as
 * cJSON (the reference) compares them: "n\u0061me" is "name". */

static inline JsStatus Js_fail(JsCtx *c, const char *at, const char *expected) {
    c->err_at = at;
    c->expected = expected;
    return JS_ERR;
}

/* *pp at '{': leaves *pp at the first key, or after the '}' of "{}" with *done set. */
static inline JsStatus Js_objectOpen(JsCtx *c, const char **pp, bool *done) {
    const char *p = Js_ws(*pp + 1, c->end);
    if (p >= c->end) return JS_MORE;
    *done = *p == '}';
    if (*done) p++;
    else if (*p != '"') return Js_fail(c, p, "a string key or '}'");
    *pp = p;
    return JS_OK;
}

/* *pp at a member: scans its key and the ':'; leaves *pp at the value. */
static inline JsStatus Js_memberKey(JsCtx *c, const char **pp, Tok *key) {
    const char *p = *pp;
    if (p >= c->end) return JS_MORE;
    if (*p != '"') return Js_fail(c, p, "a string key");
    JsStatus st = Js_string(c, &p, key);
    if (st != JS_OK) return st;
    p = Js_ws(p, c->end);
    if (p >= c->end) return JS_MORE;
    if (*p != ':') return Js_fail(c, p, "':' after object key");
    p = Js_ws(p + 1, c->end);
    if (p >= c->end) return JS_MORE;
    *pp = p;
    return JS_OK;
}

/* *pp after a member's value: ',' leaves *pp at the next key; '}' sets *done and leaves
 * *pp after it. A trailing comma is an error at the '}' (a key was expected there). */
static inline JsStatus Js_memberNext(JsCtx *c, const char **pp, bool *done) {
    const char *p = Js_ws(*pp, c->end);
    if (p >= c->end) return JS_MORE;
    *done = *p == '}';
    if (*done) {
        *pp = p + 1;
        return JS_OK;
    }
    if (*p != ',') return Js_fail(c, p, "',' or '}' after object member");
    p = Js_ws(p + 1, c->end);
    if (p >= c->end) return JS_MORE;
    if (*p != '"') return Js_fail(c, p, "a string key");
    *pp = p;
    return JS_OK;
}

/* For the member loop and the callbacks passed to it: inlined wherever they are used,
 * so the loop costs what a hand-written one costs. */
#define JS_INLINE static inline __attribute__((always_inline))

/* Called for each member with its key (raw: compare it with Js_keyIs) and *pp at the
 * value's first byte; it scans the value (Js_value, or its own walk of an object) and
 * leaves *pp after it, so the value's extent is where *pp went. JS_OK goes on. */
typedef JsStatus (*JsMemberFn)(JsCtx *c, void *ctx, const Tok *key, const char **pp);

/* The member loop: *pp at '{', left after the '}' on JS_OK. */
JS_INLINE JsStatus Js_members(JsCtx *c, const char **pp, JsMemberFn fn, void *ctx) {
    const char *p = *pp;
    bool done;
    JsStatus st = Js_objectOpen(c, &p, &done);
    while (st == JS_OK && !done) {
        Tok key;
        st = Js_memberKey(c, &p, &key);
        if (st == JS_OK) st = fn(c, ctx, &key, &p);
        if (st == JS_OK) st = Js_memberNext(c, &p, &done);
    }
    if (st == JS_OK) *pp = p;
    return st;
}

/* For text known to be complete (not a window of a stream): JS_MORE means the object
 * ends early, an error at the end like any other. */
static inline JsStatus Js_complete(JsCtx *c, JsStatus st) {
    return st == JS_MORE ? Js_fail(c, c->end, "the rest of the object (the text ends early)") : st;
}

/* Whether an escaped key decodes to lit[0..len). */
bool Js_keyIsEscaped(const Tok *k, const char *lit, size_t len);
/* Whether key k (a string token) is lit; escapes decoded (the rare, slow case). */
static inline bool Js_keyIsn(const Tok *k, const char *lit, size_t len) {
    if (k->esc) return Js_keyIsEscaped(k, lit, len);
    return k->type == TOK_STRING && k->n == len && memcmp(k->p, lit, len) == 0;
}
#define Js_keyIs(k, lit) Js_keyIsn((k), (lit), sizeof(lit) - 1)
/* A plain token for key k: k itself, or its decoded text in buf (size n) when it has
 * escapes. A key too long for buf decodes to more than n / 6 bytes (an escape is at
 * most 6 bytes per decoded byte), so callers that only look for keys shorter than that
 * lose nothing: they get an empty token. */
Tok Js_keyDecoded(const Tok *k, char *buf, size_t n);
static inline Tok Js_keyPlain(const Tok *k, char *buf, size_t n) { return k->esc ? Js_keyDecoded(k, buf, n) : *k; }

#endif
