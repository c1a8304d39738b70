/* Dynamic / fixed batching for serving (see include/ovtrace/kernels/serve.h). */
#include "ovtrace/kernels/serve.h"
#include "ovtrace/kernels/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ServeParams_default(ServeParams *p) {
    memset(p, 0, sizeof *p);
    p->batching = SERVE_DYNAMIC;
    p->rate = 2000;
    p->min_batch = 1;
    p->max_batch = 64;
    p->prompt_tokens = 512;
    p->out_tokens = 32;
    p->kv_bytes_per_token = 70.0 * 1024; /* MLA-compressed KV of a DeepSeek-V3-like model */
    p->act_bytes_per_req = 4.0 * 1024 * 1024;
    p->weight_bytes = 8.0 * 1024 * 1024 * 1024;
    p->mem_cap = 10.0 * 1024 * 1024 * 1024;
    p->util_target = 0.9;
    p->max_wait_ns = 20000000;
    p->seed = 1;
}

bool ServeParams_validate(const ServeParams *p, char *err, size_t errlen) {
#define BAD(...)                                                                                                       \
    do {                                                                                                               \
        if (err && errlen) snprintf(err, errlen, __VA_ARGS__);                                                         \
        return false;                                                                                                  \
    } while (0)
    if (!(p->rate > 0 && p->rate <= 1e7)) BAD("--rate must be in (0, 1e7] requests/s");
    if (p->min_batch < 1 || p->max_batch < p->min_batch || p->max_batch > 4096)
        BAD("need 1 <= --min-batch <= --max-batch <= 4096 (got %d, %d)", p->min_batch, p->max_batch);
    if (p->prompt_tokens < 0 || p->out_tokens < 1) BAD("prompt tokens >= 0 and output tokens >= 1 needed");
    if (!(p->util_target > 0 && p->util_target <= 1)) BAD("the utilisation target must be in (0, 1]");
    if (p->max_wait_ns < 0) BAD("the batch wait must be >= 0");
    if (ServeParams_memLimit(p) < p->min_batch)
        BAD("--mem-cap %.0f MiB holds %d requests (weights %.0f MiB, %.1f MiB per request): fewer than --min-batch %d",
            p->mem_cap / 1048576, ServeParams_memLimit(p), p->weight_bytes / 1048576,
            ServeParams_reservePerRequest(p) / 1048576, p->min_batch);
    return true;
#undef BAD
}

int ServeBatching_parse(const char *s) {
    if (!strcmp(s, "dynamic")) return SERVE_DYNAMIC;
    if (!strcmp(s, "fixed")) return SERVE_FIXED;
    return -1;
}

const char *ServeBatching_name(ServeBatching b) { return b == SERVE_FIXED ? "fixed" : "dynamic"; }

static int max_out(const ServeParams *p) { return 2 * p->out_tokens - 1; }

double ServeParams_reservePerRequest(const ServeParams *p) {
    return (double)(p->prompt_tokens + max_out(p)) * p->kv_bytes_per_token + p->act_bytes_per_req;
}

int ServeParams_memLimit(const ServeParams *p) {
    double room = p->mem_cap - p->weight_bytes, per = ServeParams_reservePerRequest(p);
    if (room <= 0 || per <= 0) return room > 0 ? 4096 : 0;
    double n = floor(room / per);
    return n > 4096 ? 4096 : (int)n;
}

int ServeParams_fixedBatch(const ServeParams *p) {
    int m = ServeParams_memLimit(p);
    return p->max_batch < m ? p->max_batch : m;
}

static uint64_t rng_next(ServeState *s) { return Rng_next(&s->rng); }

static double uniform(ServeState *s) { return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0; } /* (0, 1) */

static int64_t exp_gap(ServeState *s) {
    double g = -log(uniform(s)) / s->p.rate * 1e9;
    return g < 1 ? 1 : g > 1e15 ? (int64_t)1e15 : (int64_t)g;
}

void Serve_init(ServeState *s, const ServeParams *p) {
    memset(s, 0, sizeof *s);
    s->p = *p;
    s->rng = (p->seed ? p->seed : 1) * 0x9E3779B97F4A7C15ULL;
    s->next_arrival = exp_gap(s);
}

