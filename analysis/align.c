/* Per-run clocks for comparing runs in one model: find each run's origin (first event,
 * or first step mark), shift its events, label its groups. */
#include "ovtrace/analysis/align.h"

#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/analysis/steps.h"
#include "ovtrace/base/regex.h"

/* The name of src within directory dir ("dir/name", or "dir//name" when dir was given
 * with a trailing slash), or NULL when src is not a file directly in dir. */
static const char *in_dir(const char *src, const char *dir) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    if (strncmp(src, dir, n) || src[n] != '/') return NULL;
    const char *p = src + n;
    while (*p == '/') p++;
    return *p && !strchr(p, '/') ? p : NULL;
}

/* Load_files keeps the order of its paths (a directory's files in name order), so the
 * sources are consumed run by run, path by path: a file path takes one source, a
 * directory the sources inside it, in increasing name order. The same file may thus be
 * in both runs. */
bool Align_assignRuns(const Trace *t, const char *const *const *run_paths, const size_t *n_paths, size_t n_runs,
                      uint32_t *out, char *err, size_t errlen) {
    size_t i = 0, n = t->n_sources;
#define SRC(i) (t->sources[i].path ? t->sources[i].path : "")
    for (size_t r = 0; r < n_runs; r++)
        for (size_t k = 0; k < n_paths[r]; k++) {
            const char *spec = run_paths[r][k];
            if (i < n && !strcmp(SRC(i), spec)) {
                out[i++] = (uint32_t)r;
                continue;
            }
            size_t first = i;
            /* a directory's files come in name order: a repeat starts the next path */
            for (const char *prev = NULL, *name; i < n && (name = in_dir(SRC(i), spec)); prev = name, i++) {
                if (prev && strcmp(prev, name) >= 0) break;
                out[i] = (uint32_t)r;
            }
            if (i == first) {
                snprintf(err, errlen, "%s: no trace of the model comes from it", spec);
                return false;
            }
        }
    if (i != n) {
        snprintf(err, errlen, "%s: belongs to no run", SRC(i));
        return false;
    }
#undef SRC
    return true;
}

bool Align_runs(Trace *t, const uint32_t *run_of_source, size_t n_runs, const char *const *run_names, AlignMode mode,
                const char *step_regex, int64_t *offsets, char *err, size_t errlen) {
    regex_t re;
    if (mode == ALIGN_STEP && step_regex && !Regex_compile(&re, step_regex, REG_EXTENDED | REG_NOSUB, "--step", err, errlen)) return false;
    for (size_t r = 0; r < n_runs; r++) offsets[r] = INT64_MAX;
    size_t n_names = StrTab_count(t->strings);
    int8_t *match = mode == ALIGN_STEP ? xcalloc(n_names, 1) : NULL;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        uint32_t r = run_of_source[t->lanes[e->lane].source];
        if (match) {
            if (e->kind == KIND_COUNTER || e->kind == KIND_INSTANT || e->dur <= 0) continue;
            if (!match[e->name]) {
                const char *s = StrTab_get(t->strings, e->name);
                bool m = step_regex ? regexec(&re, s, 0, NULL, 0) == 0 : Steps_isProfilerStep(s);
                match[e->name] = m ? 1 : -1;
            }
            if (match[e->name] < 0) continue;
        }
        if (e->ts < offsets[r]) offsets[r] = e->ts;
    }
    free(match);
    if (mode == ALIGN_STEP && step_regex) regfree(&re);
    for (size_t r = 0; r < n_runs; r++) {
        if (offsets[r] != INT64_MAX) continue;
        if (mode == ALIGN_STEP) {
            snprintf(err, errlen, "run %s has no %s (try --align start)", run_names[r],
                     step_regex ? "event matching --step" : "ProfilerStep#N annotation");
            return false;
        }
        offsets[r] = 0; /* a run without events */
    }
    t->t_min = INT64_MAX;
    t->t_max = INT64_MIN;
    for (size_t i = 0; i < t->n_events; i++) {
        TraceEvent *e = &t->events[i];
        e->ts -= offsets[run_of_source[t->lanes[e->lane].source]];
        if (e->ts < t->t_min) t->t_min = e->ts;
        if (TraceEvent_end(e) > t->t_max) t->t_max = TraceEvent_end(e);
    }
    if (t->n_events == 0) t->t_min = t->t_max = 0;
    for (size_t g = 0; g < t->n_groups; g++) {
        Group *G = &t->groups[g];
        const char *path = t->sources[G->source].path ? t->sources[G->source].path : "";
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        uint32_t *field = G->gpu ? &G->label : &G->name;
        const char *old = StrTab_get(t->strings, *field);
        char gpu_n[32];
        snprintf(gpu_n, sizeof gpu_n, "GPU %" PRId64, G->id);
        if (G->gpu && !strcmp(old, gpu_n)) old = ""; /* Kineto's "GPU N" label: the header says it */
        char buf[512];
        int n = snprintf(buf, sizeof buf, "%s %s%s%s", run_names[run_of_source[G->source]], base, *old ? "  " : "", old);
        if (n < 0) n = 0;
        if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
        *field = StrTab_intern(t->strings, buf, (size_t)n);
    }
    return true;
}
