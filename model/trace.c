/* The trace model: building (lanes, metadata, flow points) and finishing (ordering,
 * sub-rows, flow binding). */
#include "ovtrace/model/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "evsort.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/base/hash.h"
#include "ovtrace/base/map.h"
#include "ovtrace/model/parfor.h"
#include "ovtrace/model/timeunits.h"
#include "subrows.h"

/* qsort/bsearch with a NULL base are undefined even for n == 0 (UBSan says so). */
static void sort_n(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *)) {
    if (n > 1) qsort(base, n, sz, cmp);
}

/* The same with a context argument (glibc's qsort_r: qsort's own algorithm), so traces
 * finish on any number of threads at once with no global for the comparator. */
static void sort_r(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *, void *), void *ctx) {
    if (n > 1) qsort_r(base, n, sz, cmp, ctx);
}

typedef struct {
    uint32_t source;
    uint8_t kind; /* MetaKind */
    int64_t pid, tid;
    uint32_t str;
    int64_t num;
} MetaRec;

/* A thread that flow points name: (source, pid, tid) as the source wrote them. Points
 * refer to it by number: a Kineto trace has one point per ac2g end, on a few threads.
 * last_*: its previous point, the base of the next one's differences in the stream. */
typedef struct {
    uint32_t source;
    int64_t pid, tid;
    int64_t last_ts;
    uint64_t last_id;
    uint32_t last_cat;
    int64_t shift; /* added to its points' times when decoded (Trace_shiftSource) */
} FpThread;

#define FP_MAX_THREADS (1u << 29)

/* Flow points, while the trace is built, are a byte stream (fp_put): a Kineto trace has
 * one per ac2g end, and they are held while the source file is still mapped. Per point
 * a byte of phase, binding rule and which fields follow, then varints: the thread's
 * number when it is not the previous point's, the category when it is not the
 * thread's last, then the time and the id as zigzag differences from the thread's
 * last point: ~5 B a point. The flow step decodes them into 24-B records. */
enum { FPS_ENCLOSING = 1u << 2, FPS_THREAD = 1u << 3, FPS_CAT = 1u << 4, FPS_MAX = 1 + 5 + 5 + 10 + 10 };

/* 24 B. */
typedef struct {
    int64_t ts;
    uint64_t id;
    uint32_t cat;
    uint32_t thread : 29; /* FpThread index */
    uint32_t ph : 2;      /* ph_order: s 0, t 1, f 2 */
    uint32_t enclosing : 1;
} FlowPoint;

typedef struct TraceBuild {
    U64Map lane_map; /* lane_key -> lane ids (several keys can share a hash) */
    size_t cap_lanes;
    MetaRec *meta;
    size_t n_meta, cap_meta;
    FlowPoint *fp; /* decoded: only during the flow step */
    size_t n_fp, cap_fp;
    uint8_t *fps; /* the stream of the n_fp points */
    size_t fps_len, fps_cap;
    uint32_t fps_thread; /* the thread of the stream's last point */
    FpThread *thr;
    size_t n_thr, cap_thr;
    U64Map thr_map; /* hash of (source, pid, tid) -> thread numbers */
    size_t cap_sources;
    uint64_t mapped_max; /* the largest input mapping the load held (Trace_noteMapped) */
    uint32_t *lane_renumber; /* finish: each event's lane -> its number in lane order, or NULL */
} TraceBuild;

void Trace_noteMapped(Trace *t, uint64_t bytes) {
    if (t->build && bytes > t->build->mapped_max) t->build->mapped_max = bytes;
}

Trace *Trace_new(void) {
    Trace *t = xcalloc(1, sizeof *t);
    t->strings = StrTab_new();
    t->build = xcalloc(1, sizeof *t->build);
    U64Map_init(&t->build->lane_map, 32);
    U64Map_init(&t->build->thr_map, 32);
    t->build->fps_thread = UINT32_MAX;
    return t;
}

static void build_free(TraceBuild *b) {
    if (!b) return;
    U64Map_free(&b->lane_map);
    U64Map_free(&b->thr_map);
    free(b->meta);
    free(b->fp);
    free(b->fps);
    free(b->thr);
    free(b->lane_renumber);
    free(b);
}

void Trace_free(Trace *t) {
    if (!t) return;
    build_free(t->build);
    StrTab_free(t->strings);
    free(t->events);
    free(t->lanes);
    free(t->rows);
    free(t->groups);
    free(t->flows);
    free(t->flow_by_to);
    free(t->group_summary);
    for (size_t i = 0; i < t->n_sources; i++) {
        TraceSource *s = &t->sources[i];
        free(s->path);
        free(s->display_time_unit);
        free(s->trace_name);
        free(s->meta_json);
    }
    free(t->sources);
    free(t->diag.first_skip_path);
    free(t->diag.truncated_path);
    free(t->input_warning);
    free(t->dir_warning);
    free(t);
}

uint32_t Trace_addSource(Trace *t, const char *path) {
    GROW(t->sources, t->build->cap_sources, t->n_sources + 1);
    TraceSource *s = &t->sources[t->n_sources];
    memset(s, 0, sizeof *s);
    s->path = xstrdup(path ? path : "");
    s->rank = -1;
    s->world_size = -1;
    return (uint32_t)t->n_sources++;
}

int64_t Trace_stringKey(Trace *t, const char *s, size_t len) {
    return -1 - (int64_t)StrTab_intern(t->strings, s, len);
}

/* ---------- lanes ---------- */

/* The lane map's key. U64Map spreads keys itself, so the last field is xor-ed in
 * rather than mixed: one multiply less per event. */
static uint64_t lane_hash(uint32_t source, bool gpu, int64_t a, int64_t b) {
    return Hash_mix(Hash_mix(source, gpu), (uint64_t)a) ^ (uint64_t)b;
}

/* The map key of a lane as it is now (Trace_moveProcess changes it). */
static uint64_t lane_key(const Lane *l) {
    return lane_hash(l->source, l->gpu, l->gpu ? l->device : l->pid, l->gpu ? l->stream : l->tid);
}

/* GPU lanes are (device, stream); a string pid names a process of its own (a merged
 * export's "rank R pid P"), so it is part of a GPU lane's key too. */
static bool lane_is(const Lane *l, uint32_t source, bool gpu, int64_t a, int64_t b, int64_t pid) {
    return l->source == source && l->gpu == gpu &&
           (gpu ? l->device == a && l->stream == b && (pid >= 0 ? l->pid >= 0 : l->pid == pid)
                : l->pid == a && l->tid == b);
}

static uint32_t lane_get(Trace *t, uint32_t source, bool gpu, int64_t a, int64_t b, int64_t pid, int64_t tid) {
    TraceBuild *B = t->build;
    uint64_t key = lane_hash(source, gpu, a, b);
    size_t pos = U64Map_start(&B->lane_map, key);
    for (uint32_t v; (v = U64Map_next(&B->lane_map, key, &pos)) != U64MAP_NONE;)
        if (lane_is(&t->lanes[v], source, gpu, a, b, pid)) return v;
    GROW(t->lanes, B->cap_lanes, t->n_lanes + 1);
    uint32_t id = (uint32_t)t->n_lanes++;
    Lane *l = &t->lanes[id];
    memset(l, 0, sizeof *l);
    l->gpu = gpu;
    l->source = source;
    l->pid = pid;
    l->tid = tid;
    l->device = gpu ? a : -1;
    l->stream = gpu ? b : -1;
    U64Map_add(&B->lane_map, key, id);
    return id;
}

uint32_t Trace_gpuLane(Trace *t, uint32_t source, int64_t device, int64_t stream, int64_t pid, int64_t tid) {
    return lane_get(t, source, true, device, stream, pid, tid);
}

uint32_t Trace_cpuLane(Trace *t, uint32_t source, int64_t pid, int64_t tid) {
    return lane_get(t, source, false, pid, tid, pid, tid);
}

size_t Trace_append(Trace *t, const TraceEvent *e) {
    GROW(t->events, t->cap_events, t->n_events + 1);
    t->events[t->n_events] = *e;
    return t->n_events++;
}

void Trace_setMeta(Trace *t, uint32_t source, MetaKind k, int64_t pid, int64_t tid, const char *str, size_t len,
                   int64_t num) {
    TraceBuild *B = t->build;
    GROW(B->meta, B->cap_meta, B->n_meta + 1);
    bool proc = k == META_PROCESS_NAME || k == META_PROCESS_LABELS || k == META_PROCESS_SORT;
    B->meta[B->n_meta++] = (MetaRec){source, (uint8_t)k, pid, proc ? 0 : tid,
                                     str ? StrTab_intern(t->strings, str, len) : 0, num};
}

static int ph_order(char ph) { return ph == 's' ? 0 : ph == 't' ? 1 : 2; }

static uint64_t thread_hash(uint32_t source, int64_t pid, int64_t tid) {
    return Hash_mix(Hash_mix(source, (uint64_t)pid), (uint64_t)tid);
}

static bool thread_is(const FpThread *h, uint32_t source, int64_t pid, int64_t tid) {
    return h->source == source && h->pid == pid && h->tid == tid;
}

/* The number of thread (source, pid, tid), added if new; UINT32_MAX past
 * FP_MAX_THREADS. Points come in runs on one thread: the last one is tried first. */
