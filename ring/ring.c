/* Ring: bounded single-producer/single-consumer queue of RingRecords.
 *
 * Ordering: the producer fills a slot with plain stores, then publishes it with a
 * release store of head; the consumer's acquire load of head therefore sees the whole
 * record. Symmetrically the consumer reads slots, then frees them with a release store
 * of tail; the producer's acquire load of tail guarantees those reads finished before
 * it overwrites the slots. Indices are free-running 64-bit counters (never wrap in
 * practice), so full is head - tail == capacity and empty is head == tail. */
#include <stdlib.h>
#include <string.h>

#include "ring_layout.h"

Ring *Ring_new(uint32_t capacity) {
    if (capacity < 2 || (capacity & (capacity - 1)) != 0)
        return NULL;
    size_t size = sizeof(struct Ring) + (size_t)capacity * sizeof(RingRecord);
    Ring *r = aligned_alloc(CACHE_LINE, ring_align(size, CACHE_LINE));
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    r->mask = capacity - 1;
    return r;
}

void Ring_free(Ring *r) {
    free(r);
}

bool Ring_push(Ring *r, const RingRecord *rec) {
    const uint64_t mask = r->mask;
    /* Relaxed: head is only ever written by this (the producer) thread. */
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (h - r->cached_tail > mask) {
        /* Looks full from the cached view; only now touch the consumer's line. */
        r->cached_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->cached_tail > mask) {
            /* Single writer, so load+store instead of a locked fetch_add. */
            uint64_t d = atomic_load_explicit(&r->drops, memory_order_relaxed);
            atomic_store_explicit(&r->drops, d + 1, memory_order_relaxed);
            return false;
        }
    }
    r->slots[h & mask] = *rec;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return true;
}

/* Shared by Ring_pop* and RingSet_drain. mask comes from the caller so a consumer can
 * use its own validated copy instead of the one in (possibly peer-writable) memory. */
static inline uint64_t ring_available(Ring *r, uint64_t mask, uint64_t t, size_t want) {
    uint64_t h = r->cached_head;
    /* Re-read head (the producer's line) only when the cached view cannot satisfy the
     * request, so popping one at a time does not bounce the line per record. */
    if (h - t < want) {
        h = atomic_load_explicit(&r->head, memory_order_acquire);
        r->cached_head = h;
    }
    uint64_t n = h - t;
    /* Only a corrupted peer can make this exceed capacity; never read past the ring. */
    return n > mask + 1 ? mask + 1 : n;
}

size_t ring_consume(Ring *r, uint64_t mask, uint32_t index, RingDrainFn fn, void *ctx,
                    RingRecord *out, size_t max) {
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t n = ring_available(r, mask, t, max);
    if (n > max)
        n = max;
    for (uint64_t i = 0; i < n; i++) {
        const RingRecord *rec = &r->slots[(t + i) & mask];
        if (fn)
            fn(rec, index, ctx);
        else
            out[i] = *rec;
    }
    if (n)
        atomic_store_explicit(&r->tail, t + n, memory_order_release);
    return (size_t)n;
}

bool Ring_pop(Ring *r, RingRecord *out) {
    return ring_consume(r, r->mask, r->index, NULL, NULL, out, 1) == 1;
}

size_t Ring_pop_batch(Ring *r, RingRecord *out, size_t max) {
    return ring_consume(r, r->mask, r->index, NULL, NULL, out, max);
}

uint32_t Ring_capacity(const Ring *r) {
    return (uint32_t)(r->mask + 1);
}

uint64_t Ring_size(const Ring *r) {
    uint64_t t = atomic_load_explicit(&((Ring *)r)->tail, memory_order_acquire);
    uint64_t h = atomic_load_explicit(&((Ring *)r)->head, memory_order_acquire);
    return h - t;
}

uint64_t Ring_drops(const Ring *r) {
    return atomic_load_explicit(&((Ring *)r)->drops, memory_order_relaxed);
}
