/* Progressive load: progress collector, loading screen, background load thread. */
#include "loading.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/clock.h"
#include "ovtrace/base/file.h"
#include "app.h"
#include "crt.h"

/* Same as the loader's PROGRESS_EVERY: the last callback of a file comes within
 * this many bytes of its end. */
#define PROGRESS_STEP (8u << 20)

/* ---------- pure formatting and rendering ---------- */

int Loading_percent(uint64_t done, uint64_t total) {
    if (!total) return 0;
    if (done >= total) return 100;
    return (int)((double)done * 100.0 / (double)total);
}

double Loading_rate(const LoadingView *v) {
    double t = v->phase == LOAD_READING || v->phase == LOAD_STARTING ? v->elapsed : v->read_elapsed;
    if (t < 0.1 || v->done == 0) return 0;
    return (double)v->done / t;
}

double Loading_eta(const LoadingView *v) {
    double r = Loading_rate(v);
    if (r <= 0 || v->done < (1u << 20)) return -1;
    if (v->done >= v->total) return 0;
    return (double)(v->total - v->done) / r;
}

char *Loading_formatEta(char *buf, size_t n, double s) {
    if (!(s >= 0) || s > 1e7) snprintf(buf, n, "--");
    else if (s < 10) snprintf(buf, n, "%.1f s", s);
    else if (s < 60) snprintf(buf, n, "%d s", (int)(s + 0.5));
    else if (s < 3600) {
        int m = (int)(s + 0.5);
        snprintf(buf, n, "%dm%02ds", m / 60, m % 60);
    } else {
        int m = (int)(s / 60 + 0.5);
        snprintf(buf, n, "%dh%02dm", m / 60, m % 60);
    }
    return buf;
}

char *Loading_formatBytes(char *buf, size_t n, uint64_t b) {
    double d = (double)b;
    if (b < 1000) snprintf(buf, n, "%u B", (unsigned)b);
    else if (d < 1e6) snprintf(buf, n, "%.1f kB", d / 1e3);
    else if (d < 1e9) snprintf(buf, n, "%.1f MB", d / 1e6);
    else snprintf(buf, n, "%.2f GB", d / 1e9);
    return buf;
}

