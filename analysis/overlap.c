/* Sweep-line over interval endpoints: one sort per device, then a single pass that
 * accumulates the measure of every combination of (comm, compute, memory) activity. */
#include "ovtrace/analysis/overlap.h"

#include <stdlib.h>
#include <string.h>

#include "edges.h"
#include "ovtrace/base/alloc.h"

/* Edge.cls here: 0 compute, 1 comm, 2 memory. scratch: Edges_sort's. */
typedef struct {
    Edge *e;
    size_t n, cap;
    Edge *scratch;
    size_t cap_scratch;
} Edges;

/* Sums over many events or devices (kernel totals, the all-devices row) can pass
 * INT64_MAX even with every timestamp in the model's range: they saturate. */
static int64_t sat_add(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static int sweep_class(EventClass c) {
    return c == CLASS_COMPUTE ? 0 : c == CLASS_COMM ? 1 : c == CLASS_MEMORY ? 2 : -1;
}

static void push_interval(Edges *E, int64_t s, int64_t e, int cls) {
    GROW(E->e, E->cap, E->n + 2);
    E->e[E->n++] = (Edge){s, +1, (uint8_t)cls};
    E->e[E->n++] = (Edge){e, -1, (uint8_t)cls};
}

/* Measures per activity mask (bit0 compute, bit1 comm, bit2 memory) over the edges. */
static void sweep(Edges *E, int64_t meas[8]) {
    memset(meas, 0, 8 * sizeof *meas);
    Edges_sort(E->e, E->n, &E->scratch, &E->cap_scratch);
    int cnt[3] = {0, 0, 0};
    for (size_t i = 0; i < E->n;) {
        int64_t t = E->e[i].t;
        while (i < E->n && E->e[i].t == t) {
            cnt[E->e[i].cls] += E->e[i].delta;
            i++;
        }
        if (i < E->n) {
            int mask = (cnt[0] > 0) | (cnt[1] > 0) << 1 | (cnt[2] > 0) << 2;
            meas[mask] += E->e[i].t - t;
        }
    }
}

static bool lane_selected(const Lane *l, const OverlapFilter *f) {
    if (!l->gpu) return false;
    if (f->rank != OVERLAP_ANY_RANK && l->rank != f->rank) return false;
    if (f->device != OVERLAP_ANY && l->device != f->device) return false;
    if (f->stream != OVERLAP_ANY && l->stream != f->stream) return false;
    return true;
}

static int cmp_kernel(const void *a, const void *b) {
    const KernelFigures *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* Union length of one lane's events clipped to [t0, t1): rows are each sorted and
 * disjoint, but rows overlap each other, so merge through a small sweep. */
static int64_t lane_busy(const Trace *t, const Lane *l, int64_t t0, int64_t t1, size_t *n_events, Edges *E) {
    E->n = 0;
    size_t n = 0;
    for (LaneWindow w = LaneWindow_begin(t, l, t0, t1); LaneWindow_next(&w);) {
        if (!Overlap_counts(w.ev)) continue;
        n++;
        if (w.end > w.start) push_interval(E, w.start, w.end, 0);
    }
    *n_events = n;
    int64_t meas[8];
    sweep(E, meas);
    int64_t busy = 0;
    for (int m = 1; m < 8; m++) busy += meas[m];
    return busy;
}

void Overlap_sumDevices(const DeviceFigures *devices, size_t n, DeviceFigures *T) {
    memset(T, 0, sizeof *T);
    T->rank = -1;
    T->device = -1;
    for (size_t i = 0; i < n; i++) {
        const DeviceFigures *D = &devices[i];
        T->comm = sat_add(T->comm, D->comm);
        T->compute = sat_add(T->compute, D->compute);
        T->overlap = sat_add(T->overlap, D->overlap);
        T->exposed = sat_add(T->exposed, D->exposed);
        T->memory = sat_add(T->memory, D->memory);
        T->busy = sat_add(T->busy, D->busy);
        T->idle = sat_add(T->idle, D->idle);
        T->window = sat_add(T->window, D->window);
        T->n_events += D->n_events;
    }
    T->has_comm = T->comm > 0;
    T->ratio = T->has_comm ? (double)T->overlap / (double)T->comm : 0.0;
}

void Overlap_sortKernels(KernelFigures *k, size_t n) { qsort(k, n, sizeof *k, cmp_kernel); }

OverlapReport *Overlap_compute(const Trace *t, const OverlapFilter *f) {
    OverlapReport *R = xcalloc(1, sizeof *R);
    R->filter = *f;
    int64_t t0 = f->t0, t1 = f->t1;
    Edges E = {0}, LE = {0};
    size_t n_names = StrTab_count(t->strings);
    size_t *kcount = f->top_n ? xcalloc(n_names, sizeof *kcount) : NULL;
    int64_t *ktotal = f->top_n ? xcalloc(n_names, sizeof *ktotal) : NULL;
    uint8_t *kcls = f->top_n ? xcalloc(n_names, 1) : NULL;
    size_t cap_dev = 0;
    for (uint32_t g = 0; g < t->n_groups; g++) {
        const Group *G = &t->groups[g];
        if (!G->gpu) continue;
        E.n = 0;
        DeviceFigures D = {0};
        D.group = g;
        D.rank = G->rank;
        D.device = G->id;
        D.window_start = INT64_MAX;
        D.window_end = INT64_MIN;
        size_t cap_streams = 0;
        for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
            const Lane *l = &t->lanes[li];
            if (!lane_selected(l, f)) continue;
            for (LaneWindow w = LaneWindow_begin(t, l, t0, t1); LaneWindow_next(&w);) {
                const TraceEvent *e = w.ev;
                if (!Overlap_counts(e)) continue;
                int64_t s = w.start, en = w.end;
                if (s < D.window_start) D.window_start = s;
                if (en > D.window_end) D.window_end = en;
                D.n_events++;
                int c = sweep_class(e->cls);
                if (c >= 0 && en > s) push_interval(&E, s, en, c);
                if (kcount && e->kind == KIND_KERNEL) {
                    kcount[e->name]++;
                    ktotal[e->name] = sat_add(ktotal[e->name], en - s);
                    kcls[e->name] = (uint8_t)e->cls;
                }
            }
            GROW(D.streams, cap_streams, D.n_streams + 1);
            StreamFigures *S = &D.streams[D.n_streams++];
            S->lane = li;
            S->stream = l->stream;
            S->busy = lane_busy(t, l, t0, t1, &S->n_events, &LE);
        }
        if (D.n_streams == 0) {
            free(D.streams);
            continue;
        }
        int64_t meas[8];
        sweep(&E, meas);
        for (int m = 0; m < 8; m++) {
            if (m & 1) D.compute += meas[m];
            if (m & 2) D.comm += meas[m];
            if ((m & 3) == 3) D.overlap += meas[m];
            if (m & 4) D.memory += meas[m];
            if (m) D.busy += meas[m];
        }
        D.exposed = D.comm - D.overlap;
        D.has_comm = D.comm > 0;
        D.ratio = D.has_comm ? (double)D.overlap / (double)D.comm : 0.0;
        if (D.n_events == 0) D.window_start = D.window_end = 0;
        D.window = D.window_end - D.window_start;
        D.idle = D.window - D.busy;
        GROW(R->devices, cap_dev, R->n_devices + 1);
        R->devices[R->n_devices++] = D;
    }
    Overlap_sumDevices(R->devices, R->n_devices, &R->total);
    if (kcount) {
        size_t nk = 0;
        for (size_t i = 0; i < n_names; i++) nk += kcount[i] > 0;
        KernelFigures *K = xmalloc((nk ? nk : 1) * sizeof *K);
        size_t j = 0;
        for (size_t i = 0; i < n_names; i++)
            if (kcount[i]) K[j++] = (KernelFigures){(uint32_t)i, (EventClass)kcls[i], kcount[i], ktotal[i]};
        Overlap_sortKernels(K, nk);
        R->n_kernels = nk < f->top_n ? nk : f->top_n;
        R->kernels = K;
    }
    free(kcount);
    free(ktotal);
    free(kcls);
    free(E.e);
    free(E.scratch);
    free(LE.e);
    free(LE.scratch);
    return R;
}

void OverlapReport_free(OverlapReport *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n_devices; i++) free(r->devices[i].streams);
    free(r->devices);
    free(r->kernels);
    free(r);
}

