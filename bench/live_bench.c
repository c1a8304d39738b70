/* Live pipeline benchmark: synthetic producers -> RingSet -> drain thread -> LiveStore,
 * while a view-like consumer keeps building snapshots of the newest data.
 *
 *   live_bench [--rate EV_PER_S] [--producers N] [--seconds S] [--view-span MS]
 *              [--snapshot-max N] [--retention S]
 *
 * --rate 0 runs the producers flat out (ring -> store throughput). Reports produced,
 * drops, ingested, ring->store throughput, snapshots (count, events, build time) and
 * produce->visible latency (p50/p99/max): for every event that first appears in a
 * published snapshot, publish time - produce time (its ts, CLOCK_REALTIME). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ovtrace/base/clock.h"
#include "ovtrace/live/live.h"

static atomic_bool g_stop, g_drain_stop;
static double g_rate = 1e6;
static int g_producers = 1;
static double g_seconds = 5;
static int64_t g_view_span_ns = 1000000000;
static size_t g_snapshot_max = 2u << 20;
static int64_t g_retention_ns = 5 * (int64_t)1000000000;
static uint32_t g_ring_capacity = 1u << 18;

typedef struct {
    RingSet *set;
    int id;
    uint64_t produced;
} Producer;

static void sleep_until(int64_t mono) {
    int64_t d = mono - Clock_monotonicNs();
    if (d <= 0) return;
    struct timespec ts = {(time_t)(d / 1000000000), (long)(d % 1000000000)};
    nanosleep(&ts, NULL);
}

static void *producer(void *arg) {
    Producer *p = arg;
    NameTable *nt = RingSet_names(p->set);
    uint32_t names[4] = {NameTable_intern_cstr(nt, "moe::expert_gemm"), NameTable_intern_cstr(nt, "moe::attn_proj"),
                         NameTable_intern_cstr(nt, "void dpsk::ep::internode::dispatch<8, 20>(x)"),
                         NameTable_intern_cstr(nt, "void dpsk::ep::internode::combine<8, 20>(x)")};
    double per_thread = g_rate / g_producers;
    const int burst = 256;
    int64_t t0 = Clock_monotonicNs();
    uint64_t n = 0;
    RingRecord r;
    memset(&r, 0, sizeof r);
    r.kind = RING_KIND_KERNEL;
    r.device = 0;
    r.stream = 7 + p->id * 4;
    r.pid = 1;
    r.tid = p->id;
    while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) {
        if (per_thread > 0) sleep_until(t0 + (int64_t)((double)n * 1e9 / per_thread));
        int64_t now = Clock_realtimeNs();
        for (int i = 0; i < burst; i++, n++) {
            r.ts_ns = now + i; /* produce time: latency is measured against it */
            r.dur_ns = 500;
            r.stream = 7 + p->id * 4 + (int64_t)(n & 3);
            r.name_id = names[n & 3];
            r.correlation = (uint32_t)n + 1;
            RingSet_push(p->set, &r);
        }
    }
    p->produced = n;
    return NULL;
}

typedef struct {
    LiveStore *store;
} Drainer;

