/* The trace model: building (lanes, metadata, flow points) and finishing (ordering,
 * sub-rows, flow binding). */
#include "ovtrace/trace.h"

#include <stdlib.h>
#include <string.h>

#include "evsort.h"
#include "util.h"

/* qsort/bsearch with a NULL base are undefined even for n == 0 (UBSan says so). */
static void sort_n(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *)) {
    if (n > 1) qsort(base, n, sz, cmp);
}

typedef struct {
    uint32_t source;
    uint8_t kind; /* MetaKind */
    int64_t pid, tid;
    uint32_t str;
    int64_t num;
} MetaRec;

typedef struct {
    uint32_t source;
    int64_t pid, tid, ts;
    uint64_t id;
    uint32_t cat;
    char ph;
    bool enclosing;
} FlowPoint;

typedef struct TraceBuild {
    uint32_t *lane_slots; /* lane id + 1 */
    size_t n_lane_slots;
    size_t cap_lanes;
    MetaRec *meta;
    size_t n_meta, cap_meta;
    FlowPoint *fp;
    size_t n_fp, cap_fp;
    size_t cap_sources;
} TraceBuild;

Trace *Trace_new(void) {
    Trace *t = xcalloc(1, sizeof *t);
    t->strings = StrTab_new();
    t->build = xcalloc(1, sizeof *t->build);
    t->build->n_lane_slots = 64;
    t->build->lane_slots = xcalloc(64, sizeof(uint32_t));
    return t;
}

