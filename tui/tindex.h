/* Per-lane index built once per model so that a frame costs O(width x rows x log n)
 * whatever the event count:
 *  - a prefix sum of durations per row (8 B/event): the exact busy time of any run of
 *    events, hence of any column, from two binary searches;
 *  - per-bucket coverage summaries for big rows (~1 B/event): a column that spans
 *    several buckets reads its coverage without touching the events at all;
 *  - per-bucket band summaries for each GPU device (~4 B/event): ns per overlap state
 *    (compute, hidden comm, exposed comm, memory), computed with Overlap_band so the
 *    band and `ovtrace stats` agree. */
#ifndef OVTRACE_TUI_TINDEX_H
#define OVTRACE_TUI_TINDEX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"

typedef struct TraceIndex TraceIndex;

/* What one column of one row holds. */
typedef struct {
    int64_t cov; /* busy ns of the row within the column (sum of clipped durations) */
    uint32_t n;  /* events touching the column (UINT32_MAX: many, count unknown) */
    size_t ev;   /* first event touching the column (valid when n >= 1 and known) */
} ColumnInfo;

TraceIndex *TraceIndex_build(const Trace *t);
void TraceIndex_free(TraceIndex *x);
size_t TraceIndex_bytes(const TraceIndex *x);

/* Column c of ncols over [t0, t1) covers [TraceIndex_colTime(c), TraceIndex_colTime(c+1)). */
static inline int64_t TraceIndex_colTime(int64_t t0, int64_t t1, int ncols, int c) {
    /* ceil, so that TraceIndex_colOf (floor) is its exact inverse */
    __int128 p = (__int128)(t1 - t0) * c;
    return t0 + (int64_t)(p >= 0 ? (p + ncols - 1) / ncols : p / ncols);
}
/* The column holding time ts (may be < 0 or >= ncols). */
static inline int TraceIndex_colOf(int64_t t0, int64_t t1, int ncols, int64_t ts) {
    __int128 c = (__int128)(ts - t0) * ncols / (t1 - t0);
    if (ts < t0 && (__int128)(ts - t0) * ncols % (t1 - t0)) c--; /* floor */
    return c < -1 ? -1 : c > ncols ? ncols : (int)c;
}

/* Row `row`'s summary bucket k: its busy ns, and its span in *a, *b; -1 when the row has
 * no bucket k (rows of fewer than 4096 events have none). For tests. */
int64_t TraceIndex_rowBucket(const TraceIndex *x, uint32_t row, uint32_t k, int64_t *a, int64_t *b);

/* The most frequent class of a row (colours columns whose events are not read). */
EventClass TraceIndex_rowClass(const TraceIndex *x, uint32_t row);
/* Row r (index into t->rows): first event whose end > ts (Row_lowerBound) and first
 * event whose start >= ts. */
size_t TraceIndex_firstStartAtOrAfter(const Trace *t, const Row *r, int64_t ts);
/* Fills out[0..ncols) for row `row` over [t0, t1). */
void TraceIndex_rowColumns(const TraceIndex *x, const Trace *t, uint32_t row, int64_t t0, int64_t t1, int ncols,
                           ColumnInfo *out);

/* ns per band state per column (out[c * BAND__COUNT + state]) for GPU group `group`:
 * exact (Overlap_band) when the view holds few events, else from the bucket summary. */
void TraceIndex_band(const TraceIndex *x, const Trace *t, uint32_t group, int64_t t0, int64_t t1, int ncols,
                     int64_t *out);
/* Device overlap ratio (hidden / all comm) over [t0, t1); false when there is no comm. */
bool TraceIndex_ratio(const TraceIndex *x, const Trace *t, uint32_t group, int64_t t0, int64_t t1, double *ratio);

#endif
