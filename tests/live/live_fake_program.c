/* A stand-in for a CUDA program under the CUPTI collector (tests of `ovtrace record|live
 * -- CMD` without a GPU): attaches to the ring set of OVTRACE_SHM as the injection
 * library does and pushes what the collector would: GPU kernels (compute and a
 * dispatch kernel that classifies as communication), runtime API calls correlated with
 * them, and CUPTI's "cupti dropped records" counter.
 *
 *   live_fake_program burst N STATUS   N steps from two threads, then exit(STATUS)
 *   live_fake_program stream           one step every 2 ms until SIGINT/SIGTERM, kept
 *                                      like CUPTI keeps records: in a buffer that a
 *                                      flusher thread hands to the ring set every 100 ms
 *                                      and, asked by the ring set's stop handshake, at
 *                                      once (with a last record named "final flush"),
 *                                      then acknowledges. SIGINT/SIGTERM end it at once,
 *                                      exit(0), without a flush: what is still buffered
 *                                      is lost, as in a CUDA program without a handler.
 *   live_fake_program stream-deaf      the same, but its collector never answers
 * stream prints on stderr at the end: "live_fake_program: produced P events, pushed Q;
 * R produced before the stop request" (R = -1: no request seen).
 * Prints CUDA_INJECTION64_PATH and whether OVTRACE_SHM is set on stdout. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ovtrace/collector/cupti_translate.h"
#include "ovtrace/ring/ring.h"

static RingSet *set;
static long n_steps;
static atomic_uint corr_next = 1;
static volatile sig_atomic_t g_stop;

/* stream mode: the collector's buffer, its flusher and the counts */
static bool buffered;
static pthread_mutex_t buf_mu = PTHREAD_MUTEX_INITIALIZER;
static RingRecord *pending;
static size_t n_pending, cap_pending;
static long produced, pushed, produced_at_request = -1;
static atomic_bool flusher_exit;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void push_now(const RingRecord *r) {
    for (int tries = 0; !RingSet_push(set, r) && tries < 10000; tries++) usleep(100); /* the tests want no loss */
}

/* buf_mu held: everything buffered goes into the ring set */
static void flush_pending(void) {
    for (size_t i = 0; i < n_pending; i++) push_now(&pending[i]);
    pushed += (long)n_pending;
    n_pending = 0;
}

static void push(RingRecord *r) {
    if (!buffered) {
        push_now(r);
        return;
    }
    pthread_mutex_lock(&buf_mu);
    if (n_pending == cap_pending) {
        cap_pending = cap_pending ? 2 * cap_pending : 1024;
        pending = realloc(pending, cap_pending * sizeof *pending);
        if (!pending) abort();
    }
    pending[n_pending++] = *r;
    produced++;
    pthread_mutex_unlock(&buf_mu);
}

static uint32_t intern(const char *s) { return NameTable_intern_cstr(RingSet_names(set), s); }

/* One step: a launch on this thread, the compute kernel it launched on stream 7 and a
 * dispatch kernel on the comm stream 8 overlapping it. */
static void step(long t) {
    static _Thread_local uint32_t k_name, d_name, api_name;
    if (!k_name) {
        char nm[64];
        snprintf(nm, sizeof nm, "fake::gemm_%ld", t);
        k_name = intern(nm);
        d_name = intern("void dpsk::ep::intranode::dispatch<8, 20>(dpsk::ep::DispatchArgs)");
        api_name = intern("cudaLaunchKernel");
    }
    int64_t t0 = now_ns();
    uint32_t c = atomic_fetch_add(&corr_next, 1);
    RingRecord r;
    memset(&r, 0, sizeof r);
    r.pid = (uint32_t)getpid();
    r.tid = (int64_t)syscall(SYS_gettid);
    r.kind = RING_KIND_RUNTIME;
    r.ts_ns = t0;
    r.dur_ns = 5000;
    r.stream = -1;
    r.device = -1;
    r.name_id = api_name;
    r.correlation = c;
    push(&r);
    r.kind = RING_KIND_KERNEL;
    r.ts_ns = t0 + 10000;
    r.dur_ns = 400000;
    r.device = 0;
    r.stream = 7 + t * 2;
    r.name_id = k_name;
    push(&r);
    r.ts_ns = t0 + 20000;
    r.dur_ns = 200000;
    r.stream = 8 + t * 2;
    r.name_id = d_name;
    r.correlation = 0;
    push(&r);
}

