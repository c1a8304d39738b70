#include "evsort.h"

#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/model/parfor.h"

typedef struct {
    const TraceEvent *ev;
    EventCmp cmp;
} Ctx;

static inline int less(const Ctx *c, uint32_t a, uint32_t b) {
    int r = c->cmp ? c->cmp(&c->ev[a], &c->ev[b]) : EventSort_cmpTime(&c->ev[a], &c->ev[b]);
    return r ? r < 0 : a < b;
}

static inline void swap_ix(uint32_t *a, uint32_t *b) {
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

/* Insertion sort of ix[from..n) into the sorted ix[0..from); gives up (leaving a
 * permutation) after `budget` moves. */
static int insertion(const Ctx *c, uint32_t *ix, size_t n, size_t from, size_t budget) {
    for (size_t i = from; i < n; i++) {
        uint32_t x = ix[i];
        size_t j = i;
        while (j > 0 && less(c, x, ix[j - 1])) {
            ix[j] = ix[j - 1];
            j--;
            if (budget-- == 0) {
                ix[j] = x;
                return 0;
            }
        }
        ix[j] = x;
    }
    return 1;
}

static void sift(const Ctx *c, uint32_t *ix, size_t root, size_t n) {
    for (;;) {
        size_t k = 2 * root + 1;
        if (k >= n) return;
        if (k + 1 < n && less(c, ix[k], ix[k + 1])) k++;
        if (!less(c, ix[root], ix[k])) return;
        swap_ix(&ix[root], &ix[k]);
        root = k;
    }
}

static void intro(const Ctx *c, uint32_t *ix, size_t n, int budget) {
    while (n > 24) {
        if (budget-- == 0) { /* heapsort: O(n log n) whatever the input */
            for (size_t i = n / 2; i-- > 0;) sift(c, ix, i, n);
            for (size_t i = n; i-- > 1;) {
                swap_ix(&ix[0], &ix[i]);
                sift(c, ix, 0, i);
            }
            return;
        }
        size_t m = n / 2; /* median of three to the front as pivot */
        if (less(c, ix[m], ix[0])) swap_ix(&ix[m], &ix[0]);
        if (less(c, ix[n - 1], ix[0])) swap_ix(&ix[n - 1], &ix[0]);
        if (less(c, ix[n - 1], ix[m])) swap_ix(&ix[n - 1], &ix[m]);
        swap_ix(&ix[0], &ix[m]);
        size_t i = 0, j = n;
        for (;;) { /* Hoare partition around ix[0]; keys are distinct (ties by index) */
            do i++;
            while (i < n && less(c, ix[i], ix[0]));
            do j--;
            while (less(c, ix[0], ix[j]));
            if (i >= j) break;
            swap_ix(&ix[i], &ix[j]);
        }
        swap_ix(&ix[0], &ix[j]);
        if (j < n - j - 1) { /* recurse into the smaller side: O(log n) stack */
            intro(c, ix, j, budget);
            ix += j + 1;
            n -= j + 1;
        } else {
            intro(c, ix + j + 1, n - j - 1, budget);
            n = j;
        }
    }
    insertion(c, ix, n, 1, SIZE_MAX);
}

#define MAX_PILES 16

/* Profilers write a thread's events as a few sorted streams interleaved (Kineto: CPU
 * ops, then runtime calls, ...). Deal idx into the fewest sorted piles (each element
 * onto the first pile it extends), then merge them: O(n * piles). Returns 0, idx
 * untouched, when more than MAX_PILES piles would be needed. tmp holds n entries. */
static int pile_merge(const Ctx *c, uint32_t *idx, size_t n, uint32_t *tmp) {
    uint32_t top[MAX_PILES];
    size_t count[MAX_PILES] = {0}, head[MAX_PILES], end[MAX_PILES];
    int piles = 0;
    for (size_t i = 0; i < n; i++) { /* pass 1: pile sizes */
        int k = 0;
        while (k < piles && less(c, idx[i], top[k])) k++;
        if (k == piles) {
            if (piles == MAX_PILES) return 0;
            piles++;
        }
        top[k] = idx[i];
        count[k]++;
    }
    for (int k = 0, o = 0; k < piles; o += (int)count[k], k++) head[k] = end[k] = (size_t)o;
    int dealt = 0;
    for (size_t i = 0; i < n; i++) { /* pass 2: deal into tmp, pile by pile */
        int k = 0;
        while (k < dealt && less(c, idx[i], top[k])) k++;
        if (k == dealt) dealt++;
        top[k] = idx[i];
        tmp[end[k]++] = idx[i];
    }
    for (size_t o = 0; o < n; o++) { /* merge: the smallest head */
        int best = -1;
        for (int k = 0; k < piles; k++)
            if (head[k] < end[k] && (best < 0 || less(c, tmp[head[k]], tmp[head[best]]))) best = k;
        idx[o] = tmp[head[best]++];
    }
    return 1;
}

void EventSort_sortIndex(const TraceEvent *ev, uint32_t *idx, size_t n, uint32_t *tmp, EventCmp cmp) {
    Ctx c = {ev, cmp};
    size_t i = 1;
    while (i < n && less(&c, idx[i - 1], idx[i])) i++;
    if (i >= n) return;
    if (insertion(&c, idx, n, i, 4 * n)) return;
    if (pile_merge(&c, idx, n, tmp)) return;
    int budget = 2;
    for (size_t k = n; k > 1; k >>= 1) budget += 2;
    intro(&c, idx, n, budget);
}

/* Cycle following on [a, b): idx maps the range onto itself. */
static void permute_range(TraceEvent *ev, uint32_t *idx, size_t a, size_t b) {
    for (size_t p = a; p < b; p++) {
        if (idx[p] == p) continue;
        TraceEvent hold = ev[p]; /* follow the cycle through p, filling each hole */
        size_t q = p;
        for (;;) {
            size_t s = idx[q];
            idx[q] = (uint32_t)q;
            if (s == p) {
                ev[q] = hold;
                break;
            }
            ev[q] = ev[s];
            q = s;
        }
    }
}

void EventSort_permute(TraceEvent *ev, uint32_t *idx, size_t n) { permute_range(ev, idx, 0, n); }

typedef struct {
    TraceEvent *ev;
    uint32_t *idx;
    const size_t *bound; /* chunk c is [bound[c], bound[c + 1]) */
    size_t max_gather;
} Chunks;

static void permute_chunk(void *ctx, uint32_t c, ParScratch *S) {
    Chunks *C = ctx;
    size_t a = C->bound[c], b = C->bound[c + 1];
    while (a < b && C->idx[a] == a) a++; /* a prefix in place: the rest of the chunk is closed too */
    size_t n = b - a;
    if (n == 0) return;
    if (n > C->max_gather) {
        permute_range(C->ev, C->idx, a, b);
        return;
    }
    TraceEvent **buf = (TraceEvent **)&S->a;
    GROW(*buf, S->cap_a, n);
    for (size_t k = 0; k < n; k++) (*buf)[k] = C->ev[C->idx[a + k]];
    memcpy(C->ev + a, *buf, n * sizeof **buf);
}

void EventSort_permuteChunks(TraceEvent *ev, uint32_t *idx, size_t n, int threads, size_t min_chunk,
                             size_t max_gather) {
    if (n == 0) return;
    if (min_chunk == 0) min_chunk = 1;
    /* segment ends: where the largest source so far is the position itself, positions
     * 0..p hold exactly the sources 0..p */
    size_t *bound = NULL, nb = 0, cap = 0, hi = 0;
    GROW(bound, cap, 1);
    bound[nb++] = 0;
    for (size_t p = 0; p < n; p++) {
        if (idx[p] > hi) hi = idx[p];
        if (hi == p && (p + 1 - bound[nb - 1] >= min_chunk || p + 1 == n)) {
            GROW(bound, cap, nb + 1);
            bound[nb++] = p + 1;
        }
    }
    if (nb < 2) { /* cannot happen: the last position always closes a segment */
        free(bound);
        return;
    }
    size_t nc = nb - 1;
    size_t *len = xmalloc(nc * sizeof *len);
    for (size_t c = 0; c < nc; c++) len[c] = bound[c + 1] - bound[c];
    uint32_t *order = ParFor_largestFirst(len, nc);
    free(len);
    Chunks C = {ev, idx, bound, max_gather};
    ParFor_run(order, nc, nc > 1 ? threads : 1, permute_chunk, &C);
    free(order);
    free(bound);
}

#define GATHER_BLOCK (1u << 16)

typedef struct {
    TraceEvent *dst;
    const TraceEvent *src;
    const uint32_t *idx;
    size_t n;
} Gather;

static void gather_block(void *ctx, uint32_t b, ParScratch *S) {
    (void)S;
    const Gather *G = ctx;
    size_t a = (size_t)b * GATHER_BLOCK, e = a + GATHER_BLOCK < G->n ? a + GATHER_BLOCK : G->n;
    for (size_t p = a; p < e; p++) G->dst[p] = G->src[G->idx[p]];
}

void EventSort_gather(TraceEvent *dst, const TraceEvent *src, const uint32_t *idx, size_t n, int threads) {
    size_t nb = (n + GATHER_BLOCK - 1) / GATHER_BLOCK;
    if (nb == 0) return;
    uint32_t *order = xmalloc(nb * sizeof *order);
    for (size_t b = 0; b < nb; b++) order[b] = (uint32_t)b;
    Gather G = {dst, src, idx, n};
    ParFor_run(order, nb, threads, gather_block, &G);
    free(order);
}
