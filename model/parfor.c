#include "ovtrace/model/parfor.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ovtrace/base/alloc.h"

typedef struct {
    const uint32_t *order;
    size_t n;
    ParForFn fn;
    void *ctx;
    _Atomic size_t next;
} ParFor;

static void *worker(void *arg) {
    ParFor *P = arg;
    ParScratch scratch = {0};
    for (;;) {
        size_t k = atomic_fetch_add(&P->next, 1);
        if (k >= P->n) break;
        P->fn(P->ctx, P->order[k], &scratch);
    }
    free(scratch.a);
    free(scratch.b);
    return NULL;
}

void ParFor_run(const uint32_t *order, size_t n, int threads, ParForFn fn, void *ctx) {
    ParFor P = {.order = order, .n = n, .fn = fn, .ctx = ctx};
    atomic_init(&P.next, 0);
    int extra = threads > 8 ? 7 : threads - 1;
    if (extra > 0 && (size_t)extra > n - 1) extra = n ? (int)(n - 1) : 0;
    pthread_t th[7];
    int started = 0;
    for (int i = 0; i < extra; i++) /* if a thread cannot start, the others do its share */
        if (pthread_create(&th[started], NULL, worker, &P) == 0) started++;
    worker(&P);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
}

size_t ParFor_chunkCount(size_t n, size_t min, int threads) {
    if (!min) min = PARFOR_CHUNK_MIN;
    if (threads < 2 || n < 2 * min) return 1;
    return threads > 8 ? 8 : (size_t)threads;
}

typedef struct {
    ParChunkFn fn;
    void *ctx;
    size_t n, chunk;
} Chunks;

static void chunk_item(void *ctx, uint32_t c, ParScratch *S) {
    (void)S;
    const Chunks *x = ctx;
    size_t a = (size_t)c * x->chunk < x->n ? (size_t)c * x->chunk : x->n;
    size_t b = x->n - a > x->chunk ? a + x->chunk : x->n;
    x->fn(x->ctx, c, a, b);
}

void ParFor_chunks(size_t n, size_t nc, ParChunkFn fn, void *ctx) {
    if (nc < 1) nc = 1;
    if (nc > 8) nc = 8;
    Chunks x = {fn, ctx, n, (n + nc - 1) / nc};
    uint32_t order[8];
    for (uint32_t c = 0; c < nc; c++) order[c] = c;
    ParFor_run(order, nc, (int)nc, chunk_item, &x);
}

static int cmp_larger(const void *a, const void *b, void *ctx) {
    const size_t *size = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (size[i] != size[j]) return size[i] > size[j] ? -1 : 1;
    return i < j ? -1 : 1;
}

uint32_t *ParFor_largestFirst(const size_t *size, size_t n) {
    uint32_t *order = xmalloc((n ? n : 1) * sizeof *order);
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    if (n > 1) qsort_r(order, n, sizeof *order, cmp_larger, (void *)size);
    return order;
}

static void *task_main(void *arg) {
    ParTask *task = arg;
    task->fn(task->ctx);
    return NULL;
}

void ParTask_start(ParTask *task, bool beside, void (*fn)(void *ctx), void *ctx) {
    *task = (ParTask){.fn = fn, .ctx = ctx};
    task->started = beside && pthread_create(&task->th, NULL, task_main, task) == 0;
}

void ParTask_join(ParTask *task) {
    if (task->started) pthread_join(task->th, NULL);
    else if (task->fn) task->fn(task->ctx);
    task->fn = NULL;
    task->started = false;
}
