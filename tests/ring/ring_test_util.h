/* Shared helpers for the ring tests (cmocka needs these includes first). */
#ifndef RING_TEST_UTIL_H
#define RING_TEST_UTIL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <time.h>

#include "ovtrace/ring/ring.h"

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A record tagged with its producer and per-producer sequence number. */
static inline RingRecord rec_make(uint32_t producer, uint64_t seq) {
    RingRecord r = {0};
    r.ts_ns = (int64_t)seq;
    r.kind = RING_KIND_KERNEL;
    r.arg = seq;
    r.spare = producer;
    r.stream = -1;
    r.device = -1;
    return r;
}

#endif
