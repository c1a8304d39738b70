/* CUPTI glue: subscription, activity kinds, buffer pool, flusher, final flush
 * (include/ovtrace/collector/cupti.h). The records themselves are translated by
 * collector/translate.c. */
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ovtrace/collector/cupti.h"

#define BUF_ALIGN 8
#define STOP_POLL_MS 10 /* how often the flusher looks for a stop request */

typedef struct {
    CuptiConfig cfg;
    RingSet *set;
    CuptiTr *tr;
    pthread_mutex_t tr_mu; /* translator: buffers may complete on several threads */
    CUpti_SubscriberHandle sub;
    bool subscribed;
    /* buffer pool: one allocation cut into n_buffers, a free stack under a mutex, and up
     * to max_buffers - n_buffers more allocated one by one when CUPTI holds them all */
    uint8_t *pool;
    uint8_t **free_stack; /* max_buffers slots */
    int n_free;
    uint8_t **extra; /* the buffers allocated beyond the pool */
    int n_extra;
    CuptiConfig pool_cfg; /* the sizes the pool was made with: it outlives Cupti_stop */
    pthread_mutex_t pool_mu;
    atomic_uint_fast64_t pool_misses;
    /* flusher */
    pthread_t flusher;
    bool flusher_started;
    pthread_mutex_t stop_mu;
    pthread_cond_t stop_cv;
    bool stop_flag;
    uint32_t stop_seen; /* the last stop request of the ring set answered (flusher, then Cupti_stop) */
    atomic_bool running;
    pid_t pid; /* the process that started the collector (see owner) */
    bool atexit_registered;
    CUpti_ActivityKind enabled[16];
    int n_enabled;
} Collector;

static Collector C = {
    .tr_mu = PTHREAD_MUTEX_INITIALIZER,
    .pool_mu = PTHREAD_MUTEX_INITIALIZER,
    .stop_mu = PTHREAD_MUTEX_INITIALIZER,
    .stop_cv = PTHREAD_COND_INITIALIZER,
};

static int env_int(const char *name, int def, int lo, int hi) {
    const char *v = getenv(name);
    if (!v || !*v) return def;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < lo || x > hi) return def;
    return (int)x;
}

void CuptiConfig_default(CuptiConfig *c) {
    memset(c, 0, sizeof *c);
    c->flush_ms = env_int("OVTRACE_CUPTI_FLUSH_MS", 100, 1, 60000);
    c->buffer_bytes = (size_t)env_int("OVTRACE_CUPTI_BUFFER_KB", 2048, 64, 1 << 20) * 1024;
    c->n_buffers = env_int("OVTRACE_CUPTI_BUFFERS", 32, 2, 4096);
    c->max_buffers = env_int("OVTRACE_CUPTI_MAX_BUFFERS", 512, 2, 65536);
    c->driver = env_int("OVTRACE_CUPTI_DRIVER", 1, 0, 1) != 0;
    c->all_driver_calls = false;
    c->demangle = true;
}

/* Message for a CUptiResult (with hints for the common failures). */
static const char *Cupti_explain(int res, char *buf, size_t n) {
    const char *s = NULL;
    cuptiGetResultString((CUptiResult)res, &s);
    const char *hint = "";
    switch (res) {
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        hint = "; another CUPTI client already holds CUPTI in this process (Nsight Systems/nsys, Nsight Compute, "
               "a PyTorch/Kineto profiler or cuda-gdb may be attached): stop it or run without it";
        break;
    case CUPTI_ERROR_NOT_INITIALIZED:
        hint = "; CUPTI could not initialise: no CUDA driver found or the driver is older than the toolkit "
               "(try --simulate)";
        break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        hint = "; profiling is restricted to admin users on this system (NVreg_RestrictProfilingToAdminUsers)";
        break;
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_SUPPORTED:
        hint = "; this GPU, driver or configuration (MIG, vGPU, confidential computing) does not support tracing";
        break;
    default: break;
    }
    snprintf(buf, n, "%s (CUPTI error %d)%s", s ? s : "unknown CUPTI error", res, hint);
    return buf;
}