static void *drainer(void *arg) {
    Drainer *d = arg;
    for (;;) {
        bool stop = atomic_load(&g_drain_stop); /* set after the producers are joined */
        size_t n = LiveStore_drain(d->store, 0);
        if (stop && n == 0) break;
        if (n == 0) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    LiveStore *store;
    size_t snapshots;
    double build_s_total, build_s_max;
    size_t events_total;
    int64_t *lat;
    size_t n_lat, cap_lat;
} Viewer;

/* The view: builds a snapshot of the newest span, like the session's background
 * thread, and records when each event first became visible. */
static void *viewer(void *arg) {
    Viewer *v = arg;
    int64_t seen_upto = INT64_MIN;
    /* like the session's background thread: snapshots yield the CPU to the drain */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
    while (!atomic_load(&g_stop)) {
        LiveStats st = LiveStore_stats(v->store);
        if (!st.retained) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            continue;
        }
        int64_t b0 = Clock_monotonicNs();
        Trace *t = LiveStore_snapshot(v->store, g_snapshot_max, st.t_last - g_view_span_ns);
        int64_t published = Clock_realtimeNs();
        double b = (double)(Clock_monotonicNs() - b0) / 1e9;
        v->snapshots++;
        v->build_s_total += b;
        if (b > v->build_s_max) v->build_s_max = b;
        v->events_total += t->n_events;
        int64_t newest = seen_upto;
        for (size_t i = 0; i < t->n_events; i++) {
            const TraceEvent *e = &t->events[i];
            if (e->ts <= seen_upto) continue;
            if (e->ts > newest) newest = e->ts;
            if ((e->corr & 63) == 0) { /* sample 1/64 */
                if (v->n_lat == v->cap_lat) {
                    v->cap_lat = v->cap_lat ? v->cap_lat * 2 : 1 << 16;
                    v->lat = realloc(v->lat, v->cap_lat * sizeof *v->lat);
                }
                v->lat[v->n_lat++] = published - e->ts;
            }
        }
        seen_upto = newest;
        Trace_free(t);
        struct timespec ts = {0, 20000000}; /* the TUI asks at most every ~20-100 ms */
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rate")) g_rate = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--producers")) g_producers = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) g_seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--view-span")) g_view_span_ns = (int64_t)(atof(argv[i + 1]) * 1e6);
        else if (!strcmp(argv[i], "--snapshot-max")) g_snapshot_max = (size_t)atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--ring-capacity")) g_ring_capacity = (uint32_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--retention")) g_retention_ns = (int64_t)(atof(argv[i + 1]) * 1e9);
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (g_producers < 1 || g_producers > 32) return 2;
    RingSetConfig rc = {.nrings = 64, .capacity = g_ring_capacity};
    RingSet *set = RingSet_new(&rc);
    if (!set) return 2;
    LiveStoreConfig sc;
    LiveStoreConfig_default(&sc);
    sc.retention_ns = g_retention_ns;
    sc.snapshot_max_events = g_snapshot_max;
    LiveStore *store = LiveStore_new(set, &sc);
    Producer P[32];
    pthread_t pt[32], dt, vt;
    Drainer D = {store};
    Viewer V = {0};
    V.store = store;
    atomic_init(&g_stop, false);
    atomic_init(&g_drain_stop, false);
    pthread_create(&dt, NULL, drainer, &D);
    pthread_create(&vt, NULL, viewer, &V);
    int64_t t0 = Clock_monotonicNs();
    for (int i = 0; i < g_producers; i++) {
        P[i] = (Producer){set, i, 0};
        pthread_create(&pt[i], NULL, producer, &P[i]);
    }
    struct timespec ts = {(time_t)g_seconds, (long)((g_seconds - (double)(time_t)g_seconds) * 1e9)};
    nanosleep(&ts, NULL);
    atomic_store(&g_stop, true);
    for (int i = 0; i < g_producers; i++) pthread_join(pt[i], NULL);
    double elapsed = (double)(Clock_monotonicNs() - t0) / 1e9;
    pthread_join(vt, NULL);
    atomic_store(&g_drain_stop, true);
    pthread_join(dt, NULL);
    uint64_t produced = 0;
    for (int i = 0; i < g_producers; i++) produced += P[i].produced;
    LiveStats st = LiveStore_stats(store);
    qsort(V.lat, V.n_lat, sizeof *V.lat, cmp_i64);
    double p50 = V.n_lat ? (double)V.lat[V.n_lat / 2] / 1e6 : 0, p99 = V.n_lat ? (double)V.lat[V.n_lat * 99 / 100] / 1e6 : 0;
    double pmax = V.n_lat ? (double)V.lat[V.n_lat - 1] / 1e6 : 0;
    printf("producers %d, %s, %.2f s, ring capacity %u, view span %.0f ms\n", g_producers, g_rate > 0 ? "paced" : "unpaced", elapsed, g_ring_capacity, (double)g_view_span_ns / 1e6);
    if (g_rate > 0) printf("  target rate        %.0f ev/s\n", g_rate);
    printf("  produced           %llu (%.2f M ev/s)\n", (unsigned long long)produced, (double)produced / elapsed / 1e6);
    printf("  ring drops         %llu\n", (unsigned long long)st.ring_drops);
    printf("  ingested (store)   %llu (%.2f M ev/s ring->store)\n", (unsigned long long)st.ingested,
           (double)st.ingested / elapsed / 1e6);
    printf("  retained / evicted %llu / %llu, store memory %.1f MiB\n", (unsigned long long)st.retained,
           (unsigned long long)st.evicted, (double)st.memory_bytes / 1048576.0);
    printf("  snapshots          %zu (mean %.0f events, build mean %.1f ms, max %.1f ms)\n", V.snapshots,
           V.snapshots ? (double)V.events_total / (double)V.snapshots : 0,
           V.snapshots ? V.build_s_total / (double)V.snapshots * 1e3 : 0, V.build_s_max * 1e3);
    printf("  produce->visible   p50 %.1f ms, p99 %.1f ms, max %.1f ms (%zu samples)\n", p50, p99, pmax, V.n_lat);
    free(V.lat);
    LiveStore_free(store);
    RingSet_free(set);
    return st.ring_drops ? 1 : 0;
}
