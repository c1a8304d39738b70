#include "evsort.h"

#include <stdint.h>
#include <stdlib.h>

#include "util.h"

static inline void swap_ev(TraceEvent *a, TraceEvent *b) {
    TraceEvent t = *a;
    *a = *b;
    *b = t;
}

static void insertion(TraceEvent *ev, size_t n, EventCmp cmp) {
    for (size_t i = 1; i < n; i++) {
        TraceEvent x = ev[i];
        size_t j = i;
        while (j > 0 && cmp(&x, &ev[j - 1]) < 0) {
            ev[j] = ev[j - 1];
            j--;
        }
        ev[j] = x;
    }
}

static void sift(TraceEvent *ev, size_t root, size_t n, EventCmp cmp) {
    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n) return;
        if (c + 1 < n && cmp(&ev[c], &ev[c + 1]) < 0) c++;
        if (cmp(&ev[root], &ev[c]) >= 0) return;
        swap_ev(&ev[root], &ev[c]);
        root = c;
    }
}

static void heapsort_ev(TraceEvent *ev, size_t n, EventCmp cmp) {
    for (size_t i = n / 2; i-- > 0;) sift(ev, i, n, cmp);
    for (size_t i = n; i-- > 1;) {
        swap_ev(&ev[0], &ev[i]);
        sift(ev, 0, i, cmp);
    }
}

static void intro(TraceEvent *ev, size_t n, EventCmp cmp, int budget) {
    while (n > 24) {
        if (budget-- == 0) {
            heapsort_ev(ev, n, cmp);
            return;
        }
        /* median of three to the front as pivot */
        size_t m = n / 2;
        if (cmp(&ev[m], &ev[0]) < 0) swap_ev(&ev[m], &ev[0]);
        if (cmp(&ev[n - 1], &ev[0]) < 0) swap_ev(&ev[n - 1], &ev[0]);
        if (cmp(&ev[n - 1], &ev[m]) < 0) swap_ev(&ev[n - 1], &ev[m]);
        swap_ev(&ev[0], &ev[m]);
        size_t i = 0, j = n;
        for (;;) { /* Hoare partition around ev[0] */
            do i++;
            while (i < n && cmp(&ev[i], &ev[0]) < 0);
            do j--;
            while (cmp(&ev[0], &ev[j]) < 0);
            if (i >= j) break;
            swap_ev(&ev[i], &ev[j]);
        }
        swap_ev(&ev[0], &ev[j]);
        /* recurse into the smaller side, loop on the larger: O(log n) stack */
        if (j < n - j - 1) {
            intro(ev, j, cmp, budget);
            ev += j + 1;
            n -= j + 1;
        } else {
            intro(ev + j + 1, n - j - 1, cmp, budget);
            n = j;
        }
    }
    insertion(ev, n, cmp);
}

void EventSort_sort(TraceEvent *ev, size_t n, EventCmp cmp) {
    size_t i = 1;
    while (i < n && cmp(&ev[i - 1], &ev[i]) <= 0) i++;
    if (i >= n) return; /* already sorted: the common case for profiler output */
    int budget = 2;
    for (size_t k = n; k > 1; k >>= 1) budget += 2;
    intro(ev, n, cmp, budget);
}

void EventSort_groupByLane(TraceEvent *ev, size_t n, size_t n_lanes, size_t *first) {
    for (size_t l = 0; l <= n_lanes; l++) first[l] = 0;
    for (size_t i = 0; i < n; i++) first[ev[i].lane + 1]++;
    for (size_t l = 0; l < n_lanes; l++) first[l + 1] += first[l];
    if (n == 0) return;
    /* dest[i] = where event i goes; then follow permutation cycles in place */
    uint32_t *dest = xmalloc(n * sizeof *dest);
    size_t *next = xmalloc((n_lanes ? n_lanes : 1) * sizeof *next);
    for (size_t l = 0; l < n_lanes; l++) next[l] = first[l];
    for (size_t i = 0; i < n; i++) dest[i] = (uint32_t)next[ev[i].lane]++;
    for (size_t i = 0; i < n; i++) {
        while (dest[i] != i) {
            size_t d = dest[i];
            swap_ev(&ev[i], &ev[d]);
            uint32_t t = dest[d];
            dest[d] = (uint32_t)d;
            dest[i] = t;
        }
    }
    free(next);
    free(dest);
}