static void *producer(void *arg) {
    long t = (long)arg;
    for (long i = 0; i < n_steps; i++) step(t);
    return NULL;
}

static void counter(const char *name, double v) {
    RingRecord r;
    memset(&r, 0, sizeof r);
    r.kind = RING_KIND_COUNTER;
    r.ts_ns = now_ns();
    r.stream = -1;
    r.device = -1;
    r.pid = (uint32_t)getpid();
    r.tid = (int64_t)syscall(SYS_gettid);
    r.name_id = intern(name);
    memcpy(&r.arg, &v, sizeof v);
    push(&r);
}

static void on_signal(int sig) { g_stop = sig; }

static void final_flush_marker(void) {
    RingRecord r;
    memset(&r, 0, sizeof r);
    r.kind = RING_KIND_NVTX_MARKER;
    r.ts_ns = now_ns();
    r.stream = -1;
    r.device = -1;
    r.pid = (uint32_t)getpid();
    r.tid = (int64_t)syscall(SYS_gettid);
    r.name_id = intern("final flush");
    push_now(&r);
    produced++;
    pushed++;
}

/* The collector's flusher: a periodic flush every 100 ms; a stop request of the ring
 * set is answered at once (flush, marker, acknowledgement) unless deaf. */
static void *flusher(void *arg) {
    bool deaf = arg != NULL;
    uint32_t seen = 0;
    int64_t next = now_ns() + 100000000;
    while (!atomic_load(&flusher_exit)) {
        usleep(2000);
        pthread_mutex_lock(&buf_mu);
        if (!deaf && RingSet_stopRequested(set, &seen)) {
            produced_at_request = produced;
            flush_pending();
            final_flush_marker();
            RingSet_stopAck(set, (uint64_t)pushed);
        } else if (now_ns() >= next) {
            flush_pending();
            next += 100000000;
        }
        pthread_mutex_unlock(&buf_mu);
    }
    return NULL;
}

int main(int argc, char **argv) {
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    printf("CUDA_INJECTION64_PATH=%s\n", inj ? inj : "(unset)");
    printf("OVTRACE_SHM=%s\n", getenv("OVTRACE_SHM") ? "set" : "(unset)");
    fflush(stdout);
    bool deaf = argc >= 2 && !strcmp(argv[1], "stream-deaf");
    bool stream = deaf || (argc >= 2 && !strcmp(argv[1], "stream"));
    if (!stream && (argc < 4 || strcmp(argv[1], "burst") != 0)) {
        fprintf(stderr, "usage: live_fake_program burst N STATUS | stream | stream-deaf\n");
        return 2;
    }
    set = RingSet_attach_env();
    if (!set) {
        fprintf(stderr, "live_fake_program: cannot attach to OVTRACE_SHM\n");
        return 99;
    }
    if (stream) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        buffered = true;
        RingSet_collectorJoin(set);
        pthread_t fl;
        pthread_create(&fl, NULL, flusher, deaf ? (void *)1 : NULL);
        long i = 0;
        while (!g_stop) {
            step(0);
            if (++i % 100 == 0) counter(CUPTI_TR_DROPPED_NAME, (double)(i / 100)); /* cumulative */
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
        atomic_store(&flusher_exit, true);
        pthread_join(fl, NULL);
        /* the signal ends the program: no exit flush, the buffer is lost */
        fprintf(stderr, "live_fake_program: produced %ld events, pushed %ld; %ld produced before the stop request\n",
                produced, pushed, produced_at_request);
        return 0;
    }
    n_steps = atol(argv[2]);
    pthread_t th[2];
    for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, producer, (void *)t);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    counter(CUPTI_TR_DROPPED_NAME, 3);
    counter(CUPTI_TR_DROPPED_NAME, 7); /* cumulative: 7 in all */
    RingSet_free(set);
    return atoi(argv[3]);
}