static uint32_t fp_thread(TraceBuild *B, uint32_t source, int64_t pid, int64_t tid) {
    if (B->fps_thread != UINT32_MAX && thread_is(&B->thr[B->fps_thread], source, pid, tid)) return B->fps_thread;
    uint64_t key = thread_hash(source, pid, tid);
    size_t pos = U64Map_start(&B->thr_map, key);
    for (uint32_t v; (v = U64Map_next(&B->thr_map, key, &pos)) != U64MAP_NONE;)
        if (thread_is(&B->thr[v], source, pid, tid)) return v;
    if (B->n_thr >= FP_MAX_THREADS) return UINT32_MAX;
    GROW(B->thr, B->cap_thr, B->n_thr + 1);
    B->thr[B->n_thr] = (FpThread){source, pid, tid, 0, 0, UINT32_MAX, 0};
    U64Map_add(&B->thr_map, key, (uint32_t)B->n_thr);
    return (uint32_t)B->n_thr++;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static const uint8_t *get_varint(const uint8_t *p, uint64_t *v) {
    uint64_t x = 0;
    for (int shift = 0;; shift += 7) {
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
    }
    *v = x;
    return p;
}

/* a - b as a zigzag code (small either way), and back; in uint64, so any two int64s */
static uint64_t zigzag(uint64_t a, uint64_t b) {
    uint64_t d = a - b;
    return (d << 1) ^ (0 - (d >> 63));
}
static uint64_t unzigzag(uint64_t base, uint64_t z) { return base + ((z >> 1) ^ (0 - (z & 1))); }

/* Appends point (thread h, ...) to the stream; ph is ph_order's. */
static void fp_put(TraceBuild *B, uint32_t h, int64_t ts, uint64_t id, uint32_t cat, unsigned ph, bool enclosing) {
    FpThread *th = &B->thr[h];
    if (B->fps_cap - B->fps_len < FPS_MAX) GROW(B->fps, B->fps_cap, B->fps_len + FPS_MAX);
    uint8_t *p = B->fps + B->fps_len, *head = p++;
    *head = (uint8_t)(ph | (enclosing ? FPS_ENCLOSING : 0));
    if (h != B->fps_thread) {
        *head |= FPS_THREAD;
        p = put_varint(p, h);
    }
    if (cat != th->last_cat) {
        *head |= FPS_CAT;
        p = put_varint(p, cat);
    }
    p = put_varint(p, zigzag((uint64_t)ts, (uint64_t)th->last_ts));
    p = put_varint(p, zigzag(id, th->last_id));
    th->last_ts = ts;
    th->last_id = id;
    th->last_cat = cat;
    B->fps_thread = h;
    B->fps_len = (size_t)(p - B->fps);
    B->n_fp++;
}

/* Reading a stream: each thread's last point (threads as the stream's writer numbered
 * them), the last point's thread. */
typedef struct {
    FpThread *last; /* only last_ts, last_id, last_cat are used */
    uint32_t thread;
} FpReader;

static FpReader fp_reader(size_t n_thr) {
    FpReader r = {xmalloc((n_thr ? n_thr : 1) * sizeof *r.last), UINT32_MAX};
    for (size_t i = 0; i < n_thr; i++) r.last[i] = (FpThread){0, 0, 0, 0, 0, UINT32_MAX, 0};
    return r;
}

/* The point at p into *f; returns the next. */
static const uint8_t *fp_get(FpReader *r, const uint8_t *p, FlowPoint *f) {
    uint8_t head = *p++;
    uint64_t v;
    if (head & FPS_THREAD) {
        p = get_varint(p, &v);
        r->thread = (uint32_t)v;
    }
    FpThread *th = &r->last[r->thread];
    if (head & FPS_CAT) {
        p = get_varint(p, &v);
        th->last_cat = (uint32_t)v;
    }
    p = get_varint(p, &v);
    th->last_ts = (int64_t)unzigzag((uint64_t)th->last_ts, v);
    p = get_varint(p, &v);
    th->last_id = unzigzag(th->last_id, v);
    *f = (FlowPoint){th->last_ts, th->last_id, th->last_cat, r->thread, head & 3u, (head & FPS_ENCLOSING) != 0};
    return p;
}

void Trace_addFlowPoint(Trace *t, uint32_t source, int64_t pid, int64_t tid, int64_t ts, uint64_t id, uint32_t cat,
                        char ph, bool enclosing) {
    TraceBuild *B = t->build;
    uint32_t h = fp_thread(B, source, pid, tid);
    if (h == UINT32_MAX) return; /* half a billion threads with flows: no room to name more */
    fp_put(B, h, ts, id, cat, (unsigned)ph_order(ph), enclosing);
}

static bool shifted_in_model(int64_t ts, int64_t dur, int64_t delta) {
    int64_t a, b;
    return !__builtin_add_overflow(ts, delta, &a) && Time_inModel(a) && !__builtin_add_overflow(a, dur, &b) &&
           Time_inModel(b);
}

bool Trace_shiftSource(Trace *t, uint32_t source, size_t first_event, int64_t delta) {
    TraceBuild *B = t->build;
    if (!delta) return true;
    for (int pass = 0; pass < 2; pass++) { /* check everything, then change everything */
        for (size_t i = first_event; i < t->n_events; i++) {
            TraceEvent *e = &t->events[i];
            if (t->lanes[e->lane].source != source) continue;
            int64_t dur = e->kind == KIND_COUNTER || e->dur < 0 ? 0 : e->dur; /* a counter holds its value */
            if (!pass && !shifted_in_model(e->ts, dur, delta)) return false;
            if (pass) e->ts += delta;
        }
    }
    /* flow points are a stream: their threads carry the shift to the decoding */
    for (size_t i = 0; B && i < B->n_thr; i++)
        if (B->thr[i].source == source) B->thr[i].shift = (int64_t)((uint64_t)B->thr[i].shift + (uint64_t)delta);
    return true;
}

void Trace_moveProcess(Trace *t, uint32_t source, int64_t pid, uint32_t to, int64_t new_pid) {
    TraceBuild *B = t->build;
    for (size_t i = 0; i < t->n_lanes; i++) {
        Lane *l = &t->lanes[i];
        if (l->source != source || l->pid != pid) continue;
        l->source = to;
        l->pid = new_pid;
        if (l->gpu && l->device == pid) l->device = new_pid; /* device fell back to the pid */
        /* found under its new key from now on (the entry under the old key no longer
         * matches: lane_get compares the full key) */
        U64Map_add(&B->lane_map, lane_key(l), (uint32_t)i);
    }
    for (size_t i = 0; i < B->n_meta; i++)
        if (B->meta[i].source == source && B->meta[i].pid == pid) B->meta[i].source = to, B->meta[i].pid = new_pid;
    for (size_t i = 0; i < B->n_thr; i++) {
        FpThread *h = &B->thr[i];
        if (h->source != source || h->pid != pid) continue;
        h->source = to;
        h->pid = new_pid;
        U64Map_add(&B->thr_map, thread_hash(h->source, h->pid, h->tid), (uint32_t)i); /* found under its new key */
    }
}

void Trace_deferExtent(Trace *t, int64_t ts, int64_t end) {
    if (ts != INT64_MAX && (!t->deferred_has_min || ts < t->deferred_min)) {
        t->deferred_min = ts;
        t->deferred_has_min = true;
    }
    if (!t->deferred_has_max || end > t->deferred_max) {
        t->deferred_max = end;
        t->deferred_has_max = true;
    }
}

/* ---------- merging a parallel slice ---------- */

/* Events per block of an absorb copy, and 8 times as many bytes of flow-point stream:
 * the events are copied from the end of src's array block by block, the stream read
 * from its start, and the pages done so far given back after each block, so neither is
 * ever held twice whole (a slice holds half the events of a two-thread load). */
#define ABSORB_BLOCK ((size_t)1 << 15)

/* Trace_absorb with src's source i going to dst's source to[i]. */
static void absorb(Trace *dst, const uint32_t *to, Trace *src) {
    size_t n_str = StrTab_count(src->strings);
    uint32_t *smap = xmalloc(n_str * sizeof *smap);
    for (size_t i = 0; i < n_str; i++) /* src's order = first appearance in the slice */
        smap[i] = StrTab_intern(dst->strings, StrTab_get(src->strings, (uint32_t)i),
                                StrTab_len(src->strings, (uint32_t)i));
#define KEY(k) ((k) < 0 ? -1 - (int64_t)smap[-1 - (k)] : (k)) /* string pid/tid keys */
    uint32_t *lmap = xmalloc((src->n_lanes ? src->n_lanes : 1) * sizeof *lmap);
    for (size_t i = 0; i < src->n_lanes; i++) {
        const Lane *l = &src->lanes[i];
        int64_t pid = KEY(l->pid), tid = KEY(l->tid);
        if (l->gpu) /* device/stream fall back to pid/tid keys when args lack them */
            lmap[i] = Trace_gpuLane(dst, to[l->source], l->device == l->pid ? pid : l->device,
                                    l->stream == l->tid ? tid : l->stream, pid, tid);
        else
            lmap[i] = Trace_cpuLane(dst, to[l->source], pid, tid);
    }
    if (src->deferred_has_min) Trace_deferExtent(dst, src->deferred_min, src->deferred_min);
    if (src->deferred_has_max) Trace_deferExtent(dst, INT64_MAX, src->deferred_max);
    GROW(dst->events, dst->cap_events, dst->n_events + src->n_events);
    for (size_t hi = src->n_events; hi > 0;) {
        size_t lo = hi > ABSORB_BLOCK ? hi - ABSORB_BLOCK : 0;
        for (size_t i = lo; i < hi; i++) {
            TraceEvent e = src->events[i];
            e.name = smap[e.name];
            e.lane = lmap[e.lane];
            dst->events[dst->n_events + i] = e;
        }
        release_pages(src->events + lo, src->events + src->n_events);
        hi = lo;
    }
    dst->n_events += src->n_events;
    TraceBuild *D = dst->build, *S = src->build;
    for (size_t i = 0; i < S->n_meta; i++) {
        MetaRec m = S->meta[i];
        GROW(D->meta, D->cap_meta, D->n_meta + 1);
        m.source = to[m.source];
        m.pid = KEY(m.pid);
        m.tid = KEY(m.tid);
        m.str = smap[m.str];
        D->meta[D->n_meta++] = m;
    }
    uint32_t *tmap = xmalloc((S->n_thr ? S->n_thr : 1) * sizeof *tmap);
    for (size_t i = 0; i < S->n_thr; i++)
        tmap[i] = fp_thread(D, to[S->thr[i].source], KEY(S->thr[i].pid), KEY(S->thr[i].tid));
    FpReader r = fp_reader(S->n_thr);
    const uint8_t *p = S->fps, *released = S->fps;
    for (size_t i = 0; i < S->n_fp; i++) {
        FlowPoint f;
        p = fp_get(&r, p, &f);
        if (tmap[f.thread] != UINT32_MAX) { /* times as the destination thread will decode them */
            uint64_t ts = (uint64_t)f.ts + (uint64_t)S->thr[f.thread].shift - (uint64_t)D->thr[tmap[f.thread]].shift;
            fp_put(D, tmap[f.thread], (int64_t)ts, f.id, smap[f.cat], f.ph, f.enclosing);
        }
        if ((size_t)(p - released) >= ABSORB_BLOCK * 8) { /* give back what was read */
            release_pages(S->fps, p);
            released = p;
        }
    }
    free(r.last);
    free(tmap);
#undef KEY
    TraceDiag *d = &dst->diag, *s = &src->diag;
    if (s->skipped && !d->skipped) { /* dst's slice comes first: its first skip stays first */
        d->first_skip_offset = s->first_skip_offset;
        d->first_skip_path = s->first_skip_path;
        s->first_skip_path = NULL;
        memcpy(d->first_skip_reason, s->first_skip_reason, sizeof d->first_skip_reason);
    }
    d->skipped += s->skipped;
    d->ignored += s->ignored;
    d->parallel_slices += s->parallel_slices;
    if (s->truncated && !d->truncated) {
        d->truncated = true;
        d->truncated_offset = s->truncated_offset;
        d->truncated_compression = s->truncated_compression;
        d->truncated_comp_end = s->truncated_comp_end;
        d->truncated_path = s->truncated_path;
        s->truncated_path = NULL;
    }
    src->n_events = 0;
    S->n_meta = S->n_fp = S->fps_len = 0;
    free(smap);
    free(lmap);
}

void Trace_absorb(Trace *dst, uint32_t dst_source, Trace *src) {
    uint32_t *to = xmalloc((src->n_sources ? src->n_sources : 1) * sizeof *to);
    for (size_t i = 0; i < src->n_sources; i++) to[i] = dst_source;
    absorb(dst, to, src);
    free(to);
}

void Trace_absorbFile(Trace *dst, Trace *src) {
    uint32_t *to = xmalloc((src->n_sources ? src->n_sources : 1) * sizeof *to);
    for (size_t i = 0; i < src->n_sources; i++) {
        TraceSource *s = &src->sources[i];
        to[i] = Trace_addSource(dst, s->path);
        TraceSource *d = &dst->sources[to[i]];
        free(d->path);
        *d = *s; /* the strings change hands */
        *s = (TraceSource){0};
    }
    absorb(dst, to, src);
    free(to);
    dst->simulated |= src->simulated;
    dst->deferred += src->deferred;
    if (!dst->input_warning) { /* the first file's, as when the files are read in turn */
        dst->input_warning = src->input_warning;
        src->input_warning = NULL;
    }
    Trace_noteMapped(dst, src->build->mapped_max);
}

/* ---------- finishing ---------- */

static int cmp_meta(const void *a, const void *b) {
    const MetaRec *x = a, *y = b;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return 0;
}

/* When a key repeats (duplicated M events), any one of the equal records is used. */
static const MetaRec *meta_find(const TraceBuild *B, uint32_t source, MetaKind k, int64_t pid, int64_t tid) {
    MetaRec key = {source, (uint8_t)k, pid, tid, 0, 0};
    const MetaRec *m = B->n_meta ? bsearch(&key, B->meta, B->n_meta, sizeof key, cmp_meta) : NULL;
    return m;
}

static int cmp_group(const void *a, const void *b) {
    const Group *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->gpu != y->gpu) return x->gpu ? -1 : 1; /* GPU devices first: this is a GPU tool */
    if (x->sort_index != y->sort_index) return x->sort_index < y->sort_index ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

typedef struct {
    uint32_t old;
    uint32_t group;
    int64_t sort, key;
} LaneOrder;

/* Total: equal keys keep the order the lanes were created in (as a stable sort would). */
static int cmp_lane_order(const void *a, const void *b) {
    const LaneOrder *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->sort != y->sort) return x->sort < y->sort ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->old < y->old ? -1 : x->old > y->old;
}

