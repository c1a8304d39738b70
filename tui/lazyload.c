/* Lazy rank overview. With many rank files the viewer first loads only their GPU lanes
 * (LoadOptions.gpu_only: everything the overview draws and counts), shows the overview,
 * and loads the full model (CPU ops, runtime calls, flows, counters) on a background
 * thread at low priority. Between frames the full model is swapped in, with its
 * collectives already matched, keeping the overview or the expanded rank. Until then
 * whatever needs CPU events says "loading" instead of showing partial data. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/file.h"
#include "ovtrace/analysis/collectives.h"
#include "app.h"
#include "collview.h"
#include "overview.h"
#include "feature.h"
#include "lazyload.h"

#define LAZY_MIN_BYTES (64ull << 20)

typedef struct LazyLoad {
    int delay_ms; /* view --debug-lazy-delay-ms */
    int stall_ms; /* view --debug-lazy-stall-ms */
    char **paths;
    size_t n_paths;
    LoadOptions opt;
    CollOptions coll_opt; /* the App's */
    pthread_t th;
    bool started;
    atomic_int cancel;
    _Atomic uint64_t done_bytes; /* over all files, for the percentage */
    uint64_t total_bytes;
    const char *cur_path; /* the loading thread's: the file being read */
    uint64_t cur_done, before;
    atomic_bool finished;
    Trace *full; /* the result, with what the swap installs */
    CollReport *coll;
    char err[1024];
    Trace *owned; /* the model the App shows (GPU-only, then full); NULL: no lazy load */
    bool swapped;
    bool failed; /* UI thread: the full load failed (err says why) */
    char what[64]; /* what is loading, for the title: "CPU lanes", "rank 3's trace" */
    LoadOptions file_opt; /* LazyLoad_setOptions: for LazyLoad_openFile */
    bool have_file_opt;
} LazyLoad;

/* Trace files and their bytes, a directory counting its trace files (as Load_files
 * expands it). */
static size_t count_inputs(const char *const *paths, size_t n, uint64_t *bytes) {
    size_t files = 0;
    *bytes = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) continue;
        if (!S_ISDIR(st.st_mode)) {
            files++;
            *bytes += (uint64_t)st.st_size;
            continue;
        }
        size_t k;
        char **list = Dir_traceFiles(paths[i], &k);
        if (!list) continue;
        for (size_t j = 0; j < k; j++)
            if (stat(list[j], &st) == 0 && S_ISREG(st.st_mode)) files++, *bytes += (uint64_t)st.st_size;
        Dir_freeList(list, k);
    }
    return files;
}

bool LazyLoad_wanted(const char *const *paths, size_t n, int mode) {
    if (mode == 0) return false;
    uint64_t bytes;
    size_t files = count_inputs(paths, n, &bytes);
    if (files < OVERVIEW_MIN_RANKS) return false; /* no overview to open on */
    return mode == 1 || bytes >= LAZY_MIN_BYTES;
}

static void on_progress(void *ctx, const char *path, uint64_t done, uint64_t total, size_t events) {
    (void)total;
    (void)events;
    LazyLoad *l = ctx;
    if (path != l->cur_path) { /* a new file: the last one counts whole */
        if (l->cur_path) l->before += l->cur_done;
        l->cur_path = path;
        l->cur_done = 0;
    }
    l->cur_done = done;
    atomic_store(&l->done_bytes, l->before + done);
}

/* Ranks in more than one source: the collectives view has something to match (as in
 * tui/collview.c). */
static bool several_ranks(const Trace *t) {
    for (size_t i = 1; i < t->n_sources; i++)
        if (t->sources[i].rank != t->sources[0].rank) return true;
    return false;
}