/* A child fork()ed after Cupti_start inherits this state and the atexit handler, but not
 * the flusher thread nor a working CUDA: it must leave the collector alone (joining the
 * flusher would wait for a thread it does not have, and a flush could hand it the
 * parent's buffers again, under its own pid). */
static bool owner(void) { return getpid() == C.pid; }

/* ---- buffer pool ------------------------------------------------------------------------ */

/* CUPTI keeps a buffer until every record in it is complete: a program that queues
 * seconds of GPU work ahead holds one buffer per flush interval of that backlog. So the
 * pool grows, one buffer at a time, up to max_buffers (only the pages CUPTI writes become
 * resident); past that CUPTI drops records and counts them. */
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    uint8_t *b = NULL;
    pthread_mutex_lock(&C.pool_mu);
    if (C.n_free > 0) b = C.free_stack[--C.n_free];
    else if (C.extra && C.cfg.n_buffers + C.n_extra < C.cfg.max_buffers) {
        if (posix_memalign((void **)&b, 4096, C.cfg.buffer_bytes) != 0) b = NULL;
        if (b) C.extra[C.n_extra++] = b;
    }
    pthread_mutex_unlock(&C.pool_mu);
    if (!b) atomic_fetch_add_explicit(&C.pool_misses, 1, memory_order_relaxed); /* CUPTI counts the drops */
    *buffer = b;
    *size = b ? C.cfg.buffer_bytes : 0;
    *max_records = 0;
}

static bool pool_owns(const uint8_t *b) {
    if (b >= C.pool && b < C.pool + (size_t)C.cfg.n_buffers * C.cfg.buffer_bytes) return true;
    for (int i = 0; i < C.n_extra; i++)
        if (C.extra[i] == b) return true;
    return false;
}

static void pool_put(uint8_t *b) {
    if (!b) return;
    pthread_mutex_lock(&C.pool_mu);
    if (C.n_free < C.cfg.max_buffers && pool_owns(b)) C.free_stack[C.n_free++] = b;
    pthread_mutex_unlock(&C.pool_mu);
}

static int64_t realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
                                      size_t valid) {
    (void)size;
    /* Asked before taking tr_mu: CUPTI answers under its own lock, which it also holds
     * while it calls on_callback (context creation), and on_callback takes tr_mu. */
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
    pthread_mutex_lock(&C.tr_mu);
    if (C.tr && valid > 0 && owner()) {
        CUpti_Activity *rec = NULL;
        while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) CuptiTr_record(C.tr, rec);
    }
    if (C.tr && dropped) CuptiTr_addCuptiDropped(C.tr, dropped, realtime_ns());
    pthread_mutex_unlock(&C.tr_mu);
    pool_put(buffer);
}

/* ---- callbacks: contexts, device reset ---------------------------------------------------- */

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data) {
    (void)userdata;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *rd = data;
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
            uint32_t cid = 0, dev = 0;
            if (cuptiGetContextId(rd->context, &cid) == CUPTI_SUCCESS &&
                cuptiGetDeviceId(rd->context, &dev) == CUPTI_SUCCESS) {
                pthread_mutex_lock(&C.tr_mu);
                if (C.tr) CuptiTr_setContextDevice(C.tr, cid, dev);
                pthread_mutex_unlock(&C.tr_mu);
            }
        } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
            /* the context's records must be delivered before it goes away */
            cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        }
    } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
        const CUpti_CallbackData *cd = data;
        if (cd->callbackSite == CUPTI_API_ENTER) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
}

/* ---- flusher ------------------------------------------------------------------------------ */

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Records this collector has put into the ring set (emitted minus refused). */
static uint64_t events_sent(void) {
    pthread_mutex_lock(&C.tr_mu);
    CuptiTrStats st = C.tr ? CuptiTr_stats(C.tr) : (CuptiTrStats){0};
    pthread_mutex_unlock(&C.tr_mu);
    return st.events - st.pushed_failed;
}

/* The consumer's stop request (ring.h, stop handshake): everything CUPTI holds goes
 * into the rings now, before the program is signalled, then the acknowledgement. */
