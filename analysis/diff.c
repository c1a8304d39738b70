/* Two-run comparison: each side reduced to a self-contained summary (overlap figures
 * from Overlap_compute, kernel totals keyed by name or grouping key, steps), then the
 * summaries merged by (rank, device), kernel key and step number. */
#include "ovtrace/analysis/diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/kname.h"
#include "ovtrace/model/parfor.h"

static int cmp_kernel_name(const void *a, const void *b) {
    const DiffKernel *x = a, *y = b;
    return strcmp(x->name, y->name);
}

typedef struct {
    const Trace *t;
    const DiffOptions *o;
    DiffRun *r;
    bool steps_ok;
    char err[256];
} SummaryJob;

/* The overlap figures and kernel totals of the run. */
static void summarize_figures(const Trace *t, const DiffOptions *o, DiffRun *r) {
    OverlapFilter f = OverlapFilter_all();
    f.t0 = o->t0;
    f.t1 = o->t1;
    f.top_n = SIZE_MAX; /* every kernel */
    OverlapReport *R = Overlap_compute(t, &f);
    r->n_devices = R->n_devices;
    r->devices = xmalloc((R->n_devices ? R->n_devices : 1) * sizeof *r->devices);
    for (size_t i = 0; i < R->n_devices; i++) {
        r->devices[i] = R->devices[i];
        r->devices[i].streams = NULL;
        r->devices[i].n_streams = R->devices[i].n_streams;
    }
    r->total = R->total;
    r->kernels = xmalloc((R->n_kernels ? R->n_kernels : 1) * sizeof *r->kernels);
    for (size_t i = 0; i < R->n_kernels; i++) {
        const KernelFigures *k = &R->kernels[i];
        const char *name = StrTab_get(t->strings, k->name);
        r->kernels[i] = (DiffKernel){o->group_names ? KernelName_normalize(name) : xstrdup(name), k->cls, k->count,
                                     k->total, 1};
        r->classes[k->cls].count += k->count;
        r->classes[k->cls].total += k->total;
    }
    size_t n = R->n_kernels;
    OverlapReport_free(R);
    qsort(r->kernels, n, sizeof *r->kernels, cmp_kernel_name);
    /* grouped keys: merge equal neighbours; the class is the one with the most time */
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && !strcmp(r->kernels[w - 1].name, r->kernels[i].name)) {
            DiffKernel *d = &r->kernels[w - 1], *s = &r->kernels[i];
            if (s->total > d->total) d->cls = s->cls;
            d->count += s->count;
            d->total += s->total;
            d->n_names += s->n_names;
            free(s->name);
        } else {
            r->kernels[w++] = r->kernels[i];
        }
    }
    r->n_kernels = w;
}

static int cmp_coll(const void *a, const void *b) {
    const DiffColl *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->device < y->device ? -1 : x->device > y->device;
}

/* Wait/transfer per (rank, device), computed as `stats` does (cli/stats_coll.c:
 * Coll_analyze, Coll_deviceSplit over the range, every rank), so the figures equal those
 * of `ovtrace stats` on the run. Nothing to split with one rank. */
static void summarize_coll(const Trace *t, const DiffOptions *o, DiffRun *r) {
    CollReport *R = Coll_analyze(t, &o->coll);
    r->coll_ranks = R->n_ranks;
    r->coll_total = (DiffColl){-1, -1, 0, 0, 0, 0, 0, 0};
    if (R->n_ranks >= 2) {
        size_t n = 0;
        CollDeviceSplit *d = Coll_deviceSplit(t, R, o->t0, o->t1, INT32_MIN, &n);
        r->coll = xmalloc((n ? n : 1) * sizeof *r->coll);
        for (size_t i = 0; i < n; i++) {
            DiffColl c = {d[i].rank, d[i].device, d[i].comm, d[i].wait, d[i].transfer,
                          d[i].exposed, d[i].exposed_wait, d[i].exposed_transfer};
            r->coll[i] = c;
            DiffColl *s = &r->coll_total;
            s->comm += c.comm, s->wait += c.wait, s->transfer += c.transfer;
            s->exposed += c.exposed, s->exposed_wait += c.exposed_wait, s->exposed_transfer += c.exposed_transfer;
        }
        r->n_coll = n;
        free(d);
        qsort(r->coll, n, sizeof *r->coll, cmp_coll);
    }
    CollReport_free(R);
}

static void summary_item(void *ctx, uint32_t item, ParScratch *scratch) {
    (void)scratch;
    SummaryJob *j = ctx;
    if (item == 0) summarize_figures(j->t, j->o, j->r);
    else j->steps_ok = Steps_find(j->t, j->o->step_regex, &j->r->steps, j->err, sizeof j->err);
}

DiffRun *DiffRun_summarize(const Trace *t, const DiffOptions *o, char *err, size_t errlen) {
    DiffRun *r = xcalloc(1, sizeof *r);
    r->n_files = t->n_sources;
    r->files = xmalloc((t->n_sources ? t->n_sources : 1) * sizeof *r->files);
    for (size_t i = 0; i < t->n_sources; i++)
        r->files[i] = (DiffFile){xstrdup(t->sources[i].path ? t->sources[i].path : ""), t->sources[i].rank};
    r->n_events = t->n_events;
    r->t_min = t->t_min;
    r->t_max = t->t_max;
    /* the figures and the steps are independent passes over the finished model (read
     * only): two threads, as many as the loader used */
    SummaryJob j = {t, o, r, true, ""};
    const uint32_t order[2] = {1, 0}; /* steps (usually the longer) first */
    ParFor_run(o->no_steps ? order + 1 : order, o->no_steps ? 1 : 2, 2, summary_item, &j);
    if (!j.steps_ok) {
        snprintf(err, errlen, "%s", j.err);
        DiffRun_free(r);
        return NULL;
    }
    /* after the parallel passes: it may read the sources' args */
    summarize_coll(t, o, r);
    return r;
}

