/* 4 producer threads x 2M events through a RingSet while the consumer drains
 * concurrently: nothing lost or duplicated, per-producer order kept, and the drop
 * counter equals exactly the number of pushes that reported "full".
 *
 * The ring never blocks, so "zero loss" needs a producer that retries a failed push
 * (as a real producer could choose to); every failure is still counted, and the test
 * checks the count is exact. Rings are big enough that retries are rare. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "ring_test_util.h"

#define PRODUCERS 4
#ifndef EVENTS_PER_PRODUCER
#define EVENTS_PER_PRODUCER 2000000u
#endif

typedef struct {
    RingSet *set;
    uint32_t id;
    uint64_t retries;
    Ring *ring;
    atomic_int *done;
    pthread_barrier_t *bar;
} Producer;

static void *produce(void *p) {
    Producer *pr = p;
    pr->ring = RingSet_producer(pr->set);
    pthread_barrier_wait(pr->bar); /* all rings claimed before anyone can exit */
    for (uint64_t seq = 0; seq < EVENTS_PER_PRODUCER; seq++) {
        RingRecord rec = rec_make(pr->id, seq);
        rec.tid = pr->id;
        while (!RingSet_push(pr->set, &rec)) {
            pr->retries++;
            sched_yield(); /* 2 cores, 5 threads: let the consumer run */
        }
    }
    atomic_fetch_add(pr->done, 1);
    return NULL;
}

typedef struct {
    uint64_t next[PRODUCERS];
    uint64_t total;
    uint64_t errors;
    uint32_t ring_of[PRODUCERS];
} Check;

static void check_cb(const RingRecord *rec, uint32_t ring, void *ctx) {
    Check *c = ctx;
    uint32_t p = rec->spare;
    c->total++;
    if (p >= PRODUCERS || rec->tid != p || rec->ts_ns != (int64_t)rec->arg) {
        c->errors++;
        return;
    }
    if (rec->arg != c->next[p]++)
        c->errors++;
    if (c->ring_of[p] == UINT32_MAX)
        c->ring_of[p] = ring;
    else if (c->ring_of[p] != ring) /* a producer's events all come from its ring */
        c->errors++;
}

static void stress_zero_loss_in_order(void **state) {
    (void)state;
    RingSet *set = RingSet_new(&(RingSetConfig){.nrings = 8, .capacity = 1u << 16});
    assert_non_null(set);
    atomic_int done = 0;
    Producer pr[PRODUCERS];
    pthread_t th[PRODUCERS];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, PRODUCERS);
    for (uint32_t i = 0; i < PRODUCERS; i++) {
        pr[i] = (Producer){set, i, 0, NULL, &done, &bar};
        assert_int_equal(pthread_create(&th[i], NULL, produce, &pr[i]), 0);
    }
    Check c = {.total = 0};
    for (int i = 0; i < PRODUCERS; i++)
        c.ring_of[i] = UINT32_MAX;
    uint64_t empty_polls = 0;
    for (;;) {
        int finished = atomic_load(&done); /* read before draining: no event can slip by */
        size_t n = RingSet_drain(set, check_cb, &c, 4096);
        if (n == 0) {
            if (finished == PRODUCERS)
                break;
            empty_polls++;
            sched_yield();
        }
    }
    uint64_t retries = 0;
    for (int i = 0; i < PRODUCERS; i++) {
        pthread_join(th[i], NULL);
        retries += pr[i].retries;
    }
    pthread_barrier_destroy(&bar);
    printf("# stress: %llu events, %llu full-ring retries, %llu empty polls\n",
           (unsigned long long)c.total, (unsigned long long)retries,
           (unsigned long long)empty_polls);
    assert_int_equal(c.errors, 0);
    assert_int_equal(c.total, (uint64_t)PRODUCERS * EVENTS_PER_PRODUCER);
    for (int i = 0; i < PRODUCERS; i++) {
        assert_int_equal(c.next[i], EVENTS_PER_PRODUCER);
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(pr[i].ring, pr[j].ring);
    }
    assert_int_equal(RingSet_drops(set), retries);
    assert_int_equal(RingSet_active(set), 0); /* exited threads released their rings */
    RingSet_free(set);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stress_zero_loss_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