static void answer_stop_request(void) {
    if (!RingSet_stopRequested(C.set, &C.stop_seen)) return;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    RingSet_stopAck(C.set, events_sent());
}

static void *flusher_main(void *arg) {
    (void)arg;
    int64_t next_flush = mono_ms() + C.cfg.flush_ms;
    pthread_mutex_lock(&C.stop_mu);
    while (!C.stop_flag) {
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        int64_t wait = next_flush - mono_ms();
        if (wait > STOP_POLL_MS) wait = STOP_POLL_MS;
        if (wait < 0) wait = 0;
        int64_t ns = dl.tv_nsec + wait * 1000000;
        dl.tv_sec += (time_t)(ns / 1000000000);
        dl.tv_nsec = (long)(ns % 1000000000);
        pthread_cond_timedwait(&C.stop_cv, &C.stop_mu, &dl);
        if (C.stop_flag) break;
        pthread_mutex_unlock(&C.stop_mu);
        answer_stop_request();
        if (mono_ms() >= next_flush) {
            cuptiActivityFlushAll(0); /* completed buffers, full or not */
            next_flush = mono_ms() + C.cfg.flush_ms;
        }
        pthread_mutex_lock(&C.stop_mu);
    }
    pthread_mutex_unlock(&C.stop_mu);
    return NULL;
}

/* ---- start / stop ------------------------------------------------------------------------- */

/* ctx: a bool set when a reading fails (a 0 would put every event ~55 years off). */
static uint64_t cupti_now(void *ctx) {
    uint64_t t = 0;
    if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS || t == 0) *(bool *)ctx = true;
    return t;
}

static void at_exit(void) { Cupti_stop(); }

static bool enable(CUpti_ActivityKind k, bool required, char *err, size_t errlen) {
    CUptiResult r = cuptiActivityEnable(k);
    if (r == CUPTI_SUCCESS) {
        if (C.n_enabled < (int)(sizeof C.enabled / sizeof C.enabled[0])) C.enabled[C.n_enabled++] = k;
        return true;
    }
    char m[512];
    Cupti_explain(r, m, sizeof m);
    if (required) {
        snprintf(err, errlen, "cannot enable CUPTI activity kind %d: %s", (int)k, m);
        return false;
    }
    fprintf(stderr, "ovtrace: warning: CUPTI activity kind %d not enabled: %s\n", (int)k, m);
    return true;
}

static void teardown(void) {
    for (int i = C.n_enabled - 1; i >= 0; i--) cuptiActivityDisable(C.enabled[i]);
    C.n_enabled = 0;
    if (C.subscribed) cuptiUnsubscribe(C.sub);
    C.subscribed = false;
}

