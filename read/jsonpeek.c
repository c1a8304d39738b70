/* Fast object skip for the GPU-first load (jsonpeek.h). Only quotes, brackets and
 * commas stop the scan (16 bytes at a time), and strings stop only at a quote or a
 * backslash: numbers, literals and whitespace are never looked at (a number's text is
 * handed to the loader), and nested values (args) are passed in 16-byte blocks. */
#include "jsonpeek.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The first structural byte in [p, end) (with strings: a quote or a backslash; else
 * a quote, a bracket or a comma), or end. 16 bytes per step with SSE2: a block's two
 * masks (stops inside a string, stops outside) are made once and each stop is one
 * bit scan, so a skipped Kineto event's ~20 stops in 120 bytes cost one load per block,
 * and the commas and brackets inside a kernel's long name are never visited. */
typedef struct {
    const char *blk;        /* the 16-byte block of the masks, or NULL */
    unsigned in_str, out_str; /* its stops inside a string ("\), outside (quote, {}[],) */
} Finder;

static inline bool stop_str(char c) { return c == '"' || c == '\\'; }
static inline bool stop_any(char c) {
    return c == '"' || c == '{' || c == '}' || c == '[' || c == ']' || c == ',';
}

/* inlined into each caller: the scan stops ~30 times in a Kineto event */
static inline __attribute__((always_inline)) const char *find_stop(Finder *f, const char *p, const char *end,
                                                                    bool in_string) {
#ifdef __SSE2__
    for (;;) {
        if (f->blk && p >= f->blk && p < f->blk + 16) {
            unsigned m = (in_string ? f->in_str : f->out_str) & (~0u << (p - f->blk));
            if (m) return f->blk + __builtin_ctz(m);
            p = f->blk + 16;
        }
        if (end - p < 16) break;
        __m128i x = _mm_loadu_si128((const __m128i *)p);
        __m128i quote = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
        __m128i s = _mm_or_si128(quote, _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
        __m128i o = _mm_or_si128(_mm_or_si128(quote, _mm_cmpeq_epi8(x, _mm_set1_epi8(','))),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('{')), _mm_cmpeq_epi8(x, _mm_set1_epi8('}'))));
        o = _mm_or_si128(o, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('[')), _mm_cmpeq_epi8(x, _mm_set1_epi8(']'))));
        f->blk = p;
        f->in_str = (unsigned)_mm_movemask_epi8(s);
        f->out_str = (unsigned)_mm_movemask_epi8(o);
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
static inline __attribute__((always_inline)) const char *skip_string(Finder *f, const char *p, const char *end,
                                                                      bool *esc) {
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

/* Bits set in a 16-bit mask, without the libgcc call __builtin_popcount becomes where
 * the target may lack POPCNT. */
static inline unsigned pop16(unsigned x) {
    x = x - ((x >> 1) & 0x5555u);
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0f0fu;
    return (x + (x >> 8)) & 0x1fu;
}

/* The rest of a nested value (depth levels open at p): only its end matters. Per
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
                if (pop16(q) & 1) in_str = !in_str;
                if ((size_t)pop16(c) < depth) {
                    depth += (size_t)pop16(o);
                    depth -= (size_t)pop16(c);
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

/* The top-level members JsPeek reads. */
typedef enum { M_OTHER, M_PH, M_CAT, M_TS, M_DUR, M_ID } Member;

static Member member_of(const char *k, size_t n) {
    switch (n) {
    case 2: return !memcmp(k, "ph", 2) ? M_PH : !memcmp(k, "ts", 2) ? M_TS : M_OTHER;
    case 3:
        return !memcmp(k, "cat", 3)   ? M_CAT
               : !memcmp(k, "dur", 3) ? M_DUR
               : !memcmp(k, "pid", 3) || !memcmp(k, "tid", 3) ? M_ID
                                                                : M_OTHER;
    default: return M_OTHER;
    }
}

static inline bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* A member's value that is neither a string nor a container: the text between the
 * key's closing quote (v) and the ',' or '}' (e) that ends it, colon and blanks left out. */
