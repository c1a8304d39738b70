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

/* Bytes, eight per multiply: every event's name is interned through this, and kernel
 * names run to hundreds of bytes. */
static inline uint64_t Hash_bytes(const char *s, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, s + i, n - i);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
    }
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
