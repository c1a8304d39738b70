/* Per-row prefix sums and per-bucket summaries (see tindex.h). */
#include "tindex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/model/parfor.h"

#define ROW_BUCKET_MIN 4096  /* rows with fewer events are read directly */
#define ROW_EVENTS_PER_BUCKET 8
#define BAND_EVENTS_PER_BUCKET 8
#define BAND_BUCKET_MIN 2048 /* devices with fewer GPU events always use the exact path */
#define BAND_CHUNK 4096      /* buckets computed per Overlap_band call while building */
#define BAND_EXACT_PER_COL 16

typedef struct {
    int64_t start, width, end; /* end: no activity after it (the last bucket is partial) */
    uint32_t n; /* buckets; 0 = none */
    int64_t *cum; /* n + 1 entries: busy ns in [start, start + k*width) */
} Buckets;

typedef struct {
    int64_t start, width, end;
    uint32_t n;
    int64_t *cum; /* (n + 1) * 4: ns of compute, hidden, exposed, memory before bucket k */
} BandBuckets;

struct TraceIndex {
    int64_t *prefix; /* prefix[i]: sum of durations of the events of i's row before i */
    Buckets *rows;
    BandBuckets *band;
    uint8_t *row_class; /* most frequent class per row */
    size_t n_rows, n_groups, n_events;
};

static inline int64_t ev_len(const TraceEvent *e) { return TraceEvent_end(e) - e->ts; }

static void build_row_buckets(const Trace *t, const Row *r, Buckets *b) {
    const TraceEvent *ev = t->events + r->first;
    int64_t start = ev[0].ts, end = TraceEvent_end(&ev[r->count - 1]);
    for (size_t i = 0; i < r->count; i++)
        if (TraceEvent_end(&ev[i]) > end) end = TraceEvent_end(&ev[i]);
    uint32_t n = (uint32_t)(r->count / ROW_EVENTS_PER_BUCKET);
    int64_t span = end - start;
    if (span <= 0 || n == 0) return;
    if ((int64_t)n > span) n = (uint32_t)span;
    int64_t w = (span + n - 1) / n;
    b->start = start;
    b->width = w;
    b->end = end;
    b->n = n;
    b->cum = xcalloc(n + 1, sizeof *b->cum);
    int64_t *per = b->cum + 1; /* accumulate per bucket, then prefix */
    for (size_t i = 0; i < r->count; i++) {
        int64_t s = ev[i].ts, e = TraceEvent_end(&ev[i]);
        while (s < e) {
            int64_t k = (s - start) / w;
            if (k >= n) break;
            int64_t be = start + (k + 1) * w;
            int64_t x = e < be ? e : be;
            per[k] += x - s;
            s = x;
        }
    }
    for (uint32_t k = 1; k <= n; k++) b->cum[k] += b->cum[k - 1];
}

static void build_band(const Trace *t, uint32_t g, BandBuckets *b) {
    const Group *G = &t->groups[g];
    size_t n_ev = 0;
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) n_ev += t->lanes[li].count;
    int64_t span = t->t_max - t->t_min;
    if (n_ev < BAND_BUCKET_MIN || span <= 0) return;
    uint32_t n = (uint32_t)(n_ev / BAND_EVENTS_PER_BUCKET);
    if ((int64_t)n > span) n = (uint32_t)span;
    int64_t w = (span + n - 1) / n;
    b->start = t->t_min;
    b->width = w;
    b->end = t->t_max;
    b->n = n;
    b->cum = xcalloc(((size_t)n + 1) * 4, sizeof *b->cum);
    int64_t *out = xcalloc((size_t)BAND_CHUNK * BAND__COUNT, sizeof *out);
    for (uint32_t k0 = 0; k0 < n; k0 += BAND_CHUNK) {
        uint32_t m = n - k0 < BAND_CHUNK ? n - k0 : BAND_CHUNK;
        int64_t a = b->start + (int64_t)k0 * w;
        Overlap_band(t, g, a, a + (int64_t)m * w, (int)m, out);
        for (uint32_t j = 0; j < m; j++)
            for (int s = 0; s < 4; s++)
                b->cum[((size_t)k0 + j + 1) * 4 + (size_t)s] = out[(size_t)j * BAND__COUNT + (size_t)s + 1];
    }
    free(out);
    for (uint32_t k = 1; k <= n; k++)
        for (int s = 0; s < 4; s++) b->cum[(size_t)k * 4 + (size_t)s] += b->cum[(size_t)(k - 1) * 4 + (size_t)s];
}

