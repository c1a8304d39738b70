/* Live preview of the timeline while loading: bucketed busy time per lane and class,
 * for the lanes of the lines a screen can show. */
#include "preview.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ruler.h"
#include "tindex.h"

#define PENDING_MAX 1024 /* zero-duration kernels waiting for a duration */
#define PENDING_AGE 4    /* updates (8 MB each) before one is dropped */
#define INITIAL_SHIFT 10 /* 1 us buckets until the events say otherwise */

/* PreviewModel.flags, per lane */
enum {
    LANE_DENIED = 1,       /* asked for buckets when the budget was spent */
    LANE_STREAM_KNOWN = 2, /* the comm-stream rule was asked */
    LANE_COMM_STREAM = 4,  /* its kernels are comm (CommRules_streamIsComm) */
};

static void set_range(PreviewModel *p, int64_t t0, int shift) {
    p->t0 = t0;
    p->shift = shift;
    __int128 end = (__int128)t0 + ((__int128)p->n_buckets << shift);
    p->t_end = end > INT64_MAX ? INT64_MAX : (int64_t)end;
}

/* What one slot's buckets take in the live model (busy and the difference array). */
static size_t slot_bytes(int n_buckets) {
    return (size_t)n_buckets * (sizeof(int64_t) + sizeof(int32_t)) + sizeof(int32_t);
}

PreviewModel *Preview_new(const CommRules *rules, int n_buckets) {
    PreviewModel *p = xcalloc(1, sizeof *p);
    if (n_buckets <= 0) n_buckets = PREVIEW_BUCKETS;
    if (n_buckets < 2) n_buckets = 2;
    p->n_buckets = n_buckets & ~1; /* pairs merge */
    p->rules = rules; /* NULL: the defaults, compiled when first needed (off the first frame's path) */
    set_range(p, 0, INITIAL_SHIFT);
    for (int k = 0; k < KIND__COUNT; k++) p->kind_cls[k] = (uint8_t)Classify_event(NULL, (EventKind)k, 0, NULL, 0);
    p->pending = xcalloc(PENDING_MAX, sizeof *p->pending);
    p->pending_age = xcalloc(PENDING_MAX, 1);
    p->max_slots = PREVIEW_MAX_BUCKET_BYTES / slot_bytes(p->n_buckets);
    p->free_slot = -1;
    return p;
}

/* A handful of arrays whatever the lane count: freeing is O(1) in allocations. */
void Preview_free(PreviewModel *p) {
    if (!p) return;
    free(p->order);
    free(p->pos);
    free(p->head);
    free(p->flags);
    free(p->src_rank);
    free(p->lines);
    free(p->slots);
    free(p->busy);
    free(p->full);
    free(p->pending);
    free(p->pending_age);
    free(p->name_cls);
    CommRules_free(p->own_rules);
    free(p);
}

size_t Preview_memoryBytes(const PreviewModel *p) {
    size_t nb = (size_t)p->n_buckets, b = sizeof *p;
    if (p->order) b += p->cap_lanes * (3 * sizeof(uint32_t) + 1);
    b += p->n_src * sizeof *p->src_rank + (p->lines ? PREVIEW_MAX_LINES * sizeof *p->lines : 0);
    b += p->cap_slots * (sizeof *p->slots + nb * sizeof *p->busy + (p->full ? (nb + 1) * sizeof *p->full : 0));
    b += PENDING_MAX * (sizeof *p->pending + 1) + p->n_name_cls;
    return b;
}

uint32_t Preview_laneAt(const PreviewModel *p, size_t k) { return p->order && k < p->n_lanes ? p->order[k] : 0; }

/* ---------- buckets ---------- */

static int64_t *busy_of(const PreviewModel *p, size_t s) { return p->busy + s * (size_t)p->n_buckets; }
static int32_t *full_of(const PreviewModel *p, size_t s) { return p->full + s * ((size_t)p->n_buckets + 1); }

/* Folds the whole-bucket counts of slot s into busy. */
static void flush_slot(const PreviewModel *p, size_t s) {
    int64_t c = 0, bw = (int64_t)1 << p->shift, *busy = busy_of(p, s);
    int32_t *full = full_of(p, s);
    for (int b = 0; b < p->n_buckets; b++) {
        c += full[b];
        if (c) busy[b] += c * bw;
        full[b] = 0;
    }
    full[p->n_buckets] = 0;
}

/* Doubles the bucket width. left: the range grows to the left (the old buckets become
 * the upper half), else to the right (they become the lower half). Exact: each new
 * bucket is the union of two old ones. */
