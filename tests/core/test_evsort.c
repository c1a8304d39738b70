/* EventSort_permuteChunks against EventSort_permute (one cycle-following pass, the
 * reference): random permutations made of closed blocks (a multi-rank trace), of blocks
 * that move (sources out of rank order: one big chunk), shuffled whole, identity; every
 * chunk size and gather limit from "everything gathered" to "everything in place", on
 * 1 to 4 threads. The result must be the same array, byte for byte. */
#include "testutil.h"
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
    const size_t sizes[] = {1, 2, 7, 100, 4096, 70000};
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
            free(idx0), free(idx), free(ev0), free(want), free(got);
        }
    assert_int_equal(runs, 6 * 4 * 4 * 4 * 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_reference)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
