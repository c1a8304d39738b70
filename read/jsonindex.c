#include "ovtrace/read/jsonindex.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define JI_HAVE_AVX2_PATH 1
#endif

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/bits.h"
#include "ovtrace/base/digits.h"

/* Room past JSINDEX_CHUNK positions: flatten writes eight positions at a time. */
#define POS_SLACK 64u

static _Atomic bool disabled;
void JsIndex_setDisabled(bool off) { disabled = off; }
bool JsIndex_disabled(void) { return disabled; }

void JsIndex_free(JsIndex *ix) {
    free(ix->pos);
    ix->pos = NULL;
    JsIndex_reset(ix);
}

/* ---------- stage 1 ---------- */

/* Byte classes of one 64-byte block, one bit per byte. */
typedef struct {
    uint64_t quote, bslash, blank, op, ctl;
} Classes;

/* What carries from one block to the next. */
typedef struct {
    uint64_t escaped;   /* 1: the next block's first byte follows an odd backslash run */
    uint64_t in_string; /* all ones: the block ends inside a string */
    uint64_t scalar;    /* 1: the block ends inside a run of scalar bytes */
} Carry;

/* The structural positions of a block from its classes (simdjson's stage 1): quotes
 * escaped by an odd run of backslashes are no quotes; the bytes from an opening quote
 * up to its closing quote are in a string (a prefix XOR of the quotes); a scalar starts
 * at a byte outside strings that is no blank, quote or operator and follows none of its
 * kind. Marked: operators outside strings, opening quotes, scalar starts, and backslashes
 * and control characters inside strings (where stage 2 gives up). */
static inline __attribute__((always_inline)) uint64_t structurals(const Classes *k, Carry *cy) {
    uint64_t escaped = Bits_escaped(k->bslash, &cy->escaped);
    uint64_t quote = k->quote & ~escaped;
    uint64_t in_string = Bits_prefixXor(quote) ^ cy->in_string;
    cy->in_string = (uint64_t)((int64_t)in_string >> 63);
    uint64_t scalar = ~(k->op | k->blank | k->quote | in_string);
    uint64_t starts = scalar & ~((scalar << 1) | cy->scalar);
    cy->scalar = scalar >> 63;
    return (k->op & ~in_string) | (quote & in_string) | starts | ((k->bslash | k->ctl) & in_string);
}

/* Keeps the compiler from assembling the eight stores into vector inserts, which costs
 * more than the stores. */
#define JI_SCALAR(x) __asm__("" : "+r"(x))

/* Appends the positions of bits (plus base) at out[n]; returns the new count. Eight
 * at a time without a test per position (out has POS_SLACK spare entries). */
static inline __attribute__((always_inline)) size_t flatten(uint32_t *out, size_t n, uint32_t base, uint64_t bits) {
    if (!bits) return n;
    size_t cnt = (size_t)Bits_count64(bits);
    uint32_t *o = out + n;
    const uint64_t top = 1ull << 63; /* keeps ctz's argument non-zero past the last bit */
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        o[i] = base + (uint32_t)__builtin_ctzll(bits | top);
        bits &= bits - 1;
        JI_SCALAR(bits);
    }
    if (cnt > 8)
#pragma GCC unroll 8
        for (int i = 8; i < 16; i++) {
            o[i] = base + (uint32_t)__builtin_ctzll(bits | top);
            bits &= bits - 1;
            JI_SCALAR(bits);
        }
    if (cnt > 16)
#pragma GCC unroll 8
        for (int i = 16; i < 24; i++) {
            o[i] = base + (uint32_t)__builtin_ctzll(bits | top);
            bits &= bits - 1;
            JI_SCALAR(bits);
        }
    for (size_t i = 24; i < cnt; i++) {
        o[i] = base + (uint32_t)__builtin_ctzll(bits);
        bits &= bits - 1;
    }
    return n + cnt;
}