void DiffRun_free(DiffRun *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n_kernels; i++) free(r->kernels[i].name);
    free(r->kernels);
    free(r->devices);
    free(r->coll);
    for (size_t i = 0; i < r->n_files; i++) free(r->files[i].path);
    free(r->files);
    StepList_free(&r->steps);
    free(r);
}

static int cmp_dev(const DeviceFigures *x, const DeviceFigures *y) {
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->device < y->device ? -1 : x->device > y->device;
}

static int cmp_dev_p(const void *a, const void *b) {
    return cmp_dev(*(const DeviceFigures *const *)a, *(const DeviceFigures *const *)b);
}

static const DeviceFigures **sorted_devices(const DiffRun *r) {
    const DeviceFigures **v = xmalloc((r->n_devices ? r->n_devices : 1) * sizeof *v);
    for (size_t i = 0; i < r->n_devices; i++) v[i] = &r->devices[i];
    qsort(v, r->n_devices, sizeof *v, cmp_dev_p);
    return v;
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

static int cmp_row(const void *a, const void *b) {
    const DiffKernelRow *x = a, *y = b;
    int64_t dx = abs64(DiffKernelRow_delta(x)), dy = abs64(DiffKernelRow_delta(y));
    if (dx != dy) return dx > dy ? -1 : 1;
    /* equal change (often none): the bigger kernels first */
    int64_t mx = x->total_a > x->total_b ? x->total_a : x->total_b, my = y->total_a > y->total_b ? y->total_a : y->total_b;
    if (mx != my) return mx > my ? -1 : 1;
    return strcmp(x->name, y->name);
}

static const DiffColl *find_coll(const DiffRun *r, const DeviceFigures *d) {
    DiffColl key = {d->rank, d->device, 0, 0, 0, 0, 0, 0};
    return r->n_coll ? bsearch(&key, r->coll, r->n_coll, sizeof key, cmp_coll) : NULL;
}

DiffReport *Diff_compare(const DiffRun *a, const DiffRun *b) {
    DiffReport *R = xcalloc(1, sizeof *R);
    R->a = a;
    R->b = b;
    /* devices: merge-join on (rank, device) */
    const DeviceFigures **da = sorted_devices(a), **db = sorted_devices(b);
    R->devices = xmalloc((a->n_devices + b->n_devices + 1) * sizeof *R->devices);
    for (size_t i = 0, j = 0; i < a->n_devices || j < b->n_devices;) {
        int c = i == a->n_devices ? 1 : j == b->n_devices ? -1 : cmp_dev(da[i], db[j]);
        const DeviceFigures *x = c <= 0 ? da[i++] : NULL, *y = c >= 0 ? db[j++] : NULL;
        const DeviceFigures *k = x ? x : y;
        R->devices[R->n_devices++] = (DiffDevice){k->rank, k->device, x, y, x ? find_coll(a, k) : NULL,
                                                  y ? find_coll(b, k) : NULL};
    }
    free(da);
    free(db);
    /* kernels: merge-join on the (sorted) names */
    R->kernels = xmalloc((a->n_kernels + b->n_kernels + 1) * sizeof *R->kernels);
    for (size_t i = 0, j = 0; i < a->n_kernels || j < b->n_kernels;) {
        int c = i == a->n_kernels ? 1 : j == b->n_kernels ? -1 : strcmp(a->kernels[i].name, b->kernels[j].name);
        const DiffKernel *x = c <= 0 ? &a->kernels[i++] : NULL, *y = c >= 0 ? &b->kernels[j++] : NULL;
        DiffKernelRow row = {x ? x->name : y->name, x ? x->cls : y->cls, 0, 0, 0, 0, x != NULL, y != NULL};
        if (x) row.count_a = x->count, row.total_a = x->total;
        if (y) row.count_b = y->count, row.total_b = y->total;
        R->kernels[R->n_kernels++] = row;
    }
    qsort(R->kernels, R->n_kernels, sizeof *R->kernels, cmp_row);
    /* steps: merge-join on the key (both lists are sorted by key) */
    R->steps = xmalloc((a->steps.n + b->steps.n + 1) * sizeof *R->steps);
    for (size_t i = 0, j = 0; i < a->steps.n || j < b->steps.n;) {
        const Step *x = i < a->steps.n ? &a->steps.steps[i] : NULL, *y = j < b->steps.n ? &b->steps.steps[j] : NULL;
        int c = !x ? 1 : !y ? -1 : x->key < y->key ? -1 : x->key > y->key;
        DiffStepRow row = {c <= 0 ? x->key : y->key, c <= 0 ? x : NULL, c >= 0 ? y : NULL};
        if (c <= 0) i++;
        if (c >= 0) j++;
        R->steps[R->n_steps++] = row;
    }
    return R;
}

void DiffReport_free(DiffReport *r) {
    if (!r) return;
    free(r->devices);
    free(r->kernels);
    free(r->steps);
    free(r);
}