/* Where column c of ncols over [t0, t1) starts: the first ns x with floor((x - t0) *
 * ncols / (t1 - t0)) == c (TraceIndex_colTime's ceiling). */
static int64_t col_time(int64_t t0, int64_t t1, int ncols, int c) {
    __int128 p = (__int128)(t1 - t0) * c;
    return t0 + (int64_t)((p + ncols - 1) / ncols);
}

/* Spreads segments of constant state, in time order from t0 on, over the columns of
 * [t0, t1): column c covers [colTime(c), colTime(c + 1)), and as the time only moves
 * forward so does the column (a division per column, not per segment). */
typedef struct {
    int64_t t0, t1;
    int ncols, c;
    int64_t col_end;
    int64_t *out;
} Spread;

static Spread spread_begin(int64_t t0, int64_t t1, int ncols, int64_t *out) {
    return (Spread){t0, t1, ncols, 0, col_time(t0, t1, ncols, 1), out};
}

/* [a, b) in state st, with the classes' counts cnt (compute, comm, memory). */
static void spread(Spread *S, int64_t a, int64_t b, const int *cnt) {
    BandState st = cnt[1] > 0 ? (cnt[0] > 0 ? BAND_HIDDEN : BAND_EXPOSED)
                   : cnt[0] > 0 ? BAND_COMPUTE
                   : cnt[2] > 0 ? BAND_MEMORY
                                : BAND_IDLE;
    while (a < b) {
        while (a >= S->col_end) S->col_end = col_time(S->t0, S->t1, S->ncols, ++S->c + 1);
        int64_t e = b < S->col_end ? b : S->col_end;
        S->out[S->c * BAND__COUNT + st] += e - a;
        a = e;
    }
}

