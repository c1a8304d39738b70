/* From a loaded model to the first rank-overview frame (160x76, no terminal):
 *   overview_bench FILE_OR_DIR...
 * loads the files once (GPU lanes, as the lazy overview's first pass), then, best of 3,
 * times the first frame's work two ways on that model:
 *   serial: App_new (view index), Coll_analyze, then sync and render: each step after
 *           the other;
 *   viewer: App_newMatching (the matching on a thread of its own beside the index), then
 *           sync and render, as `view` runs it.
 * Both frames must be the same cells; it says so. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/read/collargs.h"
#include "ovtrace/read/load.h"
#include "app.h"
#include "collview.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The frame as text (cells compared, not timed). */
static char *frame_text(App *a, Grid *g) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    Grid_dump(g, f);
    fclose(f);
    (void)a;
    return buf;
}

/* The first frame, its work timed into *secs: `matching` as the viewer runs it
 * (App_newMatching), else each step after the other. */
static char *first_frame(Trace *t, const CollOptions *co, bool matching, double *secs) {
    Grid g;
    Grid_init(&g, 160, 76);
    double a0 = now_s();
    App *a;
    if (matching) {
        a = App_newMatching(t, (Caps){true, 256}, "bench", co);
    } else {
        a = App_new(t, (Caps){true, 256}, "bench");
        CollView_setOptions(a, co);
        CollView_adopt(a, Coll_analyze(t, co));
    }
    App_sync(a);
    App_render(a, &g);
    *secs = now_s() - a0;
    char *text = frame_text(a, &g);
    App_free(a);
    Grid_free(&g);
    return text;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: overview_bench FILE_OR_DIR...\n");
        return 2;
    }
    LoadOptions o = {.cache = -1, .gpu_only = true};
    char err[1024];
    Trace *t = Load_files((const char *const *)argv + 1, (size_t)(argc - 1), &o, err, sizeof err);
    if (!t) {
        fprintf(stderr, "overview_bench: %s\n", err);
        return 1;
    }
    CollOptions co = CollOptions_default();
    co.args = CollArgs_fetch; /* as the viewer runs it */
    double best_s = 1e9, best_v = 1e9;
    bool same = true;
    for (int k = 0; k < 3; k++) { /* interleaved: the machine's load falls on both */
        double s, v;
        char *a = first_frame(t, &co, false, &s), *b = first_frame(t, &co, true, &v);
        same &= a && b && !strcmp(a, b);
        free(a);
        free(b);
        if (s < best_s) best_s = s;
        if (v < best_v) best_v = v;
    }
    printf("%zu events, %zu sources: loaded model to first overview frame (best of 3): serial %.3f s, viewer %.3f s; "
           "frames %s\n",
           t->n_events, t->n_sources, best_s, best_v, same ? "identical" : "DIFFER");
    Trace_free(t);
    return same ? 0 : 1;
}
