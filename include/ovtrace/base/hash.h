/* Hashing: one place for the mixing steps the tables share. Everything is inline:
 * lane lookups and string interning run once per event. */
#ifndef OVTRACE_BASE_HASH_H
#define OVTRACE_BASE_HASH_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Combine v into h (boost's hash_combine, then a multiply to spread it): for keys of
 * several fields, Hash_mix(Hash_mix(a, b), c). */
static inline uint64_t Hash_mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

/* Tables index by the low bits: fold the high ones in. */
static inline uint64_t Hash_fold(uint64_t h) { return h ^ (h >> 29); }

/* A 64-bit key spread over all bits (Fibonacci hashing). */
static inline uint64_t Hash_u64(uint64_t x) { return Hash_fold(x * 0x9e3779b97f4a7c15ULL); }

/* Bytes, eight per multiply in two independent chains (a long kernel name waits on half
 * as many multiplies in a row), the last word overlapping the one before it rather than
 * copied byte by byte; under eight bytes, two overlapping loads. Every event's name is
 * interned through this, and kernel names run to hundreds of bytes. Reads only s[0..n).
 * Its values are not stable across versions: nothing written depends on them. */
static inline uint64_t Hash_bytes(const char *s, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, g = 0xc2b2ae3d27d4eb4fULL;
    if (n >= 8) {
        size_t i = 0;
        for (; i + 16 <= n; i += 16) {
            uint64_t a, b;
            memcpy(&a, s + i, 8);
            memcpy(&b, s + i + 8, 8);
            h = (h ^ a) * 0xff51afd7ed558ccdULL;
            g = (g ^ b) * 0x9fb21c651e98df25ULL;
            h ^= h >> 32;
            g ^= g >> 29;
        }
        uint64_t w;
        if (i + 8 <= n) {
            memcpy(&w, s + i, 8);
            h = (h ^ w) * 0xff51afd7ed558ccdULL;
            h ^= h >> 32;
            i += 8;
        }
        if (i < n) { /* the last 8 bytes, overlapping */
            memcpy(&w, s + n - 8, 8);
            g = (g ^ w) * 0x9fb21c651e98df25ULL;
        }
    } else if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + n - 4, 4);
        h = (h ^ ((uint64_t)hi << 32 | lo)) * 0xff51afd7ed558ccdULL;
    } else if (n > 0) {
        uint64_t w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
                     (uint64_t)(unsigned char)s[n - 1] << 16;
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
    }
    h ^= g + (h << 6) + (h >> 2);
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return Hash_fold(h);
}

/* FNV-1a (64-bit), continuing from h (HASH_FNV_INIT to start). Its values are
 * stable and part of what we write: snapshot file names, hashed string flow ids. */
#define HASH_FNV_INIT 0xcbf29ce484222325ULL
static inline uint64_t Hash_fnv1a(uint64_t h, const void *p, size_t n) {
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

#endif
