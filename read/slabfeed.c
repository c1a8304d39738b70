#include "slabfeed.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ovtrace/read/jsonscan.h"
#include "ovtrace/base/alloc.h"

/* A slice starts within this many bytes of its slab's start, or the slab has none (its
 * bytes then belong to the previous slice, which the main parser finishes). */
#define SLAB_HEAD_MAX (1u << 20)
#define NO_GUESS SIZE_MAX

enum { SLAB_FILLING, SLAB_FILLED, SLAB_PUBLISHED, SLAB_PARSING, SLAB_PARSED };

typedef struct {
    char *mem;     /* own bytes, then the next slab's head up to its guess (inclusive) */
    size_t own;    /* bytes of this slab's stream range [off, off + own) */
    size_t len;    /* own + the appended head */
    uint64_t off;
    size_t guess;  /* index in mem of the first-element guess, or NO_GUESS */
    size_t stop;   /* index in mem of the next slab's guess, or NO_GUESS */
    int state;
    bool last;     /* the stream ends with this slab */
    bool error;    /* ... because it is corrupt there */
    bool dropped;  /* the main parser passed its guess: the result is not wanted */
    void *result;
    atomic_int abort;
    uint64_t comp_off; /* compressed bytes consumed once it was filled */
} Slab;

struct SlabFeed {
    Input *in;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* every state change; few threads wait, so one broadcast suffices */
    Slab **slabs;      /* slab k at index k */
    size_t n_slabs, cap, max_live;
    size_t mem_first;  /* slabs below this have given their memory back */
    char **spare;      /* memory of reclaimed slabs, for new ones */
    size_t n_spare, cap_spare;
    size_t next_work;  /* next slab for a worker */
    size_t next_take;  /* next slab whose slice the main parser may take */
    size_t feed_slab;  /* slab holding the feed position */
    uint64_t feed_off;
    uint64_t hint;     /* main only: no slice can start below this offset (fast path) */
    _Atomic uint64_t comp_off;
    bool reader_done, stop;
    size_t slab_bytes, head_max;
    SlabParseFn fn;
    void *ctx;
    void (*free_result)(void *);
    pthread_t reader;
    pthread_t *workers;
    int n_workers;
    bool reader_started;
};

/* Slab memory is mapped, not malloc'd (glibc would keep freed multi-MB blocks in its
 * arenas: the mmap threshold adapts upwards, and the model's resident memory would grow
 * by a few slabs after the load), and recycled: at most max_live buffers exist, and
 * fresh pages would cost a fault per 4 kB. Caller holds mu. */
static char *slab_mem(SlabFeed *f) {
    if (f->n_spare) return f->spare[--f->n_spare];
    size_t n = f->slab_bytes + f->head_max + 1;
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) xalloc_fail(n);
    return p;
}

static void slab_mem_unmap(SlabFeed *f, char *mem) {
    if (mem) munmap(mem, f->slab_bytes + f->head_max + 1);
}

/* Gives back the memory of slabs the main parser has read past and no worker needs.
 * Their results stay until taken or dropped: the main parser may still be behind them.
 * Caller holds mu. */
static void reclaim(SlabFeed *f) {
    bool freed = false;
    while (f->mem_first < f->feed_slab && f->slabs[f->mem_first]->state == SLAB_PARSED) {
        Slab *s = f->slabs[f->mem_first++];
        GROW(f->spare, f->cap_spare, f->n_spare + 1);
        f->spare[f->n_spare++] = s->mem;
        s->mem = NULL;
        freed = true;
    }
    if (freed) pthread_cond_broadcast(&f->cv);
}