/* Within a lane: by start, parents (longer) before children; EventSort breaks ties
 * by append order (file order). */
static int cmp_event(const TraceEvent *x, const TraceEvent *y) { return EventSort_cmpTime(x, y); }

/* Whether thread metadata (thread_name or thread_sort_index) is keyed by l's (pid, tid). */
static bool has_thread_meta(const TraceBuild *B, const Lane *l) {
    return meta_find(B, l->source, META_THREAD_NAME, l->pid, l->tid) ||
           meta_find(B, l->source, META_THREAD_SORT, l->pid, l->tid);
}

/* Thread metadata (thread_name, thread_sort_index) is keyed by (pid, tid), which names
 * one GPU lane only when its stream is its tid, or when it is the only GPU lane of that
 * thread: Kineto puts a device-wide sync (args.stream -1) on tid 1 beside stream 1, and
 * both cannot be "stream 1". Returns, per lane, whether the metadata is its own. Lanes
 * without thread metadata never look it up: only the others are counted per thread (a
 * million streams with none cost no table). */
static bool *lanes_owning_thread_meta(const Trace *t) {
    bool *own = xmalloc((t->n_lanes ? t->n_lanes : 1) * sizeof *own);
    U64Map m;
    U64Map_init(&m, 16);
    for (size_t i = 0; i < t->n_lanes; i++) {
        const Lane *l = &t->lanes[i];
        own[i] = true;
        if (!l->gpu || !has_thread_meta(t->build, l)) continue;
        uint64_t key = Hash_mix(Hash_mix(l->source, (uint64_t)l->pid), (uint64_t)l->tid);
        size_t pos = U64Map_start(&m, key);
        uint32_t v;
        while ((v = U64Map_next(&m, key, &pos)) != U64MAP_NONE) { /* the thread's first lane */
            const Lane *o = &t->lanes[v];
            if (o->source == l->source && o->pid == l->pid && o->tid == l->tid) break;
        }
        if (v == U64MAP_NONE) U64Map_add(&m, key, (uint32_t)i); /* one entry per thread: linear */
        else own[i] = own[v] = false;
    }
    U64Map_free(&m);
    for (size_t i = 0; i < t->n_lanes; i++) /* shared: the lane whose stream is the tid keeps it */
        if (!own[i] && t->lanes[i].tid >= 0 && t->lanes[i].stream == t->lanes[i].tid) own[i] = true;
    return own;
}

/* The groups: one per (source, gpu, device|pid), numbered in order of their first lane,
 * found through a hash of that key (a trace may hold a hundred thousand processes). */
typedef struct {
    Group *v;
    size_t n, cap;
    U64Map by_key;
    uint32_t last; /* the group of the lane before */
} GroupSet;

static uint64_t group_key(uint32_t source, bool gpu, int64_t id) {
    return Hash_mix(Hash_mix(source, gpu), (uint64_t)id);
}

static uint32_t group_find(const GroupSet *gs, uint32_t source, bool gpu, int64_t id) {
    uint64_t key = group_key(source, gpu, id);
    size_t pos = U64Map_start(&gs->by_key, key);
    uint32_t g;
    while ((g = U64Map_next(&gs->by_key, key, &pos)) != U64MAP_NONE) {
        const Group *G = &gs->v[g];
        if (G->source == source && G->gpu == gpu && G->id == id) break;
    }
    return g;
}

/* l's group, created with its process metadata when l is its first lane. */
static uint32_t group_of(GroupSet *gs, const TraceBuild *B, const Lane *l, uint32_t lane) {
    int64_t id = l->gpu ? l->device : l->pid;
    if (gs->n) { /* lanes come in runs of the same group */
        const Group *last = &gs->v[gs->last];
        if (last->source == l->source && last->gpu == l->gpu && last->id == id) return gs->last;
    }
    uint32_t g = group_find(gs, l->source, l->gpu, id);
    if (g != U64MAP_NONE) return gs->last = g;
    GROW(gs->v, gs->cap, gs->n + 1);
    g = (uint32_t)gs->n++;
    Group *G = &gs->v[g];
    memset(G, 0, sizeof *G);
    G->gpu = l->gpu;
    G->rank = l->rank;
    G->source = l->source;
    G->id = id;
    const MetaRec *m = meta_find(B, l->source, META_PROCESS_NAME, l->pid, 0);
    G->name = m ? m->str : 0;
    m = meta_find(B, l->source, META_PROCESS_LABELS, l->pid, 0);
    G->label = m ? m->str : 0;
    m = meta_find(B, l->source, META_PROCESS_SORT, l->pid, 0);
    G->sort_index = m ? m->num : id; /* no process_sort_index: by device or pid */
    G->first_lane = lane; /* provisional: first lane seen */
    U64Map_add(&gs->by_key, group_key(l->source, l->gpu, id), g);
    return gs->last = g;
}

/* A lane without a thread_name is labelled "stream N" (GPU), "thread N" (CPU) or by its
 * string tid, within LANE_LABEL_MAX bytes. */
#define LANE_LABEL_MAX 47

