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

bool ServeStats_compute(const Trace *t, const CounterSet *cs, int64_t t0, int64_t t1, ServeStats *out) {
    memset(out, 0, sizeof *out);
    uint32_t step = find_name(t, "serve::step"), req = find_name(t, "serve::request");
    int64_t w0 = INT64_MAX, w1 = INT64_MIN;
    size_t n_req = 0, cap = 0;
    int64_t *lat = NULL;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->kind == KIND_COUNTER) continue;
        if (step != NONE && e->name == step && e->ts >= t0 && e->ts < t1) {
            out->steps++;
            if (e->ts < w0) w0 = e->ts;
            if (e->ts + e->dur > w1) w1 = e->ts + e->dur;
        } else if (req != NONE && e->name == req) {
            int64_t end = e->ts + e->dur;
            if (end < t0 || end > t1) continue;
            GROW(lat, cap, n_req + 1);
            lat[n_req++] = e->dur;
        }
    }
    if (!out->steps) {
        free(lat);
        return false;
    }
    out->window_ns = w1 - w0;
    double batch_n = 0, queue_sum = 0, queue_n = 0, mem_sum = 0, mem_n = 0;
    for (size_t k = 0; k < cs->n; k++) {
        const CounterSeries *s = &cs->s[k];
        const char *nm = StrTab_get(t->strings, s->name);
        if (strncmp(nm, "[serve] ", 8)) continue;
        int which = ends_with(nm, " batch size") ? 0 : ends_with(nm, " queue length") ? 1 : ends_with(nm, " memory in use") ? 2 : -1;
        if (which < 0) continue;
        for (size_t j = Counter_lowerBound(t, s, t0); j < s->n && t->events[s->ev[j]].ts < t1; j++) {
            double v = Counter_value(t, s, j);
            if (which == 0) {
                out->tokens += v;
                batch_n++;
                if (v > out->max_batch) out->max_batch = v;
            } else if (which == 1) {
                queue_sum += v, queue_n++;
            } else {
                mem_sum += v, mem_n++;
                if (v > out->memory_max) out->memory_max = v;
            }
        }
    }
    if (batch_n) out->mean_batch = out->tokens / batch_n;
    if (queue_n) out->mean_queue = queue_sum / queue_n;
    if (mem_n) out->memory_mean = mem_sum / mem_n;
    if (out->window_ns > 0) out->throughput = out->tokens * 1e9 / (double)out->window_ns;
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
    free(lat);
    return true;
}
