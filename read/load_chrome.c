/* Chrome Trace Event Format loader. The input is scanned once, event by event, by
 * the validating scanner in jsonscan.c; only the fields the model needs are
 * extracted. Compressed input is decompressed into a sliding window, so memory
 * beyond the model stays bounded by the largest single event. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "ovtrace/read/jsonscan.h"
#include "ovtrace/read/jsonindex.h"
#include "ovtrace/read/jsonshape.h"
#include "ovtrace/read/mapguard.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/base/hash.h"
#include "ovtrace/base/map.h"
#include "ovtrace/read/input.h"
#include "ovtrace/read/load.h"
#include "ovtrace/model/timeunits.h"
#include "slabfeed.h"
#include "jsonpeek.h"

#define WINDOW_MIN (4u << 20)
#define PROGRESS_EVERY (8u << 20)
/* A worker publishes its progress and looks for an abort every this many bytes. */
#define WORKER_PUBLISH_EVERY (64u << 10)
#define MEMORY_EVENT "[memory]"
#define MAX_TOKEN_DEFAULT (256ull << 20)

/* The GPU-first load skims each object (JsPeek) to pass over those without a GPU event.
 * Where nearly every event is a kernel (simulator ranks) the skim finds nothing to pass
 * over and only adds its cost to the full parse that follows, so the skim is measured
 * on windows of SKIM_WINDOW objects, and after a window in which it passed over fewer
 * than one in four it rests for SKIM_REST objects before it is tried again. Either way
 * the same events are kept: parse_event defers what the skim would have passed over. */
#define SKIM_WINDOW 256u
#define SKIM_REST (16u * SKIM_WINDOW)
typedef struct {
    uint32_t seen, passed, rest;
} SkimRate;

/* The last pid (or tid) text and its key: a thread's events come in runs, so most
 * events repeat the previous one's ids, and comparing a few bytes costs less than
 * parsing a number or hashing a string. */
#define ID_MEMO_MAX 16
typedef struct {
    char txt[ID_MEMO_MAX];
    uint8_t n, type; /* type: the Tok's; TOK_NONE = empty */
    int64_t key;
} IdMemo;

/* Numeric args of a counter event ("ph":"C") or of a Kineto "[memory]" instant: every
 * one is kept (no limit on the number of series), in the loader's growable arrays. */
typedef struct {
    Tok ph, cat, name, pid, tid, ts, dur, id, bp, args;
    Tok a_device, a_stream, a_corr, a_name, a_labels, a_sort;
    int n_series;
} RawEvent;

/* The open B events of one thread. B and E pair up by (pid, tid), as the format says,
 * not by lane: a B's args may put it on a GPU stream while its E carries no args. */
typedef struct {
    int64_t pid, tid;
    size_t *ev; /* open B events (indices into t->events) */
    size_t n, cap;
} OpenStack;

struct Split;

typedef struct {
    Trace *t;
    const char *path;
    uint32_t source;
    Input *in;
    JsCtx js;
    /* window */
    const char *buf;
    size_t len;
    uint64_t base; /* stream offset of buf[0] */
    bool eof;
    char *own;
    size_t cap;
    uint64_t lines_before; /* newlines in data already dropped from the window */
    uint64_t cols_before;  /* bytes of the window's first line that were dropped */
    /* scratch */
    char *scratch;
    size_t scratch_cap;
    Tok *series_key, *series_val; /* RawEvent.n_series of each */
    size_t series_cap, series_vcap;
    OpenStack *stacks;
    size_t n_stacks, stacks_cap;
    U64Map stack_ids; /* hash of (pid, tid) -> index into stacks */
    size_t n_loaded;
    size_t n_deferred; /* gpu_only: events left to the full load */
    SkimRate skim;     /* gpu_only: whether skimming objects pays (skim_pays) */
    IdMemo pid_memo, tid_memo;
    uint64_t next_progress;
    const LoadOptions *opt;
    /* top-level metadata, accumulated as the text of one JSON object */
    char *meta;
    size_t meta_len, meta_cap;
    /* "baseTimeNanoseconds" (the last one): the source's times are relative to it */
    int64_t base_ns;
    uint64_t base_off; /* where its value starts, for the warning when it cannot apply */
    bool base_bad;     /* present but not an integer number of ns */
    bool cancelled;
    /* parallel parsing of a mapped file (see parallel_start) */
    bool worker;          /* parsing one slice of the event array for another loader */
    struct Split *slice;  /* worker: the slice it parses (progress, abort) */
    bool be_unsafe;       /* worker saw B/E pairs that may cross its slice */
    const char *stop_at;  /* worker: stop at this element start */
    struct SplitPool *pool; /* main, mapped file: speculative slices and their threads */
    SlabFeed *feed;       /* main, compressed input: slabs parsed by workers */
    bool peek;            /* main: the next refill reads a little (see slab_adopt) */
    size_t next_split;    /* main: the first slice of the pool it has not reached */
    bool mapped;          /* main: buf is the input file's mapping */
    const char *released; /* main, mapped: the pages before it were given back (release_behind) */
    bool parallel_ok;     /* main: may start workers when it reaches the event array */
    int threads;
    uint64_t max_token;   /* largest single value the window may hold (--max-token) */
    uint64_t trunc_off;   /* ST_TRUNC: stream offset after the last complete element */
    char fatal[384];      /* an error found below the parser (a value over max_token) */
    /* stage 2's structural index (jsonindex.h), valid for the window at (ix_buf, ix_base) */
    JsIndex ix;
    const char *ix_buf;
    uint64_t ix_base;
    JsShape *shape; /* GPU-first load: the event shapes seen so far (jsonshape.h) */
} Loader;

typedef enum { ST_OK, ST_ERR, ST_TRUNC, ST_STOP } LoopStatus;

/* A slice of the event array parsed speculatively on another thread. Its start is a
 * guess ('{' after "},"): only if the main parser lands exactly on it is the guess a
 * real element boundary, and only then are the worker's events adopted. */
typedef struct Split {
    const char *at, *stop;
    atomic_int state; /* SPLIT_*: who parses it (mapped files' slices) */
    Trace *t;
    const char *end; /* where the worker stopped */
    bool usable;
    _Atomic uint64_t done;   /* bytes parsed, for progress */
    _Atomic uint64_t events; /* events parsed, for progress */
    const char *path;
    const LoadOptions *opt;
    const char *map;
    size_t map_len;
    uint64_t base;          /* stream offset of map[0] (compressed input: a slab) */
    uint64_t lines, tail;   /* slab slices: newlines in [at, end), bytes after the last */
    atomic_int abort;
    atomic_int *abort_slab; /* slab slices: set when the main parser passed it */
} Split;

/* A mapped file's slices and the threads that take them in turn (parallel_start). */
typedef struct SplitPool {
    Split *s;
    size_t n;
    atomic_size_t cursor; /* the next slice a thread looks at */
    pthread_mutex_t mu;   /* with cv: a slice became SPLIT_DONE */
    pthread_cond_t cv;
    pthread_t *th;
    struct PoolThread *arg; /* per thread */
    int n_th;
} SplitPool;

/* ---------- window management ---------- */

/* Line and column bookkeeping for bytes that leave the window unparsed by us: a line
 * count and the length of the last (unfinished) line. */
static void pass_lines(Loader *L, uint64_t newlines, uint64_t tail) {
    L->lines_before += newlines;
    L->cols_before = newlines ? tail : L->cols_before + tail;
}

/* Newlines in p[0..n) and the bytes after the last one (all n without one). */
static uint64_t text_lines(const char *p, size_t n, uint64_t *tail) {
    const char *nl = n ? memrchr(p, '\n', n) : NULL;
    *tail = nl ? (uint64_t)(p + n - nl - 1) : n;
    return nl ? Js_countNewlines(p, n) : 0;
}

static void pass_text(Loader *L, const char *p, size_t n) {
    uint64_t tail, lines = text_lines(p, n, &tail);
    pass_lines(L, lines, tail);
}

/* After a byte offset of a compressed input: the offsets count the JSON's bytes, not the file's. */
static const char *of_json(const Loader *L) {
    return L->in && Input_compression(L->in) != COMP_NONE ? " of the decompressed JSON" : "";
}

/* The error for a single value over --max-token, starting at stream offset off. */
static void too_big(const Loader *L, uint64_t off, char *err, size_t errlen) {
    snprintf(err, errlen,
             "%s: byte %" PRIu64 "%s: a single JSON value is larger than the --max-token limit (%" PRIu64
             " bytes); raise it if the trace is genuine",
             L->path, off, of_json(L), L->max_token);
}

/* Keeps bytes from keep onward and appends more input. Returns false at end of input. */
static bool window_refill(Loader *L, const char **keep_ptr, const char **other) {
    if (L->eof || L->fatal[0]) return false;
    size_t keep = (size_t)(*keep_ptr - L->buf);
    size_t tail = L->len - keep;
    if (tail > L->max_token) { /* one value would need more memory than allowed */
        const char *v = Js_ws(*keep_ptr, L->buf + L->len);
        too_big(L, L->base + (uint64_t)(v - L->buf), L->fatal, sizeof L->fatal);
        return false;
    }
    pass_text(L, L->buf, keep);
    if (L->own != L->buf) abort(); /* refill only happens on owned windows */
    memmove(L->own, L->own + keep, tail);
    L->base += keep;
    if (tail + WINDOW_MIN / 2 > L->cap) { /* one event bigger than the window: grow */
        /* to no more than the limit needs (the limit is over tail, so this still grows) */
        L->cap = L->cap * 2 < L->max_token + WINDOW_MIN ? L->cap * 2 : (size_t)(L->max_token + WINDOW_MIN);
        L->own = xrealloc(L->own, L->cap);
    }
    size_t got = tail;
    while (got < L->cap) {
        /* after a slab slice, read a little first: the rest of the slab is mostly the
         * next slice, which the parser takes without reading it */
        size_t want = L->peek && L->cap - got > 4096 ? 4096 : L->cap - got;
        L->peek = false;
        ssize_t r = L->feed ? SlabFeed_read(L->feed, L->own + got, want) : Input_read(L->in, L->own + got, want);
        if (r < 0) return false;
        if (r == 0) {
            L->eof = true;
            break;
        }
        got += (size_t)r;
        /* a slab at a time: the parser takes slices as it meets them; but at least as
         * much new data as kept, so a value spanning many slabs is rescanned a
         * logarithmic number of times, not once per slab */
        if (L->feed && got - tail >= tail) break;
    }
    ptrdiff_t delta_other = other ? *other - *keep_ptr : 0;
    L->buf = L->own;
    L->len = got;
    L->js.end = L->buf + L->len;
    *keep_ptr = L->buf;
    if (other) *other = L->buf + delta_other;
    return true;
}

