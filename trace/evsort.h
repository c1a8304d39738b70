/* In-place sorting of events. glibc's qsort is a merge sort that allocates a copy
 * of the whole array (40 B/event more at peak), so the model sorts itself:
 * a counting-sort permutation groups events by lane, then each lane is checked
 * and, only if needed, sorted in place. */
#ifndef OVTRACE_EVSORT_H
#define OVTRACE_EVSORT_H
#include <stddef.h>

#include "ovtrace/trace.h"

typedef int (*EventCmp)(const TraceEvent *a, const TraceEvent *b);

/* Introsort (quicksort, heapsort fallback, insertion sort for small runs). Not stable. */
void EventSort_sort(TraceEvent *ev, size_t n, EventCmp cmp);
/* Stable in-place grouping by lane (lanes < n_lanes); returns per-lane start offsets
 * in first (n_lanes + 1 entries). Uses 4 B/event of temporary memory. */
void EventSort_groupByLane(TraceEvent *ev, size_t n, size_t n_lanes, size_t *first);

#endif
