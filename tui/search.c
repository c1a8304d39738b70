/* Name search. */
#include "search.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/regex.h"

void Search_clear(Search *s) {
    if (s->active) regfree(&s->re);
    for (size_t i = 0; i < s->n_rows; i++) free(s->row_matches ? s->row_matches[i] : NULL);
    free(s->row_matches);
    free(s->row_n);
    free(s->name_match);
    *s = (Search){0};
}

bool Search_set(Search *s, const Trace *t, const char *pattern, char *err, size_t errlen) {
    regex_t re;
    int flags = REG_EXTENDED | REG_NOSUB;
    bool upper = false;
    for (const char *p = pattern; *p; p++) upper |= isupper((unsigned char)*p) != 0;
    if (!upper) flags |= REG_ICASE;
    /* a typed pattern such as "a+++++++++++++++++++++" would make glibc's regcomp
     * build an exponential automaton (GBs, seconds): refuse it as a bad regex */
    if (!Regex_compile(&re, pattern, flags, "bad regex", err, errlen)) return false;
    Search_clear(s);
    s->re = re;
    s->active = true;
    snprintf(s->pattern, sizeof s->pattern, "%s", pattern);
    s->n_names = StrTab_count(t->strings);
    s->name_match = xcalloc(s->n_names, 1);
    for (size_t i = 1; i < s->n_names; i++)
        s->name_match[i] = regexec(&re, StrTab_get(t->strings, (uint32_t)i), 0, NULL, 0) == 0;
    s->n_rows = t->n_rows;
    s->row_matches = xcalloc(t->n_rows, sizeof *s->row_matches);
    s->row_n = xcalloc(t->n_rows, sizeof *s->row_n);
    for (size_t ri = 0; ri < t->n_rows; ri++) {
        const Row *r = &t->rows[ri];
        size_t n = 0;
        for (size_t i = r->first; i < r->first + r->count; i++) n += s->name_match[t->events[i].name];
        if (!n) continue;
        s->row_matches[ri] = xcalloc(n, sizeof(uint32_t));
        size_t k = 0;
        for (size_t i = r->first; i < r->first + r->count; i++)
            if (s->name_match[t->events[i].name]) s->row_matches[ri][k++] = (uint32_t)(i - r->first);
        s->row_n[ri] = n;
        s->total += n;
    }
    return true;
}

/* first k with off[k] >= x */
static size_t lb(const uint32_t *off, size_t n, uint32_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (off[mid] >= x) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

bool Search_anyIn(const Search *s, const Trace *t, uint32_t row, size_t j0, size_t j1) {
    if (!s->active || row >= s->n_rows || !s->row_n[row] || j1 <= j0) return false;
    const Row *r = &t->rows[row];
    size_t k = lb(s->row_matches[row], s->row_n[row], (uint32_t)(j0 - r->first));
    return k < s->row_n[row] && s->row_matches[row][k] < j1 - r->first;
}

/* first match in row with ts > x (strict) or >= x */
static size_t first_after(const Search *s, const Trace *t, uint32_t row, int64_t x, bool strict) {
    const Row *r = &t->rows[row];
    const uint32_t *off = s->row_matches[row];
    size_t lo = 0, hi = s->row_n[row];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t ts = t->events[r->first + off[mid]].ts;
        if (strict ? ts > x : ts >= x) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

size_t Search_next(const Search *s, const Trace *t, int64_t ts, uint32_t row, int dir, bool *wrapped) {
    return Search_nextIn(s, t, ts, row, dir, NULL, wrapped);
}

size_t Search_nextIn(const Search *s, const Trace *t, int64_t ts, uint32_t row, int dir, const bool *rows_ok,
                     bool *wrapped) {
    if (wrapped) *wrapped = false;
    if (!s->active || !s->total) return SIZE_MAX;
    size_t best = SIZE_MAX;
    int64_t bts = 0;
    uint32_t brow = 0;
    for (int pass = 0; pass < 2 && best == SIZE_MAX; pass++) {
        /* pass 1 wraps: search from the other end */
        int64_t x = pass ? (dir > 0 ? INT64_MIN : INT64_MAX) : ts;
        uint32_t xr = pass ? (dir > 0 ? 0 : UINT32_MAX) : row;
        for (uint32_t ri = 0; ri < s->n_rows; ri++) {
            size_t n = s->row_n[ri];
            if (!n || (rows_ok && !rows_ok[ri])) continue;
            const Row *r = &t->rows[ri];
            size_t k;
            if (dir > 0) {
                /* (ets, ri) > (x, xr) */
                bool allow_equal = pass ? true : ri > xr;
                k = first_after(s, t, ri, x, !allow_equal);
                if (k >= n) continue;
            } else {
                bool allow_equal = pass ? true : ri < xr;
                k = first_after(s, t, ri, x, allow_equal); /* first with ts > x (or >= x) */
                if (k == 0) continue;
                k--;
            }
            size_t idx = r->first + s->row_matches[ri][k];
            int64_t ets = t->events[idx].ts;
            bool better = best == SIZE_MAX ||
                          (dir > 0 ? (ets < bts || (ets == bts && ri < brow)) : (ets > bts || (ets == bts && ri > brow)));
            if (better) {
                best = idx;
                bts = ets;
                brow = ri;
            }
        }
        if (best != SIZE_MAX && pass && wrapped) *wrapped = true;
    }
    return best;
}
