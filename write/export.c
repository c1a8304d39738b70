/* Filtered export to Chrome Trace JSON (docs/export.md).
 *
 * Kept events are copied byte-for-byte from their source: the kept (source, offset)
 * pairs are sorted and each source is streamed once, the scanner finding where each
 * event object ends. Matched B events become X (the B text with "ph" set to "X" and a
 * "dur" appended); counters (one model event per series) are written once. Metadata
 * events are regenerated from the model for the kept lanes, flows whose both ends are
 * kept are re-emitted as s/f pairs; what is written from the model goes through the
 * Chrome-JSON writer (chromejson.h). Output goes to a temporary file in the target
 * directory (base/atomicfile.h) that is fsync'd and renamed; any failure removes it,
 * and so does a fatal signal where the program installs the cleanup (cli/signals.c). */
#include "ovtrace/write/export.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ovtrace/read/jsonscan.h"
#include "ovtrace/read/mapguard.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/base/atomicfile.h"
#include "ovtrace/base/map.h"
#include "ovtrace/base/file.h"
#include "ovtrace/base/regex.h"
#include "ovtrace/base/zwriter.h"
#include "ovtrace/read/input.h"
#include "ovtrace/write/chromejson.h"
#include "ovtrace/write/outpath.h"
#include "ovtrace/model/timeunits.h"

ExportFilter ExportFilter_all(void) {
    ExportFilter f;
    memset(&f, 0, sizeof f);
    f.t0 = INT64_MIN;
    f.t1 = INT64_MAX;
    f.rank = INT32_MIN;
    f.device = INT64_MIN;
    f.stream = INT64_MIN;
    return f;
}

/* ====================================================================== output sink */

/* The text (ChromeJson, compact layout) compressed by the output's name into fd. */
typedef struct {
    ChromeJson w;
    ZWriter zw;
} Out;

static bool out_sink(void *ctx, const char *p, size_t n) {
    Out *o = ctx;
    if (ZWriter_write(&o->zw, p, n)) return true;
    ChromeJson_fail(&o->w, o->zw.err); /* the writer's own message: "write failed: No space left on device" */
    return false;
}

static bool out_open(Out *o, int fd, ZComp comp, char *err, size_t errlen) {
    memset(&o->zw, 0, sizeof o->zw);
    ChromeJson_init(&o->w, CHROMEJSON_COMPACT, out_sink, o);
    return ZWriter_open(&o->zw, comp, ZSink_fd, (void *)(intptr_t)fd, err, errlen);
}

/* Flushes and ends the compressed stream; frees everything except the fd. */
static bool out_finish(Out *o) {
    ChromeJson_flush(&o->w);
    if (!o->w.failed && !ZWriter_endFrame(&o->zw)) ChromeJson_fail(&o->w, o->zw.err);
    return !o->w.failed;
}

static void out_free(Out *o) {
    ZWriter_free(&o->zw);
    ChromeJson_free(&o->w);
}

/* ====================================================================== source streaming */

typedef struct {
    Input *in;
    const char *map;
    size_t map_len;
    char *buf;
    size_t len, cap;
    uint64_t base; /* stream offset of buf[0] */
    bool eof;
} SrcReader;

/* Makes [off, off + need) available (fewer bytes at end of stream) at p, avail bytes. */
static bool sr_at(SrcReader *r, uint64_t off, size_t need, const char **p, size_t *avail) {
    if (r->map) {
        if (off > r->map_len) return false;
        *p = r->map + off;
        *avail = r->map_len - (size_t)off;
        return true;
    }
    if (off < r->base) return false;
    while (off >= r->base + r->len && !r->eof) { /* skip ahead */
        r->base += r->len;
        r->len = 0;
        ssize_t got = Input_read(r->in, r->buf, r->cap);
        if (got < 0) return false;
        if (got == 0) r->eof = true;
        r->len = (size_t)got;
    }
    if (off > r->base + r->len) return false;
    size_t skip = (size_t)(off - r->base);
    memmove(r->buf, r->buf + skip, r->len - skip);
    r->len -= skip;
    r->base = off;
    if (need > r->cap) {
        r->cap = need;
        r->buf = xrealloc(r->buf, r->cap);
    }
    while (r->len < need && !r->eof) {
        ssize_t got = Input_read(r->in, r->buf + r->len, r->cap - r->len);
        if (got < 0) return false;
        if (got == 0) r->eof = true;
        r->len += (size_t)got;
    }
    *p = r->buf;
    *avail = r->len;
    return true;
}

/* ====================================================================== the export */

typedef struct {
    uint64_t src;
    size_t idx;
} SrcRec;

/* Stable LSD radix sort by src, 16-bit digits; digits that are equal everywhere are
 * skipped (a 4 GB source needs two passes). Records arrive in index order, so equal
 * offsets (counter series) stay in index order. */
static void sort_by_src(SrcRec *a, size_t n) {
    if (n < 2) return;
    uint64_t all_or = 0, all_and = UINT64_MAX;
    for (size_t i = 0; i < n; i++) all_or |= a[i].src, all_and &= a[i].src;
    SrcRec *tmp = xmalloc(n * sizeof *tmp), *from = a, *to = tmp;
    size_t *count = xmalloc(65536 * sizeof *count);
    for (int shift = 0; shift < 64; shift += 16) {
        if (((all_or ^ all_and) >> shift & 0xffff) == 0) continue; /* same digit everywhere */
        memset(count, 0, 65536 * sizeof *count);
        for (size_t i = 0; i < n; i++) count[from[i].src >> shift & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) to[count[from[i].src >> shift & 0xffff]++] = from[i];
        SrcRec *x = from;
        from = to;
        to = x;
    }
    if (from != a) memcpy(a, from, n * sizeof *a);
    free(count);
    free(tmp);
}

typedef struct {
    const Trace *t;
    const ExportFilter *f;
    uint8_t *keep;      /* per event */
    size_t n_kept;      /* model events kept (counter series counted each) */
    size_t *by_src_off; /* kept events by source: source s's are by_src[off[s] .. off[s + 1]) */
    size_t *by_src;     /* event indices, ascending within a source */
    uint8_t *lane_kept; /* per lane: some event of it is kept */
    bool merge_pids;    /* several sources in one file: pids are made distinct */
    int64_t out_base;   /* the output's baseTimeNanoseconds: written times are relative to it */
    JsCtx js;
    char *scratch;
    size_t scratch_cap;
    /* the source being copied, for write_events_guarded to release after a SIGBUS */
    Input *cur_in;
    void *cur_recs;
    const char *cur_path;
} Exporter;

