/* A parallel loop over items for Trace_finish: workers take items in the given order
 * (largest first balances best) from a shared counter. */
#ifndef OVTRACE_PARFOR_H
#define OVTRACE_PARFOR_H
#include <stddef.h>
#include <stdint.h>

/* Per-worker buffers, zeroed at first; fn may grow them (GROW), ParFor frees them. */
typedef struct {
    void *a, *b;
    size_t cap_a, cap_b;
} ParScratch;

typedef void (*ParForFn)(void *ctx, uint32_t item, ParScratch *scratch);

/* Runs fn on order[0..n) with up to `threads` threads (at most 8, fewer when n is),
 * the calling thread included. Results must not depend on which thread ran an item. */
void ParFor_run(const uint32_t *order, size_t n, int threads, ParForFn fn, void *ctx);

/* Items 0..n-1 by size[item], largest first, ties by item: the order ParFor_run
 * balances best. malloc'd (x* policy), never NULL. */
uint32_t *ParFor_largestFirst(const size_t *size, size_t n);

#endif
