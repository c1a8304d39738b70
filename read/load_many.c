/* Many trace files read at once: each worker thread takes the next file and reads it
 * whole, single-threaded, into a model of its own; this thread merges those models in
 * the order of the files (Trace_absorbFile), so the result is the one reading the files
 * one after another gives. A directory of rank files keeps every core busy to the last
 * file this way, where slicing each file stops at every file's end. */
#include "load_many.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/read/input.h"

typedef struct {
    const char *path;
    Trace *t; /* the file's model, until merged (or freed) */
    bool ok;
    char err[1024];
    /* the worker's progress on this file, for this thread to report */
    _Atomic uint64_t done, total;
    _Atomic size_t events;
    atomic_bool finished;
} FileSlot;

typedef struct {
    FileSlot *slot;
    size_t n;
    atomic_size_t next; /* the next file a worker takes */
    size_t merged;      /* files merged so far (under mu) */
    size_t ahead;       /* a worker reads at most this many files past the merged ones */
    atomic_int stop; /* a file before failed: the files not begun are not read */
    LoadOptions opt; /* each file's: one thread, progress into its slot, no observer */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a file finished */
} Many;

bool LoadMany_wanted(const char *const *paths, size_t n, int threads) {
    /* whole files share out evenly, or the last file's tail is short against the rest */
    if (threads < 2 || n < 2 * (size_t)threads || (n % (size_t)threads && n < 4 * (size_t)threads)) return false;
    uint64_t total = 0, largest = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!Input_canReopen(paths[i]) || stat(paths[i], &st) != 0 || Load_isSqlite(paths[i])) /* regular files */
            return false;
        total += (uint64_t)st.st_size;
        if ((uint64_t)st.st_size > largest) largest = (uint64_t)st.st_size;
    }
    /* one file that outweighs a thread's share is better cut into slices */
    return largest * (uint64_t)threads <= total;
}

static void slot_progress(void *ctx, const char *path, uint64_t done, uint64_t total, size_t events) {
    (void)path;
    FileSlot *s = ctx;
    atomic_store_explicit(&s->done, done, memory_order_relaxed);
    atomic_store_explicit(&s->total, total, memory_order_relaxed);
    atomic_store_explicit(&s->events, events, memory_order_relaxed);
}

static void *worker(void *arg) {
    Many *m = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&m->next, 1);
        if (i >= m->n) break;
        FileSlot *s = &m->slot[i];
        /* a slow file holds the merge up: the models read past it wait in memory, so
         * only so many are read ahead */
        pthread_mutex_lock(&m->mu);
        while (i >= m->merged + m->ahead && !atomic_load(&m->stop)) pthread_cond_wait(&m->cv, &m->mu);
        pthread_mutex_unlock(&m->mu);
        if (atomic_load(&m->stop)) { /* every file taken is answered: this thread may be waiting for it */
            snprintf(s->err, sizeof s->err, "%s: not read (a file before it failed)", s->path);
        } else {
            LoadOptions o = m->opt;
            o.progress_ctx = s;
            s->t = Trace_new();
            s->ok = Load_chromeFile(s->t, s->path, &o, s->err, sizeof s->err);
        }
        pthread_mutex_lock(&m->mu);
        atomic_store(&s->finished, true);
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
    }
    return NULL;
}

/* Waits for file i, reporting its progress every 50 ms. */
static void wait_file(Many *m, size_t i, const LoadOptions *opt, const Trace *t) {
    FileSlot *s = &m->slot[i];
    pthread_mutex_lock(&m->mu);
    while (!atomic_load(&s->finished)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000000;
        if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&m->cv, &m->mu, &until);
        if (atomic_load(&s->finished)) break;
        pthread_mutex_unlock(&m->mu);
        uint64_t total = atomic_load_explicit(&s->total, memory_order_relaxed);
        if (opt->progress && total)
            opt->progress(opt->progress_ctx, s->path, atomic_load_explicit(&s->done, memory_order_relaxed), total,
                          t->n_events + atomic_load_explicit(&s->events, memory_order_relaxed));
        pthread_mutex_lock(&m->mu);
    }
    pthread_mutex_unlock(&m->mu);
}

bool LoadMany_read(Trace *t, const char *const *paths, size_t n, const LoadOptions *opt, int threads, bool *started,
                   char *err, size_t errlen) {
    static const LoadOptions none = {0};
    if (!opt) opt = &none;
    Many m = {.n = n, .opt = *opt};
    m.slot = xcalloc(n ? n : 1, sizeof *m.slot);
    for (size_t i = 0; i < n; i++) m.slot[i].path = paths[i];
    m.opt.threads = 1;
    m.opt.progress = slot_progress;
    m.opt.observe = NULL;
    atomic_init(&m.next, 0);
    atomic_init(&m.stop, 0);
    pthread_mutex_init(&m.mu, NULL);
    pthread_cond_init(&m.cv, NULL);
    size_t nw = (size_t)threads < n ? (size_t)threads : n, running = 0;
    m.ahead = 2 * nw;
    pthread_t *th = xcalloc(nw ? nw : 1, sizeof *th);
    for (size_t k = 0; k < nw; k++)
        if (pthread_create(&th[running], NULL, worker, &m) == 0) running++;
    *started = running > 0;
    bool ok = running > 0;
    for (size_t i = 0; ok && i < n; i++) {
        wait_file(&m, i, opt, t);
        FileSlot *s = &m.slot[i];
        if (!s->ok) {
            snprintf(err, errlen, "%s", s->err);
            ok = false;
            break;
        }
        Trace_absorbFile(t, s->t);
        Trace_free(s->t);
        s->t = NULL;
        t->parallel_files++;
        pthread_mutex_lock(&m.mu);
        m.merged = i + 1;
        pthread_cond_broadcast(&m.cv);
        pthread_mutex_unlock(&m.mu);
        /* a file's last report comes at its end, with every event so far (as Load_chromeFile's) */
        uint64_t total = atomic_load(&s->total);
        if (opt->progress) opt->progress(opt->progress_ctx, s->path, total, total, t->n_events);
        if (opt->observe) opt->observe(opt->observe_ctx, t);
    }
    pthread_mutex_lock(&m.mu);
    atomic_store(&m.stop, 1); /* workers read no more files: nothing after a failure is used */
    pthread_cond_broadcast(&m.cv);
    pthread_mutex_unlock(&m.mu);
    for (size_t k = 0; k < running; k++) pthread_join(th[k], NULL);
    for (size_t i = 0; i < n; i++) Trace_free(m.slot[i].t);
    free(th);
    free(m.slot);
    pthread_cond_destroy(&m.cv);
    pthread_mutex_destroy(&m.mu);
    return ok;
}