typedef struct {
    const Trace *t;
    TraceIndex *x;
    const size_t *cut;     /* rows chunk c: [cut[c], cut[c + 1]) */
    const uint32_t *gpu;   /* GPU groups */
} IndexJob;

static void index_row(const Trace *t, TraceIndex *x, size_t ri) {
    const Row *r = &t->rows[ri];
    int64_t acc = 0;
    size_t hist[CLASS__COUNT] = {0};
    for (size_t i = r->first; i < r->first + r->count; i++) {
        x->prefix[i] = acc;
        acc += ev_len(&t->events[i]);
        hist[t->events[i].cls]++;
    }
    for (int c = 1; c < CLASS__COUNT; c++)
        if (hist[c] > hist[x->row_class[ri]]) x->row_class[ri] = (uint8_t)c;
    if (r->count >= ROW_BUCKET_MIN) build_row_buckets(t, r, &x->rows[ri]);
}

static void index_rows(void *ctx, uint32_t c, ParScratch *S) {
    (void)S;
    const IndexJob *J = ctx;
    for (size_t ri = J->cut[c]; ri < J->cut[c + 1]; ri++) index_row(J->t, J->x, ri);
}

static void index_band(void *ctx, uint32_t k, ParScratch *S) {
    (void)S;
    const IndexJob *J = ctx;
    build_band(J->t, J->gpu[k], &J->x->band[J->gpu[k]]);
}

static uint32_t *iota(size_t n) {
    uint32_t *v = xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = (uint32_t)i;
    return v;
}

/* Rows and GPU groups are independent: both run on every core (ParFor), rows in chunks
 * of about 1/64 of the events so that a million small rows cost no more than a few
 * large ones. The index does not depend on the thread count. */
TraceIndex *TraceIndex_build(const Trace *t) {
    TraceIndex *x = xcalloc(1, sizeof *x);
    x->n_events = t->n_events;
    x->n_rows = t->n_rows;
    x->n_groups = t->n_groups;
    x->prefix = xcalloc(t->n_events, sizeof *x->prefix);
    x->rows = xcalloc(t->n_rows, sizeof *x->rows);
    x->band = xcalloc(t->n_groups, sizeof *x->band);
    x->row_class = xcalloc(t->n_rows, 1);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores > 1 ? (int)cores : 1;
    size_t *cut = xmalloc((t->n_rows + 1) * sizeof *cut), nc = 0, want = t->n_events / 64 + 1, in = 0;
    cut[nc] = 0;
    for (size_t ri = 0; ri < t->n_rows; ri++) {
        in += t->rows[ri].count;
        if (in >= want || ri + 1 == t->n_rows) {
            cut[++nc] = ri + 1;
            in = 0;
        }
    }
    uint32_t *gpu = xmalloc((t->n_groups ? t->n_groups : 1) * sizeof *gpu);
    size_t ng = 0;
    for (uint32_t g = 0; g < t->n_groups; g++)
        if (t->groups[g].gpu) gpu[ng++] = g;
    IndexJob J = {t, x, cut, gpu};
    uint32_t *order = iota(nc > ng ? nc : ng);
    ParFor_run(order, nc, threads, index_rows, &J);
    ParFor_run(order, ng, threads, index_band, &J);
    free(order);
    free(gpu);
    free(cut);
    return x;
}

void TraceIndex_free(TraceIndex *x) {
    if (!x) return;
    for (size_t i = 0; i < x->n_rows; i++) free(x->rows[i].cum);
    for (size_t i = 0; i < x->n_groups; i++) free(x->band[i].cum);
    free(x->rows);
    free(x->band);
    free(x->row_class);
    free(x->prefix);
    free(x);
}

size_t TraceIndex_bytes(const TraceIndex *x) {
    size_t b = sizeof *x + x->n_events * sizeof *x->prefix + x->n_rows * (sizeof *x->rows + 1) +
               x->n_groups * sizeof *x->band;
    for (size_t i = 0; i < x->n_rows; i++)
        if (x->rows[i].n) b += ((size_t)x->rows[i].n + 1) * sizeof(int64_t);
    for (size_t i = 0; i < x->n_groups; i++)
        if (x->band[i].n) b += ((size_t)x->band[i].n + 1) * 4 * sizeof(int64_t);
    return b;
}

