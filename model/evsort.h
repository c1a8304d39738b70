/* Ordering events without moving them until the end. Trace_finish sorts 4-byte
 * indices (grouped by lane, then by time, then by sub-row) and moves each 40-byte
 * event exactly once with EventSort_permute. glibc's qsort would allocate a copy of
 * the whole array (40 B/event more at peak); this needs 4 B/event. */
#ifndef OVTRACE_EVSORT_H
#define OVTRACE_EVSORT_H
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

typedef int (*EventCmp)(const TraceEvent *a, const TraceEvent *b);

/* The lanes' order: by start, then longer first (a counter's duration counts as 0).
 * EventSort_sortIndex takes it inline when given cmp NULL (no call per comparison). */
static inline int EventSort_cmpTime(const TraceEvent *x, const TraceEvent *y) {
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    int64_t dx = x->kind == KIND_COUNTER ? 0 : x->dur, dy = y->kind == KIND_COUNTER ? 0 : y->dur;
    if (dx != dy) return dx > dy ? -1 : 1;
    return 0;
}

/* Sorts idx[0..n) by cmp (NULL: EventSort_cmpTime) on ev[idx[k]], ties by index, so
 * the order is total and stable. Profiler output is sorted or nearly so: a sorted check, an insertion sort
 * with a move budget (ops written a few places late), a merge of a few interleaved
 * sorted streams, and only then introsort. tmp: scratch for n indices. */
void EventSort_sortIndex(const TraceEvent *ev, uint32_t *idx, size_t n, uint32_t *tmp, EventCmp cmp);
/* Reorders ev so that position p holds what ev[idx[p]] held (idx a permutation of
 * 0..n-1). In place, one move per event; idx is clobbered. */
void EventSort_permute(TraceEvent *ev, uint32_t *idx, size_t n);
/* The same result, faster when idx maps blocks onto themselves (a multi-rank trace: each
 * rank's events stay in the rank's range): idx is cut into closed segments (positions
 * [a, b) whose sources are all in [a, b)), joined into chunks of at least min_chunk
 * events, and the chunks run on up to `threads` threads, largest first. A chunk of at
 * most max_gather events is gathered through a per-thread buffer (cache-friendly, at
 * most threads x max_gather x 40 B extra); a larger one follows its cycles in place. */
void EventSort_permuteChunks(TraceEvent *ev, uint32_t *idx, size_t n, int threads, size_t min_chunk,
                             size_t max_gather);
/* dst[p] = src[idx[p]] for p in 0..n-1, in blocks on up to `threads` threads: the reads
 * are independent (many in flight at once), where following cycles in place waits on
 * each. Needs a second event array; Trace_finish uses it only where the input's mapping
 * already held that much memory. */
void EventSort_gather(TraceEvent *dst, const TraceEvent *src, const uint32_t *idx, size_t n, int threads);

#endif
