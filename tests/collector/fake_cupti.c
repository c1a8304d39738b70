/* A stand-in for libcupti: see fake_cupti.h. Only the calls collector/cupti_collector.c
 * makes; each behaves as CUPTI documents it, as far as the collector can tell. */
#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fake_cupti.h"

#define MAX_QUEUE 4096
#define MAX_CTX_THREADS 16

typedef struct {
    _Atomic int flushes, forced, foreign_calls, delivered, ctx_blocked;
    _Atomic int queued;        /* records waiting for a flush */
    _Atomic bool complete;
    _Atomic bool ts_fail;
    _Atomic size_t drops_once; /* reported by the next GetNumDroppedRecords */
    _Atomic uint64_t next_start;
    pid_t owner;
} Shared;

static Shared *S;
static CUpti_CallbackFunc g_cb;
static void *g_cb_data;
static CUpti_BuffersCallbackRequestFunc g_req;
static CUpti_BuffersCallbackCompleteFunc g_done;
static pthread_mutex_t flush_mu = PTHREAD_MUTEX_INITIALIZER; /* one flush at a time, as in CUPTI */
static pthread_t ctx_threads[MAX_CTX_THREADS];
static int n_ctx_threads;

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void touch(void) {
    if (!S) FakeCupti_reset();
    if (getpid() != S->owner) atomic_fetch_add(&S->foreign_calls, 1);
}

void FakeCupti_reset(void) {
    if (!S) {
        S = mmap(NULL, sizeof *S, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (S == MAP_FAILED) abort();
    }
    FakeCupti_quiesce();
    memset(S, 0, sizeof *S);
    S->owner = getpid();
    atomic_store(&S->next_start, 1000000);
}

FakeCuptiCounts FakeCupti_counts(void) {
    if (!S) FakeCupti_reset();
    return (FakeCuptiCounts){atomic_load(&S->flushes), atomic_load(&S->forced), atomic_load(&S->foreign_calls),
                             atomic_load(&S->delivered), atomic_load(&S->ctx_blocked)};
}

void FakeCupti_queueKernels(int n) {
    if (!S) FakeCupti_reset();
    int q = atomic_load(&S->queued) + n;
    atomic_store(&S->queued, q > MAX_QUEUE ? MAX_QUEUE : q);
}

void FakeCupti_setComplete(bool complete) {
    if (!S) FakeCupti_reset();
    atomic_store(&S->complete, complete);
}

void FakeCupti_failTimestamp(bool fail) {
    if (!S) FakeCupti_reset();
    atomic_store(&S->ts_fail, fail);
}

void FakeCupti_dropsWithContextCreation(size_t n) {
    if (!S) FakeCupti_reset();
    atomic_store(&S->drops_once, n);
}

void FakeCupti_quiesce(void) {
    for (int i = 0; i < n_ctx_threads; i++) pthread_join(ctx_threads[i], NULL);
    n_ctx_threads = 0;
}

/* ---- the CUPTI API ------------------------------------------------------------------------ */

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str) {
    *str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "fake CUPTI error";
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                       void *userdata, CUpti_SubscriberParams *params) {
    (void)params;
    touch();
    g_cb = callback;
    g_cb_data = userdata;
    *subscriber = (CUpti_SubscriberHandle)&g_cb;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
    (void)subscriber;
    touch();
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    (void)enable, (void)subscriber, (void)domain, (void)cbid;
    touch();
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type) {
    (void)type;
    touch();
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp) {
    touch();
    if (atomic_load(&S->ts_fail)) return CUPTI_ERROR_NOT_INITIALIZED;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *timestamp = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                                    CUpti_BuffersCallbackCompleteFunc done) {
    touch();
    g_req = req;
    g_done = done;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
    (void)kind;
    touch();
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
    (void)kind;
    touch();
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t *contextId) {
    (void)context;
    touch();
    *contextId = 1;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *deviceId) {
    (void)context;
    touch();
    *deviceId = 0;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t perThreadStream,
                                        uint32_t *streamId) {
    (void)context, (void)stream, (void)perThreadStream;
    touch();
    *streamId = 7;
    return CUPTI_SUCCESS;
}