static void line_col(Loader *L, uint64_t off, uint64_t *line, uint64_t *col) {
    /* off is inside the current window (errors are found there) */
    uint64_t ln = L->lines_before + 1, c = 1 + L->cols_before;
    size_t upto = off >= L->base ? (size_t)(off - L->base) : 0;
    if (upto > L->len) upto = L->len;
    for (size_t i = 0; i < upto; i++) {
        if (L->buf[i] == '\n') {
            ln++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = ln;
    *col = c;
}

static bool syntax_error(Loader *L, char *err, size_t errlen) {
    uint64_t off = L->base + (uint64_t)(L->js.err_at - L->buf), line, col;
    line_col(L, off, &line, &col);
    const char *p = L->js.err_at;
    char got[16];
    if (p >= L->buf + L->len)
        snprintf(got, sizeof got, "end of data");
    else if ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f)
        snprintf(got, sizeof got, "'%c'", *p);
    else
        snprintf(got, sizeof got, "byte 0x%02x", (unsigned char)*p);
    snprintf(err, errlen, "%s: byte %" PRIu64 "%s (line %" PRIu64 ", column %" PRIu64 "): expected %s, found %s",
             L->path, off, of_json(L), line, col, L->js.expected, got);
    return false;
}

/* ---------- small field helpers ---------- */

static inline bool tok_eqn(const Tok *t, const char *s, size_t n) {
    return t->type == TOK_STRING && t->n == n && memcmp(t->p, s, n) == 0;
}
static bool tok_eq(const Tok *t, const char *s) { return tok_eqn(t, s, strlen(s)); }
/* literal comparisons on the hot path: the length is known at compile time */
#define TOK_IS(t, lit) tok_eqn((t), (lit), sizeof(lit) - 1)

static char *scratch(Loader *L, size_t n) {
    GROW(L->scratch, L->scratch_cap, n + 1);
    return L->scratch;
}

static uint32_t intern_tok(Loader *L, const Tok *t) {
    if (t->type != TOK_STRING) return 0;
    bool plain = !t->esc;
    uint32_t i = 0;
    for (uint64_t w, hi = 0; plain && i + 8 <= t->n; i += 8) { /* any byte >= 0x80? */
        memcpy(&w, t->p + i, 8);
        hi |= w;
        plain = !(hi & 0x8080808080808080ULL);
    }
    for (; plain && i < t->n; i++) plain = (unsigned char)t->p[i] < 0x80;
    if (plain) return StrTab_intern(L->t->strings, t->p, t->n);
    char *s = scratch(L, t->n);
    size_t n = Js_decode(t, s);
    return StrTab_intern(L->t->strings, s, n);
}

static void skip_event(Loader *L, uint64_t off, const char *reason) {
    TraceDiag *d = &L->t->diag;
    if (d->skipped++ == 0) {
        d->first_skip_offset = off;
        d->first_skip_path = xstrdup(L->path);
        snprintf(d->first_skip_reason, sizeof d->first_skip_reason, "%s", reason);
    }
}

/* pid/tid: non-negative numbers as-is, strings become stable negative keys. */
static bool id_key_of(Loader *L, const Tok *t, int64_t *out) {
    if (t->type == TOK_NONE) {
        *out = 0;
        return true;
    }
    if (t->type == TOK_NUMBER) {
        if (Js_int(t, out) && *out >= 0) return true;
        /* Negative keys encode strings, so a negative or beyond-int64 number is keyed by
         * its text: distinct from every other id, and shown as written. */
        *out = Trace_stringKey(L->t, t->p, t->n);
        return true;
    }
    if (t->type == TOK_STRING) {
        *out = Trace_stringKey(L->t, t->p, t->n);
        return true;
    }
    return false;
}

/* id_key_of through m: the same text (and type) as last time has the same key. */
static bool id_key(Loader *L, const Tok *t, int64_t *out, IdMemo *m) {
    bool memo = (t->type == TOK_NUMBER || t->type == TOK_STRING) && t->n <= ID_MEMO_MAX;
    if (memo && m->type == t->type && m->n == t->n && memcmp(m->txt, t->p, t->n) == 0) {
        *out = m->key;
        return true;
    }
    if (!id_key_of(L, t, out)) return false;
    if (memo) {
        memcpy(m->txt, t->p, t->n);
        m->n = (uint8_t)t->n;
        m->type = (uint8_t)t->type;
        m->key = *out;
    }
    return true;
}

/* Trailing integer of "stream 7", "GPU 3"; or the number itself. */
static bool id_number(const Tok *t, int64_t *out) {
    if (t->type == TOK_NUMBER) return Js_int(t, out);
    if (t->type != TOK_STRING) return false;
    uint32_t e = t->n;
    while (e && t->p[e - 1] == ' ') e--;
    uint32_t b = e;
    while (b && t->p[b - 1] >= '0' && t->p[b - 1] <= '9') b--;
    if (b == e || e - b > 18) return false;
    return Time_parseDecimal(t->p + b, e - b, 0, out);
}

static EventKind kind_of(const Tok *cat, char ph) {
    if (ph == 'i' || ph == 'I' || ph == 'R' || ph == 'n') return KIND_INSTANT;
    if (ph == 'C') return KIND_COUNTER;
#define C(s, k) {s, sizeof(s) - 1, k}
    static const struct { const char *cat; size_t n; EventKind k; } M[] = {
        C("kernel", KIND_KERNEL),          C("cpu_op", KIND_CPU_OP),
        C("cuda_runtime", KIND_RUNTIME),   C("gpu_memcpy", KIND_MEMCPY),
        C("gpu_memset", KIND_MEMSET),      C("cuda_driver", KIND_DRIVER),
        C("python_function", KIND_PYTHON), C("user_annotation", KIND_ANNOTATION),
        C("gpu_user_annotation", KIND_GPU_ANNOTATION), C("cuda_sync", KIND_SYNC),
        C("Kernel", KIND_KERNEL),          C("Memcpy", KIND_MEMCPY),
        C("Memset", KIND_MEMSET),          C("Operator", KIND_CPU_OP),
        C("operator", KIND_CPU_OP),        C("Runtime", KIND_RUNTIME),
        C("Trace", KIND_ANNOTATION),       C("gpu_op", KIND_KERNEL),
    };
#undef C
    if (cat->type != TOK_STRING) return KIND_OTHER;
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++)
        if (cat->n == M[i].n && memcmp(cat->p, M[i].cat, M[i].n) == 0) return M[i].k;
    return KIND_OTHER;
}

/* The GPU-first load (LoadOptions.gpu_only) keeps metadata and the events that land on
 * GPU lanes: exactly those add_event would put there. */
static bool gpu_only(const Loader *L) { return L->opt && L->opt->gpu_only; }
static bool keeps_gpu(const Tok *cat, char ph) {
    return ph == 'M' || ((ph == 'X' || ph == 'B' || ph == 'E') && EventKind_isGpu(kind_of(cat, ph)));
}

/* GPU-first load: what a passed-over event will span in the full model, so that the
 * GPU-first model gets the same t_min (the origin of every relative time on screen) and
 * t_max. The checks are add_event's: an event it would skip spans nothing. `values`:
 * for a counter, how many of its series hold a number (a counter with none adds no
 * event). */
typedef struct {
    const char *ts, *dur; /* number text, or NULL (absent or not a number) */
    size_t ts_n, dur_n;
    bool dur_given; /* "dur" present (a non-number then skips the event) */
    bool ids_ok;    /* pid and tid are numbers, strings or absent */
    int values;
} DeferredTime;

static void defer_extent(Loader *L, char ph, const DeferredTime *d) {
    if (!strchr("XBEiIRnC", ph) || !d->ids_ok || !d->ts) return;
    int64_t ts, dur = 0;
    if (!Time_parseMicros(d->ts, d->ts_n, &ts) || !Time_inModel(ts)) return;
    if (d->dur_given && (!d->dur || !Time_parseMicros(d->dur, d->dur_n, &dur) || dur < 0 || dur >= TIME_LIMIT_NS - ts))
        return;
    if (ph == 'C' && d->values == 0) return;
    /* an E is taken to end a B (a stray one, which the full load skips, only makes
     * t_max later here: the origin, t_min, is exact) */
    if (ph == 'E') Trace_deferExtent(L->t, INT64_MAX, ts);
    else Trace_deferExtent(L->t, ts, ph == 'X' ? ts + dur : ts);
}

/* GPU-first load: true when the object at q (found by JsPeek) certainly holds no GPU
 * event, so it is passed over without being built (its errors, if any, are reported by
 * the full load); its span is noted. Anything unusual (no "ph", escapes) is left to
 * parse_event, and so are counters, whose series decide whether they add an event. */
