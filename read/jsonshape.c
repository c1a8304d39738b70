#include "ovtrace/read/jsonshape.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/digits.h"

#define SH_NONE 0xffffu
#define SH_EDGES 2048u        /* edges; every edge but an end opens one node */
#define SH_BYTES (64u << 10)  /* separator bytes */
#define SH_OPS 8192u          /* keys and nest braces inside separators */
#define SH_SEP_MAX 1024u      /* the longest separator learned */
#define SH_PAD 16u            /* separators are compared 16 bytes at a time */
#define SH_LEARN_MAX 128u     /* most members of an object learned */
/* Matching pauses for SH_PAUSE objects when fewer than half of the last SH_WINDOW
 * matched, then starts over with an empty trie. */
#define SH_WINDOW 4096u
#define SH_PAUSE 32768u

static _Atomic bool disabled;
void JsShape_setDisabled(bool off) { disabled = off; }
bool JsShape_disabled(void) { return disabled; }

/* What sits inside a separator, at an offset from its first byte. */
enum {
    OP_KEY0,  /* a member's key at depth 0 */
    OP_KEY1,  /* a member's key at depth 1 */
    OP_NEST,  /* the nest key at depth 0: its value is the object that opens next */
    OP_OPEN,  /* that object's '{' */
    OP_CLOSE, /* its '}' */
};

typedef struct {
    uint16_t off;
    uint8_t len; /* a key's length */
    uint8_t what;
} ShOp;

enum {
    E_END = 1,      /* the object ends with the separator (its last byte is the '}') */
    E_NEST_KEY = 2, /* the value's key is the nest key at depth 0: an object there nests */
};

/* The separator before a value (or before the end), the ops inside it, and the node
 * after the value. The last op of an edge that is no end is its value's key. */
typedef struct {
    uint32_t sep;
    uint16_t sep_n;
    uint16_t op;
    uint8_t n_op;
    uint8_t flags;
    uint16_t next;  /* the node's next edge */
    uint16_t child; /* the node after the value */
} ShEdge;

struct JsShape {
    char *nest;
    size_t nest_n;
    size_t n_nodes, n_edges, n_bytes, n_ops;
    uint64_t tries, hits_in_window; /* for the pause */
    uint64_t pause;
    JsShapeStats st;
    uint16_t first[SH_EDGES + 1]; /* each node's first edge */
    ShEdge edge[SH_EDGES];
    ShOp op[SH_OPS];
    char bytes[SH_BYTES + SH_PAD];
};

static void clear(JsShape *sh) {
    sh->n_nodes = 1;
    sh->n_edges = sh->n_bytes = sh->n_ops = 0;
    sh->first[0] = SH_NONE;
}

JsShape *JsShape_new(const char *nest, size_t nest_n) {
    JsShape *sh = xcalloc(1, sizeof *sh);
    sh->nest = xmalloc(nest_n + 1);
    memcpy(sh->nest, nest, nest_n);
    sh->nest[nest_n] = 0;
    sh->nest_n = nest_n;
    clear(sh);
    return sh;
}

void JsShape_free(JsShape *sh) {
    if (!sh) return;
    free(sh->nest);
    free(sh);
}

bool JsShape_active(const JsShape *sh) { return sh && !disabled && !sh->pause; }

JsShapeStats JsShape_stats(const JsShape *sh) {
    JsShapeStats s = sh->st;
    s.edges = sh->n_edges;
    return s;
}

/* ---------- matching ---------- */

/* Whether p[0..n) (in the window ending at end) is s[0..n); s has SH_PAD readable
 * bytes past n. */
static inline bool sep_eq(const char *p, const char *end, const char *s, size_t n) {
    size_t avail = (size_t)(end - p);
    if (avail < n) return false;
#ifdef __SSE2__
    if (avail >= ((n + 15) & ~(size_t)15)) {
        for (size_t i = 0; i < n; i += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            unsigned neq = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) & 0xffffu;
            if (n - i < 16) neq &= (1u << (n - i)) - 1;
            if (neq) return false;
        }
        return true;
    }
#endif
    return memcmp(p, s, n) == 0;
}

/* The closing quote of the string whose bytes start at p, or NULL when a backslash or
 * a control character comes first or the window ends (stage 2 gives those up too). */
static inline const char *string_end(const char *p, const char *end) {
    p = Js_plainRun(p, end);
    return p < end && *p == '"' ? p : NULL;
}

static inline bool number_byte(char ch) {
    return (unsigned char)(ch - '0') < 10 || ch == '.' || ch == '-' || ch == '+' || ch == 'e' || ch == 'E';
}

/* The end of the number at v when it is one stage 2 reads itself (no exponent, no
 * leading zero before more digits) and a byte follows it in the window; else NULL (the
 * reference scanner reads it). */