/* 1234567 -> "1,234,567" */
static char *format_count(char *buf, size_t n, size_t v) {
    char tmp[32];
    int len = snprintf(tmp, sizeof tmp, "%zu", v);
    size_t o = 0;
    for (int i = 0; i < len && o + 1 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0 && o + 2 < n) buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

static void render_bar(Grid *g, int x, int y, int w, uint64_t done, uint64_t total, const Glyphs *gl) {
    if (w < 3) return;
    int inner = w - 2;
    Grid_put(g, x, y, '[', ROLE_PANEL, 0);
    Grid_put(g, x + w - 1, y, ']', ROLE_PANEL, 0);
    /* eighths of the inner width */
    uint64_t eighths = total ? (uint64_t)((double)inner * 8.0 * (double)(done < total ? done : total) / (double)total)
                             : 0;
    for (int i = 0; i < inner; i++) {
        uint64_t cell0 = (uint64_t)i * 8;
        uint32_t ch;
        int role = ROLE_GOOD;
        if (eighths >= cell0 + 8) ch = gl->unicode ? gl->full : '#';
        else if (eighths > cell0 && gl->unicode) ch = gl->left[eighths - cell0];
        else {
            ch = gl->unicode ? 0x00b7 /* · */ : '.';
            role = ROLE_DIM;
        }
        Grid_put(g, x + 1 + i, y, ch, role, 0);
    }
}

char *Loading_stageText(char *buf, size_t n, const LoadingView *v) {
    char ev[32], ln[32], fp[32], el[32];
    format_count(ev, sizeof ev, v->events);
    format_count(ln, sizeof ln, v->lanes);
    format_count(fp, sizeof fp, v->flow_points);
    const char *what = NULL;
    int k = 0;
    if (v->cancelling) what = "cancelling...";
    else if (v->phase == LOAD_STARTING) what = "opening...";
    else if (v->phase == LOAD_READING) what = "reading events";
    else if (v->phase == LOAD_DONE) what = "done";
    else if (v->phase == LOAD_FAILED) what = "failed";
    if (what) {
        snprintf(buf, n, "%s", what);
        return buf;
    }
    switch (v->build) {
    case BUILD_WAITING: k = snprintf(buf, n, "parsing the last events"); break;
    case BUILD_LANES: k = snprintf(buf, n, "ordering %s lane%s", ln, v->lanes == 1 ? "" : "s"); break;
    case BUILD_SORT:
        k = snprintf(buf, n, "sorting %s events on %s lane%s into rows", ev, ln, v->lanes == 1 ? "" : "s");
        break;
    case BUILD_FLOWS: k = snprintf(buf, n, "binding %s flow point%s to events", fp, v->flow_points == 1 ? "" : "s"); break;
    case BUILD_CLASSIFY: k = snprintf(buf, n, "classifying event names (compute, communication, ...)"); break;
    case BUILD_SNAPSHOT: k = snprintf(buf, n, "saving a snapshot for the next open"); break;
    case BUILD_INDEX: k = snprintf(buf, n, "indexing the timeline and the overlap bands"); break;
    }
    if (k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " (%s)", Loading_formatEta(el, sizeof el, v->stage_elapsed));
    return buf;
}

static bool shows_preview(const Grid *g, const LoadingView *v) {
    return v->preview && v->preview->any && v->preview->n_lanes && g->h >= 16 && g->w >= 40;
}

bool Loading_render(Grid *g, const LoadingView *v, const Glyphs *gl) {
    Grid_clear(g);
    bool ascii = !gl->unicode;
    char sz[32], dn[32], tot[32], ev[32], eta[32], el[32], buf[512];
    Loading_formatBytes(tot, sizeof tot, v->total);
    /* title bar */
    Rect title = {0, 0, g->w, 1};
    Grid_fill(g, title, ' ', ROLE_TITLE, 0);
    const char *first = v->n_files ? v->names[0] : "";
    if (v->n_files > 1) snprintf(buf, sizeof buf, " ovtrace  loading %s +%zu", first, v->n_files - 1);
    else snprintf(buf, sizeof buf, " ovtrace  loading %s", first);
    Grid_textAscii(g, 0, 0, g->w, buf, ROLE_TITLE, ATTR_BOLD, ascii);

    int mx = g->w >= 40 ? 4 : 1;
    int cw = g->w - 2 * mx;
    if (cw > 100) cw = 100;
    /* with a preview to show, the progress block moves up to make room for it */
    bool preview = shows_preview(g, v);
    int y = preview ? 2 : g->h >= 16 ? g->h / 4 : 2;
    if (y < 2) y = 2;
    /* files */
    if (v->n_files == 1) {
        snprintf(buf, sizeof buf, "Loading %s  (%s)", first, Loading_formatBytes(sz, sizeof sz, v->sizes[0]));
        Grid_textAscii(g, mx, y++, cw, buf, ROLE_PANEL_TITLE, ATTR_BOLD, ascii);
    } else {
        snprintf(buf, sizeof buf, "Loading %zu files  (%s)", v->n_files, tot);
        Grid_textAscii(g, mx, y++, cw, buf, ROLE_PANEL_TITLE, ATTR_BOLD, ascii);
        size_t show = v->n_files <= 6 ? v->n_files : 5;
        size_t from = 0;
        if (v->current >= show) from = v->current - show + 1; /* keep the current file visible */
        for (size_t i = from; i < from + show && i < v->n_files; i++) {
            bool cur = i == v->current && v->phase == LOAD_READING;
            const char *mark = i < v->current || v->phase >= LOAD_BUILDING ? "done" : cur ? "  >" : "";
            snprintf(buf, sizeof buf, "%4s %-40s %10s", mark, v->names[i], Loading_formatBytes(sz, sizeof sz, v->sizes[i]));
            Grid_textAscii(g, mx, y++, cw, buf, cur ? ROLE_PANEL_KEY : ROLE_PANEL, cur ? ATTR_BOLD : 0, ascii);
        }
        if (from + show < v->n_files) {
            snprintf(buf, sizeof buf, "     ... %zu more", v->n_files - from - show);
            Grid_textAscii(g, mx, y++, cw, buf, ROLE_DIM, 0, ascii);
        }
    }
    y++;
    /* bar and percentage */
    int pct = Loading_percent(v->done, v->total);
    int bw = cw - 6;
    if (bw > 3) {
        render_bar(g, mx, y, bw, v->done, v->total, gl);
        Grid_printf(g, mx + bw + 1, y, 5, ROLE_PANEL_TITLE, ATTR_BOLD, "%3d%%", pct);
    } else {
        Grid_printf(g, mx, y, cw, ROLE_PANEL_TITLE, ATTR_BOLD, "%3d%%", pct);
    }
    y += 2;
    /* figures */
    double rate = Loading_rate(v);
    char rs[32];
    if (rate > 0) snprintf(rs, sizeof rs, "%.0f MB/s", rate / 1e6);
    else snprintf(rs, sizeof rs, "-- MB/s");
    /* once every byte is read, the time it took instead of an ETA of 0 */
    if (v->phase >= LOAD_BUILDING)
        snprintf(buf, sizeof buf, "%s / %s   %s events   %s   read in %s", Loading_formatBytes(dn, sizeof dn, v->done),
                 tot, format_count(ev, sizeof ev, v->events), rs, Loading_formatEta(eta, sizeof eta, v->read_elapsed));
    else
        snprintf(buf, sizeof buf, "%s / %s   %s events   %s   ETA %s", Loading_formatBytes(dn, sizeof dn, v->done),
                 tot, format_count(ev, sizeof ev, v->events), rs, Loading_formatEta(eta, sizeof eta, Loading_eta(v)));
    Grid_textAscii(g, mx, y++, cw, buf, ROLE_PANEL, 0, ascii);
    char stage[160];
    snprintf(buf, sizeof buf, "elapsed %s   %s", Loading_formatEta(el, sizeof el, v->elapsed),
             Loading_stageText(stage, sizeof stage, v));
    Grid_textAscii(g, mx, y++, cw, buf, v->cancelling ? ROLE_ERROR : ROLE_DIM, 0, ascii);
    y++;
    int drawn = preview ? Preview_render(g, (Rect){0, y, g->w, g->h - 1 - y}, v->preview, gl, v->colors) : 0;
    if (!drawn) Grid_textAscii(g, mx, y, cw, "The timeline opens when the load completes.", ROLE_DIM, 0, ascii);
    /* status bar */
    Rect st = {0, g->h - 1, g->w, 1};
    Grid_fill(g, st, ' ', ROLE_STATUS, 0);
    int x = Grid_text(g, 1, g->h - 1, g->w - 1, "q", ROLE_STATUS_KEY, ATTR_BOLD) + 1;
    Grid_text(g, x, g->h - 1, g->w - x, ":cancel (also Esc, Ctrl-C)", ROLE_STATUS, 0);
    return drawn > 0;
}

/* ---------- progress collector ---------- */

struct LoadWatch {
    pthread_mutex_t mu;
    size_t n;
    char **paths;       /* as Load_files names them */
    char **names;       /* base names */
    uint64_t *sizes;    /* stat sizes */
    uint64_t *cb_total; /* totals reported by the loader (0 until seen) */
    uint64_t *done;
    size_t cur;
    size_t events;
    LoadPhase phase;
    BuildStage build;
    size_t lanes, flow_points;
    double t0, t_read_end, t_last_cb, t_stage;
    long throttle_ms; /* view --debug-load-throttle-ms: sleep per report (e2e tests) */
    /* the preview has a lock of its own: an update of many lanes holds it long, and
     * the UI thread only tries it (a snapshot keeps the last copy when it is taken) */
    pthread_mutex_t pmu;
    PreviewModel *preview;       /* updated by the loading thread, under pmu */
    PreviewModel *preview_shown; /* the snapshotting thread's copy */
};

static void watch_add(LoadWatch *w, size_t *cap, const char *path) {
    GROW(w->paths, *cap, w->n + 1);
    w->paths[w->n++] = xstrdup(path);
}

LoadWatch *LoadWatch_new(const char *const *paths, size_t n) {
    LoadWatch *w = xcalloc(1, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    pthread_mutex_init(&w->pmu, NULL);
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        size_t k = 0;
        char **found = stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode) ? Dir_traceFiles(paths[i], &k) : NULL;
        if (!found) watch_add(w, &cap, paths[i]);
        for (size_t j = 0; j < k; j++) watch_add(w, &cap, found[j]);
        Dir_freeList(found, k);
    }
    size_t m = w->n ? w->n : 1;
    w->names = xcalloc(m, sizeof *w->names);
    w->sizes = xcalloc(m, sizeof *w->sizes);
    w->cb_total = xcalloc(m, sizeof *w->cb_total);
    w->done = xcalloc(m, sizeof *w->done);
    for (size_t i = 0; i < w->n; i++) {
        const char *b = strrchr(w->paths[i], '/');
        w->names[i] = xstrdup(b && b[1] ? b + 1 : w->paths[i]);
        struct stat st;
        if (stat(w->paths[i], &st) == 0) w->sizes[i] = (uint64_t)st.st_size;
    }
    w->phase = LOAD_STARTING;
    w->t0 = w->t_last_cb = Clock_monotonicS();
    return w;
}

