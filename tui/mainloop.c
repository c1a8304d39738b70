/* The terminal loops: the timeline's (view and live), the headless one (scripted
 * keys, no terminal) and the loading screen's. */
#include <stdio.h>
#include <time.h>

#include "ovtrace/tui/app.h"
#include "ovtrace/tui/crt.h"
#include "ovtrace/tui/loading.h"

static void poll_source(App *a, const TuiSource *src) {
    if (src && a->v.frozen && a->all_pending) App_pollAll(a);
    if (!src || !src->poll || a->v.frozen) return;
    Trace *t = a->t;
    if (src->poll(src->ctx, &t) && t) App_setTrace(a, t);
}

int App_runInteractive(App *a, const TuiSource *src) {
    a->src = src;
    if (src) a->v.follow = true;
    if (!Crt_active()) { /* else: set up already (the loading screen ran first) */
        Caps caps = a->caps;
        if (!Crt_init(&caps)) return 1;
        a->caps = caps;
        a->gl = Glyphs_get(caps.unicode);
    }
    Grid g;
    int w, h;
    Crt_size(&w, &h);
    Grid_init(&g, w, h);
    bool full = true;
    while (!a->quit) {
        poll_source(a, src);
        Crt_size(&w, &h);
        if (w != g.w || h != g.h) {
            Grid_resize(&g, w, h);
            full = true;
        }
        App_sync(a);
        App_render(a, &g);
        Crt_paint(&g, full);
        if (full) Loading_markFrame("timeline");
        full = false;
        TuiKey k;
        if (!Crt_readKey(&k, src ? 250 : 1000)) continue;
        /* handle everything already typed before drawing again */
        int n = 0;
        do {
            unsigned r = App_key(a, &k);
            if (r & REDRAW_FULL) full = true;
        } while (!a->quit && ++n < 64 && Crt_readKey(&k, 0));
    }
    int sig = Crt_signal();
    Crt_done();
    Grid_free(&g);
    if (sig) return 128 + sig;
    return a->exit_code;
}

int App_runHeadless(App *a, const TuiSource *src, const TuiKey *keys, size_t nkeys, int frames, int w, int h,
                    bool dump, FILE *out) {
    a->src = src;
    if (src) a->v.follow = true;
    Grid g;
    Grid_init(&g, w, h);
    size_t total = (size_t)(frames > 0 ? frames : 1);
    if (total < nkeys + 1) total = nkeys + 1;
    for (size_t f = 0; f < total; f++) {
        poll_source(a, src);
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

int LoadJob_runScreen(LoadJob *j, const Glyphs *gl) {
    Grid g;
    int w, h;
    Crt_size(&w, &h);
    Grid_init(&g, w, h);
    bool full = true, first = true, cancelling = false;
    int rc = 0;
    while (!LoadJob_finished(j)) {
        Crt_size(&w, &h);
        if (w != g.w || h != g.h) {
            Grid_resize(&g, w, h);
            full = true;
        }
        LoadingView v;
        LoadWatch_snapshot(j->watch, &v);
        v.cancelling = cancelling;
        v.colors = j->caps.colors > 0;
        bool preview = Loading_render(&g, &v, gl);
        Crt_paint(&g, full);
        full = false;
        if (preview) Loading_markFrame("preview");
        if (first) {
            Loading_markFrame("first-frame");
            first = false;
            LoadJob_launch(j); /* on failure the job is finished with j->err set */
        }
        if (cancelling) { /* keys are moot now; wait for the loader to notice */
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        TuiKey k;
        if (!Crt_readKey(&k, 50)) continue;
        if (k.code == TK_INTERRUPT) {
            rc = 128 + Crt_signal();
            cancelling = true;
        } else if (k.code == 'q' || k.code == 'Q' || k.code == TK_ESC || k.code == 3) {
            rc = -1;
            cancelling = true;
        } else if (k.code == TK_RESIZE || k.code == TK_CTRL_L) {
            full = true;
        }
        if (cancelling) LoadJob_cancel(j);
    }
    LoadJob_join(j);
    Grid_free(&g);
    return rc;
}