static inline const char *plain_end(const char *v, const char *end) {
    const char *p = v + (*v == '-');
    if (p >= end) return NULL;
    if (*p == '0') p++;
    else if ((unsigned char)(*p - '0') < 10) p = Digits_skip(p, end);
    else return NULL;
    if (p >= end) return NULL;
    /* the fraction read whether there is one or not: timestamps have one and the ids
     * between them none, a branch that would mispredict every other number */
    const char *d = p + (*p == '.'), *f = Digits_skip(d, end);
    if (d != p && f == d) return NULL; /* "1." */
    p = d != p ? f : p;                 /* without a '.', digits after a leading 0 stay */
    if (p >= end || number_byte(*p)) return NULL;
    return p;
}

/* The value at v, as stage 2 takes it: strings and plain numbers here, everything else
 * by the reference scanner. False: no value this edge may give (the caller's slower
 * path decides). */
static inline bool value(JsCtx *c, const char *v, bool nest_key, Tok *t, const char **ve) {
    const char *end = c->end;
    if (v >= end) return false;
    char ch = *v;
    if (ch == '"') {
        const char *e = string_end(v + 1, end);
        if (!e) return false;
        *t = (Tok){v + 1, (uint32_t)(e - v - 1), TOK_STRING, false};
        *ve = e + 1;
        return true;
    }
    if ((unsigned char)(ch - '0') < 10 || ch == '-') {
        const char *e = plain_end(v, end);
        if (e) {
            *t = (Tok){v, (uint32_t)(e - v), TOK_NUMBER, false};
            *ve = e;
            return true;
        }
    } else if ((unsigned char)ch <= ' ' || (ch == '{' && nest_key)) {
        return false; /* blanks belong to separators; an object under the nest key nests
                       * (an edge whose separator holds its '{' takes it) */
    }
    const char *pp = v;
    if (Js_value(c, &pp, t) != JS_OK) return false;
    *ve = pp;
    return true;
}

static void count_try(JsShape *sh, bool hit) {
    if (hit) {
        sh->st.hits++;
        sh->hits_in_window++;
    } else {
        sh->st.misses++;
    }
    if (++sh->tries < SH_WINDOW) return;
    if (sh->hits_in_window * 2 < sh->tries) {
        sh->pause = SH_PAUSE;
        sh->st.paused++;
    }
    sh->tries = sh->hits_in_window = 0;
}

bool JsShape_match(JsShape *sh, JsCtx *c, const char *q, JsMember *out, size_t cap, size_t *n_out,
                   const char **after) {
    if (disabled || !sh) return false;
    if (sh->pause) {
        if (--sh->pause == 0) clear(sh); /* start over: the trace may have settled */
        return false;
    }
    if (sh->first[0] == SH_NONE) return false;
    const char *end = c->end, *p = q, *open = NULL;
    size_t m = 0, nest_at = 0;
    uint16_t node = 0;
    for (;;) {
        uint16_t ei = sh->first[node];
        for (; ei != SH_NONE; ei = sh->edge[ei].next) {
            const ShEdge *e = &sh->edge[ei];
            if (!sep_eq(p, end, sh->bytes + e->sep, e->sep_n)) continue;
            size_t m0 = m, nest0 = nest_at;
            const char *open0 = open;
            const ShOp *o = sh->op + e->op;
            for (unsigned k = 0; k < e->n_op; k++, o++) {
                const char *at = p + o->off;
                if (o->what == OP_OPEN) {
                    open = at;
                } else if (o->what == OP_CLOSE) {
                    out[nest_at].val = (Tok){open, (uint32_t)(at + 1 - open), TOK_OBJECT, false};
                } else {
                    if (m == cap) goto miss; /* stage 2 gives up there too */
                    out[m].key = (Tok){at, o->len, TOK_STRING, false};
                    out[m].val = (Tok){0};
                    out[m].depth = o->what == OP_KEY1;
                    if (o->what == OP_NEST) nest_at = m;
                    m++;
                }
            }
            if (e->flags & E_END) {
                *n_out = m;
                *after = p + e->sep_n;
                count_try(sh, true);
                return true;
            }
            const char *ve;
            if (value(c, p + e->sep_n, e->flags & E_NEST_KEY, &out[m - 1].val, &ve)) {
                p = ve;
                node = e->child;
                goto next_node;
            }
            m = m0; /* another edge of this node may still fit */
            nest_at = nest0;
            open = open0;
        }
        goto miss;
    next_node:;
    }
miss:
    count_try(sh, false);
    return false;
}

/* ---------- learning ---------- */

typedef struct {
    const char *at;
    uint8_t len, what;
} PendOp;

typedef struct {
    const char *from, *to; /* the separator */
    size_t op, n_op;       /* its ops in the pending list */
    uint8_t flags;
} PendEdge;

static bool is_nest(const JsShape *sh, const Tok *k) {
    return !k->esc && k->n == sh->nest_n && memcmp(k->p, sh->nest, sh->nest_n) == 0;
}

/* A separator holds blanks, operators and keys: no backslash (keys are learned
 * unescaped) and no control character but blanks. */
static bool plain_separator(const char *s, const char *e) {
    for (; s < e; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\\' || (ch < 0x20 && ch != '\n' && ch != '\r' && ch != '\t')) return false;
    }
    return true;
}

