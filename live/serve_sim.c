/* Serving mode of the simulator: the policy of ovtrace/kernels/serve.h over simulated decode
 * steps. Each step runs the ordinary simulator (Simulator_run, unpaced) for one MoE
 * decode step with the batch's tokens (two micro-batches of ceil(B/2)); its kernels,
 * copies and launches are shifted to the step's start and emitted, beside counter
 * samples at the step's start ("[serve] GPU N batch size", "... queue length", "...
 * memory in use" (bytes), "... tokens/s"), a "serve::step" range per step and a
 * "serve::request" range per request from its arrival to its last token. */
#include "serve_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"

typedef struct {
    RingRecord rec;
    const char *name;
} Rec;

typedef struct {
    Rec *v;
    size_t n, cap;
} RecVec;

static void collect(const RingRecord *rec, const char *name, void *ctx) {
    RecVec *c = ctx;
    GROW(c->v, c->cap, c->n + 1);
    c->v[c->n++] = (Rec){*rec, name};
}

typedef struct {
    const ServeSink *sink;
    int64_t base;
    uint32_t pid;
} DoneCtx;

static void range(const ServeSink *k, int64_t tid, int64_t t0, int64_t dur, const char *name) {
    RingRecord r = {0};
    r.kind = RING_KIND_NVTX_RANGE;
    r.ts_ns = k->base_ns + t0;
    r.dur_ns = dur;
    r.stream = -1;
    r.device = -1;
    r.pid = k->pid;
    r.tid = tid;
    k->push(k->ctx, t0 + dur, &r, name);
}

static void on_done(const ServeRequest *q, void *ctx) {
    const ServeSink *k = ctx;
    range(k, SERVE_TID_REQUESTS, q->arrive, q->done - q->arrive, "serve::request");
}

static void counter(const ServeSink *k, int64_t t, const char *name, double v) {
    RingRecord r = {0};
    r.kind = RING_KIND_COUNTER;
    r.ts_ns = k->base_ns + t;
    r.stream = -1;
    r.device = -1;
    r.pid = k->pid;
    r.tid = SERVE_TID_COUNTERS;
    memcpy(&r.arg, &v, sizeof v);
    k->push(k->ctx, t, &r, name);
}

/* FLOPs of one decode step with tokens per micro-batch (cached by batch). */
static double step_flops(const SimConfig *cfg, int tokens) {
    ScheduleParams p = cfg->params;
    p.mode = SCHED_DECODE;
    p.tokens = tokens;
    Schedule *s = Schedule_build(&p, NULL, 0);
    if (!s) return 0;
    double f = 0;
    for (size_t i = 0; i < s->n_ops; i++) f += s->ops[i].flops;
    Schedule_free(s);
    return f;
}

void ServeSim_loop(const SimConfig *cfg, const ServeSink *k) {
    ServeState st;
    Serve_init(&st, &cfg->serve_params);
    char names[4][64];
    snprintf(names[0], 64, "[serve] GPU %d batch size", cfg->device);
    snprintf(names[1], 64, "[serve] GPU %d queue length", cfg->device);
    snprintf(names[2], 64, "[serve] GPU %d memory in use", cfg->device);
    snprintf(names[3], 64, "[serve] GPU %d tokens/s", cfg->device);
    int maxb = cfg->serve_params.max_batch;
    double *flops = xcalloc((size_t)maxb + 1, sizeof *flops);
    RecVec rv = {0};
    int64_t now = 0;
    uint64_t steps = 0;
    uint32_t corr_base = 0; /* each step's launches and kernels keep distinct correlation ids */
    const int64_t inner_base = 1000000000; /* the inner simulator's t = 0 */
    for (;;) {
        if (cfg->max_steps && steps >= cfg->max_steps) break;
        int64_t wait;
        int b = Serve_plan(&st, now, &wait);
        if (b == 0) {
            now = wait;
            if (!k->flush(k->ctx, now)) break;
            continue;
        }
        /* one decode step of b requests: two micro-batches of ceil(b/2) tokens */
        SimConfig in = *cfg;
        in.serve = false;
        in.params.mode = SCHED_DECODE;
        in.params.tokens = (b + 1) / 2;
        in.seed = cfg->seed + steps;
        in.start_ns = inner_base;
        rv.n = 0;
        if (!Simulator_run(&in, 1, collect, &rv, NULL, 0) || !rv.n) break;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t i = 0; i < rv.n; i++) {
            if (rv.v[i].rec.ts_ns < lo) lo = rv.v[i].rec.ts_ns;
            if (rv.v[i].rec.ts_ns + rv.v[i].rec.dur_ns > hi) hi = rv.v[i].rec.ts_ns + rv.v[i].rec.dur_ns;
        }
        int64_t span = hi - lo > 1 ? hi - lo : 1, t0 = now, t1 = now + span;
        if (b <= maxb && flops[b] == 0) flops[b] = step_flops(cfg, (b + 1) / 2);
        double util = b <= maxb ? flops[b] / (cfg->params.tflops * 1e12) * 1e9 / (double)span : 1;
        if (util > 1) util = 1;
        counter(k, t0, names[0], b);
        counter(k, t0, names[1], (double)Serve_queueLength(&st));
        counter(k, t0, names[2], Serve_memoryInUse(&st));
        counter(k, t0, names[3], (double)b * 1e9 / (double)span);
        uint32_t corr_max = 0;
        for (size_t i = 0; i < rv.n; i++) {
            RingRecord r = rv.v[i].rec;
            r.ts_ns = r.ts_ns - lo + t0 + k->base_ns;
            r.pid = k->pid;
            if (r.correlation) {
                if (r.correlation > corr_max) corr_max = r.correlation;
                r.correlation += corr_base;
            }
            k->push(k->ctx, r.ts_ns - k->base_ns + r.dur_ns, &r, rv.v[i].name);
        }
        corr_base += corr_max;
        range(k, SERVE_TID_STEPS, t0, span, "serve::step");
        Serve_stepDone(&st, t0, t1, util, on_done, (void *)k);
        now = t1;
        steps++;
        if (k->step_done) k->step_done(k->ctx);
        if (!k->flush(k->ctx, now)) break;
    }
    k->flush(k->ctx, INT64_MAX);
    free(rv.v);
    free(flops);
    Serve_free(&st);
}