/* A string key written back as it came: a loader keys a negative number such as -166
 * by its text, which the copied events still carry as a number. */
static void out_key_string(ChromeJson *w, const char *s) {
    const char *p = s + (*s == '-');
    bool number = *s == '-' && *p >= '1' && *p <= '9' && strlen(p) <= 19;
    for (; number && *p; p++) number = *p >= '0' && *p <= '9';
    if (number) ChromeJson_puts(w, s);
    else ChromeJson_string(w, s);
}

static void out_tid_key(Exporter *X, ChromeJson *w, int64_t key) {
    if (key < 0) out_key_string(w, StrTab_get(X->t->strings, (uint32_t)(-1 - key)));
    else ChromeJson_i64(w, key);
}

/* The event's lane source pid, written as a JSON value. Merged files give every
 * source's pids a "rank R pid P" string so that ranks do not share processes. */
static void out_pid_key(Exporter *X, ChromeJson *w, uint32_t source, int64_t key) {
    const Trace *t = X->t;
    if (X->merge_pids) {
        const char *s = key < 0 ? StrTab_get(t->strings, (uint32_t)(-1 - key)) : NULL;
        size_t len = (s ? strlen(s) : 0) + 64;
        GROW(X->scratch, X->scratch_cap, len);
        if (s) snprintf(X->scratch, len, "rank %d %s", t->sources[source].rank, s);
        else snprintf(X->scratch, len, "rank %d pid %" PRId64, t->sources[source].rank, key);
        ChromeJson_string(w, X->scratch);
        return;
    }
    out_tid_key(X, w, key);
}

static bool name_ok(const ExportFilter *f, regex_t *inc, regex_t *exc, uint8_t *cache, const Trace *t,
                    uint32_t name) {
    if (!inc && !exc) return true;
    if (!cache[name]) {
        const char *s = StrTab_get(t->strings, name);
        bool ok = (!inc || regexec(inc, s, 0, NULL, 0) == 0) && (!exc || regexec(exc, s, 0, NULL, 0) != 0);
        cache[name] = ok ? 1 : 2;
    }
    (void)f;
    return cache[name] == 1;
}

static bool compile_re(regex_t *re, const char *pat, const char *what, char *err, size_t errlen) {
    char label[64];
    snprintf(label, sizeof label, "bad %s regular expression", what);
    return Regex_compile(re, pat, REG_EXTENDED | REG_NOSUB, label, err, errlen);
}

/* Marks the kept events. */
static bool select_events(Exporter *X, char *err, size_t errlen) {
    const Trace *t = X->t;
    const ExportFilter *f = X->f;
    regex_t inc, exc;
    bool has_inc = f->name_re && *f->name_re, has_exc = f->exclude_re && *f->exclude_re;
    if (has_inc && !compile_re(&inc, f->name_re, "--name", err, errlen)) return false;
    if (has_exc && !compile_re(&exc, f->exclude_re, "--exclude", err, errlen)) {
        if (has_inc) regfree(&inc);
        return false;
    }
    uint8_t *cache = xcalloc(StrTab_count(t->strings) + 1, 1);
    X->keep = xcalloc(t->n_events ? t->n_events : 1, 1);
    uint8_t *lane_ok = xcalloc(t->n_lanes ? t->n_lanes : 1, 1);
    for (size_t i = 0; i < t->n_lanes; i++) {
        const Lane *l = &t->lanes[i];
        bool ok = f->rank == INT32_MIN || l->rank == f->rank;
        if (f->device != INT64_MIN) ok = ok && l->gpu && l->device == f->device;
        if (f->stream != INT64_MIN) ok = ok && l->gpu && l->stream == f->stream;
        lane_ok[i] = ok;
    }
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (!lane_ok[e->lane]) continue;
        int64_t end = TraceEvent_end(e);
        if (!(e->ts < f->t1 && (end > f->t0 || e->ts >= f->t0))) continue;
        if (f->class_mask && !(f->class_mask & (1u << e->cls))) continue;
        if (f->min_dur > 0 && (e->kind == KIND_COUNTER || e->dur < f->min_dur)) continue;
        if (!name_ok(f, has_inc ? &inc : NULL, has_exc ? &exc : NULL, cache, t, e->name)) continue;
        X->keep[i] = 1;
    }
    if (f->with_launches) {
        for (size_t i = 0; i < t->n_events; i++) {
            if (X->keep[i] != 1 || !EventKind_isGpuWork((EventKind)t->events[i].kind)) continue;
            size_t p = Trace_partner(t, i);
            if (p != SIZE_MAX && EventKind_isLaunch((EventKind)t->events[p].kind) && !X->keep[p]) X->keep[p] = 2;
        }
    }
    for (size_t i = 0; i < t->n_events; i++) X->n_kept += X->keep[i] != 0;
    free(lane_ok);
    free(cache);
    if (has_inc) regfree(&inc);
    if (has_exc) regfree(&exc);
    return true;
}

/* A unit is one output file: the sources it covers. */
typedef struct {
    uint32_t *sources;
    size_t n_sources;
    int32_t rank; /* INT32_MIN when merged over several ranks */
    char *path;   /* as given (messages, compression by extension) */
    char *target; /* the file replaced: path, or where its symlinks lead */
    AtomicFile file;
    int fd; /* a stream's ("-", a device or a FIFO) */
    size_t events;
} Unit;

/* Top-level fields of an event object that the export may edit. */
typedef struct {
    const char *ph;  /* first byte inside the quotes of a one-letter "ph" value, or NULL */
    const char *pid; /* raw span of the "pid" value (quotes included), or NULL */
    const char *pid_end;
    const char *ts, *ts_end;   /* raw span of the "ts" value, or NULL */
    const char *dur, *dur_end; /* raw span of the "dur" value, or NULL */
} EvFields;

/* End of a string whose opening quote is at p; NULL if it does not end before end. */
static inline const char *string_end(const char *p, const char *end) {
    const char *q = p + 1;
    for (;;) {
        q = memchr(q, '"', (size_t)(end - q));
        if (!q) return NULL;
        size_t bs = 0; /* an odd run of backslashes escapes the quote */
        while (q - 1 - bs > p && q[-1 - (ptrdiff_t)bs] == '\\') bs++;
        if (!(bs & 1)) return q + 1;
        q++;
    }
}

/* The object starting at p ('{'), already validated by the loader: finds its end by
 * skipping strings and counting brackets, and notes the top-level "ph" and "pid".
 * JS_MORE if the data ends first, JS_ERR on something that cannot be an object. */
