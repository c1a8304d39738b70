/* Decimal digits eight at a time in a 64-bit word (SWAR): how many of eight bytes are
 * leading digits, and their value, without a branch per character. The loader reads
 * every timestamp, id and count through these. Little-endian only (byte i of the word
 * is p[i]); elsewhere Digits_have8 is false and callers go byte by byte. */
#ifndef OVTRACE_DIGITS_H
#define OVTRACE_DIGITS_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define Digits_have8 1
#else
#define Digits_have8 0
#endif

static inline uint64_t Digits_load8(const char *p) {
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* The number of leading ASCII digits in the eight bytes of x (0..8). A byte b is a
 * digit when a = b ^ '0' is at most 9: adding 0x76 to a's low seven bits carries into
 * bit 7 exactly when they are 10 or more (never across bytes), and a's own bit 7 marks
 * bytes of 0x80 and up. */
static inline unsigned Digits_count8(uint64_t x) {
    uint64_t a = x ^ 0x3030303030303030u;
    uint64_t bad = ((a & 0x7F7F7F7F7F7F7F7Fu) + 0x7676767676767676u) | a;
    bad &= 0x8080808080808080u;
    return bad ? (unsigned)__builtin_ctzll(bad) >> 3 : 8;
}

/* The value of the first k (1..8) bytes of x, all digits: they are moved to the top
 * of the word (the bytes below become zeros, i.e. leading zero digits), then combined
 * in pairs, fours and eights with three multiplies. */
static inline uint64_t Digits_value8(uint64_t x, unsigned k) {
    x -= 0x3030303030303030u; /* digit bytes hold 0..9; the others are shifted out */
    x <<= 8 * (8 - k);
    x = x * 10 + (x >> 8);
    x = (((x & 0x000000FF000000FFu) * (100 + (1000000ull << 32))) +
         (((x >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32)))) >>
        32;
    return x;
}

/* Past the ASCII digits at p, reading no byte at or past end. */
static inline const char *Digits_skip(const char *p, const char *end) {
#if Digits_have8
    while (end - p >= 8) {
        unsigned k = Digits_count8(Digits_load8(p));
        p += k;
        if (k < 8) return p;
    }
#endif
    while (p < end && (unsigned char)(*p - '0') < 10) p++;
    return p;
}

#endif