#ifdef __SSE2__
static inline __attribute__((always_inline)) void classify16(__m128i x, int sh, Classes *k) {
    const __m128i lower = _mm_set1_epi8(0x20), ctl = _mm_set1_epi8(0x1f);
    __m128i folded = _mm_or_si128(x, lower); /* '[' ']' fold onto '{' '}' */
    __m128i op = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')),
                                           _mm_cmpeq_epi8(folded, _mm_set1_epi8('}'))),
                              _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')), _mm_cmpeq_epi8(x, _mm_set1_epi8(':'))));
    __m128i blank = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, lower), _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\t')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\r'))));
    k->quote |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('"'))) << sh;
    k->bslash |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))) << sh;
    k->blank |= (uint64_t)(unsigned)_mm_movemask_epi8(blank) << sh;
    k->op |= (uint64_t)(unsigned)_mm_movemask_epi8(op) << sh;
    k->ctl |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl)) << sh;
}

static inline __attribute__((always_inline)) void classify_sse2(const char *p, Classes *k) {
    *k = (Classes){0};
    for (int i = 0; i < 4; i++) classify16(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)), 16 * i, k);
}
#else
static inline void classify_scalar(const char *p, Classes *k) {
    *k = (Classes){0};
    for (int i = 0; i < 64; i++) {
        unsigned char ch = (unsigned char)p[i];
        uint64_t b = 1ull << i;
        if (ch == '"') k->quote |= b;
        if (ch == '\\') k->bslash |= b;
        if (ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r') k->blank |= b;
        if ((ch | 0x20) == '{' || (ch | 0x20) == '}' || ch == ',' || ch == ':') k->op |= b;
        if (ch < 0x20) k->ctl |= b;
    }
}
#define classify_sse2 classify_scalar
#endif

/* The chunk's last, partial block: blanks after the end (they mark nothing). */
static inline const char *tail_block(char *pad, const char *p, const char *lim) {
    memset(pad, ' ', 64);
    memcpy(pad, p, (size_t)(lim - p));
    return pad;
}

static size_t build_sse2(uint32_t *pos, const char *from, const char *lim) {
    Carry cy = {0, 0, 0};
    size_t n = 0;
    char pad[64];
    for (const char *p = from; p < lim; p += 64) {
        const char *b = lim - p >= 64 ? p : tail_block(pad, p, lim);
        Classes k;
        classify_sse2(b, &k);
        n = flatten(pos, n, (uint32_t)(p - from), structurals(&k, &cy));
    }
    return n;
}

#ifdef JI_HAVE_AVX2_PATH
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) uint64_t
    avx2_mask(__m256i lo_hit, __m256i hi_hit) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(lo_hit) | (uint64_t)(uint32_t)_mm256_movemask_epi8(hi_hit) << 32;
}

/* For each byte value, the offsets (0-7) of its set bits, packed one per byte. */
static uint64_t bit_offsets[256];
static pthread_once_t bit_offsets_once = PTHREAD_ONCE_INIT;
static void bit_offsets_init(void) {
    for (unsigned b = 0; b < 256; b++) {
        uint64_t v = 0;
        for (unsigned bit = 0, k = 0; bit < 8; bit++)
            if (b >> bit & 1) v |= (uint64_t)bit << (8 * k++);
        bit_offsets[b] = v;
    }
}

/* flatten without a branch: eight bits at a time, their offsets from the table widened
 * to eight positions and stored whole, the count advanced by how many were set (the
 * stores past it are overwritten or unused; out has POS_SLACK spare entries). */
__attribute__((target("avx2"))) static inline size_t flatten_avx2(uint32_t *out, size_t n, uint32_t base,
                                                                  uint64_t bits) {
    uint32_t *o = out + n;
    __m256i at = _mm256_set1_epi32((int)base);
    const __m256i eight = _mm256_set1_epi32(8);
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        unsigned byte = (unsigned)(bits >> (8 * k)) & 0xff;
        __m256i v = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)bit_offsets[byte]));
        _mm256_storeu_si256((__m256i *)(void *)o, _mm256_add_epi32(v, at));
        o += Bits_count64(byte);
        at = _mm256_add_epi32(at, eight);
    }
    return (size_t)(o - out);
}

/* Blanks and operators by table lookup (simdjson's): a byte's low nibble picks the one
 * blank or operator it would have to be, and the byte is compared with it ('[' and ']'
 * fold onto '{' and '}'). Two control characters fold onto ',' and ':' (0x0c, 0x1a):
 * taken out, so both levels mark the same positions. */