static JsStatus obj_scan(const char *p, const char *end, size_t *len, EvFields *ev) {
    static const uint8_t SPECIAL[256] = {['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1, [','] = 1};
    memset(ev, 0, sizeof *ev);
    if (p >= end || *p != '{') return JS_ERR;
    const char *s = p++;
    int depth = 1;
    bool key_next = true; /* at depth 1: the next string is a key */
    while (p < end) {
        while (p < end && !SPECIAL[(unsigned char)*p]) p++;
        if (p >= end) break;
        char c = *p;
        if (c == '"') {
            const char *q = string_end(p, end);
            if (!q) return JS_MORE;
            if (depth == 1 && key_next) {
                size_t kn = (size_t)(q - p - 2);
                bool is_ph = kn == 2 && !memcmp(p + 1, "ph", 2), is_pid = kn == 3 && !memcmp(p + 1, "pid", 3);
                bool is_ts = kn == 2 && !memcmp(p + 1, "ts", 2), is_dur = kn == 3 && !memcmp(p + 1, "dur", 3);
                key_next = false;
                if (is_ph || is_pid || is_ts || is_dur) {
                    const char *v = q;
                    while (v < end && (*v == ' ' || *v == '\n' || *v == '\r' || *v == '\t' || *v == ':')) v++;
                    if (v >= end) return JS_MORE;
                    const char *ve = v;
                    if (*v == '"') {
                        ve = string_end(v, end);
                        if (!ve) return JS_MORE;
                    } else {
                        while (ve < end && !SPECIAL[(unsigned char)*ve] && *ve != ' ' && *ve != '\n' && *ve != '\r' &&
                               *ve != '\t')
                            ve++;
                        if (ve >= end) return JS_MORE;
                    }
                    if (is_ph && !ev->ph && *v == '"' && ve - v == 3) ev->ph = v + 1;
                    if (is_pid && !ev->pid) ev->pid = v, ev->pid_end = ve;
                    if (is_ts && !ev->ts) ev->ts = v, ev->ts_end = ve;
                    if (is_dur && !ev->dur) ev->dur = v, ev->dur_end = ve;
                    p = ve;
                    continue;
                }
            }
            p = q;
            continue;
        }
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') {
            if (--depth == 0) {
                *len = (size_t)(p + 1 - s);
                return JS_OK;
            }
        } else if (depth == 1) key_next = true; /* ',' */
        p++;
    }
    return JS_MORE;
}

/* The event's start and duration as written: cut to [t0, t1) with --clip (counters and
 * instants lie inside the range when kept). True when that differs from the model's. */
static bool clipped(const Exporter *X, const TraceEvent *e, int64_t *ts, int64_t *dur) {
    *ts = e->ts;
    *dur = e->kind == KIND_COUNTER ? 0 : e->dur;
    if (!X->f->clip || e->kind == KIND_COUNTER || e->kind == KIND_INSTANT) return false;
    int64_t end = TraceEvent_end(e), a = X->f->t0, b = X->f->t1;
    if (e->ts >= a && end <= b) return false;
    *ts = e->ts > a ? e->ts : a;
    *dur = (end < b ? end : b) - *ts;
    if (*dur < 0) *dur = 0;
    return true;
}

/* An event without source text (live or simulated traces): written from the model. */
static void write_synth(Exporter *X, ChromeJson *w, size_t idx) {
    const Trace *t = X->t;
    const TraceEvent *e = &t->events[idx];
    const Lane *l = &t->lanes[e->lane];
    const char *name = Trace_name(t, e);
    const char *ph = e->kind == KIND_COUNTER ? "C" : e->kind == KIND_INSTANT ? "i" : "X";
    ChromeJson_beginEvent(w);
    ChromeJson_strField(w, "ph", ph);
    ChromeJson_strField(w, "cat", EventKind_category((EventKind)e->kind));
    ChromeJson_strField(w, "name", name);
    ChromeJson_key(w, "pid");
    out_pid_key(X, w, l->source, l->pid);
    ChromeJson_key(w, "tid");
    out_tid_key(X, w, l->tid);
    int64_t ts, dur;
    clipped(X, e, &ts, &dur);
    ChromeJson_usField(w, "ts", ts - X->out_base);
    if (*ph == 'X') ChromeJson_usField(w, "dur", dur);
    ChromeJson_beginObject(w, "args");
    if (*ph == 'C') {
        double v = e->value;
        if (v != v || v > 1e300 || v < -1e300) v = 0;
        ChromeJson_stringKey(w, name);
        ChromeJson_printf(w, "%.17g", v);
    } else {
        if (l->gpu) {
            ChromeJson_intField(w, "device", l->device);
            ChromeJson_intField(w, "stream", l->stream);
        }
        if (e->corr) ChromeJson_intField(w, "correlation", e->corr);
    }
    ChromeJson_end(w); /* args */
    ChromeJson_end(w);
}

/* One value of a copied event object replaced on the way out. */
enum { ED_PID, ED_PH, ED_TS, ED_DUR };
typedef struct {
    const char *a, *b; /* the span replaced */
    int what;          /* ED_* */
} Edit;

/* Only whitespace and one comma between two objects of the source. */
static bool adjacent(const char *a, const char *b) {
    int commas = 0;
    for (; a < b; a++) {
        if (*a == ',') commas++;
        else if (*a != ' ' && *a != '\n' && *a != '\r' && *a != '\t') return false;
    }
    return commas == 1;
}

static void flush_run(ChromeJson *w, const char *a, const char *b) {
    if (!a) return;
    ChromeJson_nextEvent(w);
    ChromeJson_write(w, a, (size_t)(b - a));
}

/* The kept events grouped by source in one counting pass, and the lanes they are on,
 * so that writing a unit's sources visits each event once (a scan of every event per source took 14 s for a
 * merge of 20,000 one-event rank files). */
static void index_by_source(Exporter *X) {
    const Trace *t = X->t;
    X->by_src_off = xcalloc(t->n_sources + 1, sizeof *X->by_src_off);
    X->lane_kept = xcalloc(t->n_lanes ? t->n_lanes : 1, 1);
    for (size_t i = 0; i < t->n_events; i++)
        if (X->keep[i]) X->lane_kept[t->events[i].lane] = 1;
    for (size_t i = 0; i < t->n_events; i++)
        if (X->keep[i]) X->by_src_off[t->lanes[t->events[i].lane].source + 1]++;
    for (size_t s = 0; s < t->n_sources; s++) X->by_src_off[s + 1] += X->by_src_off[s];
    X->by_src = xmalloc((X->by_src_off[t->n_sources] + 1) * sizeof *X->by_src);
    size_t *fill = xmalloc((t->n_sources + 1) * sizeof *fill);
    memcpy(fill, X->by_src_off, (t->n_sources + 1) * sizeof *fill);
    for (size_t i = 0; i < t->n_events; i++)
        if (X->keep[i]) X->by_src[fill[t->lanes[t->events[i].lane].source]++] = i;
    free(fill);
}

static bool write_events(Exporter *X, ChromeJson *w, Unit *u, char *err, size_t errlen) {
    const Trace *t = X->t;
    for (size_t si = 0; si < u->n_sources; si++) {
        uint32_t source = u->sources[si];
        SrcRec *recs = NULL;
        size_t n = 0, cap = 0;
        for (size_t k = X->by_src_off[source]; k < X->by_src_off[source + 1]; k++) {
            size_t i = X->by_src[k];
            if (t->events[i].src == TRACE_NO_SRC) {
                write_synth(X, w, i);
                u->events++;
                continue;
            }
            GROW(recs, cap, n + 1);
            recs[n++] = (SrcRec){t->events[i].src, i};
        }
        sort_by_src(recs, n);
        const TraceSource *S = &t->sources[source];
        /* a source relative to another base than the output's: every start is rewritten */
        bool rebase = S->base_time_ns != X->out_base;
        SrcReader r = {0};
        bool ok = true;
        if (n) {
            /* a pipe was read once, by the loader; a FIFO opened again would wait forever */
            if (!Input_canReopen(S->path)) {
                snprintf(err, errlen, "%s: not a regular file (a pipe or stdin): export reads its events again, "
                         "so save it to a file first", S->path);
                free(recs);
                return false;
            }
            r.in = Input_open(S->path, err, errlen);
            if (!r.in) {
                free(recs);
                return false;
            }
            X->cur_in = r.in;
            X->cur_recs = recs;
            X->cur_path = S->path;
            r.map = Input_map(r.in, &r.map_len);
            if (!r.map && Input_compression(r.in) == COMP_NONE) r.map = "", r.map_len = 0;
            if (!r.map) {
                r.cap = 4u << 20;
                r.buf = xmalloc(r.cap);
            }
        }
        const char *run_start = NULL, *run_end = NULL;
        for (size_t k = 0; k < n && ok; k++) {
            if (k && recs[k].src == recs[k - 1].src) continue; /* counter series share their object */
            const TraceEvent *e = &t->events[recs[k].idx];
            size_t need = 4096, objlen = 0;
            const char *obj = NULL;
            size_t avail = 0;
            EvFields ev;
            for (;;) {
                if (!sr_at(&r, recs[k].src, need, &obj, &avail)) {
                    ok = false;
                    break;
                }
                JsStatus st = obj_scan(obj, obj + avail, &objlen, &ev);
                if (st == JS_OK) break;
                if (st == JS_MORE && avail >= need && !r.map) {
                    need = avail * 2;
                    continue;
                }
                ok = false;
                break;
            }
            if (!ok) {
                snprintf(err, errlen, "%s: source changed since loading (no event object at byte %" PRIu64 ")%s%s",
                         S->path, recs[k].src, Input_error(r.in)[0] ? ": " : "", Input_error(r.in));
                break;
            }
            int64_t cts, cdur;
            bool clip = clipped(X, e, &cts, &cdur);
            /* a B is written as an X with its duration (an unmatched one only when cut) */
            bool b_to_x = ev.ph && *ev.ph == 'B' && (!(e->flags & EVF_NO_DUR) || clip);
            u->events++;
            if (r.map && !b_to_x && !X->merge_pids && !clip && !rebase) {
                /* unedited objects that follow each other in a mapped source are
                 * written as one run, separators included */
                if (run_end && adjacent(run_end, obj)) {
                    run_end = obj + objlen;
                    continue;
                }
                flush_run(w, run_start, run_end);
                run_start = obj;
                run_end = obj + objlen;
                continue;
            }
            flush_run(w, run_start, run_end);
            run_start = run_end = NULL;
            ChromeJson_nextEvent(w);
            const char *cur = obj, *end = obj + objlen;
            /* edits of value spans, applied in text order: the pid (merged files), the
             * "B" -> "X", the start and duration of a slice cut to the range */
            Edit ed[4];
            int ne = 0;
            if (X->merge_pids && ev.pid) ed[ne].a = ev.pid, ed[ne].b = ev.pid_end, ed[ne++].what = ED_PID;
            if (b_to_x) ed[ne].a = ev.ph, ed[ne].b = ev.ph + 1, ed[ne++].what = ED_PH; /* the letter */
            if ((clip || rebase) && ev.ts) ed[ne].a = ev.ts, ed[ne].b = ev.ts_end, ed[ne++].what = ED_TS;
            if (clip && ev.dur && !b_to_x) ed[ne].a = ev.dur, ed[ne].b = ev.dur_end, ed[ne++].what = ED_DUR;
            for (int i = 1; i < ne; i++) /* at most 4: insertion sort by position */
                for (int j = i; j > 0 && ed[j].a < ed[j - 1].a; j--) {
                    Edit x = ed[j];
                    ed[j] = ed[j - 1];
                    ed[j - 1] = x;
                }
            const Lane *l = &t->lanes[e->lane];
            if (X->merge_pids && !ev.pid) {
                ChromeJson_puts(w, "{\"pid\":");
                out_pid_key(X, w, source, l->pid);
                const char *q = Js_ws(obj + 1, end);
                if (*q != '}') ChromeJson_puts(w, ",");
                cur = obj + 1;
            }
            for (int i = 0; i < ne; i++) {
                ChromeJson_write(w, cur, (size_t)(ed[i].a - cur));
                if (ed[i].what == ED_PID) out_pid_key(X, w, source, l->pid);
                else if (ed[i].what == ED_PH) ChromeJson_write(w, "X", 1);
                else ChromeJson_us(w, ed[i].what == ED_TS ? cts - X->out_base : cdur);
                cur = ed[i].b;
            }
            if (b_to_x) {
                ChromeJson_write(w, cur, (size_t)(end - 1 - cur)); /* up to the closing brace */
                ChromeJson_puts(w, ",\"dur\":");
                ChromeJson_us(w, cdur);
                ChromeJson_write(w, "}", 1);
            } else {
                ChromeJson_write(w, cur, (size_t)(end - cur));
            }
        }
        if (ok) flush_run(w, run_start, run_end);
        if (r.in) Input_close(r.in);
        free(r.buf);
        free(recs);
        X->cur_in = NULL;
        X->cur_recs = NULL;
        if (!ok) return false;
        if (w->failed) return true; /* reported by the caller */
    }
    return true;
}

/* ---- metadata ---- */

typedef struct {
    uint32_t source;
    int64_t pid, tid;
    uint32_t lane;
} PidRec;

static int cmp_pidrec(const void *a, const void *b) {
    const PidRec *x = a, *y = b;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return x->lane < y->lane ? -1 : x->lane > y->lane;
}

/* The event up to its args' "{"; meta_end closes both. */
static void meta_head(Exporter *X, ChromeJson *w, const char *name, uint32_t source, int64_t pid, int64_t tid) {
    ChromeJson_beginEvent(w);
    ChromeJson_strField(w, "name", name);
    ChromeJson_strField(w, "ph", "M");
    ChromeJson_key(w, "pid");
    out_pid_key(X, w, source, pid);
    ChromeJson_key(w, "tid");
    out_tid_key(X, w, tid);
    ChromeJson_beginObject(w, "args");
}

static void meta_end(ChromeJson *w) {
    ChromeJson_end(w); /* args */
    ChromeJson_end(w);
}

/* Default lane name the model gives a lane without thread_name. */
static bool default_lane_name(const Trace *t, const Lane *l) {
    char buf[48];
    const char *s = StrTab_get(t->strings, l->name);
    if (l->gpu) snprintf(buf, sizeof buf, "stream %lld", (long long)l->stream);
    else if (l->tid < 0) return !strcmp(s, StrTab_get(t->strings, (uint32_t)(-1 - l->tid)));
    else snprintf(buf, sizeof buf, "thread %lld", (long long)l->tid);
    return !strcmp(s, buf);
}

static void write_metadata(Exporter *X, ChromeJson *w, const Unit *u) {
    const Trace *t = X->t;
    uint8_t *in_unit = xcalloc(t->n_sources ? t->n_sources : 1, 1);
    for (size_t si = 0; si < u->n_sources; si++) in_unit[u->sources[si]] = 1;
    PidRec *pr = NULL;
    size_t n = 0, cap = 0;
    for (uint32_t i = 0; i < t->n_lanes; i++) { /* one pass: sorted below */
        const Lane *l = &t->lanes[i];
        if (!X->lane_kept[i] || !in_unit[l->source]) continue;
        GROW(pr, cap, n + 1);
        pr[n++] = (PidRec){l->source, l->pid, l->tid, i};
    }
    free(in_unit);
    if (n) qsort(pr, n, sizeof *pr, cmp_pidrec); /* pr is NULL when no lane is kept */
    for (size_t i = 0; i < n; i++) {
        const Lane *l = &t->lanes[pr[i].lane];
        const Group *g = &t->groups[l->group];
        bool new_pid = i == 0 || pr[i].source != pr[i - 1].source || pr[i].pid != pr[i - 1].pid;
        if (new_pid) {
            bool named = g->name && !(l->pid < 0 && g->name == (uint32_t)(-1 - l->pid));
            if (named || X->merge_pids) {
                meta_head(X, w, "process_name", l->source, l->pid, 0);
                ChromeJson_strField(w, "name", StrTab_get(t->strings, g->name));
                meta_end(w);
            }
            if (g->label) {
                meta_head(X, w, "process_labels", l->source, l->pid, 0);
                ChromeJson_strField(w, "labels", StrTab_get(t->strings, g->label));
                meta_end(w);
            }
            if (g->sort_index != g->id || g->id >= 0) {
                if (!(g->id < 0 && g->sort_index == g->id)) {
                    meta_head(X, w, "process_sort_index", l->source, l->pid, 0);
                    ChromeJson_intField(w, "sort_index", g->sort_index);
                    meta_end(w);
                }
            }
        }
        bool new_tid = new_pid || pr[i].tid != pr[i - 1].tid;
        if (!new_tid) continue;
        if (!default_lane_name(t, l)) {
            meta_head(X, w, "thread_name", l->source, l->pid, l->tid);
            ChromeJson_strField(w, "name", StrTab_get(t->strings, l->name));
            meta_end(w);
        }
        int64_t def_sort = l->gpu ? l->stream : l->tid;
        if (!(l->sort_index == def_sort && def_sort < 0)) {
            meta_head(X, w, "thread_sort_index", l->source, l->pid, l->tid);
            ChromeJson_intField(w, "sort_index", l->sort_index);
            meta_end(w);
        }
    }
    free(pr);
}

/* ---- flows ---- */

static bool unit_has(const Unit *u, uint32_t source) {
    for (size_t i = 0; i < u->n_sources; i++)
        if (u->sources[i] == source) return true;
    return false;
}

static void flow_point(Exporter *X, ChromeJson *w, const Flow *fl, size_t ev, char ph) {
    const Trace *t = X->t;
    const TraceEvent *e = &t->events[ev];
    const Lane *l = &t->lanes[e->lane];
    const char *cat = StrTab_get(t->strings, fl->cat);
    ChromeJson_beginEvent(w);
    ChromeJson_strField(w, "ph", ph == 's' ? "s" : "f");
    if (ph == 'f') ChromeJson_strField(w, "bp", "e");
    ChromeJson_key(w, "id");
    ChromeJson_u64(w, fl->id); /* 32-bit: exact in any JSON reader */
    ChromeJson_key(w, "pid");
    out_pid_key(X, w, l->source, l->pid);
    ChromeJson_key(w, "tid");
    out_tid_key(X, w, l->tid);
    int64_t ts, dur;
    clipped(X, e, &ts, &dur); /* at the slice's written start */
    ChromeJson_usField(w, "ts", ts - X->out_base);
    ChromeJson_strField(w, "cat", cat);
    ChromeJson_strField(w, "name", cat);
    ChromeJson_end(w);
}

static size_t write_flows(Exporter *X, ChromeJson *w, const Unit *u) {
    const Trace *t = X->t;
    size_t n = 0;
    for (size_t i = 0; i < t->n_flows; i++) {
        const Flow *fl = &t->flows[i];
        if (!X->keep[fl->from] || !X->keep[fl->to]) continue;
        if (!unit_has(u, t->lanes[t->events[fl->from].lane].source)) continue;
        if (!unit_has(u, t->lanes[t->events[fl->to].lane].source)) continue;
        flow_point(X, w, fl, fl->from, 's');
        flow_point(X, w, fl, fl->to, 'f');
        n++;
    }
    return n;
}

/* ---- top level ---- */

static void describe_filter(const Exporter *X, char *buf, size_t n) {
    const ExportFilter *f = X->f;
    const Trace *t = X->t;
    size_t k = 0;
#define ADD(...)                                                                  \
    do {                                                                          \
        if (k < n) k += (size_t)snprintf(buf + k, n - k, __VA_ARGS__);            \
    } while (0)
    if (f->t0 != INT64_MIN || f->t1 != INT64_MAX) {
        char a[32] = "start", b[32] = "end";
        if (f->t0 != INT64_MIN) snprintf(a, sizeof a, "%" PRId64 "ns", f->t0 - t->t_min);
        if (f->t1 != INT64_MAX) snprintf(b, sizeof b, "%" PRId64 "ns", f->t1 - t->t_min);
        ADD("%srange %s:%s", k ? ", " : "", a, b);
    }
    if (f->rank != INT32_MIN) ADD("%srank %d", k ? ", " : "", f->rank);
    if (f->device != INT64_MIN) ADD("%sdevice %" PRId64, k ? ", " : "", f->device);
    if (f->stream != INT64_MIN) ADD("%sstream %" PRId64, k ? ", " : "", f->stream);
    if (f->name_re && *f->name_re) ADD("%sname /%s/", k ? ", " : "", f->name_re);
    if (f->exclude_re && *f->exclude_re) ADD("%sexclude /%s/", k ? ", " : "", f->exclude_re);
    if (f->class_mask) {
        ADD("%sclass ", k ? ", " : "");
        bool fc = true;
        for (int c = 0; c < CLASS__COUNT; c++)
            if (f->class_mask & (1u << c)) {
                ADD("%s%s", fc ? "" : ",", EventClass_name((EventClass)c));
                fc = false;
            }
    }
    if (f->min_dur > 0) ADD("%smin-dur %" PRId64 "ns", k ? ", " : "", f->min_dur);
    if (f->with_launches) ADD("%swith launches", k ? ", " : "");
    if (f->clip && (f->t0 != INT64_MIN || f->t1 != INT64_MAX)) ADD("%sclipped", k ? ", " : "");
    if (k == 0) ADD("all events");
#undef ADD
}

typedef struct {
    Exporter *X;
    ChromeJson *w;
    char *name_out;
    size_t name_len;
} MetaCtx;

static JsStatus meta_member(JsCtx *c, void *ctx, const Tok *key, const char **pp) {
    MetaCtx *m = ctx;
    const char *kstart = key->p - 1; /* the key's opening quote */
    Tok v;
    JsStatus st = Js_value(c, pp, &v);
    if (st != JS_OK) return st;
    if (Js_keyIs(key, "traceName")) {
        /* the last one counts, as for the loader (and JSON.parse) */
        m->name_out[0] = '\0';
        if (v.type == TOK_STRING && v.n < m->name_len) {
            GROW(m->X->scratch, m->X->scratch_cap, v.n + 1);
            size_t dn = Js_decode(&v, m->X->scratch);
            memcpy(m->name_out, m->X->scratch, dn);
            m->name_out[dn] = '\0';
        }
    } else if (!Js_keyIs(key, "ovtrace") && !Js_keyIs(key, "traceEvents") &&
               !Js_keyIs(key, "baseTimeNanoseconds")) { /* written by write_trailer */
        ChromeJson_puts(m->w, ",\n");
        ChromeJson_write(m->w, kstart, (size_t)(*pp - kstart));
    }
    return JS_OK;
}

/* Writes the members of a meta_json object except traceName, traceEvents and ovtrace;
 * the traceName string value is decoded into name_out ("" if none). The text is not
 * from a file's bytes as they were read (the loader joins the kept top-level members),
 * yet a syntax error is still one: the byte in it and what was expected. */
static bool write_meta_members(Exporter *X, ChromeJson *w, const TraceSource *src, char *name_out, size_t name_len,
                               char *err, size_t errlen) {
    name_out[0] = '\0';
    const char *meta = src->meta_json;
    if (!meta) return true;
    size_t n = strlen(meta);
    const char *p = Js_ws(meta, meta + n);
    X->js.end = meta + n;
    MetaCtx m = {X, w, name_out, name_len};
    JsStatus st = p < X->js.end && *p == '{' ? Js_members(&X->js, &p, meta_member, &m)
                                             : Js_fail(&X->js, p, "'{' (an object of top-level members)");
    st = Js_complete(&X->js, st);
    if (st == JS_OK) {
        p = Js_ws(p, X->js.end);
        if (p < X->js.end) st = Js_fail(&X->js, p, "the end of the top-level members");
    }
    if (st == JS_OK) return true;
    snprintf(err, errlen, "%s (its kept top-level members): byte %zu: expected %s", src->path,
             (size_t)(X->js.err_at - meta), X->js.expected);
    return false;
}

static bool write_trailer(Exporter *X, ChromeJson *w, const Unit *u, size_t n_flows, char *err, size_t errlen) {
    const Trace *t = X->t;
    char fdesc[2048], name[4096];
    describe_filter(X, fdesc, sizeof fdesc);
    ChromeJson_puts(w, "\n]");
    if (!write_meta_members(X, w, &t->sources[u->sources[0]], name, sizeof name, err, errlen)) {
        ChromeJson_fail(w, "not written: bad source metadata"); /* no more output into a half-written state */
        return false;
    }
    if (X->out_base) ChromeJson_printf(w, ",\n\"baseTimeNanoseconds\":%" PRId64, X->out_base);
    ChromeJson_puts(w, ",\n\"traceName\":");
    char tn[8192];
    if (name[0]) snprintf(tn, sizeof tn, "%s (ovtrace export: %s)", name, fdesc);
    else snprintf(tn, sizeof tn, "ovtrace export: %s", fdesc);
    ChromeJson_string(w, tn);
    ChromeJson_puts(w, ",\n\"ovtrace\":{\"export\":1,\"filter\":");
    ChromeJson_string(w, fdesc);
    if (X->f->description) {
        ChromeJson_puts(w, ",\"command\":");
        ChromeJson_string(w, X->f->description);
    }
    const ExportFilter *f = X->f;
    ChromeJson_puts(w, ",\"range_ns\":[");
    if (f->t0 == INT64_MIN) ChromeJson_puts(w, "null");
    else ChromeJson_printf(w, "%" PRId64, f->t0);
    ChromeJson_puts(w, ",");
    if (f->t1 == INT64_MAX) ChromeJson_puts(w, "null");
    else ChromeJson_printf(w, "%" PRId64, f->t1);
    ChromeJson_printf(w, "],\"events\":%zu,\"flows\":%zu", u->events, n_flows);
    if (f->clip) ChromeJson_puts(w, ",\"clip\":true");
    if (u->rank != INT32_MIN) ChromeJson_printf(w, ",\"rank\":%d", u->rank);
    if (X->merge_pids) ChromeJson_puts(w, ",\"merged\":true"); /* pids are "rank R pid P": the loader splits it */
    ChromeJson_puts(w, ",\"sources\":[");
    for (size_t i = 0; i < u->n_sources; i++) {
        const TraceSource *s = &t->sources[u->sources[i]];
        ChromeJson_puts(w, i ? ",{\"path\":" : "{\"path\":");
        ChromeJson_string(w, s->path);
        ChromeJson_printf(w, ",\"rank\":%d", s->rank);
        if (i && s->meta_json) { /* merged: the other sources' top-level keys */
            ChromeJson_puts(w, ",\"meta\":");
            ChromeJson_puts(w, s->meta_json);
        }
        ChromeJson_puts(w, "}");
    }
    ChromeJson_puts(w, "]}\n}\n");
    return true;
}

/* write_events copies from mapped sources: another process may truncate one while we
 * read it. A SIGBUS then fails the export (its temporary file is removed) with a
 * message, instead of killing the process. */
static bool write_events_guarded(Exporter *X, ChromeJson *w, Unit *u, char *err, size_t errlen) {
    MapGuard g;
    MapGuard_arm(&g);
    if (sigsetjmp(g.env, 1)) {
        MapGuard_disarm(&g);
        snprintf(err, errlen, "%s: changed while being read", X->cur_path ? X->cur_path : "input");
        Input_close(X->cur_in); /* a mapped source: nothing else was allocated for it */
        free(X->cur_recs);
        X->cur_in = NULL;
        X->cur_recs = NULL;
        ChromeJson_fail(w, "not written: an input changed"); /* no more output into a half-written state */
        return false;
    }
    bool ok = write_events(X, w, u, err, errlen);
    MapGuard_disarm(&g);
    return ok;
}

/* Whether a unit's times, written as they are, would lose nanoseconds in a reader's
 * double: Perfetto, browsers and Python read "ts" in µs into a double, exact for a
 * fraction only below 2^53 ns (104 days after the epoch), so an epoch-scale start with a
 * nanosecond fraction is rounded (to ~256 ns in Perfetto) and back-to-back kernels seem
 * to overlap. Sources relative to a base of their own are safe already. */
static bool unit_needs_base(const Exporter *X, const Unit *u) {
    const Trace *t = X->t;
    const int64_t exact = INT64_C(1) << 53;
    for (size_t i = 0; i < u->n_sources; i++) {
        uint32_t s = u->sources[i];
        if (t->sources[s].base_time_ns) continue;
        for (size_t k = X->by_src_off[s]; k < X->by_src_off[s + 1]; k++) {
            int64_t ts = t->events[X->by_src[k]].ts;
            if ((ts >= exact || ts <= -exact) && ts % 1000) return true;
        }
    }
    return false;
}

/* The output's baseTimeNanoseconds: the first source's, so that its text is copied as it
 * is (sources with another base are rewritten); when the times need one and the source
 * has none, the whole second at or before the trace's start. */
static int64_t unit_base(const Exporter *X, const Unit *u) {
    const Trace *t = X->t;
    int64_t base = u->n_sources ? t->sources[u->sources[0]].base_time_ns : 0;
    if (base || !unit_needs_base(X, u)) return base;
    return Time_floorSecond(t->t_min);
}

static bool write_unit(Exporter *X, ChromeJson *w, Unit *u, char *err, size_t errlen) {
    X->out_base = unit_base(X, u);
    ChromeJson_puts(w, "{\"traceEvents\":[");
    write_metadata(X, w, u);
    if (!write_events_guarded(X, w, u, err, errlen)) return false;
    size_t nf = write_flows(X, w, u);
    return write_trailer(X, w, u, nf, err, errlen);
}

/* ---- paths ---- */

char *Export_rankPath(const char *path, int32_t rank) {
    const char *base = Path_base(path);
    const char *dot = NULL;
    static const char *EXT[] = {".json.gz", ".json.zst", ".json", ".gz", ".zst"};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof EXT / sizeof EXT[0] && !dot; i++) {
        size_t e = strlen(EXT[i]);
        if (n - (size_t)(base - path) > e && !strcmp(path + n - e, EXT[i])) dot = path + n - e;
    }
    if (!dot) dot = path + n;
    size_t len = n + 32;
    char *out = xmalloc(len);
    snprintf(out, len, "%.*s.rank%d%s", (int)(dot - path), path, rank, dot);
    return out;
}