static void *lazy_main(void *arg) {
    LazyLoad *l = arg;
    /* the viewer is already usable: the full load takes what the UI leaves (threads the
     * loader starts inherit this) */
    setpriority(PRIO_PROCESS, (id_t)gettid(), 10);
    if (l->delay_ms > 0) { /* view --debug-lazy-delay-ms: e2e tests see the loading state */
        long ms = l->delay_ms;
        for (long i = 0; i < ms / 10 && !l->cancel; i++) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    Trace *t = l->cancel ? NULL : Load_files((const char *const *)l->paths, l->n_paths, &l->opt, l->err, sizeof l->err);
    if (l->stall_ms > 0) /* view --debug-lazy-stall-ms: a step that does not poll the cancel request */
        nanosleep(&(struct timespec){l->stall_ms / 1000, (long)(l->stall_ms % 1000) * 1000000}, NULL);
    if (t && several_ranks(t) && !l->cancel) { /* matched here, not on the UI thread at the swap */
        l->coll = Coll_analyze(t, &l->coll_opt);
    }
    l->full = t;
    atomic_store(&l->finished, true);
    return NULL;
}

extern const Feature LazyLoad_feature;

void LazyLoad_start(App *a, const char *const *paths, size_t n, const LoadOptions *opt, int delay_ms, int stall_ms) {
    LazyLoad *l = Feature_state(a, &LazyLoad_feature);
    l->delay_ms = delay_ms;
    l->stall_ms = stall_ms;
    l->paths = xcalloc(n ? n : 1, sizeof *l->paths);
    for (size_t i = 0; i < n; i++)
        l->paths[i] = xstrdup(paths[i]);
    l->n_paths = n;
    l->opt = *opt;
    l->opt.gpu_only = false;
    l->opt.progress = on_progress;
    l->opt.progress_ctx = l;
    l->opt.observe = NULL;
    l->opt.cancel = &l->cancel;
    const CollOptions *co = CollView_options(a);
    l->coll_opt = co ? *co : CollOptions_default();
    count_inputs(paths, n, &l->total_bytes);
    if (!l->what[0]) snprintf(l->what, sizeof l->what, "CPU lanes");
    l->owned = a->t;
    if (pthread_create(&l->th, NULL, lazy_main, l) == 0) {
        l->started = true;
    } else {
        snprintf(l->err, sizeof l->err, "cannot start the loading thread");
        atomic_store(&l->finished, true);
    }
}

bool LazyLoad_stop(App *a, int grace_ms) {
    LazyLoad *l = Feature_state(a, &LazyLoad_feature);
    l->cancel = 1;
    for (int waited = 0; l->started && !atomic_load(&l->finished); waited += 5) {
        if (waited >= grace_ms) return false;
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    return true;
}

bool LazyLoad_ownsModel(const App *a) { return ((const LazyLoad *)Feature_state(a, &LazyLoad_feature))->owned; }

void LazyLoad_setOptions(App *a, const LoadOptions *opt) {
    LazyLoad *l = Feature_state(a, &LazyLoad_feature);
    l->file_opt = *opt;
    l->have_file_opt = true;
}

bool LazyLoad_openFile(App *a, const char *path, const char *what) {
    LazyLoad *l = Feature_state(a, &LazyLoad_feature);
    if (l->owned) return false; /* one load per viewer: the model it replaces is its own */
    snprintf(l->what, sizeof l->what, "%s", what);
    LoadOptions opt = l->have_file_opt ? l->file_opt : (LoadOptions){0};
    LazyLoad_start(a, &path, 1, &opt, 0, 0);
    return true;
}

/* The full model is still on its way (the App's is GPU-only). */
static bool pending(const LazyLoad *l) { return l->owned && !l->swapped && !l->failed; }

/* The title's note: "CPU lanes loading 34%" or "CPU lanes not loaded: why". */
static const char *lz_title(const App *a, const void *st, char *buf, size_t n) {
    (void)a;
    const LazyLoad *l = st;
    if (!l->owned || l->swapped) return NULL;
    if (l->failed) {
        snprintf(buf, n, "%s not loaded: %.200s", l->what, l->err);
        return buf;
    }
    uint64_t done = atomic_load(&((LazyLoad *)l)->done_bytes);
    int pct = l->total_bytes ? (int)(done * 100 / l->total_bytes) : 0;
    if (pct > 99 || atomic_load(&((LazyLoad *)l)->finished)) pct = 99; /* building the timeline */
    snprintf(buf, n, "%s loading %d%%", l->what, pct);
    return buf;
}

/* The new model's group matching old group g (same rank, same kind, same device or pid). */
static uint32_t match_group(const Trace *nt, const Trace *ot, uint32_t g) {
    const Group *G = &ot->groups[g];
    for (uint32_t i = 0; i < nt->n_groups; i++) {
        const Group *H = &nt->groups[i];
        if (H->gpu == G->gpu && H->rank == G->rank && H->source == G->source && H->id == G->id) return i;
    }
    return UINT32_MAX;
}

/* What the user looks at, in the old model's groups: the fold of each group carried
 * over to the new model (keep), the one rank expanded if only one is. */
typedef struct {
    bool *keep;        /* per group of the new model: collapsed */
    uint32_t cur;      /* the new model's group of the selected line (UINT32_MAX: none) */
    size_t ranks_open; /* ranks with a GPU group expanded */
    int32_t open_rank;
} Folds;

static Folds folds_of(const App *a, const Trace *nt) {
    const Trace *old = a->t;
    Folds f = {xcalloc(nt->n_groups ? nt->n_groups : 1, sizeof(bool)), UINT32_MAX, 0, INT32_MIN};
    for (uint32_t i = 0; i < nt->n_groups; i++) f.keep[i] = !nt->groups[i].gpu; /* the default: CPU collapsed */
    for (uint32_t g = 0; g < old->n_groups; g++) {
        uint32_t m = match_group(nt, old, g);
        if (m != UINT32_MAX) f.keep[m] = a->collapsed[g];
        if (old->groups[g].gpu && !a->collapsed[g] && old->groups[g].rank != f.open_rank)
            f.ranks_open++, f.open_rank = old->groups[g].rank;
    }
    if (a->lines.n) f.cur = match_group(nt, old, a->lines.v[a->v.line].group);
    return f;
}

/* Installs nt with the old model's folds and selected group; when one rank was
 * expanded (Enter in the overview), its CPU lanes are what it waited for: shown. */
static void swap_in(App *a, Trace *nt) {
    Folds f = folds_of(a, nt);
    App_setTrace(a, nt);
    bool one = f.ranks_open == 1 && !Overview_on(a);
    for (uint32_t i = 0; i < nt->n_groups; i++)
        a->collapsed[i] = one && !nt->groups[i].gpu && nt->groups[i].rank == f.open_rank ? false : f.keep[i];
    free(f.keep);
    App_rebuildLines(a);
    size_t line = f.cur != UINT32_MAX ? Lines_findGroup(&a->lines, f.cur) : SIZE_MAX;
    if (Overview_on(a) && f.cur != UINT32_MAX)
        for (size_t i = 0; i < a->lines.n; i++)
            if (a->lines.v[i].group == f.cur) line = i;
    a->v.line = line != SIZE_MAX ? line : 0;
    View_scrollToLine(&a->v, a->lines.n);
    if (one) App_message(a, ROLE_GOOD, "all events loaded: rank %d's CPU lanes are shown", f.open_rank);
    else App_message(a, ROLE_GOOD, "all events loaded (CPU lanes, flows, counters)");
}

/* The first pass never looked at CPU events: the full load's warnings are news. */
static void say_warnings(App *a, const Trace *nt) {
    char *text = Load_warningsText(nt);
    if (!text) return;
    char *nl = strchr(text, '\n');
    if (nl) *nl = '\0';
    App_message(a, !strncmp(text, "warning", 7) ? ROLE_ERROR : ROLE_STATUS, "all events loaded; %.200s", text);
    free(text);
}

/* The loading thread ended: the full model swapped in with the collectives it matched,
 * or, when it failed, the GPU-only model kept and the title says why. */
static bool finish(App *a, LazyLoad *l) {
    if (l->started) {
        pthread_join(l->th, NULL);
        l->started = false;
    }
    if (!l->full) {
        if (!l->err[0]) snprintf(l->err, sizeof l->err, "cancelled");
        l->failed = true;
        App_message(a, ROLE_ERROR, "%s could not be loaded: %.200s", l->what, l->err);
        return false;
    }
    Trace *old = a->t, *nt = l->full;
    swap_in(a, nt);
    CollView_adopt(a, l->coll);
    l->coll = NULL;
    Trace_free(old);
    l->owned = nt;
    l->full = NULL;
    l->swapped = true;
    say_warnings(a, nt);
    return true;
}

/* Between frames: swaps the full model in when it is ready. */
static unsigned lz_poll(App *a, void *st) {
    LazyLoad *l = st;
    unsigned r = pending(l) && atomic_load(&l->finished) && finish(a, l) ? POLL_REPAINT : 0;
    return r | (pending(l) ? POLL_AGAIN : 0);
}

static void *lz_init(App *a) {
    (void)a;
    return xcalloc(1, sizeof(LazyLoad));
}

/* Cancels and joins the background load; frees the models it owns. */
static void lz_free(App *a, void *st) {
    (void)a;
    LazyLoad *l = st;
    l->cancel = 1;
    if (l->started) pthread_join(l->th, NULL);
    Trace_free(l->full);
    CollReport_free(l->coll);
    Trace_free(l->owned);
    for (size_t i = 0; i < l->n_paths; i++) free(l->paths[i]);
    free(l->paths);
    free(l);
}

const Feature LazyLoad_feature = {
    .name = "lazy load",
    .init = lz_init,
    .free = lz_free,
    .poll = lz_poll,
    .title = lz_title,
};
