/* Sorts of trace/: EventSort_permuteChunks against EventSort_permute (one cycle-following pass, the
 * reference): random permutations made of closed blocks (a multi-rank trace), of blocks
 * that move (sources out of rank order: one big chunk), shuffled whole, identity; every
 * chunk size and gather limit from "everything gathered" to "everything in place", on
 * 1 to 4 threads; and EventSort_gather into a second array. The result must be the same
 * array, byte for byte. */
#include "testutil.h"
#include "edges.h"
#include "evsort.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void shuffle(uint32_t *v, size_t n) {
    for (size_t i = n; i > 1; i--) {
        size_t j = next() % i;
        uint32_t x = v[i - 1];
        v[i - 1] = v[j];
        v[j] = x;
    }
}

/* idx of n: blocks of random sizes, each shuffled inside; blocks_move: the blocks
 * themselves come in a shuffled order too. */
static void make_idx(uint32_t *idx, size_t n, bool blocks_move, bool whole) {
    for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
    if (whole) {
        shuffle(idx, n);
        return;
    }
    size_t bounds[64], nb = 0, at = 0;
    while (at < n && nb < 63) {
        bounds[nb++] = at;
        at += 1 + next() % (n / 8 + 1);
    }
    bounds[nb] = n;
    for (size_t b = 0; b < nb; b++) {
        size_t lo = bounds[b], hi = bounds[b + 1] < n ? bounds[b + 1] : n;
        if (lo < hi && next() % 4) shuffle(idx + lo, hi - lo); /* some blocks stay in place */
    }
    if (blocks_move && nb > 1) { /* the last block's events first: a rotation */
        uint32_t *r = malloc(n * sizeof *r);
        assert_non_null(r);
        size_t k = n - bounds[nb - 1];
        memcpy(r, idx + bounds[nb - 1], k * sizeof *r);
        memcpy(r + k, idx, (n - k) * sizeof *r);
        memcpy(idx, r, n * sizeof *r);
        free(r);
    }
}

static void fill(TraceEvent *ev, size_t n) {
    memset(ev, 0, n * sizeof *ev);
    for (size_t i = 0; i < n; i++) {
        ev[i].ts = (int64_t)next();
        ev[i].dur = (int64_t)i;
        ev[i].lane = (uint32_t)(next() & 0xffff);
    }
}

static void test_against_reference(void **state) {
    (void)state;
    const size_t sizes[] = {1, 2, 7, 100, 4096, 70000, 200000}; /* past a gather block (65536) */
    const size_t chunks[] = {1, 3, 64, 1u << 16};
    const size_t gathers[] = {0, 1, 50, 1u << 18};
    size_t runs = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int shape = 0; shape < 4; shape++) {
            size_t n = sizes[si];
            uint32_t *idx0 = malloc(n * sizeof *idx0), *idx = malloc(n * sizeof *idx);
            TraceEvent *ev0 = malloc(n * sizeof *ev0), *want = malloc(n * sizeof *want),
                       *got = malloc(n * sizeof *got);
            assert_true(idx0 && idx && ev0 && want && got);
            if (shape == 3) {
                for (size_t i = 0; i < n; i++) idx0[i] = (uint32_t)i; /* identity */
            } else {
                make_idx(idx0, n, shape == 1, shape == 2);
            }
            fill(ev0, n);
            memcpy(want, ev0, n * sizeof *want);
            memcpy(idx, idx0, n * sizeof *idx);
            EventSort_permute(want, idx, n);
            for (size_t i = 0; i < n; i++) assert_memory_equal(&want[i], &ev0[idx0[i]], sizeof *want);
            for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++)
                for (size_t gi = 0; gi < sizeof gathers / sizeof gathers[0]; gi++)
                    for (int th = 1; th <= 4; th += 3) {
                        memcpy(got, ev0, n * sizeof *got);
                        memcpy(idx, idx0, n * sizeof *idx);
                        EventSort_permuteChunks(got, idx, n, th, chunks[ci], gathers[gi]);
                        if (memcmp(got, want, n * sizeof *got))
                            fail_msg("n %zu shape %d chunk %zu gather %zu threads %d: differs", n, shape, chunks[ci],
                                     gathers[gi], th);
                        runs++;
                    }
            for (int th = 1; th <= 4; th += 3) { /* out of place, in blocks on threads */
                memset(got, 0xa5, n * sizeof *got);
                EventSort_gather(got, ev0, idx0, n, th);
                if (memcmp(got, want, n * sizeof *got)) fail_msg("gather n %zu shape %d threads %d: differs", n, shape, th);
            }
            free(idx0), free(idx), free(ev0), free(want), free(got);
        }
    assert_int_equal(runs, 7 * 4 * 4 * 4 * 2);
}

static int cmp_edge_ref(const void *a, const void *b) {
    const Edge *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Edges_sort against qsort by t: the three paths (few edges: qsort; up to 64 ascending
 * runs: natural merge; more: radix), spans from 0 to 2^62 ns. Equal times may come in
 * any order, so the check is the sequence of times plus the multiset of edges. */
static void test_edges_sort(void **state) {
    (void)state;
    const size_t sizes[] = {2, 3, 100, 40000, 200000};
    const size_t runs[] = {1, 2, 7, 64, 65, 1000};
    const int64_t spans[] = {1, 1000, 3000000000LL, (int64_t)1 << 62};
    Edge *scratch = NULL;
    size_t cap = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ri = 0; ri < sizeof runs / sizeof runs[0]; ri++)
            for (size_t pi = 0; pi < sizeof spans / sizeof spans[0]; pi++) {
                size_t n = sizes[si], k = runs[ri] < n ? runs[ri] : n;
                Edge *e = malloc(n * sizeof *e), *want = malloc(n * sizeof *want);
                assert_true(e && want);
                int64_t base = -((int64_t)1 << 61);
                for (size_t i = 0; i < n; i++)
                    e[i] = (Edge){base + (int64_t)(next() % (uint64_t)spans[pi]), (int8_t)(next() & 1 ? 1 : -1),
                                  (uint8_t)(i & 0xff)};
                /* k ascending runs of about n / k edges */
                for (size_t r = 0; r < k; r++) {
                    size_t a = r * n / k, b = (r + 1) * n / k;
                    qsort(e + a, b - a, sizeof *e, cmp_edge_ref);
                }
                memcpy(want, e, n * sizeof *e);
                qsort(want, n, sizeof *want, cmp_edge_ref);
                Edges_sort(e, n, &scratch, &cap);
                for (size_t i = 0; i < n; i++)
                    if (e[i].t != want[i].t) fail_msg("n %zu runs %zu span %lld: t differs at %zu", n, k, (long long)spans[pi], i);
                /* same edges: sum a fingerprint of each */
                uint64_t fa = 0, fb = 0;
                for (size_t i = 0; i < n; i++) {
                    fa += ((uint64_t)e[i].t * 31 + (uint64_t)(e[i].delta + 2)) * 131 + e[i].cls;
                    fb += ((uint64_t)want[i].t * 31 + (uint64_t)(want[i].delta + 2)) * 131 + want[i].cls;
                }
                assert_true(fa == fb);
                free(e);
                free(want);
            }
    free(scratch);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_reference), cmocka_unit_test(test_edges_sort)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