static void rescale(PreviewModel *p, bool left) {
    int nb = p->n_buckets, half = nb / 2;
    for (size_t s = 0; s < p->n_slots; s++) {
        if (p->slots[s].lane == PREVIEW_FREE) continue;
        flush_slot(p, s);
        int64_t *busy = busy_of(p, s);
        if (left) {
            for (int j = nb - 1; j >= half; j--) busy[j] = busy[2 * (j - half)] + busy[2 * (j - half) + 1];
            memset(busy, 0, (size_t)half * sizeof *busy);
        } else {
            for (int j = 0; j < half; j++) busy[j] = busy[2 * j] + busy[2 * j + 1];
            memset(busy + half, 0, (size_t)half * sizeof *busy);
        }
    }
    __int128 t0 = left ? (__int128)p->t0 - ((__int128)nb << p->shift) : p->t0;
    set_range(p, (int64_t)t0, p->shift + 1);
}

/* Grows the range until [a, b] fits; false when it cannot grow further (the event is
 * clipped to the range). */
static bool fit(PreviewModel *p, int64_t a, int64_t b) {
    while (a < p->t0 || b > p->t_end) {
        bool left = a < p->t0;
        if (((__int128)p->n_buckets << (p->shift + 1)) >= ((__int128)1 << 62)) return false; /* keep ranges in int64 */
        if (left && (__int128)p->t0 - ((__int128)p->n_buckets << p->shift) < INT64_MIN) return false;
        rescale(p, left);
    }
    return true;
}

static void add_busy(const PreviewModel *p, size_t s, int64_t a, int64_t b) {
    int sh = p->shift;
    int64_t *busy = busy_of(p, s);
    uint64_t ra = (uint64_t)a - (uint64_t)p->t0, rb = (uint64_t)b - (uint64_t)p->t0; /* t0 <= a < b <= t_end */
    int b0 = (int)(ra >> sh), b1 = (int)((rb - 1) >> sh);
    if (b0 == b1) {
        busy[b0] += b - a;
        return;
    }
    busy[b0] += (int64_t)(((uint64_t)(b0 + 1) << sh) - ra);
    busy[b1] += (int64_t)(rb - ((uint64_t)b1 << sh));
    if (b1 > b0 + 1) { /* whole buckets in between, O(1) whatever the length */
        int32_t *full = full_of(p, s);
        full[b0 + 1]++;
        full[b1]--;
    }
}

/* A slot from the free list or the pool's end (the arrays grow by doubling up to the
 * budget); -1 when the budget is spent. Its buckets are zero. */
static int32_t slot_take(PreviewModel *p) {
    size_t s;
    if (p->free_slot >= 0) {
        s = (size_t)p->free_slot;
        p->free_slot = p->slots[s].next;
    } else {
        if (p->n_slots >= p->max_slots) return -1;
        if (p->n_slots == p->cap_slots) {
            size_t cap = p->cap_slots ? p->cap_slots * 2 : 64, nb = (size_t)p->n_buckets;
            if (cap > p->max_slots) cap = p->max_slots;
            p->slots = xrealloc(p->slots, cap * sizeof *p->slots);
            p->busy = xrealloc(p->busy, cap * nb * sizeof *p->busy);
            p->full = xrealloc(p->full, cap * (nb + 1) * sizeof *p->full);
            p->cap_slots = cap;
        }
        s = p->n_slots++;
    }
    memset(busy_of(p, s), 0, (size_t)p->n_buckets * sizeof *p->busy);
    memset(full_of(p, s), 0, ((size_t)p->n_buckets + 1) * sizeof *p->full);
    p->bucket_bytes += slot_bytes(p->n_buckets);
    return (int32_t)s;
}

/* Gives every slot of lane l back. */
static void lane_release(PreviewModel *p, uint32_t l) {
    for (int32_t s = p->head[l], next; s >= 0; s = next) {
        next = p->slots[s].next;
        p->slots[s].lane = PREVIEW_FREE;
        p->slots[s].next = p->free_slot;
        p->free_slot = s;
        p->bucket_bytes -= slot_bytes(p->n_buckets);
    }
    p->head[l] = -1;
}

/* The slot of lane l for class cls, made on first use; -1 when the lane is off the
 * lines (nothing draws it) or the budget is spent (the lane is counted: the header
 * says how many lanes show no busy time). */
static int32_t slot_for(PreviewModel *p, uint32_t l, int cls) {
    if (p->pos[l] >= p->window_end) return -1;
    for (int32_t s = p->head[l]; s >= 0; s = p->slots[s].next)
        if (p->slots[s].cls == cls) return s;
    if (p->flags[l] & LANE_DENIED) return -1; /* its busy time is already incomplete */
    int32_t s = slot_take(p);
    if (s < 0) {
        p->flags[l] |= LANE_DENIED;
        p->lanes_no_slot++;
        return -1;
    }
    p->slots[s] = (PreviewSlot){l, 0, (uint8_t)cls, p->head[l]};
    p->head[l] = s;
    return s;
}

