/* The e key: export the marked range (else the visible range), slices cut to it (Tab:
 * whole slices), with the active search as the name filter, through Export_run
 * (ovtrace/write/export.h). The file-name prompt names what will be exported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ovtrace/base/alloc.h"
#include "app.h"
#include "ruler.h"
#include "ovtrace/write/export.h"
#include "feature.h"

typedef struct {
    bool clip;          /* slices cut to the range (Tab toggles) */
    char pending[512];  /* a file that exists, waiting for the answer to "overwrite?" */
} ExportKeyState;

extern const Feature ExportKey_feature;

static ExportKeyState *state(const App *a) { return Feature_state(a, &ExportKey_feature); }

static void export_range(const App *a, int64_t *t0, int64_t *t1) {
    if (View_rangeSet(&a->v)) View_range(&a->v, t0, t1);
    else {
        *t0 = a->v.t0;
        *t1 = a->v.t1;
    }
}

/* The default file name, e.g. "trace-10.0ms-20.0ms.json.gz". */
static void default_name(const App *a, char *buf, size_t n) {
    int64_t t0, t1;
    export_range(a, &t0, &t1);
    int64_t res = (t1 - t0) / 100 > 0 ? (t1 - t0) / 100 : 1;
    char s0[48], s1[48];
    Ruler_format(s0, sizeof s0, t0 - a->t->t_min, res);
    Ruler_format(s1, sizeof s1, t1 - a->t->t_min, res);
    snprintf(buf, n, "trace-%s-%s.json.gz", s0, s1);
}

/* What will be exported: the range, clipped or whole slices, the search as the filter. */
static void label(const App *a, char *buf, size_t n) {
    char filter[300] = "";
    if (a->search.active) snprintf(filter, sizeof filter, ", names /%s/", a->search.pattern);
    snprintf(buf, n, "export %s range, %s (Tab)%s to: ", View_rangeSet(&a->v) ? "marked" : "visible",
             state(a)->clip ? "clipped" : "whole slices", filter);
}

/* Tab in the prompt: clipped or whole slices. */
static void toggle_clip(App *a) {
    state(a)->clip = !state(a)->clip;
    label(a, a->prompt.label, sizeof a->prompt.label);
}

static void run_export(App *a, const char *path);

/* The answer to "overwrite?". */
static void confirm(App *a, const char *answer) {
    ExportKeyState *s = state(a);
    if (answer[0] == 'y') run_export(a, s->pending);
    else App_message(a, ROLE_DIM, "export cancelled: %s kept", s->pending);
}

/* Enter in the prompt: the export to path (a file there: asked first); the result goes
 * to the status bar. */
static void submit(App *a, const char *path) {
    if (!path[0]) {
        App_message(a, ROLE_ERROR, "export cancelled: no file name");
        return;
    }
    struct stat st;
    if (lstat(path, &st) == 0) { /* Export_run replaces a regular file: ask (it refuses the rest itself) */
        ExportKeyState *s = state(a);
        snprintf(s->pending, sizeof s->pending, "%s", path);
        char q[352];
        snprintf(q, sizeof q, "%.300s exists: overwrite? (y/n) ", path);
        Prompt_openYesNo(&a->prompt, q, confirm);
        return;
    }
    run_export(a, path);
}

static void run_export(App *a, const char *path) {
    ExportFilter f = ExportFilter_all();
    export_range(a, &f.t0, &f.t1);
    if (a->search.active) f.name_re = a->search.pattern;
    f.with_launches = true;
    f.clip = state(a)->clip;
    f.description = "ovtrace view: e (export)";
    ExportResult res;
    memset(&res, 0, sizeof res);
    char err[512];
    if (!Export_run(a->t, &f, path, &res, err, sizeof err)) {
        App_message(a, ROLE_ERROR, "export failed: %s", err);
        return;
    }
    App_message(a, ROLE_GOOD, "exported %zu events to %s%s", res.events_written,
                res.first_path[0] ? res.first_path : path, res.files_written > 1 ? " (one file per rank)" : "");
}

/* e: the file-name prompt with a default name; slices clipped (the output's figures
 * are the range's). */
static unsigned k_export(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (a->t->gpu_only) { /* a lazy load: the file would miss every CPU event */
        App_message(a, ROLE_ERROR, "export waits for the full load: CPU lanes still loading (see the title bar)");
        return REDRAW_VIEW;
    }
    state(a)->clip = true;
    char text[352], name[512];
    label(a, text, sizeof text);
    default_name(a, name, sizeof name);
    Prompt_open(&a->prompt, text, name, submit, toggle_clip);
    return REDRAW_VIEW;
}

static void *ek_init(App *a) {
    (void)a;
    return xcalloc(1, sizeof(ExportKeyState));
}

static void ek_free(App *a, void *st) {
    (void)a;
    free(st);
}

static const KeyBinding EXPORT_KEYS[] = {
    {{'e'}, "e", "export the marked (or visible) range, clipped", k_export, 0},
};

const Feature ExportKey_feature = {
    .name = "export",
    FEATURE_KEYS(EXPORT_KEYS),
    .init = ek_init,
    .free = ek_free,
};