static bool peek_skips(Loader *L, const JsPeek *pk) {
    if (pk->esc || !pk->ph || pk->ph_n != 1 || pk->ph[0] == 'C') return false;
    Tok cat = {pk->cat, (uint32_t)pk->cat_n, pk->cat ? TOK_STRING : TOK_NONE, false};
    if (keeps_gpu(&cat, pk->ph[0])) return false;
    DeferredTime d = {pk->ts, pk->dur, pk->ts_n, pk->dur_n, pk->dur || pk->dur_bad, !pk->id_bad, 0};
    defer_extent(L, pk->ph[0], &d);
    return true;
}

/* GPU-first load: whether to skim the next object (see SkimRate). */
static bool skim_pays(Loader *L) {
    if (!gpu_only(L)) return false;
    SkimRate *r = &L->skim;
    if (r->rest) {
        r->rest--;
        return false;
    }
    return true;
}

/* Counts one skimmed object, passed over or not; rests after a window that passed over
 * too few. */
static void skim_count(Loader *L, bool passed) {
    SkimRate *r = &L->skim;
    r->passed += passed;
    if (++r->seen < SKIM_WINDOW) return;
    if (r->passed < SKIM_WINDOW / 4) r->rest = SKIM_REST;
    r->seen = r->passed = 0;
}

static bool is_p2p(const Trace *t, uint32_t name) {
    const char *s = StrTab_get(t->strings, name);
    return strstr(s, "PtoP") || strstr(s, "Peer") || strstr(s, "P2P");
}

/* ---------- event object ---------- */

static void set_tok(Tok *dst, const Tok *src) {
    *dst = *src; /* of two equal keys the last counts, as in JSON.parse, browsers and Perfetto */
}

/* The member callbacks compare keys decoded (Js_keyPlain): only keys of up to 21 bytes
 * are looked for, so a 128-byte buffer loses none. */
#define KEY_BUF 128

typedef struct {
    Loader *L;
    RawEvent *ev;
    bool counter;
} EventCtx;

/* The series of a counter's args that already has key k (decoded), or -1. Keys
 * repeat only in odd files, and a counter has few series: a linear look, bounded so
 * that a hostile counter of many series stays linear (past the bound a repeated key is
 * kept twice). */
#define SERIES_DEDUP_MAX 64
static int series_find(Loader *L, const RawEvent *ev, const Tok *k) {
    if (ev->n_series == 0 || ev->n_series > SERIES_DEDUP_MAX) return -1;
    char *s = scratch(L, (size_t)k->n + 1);
    size_t n = Js_decode(k, s);
    for (int i = 0; i < ev->n_series; i++)
        if (Js_keyIsn(&L->series_key[i], s, n)) return i;
    return -1;
}

/* A member of a counter's args: a number is a series (the last of two equal keys
 * counts, in the first one's place, as JSON.parse orders them); anything else under a
 * series' key removes it. */
static void add_series(Loader *L, RawEvent *ev, const Tok *key, const Tok *v) {
    int i = series_find(L, ev, key);
    if (i >= 0 && v->type != TOK_NUMBER) {
        memmove(&L->series_key[i], &L->series_key[i + 1], (size_t)(ev->n_series - i - 1) * sizeof *L->series_key);
        memmove(&L->series_val[i], &L->series_val[i + 1], (size_t)(ev->n_series - i - 1) * sizeof *L->series_val);
        ev->n_series--;
        return;
    }
    if (v->type != TOK_NUMBER) return;
    if (i >= 0) {
        L->series_val[i] = *v;
        return;
    }
    GROW(L->series_key, L->series_cap, (size_t)ev->n_series + 1);
    GROW(L->series_val, L->series_vcap, (size_t)ev->n_series + 1);
    L->series_key[ev->n_series] = *key; /* raw: decoded when the series is named */
    L->series_val[ev->n_series++] = *v;
}

/* One member of args, its value scanned: what the loader keeps of it. */
JS_INLINE void arg_field(EventCtx *x, const Tok *key, const Tok *v) {
    RawEvent *ev = x->ev;
    char buf[KEY_BUF];
    Tok k = Js_keyPlain(key, buf, sizeof buf);
    switch (k.n) { /* by length first: most args are none of these */
    case 4:
        if (TOK_IS(&k, "name")) set_tok(&ev->a_name, v);
        break;
    case 6:
        if (TOK_IS(&k, "device")) set_tok(&ev->a_device, v);
        else if (TOK_IS(&k, "stream")) set_tok(&ev->a_stream, v);
        else if (TOK_IS(&k, "labels")) set_tok(&ev->a_labels, v);
        break;
    case 10:
        if (TOK_IS(&k, "sort_index")) set_tok(&ev->a_sort, v);
        break;
    case 11:
        if (TOK_IS(&k, "correlation")) set_tok(&ev->a_corr, v);
        break;
    default: break;
    }
    if (x->counter) add_series(x->L, ev, key, v);
}

JS_INLINE JsStatus arg_member(JsCtx *c, void *ctx, const Tok *key, const char **pp) {
    Tok v;
    JsStatus st = Js_value(c, pp, &v);
    if (st) return st;
    arg_field(ctx, key, &v);
    return JS_OK;
}

static JsStatus parse_args(Loader *L, const char **pp, RawEvent *ev, bool counter) {
    EventCtx x = {L, ev, counter};
    return Js_members(&L->js, pp, arg_member, &x);
}

static void forget_args(RawEvent *ev) {
    ev->a_device = ev->a_stream = ev->a_corr = ev->a_name = ev->a_labels = ev->a_sort = ev->args = (Tok){0};
    ev->n_series = 0;
}

/* Whether the event is a counter, whose numeric args are its series: by its ph or its
 * name, as far as the members before args said. */
static inline bool counter_so_far(const RawEvent *ev) {
    return (ev->ph.type == TOK_STRING && ev->ph.n == 1 && ev->ph.p[0] == 'C') || TOK_IS(&ev->name, MEMORY_EVENT);
}

/* One top-level member of an event other than an args object: what the loader keeps. */
JS_INLINE void event_field(RawEvent *ev, const Tok *k, const Tok *v) {
    switch (k->n ? k->p[0] : 0) {
    case 'p':
        if (TOK_IS(k, "ph")) set_tok(&ev->ph, v);
        else if (TOK_IS(k, "pid")) set_tok(&ev->pid, v);
        break;
    case 't':
        if (TOK_IS(k, "ts")) set_tok(&ev->ts, v);
        else if (TOK_IS(k, "tid")) set_tok(&ev->tid, v);
        break;
    case 'n':
        if (TOK_IS(k, "name")) set_tok(&ev->name, v);
        break;
    case 'c':
        if (TOK_IS(k, "cat")) set_tok(&ev->cat, v);
        break;
    case 'd':
        if (TOK_IS(k, "dur")) set_tok(&ev->dur, v);
        break;
    case 'i':
        if (TOK_IS(k, "id")) set_tok(&ev->id, v);
        break;
    case 'b':
        if (TOK_IS(k, "bp")) set_tok(&ev->bp, v);
        break;
    default: break;
    }
}

JS_INLINE JsStatus event_member(JsCtx *c, void *ctx, const Tok *key, const char **pp) {
    EventCtx *x = ctx;
    RawEvent *ev = x->ev;
    char buf[KEY_BUF];
    Tok k = Js_keyPlain(key, buf, sizeof buf);
    const char *a = *pp;
    if (TOK_IS(&k, "args")) forget_args(ev); /* the last "args" counts: forget an earlier one's */
    if (*a == '{' && TOK_IS(&k, "args")) {
        bool counter = counter_so_far(ev);
        JsStatus st = parse_args(x->L, pp, ev, counter);
        if (st) return st;
        ev->args = (Tok){a, (uint32_t)(*pp - a), TOK_OBJECT, false};
        /* args may precede ph; counters then need a second look at args */
        if (!counter) ev->n_series = -1;
        return JS_OK;
    }
    Tok v;
    JsStatus st = Js_value(c, pp, &v);
    if (st) return st;
    event_field(ev, &k, &v);
    return JS_OK;
}

/* Most members an event may have for stage 2 (jsonindex.h), args' included; an event
 * with more goes through the member loop. */
#define FAST_MEMBERS 64

/* The members stage 2 found, taken as event_member and arg_member take them, in the
 * same order (its keys are never escaped: they are their own decoded form). */
static void apply_members(Loader *L, RawEvent *ev, const JsMember *m, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const Tok *k = &m[i].key;
        if (!TOK_IS(k, "args")) {
            event_field(ev, k, &m[i].val);
            continue;
        }
        forget_args(ev);
        if (m[i].val.type != TOK_OBJECT) continue; /* not an object: nothing of it is kept */
        /* an args object: its members follow at depth 1 */
        EventCtx x = {L, ev, counter_so_far(ev)};
        size_t obj = i;
        for (; i + 1 < n && m[i + 1].depth == 1; i++) arg_field(&x, &m[i + 1].key, &m[i + 1].val);
        ev->args = m[obj].val;
        /* args may precede ph; counters then need a second look at args */
        if (!x.counter) ev->n_series = -1;
    }
}

/* Parses the event object at *pp ('{'). Top-level keys only; args one level deep.
 * Stage 2 first (jsonindex.h) when `indexed`; anything it leaves goes through the member
 * loop, from the same byte, so errors and results are the member loop's. */
static JsStatus parse_event(Loader *L, const char **pp, RawEvent *ev, bool indexed) {
    memset(ev, 0, sizeof *ev);
    if (!indexed) {
        EventCtx x = {L, ev, false};
        return Js_members(&L->js, pp, event_member, &x);
    }
    if (L->ix_buf != L->buf || L->ix_base != L->base) { /* the window moved */
        JsIndex_reset(&L->ix);
        L->ix_buf = L->buf;
        L->ix_base = L->base;
    }
    JsMember m[FAST_MEMBERS];
    size_t n;
    const char *after;
    if (JsIndex_object(&L->ix, &L->js, *pp, "args", 4, m, FAST_MEMBERS, &n, &after)) {
        apply_members(L, ev, m, n);
        *pp = after;
        return JS_OK;
    }
    EventCtx x = {L, ev, false};
    return Js_members(&L->js, pp, event_member, &x);
}

