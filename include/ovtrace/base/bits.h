/* Bit tricks of the JSON scanners' 64-byte blocks (bit i is byte i): counts without the
 * libgcc call __builtin_popcount becomes where the target lacks POPCNT (x86-64's
 * baseline), which bytes a backslash escapes, which bytes are inside strings. */
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

/* The bytes a backslash escapes, from the block's backslashes and whether its first byte
 * is escaped (*carry, 0 or 1; set for the next block). A run of backslashes escapes the
 * byte after it when the run is odd: the subtraction finds each run's end, the odd/even
 * bit pattern its parity (simdjson's escape scanner). */
static inline uint64_t Bits_escaped(uint64_t bslash, uint64_t *carry) {
    if (!bslash) {
        uint64_t e = *carry;
        *carry = 0;
        return e;
    }
    const uint64_t odd = 0xaaaaaaaaaaaaaaaaull;
    uint64_t start = bslash & ~*carry;
    uint64_t code = (((start << 1) | odd) - start) ^ odd;
    uint64_t escaped = code ^ (bslash | *carry);
    *carry = (code & bslash) >> 63;
    return escaped;
}

/* Prefix XOR: bit i is the parity of bits 0..i. Of the unescaped quotes, the bytes inside
 * strings (an opening quote in, a closing one out). */
static inline uint64_t Bits_prefixXor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

#endif