static void build_free(TraceBuild *b) {
    if (!b) return;
    free(b->lane_slots);
    free(b->meta);
    free(b->fp);
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

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

static uint64_t lane_hash(uint32_t source, bool gpu, int64_t a, int64_t b) {
    return mix(mix(mix(source, gpu), (uint64_t)a), (uint64_t)b);
}

static bool lane_is(const Lane *l, uint32_t source, bool gpu, int64_t a, int64_t b) {
    return l->source == source && l->gpu == gpu && (gpu ? l->device == a && l->stream == b : l->pid == a && l->tid == b);
}

static uint32_t lane_get(Trace *t, uint32_t source, bool gpu, int64_t a, int64_t b, int64_t pid, int64_t tid) {
    TraceBuild *B = t->build;
    size_t mask = B->n_lane_slots - 1, i = lane_hash(source, gpu, a, b) & mask;
    for (uint32_t v; (v = B->lane_slots[i]) != 0; i = (i + 1) & mask)
        if (lane_is(&t->lanes[v - 1], source, gpu, a, b)) return v - 1;
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
    B->lane_slots[i] = id + 1;
    if (t->n_lanes * 2 > B->n_lane_slots) {
        size_t ns = B->n_lane_slots * 2;
        uint32_t *slots = xcalloc(ns, sizeof *slots);
        for (uint32_t k = 0; k < t->n_lanes; k++) {
            const Lane *x = &t->lanes[k];
            size_t j = lane_hash(x->source, x->gpu, x->gpu ? x->device : x->pid, x->gpu ? x->stream : x->tid) & (ns - 1);
            while (slots[j]) j = (j + 1) & (ns - 1);
            slots[j] = k + 1;
        }
        free(B->lane_slots);
        B->lane_slots = slots;
        B->n_lane_slots = ns;
    }
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

void Trace_addFlowPoint(Trace *t, uint32_t source, int64_t pid, int64_t tid, int64_t ts, uint64_t id, uint32_t cat,
                        char ph, bool enclosing) {
    TraceBuild *B = t->build;
    GROW(B->fp, B->cap_fp, B->n_fp + 1);
    B->fp[B->n_fp++] = (FlowPoint){source, pid, tid, ts, id, cat, ph, enclosing};
}

/* ---------- merging a parallel slice ---------- */

void Trace_absorb(Trace *dst, uint32_t dst_source, Trace *src) {
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
            lmap[i] = Trace_gpuLane(dst, dst_source, l->device == l->pid ? pid : l->device,
                                    l->stream == l->tid ? tid : l->stream, pid, tid);
        else
            lmap[i] = Trace_cpuLane(dst, dst_source, pid, tid);
    }
    GROW(dst->events, dst->cap_events, dst->n_events + src->n_events);
    for (size_t i = 0; i < src->n_events; i++) {
        TraceEvent e = src->events[i];
        e.name = smap[e.name];
        e.lane = lmap[e.lane];
        dst->events[dst->n_events++] = e;
    }
    TraceBuild *D = dst->build, *S = src->build;
    for (size_t i = 0; i < S->n_meta; i++) {
        MetaRec m = S->meta[i];
        GROW(D->meta, D->cap_meta, D->n_meta + 1);
        m.source = dst_source;
        m.pid = KEY(m.pid);
        m.tid = KEY(m.tid);
        m.str = smap[m.str];
        D->meta[D->n_meta++] = m;
    }
    GROW(D->fp, D->cap_fp, D->n_fp + S->n_fp);
    for (size_t i = 0; i < S->n_fp; i++) {
        FlowPoint f = S->fp[i];
        f.source = dst_source;
        f.pid = KEY(f.pid);
        f.tid = KEY(f.tid);
        f.cat = smap[f.cat];
        D->fp[D->n_fp++] = f;
    }
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
    if (s->truncated && !d->truncated) {
        d->truncated = true;
        d->truncated_offset = s->truncated_offset;
        d->truncated_path = s->truncated_path;
        s->truncated_path = NULL;
    }
    src->n_events = 0;
    S->n_meta = S->n_fp = 0;
    free(smap);
    free(lmap);
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

static int cmp_lane_order(const void *a, const void *b) {
    const LaneOrder *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->sort != y->sort) return x->sort < y->sort ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Within a lane: by start, parents (longer) before children, then file order. */
static int cmp_event(const TraceEvent *x, const TraceEvent *y) {
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    int64_t dx = x->kind == KIND_COUNTER ? 0 : x->dur, dy = y->kind == KIND_COUNTER ? 0 : y->dur;
    if (dx != dy) return dx > dy ? -1 : 1; /* parents before children */
    return x->src < y->src ? -1 : x->src > y->src;
}

static int cmp_event_depth(const TraceEvent *x, const TraceEvent *y) {
    if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
    return cmp_event(x, y);
}

static void order_groups_and_lanes(Trace *t) {
    TraceBuild *B = t->build;
    sort_n(B->meta, B->n_meta, sizeof *B->meta, cmp_meta);
    /* groups: one per (source, gpu, device|pid) */
    Group *groups = NULL;
    size_t n_groups = 0, cap = 0;
    uint32_t *lane_group = xmalloc(t->n_lanes * sizeof *lane_group);
    for (size_t i = 0; i < t->n_lanes; i++) {
        Lane *l = &t->lanes[i];
        l->rank = t->sources[l->source].rank;
        int64_t id = l->gpu ? l->device : l->pid;
        size_t g;
        for (g = 0; g < n_groups; g++) /* few groups: linear is fine */
            if (groups[g].source == l->source && groups[g].gpu == l->gpu && groups[g].id == id) break;
        if (g == n_groups) {
            GROW(groups, cap, n_groups + 1);
            Group *G = &groups[n_groups++];
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
            G->first_lane = (uint32_t)i; /* provisional: first lane seen */
        }
        lane_group[i] = (uint32_t)g;
        const MetaRec *m = meta_find(B, l->source, META_THREAD_NAME, l->pid, l->tid);
        if (m && m->str) {
            l->name = m->str;
        } else {
            char buf[48];
            int n = l->gpu ? snprintf(buf, sizeof buf, "stream %lld", (long long)l->stream)
                           : l->tid < 0 ? snprintf(buf, sizeof buf, "%s", StrTab_get(t->strings, (uint32_t)(-1 - l->tid)))
                                        : snprintf(buf, sizeof buf, "thread %lld", (long long)l->tid);
            l->name = StrTab_intern(t->strings, buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
        }
        m = meta_find(B, l->source, META_THREAD_SORT, l->pid, l->tid);
        l->sort_index = m ? m->num : (l->gpu ? l->stream : l->tid);
        /* string pids name their own group when no process_name says otherwise */
        if (!groups[g].name && l->pid < 0) groups[g].name = (uint32_t)(-1 - l->pid);
    }
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
    sort_n(lo, t->n_lanes, sizeof *lo, cmp_lane_order);
    uint32_t *lmap = xmalloc((t->n_lanes ? t->n_lanes : 1) * sizeof *lmap);
    Lane *lanes = xmalloc((t->n_lanes ? t->n_lanes : 1) * sizeof *lanes);
    for (size_t i = 0; i < t->n_lanes; i++) {
        lanes[i] = t->lanes[lo[i].old];
        lanes[i].group = lo[i].group;
        lmap[lo[i].old] = (uint32_t)i;
    }
    for (size_t g = 0; g < n_groups; g++) groups[g].n_lanes = 0;
    for (size_t i = t->n_lanes; i-- > 0;) {
        groups[lanes[i].group].first_lane = (uint32_t)i;
        groups[lanes[i].group].n_lanes++;
    }
    for (size_t i = 0; i < t->n_events; i++) t->events[i].lane = lmap[t->events[i].lane];
    free(t->lanes);
    t->lanes = lanes;
    t->groups = groups;
    t->n_groups = n_groups;
    free(lo);
    free(lmap);
    free(gmap);
    free(lane_group);
}

/* Greedy interval partitioning: each event takes the lowest row whose last event has
 * ended. For properly nested CPU ops this is exactly the nesting depth. */
static void assign_depths(Trace *t) {
    int64_t *row_end = NULL;
    size_t row_cap = 0;
    Row *rows = NULL;
    size_t n_rows = 0, rows_cap = 0;
    size_t i = 0;
    for (uint32_t ln = 0; ln < t->n_lanes; ln++) {
        Lane *l = &t->lanes[ln];
        l->first = i;
        size_t n_depth = 0;
        while (i < t->n_events && t->events[i].lane == ln) {
            TraceEvent *e = &t->events[i];
            int64_t s = e->ts, end = TraceEvent_end(e);
            size_t d = 0;
            while (d < n_depth && row_end[d] > s) d++;
            if (d == n_depth) {
                GROW(row_end, row_cap, n_depth + 1);
                n_depth++;
            }
            row_end[d] = end;
            e->depth = (unsigned)(d < 0xfffff ? d : 0xfffff);
            i++;
        }
        l->count = i - l->first;
        if (n_depth > 1) EventSort_sort(t->events + l->first, l->count, cmp_event_depth);
        l->first_row = (uint32_t)n_rows;
        l->n_rows = (uint32_t)n_depth;
        size_t j = l->first;
        for (size_t d = 0; d < n_depth; d++) {
            GROW(rows, rows_cap, n_rows + 1);
            Row *r = &rows[n_rows++];
            r->lane = ln;
            r->depth = (uint32_t)d;
            r->first = j;
            while (j < l->first + l->count && t->events[j].depth == d) j++;
            r->count = j - r->first;
        }
    }
    free(row_end);
    t->rows = rows;
    t->n_rows = n_rows;
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

/* Deepest event of the lane containing ts (start <= ts <= end), or SIZE_MAX. */
static size_t enclosing(const Trace *t, const Lane *l, int64_t ts) {
    for (uint32_t k = l->n_rows; k-- > 0;) {
        const Row *r = &t->rows[l->first_row + k];
        size_t lo = 0, hi = r->count;
        const TraceEvent *ev = t->events + r->first;
        while (lo < hi) { /* first with start > ts */
            size_t mid = lo + (hi - lo) / 2;
            if (ev[mid].ts > ts) hi = mid;
            else lo = mid + 1;
        }
        if (lo > 0 && TraceEvent_end(&ev[lo - 1]) >= ts) return r->first + lo - 1;
    }
    return SIZE_MAX;
}

/* First event of the lane starting at or after ts, or SIZE_MAX. */
static size_t next_slice(const Trace *t, const Lane *l, int64_t ts) {
    size_t best = SIZE_MAX;
    for (uint32_t k = 0; k < l->n_rows; k++) {
        const Row *r = &t->rows[l->first_row + k];
        size_t lo = 0, hi = r->count;
        const TraceEvent *ev = t->events + r->first;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ev[mid].ts >= ts) hi = mid;
            else lo = mid + 1;
        }
        if (lo < r->count && (best == SIZE_MAX || ev[lo].ts < t->events[best].ts)) best = r->first + lo;
    }
    return best;
}

static int cmp_fp(const void *a, const void *b) {
    const FlowPoint *x = a, *y = b;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->cat != y->cat) return x->cat < y->cat ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    int ox = x->ph == 's' ? 0 : x->ph == 't' ? 1 : 2, oy = y->ph == 's' ? 0 : y->ph == 't' ? 1 : 2;
    if (ox != oy) return ox - oy;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Lane named by a flow point's source pid/tid (GPU lanes remember theirs). */
static const Lane *lane_by_raw(const Trace *t, uint32_t source, int64_t pid, int64_t tid) {
    for (size_t i = 0; i < t->n_lanes; i++) {
        const Lane *l = &t->lanes[i];
        if (l->source == source && l->pid == pid && l->tid == tid) return l;
    }
    return NULL;
}

typedef struct {
    uint32_t source, corr;
    uint8_t gpu;
    size_t idx;
} CorrRec;

static int cmp_corr(const void *a, const void *b) {
    const CorrRec *x = a, *y = b;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
    if (x->gpu != y->gpu) return x->gpu < y->gpu ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool is_launch(EventKind k) { return k == KIND_RUNTIME || k == KIND_DRIVER; }
static bool is_gpu_op(EventKind k) { return k == KIND_KERNEL || k == KIND_MEMCPY || k == KIND_MEMSET; }

static void add_flow(Trace *t, size_t *cap, uint64_t id, uint32_t cat, size_t from, size_t to) {
    GROW(t->flows, *cap, t->n_flows + 1);
    t->flows[t->n_flows++] = (Flow){(uint32_t)from, (uint32_t)to, cat, (uint32_t)id};
}

static void bind_flows(Trace *t) {
    TraceBuild *B = t->build;
    size_t cap = 0;
    sort_n(B->fp, B->n_fp, sizeof *B->fp, cmp_fp);
    /* cache lane lookups: flow points come in runs of the same pid/tid */
    const Lane *last = NULL;
    uint32_t last_src = UINT32_MAX;
    int64_t last_pid = 0, last_tid = 0;
    size_t prev_ev = SIZE_MAX;
    for (size_t i = 0; i < B->n_fp; i++) {
        const FlowPoint *f = &B->fp[i];
        bool new_chain = i == 0 || f->source != B->fp[i - 1].source || f->cat != B->fp[i - 1].cat ||
                         f->id != B->fp[i - 1].id;
        if (new_chain) prev_ev = SIZE_MAX;
        if (!last || f->source != last_src || f->pid != last_pid || f->tid != last_tid) {
            last = lane_by_raw(t, f->source, f->pid, f->tid);
            last_src = f->source;
            last_pid = f->pid;
            last_tid = f->tid;
        }
        size_t ev = !last ? SIZE_MAX : f->enclosing ? enclosing(t, last, f->ts) : next_slice(t, last, f->ts);
        if (ev != SIZE_MAX && prev_ev != SIZE_MAX && ev != prev_ev) add_flow(t, &cap, f->id, f->cat, prev_ev, ev);
        if (ev != SIZE_MAX) prev_ev = ev;
    }
    /* Launch→GPU op by correlation id where the source gave no ac2g flow (live CUPTI
     * data, traces without flow events). */
    uint32_t ac2g = StrTab_intern(t->strings, "ac2g", 4);
    bool *bound = xcalloc(t->n_events ? t->n_events : 1, sizeof *bound);
    for (size_t i = 0; i < t->n_flows; i++)
        if (t->flows[i].cat == ac2g) bound[t->flows[i].from] = bound[t->flows[i].to] = true;
    CorrRec *cr = NULL;
    size_t n_cr = 0, cap_cr = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (!e->corr || bound[i]) continue;
        bool gpu = is_gpu_op(e->kind);
        if (!gpu && !is_launch(e->kind)) continue;
        GROW(cr, cap_cr, n_cr + 1);
        cr[n_cr++] = (CorrRec){t->lanes[e->lane].source, e->corr, gpu, i};
    }
    sort_n(cr, n_cr, sizeof *cr, cmp_corr);
    for (size_t i = 0; i < n_cr;) {
        size_t j = i;
        while (j < n_cr && cr[j].source == cr[i].source && cr[j].corr == cr[i].corr) j++;
        /* the group is launches (gpu=0) then GPU ops (gpu=1) */
        if (!cr[i].gpu)
            for (size_t k = i; k < j; k++)
                if (cr[k].gpu) add_flow(t, &cap, cr[i].corr, ac2g, cr[i].idx, cr[k].idx);
        i = j;
    }
    free(cr);
    free(bound);
    /* index by destination for Trace_partner (sorted in Trace_finish) */
    t->flow_by_to = xmalloc((t->n_flows ? t->n_flows : 1) * sizeof *t->flow_by_to);
    for (size_t i = 0; i < t->n_flows; i++) t->flow_by_to[i] = (uint32_t)i;
}

/* qsort has no context argument in C17; thread-local so traces finish on any thread */
static _Thread_local const Trace *g_sort_trace;

static int cmp_flow_from(const void *a, const void *b) {
    const Flow *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

static int cmp_flow_to(const void *a, const void *b) {
    const Flow *x = &g_sort_trace->flows[*(const uint32_t *)a], *y = &g_sort_trace->flows[*(const uint32_t *)b];
    return x->to < y->to ? -1 : x->to > y->to;
}

void Trace_finish(Trace *t) {
    if (!t->build) return;
    /* extent */
    t->t_min = INT64_MAX;
    t->t_max = INT64_MIN;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->ts < t->t_min) t->t_min = e->ts;
        int64_t end = e->flags & EVF_NO_DUR ? e->ts : TraceEvent_end(e);
        if (end > t->t_max) t->t_max = end;
    }
    if (t->n_events == 0) t->t_min = t->t_max = 0;
    for (size_t i = 0; i < t->n_events; i++) { /* B without E runs to the end */
        TraceEvent *e = &t->events[i];
        if (e->flags & EVF_NO_DUR) e->dur = t->t_max - e->ts;
    }
    for (size_t i = 0; i < t->n_sources; i++)
        if (t->sources[i].rank < 0) t->sources[i].rank = (int32_t)i;
    order_groups_and_lanes(t);
    size_t *first = xmalloc((t->n_lanes + 1) * sizeof *first);
    EventSort_groupByLane(t->events, t->n_events, t->n_lanes, first);
    for (size_t l = 0; l < t->n_lanes; l++) EventSort_sort(t->events + first[l], first[l + 1] - first[l], cmp_event);
    free(first);
    assign_depths(t);
    bind_flows(t);
    g_sort_trace = t;
    sort_n(t->flows, t->n_flows, sizeof *t->flows, cmp_flow_from);
    sort_n(t->flow_by_to, t->n_flows, sizeof *t->flow_by_to, cmp_flow_to);
    g_sort_trace = NULL;
    /* give back growth slack */
    if (t->n_events < t->cap_events) {
        t->events = xrealloc(t->events, (t->n_events ? t->n_events : 1) * sizeof *t->events);
        t->cap_events = t->n_events;
    }
    build_free(t->build);
    t->build = NULL;
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