/* ---------- lanes ---------- */

static const CommRules *rules_of(PreviewModel *p) {
    if (!p->rules) p->rules = p->own_rules = CommRules_default();
    return p->rules;
}

typedef struct {
    const Trace *t;
    const int32_t *rank;
} OrderCtx;

/* Display order, as Trace_finish orders lanes without metadata: rank, source, GPU
 * devices first, device or pid; then (lanes) stream or tid. */
static int cmp_group(const OrderCtx *c, const Lane *x, const Lane *y) {
    int32_t rx = c->rank[x->source], ry = c->rank[y->source];
    if (rx != ry) return rx < ry ? -1 : 1;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->gpu != y->gpu) return x->gpu ? -1 : 1;
    int64_t gx = x->gpu ? x->device : x->pid, gy = y->gpu ? y->device : y->pid;
    return gx < gy ? -1 : gx > gy;
}

static int cmp_lane(const OrderCtx *c, uint32_t a, uint32_t b) {
    const Lane *x = &c->t->lanes[a], *y = &c->t->lanes[b];
    int r = cmp_group(c, x, y);
    if (r) return r;
    int64_t kx = x->gpu ? x->stream : x->tid, ky = y->gpu ? y->stream : y->tid;
    if (kx != ky) return kx < ky ? -1 : 1;
    return (a > b) - (a < b);
}

static int order_cmp(const void *pa, const void *pb, void *ctx) {
    return cmp_lane(ctx, *(const uint32_t *)pa, *(const uint32_t *)pb);
}

/* Lanes in display order: order[0, sorted) is in order already; the lanes after it are
 * sorted and merged in, O(n + k log k) for k new lanes (a million lanes arriving over
 * many updates never costs a quadratic sort; lanes arriving in order skip the merge).
 * sorted 0: everything is sorted anew. Then pos follows order. */
static void sort_order(PreviewModel *p, const OrderCtx *c, size_t sorted) {
    size_t n = p->n_lanes;
    if (sorted >= n) return;
    qsort_r(p->order + sorted, n - sorted, sizeof *p->order, order_cmp, (void *)c);
    size_t from = sorted;
    if (sorted && cmp_lane(c, p->order[sorted - 1], p->order[sorted]) > 0) {
        uint32_t *m = xmalloc(n * sizeof *m);
        size_t i = 0, j = sorted, o = 0;
        while (i < sorted && j < n) m[o++] = cmp_lane(c, p->order[j], p->order[i]) < 0 ? p->order[j++] : p->order[i++];
        while (i < sorted) m[o++] = p->order[i++];
        while (j < n) m[o++] = p->order[j++];
        memcpy(p->order, m, n * sizeof *m);
        free(m);
        from = 0;
    }
    for (size_t k = from; k < n; k++) p->pos[p->order[k]] = (uint32_t)k;
}

static int32_t rank_of(const Trace *t, uint32_t source) {
    if (source < t->n_sources && t->sources[source].rank >= 0) return t->sources[source].rank;
    return (int32_t)source; /* what Trace_finish falls back to */
}

static void string_key(const Trace *t, int64_t key, char *out, size_t n) {
    snprintf(out, n, "%s", StrTab_get(t->strings, (uint32_t)(-1 - key)));
}

static void group_label(const PreviewModel *p, const Trace *t, const Lane *l, char *out, size_t n) {
    char rank[24] = "", name[32];
    if (p->multi_source) snprintf(rank, sizeof rank, "rank %d ", p->src_rank[l->source]);
    if (l->gpu) {
        snprintf(out, n, "%sGPU %" PRId64, rank, l->device);
    } else if (l->pid < 0) {
        string_key(t, l->pid, name, sizeof name);
        /* a long name is cut, as a display label may be; keeping the count tells gcc so
         * (-Wformat-truncation at -O0 cannot bound the rank's length and warns) */
        int len = snprintf(out, n, "%sCPU \"%s\"", rank, name);
        (void)len;
    } else {
        snprintf(out, n, "%sCPU pid %" PRId64, rank, l->pid);
    }
}

/* First position in [k, n) whose lane is not in the group of order[k]: a binary search,
 * as groups are contiguous in the order. */