/* The band by edges: every row's intervals pushed, sorted, swept. */
static void band_edges(const Trace *t, const Group *G, int64_t t0, int64_t t1, int ncols, int64_t *out) {
    Edges E = {0};
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++)
        for (LaneWindow w = LaneWindow_begin(t, &t->lanes[li], t0, t1); LaneWindow_next(&w);) {
            int c = Overlap_counts(w.ev) ? sweep_class(w.ev->cls) : -1;
            if (c >= 0 && w.end > w.start) push_interval(&E, w.start, w.end, c);
        }
    Edges_sort(E.e, E.n, &E.scratch, &E.cap_scratch);
    Spread S = spread_begin(t0, t1, ncols, out);
    int cnt[3] = {0, 0, 0};
    int64_t cur = t0;
    size_t i = 0;
    while (cur < t1) {
        while (i < E.n && E.e[i].t <= cur) {
            cnt[E.e[i].cls] += E.e[i].delta;
            i++;
        }
        int64_t next = i < E.n && E.e[i].t < t1 ? E.e[i].t : t1;
        spread(&S, cur, next, cnt);
        cur = next;
    }
    free(E.e);
    free(E.scratch);
}

/* Rows the sweep walks side by side; a group with more takes the edges. */
enum { BAND_SWEEP_ROWS = 16 };

/* One row's counted intervals clipped to the window, in time order: [s, e) of class
 * cls, started (on) or not yet. */
typedef struct {
    const TraceEvent *ev; /* t->events */
    size_t i, end;        /* next event of the row, the row's end */
    int64_t s, e;
    int cls;
    bool on;
} BandRow;

/* The row's next non-empty interval in [t0, t1); false when none is left. */
static bool band_row_next(BandRow *w, int64_t t0, int64_t t1) {
    while (w->i < w->end) {
        const TraceEvent *e = &w->ev[w->i++];
        if (e->ts >= t1) break;
        int c = Overlap_counts(e) ? sweep_class(e->cls) : -1;
        int64_t s = e->ts > t0 ? e->ts : t0, en = TraceEvent_end(e) < t1 ? TraceEvent_end(e) : t1;
        if (c < 0 || en <= s) continue;
        *w = (BandRow){w->ev, w->i, w->end, s, en, c, false};
        return true;
    }
    w->i = w->end;
    return false;
}

/* The band by a sweep over the group's rows side by side: a row's events are sorted
 * and disjoint, so its intervals come in time order and the rows merge without edges.
 * False (out to be redone) for more than BAND_SWEEP_ROWS rows or a row out of order. */
static bool band_sweep(const Trace *t, const Group *G, int64_t t0, int64_t t1, int ncols, int64_t *out) {
    BandRow rs[BAND_SWEEP_ROWS];
    size_t n = 0, rows = 0;
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) rows += t->lanes[li].n_rows;
    if (rows > BAND_SWEEP_ROWS) return false;
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
        const Lane *l = &t->lanes[li];
        for (uint32_t k = 0; k < l->n_rows; k++) {
            const Row *row = &t->rows[l->first_row + k];
            rs[n] = (BandRow){.ev = t->events, .i = Row_lowerBound(t, row, t0), .end = row->first + row->count};
            if (band_row_next(&rs[n], t0, t1)) n++;
        }
    }
    Spread S = spread_begin(t0, t1, ncols, out);
    int cnt[3] = {0, 0, 0};
    for (int64_t cur = t0; cur < t1;) {
        /* every start and end at cur; a row's next interval may start there too */
        for (size_t k = 0; k < n;) {
            BandRow *w = &rs[k];
            if (!w->on && w->s == cur) {
                cnt[w->cls]++;
                w->on = true;
            }
            if (!w->on || w->e != cur) {
                k++;
                continue;
            }
            cnt[w->cls]--;
            if (!band_row_next(w, t0, t1)) {
                rs[k] = rs[--n];
                continue;
            }
            if (w->s < cur) return false; /* overlaps the interval before it: not a row */
        }
        int64_t next = t1;
        for (size_t k = 0; k < n; k++) {
            int64_t x = rs[k].on ? rs[k].e : rs[k].s;
            if (x < next) next = x;
        }
        spread(&S, cur, next, cnt);
        cur = next;
    }
    return true;
}

void Overlap_band(const Trace *t, uint32_t group, int64_t t0, int64_t t1, int ncols, int64_t *out) {
    memset(out, 0, (size_t)ncols * BAND__COUNT * sizeof *out);
    if (group >= t->n_groups || ncols <= 0 || t1 <= t0) return;
    const Group *G = &t->groups[group];
    if (band_sweep(t, G, t0, t1, ncols, out)) return;
    memset(out, 0, (size_t)ncols * BAND__COUNT * sizeof *out);
    band_edges(t, G, t0, t1, ncols, out);
}