int64_t TraceIndex_rowBucket(const TraceIndex *x, uint32_t row, uint32_t k, int64_t *a, int64_t *b) {
    if (row >= x->n_rows || k >= x->rows[row].n) return -1;
    const Buckets *B = &x->rows[row];
    *a = B->start + (int64_t)k * B->width;
    *b = *a + B->width;
    return B->cum[k + 1] - B->cum[k];
}

EventClass TraceIndex_rowClass(const TraceIndex *x, uint32_t row) {
    return row < x->n_rows ? (EventClass)x->row_class[row] : CLASS_OTHER;
}

size_t TraceIndex_firstStartAtOrAfter(const Trace *t, const Row *r, int64_t ts) {
    size_t lo = 0, hi = r->count;
    const TraceEvent *ev = t->events + r->first;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].ts >= ts) hi = mid;
        else lo = mid + 1;
    }
    return r->first + lo;
}

/* Searches restricted to [lo, hi) of the global event array (one row). */
static size_t lower_end(const TraceEvent *ev, size_t lo, size_t hi, int64_t ts) {
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (TraceEvent_end(&ev[mid]) > ts) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}
static size_t lower_start(const TraceEvent *ev, size_t lo, size_t hi, int64_t ts) {
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].ts >= ts) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Exact busy ns within [a, b) of events j0..j1-1 of one row (all touching [a, b)). */
static int64_t TraceIndex_coverage(const TraceIndex *x, const Trace *t, size_t j0, size_t j1, int64_t a, int64_t b) {
    if (j1 <= j0) return 0;
    const TraceEvent *first = &t->events[j0], *last = &t->events[j1 - 1];
    int64_t cov = x->prefix[j1 - 1] + ev_len(last) - x->prefix[j0];
    if (first->ts < a) cov -= a - first->ts;
    int64_t le = TraceEvent_end(last);
    if (le > b) cov -= le - b;
    return cov < 0 ? 0 : cov;
}

/* Busy time before x, interpolated inside a bucket (exact at bucket edges and at the end). */
static int64_t bucket_cum(const Buckets *B, int64_t x) {
    if (x <= B->start) return 0;
    if (x >= B->end) return B->cum[B->n];
    int64_t off = x - B->start;
    int64_t k = off / B->width;
    if (k >= B->n) return B->cum[B->n];
    int64_t frac = off - k * B->width;
    int64_t bw = B->start + (k + 1) * B->width <= B->end ? B->width : B->end - (B->start + k * B->width);
    if (bw <= 0) return B->cum[k + 1];
    return B->cum[k] + (int64_t)((__int128)(B->cum[k + 1] - B->cum[k]) * frac / bw);
}

void TraceIndex_rowColumns(const TraceIndex *x, const Trace *t, uint32_t row, int64_t t0, int64_t t1, int ncols,
                           ColumnInfo *out) {
    for (int c = 0; c < ncols; c++) out[c] = (ColumnInfo){0, 0, 0};
    if (ncols <= 0 || t1 <= t0) return;
    const Row *r = &t->rows[row];
    const TraceEvent *ev = t->events;
    size_t lo = Row_lowerBound(t, r, t0);
    size_t hi = lower_start(ev, lo, r->first + r->count, t1);
    if (hi <= lo) return;
    size_t n_view = hi - lo;
    if (n_view <= (size_t)ncols * 4) {
        /* sparse: walk the events, spreading each over its columns */
        for (size_t i = lo; i < hi; i++) {
            int64_t s = ev[i].ts, e = TraceEvent_end(&ev[i]);
            int ca = TraceIndex_colOf(t0, t1, ncols, s);
            if (ca < 0) ca = 0;
            for (int c = ca; c < ncols; c++) {
                int64_t a = TraceIndex_colTime(t0, t1, ncols, c), b = TraceIndex_colTime(t0, t1, ncols, c + 1);
                if (c > ca && a >= e) break;
                int64_t ss = s > a ? s : a, ee = e < b ? e : b;
                if (ee > ss) out[c].cov += ee - ss;
                if (out[c].n == 0) out[c].ev = i;
                out[c].n++;
            }
        }
        return;
    }
    const Buckets *B = &x->rows[row];
    int64_t colw = (t1 - t0) / ncols;
    if (B->n && colw >= 4 * B->width) {
        int64_t prev = bucket_cum(B, t0);
        for (int c = 0; c < ncols; c++) {
            int64_t b = TraceIndex_colTime(t0, t1, ncols, c + 1);
            int64_t cur = bucket_cum(B, b);
            out[c].cov = cur - prev;
            out[c].n = cur > prev ? UINT32_MAX : 0;
            prev = cur;
        }
        return;
    }
    size_t j0 = lo;
    for (int c = 0; c < ncols; c++) {
        int64_t a = TraceIndex_colTime(t0, t1, ncols, c), b = TraceIndex_colTime(t0, t1, ncols, c + 1);
        j0 = lower_end(ev, j0, hi, a);
        size_t j1 = lower_start(ev, j0, hi, b);
        if (j1 > j0) {
            out[c].n = (uint32_t)(j1 - j0 > UINT32_MAX - 1 ? UINT32_MAX - 1 : j1 - j0);
            out[c].ev = j0;
            out[c].cov = TraceIndex_coverage(x, t, j0, j1, a, b);
        }
    }
}

