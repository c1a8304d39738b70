/* Interval endpoints for sweep lines (overlap.c, collectives.c) and their sort. */
#ifndef OVTRACE_EDGES_H
#define OVTRACE_EDGES_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t t;
    int8_t delta; /* +1 start, -1 end */
    uint8_t cls;  /* the caller's activity class */
} Edge;

/* Sorts E[0..n) by t; equal times come in any order (the sweeps consume them
 * together). Up to 64 ascending runs (edges pushed row by row) are merged; otherwise
 * an LSD radix sort over 16-bit digits of t - min, as many digits as the span needs,
 * where qsort cost seconds per million-event device (qsort below 32k edges).
 * *scratch (capacity *cap, grown here) is the caller's, so a loop over devices reuses
 * it. */
void Edges_sort(Edge *E, size_t n, Edge **scratch, size_t *cap);

#endif