static void *reader_main(void *arg) {
    SlabFeed *f = arg;
    uint64_t off = 0;
    for (;;) {
        pthread_mutex_lock(&f->mu);
        while (!f->stop && f->n_slabs - f->mem_first >= f->max_live) pthread_cond_wait(&f->cv, &f->mu);
        if (f->stop) {
            f->reader_done = true;
            pthread_cond_broadcast(&f->cv);
            pthread_mutex_unlock(&f->mu);
            return NULL;
        }
        Slab *s = xcalloc(1, sizeof *s);
        s->mem = slab_mem(f);
        s->off = off;
        s->guess = s->stop = NO_GUESS;
        GROW(f->slabs, f->cap, f->n_slabs + 1);
        f->slabs[f->n_slabs++] = s;
        pthread_mutex_unlock(&f->mu);

        /* the slab is ours until FILLED; nobody else reads the Input */
        size_t got = 0;
        ssize_t r = 1;
        while (got < f->slab_bytes && (r = Input_read(f->in, s->mem + got, f->slab_bytes - got)) > 0)
            got += (size_t)r;
        s->own = s->len = got;
        s->last = got < f->slab_bytes;
        s->error = r < 0;
        const char *g = Js_guessElement(s->mem, s->mem + (got < f->head_max ? got : f->head_max));
        if (g) s->guess = (size_t)(g - s->mem);
        off += got;

        pthread_mutex_lock(&f->mu);
        s->state = SLAB_FILLED;
        s->comp_off = Input_fileOffset(f->in);
        size_t k = f->n_slabs - 1;
        if (k > 0) { /* the previous slice now knows where it ends */
            Slab *prev = f->slabs[k - 1];
            if (s->guess != NO_GUESS) {
                memcpy(prev->mem + prev->own, s->mem, s->guess + 1);
                prev->len = prev->own + s->guess + 1;
                prev->stop = prev->own + s->guess;
            }
            prev->state = SLAB_PUBLISHED;
        }
        if (s->last) {
            s->state = SLAB_PUBLISHED;
            f->reader_done = true;
        }
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
        if (s->last) return NULL;
    }
}

