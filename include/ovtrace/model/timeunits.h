/* Exact time arithmetic: decimal microseconds → int64 ns without going through a
 * double (a double has 53 bits; epoch-scale µs with a fractional part need more),
 * user-facing durations/ranges with units, and adaptive formatting. */
#ifndef OVTRACE_TIMEUNITS_H
#define OVTRACE_TIMEUNITS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses a JSON number s[0..len) scaled by 10^scale_pow10 into *out, rounding half
 * away from zero at the last kept digit. Exact for any value representable in int64.
 * Returns false for a malformed number or overflow. ts in µs → ns: scale 3. */
bool Time_parseDecimal(const char *s, size_t len, int scale_pow10, int64_t *out);
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
