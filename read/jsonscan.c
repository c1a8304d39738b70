#include "ovtrace/read/jsonscan.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define JS_HAVE_AVX2_PATH 1
#endif

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/bits.h"
#include "ovtrace/base/digits.h"
#include "ovtrace/model/timeunits.h"

void Js_free(JsCtx *c) {
    free(c->stack);
    c->stack = NULL;
    c->stack_cap = 0;
}

static int hexv(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

uint64_t Js_countNewlines(const char *p, size_t n) {
    uint64_t lines = 0;
    const char *end = p + n;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8('\n');
    for (; end - p >= 16; p += 16)
        lines += (uint64_t)Bits_count64(
            (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), nl)));
#endif
    for (; p < end; p++) lines += *p == '\n';
    return lines;
}

#ifdef JS_HAVE_AVX2_PATH
/* Js_plainRun's loop 32 bytes per step, for the rest of a long string (kernel names run
 * to hundreds of bytes). */
__attribute__((target("avx2"))) static const char *plain_run_avx2(const char *p, const char *end) {
    const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\'), ctl = _mm256_set1_epi8(0x1f);
    while (end - p >= 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
        __m256i hit = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(x, bslash)),
                                      _mm256_cmpeq_epi8(_mm256_max_epu8(x, ctl), ctl)); /* x <= 0x1f */
        uint32_t mask = (uint32_t)_mm256_movemask_epi8(hit);
        if (mask) return p + __builtin_ctz(mask);
        p += 32;
    }
    return p;
}
#endif

/* 0: not chosen yet; 1: SSE2; 2: AVX2; 3: AVX2 and AVX-512 (BW, VBMI2) */
static _Atomic int simd_level;

int Js_simdMost(void) {
#ifdef __SSE2__
    int best = 1;
#ifdef JS_HAVE_AVX2_PATH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) best = 2;
    /* the structural index (jsonindex.c) uses AVX-512's byte compares and compress */
    if (best == 2 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi2")) best = 3;
#endif
    return best;
#else
    return 0;
#endif
}

int Js_setSimd(int level) {
#ifdef __SSE2__
    int best = Js_simdMost();
    simd_level = level == 0 || level > best ? best : level;
    return simd_level;
#else
    (void)level;
    return 0;
#endif
}

int Js_simd(void) {
    int lv = simd_level;
    return lv ? lv : Js_setSimd(0);
}

/* First byte at or after p that is '"', '\\' or a control character, or end. Most
 * strings (keys, short values) end within 16 bytes: one SSE2 step, inline; a longer
 * one goes on 32 bytes per step where the CPU has AVX2 (chosen at run time). */
static inline const char *string_stop(const char *p, const char *end) {
#if defined(__SSE2__) && defined(JS_HAVE_AVX2_PATH)
    if (end - p >= 16) {
        const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
                                   _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl));
        int mask = _mm_movemask_epi8(hit);
        if (mask) return p + __builtin_ctz((unsigned)mask);
        p += 16;
        int lv = simd_level;
        if (__builtin_expect(lv == 0, 0)) lv = Js_setSimd(0);
        if (lv >= 2) p = plain_run_avx2(p, end);
    }
#endif
    return Js_plainRun(p, end);
}

JsStatus Js_string(JsCtx *c, const char **pp, Tok *t) {
    const char *p = *pp + 1, *end = c->end;
    bool esc = false;
    for (;;) {
        p = string_stop(p, end);
        if (p >= end) return JS_MORE;
        if (*p == '"') break;
        if (*p == '\\') {
            esc = true;
            if (p + 1 >= end) return JS_MORE;
            char e = p[1];
            if (e == 'u') {
                if (p + 6 > end) return JS_MORE;
                for (int i = 2; i < 6; i++)
                    if (hexv(p[i]) < 0) return Js_fail(c, p + i, "4 hex digits after \\u");
                p += 6;
            } else if (strchr("\"\\/bfnrt", e) && e) {
                p += 2;
            } else {
                return Js_fail(c, p + 1, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
            }
            continue;
        }
        return Js_fail(c, p, "no control characters inside a string (use \\n, \\t, ...)");
    }
    t->p = *pp + 1;
    t->n = (uint32_t)(p - (*pp + 1));
    t->type = TOK_STRING;
    t->esc = esc;
    *pp = p + 1;
    return JS_OK;
}

static inline bool isdig(char ch) { return ch >= '0' && ch <= '9'; }

/* A number, as Js_string scans a string. */
static inline __attribute__((always_inline)) JsStatus Js_number(JsCtx *c, const char **pp, Tok *t) {
    const char *s = *pp, *p = s, *end = c->end;
    if (p < end && *p == '-') p++;
    if (p >= end) return JS_MORE;
    if (*p == '0') {
        p++;
    } else if (isdig(*p)) {
        p = Digits_skip(p, end);
    } else {
        return Js_fail(c, p, "a digit");
    }
    if (p < end && *p == '.') {
        p++;
        if (p >= end) return JS_MORE;
        if (!isdig(*p)) return Js_fail(c, p, "a digit after '.'");
        p = Digits_skip(p, end);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end) return JS_MORE;
        if (!isdig(*p)) return Js_fail(c, p, "a digit in the exponent");
        while (p < end && isdig(*p)) p++;
    }
    /* a number that touches the window end may continue in the next chunk */
    if (p >= end) return JS_MORE;
    t->p = s;
    t->n = (uint32_t)(p - s);
    t->type = TOK_NUMBER;
    t->esc = false;
    *pp = p;
    return JS_OK;
}

