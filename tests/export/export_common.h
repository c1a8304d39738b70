/* Shared helpers of the export tests: temp directories, loading, comparing two
 * models event by event (and flow by flow), comparing overlap figures, and a
 * reference selection computed independently of write/export.c. */
#ifndef EXPORT_COMMON_H
#define EXPORT_COMMON_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "ovtrace/read/args.h"
#include "ovtrace/write/export.h"
#include "ovtrace/read/input.h"
#include "ovtrace/read/load.h"
#include "ovtrace/analysis/overlap.h"

/* ------------------------------------------------------------------ helpers */

static char g_dir[256];

__attribute__((unused)) static int setup_dir(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/ovtrace-export-test-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    return 0;
}

__attribute__((unused)) static int teardown_dir(void **state) {
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

__attribute__((unused)) static char *path_in(const char *name) {
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/%s", g_dir, name);
    return p;
}

__attribute__((unused)) static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

__attribute__((unused)) static void write_gz(const char *path, const char *text) {
    gzFile g = gzopen(path, "wb");
    assert_non_null(g);
    gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
}

__attribute__((unused)) static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    if (len) *len = got;
    return s;
}

__attribute__((unused)) static Trace *load1(const char *path) {
    char err[1024];
    const char *p[] = {path};
    Trace *t = Load_files(p, 1, NULL, err, sizeof err);
    if (!t) fprintf(stderr, "load %s: %s\n", path, err);
    assert_non_null(t);
    return t;
}

__attribute__((unused)) static Trace *load_text(const char *name, const char *text) {
    write_file(path_in(name), text);
    return load1(path_in(name));
}

__attribute__((unused)) static void export_ok(const Trace *t, const ExportFilter *f, const char *out, ExportResult *res) {
    char err[1024];
    ExportResult r;
    bool ok = Export_run(t, f, out, res ? res : &r, err, sizeof err);
    if (!ok) fprintf(stderr, "export: %s\n", err);
    assert_true(ok);
}

__attribute__((unused)) static size_t count_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* One line per event: everything that identifies it, independent of event order
 * and source offsets. */
__attribute__((unused)) static char *event_key(const Trace *t, size_t i) {
    const TraceEvent *e = &t->events[i];
    const Lane *l = &t->lanes[e->lane];
    char lane[256], val[64];
    if (l->gpu) snprintf(lane, sizeof lane, "r%d gpu %" PRId64 "/%" PRId64, l->rank, l->device, l->stream);
    else {
        char p[96], q[96];
        if (l->pid < 0) snprintf(p, sizeof p, "'%s'", StrTab_get(t->strings, (uint32_t)(-1 - l->pid)));
        else snprintf(p, sizeof p, "%" PRId64, l->pid);
        if (l->tid < 0) snprintf(q, sizeof q, "'%s'", StrTab_get(t->strings, (uint32_t)(-1 - l->tid)));
        else snprintf(q, sizeof q, "%" PRId64, l->tid);
        snprintf(lane, sizeof lane, "r%d cpu %s/%s", l->rank, p, q);
    }
    if (e->kind == KIND_COUNTER) snprintf(val, sizeof val, "v=%.3f", e->value);
    else snprintf(val, sizeof val, "d=%" PRId64, e->dur);
    const char *name = Trace_name(t, e);
    size_t n = strlen(name) + 400;
    char *s = malloc(n);
    snprintf(s, n, "%" PRId64 " %s k=%d c=%d f=%u %s [%s] %s", e->ts, val, e->kind, e->cls, e->flags, lane,
             StrTab_get(t->strings, l->name), name);
    return s;
}

__attribute__((unused)) static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct {
    char **ev;
    size_t n_ev;
    char **fl;
    size_t n_fl;
} Keys;

__attribute__((unused)) static Keys keys_of(const Trace *t, const uint8_t *only) {
    Keys k = {0};
    char **all = calloc(t->n_events + 1, sizeof *all);
    k.ev = calloc(t->n_events + 1, sizeof *k.ev);
    for (size_t i = 0; i < t->n_events; i++) {
        all[i] = event_key(t, i);
        if (!only || only[i]) k.ev[k.n_ev++] = strdup(all[i]);
    }
    qsort(k.ev, k.n_ev, sizeof *k.ev, cmp_str);
    k.fl = calloc(t->n_flows + 1, sizeof *k.fl);
    for (size_t i = 0; i < t->n_flows; i++) {
        const Flow *f = &t->flows[i];
        if (only && (!only[f->from] || !only[f->to])) continue;
        size_t n = strlen(all[f->from]) + strlen(all[f->to]) + 64;
        char *s = malloc(n);
        snprintf(s, n, "%s: %s -> %s", StrTab_get(t->strings, f->cat), all[f->from], all[f->to]);
        k.fl[k.n_fl++] = s;
    }
    qsort(k.fl, k.n_fl, sizeof *k.fl, cmp_str);
    for (size_t i = 0; i < t->n_events; i++) free(all[i]);
    free(all);
    return k;
}

