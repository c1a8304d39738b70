/* Serving figures from a trace (see serve_stats.h). */
#include "ovtrace/analysis/serve_stats.h"

#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"

static bool ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* nearest rank: the smallest value with at least p of the values at or below it */
static int64_t rank_of(const int64_t *v, size_t n, double p) {
    size_t k = (size_t)(p * (double)n + 0.999999999);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return v[k - 1];
}

#define NONE UINT32_MAX

static uint32_t find_name(const Trace *t, const char *name) {
    size_t n = StrTab_count(t->strings);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(StrTab_get(t->strings, (uint32_t)i), name)) return (uint32_t)i;
    return NONE;
}

void ServeParts_events(ServeParts *p, const Trace *t, int64_t t0, int64_t t1) {
    uint32_t step = find_name(t, "serve::step"), req = find_name(t, "serve::request");
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->kind == KIND_COUNTER) continue;
        if (step != NONE && e->name == step && e->ts >= t0 && e->ts < t1) {
            p->steps++;
            if (e->ts < p->w0) p->w0 = e->ts;
            if (e->ts + e->dur > p->w1) p->w1 = e->ts + e->dur;
        } else if (req != NONE && e->name == req) {
            int64_t end = e->ts + e->dur;
            if (end < t0 || end > t1) continue;
            GROW(p->lat, p->cap_lat, p->n_lat + 1);
            p->lat[p->n_lat++] = e->dur;
        }
    }
}

int ServeParts_seriesKind(const char *name) {
    if (strncmp(name, "[serve] ", 8)) return -1;
    return ends_with(name, " batch size") ? 0 : ends_with(name, " queue length") ? 1 : ends_with(name, " memory in use") ? 2 : -1;
}

void ServeParts_sample(ServeParts *p, int kind, double v) {
    if (kind == 0) {
        p->tokens += v;
        p->batch_n++;
        if (v > p->max_batch) p->max_batch = v;
    } else if (kind == 1) {
        p->queue_sum += v, p->queue_n++;
    } else if (kind == 2) {
        p->mem_sum += v, p->mem_n++;
        if (v > p->memory_max) p->memory_max = v;
    }
}

bool ServeParts_finish(ServeParts *p, ServeStats *out) {
    memset(out, 0, sizeof *out);
    if (!p->steps) return false;
    out->steps = p->steps;
    out->window_ns = p->w1 - p->w0;
    out->tokens = p->tokens;
    out->max_batch = p->max_batch;
    out->memory_max = p->memory_max;
    if (p->batch_n) out->mean_batch = p->tokens / p->batch_n;
    if (p->queue_n) out->mean_queue = p->queue_sum / p->queue_n;
    if (p->mem_n) out->memory_mean = p->mem_sum / p->mem_n;
    if (out->window_ns > 0) out->throughput = out->tokens * 1e9 / (double)out->window_ns;
    size_t n_req = p->n_lat;
    int64_t *lat = p->lat;
    out->requests = n_req;
    if (n_req) {
        qsort(lat, n_req, sizeof *lat, cmp_i64);
        double sum = 0;
        for (size_t i = 0; i < n_req; i++) sum += (double)lat[i];
        out->latency_mean_ns = sum / (double)n_req;
        out->latency_p50_ns = rank_of(lat, n_req, 0.50);
        out->latency_p99_ns = rank_of(lat, n_req, 0.99);
        out->latency_max_ns = lat[n_req - 1];
    }
    return true;
}

void ServeParts_free(ServeParts *p) {
    free(p->lat);
    p->lat = NULL;
    p->n_lat = p->cap_lat = 0;
}

bool ServeStats_compute(const Trace *t, const CounterSet *cs, int64_t t0, int64_t t1, ServeStats *out) {
    ServeParts p = ServeParts_init();
    ServeParts_events(&p, t, t0, t1);
    if (p.steps) /* only the series of a trace with steps matter */
        for (size_t k = 0; k < cs->n; k++) {
            const CounterSeries *s = &cs->s[k];
            int kind = ServeParts_seriesKind(StrTab_get(t->strings, s->name));
            if (kind < 0) continue;
            for (size_t j = Counter_lowerBound(t, s, t0); j < s->n && t->events[s->ev[j]].ts < t1; j++)
                ServeParts_sample(&p, kind, Counter_value(t, s, j));
        }
    bool any = ServeParts_finish(&p, out);
    ServeParts_free(&p);
    return any;
}
