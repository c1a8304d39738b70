/* Fast object skip for the GPU-first load (jsonpeek.h). Only quotes, brackets and
 * commas stop the scan (16 bytes at a time), and strings stop only at a quote or a
 * backslash: numbers, literals, whitespace and args text are never looked at. */
#include "jsonpeek.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The first structural byte in [p, end) (with strings: a quote or a backslash; else
 * a quote, a bracket or a comma), or end. 16 bytes per step with SSE2, one block's
 * mask walked bit by bit: a skipped Kineto event has about 20 such stops in 120 bytes,
 * so the block is loaded once, not once per stop. */
typedef struct {
    const char *blk; /* the 16-byte block of mask, or NULL */
    unsigned mask;
} Finder;

static inline bool stop_str(char c) { return c == '"' || c == '\\'; }
static inline bool stop_any(char c) {
    return c == '"' || c == '{' || c == '}' || c == '[' || c == ']' || c == ',';
}

static inline const char *find_stop(Finder *f, const char *p, const char *end, bool in_string) {
#ifdef __SSE2__
    for (;;) {
        if (f->blk && p >= f->blk && p < f->blk + 16) {
            /* the rest of the current block: the mask is for "any" stops; in a string
             * only quotes and backslashes count */
            unsigned m = f->mask & (~0u << (p - f->blk));
            while (m) {
                const char *q = f->blk + __builtin_ctz(m);
                if (in_string ? stop_str(*q) : *q != '\\') return q; /* a backslash only counts in strings */
                m &= m - 1;
            }
            p = f->blk + 16;
        }
        if (end - p < 16) break;
        __m128i x = _mm_loadu_si128((const __m128i *)p);
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')),
                                              _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('{')),
                                                           _mm_cmpeq_epi8(x, _mm_set1_epi8('}')))));
        m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('[')), _mm_cmpeq_epi8(x, _mm_set1_epi8(']'))));
        f->blk = p;
        f->mask = (unsigned)_mm_movemask_epi8(m);
    }
#else
    (void)f;
#endif
    for (; p < end; p++)
        if (in_string ? stop_str(*p) : stop_any(*p)) return p;
    return end;
}

/* Just after the closing quote of the string starting at p ('"'), or NULL when it does
 * not end before `end`. *esc tells whether it holds a backslash. */
static const char *skip_string(Finder *f, const char *p, const char *end, bool *esc) {
    p++;
    *esc = false;
    for (;;) {
        p = find_stop(f, p, end, true);
        if (p >= end) return NULL;
        if (*p == '"') return p + 1;
        *esc = true; /* a backslash: skip the escaped byte (a \uXXXX's digits are plain) */
        p += 2;
    }
}

/* The rest of an object once "ph" and "cat" are known: only its end matters. Per
 * 16-byte block without backslashes, the bytes inside strings come from a prefix XOR of
 * the quote mask, and a block whose closers cannot bring the depth to 0 is passed whole;
 * blocks with a backslash (and the tail) go byte by byte. */
static JsPeekStatus skip_rest(const char *p, const char *end, size_t depth, const char **obj_end) {
    bool in_str = false, esc = false;
    for (;;) {
        size_t n = (size_t)(end - p) < 16 ? (size_t)(end - p) : 16;
        if (n == 0) return JSPEEK_MORE;
#ifdef __SSE2__
        if (n == 16 && !esc) {
            __m128i x = _mm_loadu_si128((const __m128i *)p);
            unsigned bs = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
            if (!bs) {
                unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
                unsigned o = (unsigned)_mm_movemask_epi8(
                    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('{')), _mm_cmpeq_epi8(x, _mm_set1_epi8('['))));
                unsigned c = (unsigned)_mm_movemask_epi8(
                    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('}')), _mm_cmpeq_epi8(x, _mm_set1_epi8(']'))));
                unsigned inside = q;
                inside ^= inside << 1;
                inside ^= inside << 2;
                inside ^= inside << 4;
                inside ^= inside << 8;
                inside &= 0xffffu;
                if (in_str) inside = ~inside & 0xffffu;
                o &= ~inside;
                c &= ~inside;
                if (__builtin_popcount(q) & 1) in_str = !in_str;
                if ((size_t)__builtin_popcount(c) < depth) {
                    depth += (size_t)__builtin_popcount(o);
                    depth -= (size_t)__builtin_popcount(c);
                } else {
                    for (unsigned m = o | c; m; m &= m - 1) {
                        int i = __builtin_ctz(m);
                        if (o >> i & 1) depth++;
                        else if (--depth == 0) {
                            *obj_end = p + i + 1;
                            return JSPEEK_OK;
                        }
                    }
                }
                p += 16;
                continue;
            }
        }
#endif
        for (size_t i = 0; i < n; i++) {
            char ch = p[i];
            if (in_str) {
                if (esc) esc = false;
                else if (ch == '\\') esc = true;
                else if (ch == '"') in_str = false;
            } else if (ch == '"') {
                in_str = true;
            } else if (ch == '{' || ch == '[') {
                depth++;
            } else if (ch == '}' || ch == ']') {
                if (--depth == 0) {
                    *obj_end = p + i + 1;
                    return JSPEEK_OK;
                }
            }
        }
        p += n;
    }
}

JsPeekStatus JsPeek_object(const char *p, const char *end, JsPeek *out, const char **obj_end) {
    memset(out, 0, sizeof *out);
    if (p >= end || *p != '{') return JSPEEK_BAD;
    size_t depth = 0;
    /* top level: expecting a key next (after '{' or ','), and the key just read */
    bool want_key = false;
    const char *key = NULL;
    size_t key_n = 0;
    Finder f = {NULL, 0};
    for (;;) {
        /* a value that is not a string ends at ',' or a closer: the key is then reset */
        p = find_stop(&f, p, end, false);
        if (p >= end) break;
        char c = *p;
        if (c == '"') {
            bool esc;
            const char *q = skip_string(&f, p, end, &esc);
            if (!q) return JSPEEK_MORE;
            if (depth == 1 && want_key) {
                if (esc) out->esc = true; /* an escaped key may spell "ph" or "cat" */
                key = esc ? NULL : p + 1;
                key_n = (size_t)(q - p - 2);
                want_key = false;
            } else if (depth == 1 && key) { /* the key's value is a string */
                const char *v = p + 1;
                size_t vn = (size_t)(q - p - 2);
                if (key_n == 2 && !memcmp(key, "ph", 2)) {
                    out->esc |= esc || out->ph;
                    out->ph = v, out->ph_n = vn;
                } else if (key_n == 3 && !memcmp(key, "cat", 3)) {
                    out->esc |= esc || out->cat;
                    out->cat = v, out->cat_n = vn;
                }
                key = NULL;
                /* both known (the first member of a name wins, as in the parser): only
                 * the end is left to find */
                if (out->ph && out->cat) return skip_rest(q, end, depth, obj_end);
            }
            p = q;
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
            if (depth == 1) want_key = true;
            if (depth == 2) key = NULL; /* a container value: not a string */
        } else if (c == '}' || c == ']') {
            if (depth == 0) return JSPEEK_BAD;
            if (--depth == 0) {
                *obj_end = p + 1;
                return JSPEEK_OK;
            }
        } else if (depth == 1) { /* ',' */
            want_key = true;
            key = NULL;
        }
        p++;
    }
    return JSPEEK_MORE;
}
