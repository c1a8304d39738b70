#include "edges.h"

#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"

void Edges_sort(Edge *E, size_t n, Edge **scratch, size_t *cap) {
    if (n < 2) return;
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