static int64_t band_cum(const BandBuckets *B, int64_t x, int s) {
    if (x <= B->start) return 0;
    if (x >= B->end) return B->cum[(size_t)B->n * 4 + (size_t)s];
    int64_t off = x - B->start;
    int64_t k = off / B->width;
    if (k >= B->n) return B->cum[(size_t)B->n * 4 + (size_t)s];
    int64_t frac = off - k * B->width;
    int64_t bw = B->start + (k + 1) * B->width <= B->end ? B->width : B->end - (B->start + k * B->width);
    int64_t c0 = B->cum[(size_t)k * 4 + (size_t)s], c1 = B->cum[(size_t)(k + 1) * 4 + (size_t)s];
    if (bw <= 0) return c1;
    return c0 + (int64_t)((__int128)(c1 - c0) * frac / bw);
}

static size_t group_events_in(const Trace *t, uint32_t group, int64_t t0, int64_t t1, size_t limit) {
    const Group *G = &t->groups[group];
    size_t n = 0;
    for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
        const Lane *l = &t->lanes[li];
        for (uint32_t k = 0; k < l->n_rows; k++) {
            const Row *r = &t->rows[l->first_row + k];
            size_t lo = Row_lowerBound(t, r, t0);
            size_t hi = lower_start(t->events, lo, r->first + r->count, t1);
            n += hi - lo;
            if (n > limit) return n;
        }
    }
    return n;
}

void TraceIndex_band(const TraceIndex *x, const Trace *t, uint32_t group, int64_t t0, int64_t t1, int ncols,
                     int64_t *out) {
    if (ncols <= 0) return;
    memset(out, 0, (size_t)ncols * BAND__COUNT * sizeof *out);
    if (group >= t->n_groups || t1 <= t0) return;
    const BandBuckets *B = &x->band[group];
    size_t limit = (size_t)ncols * BAND_EXACT_PER_COL;
    if (!B->n || group_events_in(t, group, t0, t1, limit) <= limit) {
        Overlap_band(t, group, t0, t1, ncols, out);
        return;
    }
    int64_t prev[4];
    for (int s = 0; s < 4; s++) prev[s] = band_cum(B, t0, s);
    for (int c = 0; c < ncols; c++) {
        int64_t a = TraceIndex_colTime(t0, t1, ncols, c), b = TraceIndex_colTime(t0, t1, ncols, c + 1);
        int64_t busy = 0;
        for (int s = 0; s < 4; s++) {
            int64_t cur = band_cum(B, b, s);
            int64_t v = cur - prev[s];
            out[(size_t)c * BAND__COUNT + (size_t)s + 1] = v;
            busy += v;
            prev[s] = cur;
        }
        out[(size_t)c * BAND__COUNT + BAND_IDLE] = b - a - busy > 0 ? b - a - busy : 0;
    }
}

bool TraceIndex_ratio(const TraceIndex *x, const Trace *t, uint32_t group, int64_t t0, int64_t t1, double *ratio) {
    int64_t out[BAND__COUNT];
    TraceIndex_band(x, t, group, t0, t1, 1, out);
    int64_t comm = out[BAND_HIDDEN] + out[BAND_EXPOSED];
    if (comm <= 0) return false;
    *ratio = (double)out[BAND_HIDDEN] / (double)comm;
    return true;
}
