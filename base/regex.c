/* Regular expressions compiled one way (include/ovtrace/base/regex.h). */
#include "ovtrace/base/regex.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Estimated node count of the automaton for an ERE: each atom 1, a group the sum of
 * its parts, x* and x? one more, x+ twice x, x{m,n} max(m,n) copies of x. glibc's
 * epsilon closures then cost up to the square of that ("a?+++++++++++~b?++++++++++++",
 * ~20k nodes: 900 MB and 21 s), hence the low bound: at 4,000 the worst shapes found
 * compile in ~0.1 s and ~70 MB. */
#define RE_MAX_COST 4000u
#define RE_MAX_DEPTH 64
static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b > RE_MAX_COST * 4ull ? RE_MAX_COST * 4ull : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > RE_MAX_COST * 4ull / b ? RE_MAX_COST * 4ull : a * b; }

/* Stacked repetition ("a*+", "x++", "b?{2}") is undefined in POSIX EREs, means nothing
 * a user wants, and drives glibc's epsilon closures exponential in ways no size
 * estimate captures (fuzz_export found "\xa0*++++++" taking over 10 s): refused. */
static const char STACKED[] = "stacked repetition operators (like 'a+*' or 'x++') are undefined in POSIX "
                              "extended regexes; use one operator";

/* A reason to refuse pat before compiling it, or NULL when its estimated size is
 * reasonable. */
static const char *Regex_refuse(const char *pat) {
    uint64_t stack[RE_MAX_DEPTH], cur = 0, last = 0;
    int depth = 0;
    bool quant = false; /* the previous token was a repetition operator */
    for (const char *p = pat; *p; p++) {
        char c = *p;
        bool is_quant = c == '*' || c == '?' || c == '+' || (c == '{' && p[1] >= '0' && p[1] <= '9');
        if (is_quant && quant) return STACKED;
        quant = is_quant;
        if (c == '\\' && p[1]) {
            p++;
            last = 1;
            cur = sat_add(cur, 1);
        } else if (c == '[') { /* bracket expression: one atom */
            const char *q = p + 1;
            if (*q == '^') q++;
            if (*q == ']') q++;
            while (*q && *q != ']') {
                if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
                    char t = q[1];
                    q += 2;
                    while (*q && !(*q == t && q[1] == ']')) q++;
                    if (*q) q++;
                }
                if (*q) q++;
            }
            if (!*q) { /* no closing "[:...:]": glibc may still end the bracket at the first ']' */
                q = p[1] ? strchr(p + 2, ']') : NULL;
                if (!q) q = p; /* no ']' at all: a literal '[' (or an error regcomp reports) */
            }
            p = q;
            last = 1;
            cur = sat_add(cur, 1);
        } else if (c == '(') {
            if (depth == RE_MAX_DEPTH) return "parentheses nested too deeply";
            stack[depth++] = cur;
            cur = 0;
            last = 0;
        } else if (c == ')' && depth > 0) {
            last = sat_add(cur, 1);
            cur = sat_add(stack[--depth], last);
        } else if (c == '|') {
            cur = sat_add(cur, 1);
            last = 0;
        } else if (c == '*' || c == '?') {
            cur = sat_add(cur, 1);
            last = sat_add(last, 1);
        } else if (c == '+') {
            cur = sat_add(cur, sat_add(last, 1));
            last = sat_add(sat_mul(last, 2), 1);
        } else if (c == '{' && p[1] >= '0' && p[1] <= '9') {
            uint64_t m = 0, n = 0;
            const char *q = p + 1;
            for (; *q >= '0' && *q <= '9'; q++) /* saturate, but always consume the digit */
                if (m < 100000) m = m * 10 + (uint64_t)(*q - '0');
            n = m;
            if (*q == ',') {
                q++;
                if (*q >= '0' && *q <= '9') {
                    n = 0;
                    for (; *q >= '0' && *q <= '9'; q++)
                        if (n < 100000) n = n * 10 + (uint64_t)(*q - '0');
                }
            }
            if (*q != '}') { /* not a bound: a literal '{' (or an error regcomp reports) */
                quant = false;
                last = 1;
                cur = sat_add(cur, 1);
                continue;
            }
            uint64_t k = n > m ? n : m;
            if (k < 1) k = 1;
            cur = sat_add(cur, sat_add(sat_mul(last, k - 1), 1));
            last = sat_add(sat_mul(last, k), 1);
            p = q;
        } else {
            last = 1;
            cur = sat_add(cur, 1);
        }
    }
    while (depth > 0) cur = sat_add(stack[--depth], cur);
    return cur > RE_MAX_COST ? "too much repetition (nested or stacked +, *, {m,n}): the regex engine would need "
                               "gigabytes; simplify the pattern"
                             : NULL;
}

bool Regex_compile(regex_t *re, const char *pat, int cflags, const char *label, char *err, size_t errlen) {
    const char *why = Regex_refuse(pat);
    int rc = why ? 0 : regcomp(re, pat, cflags);
    if (!why && !rc) return true;
    char msg[160] = "";
    if (!why) regerror(rc, re, msg, sizeof msg);
    snprintf(err, errlen, "%s '%s': %s", label, pat, why ? why : msg);
    return false;
}