static size_t group_end(const PreviewModel *p, const OrderCtx *c, size_t k) {
    const Lane *g = &c->t->lanes[p->order[k]];
    size_t lo = k + 1, hi = p->n_lanes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_group(c, &c->t->lanes[p->order[mid]], g) == 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool push_line(PreviewModel *p, PreviewLineKind kind, size_t first, size_t n) {
    if (p->n_lines == PREVIEW_MAX_LINES) {
        p->more_lines = true;
        return false;
    }
    p->lines[p->n_lines++] = (PreviewLine){(uint8_t)kind, (uint32_t)first, (uint32_t)n, ""};
    return true;
}

/* The first PREVIEW_MAX_LINES lines: GPU groups expanded (header + one line per
 * stream), CPU groups one line each; labelled here, where the trace's strings are. */
static void build_lines(PreviewModel *p, const OrderCtx *c) {
    if (!p->lines) p->lines = xcalloc(PREVIEW_MAX_LINES, sizeof *p->lines);
    p->n_lines = 0;
    p->more_lines = false;
    size_t k = 0;
    while (k < p->n_lanes) {
        size_t end = group_end(p, c, k);
        const Lane *l = &c->t->lanes[p->order[k]];
        if (!push_line(p, l->gpu ? PLINE_GROUP : PLINE_CPU, k, end - k)) break;
        group_label(p, c->t, l, p->lines[p->n_lines - 1].label, sizeof p->lines->label);
        if (!l->gpu) {
            k = end;
            continue;
        }
        for (; k < end; k++) {
            if (!push_line(p, PLINE_LANE, k, 1)) break;
            /* the label Trace_finish gives a stream without a thread_name */
            snprintf(p->lines[p->n_lines - 1].label, sizeof p->lines->label, "stream %" PRId64,
                     c->t->lanes[p->order[k]].stream);
        }
        if (k < end) break;
    }
    p->window_end = k;
}

/* After the lines changed: lanes pushed off them give their slots back, and the lanes
 * without buckets are counted again among those on the lines. O(slots + window). */
static void fit_window(PreviewModel *p) {
    for (size_t s = 0; s < p->n_slots; s++) {
        uint32_t l = p->slots[s].lane;
        if (l != PREVIEW_FREE && p->pos[l] >= p->window_end) lane_release(p, l);
    }
    p->lanes_no_slot = 0;
    for (size_t k = 0; k < p->window_end; k++) p->lanes_no_slot += p->flags[p->order[k]] & LANE_DENIED;
}

static void add_lanes(PreviewModel *p, const Trace *t) {
    bool changed = false;
    size_t sorted = p->n_lanes; /* the lanes known so far are in order unless a rank moved */
    bool multi = t->n_sources > 1;
    if (multi != p->multi_source) p->multi_source = multi, changed = true;
    /* ranks may become known later in a file (distributedInfo after the events) */
    if (t->n_sources > p->n_src) {
        p->src_rank = xrealloc(p->src_rank, t->n_sources * sizeof *p->src_rank);
        for (size_t s = p->n_src; s < t->n_sources; s++) p->src_rank[s] = rank_of(t, (uint32_t)s);
        p->n_src = t->n_sources;
    }
    for (size_t s = 0; s < p->n_src; s++) {
        int32_t r = rank_of(t, (uint32_t)s);
        if (r != p->src_rank[s]) p->src_rank[s] = r, changed = true, sorted = 0;
    }
    if (t->n_lanes > p->n_lanes) {
        if (t->n_lanes > p->cap_lanes) {
            size_t cap = p->cap_lanes ? p->cap_lanes * 2 : 16;
            while (cap < t->n_lanes) cap *= 2;
            p->order = xrealloc(p->order, cap * sizeof *p->order);
            p->pos = xrealloc(p->pos, cap * sizeof *p->pos);
            p->head = xrealloc(p->head, cap * sizeof *p->head);
            p->flags = xrealloc(p->flags, cap);
            p->cap_lanes = cap;
        }
        for (size_t i = p->n_lanes; i < t->n_lanes; i++) {
            p->order[i] = (uint32_t)i;
            p->head[i] = -1;
            p->flags[i] = 0;
        }
        p->n_lanes = t->n_lanes;
        changed = true;
    }
    if (!changed) return;
    OrderCtx c = {t, p->src_rank};
    sort_order(p, &c, sorted);
    build_lines(p, &c);
    fit_window(p);
    p->version++;
}

/* ---------- events ---------- */

/* A stream's comm rule is asked once per lane (a regex), when its first kernel counts. */
static bool comm_stream(PreviewModel *p, const Trace *t, uint32_t lane) {
    if (!(p->flags[lane] & LANE_STREAM_KNOWN)) {
        const Lane *l = &t->lanes[lane];
        p->flags[lane] |= LANE_STREAM_KNOWN;
        if (l->gpu && CommRules_streamIsComm(rules_of(p), l->stream)) p->flags[lane] |= LANE_COMM_STREAM;
    }
    return p->flags[lane] & LANE_COMM_STREAM;
}

static EventClass class_of(PreviewModel *p, const Trace *t, const TraceEvent *e) {
    if (e->kind != KIND_KERNEL) return (EventClass)p->kind_cls[e->kind];
    if (comm_stream(p, t, e->lane)) return CLASS_COMM;
    uint32_t id = e->name;
    if (id >= p->n_name_cls) {
        size_t n = StrTab_count(t->strings);
        if (n <= id) n = (size_t)id + 1;
        p->name_cls = xrealloc(p->name_cls, n);
        memset(p->name_cls + p->n_name_cls, 0, n - p->n_name_cls);
        p->n_name_cls = n;
    }
    if (!p->name_cls[id]) p->name_cls[id] = CommRules_nameIsComm(rules_of(p), StrTab_get(t->strings, id)) ? 2 : 1;
    return p->name_cls[id] == 2 ? CLASS_COMM : CLASS_COMPUTE;
}

/* ts + dur, saturated (d >= 0) */
static inline int64_t end_of(int64_t a, int64_t d) { return a > 0 && d > INT64_MAX - a ? INT64_MAX : a + d; }

/* Adds one event with a known length; false if it has none (yet). */
static bool add_event(PreviewModel *p, const Trace *t, const TraceEvent *e) {
    int64_t a = e->ts, d = e->kind == KIND_COUNTER ? 0 : e->dur;
    if (d <= 0) return false;
    int64_t b = end_of(a, d);
    if (a < p->t0 || b > p->t_end) {
        if (!fit(p, a, b)) {
            if (a < p->t0) a = p->t0;
            if (b > p->t_end) b = p->t_end;
            if (b <= a) return true;
        }
    }
    if (b > p->max_end) p->max_end = b;
    if (p->pos[e->lane] >= p->window_end) return true; /* off the lines: nothing draws it */
    int32_t s = slot_for(p, e->lane, class_of(p, t, e));
    if (s >= 0) add_busy(p, (size_t)s, a, b);
    return true;
}

size_t Preview_update(PreviewModel *p, const Trace *t) {
    if (t->n_lanes != p->n_lanes || t->n_sources != p->n_src || t->n_sources > 1) add_lanes(p, t); /* ranks may change */
    size_t n = t->n_events, done = 0;
    /* events seen without a duration: a "B" gets its length when its "E" arrives */
    size_t kept = 0;
    for (size_t k = 0; k < p->n_pending; k++) {
        size_t i = p->pending[k];
        if (add_event(p, t, &t->events[i])) {
            done++;
        } else if (++p->pending_age[k] < PENDING_AGE) {
            p->pending[kept] = i;
            p->pending_age[kept++] = p->pending_age[k];
        }
    }
    p->n_pending = kept;
    const TraceEvent *ev = t->events;
    for (size_t i = p->cursor; i < n; i++) {
        const TraceEvent *e = &ev[i];
        int64_t end = e->kind == KIND_COUNTER || e->dur < 0 ? e->ts : end_of(e->ts, e->dur);
        if (!p->any) {
            p->any = true;
            p->min_ts = e->ts;
            p->max_end = end;
            /* floor to the bucket width (two's complement: also for negative times) */
            set_range(p, (int64_t)(((uint64_t)e->ts >> INITIAL_SHIFT) << INITIAL_SHIFT), INITIAL_SHIFT);
        }
        if (e->ts < p->min_ts) p->min_ts = e->ts;
        if (end > p->max_end) p->max_end = end;
        if (add_event(p, t, e)) {
            done++;
        } else if (e->kind != KIND_INSTANT && e->kind != KIND_COUNTER && p->n_pending < PENDING_MAX) {
            p->pending_age[p->n_pending] = 0;
            p->pending[p->n_pending++] = i;
        }
    }
    size_t consumed = n - p->cursor;
    p->cursor = n;
    p->events += consumed;
    if (consumed || done) p->version++;
    return consumed;
}

/* ---------- copies and queries ---------- */

typedef struct {
    uint32_t pos, src;
    uint8_t cls;
} SlotRef;

static int cmp_ref(const void *a, const void *b) {
    const SlotRef *x = a, *y = b;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    return (x->cls > y->cls) - (x->cls < y->cls);
}

void Preview_copy(PreviewModel *dst, const PreviewModel *src) {
    if (dst == src || (dst->folded && dst->version == src->version && dst->n_lanes == src->n_lanes &&
                       dst->events == src->events && dst->n_buckets == src->n_buckets))
        return;
    dst->folded = true;
    size_t nb = (size_t)src->n_buckets;
    /* the slots in use, in display order (a copy of a copy: they are already) */
    SlotRef *refs = xmalloc((src->n_slots ? src->n_slots : 1) * sizeof *refs);
    size_t n = 0;
    for (size_t s = 0; s < src->n_slots; s++) {
        const PreviewSlot *x = &src->slots[s];
        if (x->lane == PREVIEW_FREE) continue;
        refs[n++] = (SlotRef){src->pos ? src->pos[x->lane] : x->pos, (uint32_t)s, x->cls};
    }
    if (src->pos) qsort(refs, n, sizeof *refs, cmp_ref);
    if (n > dst->cap_slots || nb != (size_t)dst->n_buckets) {
        dst->slots = xrealloc(dst->slots, (n ? n : 1) * sizeof *dst->slots);
        dst->busy = xrealloc(dst->busy, (n ? n : 1) * nb * sizeof *dst->busy);
        dst->cap_slots = n;
    }
    dst->n_buckets = src->n_buckets;
    int64_t bw = (int64_t)1 << src->shift;
    for (size_t k = 0; k < n; k++) {
        size_t s = refs[k].src;
        dst->slots[k] = (PreviewSlot){src->slots[s].lane, refs[k].pos, refs[k].cls, -1};
        const int64_t *b = busy_of(src, s);
        const int32_t *full = src->full ? full_of(src, s) : NULL; /* NULL: src is a copy itself */
        int64_t *d = busy_of(dst, k), c = 0;
        for (size_t j = 0; j < nb; j++) {
            if (full) c += full[j];
            d[j] = b[j] + c * bw;
        }
    }
    dst->n_slots = n;
    free(refs);
    if (!dst->lines && src->lines) dst->lines = xcalloc(PREVIEW_MAX_LINES, sizeof *dst->lines);
    if (src->n_lines) memcpy(dst->lines, src->lines, src->n_lines * sizeof *dst->lines);
    dst->n_lines = src->n_lines;
    dst->more_lines = src->more_lines;
    dst->window_end = src->window_end;
    dst->n_lanes = src->n_lanes;
    dst->shift = src->shift;
    dst->t0 = src->t0;
    dst->t_end = src->t_end;
    dst->any = src->any;
    dst->lanes_no_slot = src->lanes_no_slot;
    dst->bucket_bytes = src->bucket_bytes;
    dst->min_ts = src->min_ts;
    dst->max_end = src->max_end;
    dst->cursor = src->cursor;
    dst->events = src->events;
    dst->multi_source = src->multi_source;
    dst->version = src->version;
}

int64_t Preview_bucketBusy(const PreviewModel *p, size_t lane, int b, int cls) {
    if (lane >= p->n_lanes || b < 0 || b >= p->n_buckets) return 0;
    int64_t sum = 0, bw = (int64_t)1 << p->shift;
    for (size_t s = 0; s < p->n_slots; s++) {
        const PreviewSlot *x = &p->slots[s];
        if (x->lane != lane || (cls >= 0 && x->cls != cls)) continue;
        int64_t c = 0;
        for (int j = 0; p->full && j <= b; j++) c += full_of(p, s)[j];
        sum += busy_of(p, s)[b] + c * bw;
    }
    return sum;
}

int64_t Preview_laneBusy(const PreviewModel *p, size_t lane, int cls) {
    int64_t sum = 0;
    for (int b = 0; b < p->n_buckets; b++) sum += Preview_bucketBusy(p, lane, b, cls);
    return sum;
}

/* ---------- rendering ---------- */

/* Busy ns per class of the slots [s0, s1) (one lane's) in [ca, cb): buckets are spread
 * evenly over their span. */
static void column_busy(const PreviewModel *p, size_t s0, size_t s1, int64_t ca, int64_t cb, double *out) {
    if (cb <= p->t0 || ca >= p->t_end) return;
    if (ca < p->t0) ca = p->t0;
    if (cb > p->t_end) cb = p->t_end;
    int sh = p->shift;
    int64_t bw = (int64_t)1 << sh;
    int b0 = (int)(((uint64_t)ca - (uint64_t)p->t0) >> sh), b1 = (int)(((uint64_t)cb - 1 - (uint64_t)p->t0) >> sh);
    if (b1 >= p->n_buckets) b1 = p->n_buckets - 1;
    for (int b = b0; b <= b1; b++) {
        int64_t ba = p->t0 + ((int64_t)b << sh), bb = ba + bw;
        int64_t ov = (cb < bb ? cb : bb) - (ca > ba ? ca : ba);
        if (ov <= 0) continue;
        double f = ov == bw ? 1.0 : (double)ov / (double)bw;
        for (size_t s = s0; s < s1; s++) out[p->slots[s].cls] += (double)busy_of(p, s)[b] * f;
    }
}

/* Fill fraction and colour of one column: work (everything but annotations) wins;
 * annotations show only where nothing else is, as they wrap the work they annotate. */
static double column_density(const double *busy, int64_t span, int *cls) {
    double work = 0, best = 0;
    int bc = -1;
    for (int c = 0; c < CLASS__COUNT; c++) {
        if (c == CLASS_ANNOTATION) continue;
        work += busy[c];
        if (busy[c] > best) best = busy[c], bc = c;
    }
    if (work <= 0) {
        if (busy[CLASS_ANNOTATION] <= 0) return 0;
        work = busy[CLASS_ANNOTATION];
        bc = CLASS_ANNOTATION;
    }
    *cls = bc;
    return work / (double)span;
}

static void put_density(Grid *g, int x, int y, double frac, int cls, const Glyphs *gl) {
    if (frac <= 0) return;
    int k = (int)(frac * 8 + 0.999999);
    if (k < 1) k = 1;
    if (k > 8) k = 8;
    Grid_put(g, x, y, gl->lower[k], ROLE_CLASS + cls, 0);
}

/* First slot of a copy at display position pos or later (its slots are sorted). */
static size_t slot_lower(const PreviewModel *p, uint32_t pos) {
    size_t lo = 0, hi = p->n_slots;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->slots[mid].pos < pos) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* draws the lanes of line L (one lane, or a collapsed CPU group: the busiest lane per
 * column) on row y; only lanes with buckets have slots, so this is O(width x slots) */
static void render_density(Grid *g, int x0, int w, int y, const PreviewModel *p, int64_t t0, int64_t t1,
                           const PreviewLine *L, const Glyphs *gl) {
    size_t s0 = slot_lower(p, L->first), s1 = slot_lower(p, L->first + L->n);
    if (s0 == s1) return;
    for (int c = 0; c < w; c++) {
        int64_t ca = TraceIndex_colTime(t0, t1, w, c), cb = TraceIndex_colTime(t0, t1, w, c + 1);
        if (cb <= ca) continue;
        double best = 0;
        int bcls = CLASS_OTHER;
        for (size_t s = s0, e; s < s1; s = e) { /* one lane: its slots are adjacent */
            for (e = s + 1; e < s1 && p->slots[e].pos == p->slots[s].pos; e++) {}
            double busy[CLASS__COUNT] = {0};
            column_busy(p, s, e, ca, cb, busy);
            int cls = CLASS_OTHER;
            double f = column_density(busy, cb - ca, &cls);
            if (f > best) best = f, bcls = cls;
        }
        put_density(g, x0 + c, y, best, bcls, gl);
    }
}

static void legend(Grid *g, int x, int y, int end, const Glyphs *gl) {
    static const EventClass cls[] = {CLASS_COMPUTE, CLASS_COMM, CLASS_MEMORY, CLASS_SYNC, CLASS_CPU, CLASS_ANNOTATION};
    x += Grid_text(g, x, y, end - x, "events:", ROLE_DIM, 0);
    for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
        const char *name = EventClass_name(cls[i]);
        if (x + 3 + (int)strlen(name) > end) break;
        x++;
        Grid_put(g, x++, y, gl->legend_swatch, ROLE_CLASS + (int)cls[i], 0);
        x++;
        x += Grid_text(g, x, y, end - x, name, ROLE_DEFAULT, 0);
    }
}

