/* Bit counts without the libgcc call __builtin_popcount becomes where the target lacks
 * POPCNT (x86-64's baseline): the scanners count bits of every 64-byte block. */
#ifndef OVTRACE_BASE_BITS_H
#define OVTRACE_BASE_BITS_H
#include <stdint.h>

/* Set bits of x. */
static inline unsigned Bits_count64(uint64_t x) {
#ifdef __POPCNT__
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

#endif