/* prefix and the decimal digits of v into buf (LANE_LABEL_MAX + 1 bytes); the length. */
static size_t lane_label(char *buf, const char *prefix, int64_t v) {
    size_t k = strlen(prefix);
    memcpy(buf, prefix, k);
    if (v < 0) buf[k++] = '-';
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    char d[20];
    size_t n = 0;
    do d[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    while (n) buf[k++] = d[--n];
    return k;
}

static uint32_t lane_default_name(StrTab *st, const Lane *l) {
    char buf[LANE_LABEL_MAX + 1];
    if (l->gpu) return StrTab_intern(st, buf, lane_label(buf, "stream ", l->stream));
    if (l->tid >= 0) return StrTab_intern(st, buf, lane_label(buf, "thread ", l->tid));
    uint32_t id = (uint32_t)(-1 - l->tid); /* a string tid: its text up to a '\0' */
    const char *s = StrTab_get(st, id);
    size_t n = strnlen(s, LANE_LABEL_MAX);
    return n == StrTab_len(st, id) ? id : StrTab_intern(st, s, n);
}

/* Whether a string of st starts like a number's label ("stream ", "thread "): a thread
 * or event name may be one. */
static bool has_label_like(const StrTab *st) {
    for (size_t id = 0, n = StrTab_count(st); id < n; id++) {
        const char *s = StrTab_get(st, (uint32_t)id);
        if (StrTab_len(st, (uint32_t)id) > 7 && (!memcmp(s, "stream ", 7) || !memcmp(s, "thread ", 7))) return true;
    }
    return false;
}

#define LABEL_AHEAD 16 /* lanes between a label's prefetch and its slot's use */

/* The labels of the lanes without a thread_name, interned in lane order. When no
 * string of the model starts like one, a "stream N" or "thread N" label is new unless
 * an earlier lane had the same number, which a table of numbers tells (an array for
 * numbers below the count of lanes, a hash of the others): the labels are added with
 * no string compared, most of the step on a million streams. */
static void label_lanes(Trace *t, size_t unnamed) {
    StrTab *st = t->strings;
    StrTab_reserve(st, unnamed);
    bool by_number = !has_label_like(st);
    uint32_t *dense[2] = {NULL, NULL}; /* per kind (stream, thread): id + 1 of label N */
    U64Map sparse;                     /* (kind, N) -> the first lane with that label */
    U64Map_init(&sparse, 16);
    for (size_t i = 0; unnamed && i < t->n_lanes; i++) {
        Lane *l = &t->lanes[i];
        if (by_number && i + LABEL_AHEAD < t->n_lanes) { /* a slot miss per label otherwise */
            const Lane *a = &t->lanes[i + LABEL_AHEAD];
            char buf[LANE_LABEL_MAX + 1];
            if (a->name == STRTAB_NONE && (a->gpu || a->tid >= 0))
                StrTab_prefetch(st, buf, lane_label(buf, a->gpu ? "stream " : "thread ", a->gpu ? a->stream : a->tid));
        }
        if (l->name != STRTAB_NONE) continue;
        int kind = l->gpu ? 0 : 1;
        int64_t v = l->gpu ? l->stream : l->tid;
        if (!by_number || (!l->gpu && l->tid < 0)) {
            l->name = lane_default_name(st, l);
            continue;
        }
        char buf[LANE_LABEL_MAX + 1];
        if (v >= 0 && (uint64_t)v < unnamed) {
            if (!dense[kind]) dense[kind] = xcalloc(unnamed, sizeof *dense[kind]);
            uint32_t *slot = &dense[kind][v];
            if (!*slot) *slot = StrTab_add(st, buf, lane_label(buf, kind ? "thread " : "stream ", v)) + 1;
            l->name = *slot - 1;
            continue;
        }
        uint64_t key = Hash_mix((uint64_t)kind, (uint64_t)v);
        size_t pos = U64Map_start(&sparse, key);
        uint32_t o;
        while ((o = U64Map_next(&sparse, key, &pos)) != U64MAP_NONE) {
            const Lane *L = &t->lanes[o];
            if (L->gpu == l->gpu && (L->gpu ? L->stream : L->tid) == v) break;
        }
        if (o != U64MAP_NONE) {
            l->name = t->lanes[o].name;
        } else {
            l->name = StrTab_add(st, buf, lane_label(buf, kind ? "thread " : "stream ", v));
            U64Map_add(&sparse, key, (uint32_t)i);
        }
    }
    U64Map_free(&sparse);
    free(dense[0]);
    free(dense[1]);
}

/* Lane order within the groups: by sort index, then stream or tid, then creation. */
static bool lanes_in_order(const LaneOrder *lo, size_t n) {
    for (size_t i = 1; i < n; i++)
        if (cmp_lane_order(&lo[i - 1], &lo[i]) > 0) return false;
    return true;
}

static void order_groups_and_lanes(Trace *t) {
    TraceBuild *B = t->build;
    sort_n(B->meta, B->n_meta, sizeof *B->meta, cmp_meta);
    bool *own_meta = lanes_owning_thread_meta(t);
    GroupSet gs = {0};
    U64Map_init(&gs.by_key, 16);
    uint32_t *lane_group = xmalloc((t->n_lanes ? t->n_lanes : 1) * sizeof *lane_group);
    size_t unnamed = 0;
    for (size_t i = 0; i < t->n_lanes; i++) {
        Lane *l = &t->lanes[i];
        l->rank = t->sources[l->source].rank;
        uint32_t g = group_of(&gs, B, l, (uint32_t)i);
        lane_group[i] = g;
        const MetaRec *m = own_meta[i] ? meta_find(B, l->source, META_THREAD_NAME, l->pid, l->tid) : NULL;
        l->name = m && m->str ? m->str : STRTAB_NONE; /* labelled below */
        unnamed += l->name == STRTAB_NONE;
        m = own_meta[i] ? meta_find(B, l->source, META_THREAD_SORT, l->pid, l->tid) : NULL;
        l->sort_index = m ? m->num : (l->gpu ? l->stream : l->tid);
        /* string pids name their own group when no process_name says otherwise */
        if (!gs.v[g].name && l->pid < 0) gs.v[g].name = (uint32_t)(-1 - l->pid);
    }
    label_lanes(t, unnamed);
    U64Map_free(&gs.by_key);
    Group *groups = gs.v;
    size_t n_groups = gs.n;
    /* sort groups, remember old→new */
    uint32_t *gmap = xmalloc((n_groups ? n_groups : 1) * sizeof *gmap);
    for (size_t g = 0; g < n_groups; g++) groups[g].first_lane = (uint32_t)g; /* reuse as old index */
    sort_n(groups, n_groups, sizeof *groups, cmp_group);
    for (size_t g = 0; g < n_groups; g++) gmap[groups[g].first_lane] = (uint32_t)g;
    LaneOrder *lo = xmalloc((t->n_lanes ? t->n_lanes : 1) * sizeof *lo);
    for (size_t i = 0; i < t->n_lanes; i++) {
        const Lane *l = &t->lanes[i];
        lo[i] = (LaneOrder){(uint32_t)i, gmap[lane_group[i]], l->sort_index, l->gpu ? l->stream : l->tid};
    }
    /* lanes are mostly created in order (a stream per kernel's stream number, a rank
     * after another): then there is nothing to sort nor to renumber */
    bool in_order = lanes_in_order(lo, t->n_lanes);
    if (!in_order) sort_n(lo, t->n_lanes, sizeof *lo, cmp_lane_order);
    if (in_order) {
        for (size_t i = 0; i < t->n_lanes; i++) t->lanes[i].group = lo[i].group;
        t->lanes = xrealloc(t->lanes, (t->n_lanes ? t->n_lanes : 1) * sizeof *t->lanes); /* as built */
        B->cap_lanes = t->n_lanes ? t->n_lanes : 1;
    } else {
        uint32_t *lmap = xmalloc((t->n_lanes ? t->n_lanes : 1) * sizeof *lmap);
        Lane *lanes = xmalloc((t->n_lanes ? t->n_lanes : 1) * sizeof *lanes);
        for (size_t i = 0; i < t->n_lanes; i++) {
            lanes[i] = t->lanes[lo[i].old];
            lanes[i].group = lo[i].group;
            lmap[lo[i].old] = (uint32_t)i;
        }
        free(t->lanes);
        t->lanes = lanes;
        B->lane_renumber = lmap; /* applied to the events by layout_lanes' first pass */
    }
    for (size_t g = 0; g < n_groups; g++) groups[g].n_lanes = 0;
    for (size_t i = t->n_lanes; i-- > 0;) {
        groups[t->lanes[i].group].first_lane = (uint32_t)i;
        groups[t->lanes[i].group].n_lanes++;
    }
    t->groups = groups;
    t->n_groups = n_groups;
    free(lo);
    free(gmap);
    free(lane_group);
    free(own_meta);
}

/* FinishOptions.timing: the wall time of each step of Trace_finish (bench/). */
typedef struct {
    FILE *out;
    struct timespec t0;
} Clock;

static Clock clock_start(const FinishOptions *fo) {
    Clock c = {fo->timing, {0, 0}};
    if (c.out) clock_gettime(CLOCK_MONOTONIC, &c.t0);
    return c;
}

static void clock_mark(Clock *c, const char *step) {
    if (!c->out) return;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long anon_kb = -1; /* resident anonymous memory after the step */
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "RssAnon:", 8)) anon_kb = strtol(line + 8, NULL, 10);
    if (f) fclose(f);
    fprintf(c->out, "finish: %-10s %.3f s  anon %ld MB\n", step,
            (double)(t1.tv_sec - c->t0.tv_sec) + (double)(t1.tv_nsec - c->t0.tv_nsec) * 1e-9, anon_kb >> 10);
    c->t0 = t1;
}

/* ---------- lane layout: order, sub-rows, rows ---------- */

/* Lanes 0..nl-1, largest (by first[l + 1] - first[l]) first. */
static uint32_t *lanes_by_size(const size_t *first, size_t nl) {
    size_t *size = xmalloc((nl ? nl : 1) * sizeof *size);
    for (size_t l = 0; l < nl; l++) size[l] = first[l + 1] - first[l];
    uint32_t *order = ParFor_largestFirst(size, nl);
    free(size);
    return order;
}

/* FinishOptions.cancel became non-zero: the steps left are not run. */
static bool finish_cancelled(const FinishOptions *fo) { return fo->cancel && *fo->cancel; }

/* More threads pay off only when a second lane has much to do too (32k items; tests
 * lower that with FinishOptions.parallel_min to run small traces in parallel). */
static int threads_for(const size_t *first, const uint32_t *order, size_t nl, const FinishOptions *fo) {
    size_t min = fo->parallel_min ? (size_t)fo->parallel_min : (1u << 15);
    return nl > 1 && first[order[1] + 1] - first[order[1]] >= min ? fo->threads : 1;
}

typedef struct {
    Trace *t;
    uint32_t *idx;        /* event indices grouped by lane */
    const size_t *first;  /* per lane start in idx (n_lanes + 1) */
    const uint32_t *order; /* lanes, largest first */
    size_t **depth_count; /* per lane: events per sub-row */
    uint32_t *n_depth;
    const atomic_int *cancel; /* FinishOptions.cancel: the lanes left are skipped */
} Layout;

/* One lane: sort its indices by time, give each event the lowest sub-row whose last
 * event has ended (greedy interval partitioning: for properly nested CPU ops this is
 * the nesting depth), then regroup the indices by sub-row, keeping time order. */
static void layout_lane(void *ctx, uint32_t ln, ParScratch *S) {
    Layout *L = ctx;
    if (L->cancel && *L->cancel) return;
    uint32_t **tmp = (uint32_t **)&S->b;
    size_t *tmp_cap = &S->cap_b;
    TraceEvent *ev = L->t->events;
    uint32_t *li = L->idx + L->first[ln];
    size_t m = L->first[ln + 1] - L->first[ln];
    GROW(*tmp, *tmp_cap, m);
    size_t sorted = 1; /* in order already (most lanes): checked here, cmp_event inlined */
    while (sorted < m && cmp_event(&ev[li[sorted - 1]], &ev[li[sorted]]) <= 0) sorted++;
    if (sorted < m) EventSort_sortIndex(ev, li, m, *tmp, NULL); /* NULL: cmp_event's order, inline */
    size_t n_depth = SubRows_assign(ev, li, m, &S->a, &S->cap_a); /* O(m log rows) */
    if (n_depth > SUBROWS_MAX_DEPTH) n_depth = SUBROWS_MAX_DEPTH + 1; /* deeper events share the last row */
    size_t *cnt = xcalloc(n_depth ? n_depth : 1, sizeof *cnt);
    for (size_t k = 0; k < m; k++) cnt[ev[li[k]].depth]++;
    if (n_depth > 1) { /* stable counting scatter by sub-row */
        size_t *at = xmalloc(n_depth * sizeof *at);
        for (size_t d = 0, o = 0; d < n_depth; d++) at[d] = o, o += cnt[d];
        for (size_t k = 0; k < m; k++) (*tmp)[at[ev[li[k]].depth]++] = li[k];
        memcpy(li, *tmp, m * sizeof *li);
        free(at);
    }
    L->depth_count[ln] = cnt;
    L->n_depth[ln] = (uint32_t)n_depth;
}

/* The lane index over chunks of the events: each chunk renumbers its events' lanes
 * (lane_renumber) and counts them, then scatters its indices from where the chunks before
 * it end, so idx is stable (event order within a lane) however many chunks ran. */
typedef struct {
    Trace *t;
    const uint32_t *renumber;
    size_t nl;
    size_t *count; /* per chunk: nl + 2 counters, then its start per lane */
    uint32_t *idx;
} LaneIndex;

static void lane_count(void *ctx, uint32_t c, size_t a, size_t b) {
    LaneIndex *x = ctx;
    size_t *cnt = x->count + (size_t)c * (x->nl + 2);
    TraceEvent *ev = x->t->events;
    if (x->renumber) {
        for (size_t i = a; i < b; i++) {
            uint32_t ln = x->renumber[ev[i].lane];
            ev[i].lane = ln;
            cnt[ln + 2]++;
        }
    } else {
        for (size_t i = a; i < b; i++) cnt[ev[i].lane + 2]++;
    }
}

static void lane_scatter(void *ctx, uint32_t c, size_t a, size_t b) {
    LaneIndex *x = ctx;
    size_t *at = x->count + (size_t)c * (x->nl + 2) + 1; /* at[lane]: its next slot */
    const TraceEvent *ev = x->t->events;
    for (size_t i = a; i < b; i++) x->idx[at[ev[i].lane]++] = (uint32_t)i;
}

/* first[l] and first[l + 1]: lane l's start and end in idx (first zeroed, nl + 2
 * entries); idx: event indices by lane, stable. Chunks run on fo->threads
 * threads where the events are many and the lanes few against them (a chunk's counters
 * are the lanes'). */
