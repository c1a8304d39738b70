#include "ovtrace/model/timeunits.h"

#include "ovtrace/base/digits.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Every spelling: value = digits * 10^(exp10) accumulated exactly in unsigned 128-bit
 * arithmetic. */
bool Time_parseDecimalAny(const char *s, size_t len, int scale_pow10, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    unsigned __int128 mant = 0;
    int exp10 = scale_pow10, ndig = 0, sig = 0;
    bool round_up = false, seen_point = false, any = false;
    for (; i < len; i++) {
        char c = s[i];
        if (c == '.') {
            if (seen_point) return false;
            seen_point = true;
            continue;
        }
        if (c < '0' || c > '9') break;
        any = true;
        ndig++;
        if (sig < 36) { /* 36 digits fit in 128 bits; later digits only round */
            if (mant || c != '0') sig++;
            mant = mant * 10 + (unsigned)(c - '0');
            if (seen_point) exp10--;
        } else {
            if (!seen_point) exp10++;
        }
    }
    if (!any) return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        int e = 0;
        bool edig = false;
        for (; i < len && isdigit((unsigned char)s[i]); i++) {
            edig = true;
            if (e < 10000) e = e * 10 + (s[i] - '0');
        }
        if (!edig) return false;
        exp10 += eneg ? -e : e;
    }
    if (i != len) return false;
    while (exp10 > 0) {
        if (mant > (((unsigned __int128)1) << 100)) return false;
        mant *= 10;
        exp10--;
    }
    while (exp10 < 0) {
        round_up = (mant % 10) >= 5;
        mant /= 10;
        exp10++;
        if (exp10 < 0) round_up = false; /* only the last dropped digit decides */
    }
    if (round_up) mant++;
    if (mant > (unsigned __int128)INT64_MAX) return false;
    *out = neg ? -(int64_t)mant : (int64_t)mant;
    return true;
}

static int64_t unit_ns(const char *u, size_t n) {
    if (n == 0) return 0;
    if ((n == 2 && !strncmp(u, "ns", 2))) return 1;
    if ((n == 2 && !strncmp(u, "us", 2)) || (n == 3 && !strncmp(u, "\xc2\xb5s", 3))) return 1000;
    if (n == 2 && !strncmp(u, "ms", 2)) return 1000000;
    if (n == 1 && u[0] == 's') return 1000000000;
    return -1;
}

bool Time_parseDuration(const char *s, int64_t default_unit_ns, int64_t *ns, char *err, size_t errlen) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    size_t num = 0;
    while (num < n && (isdigit((unsigned char)s[num]) || s[num] == '.' || s[num] == '-' || s[num] == '+' ||
                       ((s[num] == 'e' || s[num] == 'E') && num + 1 < n &&
                        (isdigit((unsigned char)s[num + 1]) || s[num + 1] == '-'))))
        num++;
    size_t u = num;
    while (u < n && isspace((unsigned char)s[u])) u++;
    int64_t mult = unit_ns(s + u, n - u);
    if (u == n) mult = default_unit_ns;
    if (num == 0 || mult < 0) {
        snprintf(err, errlen, "bad duration '%.*s': expected a number with unit ns, us, ms or s", (int)n, s);
        return false;
    }
    int scale = mult == 1 ? 0 : mult == 1000 ? 3 : mult == 1000000 ? 6 : 9;
    if (!Time_parseDecimal(s, num, scale, ns)) {
        snprintf(err, errlen, "bad duration '%.*s': number out of range", (int)n, s);
        return false;
    }
    return true;
}

static bool parse_side(const char *s, size_t n, int64_t origin, int64_t *out, bool *open, char *err,
                       size_t errlen) {
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    *open = n == 0;
    if (*open) return true;
    bool abs = s[0] == '@';
    char buf[128];
    if (n - abs >= sizeof buf) {
        snprintf(err, errlen, "bad range bound: too long");
        return false;
    }
    memcpy(buf, s + abs, n - abs);
    buf[n - abs] = '\0';
    int64_t v;
    if (!Time_parseDuration(buf, 1000, &v, err, errlen)) return false;
    if (abs) *out = v;
    else if (__builtin_add_overflow(origin, v, out)) { /* origin + v past the int64 range */
        snprintf(err, errlen, "bad range bound '%.*s': out of range", (int)n, s);
        return false;
    }
    return true;
}

bool Time_parseRange(const char *s, int64_t origin, int64_t *t0, int64_t *t1, char *err, size_t errlen) {
    const char *colon = strchr(s, ':');
    if (!colon) {
        snprintf(err, errlen, "bad range '%s': expected A:B, e.g. 10ms:20ms", s);
        return false;
    }
    bool o0, o1;
    if (!parse_side(s, (size_t)(colon - s), origin, t0, &o0, err, errlen)) return false;
    if (!parse_side(colon + 1, strlen(colon + 1), origin, t1, &o1, err, errlen)) return false;
    if (o0) *t0 = INT64_MIN;
    if (o1) *t1 = INT64_MAX;
    if (*t1 < *t0) {
        snprintf(err, errlen, "bad range '%s': end is before start", s);
        return false;
    }
    return true;
}

int Time_format(char *buf, size_t n, int64_t ns) {
    const char *sign = ns < 0 ? "-" : "";
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    static const struct { uint64_t div; const char *unit; } U[] = {
        {1000000000ULL, "s"}, {1000000ULL, "ms"}, {1000ULL, "us"}};
    for (size_t i = 0; i < sizeof U / sizeof U[0]; i++) {
        if (a >= U[i].div) {
            double v = (double)a / (double)U[i].div;
            int prec = v >= 100 ? 1 : v >= 10 ? 2 : 3;
            return snprintf(buf, n, "%s%.*f%s", sign, prec, v, U[i].unit);
        }
    }
    return snprintf(buf, n, "%s%" PRIu64 "ns", sign, a);
}

int Time_formatUs(char *buf, size_t n, int64_t ns) {
    /* rounded half away from zero without ns +/- 500, which overflows near the limits */
    int64_t us = ns / 1000, rem = ns % 1000;
    if (rem >= 500) us++;
    else if (rem <= -500) us--;
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%" PRId64, us < 0 ? -us : us);
    char out[48];
    int o = 0;
    if (us < 0) out[o++] = '-';
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) out[o++] = ',';
        out[o++] = tmp[i];
    }
    out[o] = '\0';
    return snprintf(buf, n, "%s", out);
}
