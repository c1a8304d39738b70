/* Live preview of the timeline while loading: bucketed busy time per lane and class. */
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

static void set_range(PreviewModel *p, int64_t t0, int shift) {
    p->t0 = t0;
    p->shift = shift;
    __int128 end = (__int128)t0 + ((__int128)p->n_buckets << shift);
    p->t_end = end > INT64_MAX ? INT64_MAX : (int64_t)end;
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
    return p;
}

static void free_lanes(PreviewModel *p) {
    for (size_t i = 0; i < p->n_lanes; i++)
        for (int s = 0; s < p->lanes[i].n_slots; s++) {
            free(p->lanes[i].slots[s].busy);
            free(p->lanes[i].slots[s].full);
        }
}

void Preview_free(PreviewModel *p) {
    if (!p) return;
    free_lanes(p);
    free(p->lanes);
    free(p->order);
    free(p->pending);
    free(p->pending_age);
    free(p->name_cls);
    CommRules_free(p->own_rules);
    free(p);
}

/* ---------- buckets ---------- */

/* Folds the whole-bucket counts into busy. */
static void flush_slot(const PreviewModel *p, PreviewSlot *s) {
    int64_t c = 0, bw = (int64_t)1 << p->shift;
    for (int b = 0; b < p->n_buckets; b++) {
        c += s->full[b];
        if (c) s->busy[b] += c * bw;
        s->full[b] = 0;
    }
    s->full[p->n_buckets] = 0;
}

/* Doubles the bucket width. left: the range grows to the left (the old buckets become
 * the upper half), else to the right (they become the lower half). Exact: each new
 * bucket is the union of two old ones. */
