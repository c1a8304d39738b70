#include "edges.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"

static int cmp_t(const void *a, const void *b) {
    const Edge *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

enum { MAX_RUNS = 64 };

/* Natural merge: E is few sorted runs when it was pushed row by row (a row's events
 * are disjoint and in order, so its edges ascend): merge them pairwise, sequentially.
 * False (E untouched) when there are more than MAX_RUNS runs. */
static bool merge_runs(Edge *E, size_t n, Edge **scratch, size_t *cap) {
    size_t b[MAX_RUNS + 2], nb = 0;
    b[nb++] = 0;
    for (size_t i = 1; i < n; i++)
        if (E[i].t < E[i - 1].t) {
            if (nb == MAX_RUNS) return false;
            b[nb++] = i;
        }
    b[nb++] = n;
    size_t runs = nb - 1;
    if (runs == 1) return true;
    GROW(*scratch, *cap, n);
    Edge *a = E, *o = *scratch;
    while (runs > 1) {
        size_t k = 0;
        for (size_t r = 0; r < runs; r += 2) {
            size_t lo = b[r], mid = b[r + 1], hi = r + 2 <= runs ? b[r + 2] : mid;
            size_t i = lo, j = mid, w = lo;
            while (i < mid && j < hi) o[w++] = a[j].t < a[i].t ? a[j++] : a[i++]; /* ties: left first */
            memcpy(o + w, a + i, (mid - i) * sizeof *o);
            w += mid - i;
            memcpy(o + w, a + j, (hi - j) * sizeof *o);
            b[k++] = lo;
        }
        b[k] = n;
        runs = k;
        Edge *x = a;
        a = o;
        o = x;
    }
    if (a != E) memcpy(E, a, n * sizeof *E);
    return true;
}

void Edges_sort(Edge *E, size_t n, Edge **scratch, size_t *cap) {
    if (n < 2) return;
    if (merge_runs(E, n, scratch, cap)) return;
    /* a radix pass costs 512 KB of counters however few the edges: few take qsort */
    if (n < (1u << 15)) {
        qsort(E, n, sizeof *E, cmp_t);
        return;
    }
    int64_t lo = E[0].t, hi = E[0].t;
    for (size_t i = 1; i < n; i++) {
        if (E[i].t < lo) lo = E[i].t;
        if (E[i].t > hi) hi = E[i].t;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    GROW(*scratch, *cap, n);
    Edge *a = E, *b = *scratch;
    size_t *cnt = xmalloc(65536 * sizeof *cnt); /* 512 KB: not on the stack */
    int passes = 0;
    for (int sh = 0; sh < 64 && (sh == 0 || span >> sh); sh += 16) {
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(((uint64_t)a[i].t - (uint64_t)lo) >> sh) & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) b[cnt[(((uint64_t)a[i].t - (uint64_t)lo) >> sh) & 0xffff]++] = a[i];
        Edge *x = a;
        a = b;
        b = x;
        passes++;
    }
    if (passes & 1) memcpy(E, a, n * sizeof *E);
    free(cnt);
}