__attribute__((target("avx2"))) static size_t build_avx2(uint32_t *pos, const char *from, const char *lim) {
    Carry cy = {0, 0, 0};
    size_t n = 0;
    char pad[64];
    const __m256i blank_table = _mm256_setr_epi8(' ', 100, 100, 100, 17, 100, 113, 2, 100, '\t', '\n', 112, 100, '\r',
                                                 100, 100, ' ', 100, 100, 100, 17, 100, 113, 2, 100, '\t', '\n', 112,
                                                 100, '\r', 100, 100);
    const __m256i op_table = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ':', '{', ',', '}', 0, 0, 0, 0, 0, 0, 0, 0,
                                              0, 0, 0, 0, ':', '{', ',', '}', 0, 0);
    const __m256i lower = _mm256_set1_epi8(0x20), ctl = _mm256_set1_epi8(0x1f), quote = _mm256_set1_epi8('"'),
                  bslash = _mm256_set1_epi8('\\');
    for (const char *p = from; p < lim; p += 64) {
        const char *b = lim - p >= 64 ? p : tail_block(pad, p, lim);
        __m256i x[2], h[5][2];
        for (int i = 0; i < 2; i++) {
            x[i] = _mm256_loadu_si256((const __m256i *)(const void *)(b + 32 * i));
            h[0][i] = _mm256_cmpeq_epi8(x[i], quote);
            h[1][i] = _mm256_cmpeq_epi8(x[i], bslash);
            h[2][i] = _mm256_cmpeq_epi8(x[i], _mm256_shuffle_epi8(blank_table, x[i]));
            h[3][i] = _mm256_cmpeq_epi8(_mm256_or_si256(x[i], lower), _mm256_shuffle_epi8(op_table, x[i]));
            h[4][i] = _mm256_cmpeq_epi8(_mm256_max_epu8(x[i], ctl), ctl);
        }
        Classes k = {avx2_mask(h[0][0], h[0][1]), avx2_mask(h[1][0], h[1][1]), avx2_mask(h[2][0], h[2][1]),
                     avx2_mask(h[3][0], h[3][1]), avx2_mask(h[4][0], h[4][1])};
        k.op &= ~k.ctl;
        n = flatten_avx2(pos, n, (uint32_t)(p - from), structurals(&k, &cy));
    }
    return n;
}
/* AVX-512: the classes straight into 64-bit masks, and the positions written sixteen
 * at a time by compressing the block's byte offsets (VBMI2) and widening them. */
#define JI_AVX512 "avx512f,avx512bw,avx512vbmi2"
__attribute__((target(JI_AVX512))) static size_t build_avx512(uint32_t *pos, const char *from, const char *lim) {
    static const uint8_t iota[64] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                     16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                                     32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                                     48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
    Carry cy = {0, 0, 0};
    size_t n = 0;
    char pad[64];
    const __m512i blank_table = _mm512_broadcast_i32x4(
        _mm_setr_epi8(' ', 100, 100, 100, 17, 100, 113, 2, 100, '\t', '\n', 112, 100, '\r', 100, 100));
    const __m512i op_table =
        _mm512_broadcast_i32x4(_mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ':', '{', ',', '}', 0, 0));
    const __m512i lower = _mm512_set1_epi8(0x20), ctl = _mm512_set1_epi8(0x1f), quote = _mm512_set1_epi8('"'),
                  bslash = _mm512_set1_epi8('\\'), offsets = _mm512_loadu_si512(iota);
    for (const char *p = from; p < lim; p += 64) {
        const char *b = lim - p >= 64 ? p : tail_block(pad, p, lim);
        __m512i x = _mm512_loadu_si512(b);
        Classes k;
        k.quote = _mm512_cmpeq_epi8_mask(x, quote);
        k.bslash = _mm512_cmpeq_epi8_mask(x, bslash);
        k.blank = _mm512_cmpeq_epi8_mask(x, _mm512_shuffle_epi8(blank_table, x));
        k.ctl = _mm512_cmple_epu8_mask(x, ctl);
        k.op = _mm512_cmpeq_epi8_mask(_mm512_or_si512(x, lower), _mm512_shuffle_epi8(op_table, x)) & ~k.ctl;
        uint64_t bits = structurals(&k, &cy);
        __m512i at = _mm512_maskz_compress_epi8(bits, offsets);
        __m512i base = _mm512_set1_epi32((int)(p - from));
        uint32_t *o = pos + n;
        _mm512_storeu_si512(o, _mm512_add_epi32(base, _mm512_cvtepu8_epi32(_mm512_castsi512_si128(at))));
        _mm512_storeu_si512(o + 16, _mm512_add_epi32(base, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(at, 1))));
        size_t cnt = (size_t)Bits_count64(bits);
        if (cnt > 32) {
            _mm512_storeu_si512(o + 32, _mm512_add_epi32(base, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(at, 2))));
            _mm512_storeu_si512(o + 48, _mm512_add_epi32(base, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(at, 3))));
        }
        n += cnt;
    }
    return n;
}
#endif