__attribute__((unused)) static void keys_free(Keys *k) {
    for (size_t i = 0; i < k->n_ev; i++) free(k->ev[i]);
    for (size_t i = 0; i < k->n_fl; i++) free(k->fl[i]);
    free(k->ev);
    free(k->fl);
}

__attribute__((unused)) static void assert_same_list(char **a, size_t na, char **b, size_t nb, const char *what) {
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i], b[i])) {
            fprintf(stderr, "%s differ at %zu:\n  expected %.300s\n  got      %.300s\n", what, i, a[i], b[i]);
            fail();
        }
    if (na != nb) fprintf(stderr, "%s: expected %zu, got %zu\n", what, na, nb);
    assert_int_equal(na, nb);
}

/* The reloaded export holds exactly the events (and flows) of `a` selected by only. */
__attribute__((unused)) static void assert_reloads_to(const Trace *a, const uint8_t *only, const Trace *b, bool flows) {
    Keys ka = keys_of(a, only), kb = keys_of(b, NULL);
    assert_same_list(ka.ev, ka.n_ev, kb.ev, kb.n_ev, "events");
    if (flows) assert_same_list(ka.fl, ka.n_fl, kb.fl, kb.n_fl, "flows");
    keys_free(&ka);
    keys_free(&kb);
}

__attribute__((unused)) static void assert_same_figures(const DeviceFigures *a, const DeviceFigures *b) {
    assert_int_equal(a->rank, b->rank);
    assert_int_equal(a->device, b->device);
    assert_int_equal(a->window_start, b->window_start);
    assert_int_equal(a->window_end, b->window_end);
    assert_int_equal(a->comm, b->comm);
    assert_int_equal(a->compute, b->compute);
    assert_int_equal(a->overlap, b->overlap);
    assert_int_equal(a->exposed, b->exposed);
    assert_int_equal(a->memory, b->memory);
    assert_int_equal(a->busy, b->busy);
    assert_int_equal(a->idle, b->idle);
    assert_int_equal(a->n_events, b->n_events);
    assert_int_equal(a->has_comm, b->has_comm);
    assert_true(a->ratio == b->ratio);
    assert_int_equal(a->n_streams, b->n_streams);
    for (size_t i = 0; i < a->n_streams; i++) {
        assert_int_equal(a->streams[i].stream, b->streams[i].stream);
        assert_int_equal(a->streams[i].busy, b->streams[i].busy);
        assert_int_equal(a->streams[i].n_events, b->streams[i].n_events);
    }
}

__attribute__((unused)) static void assert_same_stats(const Trace *a, const Trace *b) {
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *ra = Overlap_compute(a, &f), *rb = Overlap_compute(b, &f);
    assert_int_equal(ra->n_devices, rb->n_devices);
    for (size_t i = 0; i < ra->n_devices; i++) assert_same_figures(&ra->devices[i], &rb->devices[i]);
    assert_same_figures(&ra->total, &rb->total);
    assert_int_equal(ra->n_kernels, rb->n_kernels);
    for (size_t i = 0; i < ra->n_kernels; i++) {
        assert_string_equal(StrTab_get(a->strings, ra->kernels[i].name), StrTab_get(b->strings, rb->kernels[i].name));
        assert_int_equal(ra->kernels[i].count, rb->kernels[i].count);
        assert_int_equal(ra->kernels[i].total, rb->kernels[i].total);
    }
    OverlapReport_free(ra);
    OverlapReport_free(rb);
}

/* Reference selection, computed here independently of export.c. */
__attribute__((unused)) static uint8_t *select_ref(const Trace *t, const ExportFilter *f, size_t *n) {
    uint8_t *m = calloc(t->n_events + 1, 1);
    *n = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        const Lane *l = &t->lanes[e->lane];
        int64_t end = e->kind == KIND_COUNTER ? e->ts : e->ts + e->dur;
        bool in_range = e->dur > 0 && e->kind != KIND_COUNTER ? e->ts < f->t1 && end > f->t0
                                                               : e->ts >= f->t0 && e->ts < f->t1;
        if (!in_range) continue;
        if (f->rank != INT32_MIN && l->rank != f->rank) continue;
        if (f->stream != INT64_MIN && (!l->gpu || l->stream != f->stream)) continue;
        if (f->device != INT64_MIN && (!l->gpu || l->device != f->device)) continue;
        if (f->class_mask && !(f->class_mask & (1u << e->cls))) continue;
        if (f->min_dur && (e->kind == KIND_COUNTER || e->dur < f->min_dur)) continue;
        if (f->name_re && !strstr(Trace_name(t, e), f->name_re)) continue; /* tests use literal patterns */
        m[i] = 1;
        ++*n;
    }
    return m;
}

#endif
