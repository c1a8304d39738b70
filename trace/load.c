/* Multi-file loading: expands directories, assigns ranks, finishes and classifies. */
#include <dirent.h>
#include <malloc.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ovtrace/load.h"
#include "util.h"

static bool is_trace_name(const char *n) {
    size_t l = strlen(n);
    static const char *ext[] = {".json", ".json.gz", ".json.zst"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t e = strlen(ext[i]);
        if (l > e && !strcmp(n + l - e, ext[i])) return true;
    }
    return false;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends the trace files of dir, sorted by name. */
static bool expand_dir(const char *dir, char ***out, size_t *n, size_t *cap, char *err, size_t errlen) {
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open directory", dir);
        return false;
    }
    size_t first = *n;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.' || !is_trace_name(de->d_name)) continue;
        GROW(*out, *cap, *n + 1);
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        char *p = xmalloc(len);
        snprintf(p, len, "%s/%s", dir, de->d_name);
        (*out)[(*n)++] = p;
    }
    closedir(d);
    if (*n > first) qsort(*out + first, *n - first, sizeof **out, cmp_str); /* *out is NULL when nothing was found */
    if (*n == first) {
        snprintf(err, errlen, "%s: no *.json, *.json.gz or *.json.zst files in directory", dir);
        return false;
    }
    return true;
}

Trace *Load_files(const char *const *paths, size_t n, const LoadOptions *opt, char *err, size_t errlen) {
    char **files = NULL;
    size_t n_files = 0, cap = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            ok = expand_dir(paths[i], &files, &n_files, &cap, err, errlen);
        } else {
            GROW(files, cap, n_files + 1);
            files[n_files++] = xstrdup(paths[i]);
        }
    }
    Trace *t = NULL;
    if (ok && n_files == 0) {
        snprintf(err, errlen, "no trace files given");
        ok = false;
    }
    if (ok) {
        t = Trace_new();
        for (size_t i = 0; ok && i < n_files; i++) ok = Load_chromeFile(t, files[i], opt, err, errlen);
        if (ok) {
            long cores = sysconf(_SC_NPROCESSORS_ONLN);
            Trace_finishThreads(t, opt && opt->threads > 0 ? opt->threads : cores > 0 ? (int)cores : 1);
            CommRules *def = opt && opt->rules ? NULL : CommRules_default();
            Classify_trace(t, opt && opt->rules ? opt->rules : def);
            CommRules_free(def);
            /* parser scratch and worker-thread arenas: give the memory back */
            malloc_trim(0);
        } else {
            Trace_free(t);
            t = NULL;
        }
    }
    for (size_t i = 0; i < n_files; i++) free(files[i]);
    free(files);
    return t;
}

void Load_printWarnings(const Trace *t, FILE *out) {
    const TraceDiag *d = &t->diag;
    if (d->truncated)
        fprintf(out,
                "warning: %s: trace is truncated at byte %" PRIu64
                " (the profiler may have died mid-write); loaded everything before it\n",
                d->truncated_path, d->truncated_offset);
    if (d->skipped)
        fprintf(out, "warning: skipped %zu event%s with bad values; first in %s at byte %" PRIu64 ": %s\n", d->skipped,
                d->skipped == 1 ? "" : "s", d->first_skip_path, d->first_skip_offset, d->first_skip_reason);
    if (d->ignored)
        fprintf(out, "note: ignored %zu event%s of phases ovtrace does not model (async b/e, samples, objects)\n",
                d->ignored, d->ignored == 1 ? "" : "s");
}