/* GPU-first load: the object at q split into its members without stage 2's index
 * (which would cover the 64 KB ahead, mostly passed over): by a known shape, or else by
 * the member loop, whose members teach the shape. False: neither applies (the trie is
 * paused, the object is not plain JSON or reaches the window's end, a top-level key is
 * escaped); the skim then decides from JsPeek. */
static bool skim_split(Loader *L, const char *q, JsMember *m, size_t *n, const char **oe) {
    if (JsShape_disabled()) return false;
    if (!L->shape) L->shape = JsShape_new("args", 4);
    if (JsShape_match(L->shape, &L->js, q, m, FAST_MEMBERS, n, oe)) return true;
    if (!JsShape_active(L->shape)) return false;
    const char *e = q;
    if (JsIndex_reference(&L->js, &e, "args", 4, m, FAST_MEMBERS, n) != JS_OK) return false;
    for (size_t i = 0; i < *n; i++)
        if (m[i].depth == 0 && m[i].key.esc) return false; /* apply_members compares keys raw */
    JsShape_learn(L->shape, q, m, *n, e);
    *oe = e;
    return true;
}

/* ---------- turning a parsed event into model events ---------- */

static uint64_t thread_key(int64_t pid, int64_t tid) {
    return Hash_u64((uint64_t)pid) ^ (uint64_t)tid;
}

/* The open-B stack of thread (pid, tid); created empty when `create`, else NULL if the
 * thread has none. */
static OpenStack *stack_for(Loader *L, int64_t pid, int64_t tid, bool create) {
    if (!L->stack_ids.slots) {
        if (!create) return NULL;
        U64Map_init(&L->stack_ids, 16);
    }
    uint64_t key = thread_key(pid, tid);
    size_t pos = U64Map_start(&L->stack_ids, key);
    for (uint32_t v; (v = U64Map_next(&L->stack_ids, key, &pos)) != U64MAP_NONE;)
        if (L->stacks[v].pid == pid && L->stacks[v].tid == tid) return &L->stacks[v];
    if (!create) return NULL;
    GROW(L->stacks, L->stacks_cap, L->n_stacks + 1);
    OpenStack *s = &L->stacks[L->n_stacks];
    *s = (OpenStack){.pid = pid, .tid = tid};
    U64Map_add(&L->stack_ids, key, (uint32_t)L->n_stacks++);
    return s;
}

static void free_stacks(Loader *L) {
    for (size_t i = 0; i < L->n_stacks; i++) free(L->stacks[i].ev);
    free(L->stacks);
    U64Map_free(&L->stack_ids);
}

/* E closes the innermost open B of its thread. */
static void close_b(Loader *L, int64_t pid, int64_t tid, int64_t ts, uint64_t off) {
    OpenStack *s = stack_for(L, pid, tid, false);
    if ((!s || s->n == 0) && L->worker) { /* its B may be in an earlier slice */
        L->be_unsafe = true;
        return;
    }
    if (!s || s->n == 0) {
        skip_event(L, off, "\"E\" without a matching \"B\"");
        return;
    }
    TraceEvent *b = &L->t->events[s->ev[--s->n]];
    b->dur = ts >= b->ts ? ts - b->ts : 0;
    b->flags &= ~EVF_NO_DUR;
}

static void meta_append(Loader *L, const char *s, size_t n) {
    GROW(L->meta, L->meta_cap, L->meta_len + n + 2);
    memcpy(L->meta + L->meta_len, s, n);
    L->meta_len += n;
    L->meta[L->meta_len] = '\0';
}

static void handle_meta(Loader *L, const RawEvent *ev, int64_t pid, int64_t tid) {
    static const struct { const char *name; MetaKind k; } M[] = {
        {"process_name", META_PROCESS_NAME}, {"process_labels", META_PROCESS_LABELS},
        {"process_sort_index", META_PROCESS_SORT}, {"thread_name", META_THREAD_NAME},
        {"thread_sort_index", META_THREAD_SORT},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
        if (!tok_eq(&ev->name, M[i].name)) continue;
        const Tok *v = M[i].k == META_PROCESS_LABELS ? &ev->a_labels
                       : (M[i].k == META_PROCESS_SORT || M[i].k == META_THREAD_SORT) ? &ev->a_sort
                                                                                      : &ev->a_name;
        int64_t num = 0;
        if (v->type == TOK_STRING) {
            char *s = scratch(L, v->n);
            size_t n = Js_decode(v, s);
            Trace_setMeta(L->t, L->source, M[i].k, pid, tid, s, n, 0);
        } else if (Js_int(v, &num)) {
            Trace_setMeta(L->t, L->source, M[i].k, pid, tid, NULL, 0, num);
        }
        return;
    }
}

static uint64_t flow_id(const Tok *t) {
    int64_t v;
    if (t->type == TOK_NUMBER && Js_int(t, &v)) return (uint64_t)v;
    return Hash_fnv1a(HASH_FNV_INIT, t->p, t->n); /* string ids ("0x1f" or anything): hash */
}

/* Kineto's profile_memory=True instants ("[memory]", args "Total Allocated", "Total
 * Reserved", "Bytes", "Device Type", "Device Id") become counter samples, one series per
 * (device, arg), on a lane of their own per device ("[memory] GPU 0", a thread of the
 * event's process) so the viewer draws each as a memory-usage lane. All samples keep
 * the instant's source offset: export writes the object once, unchanged. Returns false
 * when no series was found (the event then stays an instant). */
static bool memory_counters(Loader *L, const RawEvent *ev, const TraceEvent *e, int64_t pid, uint64_t off) {
    static const char *const K[] = {"Total Allocated", "Total Reserved", "Bytes"};
    int64_t dtype = -1, did = -1, v;
    for (int i = 0; i < ev->n_series; i++) {
        if (Js_keyIs(&L->series_key[i], "Device Type") && Js_int(&L->series_val[i], &v)) dtype = v;
        else if (Js_keyIs(&L->series_key[i], "Device Id") && Js_int(&L->series_val[i], &v)) did = v;
    }
    bool known = false;
    for (int i = 0; i < ev->n_series && !known; i++)
        for (size_t k = 0; k < sizeof K / sizeof K[0]; k++) known |= Js_keyIsn(&L->series_key[i], K[k], strlen(K[k]));
    if (!known) return false;
    char dev[64];
    if (dtype == 1) snprintf(dev, sizeof dev, "[memory] GPU %" PRId64, did);
    else if (dtype == 0) snprintf(dev, sizeof dev, "[memory] CPU");
    else snprintf(dev, sizeof dev, "[memory] device %" PRId64 ":%" PRId64, dtype, did);
    size_t nl = L->t->n_lanes;
    uint32_t lane = Trace_cpuLane(L->t, L->source, pid, Trace_stringKey(L->t, dev, strlen(dev)));
    bool any = false;
    for (int i = 0; i < ev->n_series; i++) {
        const char *key = NULL;
        for (size_t k = 0; k < sizeof K / sizeof K[0]; k++)
            if (Js_keyIsn(&L->series_key[i], K[k], strlen(K[k]))) key = K[k];
        double value;
        if (!key) continue;
        if (!Js_double(&L->series_val[i], &value)) {
            skip_event(L, off, "counter value beyond a double's range");
            continue;
        }
        char name[96];
        int n = snprintf(name, sizeof name, "%s %s", dev, key);
        TraceEvent c = *e;
        c.kind = KIND_COUNTER;
        c.lane = lane;
        c.corr = 0;
        c.value = value;
        c.name = StrTab_intern(L->t->strings, name, (size_t)n);
        Trace_append(L->t, &c);
        L->n_loaded++;
        any = true;
    }
    if (L->t->n_lanes != nl) { /* a new lane: name it */
        char tn[64];
        int n = snprintf(tn, sizeof tn, "%s", dev + 9);
        Trace_setMeta(L->t, L->source, META_THREAD_NAME, pid, L->t->lanes[lane].tid, tn, (size_t)n, 0);
    }
    return any;
}

static bool id_ok(const Tok *t) { return t->type == TOK_NONE || t->type == TOK_NUMBER || t->type == TOK_STRING; }

/* defer_extent for an event parse_event built. */
static void defer_parsed(Loader *L, const RawEvent *ev, char ph) {
    bool ts_num = ev->ts.type == TOK_NUMBER, dur_num = ev->dur.type == TOK_NUMBER;
    DeferredTime d = {ts_num ? ev->ts.p : NULL, dur_num ? ev->dur.p : NULL, ev->ts.n, ev->dur.n,
                      ev->dur.type != TOK_NONE, id_ok(&ev->pid) && id_ok(&ev->tid), 0};
    double v;
    for (int i = 0; ph == 'C' && i < ev->n_series && !d.values; i++) d.values += Js_double(&L->series_val[i], &v);
    defer_extent(L, ph, &d);
}

