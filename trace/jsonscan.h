/* Hand-written JSON scanner for the loader's hot path. It validates as it goes and
 * reports the byte offset and what it expected; it never recurses (nesting depth is
 * bounded only by memory). cJSON stays the reference: tests/test_differential.c
 * checks that both agree on every event of the corpus. */
#ifndef OVTRACE_JSONSCAN_H
#define OVTRACE_JSONSCAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

void Js_free(JsCtx *c);
static inline const char *Js_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}
/* Newlines in p[0..n), for line numbers in error messages (one per-line memchr call
 * would cost more than parsing the lines). */
uint64_t Js_countNewlines(const char *p, size_t n);
/* Each scanner takes *pp at the first byte of the value and leaves it after it. */
JsStatus Js_string(JsCtx *c, const char **pp, Tok *t);
JsStatus Js_number(JsCtx *c, const char **pp, Tok *t);
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

#endif
