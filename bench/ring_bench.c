/* Ring throughput (events/s, 1 and 4 producers) and produce->drain latency.
 *
 *   ring_bench [events_per_producer]      default 20000000
 *
 * Throughput: producers push as fast as they can (retrying when full, so every event
 * is delivered) while one consumer drains; the clock runs from the start barrier until
 * the consumer has seen every event. Latency: one producer pushes a timestamped event
 * every ~2 us; a spinning consumer records now - ts on arrival. Prints markdown rows. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ovtrace/ring/ring.h"

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

typedef struct {
    RingSet *set;
    uint64_t n;
    uint64_t retries;
    pthread_barrier_t *bar;
} Prod;

static void *produce(void *p) {
    Prod *pr = p;
    RingSet_producer(pr->set);
    RingRecord rec = {.kind = RING_KIND_KERNEL, .stream = 7, .device = 0};
    pthread_barrier_wait(pr->bar);
    for (uint64_t i = 0; i < pr->n; i++) {
        rec.arg = i;
        while (!RingSet_push(pr->set, &rec)) {
            pr->retries++;
            sched_yield();
        }
    }
    return NULL;
}

static void count_cb(const RingRecord *rec, uint32_t ring, void *ctx) {
    (void)ring;
    uint64_t *sum = ctx;
    *sum += rec->arg; /* touch the record so the drain cost is real */
}

static void throughput(int nprod, uint64_t per) {
    RingSet *set = RingSet_new(&(RingSetConfig){.nrings = 8, .capacity = 1u << 16});
    if (!set) {
        perror("RingSet_new");
        exit(1);
    }
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)nprod + 1);
    Prod pr[8];
    pthread_t th[8];
    for (int i = 0; i < nprod; i++) {
        pr[i] = (Prod){set, per, 0, &bar};
        pthread_create(&th[i], NULL, produce, &pr[i]);
    }
    uint64_t total = (uint64_t)nprod * per, got = 0, sum = 0;
    pthread_barrier_wait(&bar);
    int64_t t0 = now_ns();
    while (got < total) {
        size_t n = RingSet_drain(set, count_cb, &sum, 0);
        if (n == 0)
            sched_yield();
        got += n;
    }
    int64_t dt = now_ns() - t0;
    uint64_t retries = 0;
    for (int i = 0; i < nprod; i++) {
        pthread_join(th[i], NULL);
        retries += pr[i].retries;
    }
    if (sum != (uint64_t)nprod * (per * (per - 1) / 2)) {
        fprintf(stderr, "checksum mismatch\n");
        exit(1);
    }
    printf("| throughput, %d producer%s | %llu | %.1f M events/s | %.2f ns/event | %.2f%% pushes found ring full |\n",
           nprod, nprod > 1 ? "s" : "", (unsigned long long)total, total / (dt / 1e3),
           (double)dt / total, 100.0 * retries / (total + retries));
    pthread_barrier_destroy(&bar);
    RingSet_free(set);
}

typedef struct {
    RingSet *set;
    uint64_t n;
    atomic_int start;
} LatProd;

static void *lat_produce(void *p) {
    LatProd *lp = p;
    RingRecord rec = {.kind = RING_KIND_KERNEL};
    RingSet_producer(lp->set);
    while (!atomic_load_explicit(&lp->start, memory_order_acquire))
        ;
    for (uint64_t i = 0; i < lp->n; i++) {
        int64_t t = now_ns();
        while (now_ns() - t < 2000) /* pace: one event per ~2 us */
            ;
        rec.arg = i;
        rec.ts_ns = now_ns();
        while (!RingSet_push(lp->set, &rec))
            ;
    }
    return NULL;
}

typedef struct {
    int64_t *lat;
    uint64_t n;
} LatCtx;

static void lat_cb(const RingRecord *rec, uint32_t ring, void *ctx) {
    (void)ring;
    LatCtx *c = ctx;
    c->lat[c->n++] = now_ns() - rec->ts_ns;
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void latency(uint64_t n) {
    RingSet *set = RingSet_new(&(RingSetConfig){.nrings = 2, .capacity = 1u << 12});
    LatProd lp = {set, n, 0};
    LatCtx c = {malloc(n * sizeof(int64_t)), 0};
    pthread_t th;
    pthread_create(&th, NULL, lat_produce, &lp);
    atomic_store_explicit(&lp.start, 1, memory_order_release);
    while (c.n < n)
        RingSet_drain(set, lat_cb, &c, 0); /* spin: measures the transport, not a poll period */
    pthread_join(th, NULL);
    qsort(c.lat, n, sizeof(int64_t), cmp64);
    printf("| latency produce->drain (spinning consumer) | %llu | median %lld ns | p99 %lld ns | p99.9 %lld ns, max %lld ns |\n",
           (unsigned long long)n, (long long)c.lat[n / 2], (long long)c.lat[n * 99 / 100],
           (long long)c.lat[n * 999 / 1000], (long long)c.lat[n - 1]);
    free(c.lat);
    RingSet_free(set);
}

/* Intrinsic cost, no cross-core traffic: one thread fills a ring, then drains it. */
static void uncontended(void) {
    enum { CAP = 1 << 16, ROUNDS = 200 };
    RingSet *set = RingSet_new(&(RingSetConfig){.nrings = 1, .capacity = CAP});
    RingRecord rec = {.kind = RING_KIND_KERNEL};
    uint64_t sum = 0;
    int64_t tpush = 0, tpop = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int64_t t0 = now_ns();
        for (uint64_t i = 0; i < CAP; i++) {
            rec.arg = i;
            RingSet_push(set, &rec);
        }
        int64_t t1 = now_ns();
        size_t n = RingSet_drain(set, count_cb, &sum, 0);
        int64_t t2 = now_ns();
        if (n != CAP) {
            fprintf(stderr, "uncontended: lost events\n");
            exit(1);
        }
        tpush += t1 - t0;
        tpop += t2 - t1;
    }
    double n = (double)CAP * ROUNDS;
    printf("| same thread: fill then drain | %.0f | push %.2f ns/event | drain %.2f ns/event | %.1f M events/s push |\n",
           n, tpush / n, tpop / n, n / (tpush / 1e3));
    RingSet_free(set);
}

int main(int argc, char **argv) {
    uint64_t per = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000u;
    if (per < 1000)
        per = 1000;
    printf("| benchmark | events | result | | |\n|---|---|---|---|---|\n");
    uncontended();
    throughput(1, per);
    throughput(4, per / 4);
    latency(200000);
    return 0;
}