static void add_event(Loader *L, const RawEvent *ev, uint64_t off) {
    char ph = ev->ph.type == TOK_STRING && ev->ph.n == 1 ? ev->ph.p[0] : 0;
    if (!ph) {
        skip_event(L, off, ev->ph.type == TOK_NONE ? "missing \"ph\"" : "\"ph\" is not a one-letter string");
        return;
    }
    if (gpu_only(L) && !keeps_gpu(&ev->cat, ph)) { /* loaded by the full load */
        L->n_deferred++;
        L->t->deferred++;
        defer_parsed(L, ev, ph);
        return;
    }
    int64_t pid, tid;
    if (!id_key(L, &ev->pid, &pid, &L->pid_memo)) {
        skip_event(L, off, "\"pid\" is not a number or string");
        return;
    }
    if (!id_key(L, &ev->tid, &tid, &L->tid_memo)) {
        skip_event(L, off, "\"tid\" is not a number or string");
        return;
    }
    if (ph == 'M') {
        handle_meta(L, ev, pid, tid);
        return;
    }
    if (!strchr("XBEiIRnCstf", ph)) {
        L->t->diag.ignored++;
        return; /* async (b/e), samples (P), objects (N/O/D): not modelled */
    }
    int64_t ts = 0;
    if (ev->ts.type != TOK_NUMBER) {
        skip_event(L, off, ev->ts.type == TOK_NONE ? "missing \"ts\"" : "\"ts\" is not a number");
        return;
    }
    if (!Time_parseMicros(ev->ts.p, ev->ts.n, &ts) || !Time_inModel(ts)) {
        skip_event(L, off, "\"ts\" is out of range (more than 2^62 ns, 146 years, from 0)");
        return;
    }
    int64_t dur = 0;
    if (ev->dur.type != TOK_NONE) {
        if (ev->dur.type != TOK_NUMBER || !Time_parseMicros(ev->dur.p, ev->dur.n, &dur)) {
            skip_event(L, off, "\"dur\" is not a number");
            return;
        }
        if (dur < 0) {
            skip_event(L, off, "negative \"dur\"");
            return;
        }
        if (dur >= TIME_LIMIT_NS - ts) { /* the end would not be in the model's range */
            skip_event(L, off, "\"ts\" + \"dur\" is out of range (more than 2^62 ns, 146 years, from 0)");
            return;
        }
    }
    if (ph == 's' || ph == 't' || ph == 'f') {
        if (ev->id.type != TOK_NUMBER && ev->id.type != TOK_STRING) {
            skip_event(L, off, "flow event without \"id\"");
            return;
        }
        uint32_t cat = intern_tok(L, &ev->cat);
        bool enclosing = ph != 'f' || TOK_IS(&ev->bp, "e");
        Trace_addFlowPoint(L->t, L->source, pid, tid, ts, flow_id(&ev->id), cat, ph, enclosing);
        L->n_loaded++;
        return;
    }
    EventKind kind = kind_of(&ev->cat, ph);
    TraceEvent e = {0};
    e.ts = ts;
    e.src = off;
    e.kind = kind;
    e.name = intern_tok(L, &ev->name);
    if (ph == 'E') { /* closes a B: no event, no lane of its own */
        close_b(L, pid, tid, ts, off);
        return;
    }
    int64_t corr;
    if (ev->a_corr.type == TOK_NUMBER && Js_int(&ev->a_corr, &corr) && corr > 0 && corr <= UINT32_MAX)
        e.corr = (uint32_t)corr;
    if (EventKind_isGpu(kind)) {
        int64_t device, stream;
        if (!id_number(&ev->a_device, &device) && !id_number(&ev->pid, &device)) device = pid;
        if (!id_number(&ev->a_stream, &stream) && !id_number(&ev->tid, &stream)) stream = tid;
        e.lane = Trace_gpuLane(L->t, L->source, device, stream, pid, tid);
        if (kind == KIND_MEMCPY && is_p2p(L->t, e.name)) e.flags |= EVF_MEMCPY_P2P;
    } else {
        e.lane = Trace_cpuLane(L->t, L->source, pid, tid);
    }
    switch (ph) {
    case 'X': e.dur = dur; break;
    case 'B': {
        OpenStack *s = stack_for(L, pid, tid, true);
        e.flags |= EVF_NO_DUR; /* until its E arrives */
        GROW(s->ev, s->cap, s->n + 1);
        s->ev[s->n++] = Trace_append(L->t, &e);
        L->n_loaded++;
        return;
    }
    case 'C': {
        e.kind = KIND_COUNTER;
        for (int i = 0; i < ev->n_series; i++) {
            TraceEvent c = e;
            if (!Js_double(&L->series_val[i], &c.value)) { /* counted, never dropped silently */
                skip_event(L, off, "counter value beyond a double's range");
                continue;
            }
            const char *ename = StrTab_get(L->t->strings, e.name);
            if (ev->n_series > 1 || !Js_keyIsn(&L->series_key[i], ename, strlen(ename))) {
                char *s = scratch(L, ev->name.n + L->series_key[i].n + 2);
                size_t n = 0;
                if (ev->name.type == TOK_STRING) n = Js_decode(&ev->name, s);
                s[n++] = '.';
                n += Js_decode(&L->series_key[i], s + n);
                c.name = StrTab_intern(L->t->strings, s, n);
            }
            Trace_append(L->t, &c);
            L->n_loaded++;
        }
        return;
    }
    default: /* instants: dur 0 */
        if (ev->n_series > 0 && TOK_IS(&ev->name, MEMORY_EVENT) && memory_counters(L, ev, &e, pid, off)) return;
        break;
    }
    Trace_append(L->t, &e);
    L->n_loaded++;
}

/* ---------- top level ---------- */

/* The parsed pages of a mapped file are given back (release_pages), not read again by
 * this load (an error's line count would read them back in): the thread that parsed
 * them drops their page-table entries as it goes, where the main parser's munmap at the
 * end would drop them all, alone, while the other threads wait. The main parser gives
 * back what lies before p once it is `every` bytes or more; a thread, the slice it
 * parsed (split_run). */
#define RELEASE_EVERY (8u << 20)

static void release_behind(Loader *L, const char *p, size_t every) {
    if (!L->mapped || p < L->released || (size_t)(p - L->released) < every) return;
    release_pages(L->released, p);
    L->released = p;
}

/* Reports progress; returns false when the caller asked to cancel. */
static bool progress(Loader *L, const char *p) {
    if (!L->opt) return true;
    if (L->opt->cancel && *L->opt->cancel) {
        L->cancelled = true;
        return false;
    }
    if (L->worker) { /* workers publish bytes done; the main loader reports */
        Split *sp = L->slice;
        uint64_t at = (uint64_t)(p - sp->at);
        if (at < L->next_progress) return true; /* not per event: the line is the pool's */
        L->next_progress = at + WORKER_PUBLISH_EVERY;
        if (atomic_load_explicit(&sp->abort, memory_order_relaxed) ||
            (sp->abort_slab && atomic_load_explicit(sp->abort_slab, memory_order_relaxed)))
            return false;
        atomic_store_explicit(&sp->done, (uint64_t)(p - sp->at), memory_order_relaxed);
        atomic_store_explicit(&sp->events, L->t->n_events, memory_order_relaxed);
        return true;
    }
    if (!L->opt->progress && !L->opt->observe) return true;
    uint64_t done = Input_compression(L->in) == COMP_NONE ? L->base + (uint64_t)(p - L->buf)
                    : L->feed                            ? SlabFeed_compressedOffset(L->feed)
                                                         : Input_fileOffset(L->in);
    if (done < L->next_progress) return true;
    L->next_progress = done + PROGRESS_EVERY;
    uint64_t events = L->t->n_events;
    for (size_t i = L->next_split; L->pool && i < L->pool->n; i++) { /* slices parsed ahead */
        done += atomic_load_explicit(&L->pool->s[i].done, memory_order_relaxed);
        events += atomic_load_explicit(&L->pool->s[i].events, memory_order_relaxed);
    }
    if (L->opt->progress)
        L->opt->progress(L->opt->progress_ctx, L->path, done, Input_fileSize(L->in), (size_t)events);
    if (L->opt->observe) L->opt->observe(L->opt->observe_ctx, L->t);
    return true;
}

/* ---------- parallel slices ---------- */

static LoopStatus event_array(Loader *L, const char **pp, char *err, size_t errlen);

/* event_array on a mapped slice, under a SIGBUS guard (the file may shrink while a
 * worker reads it): a fault makes the slice unusable, and the main parser, reading the
 * same bytes, reports it. */
static LoopStatus guarded_array(Loader *W, const char **pp, char *err, size_t errlen) {
    MapGuard g;
    MapGuard_arm(&g);
    if (sigsetjmp(g.env, 1)) {
        MapGuard_disarm(&g);
        snprintf(err, errlen, "%s: changed while being read", W->path);
        return ST_ERR;
    }
    LoopStatus st = event_array(W, pp, err, errlen);
    MapGuard_disarm(&g);
    return st;
}

static void *worker_main(void *arg) {
    Split *sp = arg;
    Loader W = {0};
    W.slice = sp;
    W.t = Trace_new();
    W.path = sp->path;
    W.opt = sp->opt;
    W.source = Trace_addSource(W.t, sp->path);
    W.buf = sp->map;
    W.len = sp->map_len;
    W.base = sp->base;
    W.eof = true;
    W.js.end = W.buf + W.len;
    W.worker = true;
    W.stop_at = sp->stop;
    /* the same limit as the main parser: a slice with a value over it is left to the
     * main parser, which reports it */
    W.max_token = sp->opt && sp->opt->max_token ? sp->opt->max_token : MAX_TOKEN_DEFAULT;
    char err[256];
    const char *p = sp->at;
    LoopStatus st = guarded_array(&W, &p, err, sizeof err);
    for (size_t i = 0; i < W.n_stacks; i++)
        if (W.stacks[i].n) W.be_unsafe = true; /* a B whose E is in a later slice */
    free_stacks(&W);
    free(W.scratch);
    free(W.series_key);
    free(W.series_val);
    Js_free(&W.js);
    JsIndex_free(&W.ix);
    JsShape_free(W.shape);
    sp->end = p;
    if (sp->abort_slab) sp->lines = text_lines(sp->at, (size_t)(p - sp->at), &sp->tail); /* for error positions */
    /* a slice cut inside its first element holds nothing to adopt */
    sp->usable = st != ST_ERR && !W.be_unsafe && !W.cancelled && p != sp->at;
    sp->t = W.t;
    return NULL;
}

/* Who parses a mapped file's slice: nobody yet, a pool thread (or the main parser
 * helping, parallel_adopt), done, or the main parser in place (or nobody: a bad guess
 * the main parser went past). */
enum { SPLIT_FREE, SPLIT_TAKEN, SPLIT_DONE, SPLIT_MAIN };

