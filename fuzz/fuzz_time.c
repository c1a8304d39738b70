/* Fuzz target: the time parsers behind --range, --min-dur and every "ts"/"dur" of a
 * trace, and the formatters. Time_parseDecimal is checked differentially against a
 * slow exact reference (decimal digit strings, no floating point): both must accept
 * the same spellings and agree on the value to the nanosecond.
 * Input: byte 0 = scale (0..9), bytes 1..8 = origin / a value to format, rest = text. */
#include <inttypes.h>

#include "fuzz_common.h"
#include "ovtrace/model/timeunits.h"

/* Reference for Time_parseDecimal: the grammar it documents, [+-]? digits with at
 * most one '.', at least one digit, then optionally [eE][+-]?digit+, and nothing
 * else; the value times 10^scale, rounded half away from zero at the last kept
 * digit; accepted only when |value| fits in int64 (INT64_MIN itself excluded, as
 * the magnitude is accumulated unsigned). Works on the digit string directly. */
static bool ref_decimal(const char *s, size_t len, int scale, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    char *dig = malloc(len + 1);
    size_t nd = 0;
    long long point = -1; /* digits before the point */
    for (; i < len; i++) {
        if (s[i] == '.') {
            if (point >= 0) {
                free(dig);
                return false;
            }
            point = (long long)nd;
            continue;
        }
        if (s[i] < '0' || s[i] > '9') break;
        dig[nd++] = s[i];
    }
    if (nd == 0) {
        free(dig);
        return false;
    }
    if (point < 0) point = (long long)nd;
    long long e = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        size_t e0 = i;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 1000000000LL) e = e * 10 + (s[i] - '0');
        if (i == e0) {
            free(dig);
            return false;
        }
        if (eneg) e = -e;
    }
    if (i != len) {
        free(dig);
        return false;
    }
    /* value = 0.dig * 10^(point + e + scale): integer part = first ip digits */
    long long ip = point + e + scale;
    unsigned __int128 v = 0;
    const unsigned __int128 LIM = (unsigned __int128)INT64_MAX;
    bool over = false;
    for (long long k = 0; k < ip && !over; k++) {
        int d = k < (long long)nd ? dig[k] - '0' : 0;
        if (v == 0 && d == 0) {
            if (k >= (long long)nd) break; /* zero times any power of ten */
            continue;
        }
        v = v * 10 + (unsigned)d;
        if (v > LIM) over = true;
    }
    if (!over && ip >= 0 && ip < (long long)nd && dig[ip] >= '5') v++;
    free(dig);
    if (over || v > LIM) return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 9 || size > 4096) return 0;
    int scale = data[0] % 10;
    int64_t origin;
    memcpy(&origin, data + 1, 8);
    const char *s = (const char *)data + 9;
    size_t n = size - 9;

    /* differential: the parser and the reference agree on acceptance and value */
    int64_t a = 0, b = 0;
    bool ok_a = Time_parseDecimal(s, n, scale, &a);
    bool ok_b = ref_decimal(s, n, scale, &b);
    if (ok_a != ok_b || (ok_a && a != b)) {
        fprintf(stderr, "Time_parseDecimal('%.*s', scale %d): parser %s %" PRId64 ", reference %s %" PRId64 "\n",
                (int)n, s, scale, ok_a ? "accepts" : "rejects", a, ok_b ? "accepts" : "rejects", b);
        abort();
    }

    char *str = malloc(n + 1);
    memcpy(str, s, n);
    str[n] = '\0';
    char err[256];
    int64_t t0 = 0, t1 = 0, d = 0;
    err[0] = '\0';
    if (Time_parseRange(str, origin, &t0, &t1, err, sizeof err)) {
        if (t1 < t0) abort(); /* documented: end never before start */
    } else if (!err[0]) {
        abort(); /* a rejection always explains itself */
    }
    err[0] = '\0';
    if (!Time_parseDuration(str, 1000, &d, err, sizeof err) && !err[0]) abort();
    (void)Time_parseDuration(str, 1, &d, err, sizeof err);

    char buf[64];
    int w = Time_format(buf, sizeof buf, origin);
    if (w <= 0 || (size_t)w >= sizeof buf) abort();
    w = Time_formatUs(buf, sizeof buf, origin);
    if (w <= 0 || (size_t)w >= sizeof buf) abort();
    free(str);
    return 0;
}