static JsStatus literal(JsCtx *c, const char **pp, const char *word, size_t n) {
    const char *p = *pp;
    for (size_t i = 0; i < n; i++) {
        if (p + i >= c->end) return JS_MORE;
        if (p[i] != word[i]) return Js_fail(c, p + i, word[0] == 't' ? "true" : word[0] == 'f' ? "false" : "null");
    }
    *pp = p + n;
    return JS_OK;
}

static inline __attribute__((always_inline)) JsStatus scalar(JsCtx *c, const char **pp, Tok *t) {
    const char *p = *pp;
    switch (*p) {
    case '"': return Js_string(c, pp, t);
    /* a literal's span is its word, as any token's */
    case 't': *t = (Tok){p, 4, TOK_TRUE, false}; return literal(c, pp, "true", 4);
    case 'f': *t = (Tok){p, 5, TOK_FALSE, false}; return literal(c, pp, "false", 5);
    case 'n': *t = (Tok){p, 4, TOK_NULL, false}; return literal(c, pp, "null", 4);
    default:
        if (*p == '-' || isdig(*p)) return Js_number(c, pp, t);
        return Js_fail(c, p, "a JSON value (object, array, string, number, true, false or null)");
    }
}

/* '[' at *pp: like Js_objectOpen for arrays. */
static inline JsStatus array_open(JsCtx *c, const char **pp, bool *done) {
    const char *p = Js_ws(*pp + 1, c->end);
    if (p >= c->end) return JS_MORE;
    *done = *p == ']';
    *pp = p + *done;
    return JS_OK;
}

/* After an array element: like Js_memberNext for arrays. */
static inline JsStatus array_next(JsCtx *c, const char **pp, bool *done) {
    const char *p = Js_ws(*pp, c->end);
    if (p >= c->end) return JS_MORE;
    *done = *p == ']';
    if (*done) {
        *pp = p + 1;
        return JS_OK;
    }
    if (*p != ',') return Js_fail(c, p, "',' or ']' after array element");
    p = Js_ws(p + 1, c->end);
    if (p >= c->end) return JS_MORE;
    *pp = p;
    return JS_OK;
}

/* Iterative: a container is walked with an explicit stack so 20,000 levels of
 * nesting cost memory, not C stack. Objects go through the member steps every member
 * loop shares (Js_objectOpen, Js_memberKey, Js_memberNext). */
JsStatus Js_value(JsCtx *c, const char **pp, Tok *t) {
    const char *p = Js_ws(*pp, c->end), *start = p, *end = c->end;
    if (p >= end) return JS_MORE;
    if (*p != '{' && *p != '[') {
        JsStatus st = scalar(c, &p, t);
        if (st == JS_OK) *pp = p;
        return st;
    }
    size_t depth = 0;
    Tok tmp;
    JsStatus st;
    bool in_obj, done;
    for (;;) {
        /* p is at an opening bracket */
        if (depth == c->stack_cap) GROW(c->stack, c->stack_cap, depth + 1);
        c->stack[depth++] = (uint8_t)*p;
        in_obj = *p == '{';
        st = in_obj ? Js_objectOpen(c, &p, &done) : array_open(c, &p, &done);
        if (st != JS_OK) return st;
        if (done) goto closed;
        for (;;) { /* one member/element */
            if (in_obj && (st = Js_memberKey(c, &p, &tmp)) != JS_OK) return st;
            if (*p == '{' || *p == '[') goto open; /* descend */
            if ((st = scalar(c, &p, &tmp)) != JS_OK) return st;
        after_value:
            st = in_obj ? Js_memberNext(c, &p, &done) : array_next(c, &p, &done);
            if (st != JS_OK) return st;
            if (!done) continue;
        closed: /* p is after a closing bracket */
            if (--depth == 0) {
                t->p = start;
                t->n = (uint32_t)(p - start);
                t->type = *start == '{' ? TOK_OBJECT : TOK_ARRAY;
                t->esc = false;
                *pp = p;
                return JS_OK;
            }
            in_obj = c->stack[depth - 1] == '{';
            goto after_value;
        }
    open:;
    }
}

