/* A parallel loop over items for Trace_finish: workers take items in the given order
 * (largest first balances best) from a shared counter. */
#ifndef OVTRACE_PARFOR_H
#define OVTRACE_PARFOR_H
#include <pthread.h>
#include <stdbool.h>
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

/* Passes over all n items of an array cut into equal chunks, one per thread. A chunk
 * holds PARFOR_CHUNK_MIN items at least: a quarter of a million items take a
 * millisecond or more, against tens of microseconds to start a thread. */
#define PARFOR_CHUNK_MIN (1u << 18)

/* How many chunks n items take on `threads` threads, each of min items at least (0:
 * PARFOR_CHUNK_MIN): threads (at most 8) from 2 x min items on, else 1. */
size_t ParFor_chunkCount(size_t n, size_t min, int threads);

/* fn(ctx, c, a, b) on each chunk c = [a, b) of items 0..n-1 cut into nc (1 to 8) chunks
 * of equal size, the last smaller, each on a thread of its own (the calling thread
 * included). */
typedef void (*ParChunkFn)(void *ctx, uint32_t c, size_t a, size_t b);
void ParFor_chunks(size_t n, size_t nc, ParChunkFn fn, void *ctx);

/* One task beside the caller's own work: ParTask_start runs fn(ctx) on a thread of its
 * own when `beside`; ParTask_join returns once it has run, running it there and then on
 * the calling thread when it was not beside (or no thread could be made). */
typedef struct {
    void (*fn)(void *ctx);
    void *ctx;
    pthread_t th;
    bool started;
} ParTask;

void ParTask_start(ParTask *task, bool beside, void (*fn)(void *ctx), void *ctx);
void ParTask_join(ParTask *task);

#endif