bool Cupti_start(const CuptiConfig *cfg, RingSet *set, char *err, size_t errlen) {
    if (Cupti_running()) {
        snprintf(err, errlen, "the CUPTI collector is already running in this process");
        return false;
    }
    if (!set) {
        snprintf(err, errlen, "no ring set to send events to");
        return false;
    }
    if (cfg) C.cfg = *cfg;
    else CuptiConfig_default(&C.cfg);
    if (C.cfg.flush_ms <= 0) C.cfg.flush_ms = 100;
    if (C.cfg.n_buffers < 2) C.cfg.n_buffers = 2;
    if (C.cfg.max_buffers < C.cfg.n_buffers) C.cfg.max_buffers = C.cfg.n_buffers;
    C.cfg.buffer_bytes = (C.cfg.buffer_bytes + BUF_ALIGN - 1) / BUF_ALIGN * BUF_ALIGN;
    if (C.cfg.buffer_bytes < 64 * 1024) C.cfg.buffer_bytes = 64 * 1024;
    char m[512];

    /* 1. claim CUPTI: fails when another tool already subscribed */
    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = "";
    CUpti_SubscriberParams sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    sp.subscriberName = "ovtrace";
    sp.oldSubscriberName = old;
    sp.oldSubscriberSize = sizeof old;
    CUptiResult r = cuptiSubscribe_v2(&C.sub, on_callback, NULL, &sp);
    if (r != CUPTI_SUCCESS) {
        if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
            snprintf(err, errlen,
                     "CUPTI is already in use by %s%s%s: Nsight Systems (nsys), Nsight Compute, a PyTorch/Kineto "
                     "profiler or cuda-gdb may be attached; ovtrace cannot collect alongside it",
                     old[0] ? "'" : "another tool", old[0] ? old : "", old[0] ? "'" : "");
        else snprintf(err, errlen, "cannot subscribe to CUPTI: %s", Cupti_explain(r, m, sizeof m));
        return false;
    }
    C.subscribed = true;
    cuptiEnableCallback(1, C.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    cuptiEnableCallback(1, C.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    cuptiEnableCallback(1, C.sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);

    /* 2. buffer pool, allocated once; a later start keeps its sizes */
    if (C.pool) {
        C.cfg.n_buffers = C.pool_cfg.n_buffers;
        C.cfg.max_buffers = C.pool_cfg.max_buffers;
        C.cfg.buffer_bytes = C.pool_cfg.buffer_bytes;
    } else {
        size_t total = (size_t)C.cfg.n_buffers * C.cfg.buffer_bytes;
        if (posix_memalign((void **)&C.pool, 4096, total) != 0) C.pool = NULL;
        C.free_stack = calloc((size_t)C.cfg.max_buffers, sizeof *C.free_stack);
        C.extra = calloc((size_t)(C.cfg.max_buffers - C.cfg.n_buffers) + 1, sizeof *C.extra);
        if (!C.pool || !C.free_stack || !C.extra) {
            snprintf(err, errlen, "cannot allocate %zu bytes of CUPTI buffers", total);
            free(C.pool);
            free(C.free_stack);
            free(C.extra);
            C.pool = NULL;
            C.free_stack = NULL;
            C.extra = NULL;
            teardown();
            return false;
        }
        for (int i = C.cfg.n_buffers - 1; i >= 0; i--) C.free_stack[C.n_free++] = C.pool + (size_t)i * C.cfg.buffer_bytes;
        C.pool_cfg = C.cfg;
    }

    /* 3. translator with the clock offset */
    CuptiTrConfig tc;
    memset(&tc, 0, sizeof tc);
    tc.all_driver_calls = C.cfg.all_driver_calls;
    tc.demangle = C.cfg.demangle ? CuptiTr_cxaDemangler() : NULL;
    cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM); /* tids = gettid(), like the CPU lanes */
    uint64_t t0 = 0;
    r = cuptiGetTimestamp(&t0);
    bool clock_bad = r != CUPTI_SUCCESS || t0 == 0;
    if (!clock_bad) tc.clock_offset_ns = CuptiTr_estimateOffset(cupti_now, &clock_bad, 32);
    if (clock_bad) {
        snprintf(err, errlen, "cannot read CUPTI's clock (cuptiGetTimestamp: %s): GPU times could not be put on "
                 "the host clock", r != CUPTI_SUCCESS ? Cupti_explain(r, m, sizeof m) : "it returned 0");
        teardown();
        return false;
    }
    pthread_mutex_lock(&C.tr_mu);
    C.set = set;
    CuptiTr_free(C.tr); /* a restart: the last session's translator was kept for its stats */
    C.tr = CuptiTr_new(&tc, set);
    pthread_mutex_unlock(&C.tr_mu);

    /* 4. activity kinds */
    r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
        snprintf(err, errlen, "cannot register CUPTI buffer callbacks: %s", Cupti_explain(r, m, sizeof m));
        goto fail;
    }
    if (!enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, true, err, errlen)) goto fail;
    if (!enable(CUPTI_ACTIVITY_KIND_MEMCPY, true, err, errlen)) goto fail;
    if (!enable(CUPTI_ACTIVITY_KIND_MEMSET, true, err, errlen)) goto fail;
    if (!enable(CUPTI_ACTIVITY_KIND_RUNTIME, true, err, errlen)) goto fail;
    enable(CUPTI_ACTIVITY_KIND_MEMCPY2, false, err, errlen);
    if (C.cfg.driver) enable(CUPTI_ACTIVITY_KIND_DRIVER, false, err, errlen);
    enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, false, err, errlen);
    enable(CUPTI_ACTIVITY_KIND_MARKER, false, err, errlen);
    enable(CUPTI_ACTIVITY_KIND_CONTEXT, false, err, errlen);

    /* 5. flusher; from now on this collector answers the ring set's stop requests */
    C.stop_flag = false;
    C.stop_seen = 0;
    RingSet_collectorJoin(set);
    int rc = pthread_create(&C.flusher, NULL, flusher_main, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the CUPTI flusher thread: %s", strerror(rc));
        RingSet_collectorLeave(set);
        goto fail;
    }
    C.flusher_started = true;
    C.pid = getpid();
    atomic_store(&C.running, true);
    if (!C.atexit_registered) {
        atexit(at_exit);
        C.atexit_registered = true;
    }
    return true;
