/* Fast object skip for the GPU-first load (jsonpeek.h), on 64-byte blocks as simdjson's
 * stage 1 finds structure: per block, bitmasks of quotes, backslashes, brackets and
 * commas (SSE2; AVX2 on request, see JsPeek_setSimd); escaped quotes
 * removed by the odd-backslash-run rule; the bytes inside strings from a prefix XOR of
 * the quotes, carried from block to block. The walk then visits only the quotes and the
 * brackets and commas outside strings, a bit scan each: numbers, literals, whitespace
 * and string contents are never looked at byte by byte, and a nested value (args) is
 * passed a block at a time by counting its brackets. */
#include "jsonpeek.h"

#include <stdint.h>
#include <string.h>

#include "ovtrace/base/bits.h"
#include "ovtrace/read/jsonscan.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PEEK_HAVE_AVX2 1
#endif

/* One 64-byte block's raw masks: bit i is byte i. Brackets: '[' and '{' are 0x5b and
 * 0x7b, ']' and '}' 0x5d and 0x7d, so OR-ing 0x20 finds both of a kind in one compare. */
typedef struct {
    uint64_t quote, bslash, open, close, comma;
} RawMasks;

#ifdef __SSE2__
static inline uint64_t mask16(__m128i x, int sh) { return (uint64_t)(unsigned)_mm_movemask_epi8(x) << sh; }

static inline __attribute__((always_inline)) void raw_sse2(const char *p, RawMasks *r) {
    *r = (RawMasks){0, 0, 0, 0, 0};
    const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), c = _mm_set1_epi8(','), lo = _mm_set1_epi8(0x20);
    const __m128i op = _mm_set1_epi8('{'), cl = _mm_set1_epi8('}');
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k)), y = _mm_or_si128(x, lo);
        r->quote |= mask16(_mm_cmpeq_epi8(x, q), 16 * k);
        r->bslash |= mask16(_mm_cmpeq_epi8(x, b), 16 * k);
        r->comma |= mask16(_mm_cmpeq_epi8(x, c), 16 * k);
        r->open |= mask16(_mm_cmpeq_epi8(y, op), 16 * k);
        r->close |= mask16(_mm_cmpeq_epi8(y, cl), 16 * k);
    }
}
#endif

#ifdef PEEK_HAVE_AVX2
__attribute__((target("avx2"))) static inline uint64_t mask32(__m256i x, int sh) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(x) << sh;
}

__attribute__((target("avx2"))) static inline void raw_avx2(const char *p, RawMasks *r) {
    *r = (RawMasks){0, 0, 0, 0, 0};
    const __m256i q = _mm256_set1_epi8('"'), b = _mm256_set1_epi8('\\'), c = _mm256_set1_epi8(',');
    const __m256i lo = _mm256_set1_epi8(0x20), op = _mm256_set1_epi8('{'), cl = _mm256_set1_epi8('}');
    for (int k = 0; k < 2; k++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * k)), y = _mm256_or_si256(x, lo);
        r->quote |= mask32(_mm256_cmpeq_epi8(x, q), 32 * k);
        r->bslash |= mask32(_mm256_cmpeq_epi8(x, b), 32 * k);
        r->comma |= mask32(_mm256_cmpeq_epi8(x, c), 32 * k);
        r->open |= mask32(_mm256_cmpeq_epi8(y, op), 32 * k);
        r->close |= mask32(_mm256_cmpeq_epi8(y, cl), 32 * k);
    }
}
#endif

/* Without SSE2: byte by byte, the same masks. */
static inline void raw_scalar(const char *p, RawMasks *r) {
    *r = (RawMasks){0, 0, 0, 0, 0};
    for (int i = 0; i < 64; i++) {
        uint64_t bit = (uint64_t)1 << i;
        char ch = p[i];
        if (ch == '"') r->quote |= bit;
        if (ch == '\\') r->bslash |= bit;
        if (ch == ',') r->comma |= bit;
        if ((ch | 0x20) == '{') r->open |= bit;
        if ((ch | 0x20) == '}') r->close |= bit;
    }
}

/* A block as the walk sees it. */
typedef struct {
    const char *at;    /* its first byte in the input */
    uint64_t quote;    /* unescaped quotes */
    uint64_t in_str;   /* bytes inside strings: an opening quote is in, a closing one out */
    uint64_t open, close, comma; /* outside strings */
    uint64_t bs_in;    /* backslashes inside strings */
    uint64_t stray;    /* backslashes outside strings: not JSON, where the object holds one */
} Block;

typedef struct {
    const char *end;
    uint64_t esc_carry, str_carry; /* from the previous block: escaped first byte, inside a string (all ones) */
} Scan;

