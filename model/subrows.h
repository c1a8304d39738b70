/* Sub-rows of one lane: greedy interval partitioning in O(n log n). */
#ifndef OVTRACE_SUBROWS_H
#define OVTRACE_SUBROWS_H
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

/* The deepest sub-row an event records (TraceEvent.depth is 20 bits); events deeper
 * than that share it. */
#define SUBROWS_MAX_DEPTH 0xfffffu

/* idx[0..m) are one lane's events in start order. Gives each event the lowest sub-row
 * whose last event ended at or before its start (for properly nested CPU ops: the
 * nesting depth), sets ev[idx[k]].depth (capped at SUBROWS_MAX_DEPTH) and returns the
 * number of sub-rows used (uncapped). *heap / *cap: scratch the caller keeps between
 * calls and frees. */
size_t SubRows_assign(TraceEvent *ev, const uint32_t *idx, size_t m, void **heap, size_t *cap);

#endif