void JsIndex_build(JsIndex *ix, const char *from, const char *end) {
    if (!ix->pos) ix->pos = xmalloc(((size_t)JSINDEX_CHUNK + POS_SLACK) * sizeof *ix->pos);
    const char *lim = end - from > (ptrdiff_t)JSINDEX_CHUNK ? from + JSINDEX_CHUNK : end;
    ix->origin = from;
    ix->lim = lim;
    ix->cur = 0;
#ifdef JI_HAVE_AVX2_PATH
    int level = Js_simd();
    if (level == 3) {
        ix->n = build_avx512(ix->pos, from, lim);
        return;
    }
    if (level == 2) {
        pthread_once(&bit_offsets_once, bit_offsets_init);
        ix->n = build_avx2(ix->pos, from, lim);
        return;
    }
#endif
    ix->n = build_sse2(ix->pos, from, lim);
}

/* ---------- stage 2 ---------- */

typedef enum { W_OK, W_FAIL, W_OUT } Walk;

/* The last byte before p that is no blank (the caller knows there is one: the quote
 * or scalar a marked position follows). */
static inline const char *before_blanks(const char *p) {
    do p--;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t');
    return p;
}

/* Whether [s, e) is a number without exponent, as Js_number reads it (others go to
 * the reference scanner). The byte at e is a blank or an operator. */
static inline bool plain_number(const char *s, const char *e, const char *wend) {
    const char *p = s + (*s == '-');
    if (p >= e) return false;
    if (*p == '0') p++;
    else if ((unsigned char)(*p - '0') < 10) p = Digits_skip(p, wend);
    else return false;
    if (p < e && *p == '.') {
        const char *d = ++p;
        p = Digits_skip(p, wend);
        if (p == d) return false;
    }
    return p == e;
}

/* The object whose '{' is position i. W_OUT: the positions ran out before its end. */
static Walk walk(JsIndex *ix, JsCtx *c, size_t i, const char *nest, size_t nest_n, JsMember *out, size_t cap,
                 size_t *n_out, const char **after) {
    const char *o = ix->origin;
    const uint32_t *pos = ix->pos;
    size_t n = ix->n, m = 0, parent = 0;
    const char *inner = NULL; /* '{' of the nested object being walked */
    uint8_t depth = 0;
#define AT(k) (o + pos[k])
    if (++i >= n) return W_OUT;
    const char *p = AT(i);
    if (*p == '}') goto close;
    for (;;) {
        /* p at a member's key: its closing quote is the last byte before the ':' that
         * follows it, but for blanks (bytes between would be marked) */
        if (*p != '"') return W_FAIL;
        if (i + 2 >= n) return W_OUT; /* ':' and the value */
        const char *e = AT(i + 1);
        if (*e != ':') return W_FAIL;
        e = e[-1] == '"' ? e - 1 : before_blanks(e);
        if (*e != '"' || e == p) return W_FAIL;
        if (m == cap) return W_FAIL;
        JsMember *mb = &out[m++];
        mb->key = (Tok){p + 1, (uint32_t)(e - p - 1), TOK_STRING, false};
        mb->depth = depth;
        i += 2;
        const char *v = AT(i);
        if (*v == '"') {
            /* likewise before the ',' or '}' after it (checked below) */
            if (i + 1 >= n) return W_OUT;
            e = AT(i + 1);
            e = e[-1] == '"' ? e - 1 : before_blanks(e);
            if (*e != '"' || e == v) return W_FAIL;
            mb->val = (Tok){v + 1, (uint32_t)(e - v - 1), TOK_STRING, false};
            i++;
        } else if (*v == '{' && depth == 0 && mb->key.n == nest_n && memcmp(mb->key.p, nest, nest_n) == 0) {
            depth = 1;
            parent = m - 1;
            inner = v;
            if (++i >= n) return W_OUT;
            p = AT(i);
            if (*p == '}') goto close;
            continue;
        } else if ((unsigned char)(*v - '0') < 10 || *v == '-') {
            /* a number: it ends where the blanks before the next position begin */
            if (i + 1 >= n) return W_OUT;
            const char *ve = before_blanks(AT(i + 1)) + 1;
            if (!plain_number(v, ve, c->end)) goto reference;
            mb->val = (Tok){v, (uint32_t)(ve - v), TOK_NUMBER, false};
            i++;
        } else {
        reference:;
            /* other scalars and containers: the reference scanner */
            const char *ve = v;
            if (Js_value(c, &ve, &mb->val) != JS_OK) return W_FAIL;
            i++;
            if (*v == '{' || *v == '[') {
                while (i < n && AT(i) < ve) i++;
            } else if (i < n && AT(i) != Js_ws(ve, c->end)) {
                return W_FAIL; /* bytes after the scalar that belong to no token */
            }
        }
    after_value:
        if (i >= n) return W_OUT;
        p = AT(i);
        if (*p == ',') {
            if (++i >= n) return W_OUT;
            p = AT(i);
            continue;
        }
        if (*p != '}') return W_FAIL;
    close:
        if (depth == 1) {
            out[parent].val = (Tok){inner, (uint32_t)(p + 1 - inner), TOK_OBJECT, false};
            depth = 0;
            i++;
            goto after_value;
        }
        ix->cur = i + 1;
        *n_out = m;
        *after = p + 1;
        return W_OK;
    }
#undef AT
}