void Serve_free(ServeState *s) {
    free(s->req);
    free(s->active);
    memset(s, 0, sizeof *s);
}

static void *grow(void *p, size_t *cap, size_t need, size_t sz) {
    if (need <= *cap) return p;
    size_t c = *cap ? *cap * 2 : 64;
    while (c < need) c *= 2;
    void *q = realloc(p, c * sz);
    if (!q) {
        fprintf(stderr, "ovtrace: out of memory\n");
        exit(3);
    }
    *cap = c;
    return q;
}

static void arrivals(ServeState *s, int64_t now) {
    while (s->next_arrival <= now) {
        s->req = grow(s->req, &s->cap_req, s->n_req + 1, sizeof *s->req);
        int out = 1 + (int)(uniform(s) * max_out(&s->p));
        if (out > max_out(&s->p)) out = max_out(&s->p);
        s->req[s->n_req++] = (ServeRequest){s->next_arrival, -1, -1, out, 0};
        s->next_arrival += exp_gap(s);
    }
}

static void admit(ServeState *s) {
    uint32_t i = (uint32_t)s->q_head++;
    s->active = grow(s->active, &s->cap_active, s->n_active + 1, sizeof *s->active);
    s->active[s->n_active++] = i;
    s->reserved += ServeParams_reservePerRequest(&s->p);
}

size_t Serve_queueLength(const ServeState *s) { return s->n_req - s->q_head; }

int Serve_plan(ServeState *s, int64_t now, int64_t *wait_until) {
    arrivals(s, now);
    const ServeParams *p = &s->p;
    size_t queued = Serve_queueLength(s);
    int64_t oldest = queued ? s->req[s->q_head].arrive : INT64_MAX;
    bool waited = queued && now - oldest >= p->max_wait_ns;
    if (p->batching == SERVE_FIXED) {
        if (s->n_active) return (int)s->n_active; /* the batch runs until its last request is done */
        size_t b = (size_t)ServeParams_fixedBatch(p);
        if (queued >= b || waited) {
            while (s->n_active < b && Serve_queueLength(s)) admit(s);
            return (int)s->n_active;
        }
    } else {
        size_t limit = (size_t)p->max_batch, mem = (size_t)ServeParams_memLimit(p);
        if (mem < limit) limit = mem;
        /* a saturated GPU: grow only when the queue outgrows the batch */
        if (s->util_last >= p->util_target && queued <= s->n_active && s->n_active < limit) limit = s->n_active;
        bool starting = s->n_active == 0;
        if (starting && queued < (size_t)p->min_batch && !waited) {
            /* wait for min_batch requests (or the oldest's deadline) */
        } else {
            while (s->n_active < limit && Serve_queueLength(s)) admit(s);
            if (s->n_active) return (int)s->n_active;
        }
    }
    int64_t w = s->next_arrival;
    if (queued && oldest + p->max_wait_ns < w) w = oldest + p->max_wait_ns;
    *wait_until = w > now ? w : now + 1;
    return 0;
}

void Serve_stepDone(ServeState *s, int64_t t0, int64_t t1, double util, ServeDoneFn fn, void *ctx) {
    size_t keep = 0;
    s->util_last = util;
    for (size_t k = 0; k < s->n_active; k++) {
        ServeRequest *r = &s->req[s->active[k]];
        if (r->start < 0) r->start = t0;
        r->generated++;
        s->tokens++;
        if (r->generated >= r->out_tokens) {
            r->done = t1;
            s->done_count++;
            s->reserved -= ServeParams_reservePerRequest(&s->p);
            if (fn) fn(r, ctx);
        } else {
            s->active[keep++] = s->active[k];
        }
    }
    if (s->p.batching == SERVE_FIXED && keep) {
        s->n_active = keep; /* the batch stays until all are done */
        return;
    }
    s->n_active = keep;
    if (!keep) s->reserved = 0;
}

double Serve_memoryInUse(const ServeState *s) {
    double kv = 0;
    for (size_t k = 0; k < s->n_active; k++) {
        const ServeRequest *r = &s->req[s->active[k]];
        kv += (double)(s->p.prompt_tokens + r->generated) * s->p.kv_bytes_per_token;
    }
    return s->p.weight_bytes + kv + (double)s->n_active * s->p.act_bytes_per_req;
}