void LoadWatch_setThrottleMs(LoadWatch *w, long ms) {
    if (w) w->throttle_ms = ms > 0 && ms <= 60000 ? ms : 0;
}

void LoadWatch_free(LoadWatch *w) {
    if (!w) return;
    for (size_t i = 0; i < w->n; i++) {
        free(w->paths[i]);
        free(w->names[i]);
    }
    free(w->paths);
    free(w->names);
    free(w->sizes);
    free(w->cb_total);
    free(w->done);
    Preview_free(w->preview);
    Preview_free(w->preview_shown);
    pthread_mutex_destroy(&w->mu);
    pthread_mutex_destroy(&w->pmu);
    free(w);
}

void LoadWatch_progress(void *ctx, const char *path, uint64_t done, uint64_t total, size_t events) {
    LoadWatch *w = ctx;
    pthread_mutex_lock(&w->mu);
    size_t i = w->cur;
    for (size_t k = 0; k < w->n; k++)
        if (!strcmp(w->paths[k], path)) {
            i = k;
            break;
        }
    if (i < w->n) {
        if (i > w->cur) {
            /* files are read in order: the earlier ones are complete */
            for (size_t k = 0; k < i; k++) w->done[k] = w->cb_total[k] ? w->cb_total[k] : w->sizes[k];
            w->cur = i;
        }
        if (total) w->cb_total[i] = total;
        if (done > w->done[i]) w->done[i] = done;
    }
    if (events > w->events) w->events = events;
    if (w->phase == LOAD_STARTING) w->phase = LOAD_READING;
    w->t_last_cb = Clock_monotonicS();
    pthread_mutex_unlock(&w->mu);
    if (w->throttle_ms) { /* slows the loading thread down, so tests can watch the screen */
        struct timespec ts = {w->throttle_ms / 1000, (w->throttle_ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
    }
}

void LoadWatch_enablePreview(LoadWatch *w, const CommRules *rules) {
    if (w->preview) return;
    w->preview = Preview_new(rules, 0);
    w->preview_shown = Preview_new(rules, 0);
}

void LoadWatch_observe(void *ctx, const Trace *partial) {
    LoadWatch *w = ctx;
    if (!w->preview) return;
    pthread_mutex_lock(&w->pmu);
    Preview_update(w->preview, partial);
    pthread_mutex_unlock(&w->pmu);
}

void LoadWatch_setPhase(LoadWatch *w, LoadPhase p) {
    pthread_mutex_lock(&w->mu);
    if (p >= LOAD_BUILDING && w->phase < LOAD_BUILDING) w->t_read_end = Clock_monotonicS();
    w->phase = p;
    pthread_mutex_unlock(&w->mu);
}

/* Under w->mu: the loader is past its bytes. */
static void enter_building(LoadWatch *w, double now) {
    if (w->phase < LOAD_BUILDING) {
        w->t_read_end = w->t_last_cb; /* the reading ended with the last report */
        w->phase = LOAD_BUILDING;
    }
    w->t_stage = now;
}

void LoadWatch_stage(void *ctx, LoadStage stage, size_t events, size_t lanes, size_t flow_points) {
    LoadWatch *w = ctx;
    double now = Clock_monotonicS();
    pthread_mutex_lock(&w->mu);
    enter_building(w, now);
    w->build = (BuildStage)(stage + 1);
    w->events = events; /* the model's: the last progress report may be a slice behind */
    w->lanes = lanes;
    w->flow_points = flow_points;
    pthread_mutex_unlock(&w->mu);
}

void LoadWatch_setBuild(LoadWatch *w, BuildStage b) {
    double now = Clock_monotonicS();
    pthread_mutex_lock(&w->mu);
    enter_building(w, now);
    w->build = b;
    pthread_mutex_unlock(&w->mu);
}

void LoadWatch_snapshot(LoadWatch *w, LoadingView *v) {
    double now = Clock_monotonicS();
    pthread_mutex_lock(&w->mu);
    *v = (LoadingView){0};
    v->n_files = w->n;
    v->names = (const char *const *)w->names;
    v->sizes = w->sizes;
    v->current = w->cur;
    v->events = w->events;
    v->phase = w->phase;
    v->build = w->build;
    v->lanes = w->lanes;
    v->flow_points = w->flow_points;
    v->stage_elapsed = w->phase == LOAD_BUILDING ? now - w->t_stage : 0;
    v->elapsed = now - w->t0;
    for (size_t i = 0; i < w->n; i++) {
        uint64_t tot = w->cb_total[i] ? w->cb_total[i] : w->sizes[i];
        v->total += tot;
        v->done += v->phase >= LOAD_BUILDING ? tot : w->done[i] < tot ? w->done[i] : tot;
    }
    /* The loader reports every 8 MB and says nothing while it finishes the model:
     * on the last file, within one step of the end and quiet for a while, it is building. */
    if (v->phase == LOAD_READING && w->n && w->cur == w->n - 1 && v->total - v->done <= PROGRESS_STEP &&
        now - w->t_last_cb > 0.25) {
        v->phase = LOAD_BUILDING;
        v->build = BUILD_WAITING;
        v->stage_elapsed = now - w->t_last_cb;
        v->done = v->total;
        v->read_elapsed = w->t_last_cb - w->t0;
    } else if (v->phase >= LOAD_BUILDING) {
        v->read_elapsed = w->t_read_end - w->t0;
    }
    pthread_mutex_unlock(&w->mu);
    if (w->preview) { /* copies only when the loader changed it, and never waits for it */
        if (pthread_mutex_trylock(&w->pmu) == 0) {
            Preview_copy(w->preview_shown, w->preview);
            pthread_mutex_unlock(&w->pmu);
        }
        v->preview = w->preview_shown;
    }
}

/* ---------- background job ---------- */

static void *job_main(void *arg) {
    LoadJob *j = arg;
    Trace *t = Load_files(j->paths, j->n_paths, &j->opt, j->err, sizeof j->err);
    if (t) {
        LoadWatch_setBuild(j->watch, BUILD_INDEX);
        /* builds the view index off the UI thread, the collectives matching beside it */
        j->app = j->coll_set ? App_newMatching(t, j->caps, j->title, j->coll) : App_new(t, j->caps, j->title);
        j->warnings = Load_warningsText(t);
        LoadWatch_setPhase(j->watch, LOAD_DONE);
    } else {
        LoadWatch_setPhase(j->watch, LOAD_FAILED);
    }
    atomic_store(&j->finished, true);
    return NULL;
}

void LoadJob_init(LoadJob *j, const char *const *paths, size_t n, const LoadOptions *opt, Caps caps,
                  const char *title) {
    memset(j, 0, sizeof *j);
    j->paths = paths;
    j->n_paths = n;
    if (opt) j->opt = *opt;
    j->caps = caps;
    snprintf(j->title, sizeof j->title, "%s", title ? title : "");
    j->watch = LoadWatch_new(paths, n);
    j->opt.progress = LoadWatch_progress;
    j->opt.progress_ctx = j->watch;
    j->opt.stage = LoadWatch_stage;
    j->opt.stage_ctx = j->watch;
    LoadWatch_enablePreview(j->watch, j->opt.rules); /* classified with the rules the model will use */
    j->opt.observe = LoadWatch_observe;
    j->opt.observe_ctx = j->watch;
    j->cancel = opt && opt->cancel ? *opt->cancel : 0; /* a caller may start it cancelled (tests) */
    j->opt.cancel = &j->cancel;
    atomic_init(&j->finished, false);
}

bool LoadJob_launch(LoadJob *j) {
    if (j->started || j->launch_failed) return j->started;
    if (pthread_create(&j->thread, NULL, job_main, j) != 0) {
        snprintf(j->err, sizeof j->err, "cannot start the loading thread");
        j->launch_failed = true;
        atomic_store(&j->finished, true);
        return false;
    }
    j->started = true;
    return true;
}

bool LoadJob_start(LoadJob *j, const char *const *paths, size_t n, const LoadOptions *opt, Caps caps,
                   const char *title) {
    LoadJob_init(j, paths, n, opt, caps, title);
    return LoadJob_launch(j);
}

bool LoadJob_finished(LoadJob *j) { return atomic_load(&j->finished); }

bool LoadJob_running(LoadJob *j) { return j->started && !atomic_load(&j->finished); }

void LoadJob_cancel(LoadJob *j) { j->cancel = 1; }

void LoadJob_join(LoadJob *j) {
    if (!j->started) return;
    pthread_join(j->thread, NULL);
    j->started = false;
}

void LoadJob_free(LoadJob *j) {
    LoadJob_join(j);
    LoadWatch_free(j->watch);
    j->watch = NULL;
    free(j->warnings);
    j->warnings = NULL;
}

LoadJob *LoadJob_new(const char *const *paths, size_t n, const LoadOptions *opt, Caps caps, const char *title) {
    LoadJob *j = xmalloc(sizeof *j);
    LoadJob_init(j, paths, n, opt, caps, title);
    return j;
}

void LoadJob_setThrottleMs(LoadJob *j, long ms) { LoadWatch_setThrottleMs(j->watch, ms); }

void LoadJob_setCollOptions(LoadJob *j, const CollOptions *opt) {
    j->coll = opt;
    j->coll_set = true;
}
App *LoadJob_app(const LoadJob *j) { return j->app; }
const char *LoadJob_error(const LoadJob *j) { return j->err; }
char *LoadJob_warnings(const LoadJob *j) { return j->warnings; }

void LoadJob_delete(LoadJob *j) {
    if (!j) return;
    LoadJob_free(j);
    free(j);
}

static const char *g_frame_log; /* view --debug-frame-log */

void Loading_setFrameLog(const char *path) { g_frame_log = path && *path ? path : NULL; }

void Loading_markFrame(const char *what) {
    static char marked[4][32];
    static int n_marked;
    const char *path = g_frame_log;
    if (!path) return;
    for (int i = 0; i < n_marked; i++)
        if (!strcmp(marked[i], what)) return;
    if (n_marked < 4) snprintf(marked[n_marked++], sizeof marked[0], "%s", what);
    int64_t ns = Clock_realtimeNs();
    FILE *f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%s %lld.%09lld\n", what, (long long)(ns / 1000000000), (long long)(ns % 1000000000));
    fclose(f);
}