/* The block at `at` (before end). The last, short block is read from a copy padded with
 * blanks (never past end). */
static inline __attribute__((always_inline)) void load_block(Scan *s, const char *at, Block *b, int level) {
    size_t n = (size_t)(s->end - at);
    const char *src = at;
    char pad[64];
    if (n < 64) {
        memset(pad, ' ', sizeof pad);
        memcpy(pad, at, n);
        src = pad;
    }
    RawMasks r;
#ifdef PEEK_HAVE_AVX2
    if (level == 2) raw_avx2(src, &r);
    else
#endif
#ifdef __SSE2__
        if (level == 1)
        raw_sse2(src, &r);
    else
#endif
        raw_scalar(src, &r);
    uint64_t esc = Bits_escaped(r.bslash, &s->esc_carry);
    uint64_t quote = r.quote & ~esc;
    uint64_t in_str = Bits_prefixXor(quote) ^ s->str_carry;
    s->str_carry = (uint64_t)((int64_t)in_str >> 63);
    b->at = at;
    b->quote = quote;
    b->in_str = in_str;
    b->open = r.open & ~in_str;
    b->close = r.close & ~in_str;
    b->comma = r.comma & ~in_str;
    b->bs_in = r.bslash & in_str;
    b->stray = r.bslash & ~in_str;
}

static inline uint64_t from_bit(int i) { return i >= 64 ? 0 : ~0ull << i; }

/* The top-level members JsPeek reads; M_OTHER is every other key. */
typedef enum { M_OTHER, M_PH, M_CAT, M_TS, M_DUR, M_PID, M_TID, M__COUNT } Member;

/* A key as its length and first three bytes (a two-byte key's third is its closing
 * quote), so the six names are found by compares without branches: keys come in an
 * order that varies from event to event, which a branch per name would mispredict. */
static inline uint32_t key_code(uint32_t n, char a, char b, char c) {
    return n << 24 | (uint32_t)(unsigned char)c << 16 | (uint32_t)(unsigned char)b << 8 | (unsigned char)a;
}

static inline Member member_of(const char *k, size_t n) {
    if (n < 2 || n > 3) return M_OTHER; /* k[2] exists: a byte of the key or its closing quote */
    uint32_t x = key_code((uint32_t)n, k[0], k[1], k[2]);
    return (Member)((x == key_code(2, 'p', 'h', '"')) * M_PH + (x == key_code(3, 'c', 'a', 't')) * M_CAT +
                    (x == key_code(2, 't', 's', '"')) * M_TS + (x == key_code(3, 'd', 'u', 'r')) * M_DUR +
                    (x == key_code(3, 'p', 'i', 'd')) * M_PID + (x == key_code(3, 't', 'i', 'd')) * M_TID);
}

/* The last value of each member read: written for every member (M_OTHER's slot is
 * scratch), read once the object ends. */
typedef enum { V_ABSENT, V_STRING, V_SCALAR, V_CONTAINER } ValueKind;
typedef struct {
    const char *v, *e; /* a string's contents; a scalar's text from the key's closing quote to its ',' or '}' */
    ValueKind kind;
} Slot;

static inline bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* A scalar's text with the colon and blanks around it left out. */
static void trim(const Slot *s, const char **v, size_t *n) {
    const char *a = s->v, *e = s->e;
    while (a < e && (blank(*a) || *a == ':')) a++;
    while (e > a && blank(e[-1])) e--;
    *v = a;
    *n = (size_t)(e - a);
}

/* pid or tid: a number or a string (a string is a key of its own); else the loader
 * rejects it. */
static bool id_bad(const Slot *s) {
    if (s->kind == V_CONTAINER) return true;
    if (s->kind != V_SCALAR) return false;
    const char *v;
    size_t n;
    trim(s, &v, &n);
    return !(n && (*v == '-' || (*v >= '0' && *v <= '9')));
}

/* JsPeek from the last value of each member. */
static void resolve(const Slot *slot, JsPeek *out) {
    if (slot[M_PH].kind == V_STRING) out->ph = slot[M_PH].v, out->ph_n = (size_t)(slot[M_PH].e - slot[M_PH].v);
    if (slot[M_CAT].kind == V_STRING) out->cat = slot[M_CAT].v, out->cat_n = (size_t)(slot[M_CAT].e - slot[M_CAT].v);
    if (slot[M_TS].kind == V_SCALAR) trim(&slot[M_TS], &out->ts, &out->ts_n);
    out->ts_bad = slot[M_TS].kind == V_STRING || slot[M_TS].kind == V_CONTAINER;
    if (slot[M_DUR].kind == V_SCALAR) trim(&slot[M_DUR], &out->dur, &out->dur_n);
    out->dur_bad = slot[M_DUR].kind == V_STRING || slot[M_DUR].kind == V_CONTAINER;
    out->id_bad = id_bad(&slot[M_PID]) || id_bad(&slot[M_TID]);
}

