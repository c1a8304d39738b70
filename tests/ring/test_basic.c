/* Single-threaded Ring semantics, RingSet config validation, producer registration. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring_test_util.h"

static void capacity_must_be_power_of_two(void **state) {
    (void)state;
    const uint32_t bad[] = {0, 1, 3, 6, 100, 65535};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_null(Ring_new(bad[i]));
    const uint32_t good[] = {2, 4, 1024, 1u << 16};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        Ring *r = Ring_new(good[i]);
        assert_non_null(r);
        assert_int_equal(Ring_capacity(r), good[i]);
        assert_int_equal(Ring_size(r), 0);
        Ring_free(r);
    }
}

static void push_pop_order_and_full(void **state) {
    (void)state;
    Ring *r = Ring_new(8);
    RingRecord out;
    assert_false(Ring_pop(r, &out));
    for (uint64_t i = 0; i < 8; i++) {
        RingRecord rec = rec_make(0, i);
        assert_true(Ring_push(r, &rec));
    }
    assert_int_equal(Ring_size(r), 8);
    RingRecord extra = rec_make(0, 99);
    assert_false(Ring_push(r, &extra));
    assert_false(Ring_push(r, &extra));
    assert_int_equal(Ring_drops(r), 2);
    for (uint64_t i = 0; i < 8; i++) {
        assert_true(Ring_pop(r, &out));
        assert_int_equal(out.arg, i);
        assert_int_equal(out.ts_ns, (int64_t)i);
    }
    assert_false(Ring_pop(r, &out));
    /* Room again after popping. */
    assert_true(Ring_push(r, &extra));
    assert_true(Ring_pop(r, &out));
    assert_int_equal(out.arg, 99);
    assert_int_equal(Ring_drops(r), 2);
    Ring_free(r);
}

static void wraparound(void **state) {
    (void)state;
    Ring *r = Ring_new(4);
    uint64_t next_in = 0, next_out = 0;
    RingRecord out;
    /* Uneven push/pop counts so the indices cross the mask boundary at every offset. */
    for (int round = 0; round < 5000; round++) {
        int k = 1 + round % 4;
        for (int i = 0; i < k; i++) {
            RingRecord rec = rec_make(0, next_in);
            if (Ring_push(r, &rec))
                next_in++;
        }
        int m = 1 + (round * 7) % 3;
        for (int i = 0; i < m && Ring_pop(r, &out); i++)
            assert_int_equal(out.arg, next_out++);
        assert_int_equal(Ring_size(r), next_in - next_out);
        assert_true(Ring_size(r) <= 4);
    }
    while (Ring_pop(r, &out))
        assert_int_equal(out.arg, next_out++);
    assert_int_equal(next_in, next_out);
    assert_true(next_in > 10000);
    Ring_free(r);
}

