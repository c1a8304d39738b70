/* Serving with dynamic / fixed batching. The policy (kernels/serve.c) is
 * checked step by step against its contract; the trade-off is measured on the
 * simulator's trace: every figure compared below is computed by ServeStats_compute
 * (what `ovtrace stats` prints) from the events the simulator emitted, through the
 * live store, as a recording would hold them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ovtrace/analysis/counters.h"
#include "ovtrace/live/live.h"
#include "ovtrace/kernels/serve.h"
#include "ovtrace/analysis/serve_stats.h"

static const int64_t STEP = 1000000; /* 1 ms per step in the policy tests */

/* Runs the policy alone with constant step time until `steps` steps; checks the memory
 * contract on every step; returns the largest batch. util: reported per step. */
static int drive(ServeState *s, int steps, double util, int64_t *now_out) {
    int64_t now = 0;
    int maxb = 0;
    for (int k = 0; k < steps;) {
        int64_t wait;
        int b = Serve_plan(s, now, &wait);
        if (!b) {
            assert_true(wait > now);
            now = wait;
            continue;
        }
        assert_int_equal((size_t)b, s->n_active);
        assert_true(b <= s->p.max_batch);
        assert_true(b <= ServeParams_memLimit(&s->p));
        assert_true(Serve_memoryInUse(s) <= s->p.mem_cap);
        if (b > maxb) maxb = b;
        Serve_stepDone(s, now, now + STEP, util, NULL, NULL);
        now += STEP;
        k++;
    }
    if (now_out) *now_out = now;
    return maxb;
}

static void policy_contract(void **state) {
    (void)state;
    ServeParams p;
    ServeParams_default(&p);
    char err[256];
    assert_true(ServeParams_validate(&p, err, sizeof err));
    /* the memory cap: (10 - 8) GiB over (512 + 63) tokens x 70 KiB + 4 MiB per request */
    double per = (512.0 + 63) * 70 * 1024 + 4.0 * 1048576;
    assert_true(ServeParams_reservePerRequest(&p) == per);
    assert_int_equal(ServeParams_memLimit(&p), (int)(2.0 * 1073741824 / per));
    assert_int_equal(ServeParams_fixedBatch(&p), 47);
    /* overloaded (10x what 1 ms steps of 47 serve): the batch reaches the cap, never more */
    p.rate = 100000;
    ServeState s;
    Serve_init(&s, &p);
    assert_int_equal(drive(&s, 200, 0.1, NULL), 47);
    Serve_free(&s);
    /* a saturated GPU (utilisation 1 >= 0.9): the batch grows only when the queue (at
     * the decision) is longer than the batch; below the target it takes the queue */
    int grew[2] = {0, 0}, grew_short_queue[2] = {0, 0};
    int64_t now = 0, wait;
    for (int u = 0; u < 2; u++) {
        ServeParams_default(&p);
        p.rate = 3000;
        Serve_init(&s, &p);
        now = 0;
        for (int k = 0; k < 300;) {
            size_t q0 = s.q_head, a0 = s.n_active;
            int b = Serve_plan(&s, now, &wait);
            if (!b) {
                now = wait;
                continue;
            }
            size_t queued = s.n_req - q0; /* at the decision, arrivals included */
            if ((size_t)b > a0) {
                grew[u]++;
                if (queued <= a0) grew_short_queue[u]++;
            }
            Serve_stepDone(&s, now, now + STEP, u ? 1.0 : 0.1, NULL, NULL);
            now += STEP;
            k++;
        }
        Serve_free(&s);
    }
    assert_true(grew[1] > 0);                 /* it still grows with a long queue */
    assert_int_equal(grew_short_queue[1], 0); /* but never on a short one when saturated */
    assert_true(grew_short_queue[0] > 0);     /* whereas an unsaturated GPU takes a short queue too */
    /* dynamic admits the first request at once; fixed waits (for a full batch or
     * max_wait) and then runs its batch to the end before admitting anyone else */
    ServeParams_default(&p);
    p.rate = 100;
    Serve_init(&s, &p);
    int64_t t_first = s.next_arrival;
    assert_int_equal(Serve_plan(&s, t_first, &wait), 1);
    Serve_free(&s);
    p.batching = SERVE_FIXED;
    Serve_init(&s, &p);
    assert_int_equal(Serve_plan(&s, t_first, &wait), 0);
    assert_true(wait <= t_first + p.max_wait_ns);
    int b = 0;
    now = t_first;
    while (!(b = Serve_plan(&s, now, &wait))) now = wait;
    assert_true(now >= t_first + p.max_wait_ns || b == 47);
    size_t batch_reqs = s.n_active;
    int64_t later = now;
    while (s.n_active) { /* no admission until the batch is done */
        assert_true(s.n_active <= batch_reqs);
        Serve_stepDone(&s, later, later + STEP, 0.1, NULL, NULL);
        later += STEP;
        if (s.n_active) assert_int_equal(Serve_plan(&s, later, &wait), (int)s.n_active);
    }
    Serve_free(&s);
    /* min_batch: dynamic waits for 3 requests (or max_wait) */
    ServeParams_default(&p);
    p.rate = 100;
    p.min_batch = 3;
    Serve_init(&s, &p);
    now = 0;
    while (!(b = Serve_plan(&s, now, &wait))) now = wait;
    assert_true(b >= 3 || now - s.req[0].arrive >= p.max_wait_ns);
    Serve_free(&s);
    /* validation */
    ServeParams_default(&p);
    p.mem_cap = p.weight_bytes; /* no room for a request */
    assert_false(ServeParams_validate(&p, err, sizeof err));
    assert_non_null(strstr(err, "--mem-cap"));
    assert_int_equal(ServeBatching_parse("fixed"), SERVE_FIXED);
    assert_int_equal(ServeBatching_parse("adaptive"), -1);
}