fail:
    teardown();
    pthread_mutex_lock(&C.tr_mu);
    CuptiTr_free(C.tr);
    C.tr = NULL;
    pthread_mutex_unlock(&C.tr_mu);
    return false;
}

void Cupti_stop(void) {
    if (!owner() || !atomic_exchange(&C.running, false)) return;
    if (C.flusher_started) {
        pthread_mutex_lock(&C.stop_mu);
        C.stop_flag = true;
        pthread_cond_signal(&C.stop_cv);
        pthread_mutex_unlock(&C.stop_mu);
        pthread_join(C.flusher, NULL);
        C.flusher_started = false;
    }
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    teardown();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    /* a request the flusher had no time to answer: everything is flushed now */
    if (RingSet_stopRequested(C.set, &C.stop_seen)) RingSet_stopAck(C.set, events_sent());
    RingSet_collectorLeave(C.set);
    /* The translator stays (stats); the pool stays too: CUPTI may still hold a buffer
     * it never completed, and freeing it under CUPTI would be worse than the leak. */
}

bool Cupti_running(void) { return atomic_load(&C.running) && owner(); }

bool Cupti_markCommStream(void *stream) {
    if (!C.tr) return false;
    CUcontext ctx = NULL;
    /* The stream's context is the calling thread's current one (the workload creates its
     * streams there). The driver is loaded by now; no link-time dependency on it. */
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return false;
    typedef int (*CtxGetCurrent)(CUcontext *);
    CtxGetCurrent get;
    *(void **)&get = dlsym(h, "cuCtxGetCurrent");
    bool ok = get && get(&ctx) == 0 && ctx;
    dlclose(h);
    if (!ok) return false;
    uint32_t sid = 0, dev = 0;
    if (cuptiGetStreamIdEx(ctx, (CUstream)stream, 0, &sid) != CUPTI_SUCCESS) return false;
    if (cuptiGetDeviceId(ctx, &dev) != CUPTI_SUCCESS) return false;
    pthread_mutex_lock(&C.tr_mu);
    CuptiTr_markCommStream(C.tr, dev, sid);
    pthread_mutex_unlock(&C.tr_mu);
    return true;
}

CuptiTrStats Cupti_stats(void) {
    CuptiTrStats st;
    memset(&st, 0, sizeof st);
    pthread_mutex_lock(&C.tr_mu);
    if (C.tr) st = CuptiTr_stats(C.tr);
    pthread_mutex_unlock(&C.tr_mu);
    return st;
}

uint64_t Cupti_poolMisses(void) { return atomic_load(&C.pool_misses); }

int Cupti_buffersAllocated(void) {
    pthread_mutex_lock(&C.pool_mu);
    int n = C.pool ? C.cfg.n_buffers + C.n_extra : 0;
    pthread_mutex_unlock(&C.pool_mu);
    return n;
}

const char *Cupti_libraryPath(bool set_env) {
    static char path[4096];
    Dl_info info;
    if (!path[0] && dladdr((void *)cuptiSubscribe_v2, &info) && info.dli_fname && info.dli_fname[0] == '/')
        snprintf(path, sizeof path, "%s", info.dli_fname);
    if (!path[0]) return NULL;
    if (set_env && !getenv("NVTX_INJECTION64_PATH")) setenv("NVTX_INJECTION64_PATH", path, 0);
    return path;
}
