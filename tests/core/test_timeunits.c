
#include "testutil.h"
#include "ovtrace/model/timeunits.h"
#include "ovtrace/base/digits.h"
#include "../lib/guardpage.h"

static int64_t us(const char *s) {
    int64_t v = 0;
    assert_true(Time_parseMicros(s, strlen(s), &v));
    return v;
}

static void exact_epoch_micros(void **state) {
    (void)state;
    /* a double would give ...519689047 ± 256 ns here */
    assert_int_equal(us("1712195495519689.047"), INT64_C(1712195495519689047));
    assert_int_equal(us("1740461679479712"), INT64_C(1740461679479712000));
    assert_int_equal(us("0.001"), 1);
    assert_int_equal(us("0.0004"), 0);
    assert_int_equal(us("0.0005"), 1); /* half rounds away from zero */
    assert_int_equal(us("-2.5"), -2500);
    assert_int_equal(us("1.5e3"), 1500000);
    assert_int_equal(us("1712195495519689047e-3"), INT64_C(1712195495519689047));
    assert_int_equal(us("12.3456789"), 12346);
    /* 19 digits (Kineto's epoch us with ns decimals) up to the int64 limit */
    assert_int_equal(us("1740461679471281.500"), INT64_C(1740461679471281500));
    assert_int_equal(us("9223372036854775.807"), INT64_MAX);
    assert_int_equal(us("-9223372036854775.807"), -INT64_MAX);
    assert_int_equal(us("922337203685477.5807"), INT64_C(922337203685477581));
    assert_int_equal(us("1.2345"), 1235);
}

/* The fast path reads digits eight at a time: every length from 1 to 20 digits, with
 * the point at every place and a byte next to '0'..'9' in ASCII ('/', ':') or a high
 * byte planted in each position, must read as the digit-by-digit reference does. */
static bool reference_micros(const char *s, int64_t *out) {
    const char *p = s;
    bool point = false;
    int frac = 0, ndig = 0;
    unsigned __int128 v = 0;
    for (; *p; p++) {
        if (*p == '.' && !point) {
            point = true;
            continue;
        }
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (unsigned)(*p - '0');
        ndig++;
        frac += point;
    }
    if (!ndig || (point && !frac)) return false;
    for (; frac < 3; frac++) v *= 10;
    for (; frac > 3; frac--) v = (v + (frac == 4 ? 5 : 0)) / 10;
    if (v > (unsigned __int128)INT64_MAX) return false;
    *out = (int64_t)v;
    return true;
}

static void digits_eight_at_a_time(void **state) {
    (void)state;
    static const char bad[] = {'/', ':', (char)0xb0, (char)0x39 + 0x80, ' ', 'e'};
    char s[32];
    for (int len = 1; len <= 20; len++) {
        for (int point = -1; point < len; point++) {
            int n = 0;
            for (int i = 0; i < len; i++) {
                if (i == point) s[n++] = '.';
                s[n++] = (char)('0' + (i * 7 + len) % 10);
            }
            s[n] = '\0';
            int64_t got = 0, want = 0;
            bool ok = reference_micros(s, &want);
            if (ok && point >= 0 && n - point - 1 > 3) continue; /* rounding: the slow path, tested above */
            assert_int_equal(Time_parseMicros(s, (size_t)n, &got), ok);
            if (ok) assert_int_equal(got, want);
            for (int at = 0; at < n; at++) {
                for (size_t b = 0; b < sizeof bad; b++) {
                    char t[32];
                    memcpy(t, s, (size_t)n + 1);
                    t[at] = bad[b];
                    assert_false(Time_parseMicros(t, (size_t)n, &got) && bad[b] != 'e');
                }
            }
        }
    }
}

/* Every byte value at every position of the word: counted as a digit exactly when it
 * is '0'..'9', and the leading digits' value is what a digit-by-digit read gives. */
