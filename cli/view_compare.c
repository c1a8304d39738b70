/* `ovtrace view A B --align start|step`: two runs in one timeline, each on its own
 * clock (analysis/align.c), with the compare keys (tui/compare.c). A and B are each a
 * file, a directory or a comma-separated list of files, as for `ovtrace diff`. */
#include <stdlib.h>
#include <string.h>

#include "view_compare.h"

#include "ovtrace/analysis/align.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/tui/viewer.h"

App *ViewCompare_open(InputOptions *in, const char *align, const char *step, Caps caps) {
    if (in->n_files != 2) {
        cli_error("--align compares two runs, A and B; got %zu (comma-separate one run's files)", in->n_files);
        return NULL;
    }
    char *spec[2] = {xstrdup(in->files[0]), xstrdup(in->files[1])};
    const char *paths[2][128];
    size_t n_paths[2] = {0, 0};
    App *a = NULL;
    Trace *t = NULL;
    in->n_files = 0;
    for (int r = 0; r < 2; r++) {
        for (char *p = spec[r], *c; p; p = c ? c + 1 : NULL) {
            if ((c = strchr(p, ','))) *c = '\0';
            if (!*p || n_paths[r] == 128 || in->n_files == sizeof in->files / sizeof in->files[0]) {
                cli_error("run %c: %s", 'A' + r, *p ? "too many files" : "empty path");
                goto out;
            }
            paths[r][n_paths[r]++] = p;
            in->files[in->n_files++] = p;
        }
    }
    if (!(t = InputOptions_load(in))) goto out;
    uint32_t *run_of = xmalloc((t->n_sources ? t->n_sources : 1) * sizeof *run_of);
    const char *const *rp[2] = {paths[0], paths[1]};
    char err[512];
    char name[2][96];
    const char *names[2] = {name[0], name[1]};
    for (int r = 0; r < 2; r++) {
        const char *base = strrchr(paths[r][0], '/');
        base = base && base[1] ? base + 1 : paths[r][0];
        if (n_paths[r] > 1) snprintf(name[r], sizeof name[r], "%c %.40s +%zu", 'A' + r, base, n_paths[r] - 1);
        else snprintf(name[r], sizeof name[r], "%c %.40s", 'A' + r, base);
    }
    const char *letters[2] = {"A", "B"};
    int64_t off[2];
    if (!Align_assignRuns(t, rp, n_paths, 2, run_of, err, sizeof err) ||
        !Align_runs(t, run_of, 2, letters, !strcmp(align, "step") ? ALIGN_STEP : ALIGN_START, step, off, err,
                    sizeof err)) {
        cli_error("%s", err);
        free(run_of);
        Trace_free(t);
        goto out;
    }
    char title[256];
    snprintf(title, sizeof title, "%s vs %s (aligned at %s)", name[0], name[1],
             !strcmp(align, "step") ? "first step" : "start");
    a = App_new(t, caps, title);
    Compare_setRuns(a, run_of, 2, names, off);
out:
    in->n_files = 0;
    free(spec[0]);
    free(spec[1]);
    return a;
}
