/* Overflow: small rings, a consumer that is paused or slow. Producers must never block,
 * and drops must be exact: drops == produced - consumed. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ring_test_util.h"

#define PRODUCERS 4

typedef struct {
    RingSet *set;
    uint32_t id;
    uint64_t n;
    uint64_t ok;
    int64_t max_push_ns;
    atomic_int *done;
    pthread_barrier_t *bar;
} Producer;

static void *produce(void *p) {
    Producer *pr = p;
    /* Claim rings and hold them until everyone is done: a thread that exited early
     * would hand its (full) ring to the next one and skew the per-ring counts. */
    RingSet_producer(pr->set);
    pthread_barrier_wait(pr->bar);
    for (uint64_t seq = 0; seq < pr->n; seq++) {
        RingRecord rec = rec_make(pr->id, seq);
        int64_t t0 = now_ns();
        bool ok = RingSet_push(pr->set, &rec);
        int64_t dt = now_ns() - t0;
        if (dt > pr->max_push_ns)
            pr->max_push_ns = dt;
        pr->ok += ok;
    }
    if (pr->done)
        atomic_fetch_add(pr->done, 1);
    pthread_barrier_wait(pr->bar);
    return NULL;
}

typedef struct {
    int64_t last[PRODUCERS];
    uint64_t per[PRODUCERS];
    uint64_t total;
    uint64_t errors;
} Check;

static void check_cb(const RingRecord *rec, uint32_t ring, void *ctx) {
    (void)ring;
    Check *c = ctx;
    c->total++;
    if (rec->spare >= PRODUCERS) {
        c->errors++;
        return;
    }
    /* Survivors of one producer form a strictly increasing subsequence. */
    if ((int64_t)rec->arg <= c->last[rec->spare])
        c->errors++;
    c->last[rec->spare] = (int64_t)rec->arg;
    c->per[rec->spare]++;
}

static void check_init(Check *c) {
    *c = (Check){.total = 0};
    for (int i = 0; i < PRODUCERS; i++)
        c->last[i] = -1;
}

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "producer blocked: overflow test timed out\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(2);
}

/* Consumer paused for the whole run: if a push ever waited for space, the joins below
 * would never return (the alarm turns that into a failure). */
static void paused_consumer(void **state) {
    (void)state;
    enum { CAP = 64, N = 200000 };
    RingSet *set = RingSet_new(&(RingSetConfig){.nrings = PRODUCERS, .capacity = CAP,
                                                .name_bytes = 4096, .name_slots = 64});
    Producer pr[PRODUCERS];
    pthread_t th[PRODUCERS];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, PRODUCERS);
    signal(SIGALRM, on_alarm);
    alarm(30);
    for (uint32_t i = 0; i < PRODUCERS; i++) {
        pr[i] = (Producer){set, i, N, 0, 0, NULL, &bar};
        pthread_create(&th[i], NULL, produce, &pr[i]);
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(th[i], NULL);
    alarm(0);
    pthread_barrier_destroy(&bar);

    Check c;
    check_init(&c);
    RingSet_drain(set, check_cb, &c, 0);
    assert_int_equal(c.errors, 0);
    assert_int_equal(c.total, PRODUCERS * CAP);
    for (int i = 0; i < PRODUCERS; i++) {
        assert_int_equal(pr[i].ok, CAP);
        assert_int_equal(c.per[i], CAP);
        assert_int_equal(c.last[i], CAP - 1); /* the first CAP events survive, in order */
    }
    assert_int_equal(RingSet_drops(set), (uint64_t)PRODUCERS * N - c.total);
    for (uint32_t i = 0; i < PRODUCERS; i++)
        assert_int_equal(Ring_drops(RingSet_ring(set, i)), N - CAP);
    RingSet_free(set);
}

/* Consumer drains a little, then sleeps, while producers run flat out. */
static void slow_consumer(void **state) {
    (void)state;
    enum { CAP = 256, N = 300000 };
    RingSet *set = RingSet_new(&(RingSetConfig){.nrings = PRODUCERS, .capacity = CAP,
                                                .name_bytes = 4096, .name_slots = 64});
    atomic_int done = 0;
    Producer pr[PRODUCERS];
    pthread_t th[PRODUCERS];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, PRODUCERS);
    for (uint32_t i = 0; i < PRODUCERS; i++) {
        pr[i] = (Producer){set, i, N, 0, 0, &done, &bar};
        pthread_create(&th[i], NULL, produce, &pr[i]);
    }
    Check c;
    check_init(&c);
    struct timespec nap = {0, 50000};
    while (atomic_load(&done) < PRODUCERS) {
        RingSet_drain(set, check_cb, &c, 32);
        nanosleep(&nap, NULL);
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(th[i], NULL);
    RingSet_drain(set, check_cb, &c, 0);
    pthread_barrier_destroy(&bar);

    uint64_t ok = 0;
    int64_t max_push = 0;
    for (int i = 0; i < PRODUCERS; i++) {
        ok += pr[i].ok;
        assert_int_equal(c.per[i], pr[i].ok);
        if (pr[i].max_push_ns > max_push)
            max_push = pr[i].max_push_ns;
    }
    uint64_t drops = RingSet_drops(set);
    printf("# slow consumer: produced %llu consumed %llu dropped %llu, slowest push %lld ns\n",
           (unsigned long long)PRODUCERS * N, (unsigned long long)c.total,
           (unsigned long long)drops, (long long)max_push);
    assert_int_equal(c.errors, 0);
    assert_int_equal(c.total, ok);
    assert_int_equal(drops, (uint64_t)PRODUCERS * N - c.total);
    assert_true(drops > 0);
    /* Generous: only preemption can make a non-blocking push take this long. */
    assert_true(max_push < 500 * 1000 * 1000);
    RingSet_free(set);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paused_consumer),
        cmocka_unit_test(slow_consumer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