static void digit_words(void **state) {
    (void)state;
    for (int at = 0; at < 8; at++) {
        for (int b = 0; b < 256; b++) {
            char w[8];
            for (int i = 0; i < 8; i++) w[i] = (char)('0' + (i * 3 + at) % 10);
            w[at] = (char)b;
            unsigned want = 0;
            uint64_t v = 0;
            while (want < 8 && w[want] >= '0' && w[want] <= '9') v = v * 10 + (uint64_t)(w[want++] - '0');
            uint64_t x = Digits_load8(w);
            assert_int_equal(Digits_count8(x), want);
            if (want) assert_int_equal(Digits_value8(x, want), v);
        }
    }
}

/* The documented grammar, digit by digit (as fuzz/fuzz_time.c): [+-]? digits with at
 * most one '.', optionally [eE][+-]?digits; the value times 10^scale, rounded half away
 * from zero at the first dropped digit; only magnitudes up to INT64_MAX. */
static bool reference_decimal(const char *s, size_t len, int scale, int64_t *out) {
    size_t i = 0, nd = 0;
    bool neg = false;
    char dig[64];
    long long point = -1, e = 0;
    if (i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    for (; i < len; i++) {
        if (s[i] == '.') {
            if (point >= 0) return false;
            point = (long long)nd;
        } else if (s[i] >= '0' && s[i] <= '9') {
            dig[nd++] = s[i];
        } else {
            break;
        }
    }
    if (nd == 0) return false;
    if (point < 0) point = (long long)nd;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        bool eneg = false;
        if (++i < len && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        size_t e0 = i;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 1000000000LL) e = e * 10 + (s[i] - '0');
        if (i == e0) return false;
        if (eneg) e = -e;
    }
    if (i != len) return false;
    long long ip = point + e + scale; /* digits that make the integer part */
    unsigned __int128 v = 0;
    for (long long k = 0; k < ip; k++) {
        if (v == 0 && k >= (long long)nd) break; /* zero times any power of ten */
        v = v * 10 + (unsigned)(k < (long long)nd ? dig[k] - '0' : 0);
        if (v > (unsigned __int128)INT64_MAX) return false;
    }
    if (ip >= 0 && ip < (long long)nd && dig[ip] >= '5') v++;
    if (v > (unsigned __int128)INT64_MAX) return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

static void check_decimal(const char *s, size_t n, int scale) {
    int64_t got = 0, want = 0;
    bool ok = reference_decimal(s, n, scale, &want);
    if (Time_parseDecimal(s, n, scale, &got) != ok) fail_msg("'%.*s' scale %d: accepted %d", (int)n, s, scale, !ok);
    if (ok && got != want) fail_msg("'%.*s' scale %d: %lld, want %lld", (int)n, s, scale, (long long)got, (long long)want);
}

/* Random spellings, mostly digits with points, signs and exponents mixed in, of every
 * length up to 26 and every scale: the same verdict and value as the reference. */
static void random_against_reference(void **state) {
    (void)state;
    static const char alpha[] = "0123456789012345678901234567890123456789..-+eE/:";
    uint64_t r = 0x9E3779B97F4A7C15u;
    char s[32];
    for (int it = 0; it < 300000; it++) {
        r = r * 6364136223846793005u + 1442695040888963407u;
        size_t n = (size_t)(r >> 59) % 27;
        int scale = (int)((r >> 40) % 10);
        for (size_t i = 0; i < n; i++) {
            r = r * 6364136223846793005u + 1442695040888963407u;
            /* one spelling in four: digits and at most one point only */
            s[i] = alpha[(r >> 33) % ((it & 3) ? sizeof alpha - 1 : 41)];
        }
        check_decimal(s, n, scale);
    }
}

/* The number's last byte just before an unreadable page, and its first byte just
 * after one: every length, the point at every place, every scale, read without
 * touching a byte outside the token (a fault fails the test). */
static void tokens_at_page_edges(void **state) {
    (void)state;
    GuardPage g;
    assert_true(GuardPage_map(&g));
    char *lo = g.lo, *hi = g.hi;
    for (int len = 1; len <= 22; len++) {
        for (int point = -1; point < len; point++) {
            char s[32];
            int n = 0;
            if (len % 3 == 0) s[n++] = '-';
            for (int i = 0; i < len; i++) {
                if (i == point) s[n++] = '.';
                s[n++] = (char)('0' + (i * 7 + len) % 10);
            }
            memcpy(lo, s, (size_t)n);
            memcpy(hi - n, s, (size_t)n);
            for (int scale = 0; scale <= 9; scale++) {
                check_decimal(lo, (size_t)n, scale);
                check_decimal(hi - n, (size_t)n, scale);
            }
        }
    }
    GuardPage_unmap(&g);
}

static void rejects_bad_numbers(void **state) {
    (void)state;
    int64_t v;
    const char *bad[] = {"",         "-",   "1.2.3", "abc", "1e", "99999999999999999999", "1e30", "9223372036854775.808",
                         "9999999999999999.999", "18446744073709551.616", "1.-5", ".", "-.5e"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(Time_parseMicros(bad[i], strlen(bad[i]), &v));
}

static void durations_and_ranges(void **state) {
    (void)state;
    char err[128];
    int64_t ns, a, b;
    assert_true(Time_parseDuration("10ms", 1000, &ns, err, sizeof err));
    assert_int_equal(ns, 10000000);
    assert_true(Time_parseDuration("1.5 us", 1000, &ns, err, sizeof err));
    assert_int_equal(ns, 1500);
    assert_true(Time_parseDuration("250", 1000, &ns, err, sizeof err));
    assert_int_equal(ns, 250000);
    assert_true(Time_parseDuration("2s", 1000, &ns, err, sizeof err));
    assert_int_equal(ns, 2000000000);
    assert_false(Time_parseDuration("3 parsecs", 1000, &ns, err, sizeof err));
    assert_non_null(strstr(err, "parsecs"));
    assert_true(Time_parseRange("10ms:20ms", 1000, &a, &b, err, sizeof err));
    assert_int_equal(a, 1000 + 10000000);
    assert_int_equal(b, 1000 + 20000000);
    assert_true(Time_parseRange(":5us", 0, &a, &b, err, sizeof err));
    assert_int_equal(a, INT64_MIN);
    assert_int_equal(b, 5000);
    assert_true(Time_parseRange("@1740461679471346us:", 7, &a, &b, err, sizeof err));
    assert_int_equal(a, INT64_C(1740461679471346000));
    assert_int_equal(b, INT64_MAX);
    assert_false(Time_parseRange("20ms:10ms", 0, &a, &b, err, sizeof err));
    assert_false(Time_parseRange("10ms", 0, &a, &b, err, sizeof err));
}

static void formatting(void **state) {
    (void)state;
    char buf[32];
    Time_format(buf, sizeof buf, 812);
    assert_string_equal(buf, "812ns");
    Time_format(buf, sizeof buf, 3250);
    assert_string_equal(buf, "3.250us");
    Time_format(buf, sizeof buf, 12500000);
    assert_string_equal(buf, "12.50ms");
    Time_format(buf, sizeof buf, 1204000000);
    assert_string_equal(buf, "1.204s");
    Time_formatUs(buf, sizeof buf, INT64_C(113030000));
    assert_string_equal(buf, "113,030");
    Time_formatUs(buf, sizeof buf, 499);
    assert_string_equal(buf, "0");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_epoch_micros),
        cmocka_unit_test(rejects_bad_numbers),
        cmocka_unit_test(digits_eight_at_a_time),
        cmocka_unit_test(digit_words),
        cmocka_unit_test(random_against_reference),
        cmocka_unit_test(tokens_at_page_edges),
        cmocka_unit_test(durations_and_ranges),
        cmocka_unit_test(formatting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