/* Slices shrink as the file goes (guided scheduling): each is 1 / (2 x threads) of what
 * is left after it, down to LoadOptions.slab_bytes (4 MB; on a smaller file, down to
 * 1 / (2 x threads) of the file), so there are few of them
 * (about 2 x threads x ln(file / 4 MB)), and a thread that runs slower than the others
 * (a busy core, a denser stretch of the file) holds the load up at the end by a small
 * slice, not by its share of the file. */
#define SLICE_MIN_DEFAULT (4u << 20)

static bool split_claim(Split *sp, int who) {
    int expected = SPLIT_FREE;
    return atomic_compare_exchange_strong(&sp->state, &expected, who);
}

/* The next free slice from the pool's cursor on, claimed for this thread; NULL when
 * none is left. */
static Split *split_next(SplitPool *P) {
    for (;;) {
        size_t k = atomic_fetch_add(&P->cursor, 1);
        if (k >= P->n) return NULL;
        if (split_claim(&P->s[k], SPLIT_TAKEN)) return &P->s[k];
    }
}

/* Parses a slice this thread claimed, then says it is done (a usable slice's pages
 * given back first: the main parser adopts its events and never reads it). */
static void split_run(SplitPool *P, Split *sp) {
    worker_main(sp);
    if (sp->usable) release_pages(sp->at, sp->end);
    pthread_mutex_lock(&P->mu);
    atomic_store(&sp->state, SPLIT_DONE);
    pthread_cond_broadcast(&P->cv);
    pthread_mutex_unlock(&P->mu);
}

/* A pool thread: its own slice first (claimed for it before it started, so the main
 * parser, reaching that slice, adopts it rather than parse it again), then the free
 * ones in order. */
typedef struct PoolThread {
    SplitPool *P;
    Split *first;
} PoolThread;

static void *pool_main(void *arg) {
    PoolThread *pt = arg;
    split_run(pt->P, pt->first);
    for (Split *sp; (sp = split_next(pt->P));) split_run(pt->P, sp);
    return NULL;
}

/* Called when the main loader enters the event array of a mapped file: cuts the rest
 * into slices (the first stays the main parser's) and starts threads - 1 threads that
 * take them in order. */
static void parallel_start(Loader *L, const char *array_start) {
    L->parallel_ok = false;
    int n = L->threads;
    const char *end = L->buf + L->len;
    size_t span = (size_t)(end - array_start);
    if (n < 2 || span < (size_t)n * 1024) return;
    size_t min = L->opt && L->opt->slab_bytes ? L->opt->slab_bytes : SLICE_MIN_DEFAULT, cap = 0;
    if (min > span / ((size_t)n * 2)) min = span / ((size_t)n * 2); /* a small file: still a slice per thread */
    SplitPool *P = xcalloc(1, sizeof *P);
    const char *prev = array_start, *at = array_start;
    for (size_t left = span;;) {
        size_t step = left / ((size_t)n * 2);
        if (step < min) step = min;
        if (step >= left) break;
        at += step;
        left -= step;
        const char *g = Js_guessElement(at, end);
        if (!g) break;           /* no element starts after it: none after the later ones */
        if (g <= prev) continue; /* inside one long element: a later guess may land past it */
        GROW(P->s, cap, P->n + 1);
        memset(&P->s[P->n], 0, sizeof *P->s);
        P->s[P->n++].at = prev = g;
    }
    for (size_t i = 0; i < P->n; i++) {
        Split *sp = &P->s[i];
        sp->stop = i + 1 < P->n ? P->s[i + 1].at : NULL;
        sp->path = L->path;
        sp->opt = L->opt;
        sp->map = L->buf;
        sp->map_len = L->len;
        atomic_init(&sp->state, SPLIT_FREE);
    }
    pthread_mutex_init(&P->mu, NULL);
    pthread_cond_init(&P->cv, NULL);
    P->th = xmalloc((size_t)(n - 1) * sizeof *P->th);
    P->arg = xmalloc((size_t)(n - 1) * sizeof *P->arg);
    atomic_store(&P->cursor, (size_t)(n - 1) < P->n ? (size_t)(n - 1) : P->n); /* past the threads' first slices */
    for (int i = 0; i < n - 1 && (size_t)i < P->n; i++) {
        /* thread i's first slice is the i-th: taken before the thread runs (and given
         * back should it not start) */
        Split *sp = &P->s[i];
        atomic_store(&sp->state, SPLIT_TAKEN);
        P->arg[P->n_th] = (PoolThread){P, sp};
        if (pthread_create(&P->th[P->n_th], NULL, pool_main, &P->arg[P->n_th]) == 0) P->n_th++;
        else atomic_store(&sp->state, SPLIT_FREE);
    }
    /* without a thread the main parser takes every slice in place, in order */
    L->pool = P;
}

/* Stops and joins the pool's threads, frees what no one adopted (on any exit path of
 * the main loader). */
static void parallel_finish(Loader *L) {
    SplitPool *P = L->pool;
    if (!P) return;
    atomic_store(&P->cursor, P->n); /* no more claims */
    for (size_t k = 0; k < P->n; k++) atomic_store(&P->s[k].abort, 1);
    for (int i = 0; i < P->n_th; i++) pthread_join(P->th[i], NULL);
    for (size_t k = 0; k < P->n; k++) Trace_free(P->s[k].t);
    pthread_mutex_destroy(&P->mu);
    pthread_cond_destroy(&P->cv);
    free(P->th);
    free(P->arg);
    free(P->s);
    free(P);
    L->pool = NULL;
}

/* Moves a usable worker slice's events into the main trace and shows them to the
 * preview now, not at the next 8 MB report (the last slice is followed by none). */
static void adopt_events(Loader *L, Split *sp) {
    L->t->deferred += sp->t->deferred; /* gpu_only: events the worker passed over */
    L->n_deferred += sp->t->deferred;
    Trace_absorb(L->t, L->source, sp->t);
    L->t->diag.parallel_slices++;
    L->n_loaded += sp->t->n_events;
    if (L->opt && L->opt->observe) L->opt->observe(L->opt->observe_ctx, L->t);
}

/* The main parser is at element start q. If a slice starts exactly here: one nobody
 * took yet is the main parser's to parse in place (NULL), one a thread parsed is
 * adopted (its end returned), and while a thread is still at it the main parser
 * parses the free slices ahead itself, then waits. Slices the parser has passed were
 * bad guesses and are dropped. Returns NULL when there is nothing to adopt at q. */
static const char *parallel_adopt(Loader *L, const char *q) {
    SplitPool *P = L->pool;
    while (L->next_split < P->n && P->s[L->next_split].at < q) {
        Split *sp = &P->s[L->next_split++];
        if (!split_claim(sp, SPLIT_MAIN)) atomic_store(&sp->abort, 1); /* a bad guess: stop it early */
    }
    if (L->next_split >= P->n || P->s[L->next_split].at != q) return NULL;
    release_behind(L, q, 0); /* all before q is parsed, by one thread or another */
    Split *sp = &P->s[L->next_split++];
    if (split_claim(sp, SPLIT_MAIN)) return NULL; /* parse it in place: nothing to adopt */
    while (atomic_load(&sp->state) != SPLIT_DONE) {
        Split *ahead = split_next(P);
        if (ahead) {
            split_run(P, ahead);
            continue;
        }
        pthread_mutex_lock(&P->mu);
        while (atomic_load(&sp->state) != SPLIT_DONE) pthread_cond_wait(&P->cv, &P->mu);
        pthread_mutex_unlock(&P->mu);
    }
    if (!sp->usable) return NULL; /* parse this slice ourselves */
    adopt_events(L, sp);
    Trace_free(sp->t);
    sp->t = NULL;
    return sp->end;
}

/* Compressed input: a worker parses one slab's slice (see slabfeed.h). */
static void *slab_parse(void *ctx, const SlabSlice *s) {
    const Loader *L = ctx;
    Split *sp = xcalloc(1, sizeof *sp);
    sp->at = s->start;
    sp->stop = s->stop;
    sp->path = L->path;
    sp->opt = L->opt;
    sp->map = s->mem;
    sp->map_len = s->len;
    sp->base = s->base;
    sp->abort_slab = s->abort;
    worker_main(sp);
    return sp;
}

static void slab_result_free(void *r) {
    Split *sp = r;
    Trace_free(sp->t);
    free(sp);
}

/* Like parallel_adopt for a slab slice beginning at element start q: adopts it and
 * moves the window to where the worker stopped. Returns the new parse position. */
static const char *slab_adopt(Loader *L, const char *q) {
    Split *sp = SlabFeed_take(L->feed, L->base + (uint64_t)(q - L->buf));
    if (!sp) return NULL;
    if (!sp->usable) { /* parse this slice ourselves */
        slab_result_free(sp);
        return NULL;
    }
    adopt_events(L, sp);
    uint64_t end = sp->base + (uint64_t)(sp->end - sp->map), lines = sp->lines, tail = sp->tail;
    slab_result_free(sp);
    if (end <= L->base + L->len) /* the window already holds where the worker stopped */
        return L->buf + (end - L->base);
    pass_text(L, L->buf, (size_t)(q - L->buf));
    pass_lines(L, lines, tail);
    L->base = end;
    L->buf = L->own;
    L->len = 0;
    L->js.end = L->buf;
    L->peek = true; /* the next slice likely starts a few bytes on */
    SlabFeed_seek(L->feed, end);
    return L->buf;
}