/* Records are CUpti_ActivityKernel10s laid out back to back, 8-byte aligned. */
#define REC_SIZE ((sizeof(CUpti_ActivityKernel10) + 7) & ~(size_t)7)

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record) {
    uint8_t *next = *record ? (uint8_t *)*record + REC_SIZE : buffer;
    if (next + REC_SIZE > buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = (CUpti_Activity *)next;
    return CUPTI_SUCCESS;
}

/* Another thread creates a context: CUPTI calls the resource callback from it. */
static void *create_context(void *arg) {
    (void)arg;
    CUpti_ResourceData rd;
    memset(&rd, 0, sizeof rd);
    g_cb(g_cb_data, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &rd);
    return NULL;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId, size_t *dropped) {
    (void)context, (void)streamId;
    touch();
    *dropped = atomic_exchange(&S->drops_once, 0);
    if (!*dropped || !g_cb || n_ctx_threads == MAX_CTX_THREADS) return CUPTI_SUCCESS;
    /* CUPTI answers under its own lock, which a context creation holds while it calls the
     * resource callback: if that creation cannot finish now, the caller holds a lock the
     * callback needs, and real CUPTI would wait here forever. */
    pthread_t t;
    if (pthread_create(&t, NULL, create_context, NULL) != 0) return CUPTI_SUCCESS;
    ctx_threads[n_ctx_threads++] = t;
    int64_t deadline = mono_ns() + 500000000;
    while (pthread_tryjoin_np(t, NULL) != 0) {
        if (mono_ns() > deadline) {
            atomic_fetch_add(&S->ctx_blocked, 1);
            return CUPTI_SUCCESS; /* joined by FakeCupti_quiesce */
        }
        usleep(1000);
    }
    n_ctx_threads--;
    return CUPTI_SUCCESS;
}

/* One kernel record, 1 us long, 1 us after the previous one. */
static void put_kernel(uint8_t *dst, uint32_t correlation) {
    CUpti_ActivityKernel10 rec;
    memset(&rec, 0, sizeof rec);
    rec.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    rec.name = "fake_kernel";
    rec.contextId = 1;
    rec.streamId = 7;
    rec.correlationId = correlation;
    rec.start = atomic_fetch_add(&S->next_start, 2000);
    rec.end = rec.start + 1000;
    rec.gridX = rec.gridY = rec.gridZ = 1;
    rec.blockX = 256;
    memcpy(dst, &rec, sizeof rec);
}

static void deliver(int n) {
    while (n > 0) {
        uint8_t *buf = NULL;
        size_t size = 0, max_records = 0;
        g_req(&buf, &size, &max_records);
        if (!buf) return; /* CUPTI would count these as dropped */
        size_t fit = size / REC_SIZE, k = (size_t)n < fit ? (size_t)n : fit;
        for (size_t i = 0; i < k; i++)
            put_kernel(buf + i * REC_SIZE, (uint32_t)(atomic_load(&S->delivered) + (int)i + 1));
        atomic_fetch_add(&S->delivered, (int)k);
        n -= (int)k;
        g_done(NULL, 0, buf, size, k * REC_SIZE);
    }
}

#define MAX_HELD 4096
static uint8_t *held[MAX_HELD];
static size_t held_size[MAX_HELD];
static int n_held;

int FakeCupti_holdBuffers(int n) {
    int got = 0;
    for (int i = 0; i < n && n_held < MAX_HELD; i++) {
        uint8_t *buf = NULL;
        size_t size = 0, max_records = 0;
        g_req(&buf, &size, &max_records);
        if (!buf) continue;
        held[n_held] = buf;
        held_size[n_held++] = size;
        got++;
    }
    return got;
}

void FakeCupti_releaseHeld(void) {
    int n = n_held;
    n_held = 0;
    for (int i = 0; i < n; i++) {
        put_kernel(held[i], (uint32_t)(atomic_fetch_add(&S->delivered, 1) + 1));
        g_done(NULL, 0, held[i], held_size[i], REC_SIZE);
    }
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
    touch();
    if (!g_req || !g_done) return CUPTI_ERROR_INVALID_OPERATION;
    atomic_fetch_add(&S->flushes, 1);
    bool forced = (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0;
    if (forced) atomic_fetch_add(&S->forced, 1);
    pthread_mutex_lock(&flush_mu);
    if (forced || atomic_load(&S->complete)) deliver(atomic_exchange(&S->queued, 0));
    pthread_mutex_unlock(&flush_mu);
    return CUPTI_SUCCESS;
}