/* The index of the position at q, or n when q is not one. */
static size_t seek(const JsIndex *ix, const char *q) {
    uint32_t off = (uint32_t)(q - ix->origin);
    size_t i = ix->cur;
    /* the object after the last one, past its ',' */
    if (i < ix->n && ix->pos[i] == off) return i;
    if (i + 1 < ix->n && ix->pos[i + 1] == off) return i + 1;
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->pos[mid] < off) lo = mid + 1;
        else hi = mid;
    }
    return lo < ix->n && ix->pos[lo] == off ? lo : ix->n;
}

bool JsIndex_object(JsIndex *ix, JsCtx *c, const char *q, const char *nest, size_t nest_n, JsMember *out,
                    size_t cap, size_t *n_out, const char **after) {
    if (disabled || q >= c->end || *q != '{') return false;
    for (int round = 0; round < 2; round++) {
        size_t i = ix->origin && q >= ix->origin && q < ix->lim && ix->lim <= c->end ? seek(ix, q) : ix->n;
        if (i >= ix->n) {
            JsIndex_build(ix, q, c->end);
            i = 0;
        }
        Walk w = walk(ix, c, i, nest, nest_n, out, cap, n_out, after);
        if (w != W_OUT) return w == W_OK;
        /* the chunk ends inside the object: index again from it, unless it already
         * starts there or ends where the window does */
        if (ix->origin == q || ix->lim == c->end) return false;
        JsIndex_reset(ix);
    }
    return false;
}

/* ---------- the reference, for tests and the fuzz target ---------- */

typedef struct {
    const char *nest;
    size_t nest_n;
    JsMember *out;
    size_t cap, m;
    uint8_t depth;
} RefCtx;

static JsStatus ref_member(JsCtx *c, void *ctx, const Tok *key, const char **pp) {
    RefCtx *x = ctx;
    if (x->m == x->cap) return Js_fail(c, *pp, "no more members than the caller holds");
    JsMember *mb = &x->out[x->m++];
    mb->key = *key;
    mb->depth = x->depth;
    const char *a = *pp;
    if (x->depth == 0 && *a == '{' && !key->esc && key->n == x->nest_n && memcmp(key->p, x->nest, x->nest_n) == 0) {
        x->depth = 1;
        JsStatus st = Js_members(c, pp, ref_member, x);
        x->depth = 0;
        mb->val = (Tok){a, (uint32_t)(*pp - a), TOK_OBJECT, false};
        return st;
    }
    return Js_value(c, pp, &mb->val);
}

JsStatus JsIndex_reference(JsCtx *c, const char **pp, const char *nest, size_t nest_n, JsMember *out, size_t cap,
                           size_t *n_out) {
    RefCtx x = {nest, nest_n, out, cap, 0, 0};
    JsStatus st = Js_members(c, pp, ref_member, &x);
    *n_out = x.m;
    return st;
}