static void lane_index(Trace *t, const FinishOptions *fo, size_t *first, uint32_t *idx) {
    size_t n = t->n_events, nl = t->n_lanes;
    size_t nc = fo->parallel_min || nl <= n / 16 ? ParFor_chunkCount(n, fo->parallel_min, fo->threads) : 1;
    LaneIndex x = {t, t->build->lane_renumber, nl, xcalloc(nc * (nl + 2), sizeof(size_t)), idx};
    ParFor_chunks(n, nc, lane_count, &x);
    free(t->build->lane_renumber);
    t->build->lane_renumber = NULL;
    /* each chunk's start within each lane (over the count of the lane before, read
     * already), and each lane's end */
    size_t at = 0;
    for (size_t l = 0; l < nl; l++) {
        for (size_t c = 0; c < nc; c++) {
            size_t *cnt = x.count + c * (nl + 2);
            size_t k = cnt[l + 2];
            cnt[l + 1] = at; /* lane_scatter's at[l] */
            at += k;
        }
        first[l + 1] = at;
    }
    ParFor_chunks(n, nc, lane_scatter, &x);
    free(x.count);
}

/* Orders every lane's events (lanes in parallel on up to fo->threads threads), then
 * moves each event once into place: lane by lane, sub-row by sub-row, by time. */
/* False when cancelled (FinishOptions.cancel) between or during its steps. */
static bool layout_lanes(Trace *t, const FinishOptions *fo) {
    size_t n = t->n_events, nl = t->n_lanes;
    Clock clk = clock_start(fo);
    size_t *first = xcalloc(nl + 2, sizeof *first);
    uint32_t *idx = xmalloc((n ? n : 1) * sizeof *idx);
    lane_index(t, fo, first, idx);
    uint32_t *order = lanes_by_size(first, nl);
    Layout L = {.t = t, .idx = idx, .first = first, .order = order, .cancel = fo->cancel};
    bool ok = false, rows_done = false;
    L.depth_count = xcalloc(nl ? nl : 1, sizeof *L.depth_count);
    L.n_depth = xcalloc(nl ? nl : 1, sizeof *L.n_depth);
    clock_mark(&clk, "  index");
    if (finish_cancelled(fo)) goto out;
    ParFor_run(order, nl, threads_for(first, order, nl, fo), layout_lane, &L);
    clock_mark(&clk, "  lanes");
    if (finish_cancelled(fo)) goto out;
    /* rows, in lane order */
    Row *rows = NULL;
    size_t n_rows = 0, rows_cap = 0;
    for (uint32_t ln = 0; ln < nl; ln++) {
        Lane *l = &t->lanes[ln];
        l->first = first[ln];
        l->count = first[ln + 1] - first[ln];
        l->first_row = (uint32_t)n_rows;
        l->n_rows = L.n_depth[ln];
        size_t at = l->first;
        for (uint32_t d = 0; d < l->n_rows; d++) {
            GROW(rows, rows_cap, n_rows + 1);
            rows[n_rows++] = (Row){ln, d, at, L.depth_count[ln][d]};
            at += L.depth_count[ln][d];
        }
        free(L.depth_count[ln]);
    }
    t->rows = rows;
    t->n_rows = n_rows;
    rows_done = true;
    clock_mark(&clk, "  rows");
    if (finish_cancelled(fo)) goto out;
    /* each rank's events stay in its range: those blocks move on several threads
     * (fo->parallel_min: the tests' small chunks) */
    size_t min_chunk = fo->parallel_min ? (size_t)fo->parallel_min : (1u << 16);
    if (n && (uint64_t)n * sizeof *t->events <= t->build->mapped_max) {
        /* a second event array is smaller than the input's mapping (unmapped by now, its
         * pages given back as they were parsed): gather into it, reads independent and
         * on all threads. It sets the load's resident peak, for a moment. */
        TraceEvent *moved = xmalloc(n * sizeof *moved);
        EventSort_gather(moved, t->events, idx, n, n >= min_chunk ? fo->threads : 1);
        free(t->events);
        t->events = moved;
        t->cap_events = n;
    } else {
        EventSort_permuteChunks(t->events, idx, n, n >= min_chunk ? fo->threads : 1, min_chunk, 1u << 18);
    }
    clock_mark(&clk, "  permute");
    ok = true;
out:
    for (uint32_t ln = 0; !rows_done && ln < nl; ln++) free(L.depth_count[ln]); /* cancelled before the rows */
    free(L.depth_count);
    free(L.n_depth);
    free(order);
    free(idx);
    free(first);
    return ok;
}

size_t Row_lowerBound(const Trace *t, const Row *r, int64_t ts) {
    size_t lo = 0, hi = r->count;
    const TraceEvent *ev = t->events + r->first;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (TraceEvent_end(&ev[mid]) > ts) hi = mid;
        else lo = mid + 1;
    }
    return r->first + lo;
}

/* ---------- flows ---------- */

/* Lane named by a flow point's source pid/tid (GPU lanes remember theirs). */
static uint32_t lane_by_raw(const Trace *t, uint32_t source, int64_t pid, int64_t tid) {
    for (size_t i = 0; i < t->n_lanes; i++) {
        const Lane *l = &t->lanes[i];
        if (l->source == source && l->pid == pid && l->tid == tid) return (uint32_t)i;
    }
    return UINT32_MAX;
}