static void put_utf8(char **o, uint32_t cp) {
    char *q = *o;
    if (cp < 0x80) {
        *q++ = (char)cp;
    } else if (cp < 0x800) {
        *q++ = (char)(0xc0 | (cp >> 6));
        *q++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *q++ = (char)(0xe0 | (cp >> 12));
        *q++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *q++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *q++ = (char)(0xf0 | (cp >> 18));
        *q++ = (char)(0x80 | ((cp >> 12) & 0x3f));
        *q++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *q++ = (char)(0x80 | (cp & 0x3f));
    }
    *o = q;
}

/* Length of a valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, const unsigned char *end) {
    unsigned char b = s[0];
    size_t n = b < 0xc2 ? 0 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : b < 0xf5 ? 4 : 0;
    if (!n || s + n > end) return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (b == 0xe0 && s[1] < 0xa0) return 0; /* overlong */
    if (b == 0xf0 && s[1] < 0x90) return 0;
    if (b == 0xf4 && s[1] > 0x8f) return 0;
    if (b == 0xed && s[1] > 0x9f) return 0; /* surrogates */
    return n;
}

size_t Js_decode(const Tok *t, char *out) {
    const unsigned char *s = (const unsigned char *)t->p, *end = s + t->n;
    char *o = out;
    while (s < end) {
        if (*s == '\\') {
            char e = (char)s[1];
            s += 2;
            switch (e) {
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'n': *o++ = '\n'; break;
            case 'r': *o++ = '\r'; break;
            case 't': *o++ = '\t'; break;
            case 'u': {
                uint32_t cp = (uint32_t)(hexv((char)s[0]) << 12 | hexv((char)s[1]) << 8 | hexv((char)s[2]) << 4 |
                                         hexv((char)s[3]));
                s += 4;
                if (cp >= 0xd800 && cp < 0xdc00 && s + 6 <= end && s[0] == '\\' && s[1] == 'u') {
                    uint32_t lo = (uint32_t)(hexv((char)s[2]) << 12 | hexv((char)s[3]) << 8 |
                                             hexv((char)s[4]) << 4 | hexv((char)s[5]));
                    if (lo >= 0xdc00 && lo < 0xe000) {
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        s += 6;
                    }
                }
                if (cp >= 0xd800 && cp < 0xe000) cp = '?'; /* lone surrogate */
                if (cp == 0) cp = '?';                     /* keep C strings intact */
                put_utf8(&o, cp);
                break;
            }
            default: *o++ = e; break; /* \" \\ \/ */
            }
        } else if (*s < 0x80) {
            *o++ = (char)*s++;
        } else {
            size_t n = utf8_len(s, end);
            if (n) {
                memcpy(o, s, n);
                o += n;
                s += n;
            } else {
                *o++ = '?';
                s++;
            }
        }
    }
    *o = '\0';
    return (size_t)(o - out);
}

bool Js_int(const Tok *t, int64_t *v) {
    /* the exact decimal parser also accepts integral spellings like 7.0 or 1e3 */
    return t->type == TOK_NUMBER && Time_parseDecimal(t->p, t->n, 0, v);
}

static locale_t c_numeric;
static void c_numeric_init(void) { c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0); }

bool Js_double(const Tok *t, double *v) {
    if (t->type != TOK_NUMBER || t->n == 0) return false;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, c_numeric_init);
    if (!c_numeric) return false;
    char small[128];
    char *s = t->n < sizeof small ? small : malloc(t->n + 1); /* long digit strings are legal JSON */
    if (!s) return false;
    memcpy(s, t->p, t->n);
    s[t->n] = '\0';
    char *end;
    double d = strtod_l(s, &end, c_numeric);
    bool ok = end == s + t->n && isfinite(d);
    if (s != small) free(s);
    if (ok) *v = d;
    return ok;
}

const char *Js_guessElement(const char *from, const char *end) {
    for (const char *q = from; q < end; q++) {
        q = memchr(q, '}', (size_t)(end - q));
        if (!q) return NULL;
        const char *r = Js_ws(q + 1, end);
        if (r < end && *r == ',') {
            r = Js_ws(r + 1, end);
            if (r < end && *r == '{') return r;
        }
    }
    return NULL;
}

bool Js_keyIsEscaped(const Tok *k, const char *lit, size_t len) {
    if (k->type != TOK_STRING || k->n / 6 > len) return false; /* decodes to more than len bytes */
    char buf[256], *tmp = k->n < sizeof buf ? buf : xmalloc((size_t)k->n + 1);
    size_t n = Js_decode(k, tmp);
    bool eq = n == len && memcmp(tmp, lit, len) == 0;
    if (tmp != buf) free(tmp);
    return eq;
}

Tok Js_keyDecoded(const Tok *k, char *buf, size_t n) {
    if (k->n >= n) return (Tok){buf, 0, TOK_NONE, false};
    return (Tok){buf, (uint32_t)Js_decode(k, buf), TOK_STRING, false};
}
