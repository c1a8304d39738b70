/* Exact time arithmetic: decimal microseconds → int64 ns without going through a
 * double (a double has 53 bits; epoch-scale µs with a fractional part need more),
 * user-facing durations/ranges with units, and adaptive formatting. */
#ifndef OVTRACE_TIMEUNITS_H
#define OVTRACE_TIMEUNITS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ovtrace/base/digits.h"

/* Parses a JSON number s[0..len) scaled by 10^scale_pow10 into *out, rounding half
 * away from zero at the last kept digit. Exact for any value representable in int64.
 * Returns false for a malformed number or overflow. ts in µs → ns: scale 3. The loader
 * reads several numbers per event, so the common spelling is parsed inline (below);
 * every other one, and any it refuses, goes to Time_parseDecimalAny. */
static inline bool Time_parseDecimal(const char *s, size_t len, int scale_pow10, int64_t *out);
/* The same for every spelling (exponents, rounding, '+', more than 19 digits). */
bool Time_parseDecimalAny(const char *s, size_t len, int scale_pow10, int64_t *out);

/* Digits from p on, appended to *v; returns the first non-digit. Eight bytes per step
 * (base/digits.h): a timestamp's 16 integral digits take two steps; fewer than eight
 * bytes left go one by one (fewer instructions than a word built from a short tail).
 * Past 19 digits *v wraps (unsigned) and the caller rejects the spelling by its digit
 * count. */
static inline const char *Time_digits_(const char *p, const char *end, uint64_t *v) {
    uint64_t acc = *v;
#if Digits_have8
    static const uint32_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    while (end - p >= 8) {
        uint64_t x = Digits_load8(p);
        unsigned k = Digits_count8(x);
        if (k == 0) break;
        acc = acc * pow10[k] + Digits_value8(x, k);
        p += k;
        if (k < 8) {
            *v = acc;
            return p;
        }
    }
#endif
    while (p < end && (unsigned)(*p - '0') < 10) acc = acc * 10 + (uint64_t)(*p++ - '0');
    *v = acc;
    return p;
}

/* The common spelling: an optional '-', digits, an optional '.' and at most scale_pow10
 * decimals, at most 19 digits in all, no exponent (uint64 holds any 19 digits).
 * Kineto writes epoch microseconds with three decimals: 16 + 3 digits, the three
 * decimals read as one word. */
static inline bool Time_parseDecimal(const char *s, size_t len, int scale_pow10, int64_t *out) {
    static const uint64_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
    const char *p = s, *end = s + len;
    bool neg = len && *p == '-';
    p += neg;
    uint64_t v = 0;
    const char *d0 = p;
    p = Time_digits_(p, end, &v);
    size_t ndig = (size_t)(p - d0);
    int frac = 0;
    if (p < end && *p == '.') {
        if (scale_pow10 == 3 && end - p == 4) {
            uint32_t w;
            memcpy(&w, p, 4);
            uint64_t x = w >> 8; /* the decimals, zeros above */
            if (Digits_count8(x) != 3) return Time_parseDecimalAny(s, len, scale_pow10, out);
            v = v * 1000 + Digits_value8(x, 3);
            frac = 3;
            p = end;
        } else {
            const char *f0 = ++p;
            p = Time_digits_(p, end, &v);
            frac = (int)(p - f0);
            if (frac == 0) return Time_parseDecimalAny(s, len, scale_pow10, out);
        }
        ndig += (size_t)frac;
    }
    if (p != end || ndig == 0 || ndig > 19 || scale_pow10 < 0 || scale_pow10 > 9 || frac > scale_pow10 ||
        __builtin_mul_overflow(v, pow10[scale_pow10 - frac], &v) || v > (uint64_t)INT64_MAX)
        return Time_parseDecimalAny(s, len, scale_pow10, out);
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}
static inline bool Time_parseMicros(const char *s, size_t len, int64_t *ns) {
    return Time_parseDecimal(s, len, 3, ns);
}

/* The model holds timestamps and event ends t with |t| < TIME_LIMIT_NS = 2^62 ns
 * (146 years either side of the epoch: epoch-based ns timestamps work until 2116), so
 * the difference of any two fits int64: spans, windows and widths never overflow.
 * The loader skips (and counts) events beyond. */
#define TIME_LIMIT_NS (INT64_C(1) << 62)
static inline bool Time_inModel(int64_t t) { return t > -TIME_LIMIT_NS && t < TIME_LIMIT_NS; }

/* The whole second at or before t (ns): the base that writers put times relative to
 * ("baseTimeNanoseconds"), so that a reader's double holds them to the nanosecond. */
static inline int64_t Time_floorSecond(int64_t t) {
    int64_t sec = t / 1000000000;
    if (t < 0 && t % 1000000000) sec--;
    return sec * 1000000000;
}

/* "10ms", "1.5us", "250ns", "2s", "3 us"; a bare number uses default_unit_ns.
 * Returns false (and an explanation in err) on bad input. */
bool Time_parseDuration(const char *s, int64_t default_unit_ns, int64_t *ns, char *err, size_t errlen);

/* "A:B" relative to origin; either side may be empty (open). A side prefixed with '@'
 * is absolute (ns since the trace epoch, with units, e.g. @1740461679471346us).
 * Bare numbers are microseconds, like the trace format. */
bool Time_parseRange(const char *s, int64_t origin, int64_t *t0, int64_t *t1, char *err, size_t errlen);

/* Adaptive: "812ns", "3.25us", "12.5ms", "1.204s". Returns chars written. */
int Time_format(char *buf, size_t n, int64_t ns);
/* Fixed unit with thousands separators for tables: 113030 µs → "113,030". */
int Time_formatUs(char *buf, size_t n, int64_t ns);

#endif
