/* The terminal loop engine and its users (mainloop.h). */
#include "mainloop.h"

#include <stdio.h>
#include <time.h>

#include "ovtrace/base/clock.h"
#include "app.h"
#include "crt.h"
#include "loading.h"
#include "feature.h"

void Mainloop_run(const Mainloop *m) {
    Grid g;
    int w, h;
    Crt_size(&w, &h);
    Grid_init(&g, w, h);
    bool full = true;
    while (!m->done(m->ctx)) {
        Crt_size(&w, &h);
        if (w != g.w || h != g.h) {
            Grid_resize(&g, w, h);
            full = true;
        }
        if (m->frame(m->ctx, &g)) full = true;
        Crt_paint(&g, full);
        if (m->painted) m->painted(m->ctx, full);
        full = false;
        int wait = m->wait_ms(m->ctx);
        if (wait < 0) {
            struct timespec ts = {-wait / 1000, (long)(-wait % 1000) * 1000000};
            nanosleep(&ts, NULL);
            continue;
        }
        TuiKey k;
        if (!Crt_readKey(&k, wait)) continue;
        /* handle everything already typed before drawing again */
        int n = 0;
        do {
            if (m->key(m->ctx, &k) & REDRAW_FULL) full = true;
        } while (!m->done(m->ctx) && ++n < m->batch && Crt_readKey(&k, 0));
    }
    Grid_free(&g);
}

/* ---- the timeline (view, live) ---- */

/* The timeline's turn: what the features' polls said last. */
typedef struct {
    App *a;
    unsigned polled; /* POLL_* */
} Timeline;

static bool app_done(void *ctx) { return ((Timeline *)ctx)->a->quit; }

static bool app_frame(void *ctx, Grid *g) {
    Timeline *tl = ctx;
    tl->polled = Features_poll(tl->a);
    App_sync(tl->a);
    App_render(tl->a, g);
    return tl->polled & POLL_REPAINT; /* e.g. the lazy overview's full model arrived */
}

static void app_painted(void *ctx, bool full) {
    (void)ctx;
    if (full) Loading_markFrame("timeline");
}

static unsigned app_key(void *ctx, const TuiKey *k) { return App_key(((Timeline *)ctx)->a, k); }

/* more data on its way (a live source, the lazy load): come back sooner */
static int app_wait(void *ctx) { return ((Timeline *)ctx)->polled & POLL_AGAIN ? 250 : 1000; }

int App_runInteractive(App *a, const TuiSource *src) {
    a->src = src;
    if (src) a->v.follow = true;
    if (!Crt_active()) { /* else: set up already (the loading screen ran first) */
        Caps caps = a->caps;
        if (!Crt_init(&caps)) return 1;
        a->caps = caps;
        a->gl = Glyphs_get(caps.unicode);
    }
    Timeline tl = {a, 0};
    Mainloop_run(&(Mainloop){.ctx = &tl,
                             .done = app_done,
                             .frame = app_frame,
                             .painted = app_painted,
                             .key = app_key,
                             .wait_ms = app_wait,
                             .batch = 64});
    int sig = Crt_signal();
    Crt_done();
    if (sig) return 128 + sig;
    return a->exit_code;
}

/* ---- headless (--dump --frames --keys) ---- */

/* Not the engine: no terminal, and a scripted key goes in before its frame (poll, key,
 * render), one per frame, so that every frame is deterministic. */
int App_runHeadless(App *a, const TuiSource *src, const TuiKey *keys, size_t nkeys, int frames, int w, int h,
                    bool dump, FILE *out) {
    a->src = src;
    if (src) a->v.follow = true;
    Grid g;
    Grid_init(&g, w, h);
    size_t total = (size_t)(frames > 0 ? frames : 1);
    if (total < nkeys + 1) total = nkeys + 1;
    for (size_t f = 0; f < total; f++) {
        Features_poll(a);
        if (f > 0 && f - 1 < nkeys) {
            const TuiKey *k = &keys[f - 1];
            if (k->code == TK_RESIZE && k->x > 0 && k->y > 0) Grid_resize(&g, k->x, k->y);
            App_key(a, k);
            if (a->quit) break;
        }
        App_sync(a);
        App_render(a, &g);
    }
    if (dump) Grid_dump(&g, out);
    Grid_free(&g);
    return a->exit_code;
}

/* ---- the loading screen ---- */

typedef struct {
    LoadJob *j;
    const Glyphs *gl;
    bool first, cancelling, preview;
    double cancel_at; /* Clock_monotonicS of the cancel */
    int rc;
} LoadingLoop;

/* Finished, or cancelled and the loader did not stop within the grace: a cancel never
 * waits for a step that does not poll it (LoadJob_running). */
static bool load_done(void *ctx) {
    LoadingLoop *l = ctx;
    if (LoadJob_finished(l->j)) return true;
    return l->cancelling && Clock_monotonicS() - l->cancel_at >= LOAD_CANCEL_GRACE_MS / 1000.0;
}

static bool load_frame(void *ctx, Grid *g) {
    LoadingLoop *l = ctx;
    LoadingView v;
    LoadWatch_snapshot(l->j->watch, &v);
    v.cancelling = l->cancelling;
    v.colors = l->j->caps.colors > 0;
    l->preview = Loading_render(g, &v, l->gl);
    return false;
}

static void load_painted(void *ctx, bool full) {
    LoadingLoop *l = ctx;
    (void)full;
    if (l->preview) Loading_markFrame("preview");
    if (l->first) {
        Loading_markFrame("first-frame");
        l->first = false;
        LoadJob_launch(l->j); /* on failure the job is finished with j->err set */
    }
}

/* keys are moot while cancelling: wait for the loader to notice */
static int load_wait(void *ctx) { return ((LoadingLoop *)ctx)->cancelling ? -20 : 50; }

static unsigned load_key(void *ctx, const TuiKey *k) {
    LoadingLoop *l = ctx;
    if (k->code == TK_INTERRUPT) {
        l->rc = 128 + Crt_signal();
        l->cancelling = true;
    } else if (k->code == 'q' || k->code == 'Q' || k->code == TK_ESC || k->code == 3) {
        l->rc = -1;
        l->cancelling = true;
    } else if (k->code == TK_RESIZE || k->code == TK_CTRL_L) {
        return REDRAW_FULL;
    }
    if (l->cancelling && !l->cancel_at) {
        l->cancel_at = Clock_monotonicS();
        LoadJob_cancel(l->j);
    }
    return REDRAW_NONE;
}

int LoadJob_runScreen(LoadJob *j) {
    LoadingLoop l = {.j = j, .gl = Glyphs_get(j->caps.unicode), .first = true};
    Mainloop_run(&(Mainloop){.ctx = &l, .done = load_done, .frame = load_frame, .painted = load_painted,
                             .key = load_key, .wait_ms = load_wait, .batch = 1});
    if (LoadJob_finished(j)) LoadJob_join(j);
    return l.rc;
}
