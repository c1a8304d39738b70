/* Export from the viewer. */
#include "ovtrace/tui/export_key.h"

#include <stdio.h>
#include <string.h>

#include "ovtrace/tui/app.h"
#include "ovtrace/tui/ruler.h"
#ifdef OVTRACE_HAVE_EXPORT
#include "ovtrace/write/export.h"
#include "feature.h"
#endif

static void export_range(const App *a, int64_t *t0, int64_t *t1) {
    if (View_rangeSet(&a->v)) View_range(&a->v, t0, t1);
    else {
        *t0 = a->v.t0;
        *t1 = a->v.t1;
    }
}

void ExportKey_defaultName(const App *a, char *buf, size_t n) {
    int64_t t0, t1;
    export_range(a, &t0, &t1);
    int64_t res = (t1 - t0) / 100 > 0 ? (t1 - t0) / 100 : 1;
    char s0[48], s1[48];
    Ruler_format(s0, sizeof s0, t0 - a->t->t_min, res);
    Ruler_format(s1, sizeof s1, t1 - a->t->t_min, res);
    snprintf(buf, n, "trace-%s-%s.json.gz", s0, s1);
}

void ExportKey_label(App *a) {
    Prompt *p = &a->prompt;
    char filter[300] = "";
    if (a->search.active) snprintf(filter, sizeof filter, ", names /%s/", a->search.pattern);
    snprintf(p->label, sizeof p->label, "export %s range, %s (Tab)%s to: ", View_rangeSet(&a->v) ? "marked" : "visible",
             p->clip ? "clipped" : "whole slices", filter);
}

void ExportKey_start(App *a) {
#ifdef OVTRACE_HAVE_EXPORT
    if (a->t->gpu_only) { /* a lazy load: the file would miss every CPU event */
        App_message(a, ROLE_ERROR, "export waits for the full load: CPU lanes still loading (see the title bar)");
        return;
    }
    a->prompt.kind = PROMPT_EXPORT;
    a->prompt.clip = true; /* the output's figures are the range's */
    ExportKey_label(a);
    ExportKey_defaultName(a, a->prompt.buf, sizeof a->prompt.buf);
    a->prompt.len = strlen(a->prompt.buf);
#else
    App_message(a, ROLE_ERROR, "export not available in this build");
#endif
}

void ExportKey_submit(App *a, const char *path) {
#ifdef OVTRACE_HAVE_EXPORT
    if (!path[0]) {
        App_message(a, ROLE_ERROR, "export cancelled: no file name");
        return;
    }
    ExportFilter f = ExportFilter_all();
    export_range(a, &f.t0, &f.t1);
    if (a->search.active) f.name_re = a->search.pattern;
    f.with_launches = true;
    f.clip = a->prompt.clip;
    f.description = "ovtrace view: e (export)";
    ExportResult res;
    memset(&res, 0, sizeof res);
    char err[512];
    if (!Export_run(a->t, &f, path, &res, err, sizeof err)) {
        App_message(a, ROLE_ERROR, "export failed: %s", err);
        return;
    }
    App_message(a, ROLE_GOOD, "exported %zu events to %s%s", res.events_written, res.first_path[0] ? res.first_path : path,
                res.files_written > 1 ? " (one file per rank)" : "");
#else
    (void)path;
    App_message(a, ROLE_ERROR, "export not available in this build");
#endif
}

static unsigned k_export(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    ExportKey_start(a);
    return REDRAW_VIEW;
}

static const KeyBinding EXPORT_KEYS[] = {
    {{'e'}, "e", "export the marked (or visible) range, clipped", k_export, 0},
};
const Feature ExportKey_feature = {.name = "export", FEATURE_KEYS(EXPORT_KEYS)};