static void to_store(const RingRecord *rec, const char *name, void *ctx) { LiveStore_add(ctx, rec, name); }

/* Simulates `steps` serving steps and returns the serving figures of the trace. */
static ServeStats simulate(ServeBatching b, double rate, int steps, Trace **keep) {
    SimConfig cfg;
    SimConfig_default(&cfg, SCHED_DECODE);
    cfg.serve = true;
    ServeParams_default(&cfg.serve_params);
    cfg.serve_params.batching = b;
    cfg.serve_params.rate = rate;
    cfg.start_ns = 1000000000;
    LiveStoreConfig sc;
    LiveStoreConfig_default(&sc);
    sc.retention_ns = -1;
    sc.simulated = true;
    LiveStore *st = LiveStore_new(NULL, &sc);
    char err[256] = "";
    assert_true(Simulator_run(&cfg, (uint64_t)steps, to_store, st, err, sizeof err));
    Trace *t = LiveStore_snapshot(st, SIZE_MAX, INT64_MIN);
    assert_non_null(t);
    CounterSet *cs = CounterSet_build(t);
    ServeStats s;
    assert_true(ServeStats_compute(t, cs, INT64_MIN, INT64_MAX, &s));
    assert_int_equal(s.steps, (size_t)steps);
    /* the MoE kernels are there beside the serving events */
    size_t kernels = 0;
    for (size_t i = 0; i < t->n_events; i++) kernels += t->events[i].kind == KIND_KERNEL;
    assert_true(kernels >= (size_t)steps);
    /* both policies stay under the same memory cap */
    assert_true(s.memory_max > 0 && s.memory_max <= cfg.serve_params.mem_cap);
    CounterSet_free(cs);
    if (keep) *keep = t;
    else Trace_free(t);
    LiveStore_free(st);
    return s;
}

static void tradeoff_high_load(void **state) {
    (void)state;
    /* more requests than either policy serves: throughput is what the batching achieves */
    ServeStats d = simulate(SERVE_DYNAMIC, 2000, 400, NULL), f = simulate(SERVE_FIXED, 2000, 400, NULL);
    fprintf(stderr, "high load: dynamic %.0f tok/s (mean batch %.1f), fixed %.0f tok/s (mean batch %.1f)\n",
            d.throughput, d.mean_batch, f.throughput, f.mean_batch);
    assert_true(d.throughput > f.throughput);
    assert_true(d.mean_batch > f.mean_batch);
    assert_true(d.max_batch <= 47 && f.max_batch <= 47);
}

static void tradeoff_low_load(void **state) {
    (void)state;
    /* 100 requests/s: a fixed batch waits to fill and runs to its longest request */
    Trace *t;
    ServeStats d = simulate(SERVE_DYNAMIC, 100, 400, &t), f = simulate(SERVE_FIXED, 100, 400, NULL);
    fprintf(stderr, "low load: p99 dynamic %.2f ms (%zu requests), fixed %.2f ms (%zu requests); p50 %.2f / %.2f ms\n",
            (double)d.latency_p99_ns / 1e6, d.requests, (double)f.latency_p99_ns / 1e6, f.requests,
            (double)d.latency_p50_ns / 1e6, (double)f.latency_p50_ns / 1e6);
    assert_true(d.requests >= 20 && f.requests >= 20);
    assert_true(d.latency_p99_ns < f.latency_p99_ns);
    assert_true(d.latency_p50_ns <= d.latency_p99_ns && d.latency_p99_ns <= d.latency_max_ns);
    /* the counter series are shown under GPU 0 */
    CounterSet *cs = CounterSet_build(t);
    size_t under_gpu = 0;
    for (size_t i = 0; i < cs->n; i++) under_gpu += t->groups[cs->s[i].group].gpu;
    assert_int_equal(under_gpu, 4);
    CounterSet_free(cs);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(policy_contract),
        cmocka_unit_test(tradeoff_high_load),
        cmocka_unit_test(tradeoff_low_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
