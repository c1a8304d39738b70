/* Iterations: find the step marks, attribute GPU work to them through the launch->GPU
 * links, and measure each step's GPU window with the overlap sweep. */
#include "ovtrace/analysis/steps.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/regex.h"

typedef struct {
    int64_t ts, end;
    uint32_t source;
    bool gpu;
    bool numbered;
    int64_t key;
    size_t step; /* index into the step list */
} Mark;

/* The last run of digits in s as a number; false if none (or too long). */
static bool last_number(const char *s, int64_t *out) {
    const char *d = NULL;
    for (const char *p = s; *p; p++)
        if (*p >= '0' && *p <= '9' && (p == s || p[-1] < '0' || p[-1] > '9')) d = p;
    if (!d) return false;
    int64_t v = 0;
    for (int i = 0; d[i] >= '0' && d[i] <= '9'; i++) {
        if (i >= 18) return false;
        v = v * 10 + (d[i] - '0');
    }
    *out = v;
    return true;
}

bool Steps_isProfilerStep(const char *s) {
    if (strncmp(s, "ProfilerStep#", 13)) return false;
    const char *p = s + 13;
    if (!*p) return false;
    for (; *p; p++)
        if (*p < '0' || *p > '9') return false;
    return true;
}

static int cmp_mark_src(const void *a, const void *b) {
    const Mark *x = a, *y = b;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->gpu != y->gpu) return x->gpu ? 1 : -1; /* CPU marks first within a source */
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t key_index(const Step *s, size_t n, int64_t key) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

