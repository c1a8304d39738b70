/* Number parsing (include/ovtrace/base/parse.h). */
#include "ovtrace/base/parse.h"

#include <stdlib.h>

bool Parse_i64(const char *s, int64_t *v) {
    char *end;
    if (!*s) return false;
    long long x = strtoll(s, &end, 10);
    if (*end) return false;
    *v = x;
    return true;
}

bool Parse_bytes(const char *s, uint64_t *v) {
    const uint64_t max = 1ULL << 62;
    const char *p = s;
    if (*p < '0' || *p > '9') return false;
    uint64_t whole = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > max) return false;
    }
    /* the fraction as a double: exact enough, it only adds less than one unit */
    double frac = 0, scale = 0.1;
    bool has_frac = *p == '.';
    if (has_frac) {
        p++;
        if (*p < '0' || *p > '9') return false;
        for (; *p >= '0' && *p <= '9'; p++, scale /= 10) frac += (*p - '0') * scale;
    }
    int shift = 0;
    switch (*p) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: break;
    }
    if (shift) {
        p++;
        if (*p == 'i') p++;
    }
    if (*p == 'B') p++;
    if (*p || (has_frac && !shift)) return false;
    if (whole > (max >> shift)) return false;
    uint64_t n = (whole << shift) + (uint64_t)(frac * (double)(1ULL << shift) + 0.5);
    if (n > max) return false;
    *v = n;
    return true;
}