/* *pp is just after '['. */
static LoopStatus event_array(Loader *L, const char **pp, char *err, size_t errlen) {
    if (L->parallel_ok) parallel_start(L, *pp);
    const char *p = *pp;
    RawEvent ev;
    bool first = true, comma = false; /* comma: the ',' after the last element is consumed */
    /* stream offset just after the last element (or the '['): where a truncation is
     * reported and where a worker's slice ends (workers never refill, so it stays in
     * their window) */
    uint64_t elem_off = L->base + (uint64_t)(p - L->buf);
    for (;;) {
        const char *q = Js_ws(p, L->js.end);
        if (q >= L->js.end) {
            /* whitespace is consumed as it is scanned: the window never keeps it (a
             * decompression bomb of blanks costs time linear in its size, no memory) */
            p = q;
            if (!window_refill(L, &p, NULL)) goto trunc;
            continue;
        }
        if (*q == ']' && !comma) {
            *pp = L->worker ? q : q + 1; /* a worker leaves the ']' to the main loader */
            return ST_OK;
        }
        if (!first && !comma) {
            if (*q != ',') {
                L->js.err_at = q;
                L->js.expected = "',' or ']' after an event";
                syntax_error(L, err, errlen);
                return ST_ERR;
            }
            comma = true;
            p = q + 1;
            continue;
        }
        if (L->worker && q == L->stop_at) {
            /* end after our last element, before the comma: where the main parser goes
             * on is then exactly where it would be had it parsed the slice itself (a
             * truncation or error just after reports the same offset) */
            *pp = L->buf + (elem_off - L->base);
            return ST_STOP;
        }
        const char *to = L->feed ? slab_adopt(L, q) : L->pool && L->pool->n ? parallel_adopt(L, q) : NULL;
        if (to) {
            /* a slice ends after its last element: before the comma that leads to the
             * next slice, at ']', or where the file was cut */
            p = to;
            elem_off = L->base + (uint64_t)(p - L->buf);
            first = comma = false;
            /* with slabs the main parser may only glue: report progress (and cancel) */
            if (L->feed && !progress(L, p)) goto cancelled;
            continue;
        }
        /* an object the skim keeps is built from the members it was split into, or
         * else parsed by the member loop: stage 2 would index the 64 KB ahead, which
         * the skim mostly passes over */
        bool skimmed = false;
        JsMember sm[FAST_MEMBERS];
        size_t sn = 0;
        const char *split_end = NULL; /* the object is split into sm[0..sn) up to here */
        if (*q == '{' && skim_pays(L)) {
            skimmed = true;
            JsPeek pk;
            const char *oe;
            JsPeekStatus ps;
            if (skim_split(L, q, sm, &sn, &oe)) {
                JsPeek_members(sm, sn, &pk);
                ps = JSPEEK_OK;
                split_end = oe;
            } else {
                ps = JsPeek_object(q, L->js.end, &pk, &oe);
            }
            if (ps == JSPEEK_MORE) {
                if (!window_refill(L, &p, NULL)) goto trunc;
                continue;
            }
            bool pass = ps == JSPEEK_OK && (uint64_t)(oe - q) <= L->max_token && peek_skips(L, &pk);
            skim_count(L, pass);
            if (pass) {
                L->n_deferred++;
                L->t->deferred++;
                first = comma = false;
                p = oe;
                elem_off = L->base + (uint64_t)(p - L->buf);
                release_behind(L, p, RELEASE_EVERY);
                if (!progress(L, p)) goto cancelled;
                continue;
            }
        }
        JsStatus st;
        const char *obj = q;
        if (*q == '{') {
            if (split_end) { /* kept after all: its members are at hand */
                memset(&ev, 0, sizeof ev);
                apply_members(L, &ev, sm, sn);
                q = split_end;
                st = JS_OK;
            } else {
                st = parse_event(L, &q, &ev, !skimmed);
            }
            if (st == JS_OK && ev.n_series == -1 && (TOK_IS(&ev.ph, "C") || TOK_IS(&ev.name, MEMORY_EVENT))) {
                /* args came before ph: parse args again as a counter */
                const char *a = ev.args.p;
                ev.n_series = 0;
                st = parse_args(L, &a, &ev, true);
            }
        } else {
            Tok v; /* not an object: a bad event, but valid JSON */
            st = Js_value(&L->js, &q, &v);
            if (st == JS_OK) skip_event(L, L->base + (uint64_t)(obj - L->buf), "event is not a JSON object");
        }
        if (st == JS_MORE) {
            if (!window_refill(L, &p, NULL)) goto trunc;
            continue;
        }
        if (st == JS_ERR) {
            syntax_error(L, err, errlen);
            return ST_ERR;
        }
        if ((uint64_t)(q - obj) > L->max_token) { /* as a compressed input's window would refuse it */
            too_big(L, L->base + (uint64_t)(obj - L->buf), err, errlen);
            return ST_ERR;
        }
        if (*obj == '{') {
            if (ev.n_series < 0) ev.n_series = 0;
            add_event(L, &ev, L->base + (uint64_t)(obj - L->buf));
        }
        first = comma = false;
        p = q;
        elem_off = L->base + (uint64_t)(p - L->buf);
        release_behind(L, p, RELEASE_EVERY);
        if (!progress(L, p)) goto cancelled;
    }
cancelled:
    snprintf(err, errlen, "%s: loading cancelled", L->path);
    return ST_ERR;
trunc:
    if (L->in && Input_error(L->in)[0]) {
        snprintf(err, errlen, "%s: %s", L->path, Input_error(L->in));
        return ST_ERR;
    }
    L->trunc_off = elem_off;
    *pp = L->worker ? L->buf + (elem_off - L->base) : p;
    return ST_TRUNC;
}

static bool note_truncated_at(Loader *L, uint64_t off) {
    TraceDiag *d = &L->t->diag;
    if (!d->truncated) {
        d->truncated = true;
        d->truncated_path = xstrdup(L->path);
        d->truncated_offset = off;
    }
    return true;
}

static bool note_truncated(Loader *L, const char *p) { return note_truncated_at(L, L->base + (uint64_t)(p - L->buf)); }

/* Kineto (PyTorch 2.4 and later), Proton and ovtrace's own recordings write "ts"
 * relative to a base and put the base, in ns since the epoch, under this top-level key
 * (absolute epoch-scale times with a fractional part have more digits than a double
 * holds, so browsers and Perfetto would round them). Parsed exactly from its text; the
 * last one counts, as in JSON.parse. */
static void note_base_time(Loader *L, const Tok *val) {
    int64_t b;
    L->base_off = L->base + (uint64_t)(val->p - L->buf);
    if (val->type == TOK_NUMBER && Time_parseDecimal(val->p, val->n, 0, &b)) {
        L->base_ns = b;
        L->base_bad = false;
    } else {
        L->base_ns = 0;
        L->base_bad = true;
    }
}

/* A GPU-first load's span of the events it passed over in this file (only this file's
 * is in the trace while it is read), moved by the file's base. */
static bool shift_deferred(Trace *t, int64_t base) {
    int64_t a = 0, b = 0;
    if (t->deferred_has_min && (__builtin_add_overflow(t->deferred_min, base, &a) || !Time_inModel(a))) return false;
    if (t->deferred_has_max && (__builtin_add_overflow(t->deferred_max, base, &b) || !Time_inModel(b))) return false;
    if (t->deferred_has_min) t->deferred_min = a;
    if (t->deferred_has_max) t->deferred_max = b;
    return true;
}

/* The base applies to every time of the source once the whole file is read (Kineto
 * writes it after the events). A base that is not a number, or that would put an
 * event outside the model's range, is left out with a warning. */
static void apply_base_time(Loader *L, size_t first_event) {
    Trace *t = L->t;
    const char *why = NULL;
    if (L->base_bad) {
        why = "is not an integer number of nanoseconds";
    } else if (L->base_ns && !shift_deferred(t, L->base_ns)) {
        why = "would put events outside the times ovtrace can hold";
    } else if (L->base_ns && !Trace_shiftSource(t, L->source, first_event, L->base_ns)) {
        shift_deferred(t, -L->base_ns); /* back: it fitted before */
        why = "would put events outside the times ovtrace can hold";
    } else {
        t->sources[L->source].base_time_ns = L->base_ns;
    }
    if (!why || t->input_warning) return;
    char msg[512];
    int n = snprintf(msg, sizeof msg, "%s: byte %" PRIu64 "%s: baseTimeNanoseconds %s; times are read as written",
                     L->path, L->base_off, of_json(L), why);
    t->input_warning = xstrdup(n > 0 ? msg : "baseTimeNanoseconds ignored");
}