static int cmp_fp_ts(const void *a, const void *b, void *ctx) {
    const FlowPoint *fp = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (fp[x].ts != fp[y].ts) return fp[x].ts < fp[y].ts ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Binds one lane's flow points (fps sorted by ts) to events: `enclosing` points to the
 * deepest event containing ts (start <= ts <= end), others to the first event starting
 * at or after ts (lowest sub-row on ties). Both searches are sweeps: one cursor per
 * sub-row only moves forward, so a lane costs O(events + points * sub-rows). Among the
 * events that place equally well (every event containing ts; every event at the first
 * start >= ts) the same rule prefers those whose correlation id is the point's id:
 * Kineto's ac2g ids are correlation ids, and a 0 us cudaFuncSetAttribute at the
 * launch's timestamp must not take the launch's flow. Those are the events touching ts
 * (or that start), a few per row, so the preference costs nothing measurable. */
static void bind_lane_points(const Trace *t, const Lane *l, const FlowPoint *fp, const uint32_t *fps, size_t n,
                             uint32_t *ev_of, size_t *cur) {
    const Row *rows = t->rows + l->first_row;
    for (int pass = 0; pass < 2; pass++) {
        bool enclosing = pass == 0;
        for (uint32_t k = 0; k < l->n_rows; k++) cur[k] = 0;
        for (size_t j = 0; j < n; j++) {
            const FlowPoint *f = &fp[fps[j]];
            if (f->enclosing != enclosing) continue;
            bool by_corr = f->id && f->id <= UINT32_MAX;
            size_t found = SIZE_MAX, match = SIZE_MAX;
            for (uint32_t k = l->n_rows; k-- > 0;) {
                const TraceEvent *ev = t->events + rows[k].first;
                size_t c = cur[k];
                if (enclosing) { /* c = events with start <= ts */
                    while (c < rows[k].count && ev[c].ts <= f->ts) c++;
                    if (found == SIZE_MAX && c > 0 && TraceEvent_end(&ev[c - 1]) >= f->ts) found = rows[k].first + c - 1;
                    /* the row's events containing ts: the last to start, and before it
                     * only events that end exactly at ts (rows are disjoint) */
                    for (size_t i = c; by_corr && match == SIZE_MAX && i-- > 0 && TraceEvent_end(&ev[i]) >= f->ts;)
                        if (ev[i].corr == f->id) match = rows[k].first + i;
                } else { /* c = events with start < ts */
                    while (c < rows[k].count && ev[c].ts < f->ts) c++;
                    if (c < rows[k].count && (found == SIZE_MAX || ev[c].ts <= t->events[found].ts))
                        found = rows[k].first + c;
                }
                cur[k] = c;
            }
            if (!enclosing && by_corr && found != SIZE_MAX && t->events[found].corr != f->id) {
                /* the events starting with the found one, by depth, then in row order */
                int64_t start = t->events[found].ts;
                for (uint32_t k = 0; k < l->n_rows && match == SIZE_MAX; k++) {
                    const TraceEvent *ev = t->events + rows[k].first;
                    for (size_t i = cur[k]; i < rows[k].count && ev[i].ts == start; i++)
                        if (ev[i].corr == f->id) {
                            match = rows[k].first + i;
                            break;
                        }
                }
            }
            if (match != SIZE_MAX) found = match;
            ev_of[fps[j]] = found > UINT32_MAX ? UINT32_MAX : (uint32_t)found;
        }
    }
}

typedef struct {
    const Trace *t;
    const FlowPoint *fp;
    uint32_t *by_lane; /* flow point indices grouped by lane */
    const size_t *first;
    uint32_t *ev_of;
} PointBind;

static void bind_lane(void *ctx, uint32_t ln, ParScratch *S) {
    PointBind *P = ctx;
    uint32_t *fps = P->by_lane + P->first[ln];
    size_t m = P->first[ln + 1] - P->first[ln];
    size_t k = 1;
    while (k < m && P->fp[fps[k - 1]].ts <= P->fp[fps[k]].ts) k++;
    if (k < m) { /* written out of time order: sort (file order on ties) */
        sort_r(fps, m, sizeof *fps, cmp_fp_ts, (void *)P->fp);
    }
    const Lane *l = &P->t->lanes[ln];
    GROW(*(size_t **)&S->a, S->cap_a, l->n_rows ? l->n_rows : 1);
    bind_lane_points(P->t, l, P->fp, fps, m, P->ev_of, S->a);
}

/* Event index of every flow point (UINT32_MAX: no lane or no event). */
static uint32_t *bind_points(const Trace *t, const FinishOptions *fo) {
    const TraceBuild *B = t->build;
    size_t n = B->n_fp, nl = t->n_lanes;
    uint32_t *ev_of = xmalloc((n ? n : 1) * sizeof *ev_of);
    uint32_t *lane_of = xmalloc((B->n_thr ? B->n_thr : 1) * sizeof *lane_of); /* per thread */
    for (size_t h = 0; h < B->n_thr; h++) lane_of[h] = lane_by_raw(t, B->thr[h].source, B->thr[h].pid, B->thr[h].tid);
    size_t *first = xcalloc(nl + 2, sizeof *first);
    for (size_t i = 0; i < n; i++) {
        uint32_t l = lane_of[B->fp[i].thread];
        ev_of[i] = UINT32_MAX;
        if (l != UINT32_MAX) first[l + 2]++;
    }
    for (size_t l = 0; l < nl; l++) first[l + 2] += first[l + 1];
    uint32_t *by_lane = xmalloc((n ? n : 1) * sizeof *by_lane);
    for (size_t i = 0; i < n; i++) {
        uint32_t l = lane_of[B->fp[i].thread];
        if (l != UINT32_MAX) by_lane[first[l + 1]++] = (uint32_t)i;
    }
    PointBind P = {t, B->fp, by_lane, first, ev_of};
    /* a lane's sweep walks its events as well as its points (a launch thread's points
     * are few against its CPU ops): the lanes go largest first by both */
    size_t *cost = xmalloc((nl ? nl : 1) * sizeof *cost);
    for (size_t l = 0; l < nl; l++) {
        size_t pts = first[l + 1] - first[l];
        cost[l] = pts ? pts * (t->lanes[l].n_rows ? t->lanes[l].n_rows : 1) + t->lanes[l].count : 0;
    }
    uint32_t *order = ParFor_largestFirst(cost, nl);
    free(cost);
    ParFor_run(order, nl, threads_for(first, order, nl, fo), bind_lane, &P);
    free(order);
    free(by_lane);
    free(first);
    free(lane_of);
    return ev_of;
}

/* A chain's points in flow order: s, t, f, each by time, then file order. */
static bool fp_before(const FlowPoint *fp, uint32_t a, uint32_t b) {
    int oa = fp[a].ph, ob = fp[b].ph;
    if (oa != ob) return oa < ob;
    if (fp[a].ts != fp[b].ts) return fp[a].ts < fp[b].ts;
    return a < b;
}

static int cmp_chain(const void *a, const void *b, void *ctx) {
    const FlowPoint *fp = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return fp_before(fp, x, y) ? -1 : fp_before(fp, y, x) ? 1 : 0;
}

static uint64_t chain_hash(uint32_t source, uint32_t cat, uint64_t id) {
    return Hash_fold(Hash_mix(Hash_mix(Hash_mix(0x9e3779b97f4a7c15ull, source), cat), id));
}

/* Flows found by one part of a grouping (group_flows). */
typedef struct {
    Flow *f;
    size_t n, cap;
} FlowList;

static void add_flow(FlowList *o, uint64_t id, uint32_t cat, size_t from, size_t to) {
    GROW(o->f, o->cap, o->n + 1);
    o->f[o->n++] = (Flow){(uint32_t)from, (uint32_t)to, cat, (uint32_t)id};
}

/* Groups items 0..n-1 by key with an open-addressing table: returns, per item, the
 * next item of its group (UINT32_MAX at the end; a group's items in ascending order)
 * and, in *heads, each group's first item. same(ctx, a, b): do items a and b share a
 * key. Not a U64Map: its table holds a group number per slot (4 bytes, the key is the
 * group's head item, at most 3/4 full), where U64Map's 16-byte slots would take many
 * times the peak memory on a trace with millions of flow points. Items are taken from
 * the last, each put in front of its group, so no group needs its tail remembered; the
 * groups come in no particular order (callers sort what they build from them). */
static uint32_t *group_by_hash(size_t n, uint64_t (*hash)(const void *, uint32_t),
                               bool (*same)(const void *, uint32_t, uint32_t), const void *ctx, uint32_t **heads,
                               size_t *n_heads) {
    size_t cap = 16;
    while (cap < n + n / 3 + 1) cap <<= 1;
    uint32_t *slot = xcalloc(cap, sizeof *slot); /* group number + 1, 0 = empty */
    uint32_t *next = xmalloc((n ? n : 1) * sizeof *next);
    uint32_t *head = xmalloc((n ? n : 1) * sizeof *head);
    size_t ng = 0;
    for (size_t i = n; i-- > 0;) {
        size_t h = (size_t)hash(ctx, (uint32_t)i) & (cap - 1);
        while (slot[h] && !same(ctx, head[slot[h] - 1], (uint32_t)i)) h = (h + 1) & (cap - 1);
        if (!slot[h]) {
            slot[h] = (uint32_t)++ng;
            next[i] = UINT32_MAX;
        } else {
            next[i] = head[slot[h] - 1];
        }
        head[slot[h] - 1] = (uint32_t)i;
    }
    free(slot);
    *heads = head;
    *n_heads = ng;
    return next;
}

/* The grouping of flow points into chains and of correlated events by id: items
 * 0..n-1 (hash, same: group_by_hash's) are split by the top bits of their hash into
 * one part per thread, and each part is grouped on its own thread: equal keys hash
 * alike, so no group spans two parts. `each` gets every group's items in ascending
 * order and adds what it finds to its part's flows, which are appended to t->flows in
 * part order (index_flows then sorts them by a total order: which thread found a flow
 * leaves no trace). */
typedef struct {
    uint64_t (*hash)(const void *ctx, uint32_t i);
    bool (*same)(const void *ctx, uint32_t a, uint32_t b);
    void (*each)(const void *ctx, const uint32_t *items, size_t k, FlowList *out);
    const void *ctx;
} GroupSpec;

typedef struct {
    const GroupSpec *g;
    const uint32_t *item; /* the items by part; NULL: one part of every item */
    const size_t *first;  /* part p holds item[first[p] .. first[p + 1]) */
    FlowList *out;        /* per part */
} GroupParts;

typedef struct {
    const GroupParts *P;
    const uint32_t *item; /* the part's items */
} PartView;

static uint64_t part_hash(const void *ctx, uint32_t i) {
    const PartView *v = ctx;
    return v->P->g->hash(v->P->g->ctx, v->item ? v->item[i] : i);
}

static bool part_same(const void *ctx, uint32_t a, uint32_t b) {
    const PartView *v = ctx;
    return v->item ? v->P->g->same(v->P->g->ctx, v->item[a], v->item[b]) : v->P->g->same(v->P->g->ctx, a, b);
}

static void group_part(void *ctx, uint32_t p, ParScratch *S) {
    GroupParts *P = ctx;
    PartView v = {P, P->item ? P->item + P->first[p] : NULL};
    size_t n = P->first[p + 1] - P->first[p], n_groups;
    uint32_t *heads, *next = group_by_hash(n, part_hash, part_same, &v, &heads, &n_groups);
    uint32_t *items = S->a;
    for (size_t c = 0; c < n_groups; c++) {
        size_t k = 0;
        for (uint32_t i = heads[c]; i != UINT32_MAX; i = next[i]) {
            GROW(items, S->cap_a, k + 1);
            items[k++] = v.item ? v.item[i] : i;
        }
        P->g->each(P->g->ctx, items, k, &P->out[p]);
    }
    S->a = items;
    free(heads);
    free(next);
}

/* Hashing items and sorting them into parts, by chunks of items on parts threads. A
 * part number is kept per item (1 B, not the 8-B hash: group_part hashes again), so
 * the split costs 5 B per item beside the tables. */
typedef struct {
    const GroupSpec *g;
    size_t parts;
    uint8_t *part;
    uint32_t *item;
    size_t count[8][8]; /* per chunk, per part: its items, then where they go */
} HashChunks;

static size_t part_of(uint64_t h, size_t parts) { return (size_t)((h >> 32) * parts >> 32); }

static void hash_chunk(void *ctx, uint32_t c, size_t a, size_t b) {
    HashChunks *x = ctx;
    for (size_t i = a; i < b; i++) {
        x->part[i] = (uint8_t)part_of(x->g->hash(x->g->ctx, (uint32_t)i), x->parts);
        x->count[c][x->part[i]]++;
    }
}

static void scatter_chunk(void *ctx, uint32_t c, size_t a, size_t b) {
    HashChunks *x = ctx;
    size_t *at = x->count[c];
    for (size_t i = a; i < b; i++) x->item[at[x->part[i]]++] = (uint32_t)i;
}

/* Items per part at least (FinishOptions.parallel_min in tests): below, one thread
 * groups them all (and no hash or part array is made). */
#define GROUP_PART_MIN (1u << 16)

static void group_flows(Trace *t, size_t n, const GroupSpec *g, const FinishOptions *fo, size_t *cap) {
    size_t parts = fo->threads > 1 ? (size_t)fo->threads : 1;
    size_t min = fo->parallel_min ? (size_t)fo->parallel_min : GROUP_PART_MIN;
    if (parts > 8) parts = 8;
    while (parts > 1 && n / parts < min) parts--;
    size_t first[9] = {0};
    uint8_t *part = NULL;
    uint32_t *item = NULL;
    if (parts > 1) {
        part = xmalloc(n * sizeof *part);
        item = xmalloc(n * sizeof *item);
        /* hashed and counted by chunks, then each chunk's items scattered after those
         * of the chunks before it: every part keeps its items in ascending order */
        HashChunks x = {g, parts, part, item, {{0}}};
        ParFor_chunks(n, parts, hash_chunk, &x);
        for (size_t p = 0, at = 0; p < parts; p++) {
            first[p] = at;
            for (size_t c = 0; c < parts; c++) {
                size_t k = x.count[c][p];
                x.count[c][p] = at;
                at += k;
            }
        }
        first[parts] = n;
        ParFor_chunks(n, parts, scatter_chunk, &x);
    } else {
        first[1] = n;
    }
    FlowList out[8] = {{0}};
    GroupParts P = {g, item, first, out};
    uint32_t order[8];
    for (uint32_t p = 0; p < parts; p++) order[p] = p;
    ParFor_run(order, parts, (int)parts, group_part, &P);
    free(part);
    free(item);
    for (size_t p = 0; p < parts; p++) {
        GROW(t->flows, *cap, t->n_flows + out[p].n);
        if (out[p].n) memcpy(t->flows + t->n_flows, out[p].f, out[p].n * sizeof *out[p].f);
        t->n_flows += out[p].n;
        free(out[p].f);
    }
}

/* Flow points: a chain is the points of one (source, cat, id). */
typedef struct {
    const TraceBuild *B;
    const uint32_t *ev_of; /* per point: its event, UINT32_MAX for none */
} ChainCtx;

static uint64_t fp_key_hash(const void *ctx, uint32_t i) {
    const TraceBuild *B = ((const ChainCtx *)ctx)->B;
    const FlowPoint *f = &B->fp[i];
    return chain_hash(B->thr[f->thread].source, f->cat, f->id);
}

static bool fp_same(const void *ctx, uint32_t a, uint32_t b) {
    const TraceBuild *B = ((const ChainCtx *)ctx)->B;
    const FlowPoint *x = &B->fp[a], *y = &B->fp[b];
    return x->cat == y->cat && x->id == y->id && B->thr[x->thread].source == B->thr[y->thread].source;
}

/* One chain's points put in flow order; a flow from each bound point's event to the
 * next one's. */
static void chain_flows(const void *ctx, const uint32_t *items, size_t k, FlowList *out) {
    const ChainCtx *c = ctx;
    const FlowPoint *fp = c->B->fp;
    uint32_t small[16], *chain = k <= 16 ? small : xmalloc(k * sizeof *chain);
    memcpy(chain, items, k * sizeof *chain);
    if (k > 16) {
        sort_r(chain, k, sizeof *chain, cmp_chain, (void *)fp);
    } else {
        for (size_t a = 1; a < k; a++) /* insertion: chains are s + f, a few t */
            for (size_t b = a; b > 0 && fp_before(fp, chain[b], chain[b - 1]); b--) {
                uint32_t x = chain[b];
                chain[b] = chain[b - 1];
                chain[b - 1] = x;
            }
    }
    uint32_t prev = UINT32_MAX;
    for (size_t j = 0; j < k; j++) {
        uint32_t ev = c->ev_of[chain[j]];
        if (ev == UINT32_MAX) continue;
        const FlowPoint *f = &fp[chain[j]];
        if (prev != UINT32_MAX && ev != prev) add_flow(out, f->id, f->cat, prev, ev);
        prev = ev;
    }
    if (chain != small) free(chain);
}

/* Correlated events without an ac2g flow: a group is the candidates of one (source,
 * correlation id). */
typedef struct {
    const Trace *t;
    const uint32_t *ev; /* candidate events */
    uint32_t ac2g;      /* the flows' category */
} CorrCtx;

static uint64_t corr_key_hash(const Trace *t, const TraceEvent *e) {
    return chain_hash(t->lanes[e->lane].source, 0, e->corr);
}

static uint64_t corr_hash(const void *ctx, uint32_t i) {
    const CorrCtx *c = ctx;
    return corr_key_hash(c->t, &c->t->events[c->ev[i]]);
}

static bool corr_same(const void *ctx, uint32_t a, uint32_t b) {
    const CorrCtx *c = ctx;
    const TraceEvent *x = &c->t->events[c->ev[a]], *y = &c->t->events[c->ev[b]];
    return x->corr == y->corr && c->t->lanes[x->lane].source == c->t->lanes[y->lane].source;
}

/* The group's first launch to each of its GPU ops. */
static void corr_flows(const void *ctx, const uint32_t *items, size_t k, FlowList *out) {
    const CorrCtx *c = ctx;
    const TraceEvent *ev = c->t->events;
    uint32_t launch = UINT32_MAX;
    for (size_t j = 0; j < k && launch == UINT32_MAX; j++)
        if (EventKind_isLaunch((EventKind)ev[c->ev[items[j]]].kind)) launch = c->ev[items[j]];
    if (launch == UINT32_MAX) return;
    for (size_t j = 0; j < k; j++)
        if (EventKind_isGpuWork((EventKind)ev[c->ev[items[j]]].kind))
            add_flow(out, ev[launch].corr, c->ac2g, launch, c->ev[items[j]]);
}

/* Hash slots counted up to two, 2 bits a slot in one array (a slot's bits share a
 * word, so counting and testing touch one line), 4 slots per key counted: 1 B a key.
 * A slot is its hash's low bits. */
typedef struct {
    uint64_t *w;
    size_t mask;
} SlotCount;

static SlotCount slots_new(size_t keys) {
    size_t n = 32;
    while (n < 4 * keys) n <<= 1;
    return (SlotCount){xcalloc(n / 32, sizeof(uint64_t)), n - 1};
}

static inline void slot_add(SlotCount *s, uint64_t h) {
    h &= s->mask;
    uint64_t *w = &s->w[h >> 5], one = 1ull << ((h & 31) * 2);
    *w |= one | ((*w & one) << 1);
}

/* Whether the slot was counted (twice: more than once). */
static inline bool slot_has(const SlotCount *s, uint64_t h, bool twice) {
    h &= s->mask;
    return (s->w[h >> 5] >> ((h & 31) * 2 + twice)) & 1;
}

static uint64_t fp_chain_hash(const TraceBuild *B, const FlowPoint *f) {
    return chain_hash(B->thr[f->thread].source, f->cat, f->id);
}

/* A chain of one point makes no flow, and most points are alone: Kineto writes an "f"
 * for every kernel and an "s" for few. Before binding and grouping, the points whose
 * chain key's slot (counted as they were decoded) was hit once are dropped: a key with
 * two or more points keeps them all, and a lone point that shares its slot merely
 * stays. The rest keep their order (chains break ties by point number): each chunk
 * packs its own to its front, on a thread of its own where the points are many, and
 * the chunks' are then moved together. */
typedef struct {
    TraceBuild *B;
    const SlotCount *s;
    size_t from[8], kept[8]; /* per chunk: its first point, the points it kept */
} DropChunks;

static void drop_chunk(void *ctx, uint32_t c, size_t a, size_t b) {
    DropChunks *x = ctx;
    FlowPoint *fp = x->B->fp;
    size_t k = a;
    for (size_t i = a; i < b; i++)
        if (slot_has(x->s, fp_chain_hash(x->B, &fp[i]), true)) fp[k++] = fp[i];
    x->from[c] = a;
    x->kept[c] = k - a;
}

static void fp_drop_alone(TraceBuild *B, const SlotCount *s, const FinishOptions *fo) {
    size_t n = B->n_fp, nc = ParFor_chunkCount(n, fo->parallel_min, fo->threads), k = 0;
    DropChunks x = {B, s, {0}, {0}};
    ParFor_chunks(n, nc, drop_chunk, &x);
    for (size_t c = 0; c < nc; k += x.kept[c], c++)
        if (x.kept[c] && x.from[c] != k) memmove(B->fp + k, B->fp + x.from[c], x.kept[c] * sizeof *B->fp);
    B->n_fp = B->cap_fp = k;
    B->fp = xrealloc(B->fp, (k ? k : 1) * sizeof *B->fp);
}

/* The correlation candidates, in event order: launches and GPU work with a correlation
 * id that no ac2g flow touches (bound), found over chunks of the events, each on a
 * thread of its own where the events are many. Only a group with GPU work makes flows,
 * and where ac2g flows bound the kernels most candidates are launches alone (runtime
 * calls that carry a correlation id): a launch is kept only where its key's slot was
 * counted for a GPU-work candidate (the chunks keep each candidate's key hash, its top
 * bit saying GPU work, so the filter reads no event). */
#define CORR_GPU (1ull << 63)

typedef struct {
    const Trace *t;
    const bool *bound;
    uint32_t *item[8];
    uint64_t *key[8];
    size_t n[8], gpu[8];
} CandScan;

static void cand_chunk(void *ctx, uint32_t c, size_t a, size_t b) {
    CandScan *x = ctx;
    uint32_t *item = NULL;
    uint64_t *key = NULL;
    size_t n = 0, cap = 0, cap_key = 0, gpu = 0;
    for (size_t i = a; i < b; i++) {
        const TraceEvent *e = &x->t->events[i];
        bool work = EventKind_isGpuWork((EventKind)e->kind);
        if (!e->corr || x->bound[i] || (!work && !EventKind_isLaunch((EventKind)e->kind))) continue;
        GROW(item, cap, n + 1);
        GROW(key, cap_key, n + 1);
        item[n] = (uint32_t)i;
        key[n++] = (corr_key_hash(x->t, e) & ~CORR_GPU) | (work ? CORR_GPU : 0);
        gpu += work;
    }
    x->item[c] = item; /* once, at the end: the chunks' counts share a line */
    x->key[c] = key;
    x->n[c] = n;
    x->gpu[c] = gpu;
}

static uint32_t *corr_candidates(const Trace *t, const bool *bound, const FinishOptions *fo, size_t *n_out) {
    size_t nc = ParFor_chunkCount(t->n_events, fo->parallel_min, fo->threads);
    CandScan x = {t, bound, {NULL}, {NULL}, {0}, {0}};
    ParFor_chunks(t->n_events, nc, cand_chunk, &x);
    size_t total = 0, gpu = 0;
    for (size_t c = 0; c < nc; c++) total += x.n[c], gpu += x.gpu[c];
    SlotCount s = slots_new(gpu);
    for (size_t c = 0; c < nc; c++)
        for (size_t i = 0; i < x.n[c]; i++)
            if (x.key[c][i] & CORR_GPU) slot_add(&s, x.key[c][i]);
    uint32_t *cand = xmalloc((total ? total : 1) * sizeof *cand);
    size_t k = 0;
    for (size_t c = 0; c < nc; c++) {
        for (size_t i = 0; i < x.n[c]; i++)
            if ((x.key[c][i] & CORR_GPU) || slot_has(&s, x.key[c][i], false)) cand[k++] = x.item[c][i];
        free(x.item[c]);
        free(x.key[c]);
    }
    free(s.w);
    *n_out = k;
    return cand;
}

/* The flow points decoded from their stream into B->fp, each chain key counted in
 * `keys` (fp_drop_alone). It needs nothing the layout does, so it runs beside it. */
typedef struct {
    TraceBuild *B;
    SlotCount keys;
} PointDecode;

static void decode_points(void *ctx) {
    PointDecode *d = ctx;
    TraceBuild *B = d->B;
    B->fp = xmalloc((B->n_fp ? B->n_fp : 1) * sizeof *B->fp);
    FpReader r = fp_reader(B->n_thr);
    d->keys = slots_new(B->n_fp);
    const uint8_t *p = B->fps;
    for (size_t i = 0; i < B->n_fp; i++) {
        p = fp_get(&r, p, &B->fp[i]);
        /* unsigned: a hostile point far out of range binds to nothing, it does not overflow */
        B->fp[i].ts = (int64_t)((uint64_t)B->fp[i].ts + (uint64_t)B->thr[B->fp[i].thread].shift);
        slot_add(&d->keys, fp_chain_hash(B, &B->fp[i]));
    }
    free(r.last);
    free(B->fps); /* the file is closed by now: the records may take their room */
    B->fps = NULL;
    B->fps_len = B->fps_cap = 0;
}

static void bind_flows(Trace *t, const FinishOptions *fo, PointDecode *dec) {
    TraceBuild *B = t->build;
    size_t cap = 0;
    /* flow points: each to its event, then chains (source, cat, id) in flow order */
    Clock clk = clock_start(fo);
    fp_drop_alone(B, &dec->keys, fo);
    free(dec->keys.w);
    dec->keys.w = NULL;
    uint32_t *ev_of = bind_points(t, fo);
    clock_mark(&clk, "  points");
    ChainCtx chains = {B, ev_of};
    group_flows(t, B->n_fp, &(GroupSpec){fp_key_hash, fp_same, chain_flows, &chains}, fo, &cap);
    free(ev_of);
    free(B->fp); /* the largest build array: give it back before the next step's */
    B->fp = NULL;
    B->n_fp = B->cap_fp = 0;
    clock_mark(&clk, "  chains");
    /* Launch→GPU op by correlation id where the source gave no ac2g flow (live CUPTI
     * data, traces without flow events): the group's first launch to each GPU op. */
    uint32_t ac2g = StrTab_intern(t->strings, "ac2g", 4);
    bool *bound = xcalloc(t->n_events ? t->n_events : 1, sizeof *bound);
    for (size_t i = 0; i < t->n_flows; i++)
        if (t->flows[i].cat == ac2g) bound[t->flows[i].from] = bound[t->flows[i].to] = true;
    size_t n_cand;
    uint32_t *cand = corr_candidates(t, bound, fo, &n_cand);
    free(bound);
    CorrCtx cc = {t, cand, ac2g};
    group_flows(t, n_cand, &(GroupSpec){corr_hash, corr_same, corr_flows, &cc}, fo, &cap);
    free(cand);
    clock_mark(&clk, "  corr");
    /* index by destination for Trace_partner (sorted in Trace_finish) */
    t->flow_by_to = xmalloc((t->n_flows ? t->n_flows : 1) * sizeof *t->flow_by_to);
    for (size_t i = 0; i < t->n_flows; i++) t->flow_by_to[i] = (uint32_t)i;
}

/* Total orders: the flow arrays do not depend on the order flows were found in. */
static int cmp_flow_from(const void *a, const void *b) {
    const Flow *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    if (x->cat != y->cat) return x->cat < y->cat ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_flow_to(const void *a, const void *b, void *ctx) {
    const Flow *flows = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const Flow *x = &flows[i], *y = &flows[j];
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* Stable LSD radix passes (16 bits each) over 32-bit keys key(x): one pass per 16 bits
 * that some key uses. Sorts *a, using *b (as large) as the other buffer; on return *a is
 * the sorted one (the two may have swapped). */
#define RADIX_PASSES(T, a, b, n, key)                                                              \
    do {                                                                                           \
        uint32_t hi_ = 0;                                                                          \
        for (size_t i_ = 0; i_ < (n); i_++) hi_ |= key((a)[i_]);                                   \
        size_t *cnt_ = xmalloc(65536 * sizeof *cnt_);                                              \
        for (int sh_ = 0; sh_ < 32 && (sh_ == 0 || (hi_ >> sh_)); sh_ += 16) {                     \
            memset(cnt_, 0, 65536 * sizeof *cnt_);                                                 \
            for (size_t i_ = 0; i_ < (n); i_++) cnt_[(key((a)[i_]) >> sh_) & 0xffff]++;            \
            for (size_t d_ = 0, sum_ = 0; d_ < 65536; d_++) {                                      \
                size_t c_ = cnt_[d_];                                                              \
                cnt_[d_] = sum_;                                                                   \
                sum_ += c_;                                                                        \
            }                                                                                      \
            for (size_t i_ = 0; i_ < (n); i_++) (b)[cnt_[(key((a)[i_]) >> sh_) & 0xffff]++] = (a)[i_]; \
            T *x_ = (a);                                                                           \
            (a) = (b);                                                                             \
            (b) = x_;                                                                              \
        }                                                                                          \
        free(cnt_);                                                                                \
    } while (0)

#define FLOW_FROM(f) ((f).from)

/* Flows sorted by cmp_flow_from and flow_by_to by cmp_flow_to. Both keys lead with an
 * event index, so stable radix passes place the flows (O(flows), where a comparison
 * sort of half a million flows took most of this step, and 256 KB of counters rather
 * than a count per event); only flows sharing a `from` (a launch with several GPU ops)
 * still compare, a few at a time. Passes over flow_by_to (in index order before them)
 * keep the index order within a destination, as cmp_flow_to's tie-break asks. */
static void index_flows(Trace *t) {
    size_t nf = t->n_flows;
    if (nf < 1024) {
        sort_n(t->flows, nf, sizeof *t->flows, cmp_flow_from);
        sort_r(t->flow_by_to, nf, sizeof *t->flow_by_to, cmp_flow_to, t->flows);
        return;
    }
    Flow *a = t->flows, *b = xmalloc(nf * sizeof *b);
    RADIX_PASSES(Flow, a, b, nf, FLOW_FROM);
    free(b);
    t->flows = a;
    for (size_t lo = 0, hi; lo < nf; lo = hi) { /* equal `from`: by (to, cat, id) */
        for (hi = lo + 1; hi < nf && a[hi].from == a[lo].from; hi++) {}
        if (hi - lo > 16) {
            sort_n(a + lo, hi - lo, sizeof *a, cmp_flow_from);
            continue;
        }
        for (size_t i = lo + 1; i < hi; i++)
            for (size_t j = i; j > lo && cmp_flow_from(&a[j], &a[j - 1]) < 0; j--) {
                Flow x = a[j];
                a[j] = a[j - 1];
                a[j - 1] = x;
            }
    }
    uint32_t *x = t->flow_by_to, *y = xmalloc(nf * sizeof *y);
    for (size_t i = 0; i < nf; i++) x[i] = (uint32_t)i;
#define FLOW_TO_OF(i) (a[(i)].to)
    RADIX_PASSES(uint32_t, x, y, nf, FLOW_TO_OF);
#undef FLOW_TO_OF
    free(y);
    t->flow_by_to = x;
}

void Trace_finish(Trace *t) { Trace_finishThreads(t, 1); }

void Trace_finishThreads(Trace *t, int threads) { Trace_finishWith(t, &(FinishOptions){.threads = threads}); }

/* The events' extent over chunks, on fo->threads threads where they are many. */
typedef struct {
    const Trace *t;
    struct {
        int64_t lo, hi;
        size_t open_b;
    } part[8];
} Extent;

static void extent_chunk(void *ctx, uint32_t c, size_t a, size_t b) {
    Extent *x = ctx;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t open_b = 0;
    for (size_t i = a; i < b; i++) {
        const TraceEvent *e = &x->t->events[i];
        bool no_dur = e->flags & EVF_NO_DUR;
        int64_t end = no_dur ? e->ts : TraceEvent_end(e);
        lo = e->ts < lo ? e->ts : lo;
        hi = end > hi ? end : hi;
        open_b += no_dur;
    }
    x->part[c].lo = lo, x->part[c].hi = hi, x->part[c].open_b = open_b;
}

/* Smallest start and largest end (a B without E counting as its start) into *lo, *hi;
 * returns the B events without their E. */
static size_t extent(const Trace *t, const FinishOptions *fo, int64_t *lo, int64_t *hi) {
    size_t nc = ParFor_chunkCount(t->n_events, fo->parallel_min, fo->threads);
    Extent x = {t, {{0, 0, 0}}};
    ParFor_chunks(t->n_events, nc, extent_chunk, &x);
    size_t open_b = 0;
    *lo = INT64_MAX, *hi = INT64_MIN;
    for (size_t c = 0; c < nc; c++) {
        if (x.part[c].lo < *lo) *lo = x.part[c].lo;
        if (x.part[c].hi > *hi) *hi = x.part[c].hi;
        open_b += x.part[c].open_b;
    }
    return open_b;
}

bool Trace_finishWith(Trace *t, const FinishOptions *fo) {
    if (!t->build) return true;
    Clock clk = clock_start(fo);
    clock_mark(&clk, "start");
    /* extent */
    int64_t lo, hi;
    size_t open_b = extent(t, fo, &lo, &hi); /* B events without their E */
    t->t_min = lo;
    t->t_max = hi;
    if (t->n_events == 0) t->t_min = t->t_max = 0;
    /* a GPU-first model spans what the full one will: the same origin */
    if (t->deferred_has_min && (t->n_events == 0 || t->deferred_min < t->t_min)) t->t_min = t->deferred_min;
    if (t->deferred_has_max && (t->n_events == 0 || t->deferred_max > t->t_max)) t->t_max = t->deferred_max;
    if (t->t_max < t->t_min) t->t_max = t->t_min;
    for (size_t i = 0; open_b && i < t->n_events; i++) { /* B without E runs to the end */
        TraceEvent *e = &t->events[i];
        if (e->flags & EVF_NO_DUR) e->dur = t->t_max - e->ts;
    }
    for (size_t i = 0; i < t->n_sources; i++)
        if (t->sources[i].rank < 0) t->sources[i].rank = fo->rank_base + (int32_t)i;
    size_t n_fp = t->build->n_fp;
    if (fo->step) fo->step(fo->step_ctx, FINISH_LANES, t->n_events, t->n_lanes, n_fp);
    order_groups_and_lanes(t);
    clock_mark(&clk, "groups");
    if (fo->step) fo->step(fo->step_ctx, FINISH_SORT, t->n_events, t->n_lanes, n_fp);
    if (finish_cancelled(fo)) return false;
    /* the flow points are decoded beside the layout, on a thread of their own where
     * threads are several and the points many (else after it: their records are not
     * held through the layout's peak) */
    PointDecode dec = {t->build, {NULL, 0}};
    ParTask decoding;
    size_t min = fo->parallel_min ? (size_t)fo->parallel_min : GROUP_PART_MIN;
    ParTask_start(&decoding, fo->threads > 1 && n_fp >= min, decode_points, &dec);
    bool laid = layout_lanes(t, fo);
    if (!laid && !decoding.started) return false; /* nothing decoded */
    ParTask_join(&decoding);
    if (!laid) {
        free(dec.keys.w);
        return false;
    }
    clock_mark(&clk, "layout");
    if (fo->step) fo->step(fo->step_ctx, FINISH_FLOWS, t->n_events, t->n_lanes, n_fp);
    if (finish_cancelled(fo)) {
        free(dec.keys.w);
        return false;
    }
    bind_flows(t, fo, &dec);
    clock_mark(&clk, "flows");
    if (finish_cancelled(fo)) return false;
    index_flows(t);
    clock_mark(&clk, "flowidx");
    /* give back growth slack */
    if (t->n_events < t->cap_events) {
        t->events = xrealloc(t->events, (t->n_events ? t->n_events : 1) * sizeof *t->events);
        t->cap_events = t->n_events;
    }
    build_free(t->build);
    t->build = NULL;
    return true;
}

/* ---------- queries ---------- */

uint32_t Trace_laneOf(const Trace *t, size_t idx) { return t->events[idx].lane; }

size_t Trace_partner(const Trace *t, size_t idx) {
    size_t lo = 0, hi = t->n_flows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->flows[mid].from < idx) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < t->n_flows && t->flows[i].from == idx; i++) {
        const char *c = StrTab_get(t->strings, t->flows[i].cat);
        if (!strcmp(c, "ac2g") || !strcmp(c, "async")) return t->flows[i].to;
    }
    lo = 0;
    hi = t->n_flows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->flows[t->flow_by_to[mid]].to < idx) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < t->n_flows && t->flows[t->flow_by_to[i]].to == idx; i++) {
        const Flow *f = &t->flows[t->flow_by_to[i]];
        const char *c = StrTab_get(t->strings, f->cat);
        if (!strcmp(c, "ac2g") || !strcmp(c, "async")) return f->from;
    }
    return SIZE_MAX;
}