static void pop_batch_across_wrap(void **state) {
    (void)state;
    Ring *r = Ring_new(8);
    RingRecord buf[16];
    for (uint64_t i = 0; i < 6; i++) {
        RingRecord rec = rec_make(0, i);
        assert_true(Ring_push(r, &rec));
    }
    assert_int_equal(Ring_pop_batch(r, buf, 5), 5);
    for (uint64_t i = 6; i < 13; i++) { /* head now wraps past slot 7 */
        RingRecord rec = rec_make(0, i);
        assert_true(Ring_push(r, &rec));
    }
    assert_int_equal(Ring_pop_batch(r, buf, 16), 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(buf[i].arg, 5 + i);
    assert_int_equal(Ring_pop_batch(r, buf, 16), 0);
    Ring_free(r);
}

static void ringset_config_validation(void **state) {
    (void)state;
    RingSetConfig bad[] = {
        {.nrings = 2, .capacity = 3},
        {.nrings = 2, .capacity = 1},
        {.nrings = 5000},
        {.nrings = 2, .name_slots = 3},
        {.nrings = 2, .name_bytes = 10},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_null(RingSet_new(&bad[i]));
    RingSet *s = RingSet_new(&(RingSetConfig){.nrings = 3, .capacity = 16, .name_bytes = 4096,
                                              .name_slots = 64});
    assert_non_null(s);
    assert_int_equal(RingSet_nrings(s), 3);
    assert_int_equal(Ring_capacity(RingSet_ring(s, 0)), 16);
    assert_null(RingSet_ring(s, 3));
    assert_int_equal(RingSet_fd(s), -1);
    RingSet_free(s);
}

/* --- producer registration ---------------------------------------------------------- */

typedef struct {
    RingSet *set;
    pthread_barrier_t *bar;
    Ring *got;
    bool cached; /* second lookup returned the same ring */
    bool pushed;
} Claimer;

static void *claim_thread(void *p) {
    Claimer *c = p;
    c->got = RingSet_producer(c->set);
    c->cached = RingSet_producer(c->set) == c->got; /* no cmocka asserts off the main thread */
    RingRecord rec = rec_make(1, 0);
    c->pushed = RingSet_push(c->set, &rec);
    pthread_barrier_wait(c->bar); /* all claimers alive at once */
    pthread_barrier_wait(c->bar); /* main has checked */
    return NULL;
}

static void producer_claims_and_releases(void **state) {
    (void)state;
    RingSet *s = RingSet_new(&(RingSetConfig){.nrings = 2, .capacity = 8, .name_bytes = 4096,
                                              .name_slots = 64});
    Ring *mine = RingSet_producer(s);
    assert_non_null(mine);
    assert_ptr_equal(RingSet_producer(s), mine);
    assert_int_equal(RingSet_active(s), 1);

    /* Two more threads with one ring left: exactly one of them gets it. */
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 3);
    Claimer c[2] = {{s, &bar, NULL, false, false}, {s, &bar, NULL, false, false}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, claim_thread, &c[i]);
    pthread_barrier_wait(&bar);
    assert_int_equal(RingSet_active(s), 2);
    assert_true((c[0].got == NULL) != (c[1].got == NULL));
    Ring *theirs = c[0].got ? c[0].got : c[1].got;
    assert_ptr_not_equal(theirs, mine);
    assert_true(c[0].pushed != c[1].pushed);
    assert_true(c[0].cached && c[1].cached);
    assert_int_equal(RingSet_drops(s), 1); /* the ring-less push */
    pthread_barrier_wait(&bar);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    /* Thread exit handed the ring back; its record is still there to drain. */
    assert_int_equal(RingSet_active(s), 1);
    RingRecord out[4];
    assert_int_equal(RingSet_drain_into(s, out, 4), 1);
    assert_int_equal(out[0].spare, 1);

    /* A new thread can reuse the released ring. */
    pthread_barrier_init(&bar, NULL, 2);
    Claimer c2 = {s, &bar, NULL, false, false};
    pthread_create(&th[0], NULL, claim_thread, &c2);
    pthread_barrier_wait(&bar);
    assert_ptr_equal(c2.got, theirs);
    pthread_barrier_wait(&bar);
    pthread_join(th[0], NULL);
    pthread_barrier_destroy(&bar);
    RingSet_free(s);
}

typedef struct {
    uint32_t ring[4];
    int n;
} Seen;

static void seen_cb(const RingRecord *rec, uint32_t ring, void *ctx) {
    Seen *s = ctx;
    assert_int_equal(rec->arg, (uint64_t)s->n);
    s->ring[s->n++] = ring;
}

/* fork(): the child must not keep producing into the parent thread's ring. */
static void fork_child_claims_own_ring(void **state) {
    (void)state;
    RingSet *s = RingSet_new(&(RingSetConfig){.nrings = 4, .capacity = 8, .name_bytes = 4096,
                                              .name_slots = 64});
    RingRecord rec = rec_make(0, 0);
    assert_true(RingSet_push(s, &rec));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        rec = rec_make(1, 1);
        _exit(RingSet_push(s, &rec) && RingSet_producer(s) != RingSet_ring(s, 0) ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    Seen seen = {.n = 0};
    assert_int_equal(RingSet_drain(s, seen_cb, &seen, 0), 2);
    assert_int_equal(seen.ring[0], 0);
    assert_int_not_equal(seen.ring[1], 0);
    /* The child died without releasing (it _exit()ed); reap frees its ring. */
    assert_int_equal(RingSet_active(s), 2);
    assert_int_equal(RingSet_reap(s), 1);
    assert_int_equal(RingSet_active(s), 1);
    RingSet_free(s);
}

static void drain_respects_max(void **state) {
    (void)state;
    RingSet *s = RingSet_new(&(RingSetConfig){.nrings = 2, .capacity = 64, .name_bytes = 4096,
                                              .name_slots = 64});
    for (uint64_t i = 0; i < 50; i++) {
        RingRecord rec = rec_make(0, i);
        assert_true(RingSet_push(s, &rec));
    }
    RingRecord out[64];
    assert_int_equal(RingSet_drain_into(s, out, 20), 20);
    assert_int_equal(RingSet_drain_into(s, out + 20, 64), 30);
    for (uint64_t i = 0; i < 50; i++)
        assert_int_equal(out[i].arg, i);
    assert_int_equal(RingSet_drain_into(s, out, 64), 0);
    assert_int_equal(RingSet_drops(s), 0);
    RingSet_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(capacity_must_be_power_of_two),
        cmocka_unit_test(push_pop_order_and_full),
        cmocka_unit_test(wraparound),
        cmocka_unit_test(pop_batch_across_wrap),
        cmocka_unit_test(ringset_config_validation),
        cmocka_unit_test(producer_claims_and_releases),
        cmocka_unit_test(fork_child_claims_own_ring),
        cmocka_unit_test(drain_respects_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