/* The edge of node with separator s[0..n) and the same end flag, or SH_NONE. */
static uint16_t find_edge(const JsShape *sh, uint16_t node, const char *s, size_t n, uint8_t end_flag) {
    for (uint16_t ei = sh->first[node]; ei != SH_NONE; ei = sh->edge[ei].next) {
        const ShEdge *e = &sh->edge[ei];
        if (e->sep_n == n && (e->flags & E_END) == end_flag && memcmp(sh->bytes + e->sep, s, n) == 0) return ei;
    }
    return SH_NONE;
}

/* Adds the pending edges along the trie from the root; false when the trie is full. */
static bool insert(JsShape *sh, const PendEdge *pe, size_t n_pe, const PendOp *po) {
    uint16_t node = 0;
    for (size_t k = 0; k < n_pe; k++) {
        const PendEdge *p = &pe[k];
        size_t n = (size_t)(p->to - p->from);
        uint16_t ei = find_edge(sh, node, p->from, n, p->flags & E_END);
        if (ei == SH_NONE) {
            if (sh->n_edges == SH_EDGES || sh->n_bytes + n > SH_BYTES || sh->n_ops + p->n_op > SH_OPS) return false;
            ei = (uint16_t)sh->n_edges++;
            ShEdge *e = &sh->edge[ei];
            *e = (ShEdge){(uint32_t)sh->n_bytes, (uint16_t)n, (uint16_t)sh->n_ops, (uint8_t)p->n_op, p->flags,
                          SH_NONE, SH_NONE};
            memcpy(sh->bytes + sh->n_bytes, p->from, n);
            sh->n_bytes += n;
            for (size_t j = 0; j < p->n_op; j++) {
                const PendOp *o = &po[p->op + j];
                sh->op[sh->n_ops++] = (ShOp){(uint16_t)(o->at - p->from), o->len, o->what};
            }
            if (!(p->flags & E_END)) {
                e->child = (uint16_t)sh->n_nodes++;
                sh->first[e->child] = SH_NONE;
            }
            /* last in its node's list: the shapes seen first are tried first */
            uint16_t *link = &sh->first[node];
            while (*link != SH_NONE) link = &sh->edge[*link].next;
            *link = ei;
            sh->st.learned++;
        }
        node = sh->edge[ei].child;
    }
    return true;
}

void JsShape_learn(JsShape *sh, const char *q, const JsMember *m, size_t n, const char *after) {
    if (disabled || !sh || sh->pause || n > SH_LEARN_MAX) return;
    PendEdge pe[SH_LEARN_MAX + 1];
    PendOp po[3 * SH_LEARN_MAX]; /* at most three a member: a nest key, its '{' and '}' */
    size_t n_pe = 0, n_po = 0, op0 = 0;
    const char *seg = q, *close = NULL; /* close: the open nest's '}' */
    for (size_t i = 0; i < n; i++) {
        const JsMember *mb = &m[i];
        if (mb->key.esc || mb->key.n > 255 || mb->key.p <= seg) return;
        if (mb->depth == 0 && close) {
            po[n_po++] = (PendOp){close, 0, OP_CLOSE};
            close = NULL;
        }
        if (mb->depth == 0 && mb->val.type == TOK_OBJECT && is_nest(sh, &mb->key)) {
            po[n_po++] = (PendOp){mb->key.p, (uint8_t)mb->key.n, OP_NEST};
            po[n_po++] = (PendOp){mb->val.p, 0, OP_OPEN};
            close = mb->val.p + mb->val.n - 1;
            continue;
        }
        po[n_po++] = (PendOp){mb->key.p, (uint8_t)mb->key.n, mb->depth ? OP_KEY1 : OP_KEY0};
        bool str = mb->val.type == TOK_STRING;
        const char *vs = str ? mb->val.p - 1 : mb->val.p, *ve = mb->val.p + mb->val.n + str;
        if (vs < mb->key.p + mb->key.n) return;
        uint8_t flags = mb->depth == 0 && is_nest(sh, &mb->key) ? E_NEST_KEY : 0;
        pe[n_pe++] = (PendEdge){seg, vs, op0, n_po - op0, flags};
        op0 = n_po;
        seg = ve;
    }
    if (close) po[n_po++] = (PendOp){close, 0, OP_CLOSE};
    pe[n_pe++] = (PendEdge){seg, after, op0, n_po - op0, E_END};
    size_t bytes = 0;
    for (size_t k = 0; k < n_pe; k++) {
        const PendEdge *p = &pe[k];
        if (p->to < p->from || (size_t)(p->to - p->from) > SH_SEP_MAX || p->n_op > 255 ||
            !plain_separator(p->from, p->to))
            return;
        for (size_t j = 0; j < p->n_op; j++)
            if (po[p->op + j].at < p->from || po[p->op + j].at >= p->to) return;
        bytes += (size_t)(p->to - p->from);
    }
    if (bytes > SH_BYTES) return; /* more than the whole trie holds */
    if (insert(sh, pe, n_pe, po)) return;
    clear(sh); /* full: start over with this shape */
    sh->st.resets++;
    insert(sh, pe, n_pe, po);
}