bool Steps_find(const Trace *t, const char *regex, StepList *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->by_regex = regex != NULL;
    regex_t re;
    if (regex && !Regex_compile(&re, regex, REG_EXTENDED | REG_NOSUB, "--step", err, errlen)) return false;
    /* match each distinct name once */
    size_t n_names = StrTab_count(t->strings);
    int8_t *match = xcalloc(n_names, 1); /* 0 unknown, 1 yes, -1 no */
    Mark *M = NULL;
    size_t nm = 0, cap = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->kind == KIND_COUNTER || e->kind == KIND_INSTANT || e->dur <= 0) continue;
        if (!match[e->name]) {
            const char *s = StrTab_get(t->strings, e->name);
            bool m = regex ? regexec(&re, s, 0, NULL, 0) == 0 : Steps_isProfilerStep(s);
            match[e->name] = m ? 1 : -1;
        }
        if (match[e->name] < 0) continue;
        const Lane *l = &t->lanes[e->lane];
        Mark k = {e->ts, TraceEvent_end(e), l->source, l->gpu, false, 0, 0};
        k.numbered = last_number(StrTab_get(t->strings, e->name), &k.key);
        GROW(M, cap, nm + 1);
        M[nm++] = k;
    }
    free(match);
    if (regex) regfree(&re);
    if (!nm) {
        free(M);
        return true;
    }
    /* unnumbered marks: their order within the source (CPU and GPU lanes apart) */
    qsort(M, nm, sizeof *M, cmp_mark_src);
    int64_t ord = 0;
    for (size_t i = 0; i < nm; i++) {
        if (i == 0 || M[i].source != M[i - 1].source || M[i].gpu != M[i - 1].gpu) ord = 0;
        if (!M[i].numbered) M[i].key = ++ord;
    }
    /* one step per key */
    int64_t *keys = xmalloc(nm * sizeof *keys);
    for (size_t i = 0; i < nm; i++) keys[i] = M[i].key;
    qsort(keys, nm, sizeof *keys, cmp_i64);
    size_t ns = 0;
    for (size_t i = 0; i < nm; i++)
        if (i == 0 || keys[i] != keys[i - 1]) keys[ns++] = keys[i];
    Step *S = xcalloc(ns, sizeof *S);
    bool *gpu_mark = xcalloc(ns, sizeof *gpu_mark);
    for (size_t i = 0; i < ns; i++) {
        S[i].key = keys[i];
        S[i].cpu_start = S[i].gpu_start = INT64_MAX;
        S[i].cpu_end = S[i].gpu_end = INT64_MIN;
    }
    free(keys);
    for (size_t i = 0; i < nm; i++) {
        Step *s = &S[M[i].step = key_index(S, ns, M[i].key)];
        s->n_marks++;
        if (M[i].ts < s->cpu_start) s->cpu_start = M[i].ts;
        if (M[i].end > s->cpu_end) s->cpu_end = M[i].end;
        if (M[i].gpu) { /* a mark on a GPU lane is the GPU window itself */
            if (!gpu_mark[M[i].step]) s->gpu_start = INT64_MAX, s->gpu_end = INT64_MIN;
            gpu_mark[M[i].step] = true;
            if (M[i].ts < s->gpu_start) s->gpu_start = M[i].ts;
            if (M[i].end > s->gpu_end) s->gpu_end = M[i].end;
        }
    }
    /* GPU work launched from inside a CPU mark belongs to its step. One sequential pass
     * over the launch->GPU flows (the links Trace_partner follows: ac2g or async, from
     * the source or derived from correlation ids); M is sorted by (source, CPU first,
     * ts), so the marks of a source are one binary search away. */
    size_t n_cats = StrTab_count(t->strings);
    int8_t *link_cat = xcalloc(n_cats, 1); /* 0 unknown, 1 launch link, -1 other */
    for (size_t fi = 0; fi < t->n_flows; fi++) {
        const Flow *fl = &t->flows[fi];
        if (!link_cat[fl->cat]) {
            const char *c = StrTab_get(t->strings, fl->cat);
            link_cat[fl->cat] = !strcmp(c, "ac2g") || !strcmp(c, "async") ? 1 : -1;
        }
        if (link_cat[fl->cat] < 0) continue;
        const TraceEvent *launch = &t->events[fl->from], *e = &t->events[fl->to];
        if (t->lanes[e->lane].gpu == t->lanes[launch->lane].gpu) continue;
        if (t->lanes[launch->lane].gpu) {
            const TraceEvent *x = launch;
            launch = e;
            e = x;
        }
        if (!Overlap_counts(e)) continue;
        uint32_t src = t->lanes[launch->lane].source;
        /* last CPU mark of the source starting at or before the launch */
        size_t lo = 0, hi = nm;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const Mark *m = &M[mid];
            bool before = m->source < src || (m->source == src && !m->gpu && m->ts <= launch->ts);
            if (before) lo = mid + 1;
            else hi = mid;
        }
        if (lo == 0) continue;
        const Mark *m = &M[lo - 1];
        if (m->source != src || m->gpu || launch->ts >= m->end || gpu_mark[m->step]) continue;
        Step *s = &S[m->step];
        if (!s->gpu_from_launches) s->gpu_start = INT64_MAX, s->gpu_end = INT64_MIN;
        s->gpu_from_launches = true;
        s->gpu_events++;
        if (e->ts < s->gpu_start) s->gpu_start = e->ts;
        if (TraceEvent_end(e) > s->gpu_end) s->gpu_end = TraceEvent_end(e);
    }
    free(link_cat);
    for (size_t i = 0; i < ns; i++) {
        Step *s = &S[i];
        if (!gpu_mark[i] && !s->gpu_from_launches) {
            s->gpu_start = s->cpu_start;
            s->gpu_end = s->cpu_end;
        }
        OverlapFilter f = OverlapFilter_all();
        f.t0 = s->gpu_start;
        f.t1 = s->gpu_end;
        f.top_n = 0;
        OverlapReport *R = Overlap_compute(t, &f);
        s->fig = R->total;
        s->fig.streams = NULL;
        OverlapReport_free(R);
    }
    free(gpu_mark);
    free(M);
    out->n = ns;
    out->steps = S;
    return true;
}

void StepList_free(StepList *s) {
    if (!s) return;
    free(s->steps);
    s->steps = NULL;
    s->n = 0;
}

static int64_t median(int64_t *v, size_t n) {
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    return v[(n - 1) / 2];
}

int64_t Steps_medianTime(const StepList *s) {
    int64_t *v = xmalloc((s->n ? s->n : 1) * sizeof *v);
    for (size_t i = 0; i < s->n; i++) v[i] = s->steps[i].gpu_end - s->steps[i].gpu_start;
    int64_t m = median(v, s->n);
    free(v);
    return m;
}

int64_t Steps_medianField(const StepList *s, size_t offset) {
    int64_t *v = xmalloc((s->n ? s->n : 1) * sizeof *v);
    for (size_t i = 0; i < s->n; i++) memcpy(&v[i], (const char *)&s->steps[i].fig + offset, sizeof *v);
    int64_t m = median(v, s->n);
    free(v);
    return m;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double Steps_medianRatio(const StepList *s) {
    double *v = xmalloc((s->n ? s->n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->steps[i].fig.has_comm) v[n++] = s->steps[i].fig.ratio;
    double m = -1;
    if (n) {
        qsort(v, n, sizeof *v, cmp_double);
        m = v[(n - 1) / 2];
    }
    free(v);
    return m;
}