static void rescale(PreviewModel *p, bool left) {
    int nb = p->n_buckets, half = nb / 2;
    for (size_t i = 0; i < p->n_lanes; i++) {
        PreviewLane *l = &p->lanes[i];
        for (int k = 0; k < l->n_slots; k++) {
            PreviewSlot *s = &l->slots[k];
            flush_slot(p, s);
            if (left) {
                for (int j = nb - 1; j >= half; j--) s->busy[j] = s->busy[2 * (j - half)] + s->busy[2 * (j - half) + 1];
                memset(s->busy, 0, (size_t)half * sizeof *s->busy);
            } else {
                for (int j = 0; j < half; j++) s->busy[j] = s->busy[2 * j] + s->busy[2 * j + 1];
                memset(s->busy + half, 0, (size_t)half * sizeof *s->busy);
            }
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

static void add_busy(const PreviewModel *p, PreviewSlot *s, int64_t a, int64_t b) {
    int sh = p->shift;
    uint64_t ra = (uint64_t)a - (uint64_t)p->t0, rb = (uint64_t)b - (uint64_t)p->t0; /* t0 <= a < b <= t_end */
    int b0 = (int)(ra >> sh), b1 = (int)((rb - 1) >> sh);
    if (b0 == b1) {
        s->busy[b0] += b - a;
        return;
    }
    s->busy[b0] += (int64_t)(((uint64_t)(b0 + 1) << sh) - ra);
    s->busy[b1] += (int64_t)(rb - ((uint64_t)b1 << sh));
    if (b1 > b0 + 1) { /* whole buckets in between, O(1) whatever the length */
        s->full[b0 + 1]++;
        s->full[b1]--;
    }
}

/* The lane's slot for class cls, made on first use; NULL once the bucket budget is
 * spent (the event still counts on its lane, its busy time is not drawn). */
static PreviewSlot *slot_for(PreviewModel *p, PreviewLane *l, int cls) {
    int k = l->slot_of[cls];
    if (k < 0) {
        size_t need = (size_t)p->n_buckets * (sizeof(int64_t) + sizeof(int32_t)) + sizeof(int32_t);
        if (p->bucket_bytes + need > PREVIEW_MAX_BUCKET_BYTES) {
            if (l->n_slots == 0 && !l->no_slot) {
                l->no_slot = true;
                p->lanes_no_slot++;
            }
            return NULL;
        }
        p->bucket_bytes += need;
        k = l->n_slots++;
        l->slot_of[cls] = (int8_t)k;
        l->slots[k].cls = (uint8_t)cls;
        l->slots[k].busy = xcalloc((size_t)p->n_buckets, sizeof(int64_t));
        l->slots[k].full = xcalloc((size_t)p->n_buckets + 1, sizeof(int32_t));
    }
    return &l->slots[k];
}

/* ---------- lanes ---------- */

static const CommRules *rules_of(PreviewModel *p) {
    if (!p->rules) p->rules = p->own_rules = CommRules_default();
    return p->rules;
}

static int cmp_lane(const PreviewLane *x, const PreviewLane *y) {
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->gpu != y->gpu) return x->gpu ? -1 : 1; /* GPU devices first, as Trace_finish orders groups */
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static const PreviewLane *sort_lanes; /* qsort has no context; the loading thread alone sorts */
static int order_cmp(const void *pa, const void *pb) {
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    int c = cmp_lane(&sort_lanes[a], &sort_lanes[b]);
    return c ? c : (a > b) - (a < b);
}

/* Lanes in display order: order[0, sorted) is in order already; the lanes after it are
 * sorted and merged in, O(n + k log k) for k new lanes (a million lanes arriving over
 * many updates never costs a quadratic sort). sorted 0: everything is sorted anew. */
static void sort_order(PreviewModel *p, size_t sorted) {
    size_t n = p->n_lanes;
    if (sorted >= n) return;
    sort_lanes = p->lanes;
    qsort(p->order + sorted, n - sorted, sizeof *p->order, order_cmp);
    if (!sorted) return;
    uint32_t *m = xmalloc(n * sizeof *m);
    size_t i = 0, j = sorted, o = 0;
    while (i < sorted && j < n) m[o++] = order_cmp(&p->order[j], &p->order[i]) < 0 ? p->order[j++] : p->order[i++];
    while (i < sorted) m[o++] = p->order[i++];
    while (j < n) m[o++] = p->order[j++];
    memcpy(p->order, m, n * sizeof *m);
    free(m);
}

static int32_t rank_of(const Trace *t, uint32_t source) {
    if (source < t->n_sources && t->sources[source].rank >= 0) return t->sources[source].rank;
    return (int32_t)source; /* what Trace_finish falls back to */
}

static void string_key(const Trace *t, int64_t key, char *out, size_t n) {
    snprintf(out, n, "%s", StrTab_get(t->strings, (uint32_t)(-1 - key)));
}

static void set_group_label(PreviewLane *l, const Trace *t, bool multi) {
    char rank[24] = "", name[32];
    if (multi) snprintf(rank, sizeof rank, "rank %d ", l->rank);
    if (l->gpu) {
        snprintf(l->group_label, sizeof l->group_label, "%sGPU %" PRId64, rank, l->group);
    } else if (l->group < 0) {
        string_key(t, l->group, name, sizeof name);
        /* a long name is cut, as a display label may be; keeping the count tells gcc so
         * (-Wformat-truncation at -O0 cannot bound the rank's length and warns) */
        int len = snprintf(l->group_label, sizeof l->group_label, "%sCPU \"%s\"", rank, name);
        (void)len;
    } else {
        snprintf(l->group_label, sizeof l->group_label, "%sCPU pid %" PRId64, rank, l->group);
    }
}

static void add_lanes(PreviewModel *p, const Trace *t) {
    bool resort = false;
    size_t sorted = p->n_lanes; /* the lanes known so far are in order unless a rank moved */
    bool multi = t->n_sources > 1;
    if (multi != p->multi_source) p->multi_source = multi, resort = true;
    /* ranks may become known later in a file (distributedInfo after the events) */
    for (size_t i = 0; i < p->n_lanes; i++) {
        int32_t r = rank_of(t, p->lanes[i].source);
        if (r != p->lanes[i].rank) p->lanes[i].rank = r, resort = true, sorted = 0;
    }
    if (t->n_lanes > p->n_lanes) {
        if (t->n_lanes > p->cap_lanes) {
            size_t cap = p->cap_lanes ? p->cap_lanes * 2 : 16;
            while (cap < t->n_lanes) cap *= 2;
            p->lanes = xrealloc(p->lanes, cap * sizeof *p->lanes);
            p->order = xrealloc(p->order, cap * sizeof *p->order);
            p->cap_lanes = cap;
        }
        for (size_t i = p->n_lanes; i < t->n_lanes; i++) {
            const Lane *tl = &t->lanes[i];
            PreviewLane *l = &p->lanes[i];
            memset(l, 0, sizeof *l);
            memset(l->slot_of, -1, sizeof l->slot_of);
            l->gpu = tl->gpu;
            l->source = tl->source;
            l->rank = rank_of(t, tl->source);
            l->group = tl->gpu ? tl->device : tl->pid;
            l->key = tl->gpu ? tl->stream : tl->tid;
            l->comm_stream = tl->gpu && CommRules_streamIsComm(rules_of(p), tl->stream);
            /* the labels Trace_finish gives lanes without a thread_name */
            if (tl->gpu) snprintf(l->label, sizeof l->label, "stream %" PRId64, tl->stream);
            else if (tl->tid < 0) string_key(t, tl->tid, l->label, sizeof l->label);
            else snprintf(l->label, sizeof l->label, "thread %" PRId64, tl->tid);
            p->order[i] = (uint32_t)i;
        }
        p->n_lanes = t->n_lanes;
        resort = true;
    }
    if (resort) {
        for (size_t i = 0; i < p->n_lanes; i++) set_group_label(&p->lanes[i], t, multi);
        sort_order(p, sorted);
        p->version++;
    }
}

/* ---------- events ---------- */

static EventClass class_of(PreviewModel *p, const Trace *t, const TraceEvent *e, const PreviewLane *l) {
    if (e->kind != KIND_KERNEL) return (EventClass)p->kind_cls[e->kind];
    if (l->comm_stream) return CLASS_COMM;
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
    PreviewLane *l = &p->lanes[e->lane];
    PreviewSlot *s = slot_for(p, l, class_of(p, t, e, l));
    if (s) add_busy(p, s, a, b);
    return true;
}

size_t Preview_update(PreviewModel *p, const Trace *t) {
    if (t->n_lanes != p->n_lanes) add_lanes(p, t);
    else if (t->n_sources > 1 || p->multi_source) add_lanes(p, t); /* ranks may have changed */
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
        p->lanes[e->lane].events++;
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

void Preview_copy(PreviewModel *dst, const PreviewModel *src) {
    if (dst == src || (dst->folded && dst->version == src->version && dst->n_lanes == src->n_lanes &&
                       dst->events == src->events && dst->n_buckets == src->n_buckets))
        return;
    dst->folded = true;
    if (dst->n_buckets != src->n_buckets) { /* never in practice: both are made alike */
        free_lanes(dst);
        dst->n_lanes = 0;
        dst->n_buckets = src->n_buckets;
    }
    if (src->n_lanes > dst->cap_lanes) {
        dst->lanes = xrealloc(dst->lanes, src->n_lanes * sizeof *dst->lanes);
        dst->order = xrealloc(dst->order, src->n_lanes * sizeof *dst->order);
        for (size_t i = dst->cap_lanes; i < src->n_lanes; i++) memset(&dst->lanes[i], 0, sizeof dst->lanes[i]);
        dst->cap_lanes = src->n_lanes;
    }
    for (size_t i = dst->n_lanes; i < src->n_lanes; i++) memset(&dst->lanes[i], 0, sizeof dst->lanes[i]);
    size_t nb = (size_t)src->n_buckets;
    int64_t bw = (int64_t)1 << src->shift;
    for (size_t i = 0; i < src->n_lanes; i++) {
        const PreviewLane *s = &src->lanes[i];
        PreviewLane *d = &dst->lanes[i];
        PreviewSlot keep[CLASS__COUNT];
        uint8_t had = d->n_slots;
        memcpy(keep, d->slots, sizeof keep);
        *d = *s;
        for (int k = 0; k < s->n_slots; k++) { /* slots only ever get added, in the same order */
            d->slots[k].busy = k < had ? keep[k].busy : xcalloc(nb, sizeof(int64_t));
            d->slots[k].full = NULL; /* folded into busy */
            const int32_t *full = s->slots[k].full; /* NULL: src is a copy itself */
            int64_t c = 0;
            for (size_t b = 0; b < nb; b++) {
                if (full) c += full[b];
                d->slots[k].busy[b] = s->slots[k].busy[b] + c * bw;
            }
        }
    }
    if (src->n_lanes) memcpy(dst->order, src->order, src->n_lanes * sizeof *dst->order);
    dst->n_lanes = src->n_lanes;
    dst->shift = src->shift;
    dst->t0 = src->t0;
    dst->t_end = src->t_end;
    dst->any = src->any;
    dst->lanes_no_slot = src->lanes_no_slot;
    dst->min_ts = src->min_ts;
    dst->max_end = src->max_end;
    dst->cursor = src->cursor;
    dst->events = src->events;
    dst->multi_source = src->multi_source;
    dst->version = src->version;
}

int64_t Preview_bucketBusy(const PreviewModel *p, size_t lane, int b, int cls) {
    if (lane >= p->n_lanes || b < 0 || b >= p->n_buckets) return 0;
    const PreviewLane *l = &p->lanes[lane];
    int64_t sum = 0, bw = (int64_t)1 << p->shift;
    for (int k = 0; k < l->n_slots; k++) {
        const PreviewSlot *s = &l->slots[k];
        if (cls >= 0 && s->cls != cls) continue;
        int64_t c = 0;
        for (int j = 0; s->full && j <= b; j++) c += s->full[j];
        sum += s->busy[b] + c * bw;
    }
    return sum;
}

int64_t Preview_laneBusy(const PreviewModel *p, size_t lane, int cls) {
    int64_t sum = 0;
    for (int b = 0; b < p->n_buckets; b++) sum += Preview_bucketBusy(p, lane, b, cls);
    return sum;
}

/* ---------- rendering ---------- */

/* Busy ns per class of lane l in [ca, cb): buckets are spread evenly over their span. */
static void column_busy(const PreviewModel *p, const PreviewLane *l, int64_t ca, int64_t cb, double *out) {
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
        for (int k = 0; k < l->n_slots; k++) out[l->slots[k].cls] += (double)l->slots[k].busy[b] * f;
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

typedef struct {
    bool group; /* a GPU group header */
    size_t first, n; /* positions in order[] */
} PLine;

static bool same_group(const PreviewLane *a, const PreviewLane *b) {
    return a->rank == b->rank && a->source == b->source && a->gpu == b->gpu && a->group == b->group;
}

/* draws lanes order[first, first+n) (one lane, or a collapsed CPU group: the busiest
 * lane per column) on row y */
static void render_density(Grid *g, int x0, int w, int y, const PreviewModel *p, int64_t t0, int64_t t1, size_t first,
                           size_t n, const Glyphs *gl) {
    for (int c = 0; c < w; c++) {
        int64_t ca = TraceIndex_colTime(t0, t1, w, c), cb = TraceIndex_colTime(t0, t1, w, c + 1);
        if (cb <= ca) continue;
        double best = 0;
        int bcls = CLASS_OTHER;
        for (size_t i = first; i < first + n; i++) {
            double busy[CLASS__COUNT] = {0};
            column_busy(p, &p->lanes[p->order[i]], ca, cb, busy);
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
    free_lanes(&tmp);
    free(tmp.lanes);
    free(tmp.order);
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
    /* lines: GPU groups expanded (header + one line per stream), CPU groups one line */
    size_t n_lines = 0;
    PLine *lines = xcalloc(2 * p->n_lanes, sizeof *lines);
    for (size_t i = 0; i < p->n_lanes;) {
        size_t j = i + 1;
        while (j < p->n_lanes && same_group(&p->lanes[p->order[i]], &p->lanes[p->order[j]])) j++;
        if (p->lanes[p->order[i]].gpu) {
            lines[n_lines++] = (PLine){true, i, j - i};
            for (size_t k = i; k < j; k++) lines[n_lines++] = (PLine){false, k, 1};
        } else {
            lines[n_lines++] = (PLine){false, i, j - i};
        }
        i = j;
    }
    int rows = plot.h - (with_legend ? 1 : 0);
    if (rows < 1) rows = plot.h, with_legend = false;
    int shown = (size_t)rows >= n_lines ? (int)n_lines : rows - 1; /* the last row counts the rest */
    int sep = r.x + lw;
    for (int k = 0; k < shown; k++) {
        int y = plot.y + k;
        const PLine *L = &lines[k];
        const PreviewLane *l = &p->lanes[p->order[L->first]];
        if (L->group) {
            Grid_fill(g, (Rect){r.x, y, r.w, 1}, ' ', ROLE_GROUP, 0);
            Grid_put(g, r.x, y, gl->expanded, ROLE_GROUP, ATTR_BOLD);
            snprintf(buf, sizeof buf, "%s  %zu stream%s", l->group_label, L->n, L->n == 1 ? "" : "s");
            Grid_textAscii(g, r.x + 2, y, r.w - 2, buf, ROLE_GROUP, ATTR_BOLD, ascii);
            continue;
        }
        Grid_put(g, sep, y, gl->vline, ROLE_DIM, 0);
        if (l->gpu) {
            Grid_fill(g, (Rect){r.x, y, lw, 1}, ' ', ROLE_LABEL, 0);
            Grid_textAscii(g, r.x + 2, y, lw - 2, l->label, ROLE_LABEL, 0, ascii);
        } else { /* a collapsed CPU group */
            Grid_fill(g, (Rect){r.x, y, lw, 1}, ' ', ROLE_GROUP, 0);
            Grid_put(g, r.x, y, gl->collapsed, ROLE_GROUP, ATTR_BOLD);
            int n = snprintf(buf, sizeof buf, "%s (%zu)", l->group_label, L->n); /* threads, if it fits */
            if (L->n == 1 || n > lw - 2) snprintf(buf, sizeof buf, "%s", l->group_label);
            Grid_textAscii(g, r.x + 2, y, lw - 2, buf, ROLE_GROUP, ATTR_BOLD, ascii);
        }
        render_density(g, plot.x, plot.w, y, p, t0, t1, L->first, L->n, gl);
    }
    int used = shown;
    if ((size_t)shown < n_lines) {
        size_t more = 0;
        for (size_t k = (size_t)shown; k < n_lines; k++)
            if (!lines[k].group) more += lines[k].n;
        snprintf(buf, sizeof buf, "... %zu more lane%s", more, more == 1 ? "" : "s");
        Grid_textAscii(g, r.x + 2, plot.y + shown, r.w - 2, buf, ROLE_DIM, 0, ascii);
        used++;
    }
    if (with_legend) legend(g, r.x, plot.y + rows, r.x + r.w, gl);
    free(lines);
    return 3 + used + (with_legend ? 1 : 0);
}