void JsPeek_members(const JsMember *m, size_t n, JsPeek *out) {
    memset(out, 0, sizeof *out);
    Slot slot[M__COUNT];
    memset(slot, 0, sizeof slot);
    for (size_t i = 0; i < n; i++) {
        if (m[i].depth) continue; /* args' members: inside a nested value */
        const Tok *k = &m[i].key, *v = &m[i].val;
        out->esc |= k->esc;
        Member mb = k->esc ? M_OTHER : member_of(k->p, k->n);
        if (v->type == TOK_STRING) {
            slot[mb] = (Slot){v->p, v->p + v->n, V_STRING};
            out->esc |= v->esc & (mb == M_PH || mb == M_CAT); /* an escaped ph or cat: parse it properly */
        } else if (v->type == TOK_OBJECT || v->type == TOK_ARRAY) {
            slot[mb] = (Slot){NULL, NULL, V_CONTAINER};
        } else {
            slot[mb] = (Slot){v->p, v->p + v->n, V_SCALAR};
        }
    }
    resolve(slot, out);
}

/* Where the walk is: the block, the events of it not yet visited (quotes, and brackets
 * and commas outside strings), and whether a later block failed to load. */
typedef struct {
    Scan s;
    Block b;
    uint64_t todo;
    JsPeekStatus fail; /* JSPEEK_MORE: the input ends; JSPEEK_BAD: a stray backslash */
    int level;
} Walk;

/* The events of a block the walk visits: quotes, and brackets and commas outside strings. */
static inline uint64_t block_events(const Block *b) { return b->quote | b->open | b->close | b->comma; }

static inline __attribute__((always_inline)) bool next_block(Walk *w) {
    if (w->b.stray) { /* the object runs past a stray backslash */
        w->fail = JSPEEK_BAD;
        return false;
    }
    if (w->s.end - w->b.at <= 64) { /* the input ends in this block */
        w->fail = JSPEEK_MORE;
        return false;
    }
    load_block(&w->s, w->b.at + 64, &w->b, w->level);
    w->todo = block_events(&w->b);
    return true;
}

/* The next event's bit in the current block (loading blocks as needed), or -1. */
static inline __attribute__((always_inline)) int next_event(Walk *w) {
    while (__builtin_expect(!w->todo, 0))
        if (!next_block(w)) return -1;
    int i = __builtin_ctzll(w->todo);
    w->todo &= w->todo - 1;
    return i;
}

/* After the opening bracket at bit i of the current block: past its matching closer,
 * counting brackets a block at a time (a block whose closers are fewer than the depth
 * cannot end the value). Returns false when a block fails to load. */
static inline __attribute__((always_inline)) bool skip_nested(Walk *w, int i) {
    size_t depth = 1;
    uint64_t o = w->b.open & from_bit(i + 1), cl = w->b.close & from_bit(i + 1);
    for (;;) {
        if ((size_t)Bits_count64(cl) < depth) {
            depth += (size_t)Bits_count64(o);
            depth -= (size_t)Bits_count64(cl);
        } else {
            for (uint64_t x = o | cl; x; x &= x - 1) {
                int k = __builtin_ctzll(x);
                if (o >> k & 1) {
                    depth++;
                } else if (--depth == 0) {
                    w->todo = block_events(&w->b) & from_bit(k + 1);
                    return true;
                }
            }
        }
        if (!next_block(w)) return false;
        o = w->b.open, cl = w->b.close;
    }
}

/* The string opened by the quote at bit i: the bit of its closing quote (the next
 * event, since nothing inside a string is one), or -1; *esc: a backslash in it. */
static inline __attribute__((always_inline)) int close_string(Walk *w, int i, bool *esc) {
    uint64_t bs = w->b.bs_in & from_bit(i);
    bool e = false;
    while (__builtin_expect(!w->todo, 0)) { /* it runs past the block */
        e |= bs != 0;
        if (!next_block(w)) return -1;
        bs = w->b.bs_in;
    }
    int j = __builtin_ctzll(w->todo);
    w->todo &= w->todo - 1;
    *esc = e || (bs & ~from_bit(j)) != 0;
    return j;
}

/* The object's walk, inlined once per SIMD level: member by member, in straight code,
 * so the branch predictor sees one branch per decision (what kind of value follows the
 * key, whether a comma or the '}' follows the value). */