static void *worker_main(void *arg) {
    SlabFeed *f = arg;
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while (!f->stop && !(f->next_work < f->n_slabs && f->slabs[f->next_work]->state >= SLAB_PUBLISHED) &&
               !(f->reader_done && f->next_work >= f->n_slabs))
            pthread_cond_wait(&f->cv, &f->mu);
        if (f->stop || f->next_work >= f->n_slabs) break;
        Slab *s = f->slabs[f->next_work++];
        if (s->guess == NO_GUESS || atomic_load(&s->abort)) {
            s->state = SLAB_PARSED;
            pthread_cond_broadcast(&f->cv);
            continue;
        }
        s->state = SLAB_PARSING;
        pthread_mutex_unlock(&f->mu);
        SlabSlice sl = {s->mem, s->len, s->off, s->mem + s->guess, s->stop == NO_GUESS ? NULL : s->mem + s->stop,
                        &s->abort};
        void *r = f->fn(f->ctx, &sl);
        pthread_mutex_lock(&f->mu);
        if (s->dropped && r && f->free_result) f->free_result(r);
        else s->result = r;
        s->state = SLAB_PARSED;
        pthread_cond_broadcast(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

SlabFeed *SlabFeed_start(Input *in, int workers, size_t slab_bytes, SlabParseFn fn, void *ctx,
                         void (*free_result)(void *)) {
    SlabFeed *f = xcalloc(1, sizeof *f);
    f->in = in;
    f->slab_bytes = slab_bytes < 16 ? 16 : slab_bytes;
    f->head_max = f->slab_bytes < SLAB_HEAD_MAX ? f->slab_bytes : SLAB_HEAD_MAX;
    f->fn = fn;
    f->ctx = ctx;
    f->free_result = free_result;
    if (workers < 1) workers = 1;
    /* the slab being fed, one per worker in flight and one finished ahead of each, and
     * the one being filled */
    f->max_live = 2 * (size_t)workers + 2;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    if (pthread_create(&f->reader, NULL, reader_main, f) != 0) {
        SlabFeed_stop(f);
        return NULL;
    }
    f->reader_started = true;
    f->workers = xcalloc((size_t)workers, sizeof *f->workers);
    for (; f->n_workers < workers; f->n_workers++)
        if (pthread_create(&f->workers[f->n_workers], NULL, worker_main, f) != 0) break;
    if (f->n_workers == 0) {
        SlabFeed_stop(f);
        return NULL;
    }
    return f;
}

/* Moves feed_slab to the slab holding the feed position, as far as slabs are filled,
 * so that the ones before can be reclaimed. Caller holds mu. */
static void advance(SlabFeed *f) {
    while (f->feed_slab < f->n_slabs) {
        Slab *s = f->slabs[f->feed_slab];
        if (s->state < SLAB_FILLED || s->last || f->feed_off < s->off + s->own) break;
        f->feed_slab++;
        atomic_store_explicit(&f->comp_off, s->comp_off, memory_order_relaxed);
    }
    reclaim(f);
}

ssize_t SlabFeed_read(SlabFeed *f, char *dst, size_t n) {
    size_t got = 0;
    pthread_mutex_lock(&f->mu);
    while (got < n) {
        while (f->feed_slab >= f->n_slabs || f->slabs[f->feed_slab]->state < SLAB_FILLED) {
            if (f->reader_done && f->feed_slab >= f->n_slabs) goto out; /* stopped early */
            reclaim(f);
            pthread_cond_wait(&f->cv, &f->mu);
        }
        Slab *s = f->slabs[f->feed_slab];
        uint64_t end = s->off + s->own;
        if (f->feed_off >= end) {
            if (s->last) {
                if (s->error && got == 0) got = (size_t)-1;
                break;
            }
            advance(f);
            if (got) break; /* let the parser use this slab before waiting for the next */
            continue;
        }
        size_t k = (size_t)(end - f->feed_off);
        if (k > n - got) k = n - got;
        const char *src = s->mem + (f->feed_off - s->off);
        pthread_mutex_unlock(&f->mu); /* own bytes never change once FILLED; only we free */
        memcpy(dst + got, src, k);
        pthread_mutex_lock(&f->mu);
        got += k;
        f->feed_off += k;
    }
out:
    pthread_mutex_unlock(&f->mu);
    return got == (size_t)-1 ? -1 : (ssize_t)got;
}

void *SlabFeed_take(SlabFeed *f, uint64_t off) {
    if (off < f->hint) return NULL;
    void *r = NULL;
    pthread_mutex_lock(&f->mu);
    uint64_t hint = 0;
    for (;;) {
        if (f->next_take >= f->n_slabs) { /* the next slab starts where the last ends */
            Slab *last = f->n_slabs ? f->slabs[f->n_slabs - 1] : NULL;
            hint = f->reader_done ? UINT64_MAX : !last ? 0 : last->state >= SLAB_FILLED ? last->off + last->own : last->off;
            break;
        }
        Slab *s = f->slabs[f->next_take];
        if (s->state < SLAB_FILLED) { /* starts at or past the feed position, so past off */
            hint = s->off;
            break;
        }
        uint64_t g = s->guess == NO_GUESS ? 0 : s->off + s->guess;
        if (s->guess == NO_GUESS || g < off) { /* no slice, or a wrong guess */
            s->dropped = true;
            atomic_store(&s->abort, 1);
            if (s->result && f->free_result) f->free_result(s->result);
            s->result = NULL;
            f->next_take++;
            continue;
        }
        if (g > off) {
            hint = g;
            break;
        }
        while (s->state != SLAB_PARSED) {
            reclaim(f);
            pthread_cond_wait(&f->cv, &f->mu);
        }
        r = s->result;
        s->result = NULL;
        f->next_take++;
        break; /* hint 0: recomputed on the next call */
    }
    f->hint = hint;
    reclaim(f);
    pthread_mutex_unlock(&f->mu);
    return r;
}

void SlabFeed_seek(SlabFeed *f, uint64_t off) {
    pthread_mutex_lock(&f->mu);
    if (off > f->feed_off) f->feed_off = off;
    advance(f); /* else a take waiting for this slab's slice would wait for itself */
    pthread_mutex_unlock(&f->mu);
}

uint64_t SlabFeed_compressedOffset(SlabFeed *f) {
    return atomic_load_explicit(&f->comp_off, memory_order_relaxed);
}

void SlabFeed_stop(SlabFeed *f) {
    if (!f) return;
    pthread_mutex_lock(&f->mu);
    f->stop = true;
    for (size_t k = 0; k < f->n_slabs; k++) atomic_store(&f->slabs[k]->abort, 1);
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    if (f->reader_started) pthread_join(f->reader, NULL);
    for (int i = 0; i < f->n_workers; i++) pthread_join(f->workers[i], NULL);
    for (size_t k = 0; k < f->n_slabs; k++) {
        Slab *s = f->slabs[k];
        if (s->result && f->free_result) f->free_result(s->result);
        slab_mem_unmap(f, s->mem);
        free(s);
    }
    for (size_t i = 0; i < f->n_spare; i++) slab_mem_unmap(f, f->spare[i]);
    free(f->spare);
    free(f->slabs);
    free(f->workers);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    free(f);
}