size_t Trace_memoryBytes(const Trace *t) {
    return sizeof *t + t->cap_events * sizeof *t->events + t->n_lanes * sizeof *t->lanes +
           t->n_rows * sizeof *t->rows + t->n_groups * sizeof *t->groups +
           t->n_flows * (sizeof *t->flows + sizeof *t->flow_by_to) + StrTab_bytes(t->strings);
}

const char *EventKind_name(EventKind k) {
    static const char *N[] = {"kernel", "memcpy",  "memset",  "sync",   "gpu_annotation", "cpu_op",  "runtime",
                              "driver", "python",  "annotation", "instant", "counter", "other"};
    return k < KIND__COUNT ? N[k] : "?";
}

static const char *CLASS_NAMES[] = {"compute", "comm", "memory", "sync", "cpu", "annotation", "other"};

const char *EventClass_name(EventClass c) { return c < CLASS__COUNT ? CLASS_NAMES[c] : "?"; }

int EventClass_parse(const char *s) {
    for (int i = 0; i < CLASS__COUNT; i++)
        if (!strcmp(s, CLASS_NAMES[i])) return i;
    if (!strcmp(s, "communication")) return CLASS_COMM;
    if (!strcmp(s, "mem")) return CLASS_MEMORY;
    return -1;
}