static inline __attribute__((always_inline)) JsPeekStatus peek_walk(const char *p, const char *end, JsPeek *out,
                                                                     const char **obj_end, int level) {
    memset(out, 0, sizeof *out);
    if (p >= end || *p != '{') return JSPEEK_BAD;
    Walk w = {{end, 0, 0}, {0}, 0, JSPEEK_OK, level};
    load_block(&w.s, p, &w.b, level);
    w.todo = block_events(&w.b) & ~(uint64_t)1; /* past the '{' */
    Slot slot[M__COUNT];
    memset(slot, 0, sizeof slot);
    for (bool first = true;; first = false) {
        /* the key: its opening quote (or the '}' of an empty object) */
        int i = next_event(&w);
        if (i < 0) return w.fail;
        const char *at = w.b.at + i;
        if (*at != '"') {
            if (*at == '}' && first && !(w.b.stray & ~from_bit(i + 1))) {
                *obj_end = at + 1;
                return JSPEEK_OK;
            }
            return JSPEEK_BAD;
        }
        const char *key = at + 1;
        bool esc;
        if ((i = close_string(&w, i, &esc)) < 0) return w.fail;
        at = w.b.at + i;
        out->esc |= esc; /* an escaped key may spell any of them */
        Member m = esc ? M_OTHER : member_of(key, (size_t)(at - key));
        const char *val = at + 1;
        /* the value: a string, a nested value, or a scalar up to the ',' or '}' */
        if ((i = next_event(&w)) < 0) return w.fail;
        at = w.b.at + i;
        char c = *at;
        if (c == '"') {
            const char *str = at + 1;
            if ((i = close_string(&w, i, &esc)) < 0) return w.fail;
            at = w.b.at + i;
            slot[m] = (Slot){str, at, V_STRING};
            out->esc |= esc & (m == M_PH || m == M_CAT); /* an escaped ph or cat: parse it properly */
            if ((i = next_event(&w)) < 0) return w.fail;
            at = w.b.at + i;
        } else if (c == '{' || c == '[') {
            slot[m] = (Slot){NULL, NULL, V_CONTAINER};
            if (!skip_nested(&w, i)) return w.fail;
            if ((i = next_event(&w)) < 0) return w.fail;
            at = w.b.at + i;
        } else if (c == ']') {
            return JSPEEK_BAD;
        } else {
            slot[m] = (Slot){val, at, V_SCALAR}; /* at: the ',' or '}' after it */
        }
        /* after the value: ',' or '}' */
        if (*at == ',') continue;
        if (*at != '}' || (w.b.stray & ~from_bit(i + 1))) return JSPEEK_BAD; /* i: the '}' */
        resolve(slot, out);
        *obj_end = at + 1;
        return JSPEEK_OK;
    }
}

#ifdef PEEK_HAVE_AVX2
__attribute__((target("avx2"))) static JsPeekStatus peek_avx2(const char *p, const char *end, JsPeek *out,
                                                              const char **obj_end) {
    return peek_walk(p, end, out, obj_end, 2);
}
#endif

static JsPeekStatus peek_sse2(const char *p, const char *end, JsPeek *out, const char **obj_end) {
#ifdef __SSE2__
    return peek_walk(p, end, out, obj_end, 1);
#else
    return peek_walk(p, end, out, obj_end, 0);
#endif
}

/* 0: not chosen yet; 1: SSE2 (or bytes, without SSE2); 2: AVX2 */
static _Atomic int peek_level;

/* SSE2 unless AVX2 is asked for: a skim call is one object (~100-300 bytes, a few
 * hundred ns), and on the Intel Xeon the benchmarks ran on, entering and leaving 256-bit
 * code around each call cost more than the wider compares saved (bench/README.md,
 * "GPU-first skim on 64-byte blocks"). */
int JsPeek_setSimd(int level) {
    int most = JsPeek_simdMost();
    peek_level = level <= 0 ? 1 : level > most ? most : level;
    return peek_level;
}

int JsPeek_simdMost(void) {
#ifdef PEEK_HAVE_AVX2
    if (Js_simdMost() >= 2) return 2; /* the scanner's detection: AVX2 (and maybe more) */
#endif
    return 1;
}

JsPeekStatus JsPeek_object(const char *p, const char *end, JsPeek *out, const char **obj_end) {
    int lv = peek_level;
    if (__builtin_expect(lv == 0, 0)) lv = JsPeek_setSimd(0);
#ifdef PEEK_HAVE_AVX2
    if (lv == 2) return peek_avx2(p, end, out, obj_end);
#endif
    return peek_sse2(p, end, out, obj_end);
}