static bool refuse_input(const Trace *t, const char *path, char *err, size_t errlen) {
    struct stat st;
    if (stat(path, &st) != 0) return true; /* does not exist yet */
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is a directory (expected an output file name)", path);
        return false;
    }
    for (size_t i = 0; i < t->n_sources; i++) {
        struct stat s2;
        if (stat(t->sources[i].path, &s2) == 0 && s2.st_dev == st.st_dev && s2.st_ino == st.st_ino) {
            snprintf(err, errlen, "refusing to overwrite input file %s (output %s is the same file)",
                     t->sources[i].path, path);
            return false;
        }
    }
    return true;
}

bool Export_run(const Trace *t, const ExportFilter *f, const char *out_path, ExportResult *res, char *err,
                size_t errlen) {
    ExportResult dummy;
    if (!res) res = &dummy;
    memset(res, 0, sizeof *res);
    if (!out_path || !*out_path) {
        snprintf(err, errlen, "no output file given");
        return false;
    }
    if (t->build) {
        snprintf(err, errlen, "trace is not finished");
        return false;
    }
    Exporter X = {0};
    X.t = t;
    X.f = f;
    if (!select_events(&X, err, errlen)) return false;
    index_by_source(&X);

    /* units: one per rank, or one for everything; src_rank[s] is source s's index in
     * ranks (in order of first appearance), or SIZE_MAX when --rank leaves it out */
    int32_t *ranks = xmalloc((t->n_sources ? t->n_sources : 1) * sizeof *ranks);
    size_t *src_rank = xmalloc((t->n_sources ? t->n_sources : 1) * sizeof *src_rank);
    size_t n_ranks = 0;
    U64Map rank_ids;
    U64Map_init(&rank_ids, t->n_sources);
    for (size_t i = 0; i < t->n_sources; i++) {
        int32_t r = t->sources[i].rank;
        src_rank[i] = SIZE_MAX;
        if (f->rank != INT32_MIN && r != f->rank) continue;
        uint32_t k = U64Map_get(&rank_ids, (uint64_t)(uint32_t)r);
        if (k == U64MAP_NONE) {
            k = (uint32_t)n_ranks;
            U64Map_add(&rank_ids, (uint64_t)(uint32_t)r, k);
            ranks[n_ranks++] = r;
        }
        src_rank[i] = k;
    }
    U64Map_free(&rank_ids);
    OutPath op; /* "-", a device or a FIFO is streamed to; a symlink is followed */
    bool ok = OutPath_resolve(out_path, &op, err, errlen);
    bool to_stream = ok && op.stream;
    OutPath_free(&op);
    bool per_rank = n_ranks > 1 && !f->merge;
    size_t n_units = per_rank ? n_ranks : 1;
    if (ok && n_ranks == 0) {
        snprintf(err, errlen, "no input holds rank %d", f->rank);
        ok = false;
    } else if (ok && per_rank && to_stream) {
        snprintf(err, errlen, "the input holds %zu ranks: writing to %s needs --merge (one merged trace)", n_ranks,
                 strcmp(out_path, "-") ? out_path : "stdout");
        ok = false;
    }
    Unit *units = xcalloc(n_units, sizeof *units);
    for (size_t ui = 0; ui < n_units; ui++) { /* nothing open: what the cleanup below finds */
        units[ui].fd = -1;
        units[ui].file = (AtomicFile)ATOMICFILE_NONE;
    }
    if (ok) { /* each source into its unit, in source order: counted, then placed */
        for (uint32_t s = 0; s < t->n_sources; s++)
            if (src_rank[s] != SIZE_MAX) units[per_rank ? src_rank[s] : 0].n_sources++;
        for (size_t ui = 0; ui < n_units; ui++) {
            units[ui].sources = xmalloc((units[ui].n_sources + 1) * sizeof *units[ui].sources);
            units[ui].n_sources = 0;
        }
        for (uint32_t s = 0; s < t->n_sources; s++)
            if (src_rank[s] != SIZE_MAX) {
                Unit *u = &units[per_rank ? src_rank[s] : 0];
                u->sources[u->n_sources++] = s;
            }
    }
    for (size_t ui = 0; ok && ui < n_units; ui++) {
        Unit *u = &units[ui];
        u->rank = per_rank || n_ranks == 1 ? ranks[ui] : INT32_MIN;
        u->path = per_rank ? Export_rankPath(out_path, ranks[ui]) : xstrdup(out_path);
        if (to_stream) continue;
        OutPath up;
        if (!OutPath_resolve(u->path, &up, err, errlen)) {
            ok = false;
        } else if (up.stream) { /* OUT.rankN.json named a device or FIFO */
            snprintf(err, errlen, "%s is not a regular file (one output per rank needs files)", u->path);
            ok = false;
        } else if (!refuse_input(t, up.path, err, errlen)) {
            ok = false;
        }
        u->target = up.path;
    }
    if (ok && !to_stream && n_units > ATOMICFILE_MAX_LIVE) {
        snprintf(err, errlen, "too many output files (%zu ranks); use --merge", n_units);
        ok = false;
    }
    for (size_t ui = 0; ok && ui < n_units; ui++) {
        Unit *u = &units[ui];
        X.merge_pids = u->n_sources > 1;
        int fd;
        if (to_stream) {
            OutPath sp = {true, (char *)out_path};
            fd = OutPath_openStream(&sp, err, errlen);
            if (fd < 0) {
                ok = false;
                break;
            }
            u->fd = fd;
            if (isatty(fd)) { /* the events' bytes are copied as they are: a trace's names
                                 would reach the terminal raw (termsafe.h), as gzip/zstd refuse */
                snprintf(err, errlen, "refusing to write a trace to a terminal (%s): use -o FILE, or a pipe",
                         strcmp(out_path, "-") ? out_path : "stdout");
                ok = false;
                break;
            }
        } else {
            if (!AtomicFile_open(&u->file, u->target, 0666, true, err, errlen)) {
                ok = false;
                break;
            }
            fd = u->file.fd;
        }
        Out o;
        if (!out_open(&o, fd, ZComp_forPath(u->path), err, errlen)) {
            out_free(&o);
            ok = false;
            break;
        }
        if (!write_unit(&X, &o.w, u, err, errlen)) ok = false;
        if (!out_finish(&o) && ok) {
            snprintf(err, errlen, "%s: %s", strcmp(u->path, "-") ? u->path : "stdout", o.w.err);
            ok = false;
        }
        out_free(&o);
        if (ok && !to_stream && fsync(fd) != 0) {
            snprintf(err, errlen, "%s: fsync failed: %s", u->path, strerror(errno));
            ok = false;
        }
        bool closed = to_stream ? close(fd) == 0 : AtomicFile_closeFd(&u->file);
        if (!closed && ok) {
            snprintf(err, errlen, "%s: close failed: %s", strcmp(u->path, "-") ? u->path : "stdout", strerror(errno));
            ok = false;
        }
        u->fd = -1;
        res->events_written += u->events;
    }
    /* all written: rename; else remove every temporary file */
    for (size_t ui = 0; ok && !to_stream && ui < n_units; ui++) {
        Unit *u = &units[ui];
        if (!AtomicFile_rename(&u->file)) {
            snprintf(err, errlen, "cannot rename %s to %s: %s", u->file.tmp, u->target, strerror(errno));
            ok = false;
            break;
        }
        AtomicFile_syncDir(&u->file);
        res->files_written++;
    }
    if (to_stream && ok) res->files_written = 1;
    res->streamed = to_stream;
    for (size_t ui = 0; ui < n_units; ui++) {
        Unit *u = &units[ui];
        if (u->fd >= 0) close(u->fd);
        AtomicFile_free(&u->file); /* a temporary file not renamed is removed */
        free(u->target);
        free(u->sources);
    }
    if (ok && n_units) snprintf(res->first_path, sizeof res->first_path, "%s", units[0].path);
    for (size_t ui = 0; ui < n_units; ui++) free(units[ui].path);
    if (!ok) res->events_written = 0;
    free(units);
    free(ranks);
    free(src_rank);
    free(X.keep);
    free(X.by_src_off);
    free(X.by_src);
    free(X.lane_kept);
    free(X.scratch);
    Js_free(&X.js);
    return ok;
}
