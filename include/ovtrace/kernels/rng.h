/* The one pseudo-random generator of the simulators and the serving policy: xorshift64*
 * on a caller-held state, so every source is reproducible from its seed and no two
 * share a hidden global. Not for anything that needs unpredictability. */
#ifndef OVTRACE_RNG_H
#define OVTRACE_RNG_H
#include <stdint.h>

/* Advances *state (must not be 0) and returns the next value. */
static inline uint64_t Rng_next(uint64_t *state) {
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

#endif