static void scalar_value(JsPeek *out, Member m, const char *v, const char *e) {
    while (v < e && (blank(*v) || *v == ':')) v++;
    while (e > v && blank(e[-1])) e--;
    switch (m) {
    case M_PH: out->ph = NULL; break; /* the last "ph" is not a string */
    case M_CAT: out->cat = NULL; break;
    case M_TS: out->ts = v, out->ts_n = (size_t)(e - v), out->ts_bad = false; break;
    case M_DUR: out->dur = v, out->dur_n = (size_t)(e - v), out->dur_bad = false; break;
    case M_ID: out->id_bad |= !(v < e && (*v == '-' || (*v >= '0' && *v <= '9'))); break;
    case M_OTHER: break;
    }
}

/* A string value of member m (its contents [v, v + n), escaped or not). */
static void string_value(JsPeek *out, Member m, const char *v, size_t n, bool esc) {
    switch (m) {
    case M_PH: out->ph = v, out->ph_n = n, out->esc |= esc; break;
    case M_CAT: out->cat = v, out->cat_n = n, out->esc |= esc; break;
    case M_TS: out->ts = NULL, out->ts_bad = true; break;
    case M_DUR: out->dur = NULL, out->dur_bad = true; break;
    case M_ID: break; /* a string pid or tid is a key of its own */
    case M_OTHER: break;
    }
}

/* A container value of member m: none of the members read may be one. */
static void container_value(JsPeek *out, Member m) {
    switch (m) {
    case M_PH: out->ph = NULL; break;
    case M_CAT: out->cat = NULL; break;
    case M_TS: out->ts = NULL, out->ts_bad = true; break;
    case M_DUR: out->dur = NULL, out->dur_bad = true; break;
    case M_ID: out->id_bad = true; break;
    case M_OTHER: break;
    }
}

JsPeekStatus JsPeek_object(const char *p, const char *end, JsPeek *out, const char **obj_end) {
    memset(out, 0, sizeof *out);
    if (p >= end || *p != '{') return JSPEEK_BAD;
    p++;
    /* expecting a key next (after '{' or ','); the member whose value comes next (from
     * the key's closing quote on, val), and whether that value was a string */
    bool want_key = true, have_key = false, had_string = false;
    Member m = M_OTHER;
    const char *val = NULL;
    Finder f = {NULL, 0, 0};
    for (;;) {
        p = find_stop(&f, p, end, false);
        if (p >= end) break;
        char c = *p;
        if (c == '"') {
            bool esc;
            const char *q = skip_string(&f, p, end, &esc);
            if (!q) return JSPEEK_MORE;
            if (want_key) {
                out->esc |= esc; /* an escaped key may spell any of them */
                m = esc ? M_OTHER : member_of(p + 1, (size_t)(q - p - 2));
                val = q;
                want_key = false;
                have_key = true;
                had_string = false;
            } else if (have_key) {
                string_value(out, m, p + 1, (size_t)(q - p - 2), esc);
                had_string = true;
            }
            p = q;
            continue;
        }
        if (c == '{' || c == '[') { /* a nested value: passed whole */
            if (have_key) container_value(out, m);
            have_key = false;
            const char *q;
            JsPeekStatus st = skip_rest(p + 1, end, 1, &q);
            if (st != JSPEEK_OK) return st;
            p = q;
            continue;
        }
        if (c == ']') return JSPEEK_BAD;
        /* ',' or '}' ends the value */
        if (have_key && !had_string) scalar_value(out, m, val, p);
        have_key = false;
        if (c == '}') {
            *obj_end = p + 1;
            return JSPEEK_OK;
        }
        want_key = true;
        p++;
    }
    return JSPEEK_MORE;
}