static int render(Grid *g, Rect r, const PreviewModel *p, const Glyphs *gl, bool with_legend);

int Preview_render(Grid *g, Rect r, const PreviewModel *p, const Glyphs *gl, bool with_legend) {
    if (r.h < 4 || r.w < 30 || !p->any || !p->n_lanes) return 0;
    if (p->folded) return render(g, r, p, gl, with_legend);
    /* the loader's own model: fold the whole-bucket counts in a copy first */
    PreviewModel tmp = {0};
    tmp.n_buckets = p->n_buckets;
    Preview_copy(&tmp, p);
    int n = render(g, r, &tmp, gl, with_legend);
    free(tmp.slots);
    free(tmp.busy);
    free(tmp.lines);
    return n;
}

static int render(Grid *g, Rect r, const PreviewModel *p, const Glyphs *gl, bool with_legend) {
    bool ascii = !gl->unicode;
    int lw = r.w >= 200 ? 24 : r.w >= 120 ? 20 : 16; /* as the timeline's layout */
    Rect plot = {r.x + lw + 1, r.y + 3, r.w - lw - 1, r.h - 3};
    int64_t t0 = p->min_ts, t1 = p->max_end > p->min_ts ? p->max_end : p->min_ts + 1;
    if ((__int128)t1 - t0 > INT64_MAX) t1 = t0 + INT64_MAX; /* absurd timestamps: keep spans in int64 */
    char buf[256];
    if (p->lanes_no_slot) /* the bucket budget is spent: say which lanes show no busy time */
        snprintf(buf, sizeof buf, "Preview: %zu lanes so far (%zu without busy time: preview memory is bounded); "
                 "the timeline opens when the load completes", p->n_lanes, p->lanes_no_slot);
    else
        snprintf(buf, sizeof buf, "Preview: %zu lane%s so far, from the events read (the timeline opens when the load "
                 "completes)", p->n_lanes, p->n_lanes == 1 ? "" : "s");
    Grid_textAscii(g, r.x, r.y, r.w, buf, ROLE_DIM, 0, ascii);
    /* ruler: two lines over the plot, the unit on the left */
    ViewState v = {0};
    v.t0 = t0;
    v.t1 = t1;
    v.min_t = t0;
    v.max_t = t1;
    v.cursor = t1; /* no cursor: column plot.w is off the ruler */
    v.mark0 = v.mark1 = VIEW_NO_MARK;
    Ruler_render(g, (Rect){plot.x, r.y + 1, plot.w, 2}, (Rect){0, 0, 0, 0}, &v, gl);
    int64_t unit;
    const char *uname;
    Ruler_unit(Ruler_step(t1 - t0, plot.w, 14), &unit, &uname);
    Grid_fill(g, (Rect){r.x, r.y + 1, lw + 1, 2}, ' ', ROLE_RULER, 0);
    Grid_printf(g, r.x, r.y + 1, lw, ROLE_RULER, 0, "time (%s)", uname);
    /* the lines laid out by the loading thread: GPU groups expanded, CPU groups one line */
    size_t n_lines = p->n_lines;
    int rows = plot.h - (with_legend ? 1 : 0);
    if (rows < 1) rows = plot.h, with_legend = false;
    int shown = !p->more_lines && (size_t)rows >= n_lines ? (int)n_lines : rows - 1; /* the last row counts the rest */
    if (shown > (int)n_lines) shown = (int)n_lines;
    int sep = r.x + lw;
    size_t lanes_shown = 0;
    for (int k = 0; k < shown; k++) {
        int y = plot.y + k;
        const PreviewLine *L = &p->lines[k];
        if (L->kind == PLINE_GROUP) {
            Grid_fill(g, (Rect){r.x, y, r.w, 1}, ' ', ROLE_GROUP, 0);
            Grid_put(g, r.x, y, gl->expanded, ROLE_GROUP, ATTR_BOLD);
            snprintf(buf, sizeof buf, "%s  %" PRIu32 " stream%s", L->label, L->n, L->n == 1 ? "" : "s");
            Grid_textAscii(g, r.x + 2, y, r.w - 2, buf, ROLE_GROUP, ATTR_BOLD, ascii);
            continue;
        }
        lanes_shown += L->n;
        Grid_put(g, sep, y, gl->vline, ROLE_DIM, 0);
        if (L->kind == PLINE_LANE) {
            Grid_fill(g, (Rect){r.x, y, lw, 1}, ' ', ROLE_LABEL, 0);
            Grid_textAscii(g, r.x + 2, y, lw - 2, L->label, ROLE_LABEL, 0, ascii);
        } else { /* a collapsed CPU group */
            Grid_fill(g, (Rect){r.x, y, lw, 1}, ' ', ROLE_GROUP, 0);
            Grid_put(g, r.x, y, gl->collapsed, ROLE_GROUP, ATTR_BOLD);
            int n = snprintf(buf, sizeof buf, "%s (%" PRIu32 ")", L->label, L->n); /* threads, if it fits */
            if (L->n == 1 || n > lw - 2) snprintf(buf, sizeof buf, "%s", L->label);
            Grid_textAscii(g, r.x + 2, y, lw - 2, buf, ROLE_GROUP, ATTR_BOLD, ascii);
        }
        render_density(g, plot.x, plot.w, y, p, t0, t1, L, gl);
    }
    int used = shown;
    if (p->more_lines || (size_t)shown < n_lines) { /* every lane is on one line that is not a header */
        size_t more = p->n_lanes - lanes_shown;
        snprintf(buf, sizeof buf, "... %zu more lane%s", more, more == 1 ? "" : "s");
        Grid_textAscii(g, r.x + 2, plot.y + shown, r.w - 2, buf, ROLE_DIM, 0, ascii);
        used++;
    }
    if (with_legend) legend(g, r.x, plot.y + rows, r.x + r.w, gl);
    return 3 + used + (with_legend ? 1 : 0);
}