static bool parse_top(Loader *L, char *err, size_t errlen) {
    const char *p = L->buf;
    /* UTF-8 byte order mark */
    if (L->len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) p += 3;
    for (;;) {
        p = Js_ws(p, L->js.end);
        if (p < L->js.end) break;
        if (!window_refill(L, &p, NULL)) {
            bool none = L->base + L->len == 0, comp = Input_compression(L->in) != COMP_NONE;
            snprintf(err, errlen, "%s: %s%s%s", L->path,
                     none ? (comp ? "the " : "empty file (expected a Chrome trace JSON)")
                          : "no JSON content (only whitespace)",
                     none && comp ? Input_compressionName(Input_compression(L->in)) : "",
                     none && comp ? " stream decompresses to nothing (expected a Chrome trace JSON)" : "");
            return false;
        }
    }
    if (*p == '[') {
        p++;
        LoopStatus st = event_array(L, &p, err, errlen);
        if (st == ST_ERR) return false;
        if (st == ST_TRUNC) return note_truncated_at(L, L->trunc_off);
    } else if (*p == '{') {
        p++;
        bool first = true, comma = false; /* as in event_array: whitespace is never kept */
        uint64_t member_off = L->base + (uint64_t)(p - L->buf); /* after the last member */
        for (;;) {
            const char *q = Js_ws(p, L->js.end);
            if (q >= L->js.end) {
                p = q;
                if (!window_refill(L, &p, NULL)) return note_truncated_at(L, member_off);
                continue;
            }
            if (*q == '}' && !comma) {
                p = q + 1;
                break;
            }
            if (!first && !comma) {
                if (*q != ',') {
                    L->js.err_at = q;
                    L->js.expected = "',' or '}' after object member";
                    return syntax_error(L, err, errlen);
                }
                comma = true;
                p = q + 1;
                continue;
            }
            Tok key, val;
            const char *kstart = q;
            if (first && *q != '"') { /* as Js_objectOpen says it */
                L->js.err_at = q;
                L->js.expected = "a string key or '}'";
                return syntax_error(L, err, errlen);
            }
            JsStatus st = Js_memberKey(&L->js, &q, &key);
            if (st == JS_OK && Js_keyIs(&key, "traceEvents")) {
                if (*q != '[') {
                    L->js.err_at = q;
                    L->js.expected = "'[' (traceEvents must be an array)";
                    return syntax_error(L, err, errlen);
                }
                q++;
                LoopStatus ls = event_array(L, &q, err, errlen);
                if (ls == ST_ERR) return false;
                if (ls == ST_TRUNC) return note_truncated_at(L, L->trunc_off);
                p = q;
                member_off = L->base + (uint64_t)(p - L->buf);
                first = comma = false;
                continue;
            }
            if (st == JS_OK) st = Js_value(&L->js, &q, &val);
            if (st == JS_MORE) {
                if (!window_refill(L, &p, NULL)) return note_truncated_at(L, member_off);
                continue;
            }
            if (st == JS_ERR) return syntax_error(L, err, errlen);
            if ((uint64_t)(q - kstart) > L->max_token) {
                too_big(L, L->base + (uint64_t)(kstart - L->buf), err, errlen);
                return false;
            }
            if (Js_keyIs(&key, "baseTimeNanoseconds")) note_base_time(L, &val);
            /* keep other top-level keys verbatim (deviceProperties, distributedInfo, ...) */
            meta_append(L, L->meta_len ? "," : "{", 1);
            meta_append(L, kstart, (size_t)(q - kstart));
            p = q;
            member_off = L->base + (uint64_t)(p - L->buf);
            first = comma = false;
        }
    } else {
        L->js.err_at = p;
        L->js.expected = "'{' or '[' at the start of a Chrome trace";
        return syntax_error(L, err, errlen);
    }
    /* only whitespace may follow */
    for (;;) {
        p = Js_ws(p, L->js.end);
        if (p < L->js.end) {
            L->js.err_at = p;
            L->js.expected = "end of file after the trace";
            return syntax_error(L, err, errlen);
        }
        if (!window_refill(L, &p, NULL)) break;
    }
    return true;
}

#include <cjson/cJSON.h>

#include "cjsonlast.h"

#include "load_merged.h"

/* Reads rank, world size, time unit, trace name and base time from the kept
 * top-level keys with cJSON (small, off the hot path). */
static void apply_meta(Loader *L) {
    TraceSource *src = &L->t->sources[L->source];
    if (!L->meta_len) return;
    meta_append(L, "}", 1);
    src->meta_json = xstrdup(L->meta);
    cJSON *m = cJSON_ParseWithLength(L->meta, L->meta_len);
    if (!m) return;
    SourceMeta_apply(src, m);
    /* recordings of the simulator say so; the viewer marks them SIMULATED */
    const cJSON *ov = Json_last(m, "ovtrace");
    if (cJSON_IsTrue(Json_last(ov, "simulated"))) L->t->simulated = true;
    cJSON_Delete(m);
}

/* parse_top over a mapped file under a SIGBUS guard: another process may truncate
 * the file while we read it; that is an error, not a crash. */
static bool guarded_parse(Loader *L, char *err, size_t errlen) {
    MapGuard g;
    MapGuard_arm(&g);
    if (sigsetjmp(g.env, 1)) {
        MapGuard_disarm(&g);
        struct stat st;
        if (stat(L->path, &st) == 0)
            snprintf(L->fatal, sizeof L->fatal,
                     "%s: changed while being read (%" PRIu64 " bytes when opened, %lld now)", L->path,
                     Input_fileSize(L->in), (long long)st.st_size);
        else
            snprintf(L->fatal, sizeof L->fatal, "%s: changed while being read", L->path);
        return false;
    }
    bool ok = parse_top(L, err, errlen);
    MapGuard_disarm(&g);
    return ok;
}

bool Load_chromeFile(Trace *t, const char *path, const LoadOptions *opt, char *err, size_t errlen) {
    Input *in = Input_openCancellable(path, opt ? opt->cancel : NULL, err, errlen);
    if (!in) return false;
    if (opt) Input_setReadAhead(in, opt->read_ahead);
    Loader L = {0};
    L.t = t;
    L.path = path;
    L.in = in;
    L.opt = opt;
    L.source = Trace_addSource(t, path);
    t->sources[L.source].compression = Input_compression(in);
    L.max_token = opt && opt->max_token ? opt->max_token : MAX_TOKEN_DEFAULT;
    Input_setWindowMax(in, L.max_token); /* the decoder's memory, bounded as the tokens are */
    size_t map_len;
    const char *map = Input_map(in, &map_len);
    if (map) Trace_noteMapped(t, map_len);
    if (map || (Input_compression(in) == COMP_NONE && !Input_isStream(in))) {
        L.buf = map ? map : "";
        L.len = map ? map_len : 0;
        L.eof = true;
        L.mapped = map != NULL;
        L.released = L.buf;
    } else {
        L.cap = WINDOW_MIN;
        L.own = xmalloc(L.cap);
        L.buf = L.own;
        L.len = 0;
    }
    L.js.end = L.buf + L.len;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    L.threads = opt && opt->threads > 0 ? opt->threads : (int)(cores > 0 ? (cores < 8 ? cores : 8) : 1);
    uint64_t min = opt && opt->min_parallel_bytes ? opt->min_parallel_bytes : (16u << 20);
    if (map) { /* plain files parse in parallel slices */
        L.parallel_ok = L.threads > 1 && map_len >= min;
    } else if (L.threads > 1 && Input_fileSize(in) * 8 >= min) {
        /* compressed (about 8x smaller): slabs parsed by workers, decompressed by the feed */
        size_t slab = opt && opt->slab_bytes ? opt->slab_bytes : (4u << 20); /* tests: many small slabs */
        Input_noReadAhead(in);
        L.feed = SlabFeed_start(in, L.threads, slab, slab_parse, &L, slab_result_free);
    }
    size_t before = t->n_events, skipped_before = t->diag.skipped;
    bool truncated_before = t->diag.truncated;
    /* this file's passed-over span apart from the other files' (its base applies to it) */
    int64_t dmin = t->deferred_min, dmax = t->deferred_max;
    bool dhmin = t->deferred_has_min, dhmax = t->deferred_has_max;
    t->deferred_has_min = t->deferred_has_max = false;
    bool ok = map ? guarded_parse(&L, err, errlen) : parse_top(&L, err, errlen);
    parallel_finish(&L);
    SlabFeed_stop(L.feed); /* joins the reader: Input's error and truncation are final */
    /* errors below the parser come first: what the parser said (end of data, a cut
     * value) is only their consequence */
    if (L.fatal[0]) {
        snprintf(err, errlen, "%s", L.fatal);
        ok = false;
    } else if (Input_error(in)[0]) {
        snprintf(err, errlen, "%s: %s", path, Input_error(in));
        ok = false;
    } else if (!ok && Input_truncated(in) && L.base + L.len == 0) {
        snprintf(err, errlen, "%s: truncated %s stream: it ends before any data (at compressed byte %" PRIu64 ")",
                 path, Input_compressionName(Input_compression(in)), Input_fileOffset(in));
    }
    if (ok && Input_warning(in)[0] && !t->input_warning) {
        size_t n = strlen(path) + strlen(Input_warning(in)) + 3;
        t->input_warning = xmalloc(n);
        snprintf(t->input_warning, n, "%s: %s", path, Input_warning(in));
    }
    if (ok && Input_truncated(in) && !t->diag.truncated) note_truncated(&L, L.buf + L.len);
    if (t->diag.truncated && !truncated_before && Input_compression(in) != COMP_NONE) {
        /* the offset is in the decompressed JSON: the warning also says where the file ends */
        t->diag.truncated_compression = (int)Input_compression(in);
        t->diag.truncated_comp_end = Input_fileOffset(in);
    }
    if (ok && t->n_events == before && L.n_loaded == 0 && L.n_deferred == 0) {
        if (t->diag.skipped > skipped_before)
            snprintf(err, errlen, "%s: no valid trace event (%zu skipped; first at byte %" PRIu64 "%s: %s)", path,
                     t->diag.skipped - skipped_before, t->diag.first_skip_offset, of_json(&L),
                     t->diag.first_skip_reason);
        else if (Load_isSummary(path)) /* beside other files: a summary opens only alone */
            snprintf(err, errlen, "%s: a run summary (stats --summary), not a trace: `ovtrace view %s` opens it alone",
                     path, path);
        else
            snprintf(err, errlen,
                     "%s: no trace events found (expected a Chrome trace: {\"traceEvents\": [...]} or [...])", path);
        ok = false;
    }
    if (ok) apply_meta(&L);
    if (ok) apply_base_time(&L, before);
    if (dhmin) Trace_deferExtent(t, dmin, dmin);
    if (dhmax) Trace_deferExtent(t, INT64_MAX, dmax);
    if (ok && opt && opt->progress) { /* the reports come every few MB: the last one at the end, with every event */
        uint64_t size = Input_fileSize(in);
        opt->progress(opt->progress_ctx, path, size ? size : Input_fileOffset(in), size, t->n_events);
    }
    if (ok) LoadMerged_split(t, L.source); /* a merged export: back to one source per rank */
    /* B without E: run to the end of the trace, fixed up in Trace_finish */
    free_stacks(&L);
    free(L.scratch);
    free(L.series_key);
    free(L.series_val);
    free(L.meta);
    free(L.own);
    Js_free(&L.js);
    JsIndex_free(&L.ix);
    JsShape_free(L.shape);
    Input_close(in);
    return ok;
}
