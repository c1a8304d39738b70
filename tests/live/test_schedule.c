/* The schedule description: ops per layer, streams, names, dependencies; and the
 * simulator executes exactly that schedule (stream order, deps respected in time). */
#include "live_test_util.h"

#include "ovtrace/model/classify.h"
#include "ovtrace/kernels/schedule.h"

static Schedule *build(SchedMode m, int layers) {
    ScheduleParams p;
    ScheduleParams_default(&p, m);
    p.layers = layers;
    char err[256];
    Schedule *s = Schedule_build(&p, err, sizeof err);
    if (!s) fail_msg("%s", err);
    return s;
}

static const SchedOp *find(const Schedule *s, int layer, int mb, SchedPhase ph) {
    for (size_t i = 0; i < s->n_ops; i++)
        if (s->ops[i].layer == layer && s->ops[i].mb == mb && s->ops[i].phase == ph) return &s->ops[i];
    fail_msg("op L%d mb%d %s missing", layer, mb, SchedPhase_name(ph));
    return NULL;
}

static bool has_dep(const SchedOp *op, const SchedOp *target, uint32_t flags) {
    for (uint32_t i = 0; i < op->n_deps; i++)
        if (op->deps[i].op == target->index && op->deps[i].flags == flags) return true;
    return false;
}

static void check_overlapped(SchedMode mode) {
    Schedule *s = build(mode, 3);
    CommRules *rules = CommRules_default();
    assert_int_equal(s->n_streams, 3);
    assert_int_equal(s->n_ops, 3 * 2 * SCHED_PH__COUNT);
    assert_true(s->streams[SCHED_STREAM_MB0].id != s->streams[SCHED_STREAM_MB1].id);
    assert_true(s->streams[SCHED_STREAM_COMM].priority < 0);
    for (int L = 0; L < 3; L++)
        for (int mb = 0; mb < 2; mb++) {
            int cs = mb ? SCHED_STREAM_MB1 : SCHED_STREAM_MB0;
            const SchedOp *a = find(s, L, mb, SCHED_PH_ATTN), *g = find(s, L, mb, SCHED_PH_GATE),
                          *d = find(s, L, mb, SCHED_PH_DISPATCH), *e = find(s, L, mb, SCHED_PH_EXPERT),
                          *c = find(s, L, mb, SCHED_PH_COMBINE), *sh = find(s, L, mb, SCHED_PH_SHARED);
            /* streams */
            assert_int_equal(a->stream, cs);
            assert_int_equal(g->stream, cs);
            assert_int_equal(e->stream, cs);
            assert_int_equal(sh->stream, cs);
            assert_int_equal(d->stream, SCHED_STREAM_COMM);
            assert_int_equal(c->stream, SCHED_STREAM_COMM);
            /* names: compute names are compute, comm names are communication */
            assert_string_equal(a->name, SCHED_NAME_ATTN);
            assert_string_equal(g->name, SCHED_NAME_GATE);
            assert_string_equal(e->name, SCHED_NAME_EXPERT);
            assert_string_equal(sh->name, SCHED_NAME_SHARED);
            for (const SchedOp *x = a; x; x = x == a ? g : x == g ? e : x == e ? sh : NULL)
                assert_false(CommRules_nameIsComm(rules, x->name));
            if (mode == SCHED_PREFILL) {
                assert_true(CommRules_nameIsComm(rules, d->name));
                assert_true(CommRules_nameIsComm(rules, c->name));
                assert_int_equal(d->kind, SCHED_OP_COMM_KERNEL);
                assert_int_equal(d->sms, s->p.comm_sms);
                assert_non_null(strstr(d->name, "dispatch"));
                assert_non_null(strstr(c->name, "combine"));
            } else {
                assert_int_equal(d->kind, SCHED_OP_COPY);
                assert_int_equal(c->kind, SCHED_OP_COPY);
                assert_int_equal(d->sms, 0);
                assert_non_null(strstr(d->name, "PtoP")); /* the loader flags it P2P: comm */
            }
            assert_true(a->flops > 0 && e->flops > 0 && g->flops > 0 && sh->flops > 0);
            assert_true(d->link_bytes > 0 && c->link_bytes > 2 * d->link_bytes * 0.99); /* BF16 vs FP8 */
            char want[24];
            snprintf(want, sizeof want, "mb%d/attn", mb);
            assert_string_equal(a->nvtx, want);
            /* data dependencies */
            assert_true(has_dep(d, g, SCHED_DEP_DATA));
            assert_true(has_dep(e, d, SCHED_DEP_DATA));
            assert_true(has_dep(c, e, SCHED_DEP_DATA));
            if (L > 0) assert_true(has_dep(a, find(s, L - 1, mb, SCHED_PH_COMBINE), SCHED_DEP_DATA));
            else assert_true(has_dep(a, find(s, 2, mb, SCHED_PH_COMBINE), SCHED_DEP_DATA | SCHED_DEP_PREV_STEP));
            assert_true(g->is_dep_target && d->is_dep_target && e->is_dep_target && c->is_dep_target);
            /* program order: dispatch issued after its gate, expert after dispatch */
            assert_true(d->index > g->index && e->index > d->index && c->index > e->index);
        }
    /* mb0's comm is issued before mb1's compute of the layer: dispatch0 < attn1 */
    assert_true(find(s, 0, 0, SCHED_PH_DISPATCH)->index < find(s, 0, 1, SCHED_PH_ATTN)->index);
    /* compute ops form one chain: each compute op on another stream than the previous
     * compute op has an ORDER dep on it */
    const SchedOp *prev = NULL;
    for (size_t i = 0; i < s->n_ops; i++) {
        const SchedOp *op = &s->ops[i];
        if (op->kind != SCHED_OP_COMPUTE) continue;
        if (prev && prev->stream != op->stream) assert_true(has_dep(op, prev, SCHED_DEP_ORDER));
        prev = op;
    }
    /* every dep points backwards unless it refers to the previous step */
    for (size_t i = 0; i < s->n_ops; i++)
        for (uint32_t k = 0; k < s->ops[i].n_deps; k++)
            if (!(s->ops[i].deps[k].flags & SCHED_DEP_PREV_STEP)) assert_true(s->ops[i].deps[k].op < i);
    CommRules_free(rules);
    Schedule_free(s);
}

static void test_prefill_structure(void **st) {
    (void)st;
    check_overlapped(SCHED_PREFILL);
}

static void test_decode_structure(void **st) {
    (void)st;
    check_overlapped(SCHED_DECODE);
}

static void test_serial_structure(void **st) {
    (void)st;
    Schedule *s = build(SCHED_SERIAL, 2);
    assert_int_equal(s->n_streams, 1);
    assert_int_equal(s->n_ops, 2 * 2 * SCHED_PH__COUNT);
    for (size_t i = 0; i < s->n_ops; i++) {
        assert_int_equal(s->ops[i].stream, SCHED_STREAM_MB0);
        assert_int_equal(s->ops[i].n_deps, 0);
    }
    /* per micro-batch the phases run in model order */
    SchedPhase want[] = {SCHED_PH_ATTN, SCHED_PH_GATE, SCHED_PH_DISPATCH, SCHED_PH_EXPERT, SCHED_PH_COMBINE, SCHED_PH_SHARED};
    for (size_t i = 0; i < s->n_ops; i++) assert_int_equal(s->ops[i].phase, want[i % 6]);
    Schedule_free(s);
}

static void test_params(void **st) {
    (void)st;
    ScheduleParams p;
    char err[256];
    ScheduleParams_default(&p, SCHED_PREFILL);
    assert_int_equal(p.comm_sms, 20);
    assert_int_equal(p.total_sms, 132);
    assert_true(p.link_gbps == 160.0);
    ScheduleParams_setLink(&p, SCHED_LINK_IB);
    assert_true(p.link_gbps == 50.0);
    p.comm_sms = 132;
    assert_false(ScheduleParams_validate(&p, err, sizeof err));
    assert_non_null(strstr(err, "comm-sms"));
    assert_null(Schedule_build(&p, err, sizeof err));
    ScheduleParams_default(&p, SCHED_PREFILL);
    p.topk = p.experts + 1;
    assert_false(ScheduleParams_validate(&p, err, sizeof err));
    assert_int_equal(SchedMode_parse("decode"), SCHED_DECODE);
    assert_int_equal(SchedMode_parse("bogus"), -1);
    assert_int_equal(SchedLink_parse("ib"), SCHED_LINK_IB);
    /* cost model: IB is slower than NVLink; more comm SMs than full_bw_sms gain nothing */
    ScheduleParams_default(&p, SCHED_PREFILL);
    Schedule *a = Schedule_build(&p, err, sizeof err);
    ScheduleParams_setLink(&p, SCHED_LINK_IB);
    Schedule *b = Schedule_build(&p, err, sizeof err);
    const SchedOp *da = find(a, 0, 0, SCHED_PH_DISPATCH), *db = find(b, 0, 0, SCHED_PH_DISPATCH);
    assert_true(Schedule_opWorkNs(b, db) > 3 * Schedule_opWorkNs(a, da) * 0.9);
    assert_non_null(strstr(db->name, "internode"));
    char js[1024];
    ScheduleParams_json(&p, js, sizeof js);
    assert_non_null(strstr(js, "\"link\": \"ib\""));
    Schedule_free(a);
    Schedule_free(b);
}

/* ---- the simulator runs exactly the schedule ---- */

typedef struct {
    RingRecord *r;
    char **names;
    size_t n, cap;
} Collect;

static void collect(const RingRecord *rec, const char *name, void *ctx) {
    Collect *c = ctx;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->r = realloc(c->r, c->cap * sizeof *c->r);
        c->names = realloc(c->names, c->cap * sizeof *c->names);
    }
    c->r[c->n] = *rec;
    c->names[c->n++] = (char *)name;
}

static void check_sim_follows(SchedMode mode) {
    SimConfig cfg;
    SimConfig_default(&cfg, mode);
    cfg.params.layers = 2;
    Schedule *s = Schedule_build(&cfg.params, NULL, 0);
    Collect c = {0};
    const uint64_t steps = 3;
    assert_true(Simulator_run(&cfg, steps, collect, &c, NULL, 0));
    /* every GPU op once per step, with a launch (same correlation) before it */
    size_t gpu = 0, launches = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (c.r[i].kind == RING_KIND_RUNTIME) launches++;
        else gpu++;
    }
    assert_int_equal(gpu, steps * s->n_ops);
    assert_int_equal(launches, steps * s->n_ops);
    /* correlation k belongs to op (k-1) % n_ops of step (k-1) / n_ops */
    int64_t *start = calloc(steps * s->n_ops, sizeof *start), *end = calloc(steps * s->n_ops, sizeof *end);
    int64_t *lend = calloc(steps * s->n_ops, sizeof *lend);
    for (size_t i = 0; i < c.n; i++) {
        uint32_t k = c.r[i].correlation - 1;
        assert_true(k < steps * s->n_ops);
        if (c.r[i].kind == RING_KIND_RUNTIME) {
            lend[k] = c.r[i].ts_ns + c.r[i].dur_ns;
            continue;
        }
        const SchedOp *op = &s->ops[k % s->n_ops];
        assert_string_equal(c.names[i], op->name);
        assert_int_equal(c.r[i].stream, s->streams[op->stream].id);
        assert_int_equal(c.r[i].kind, op->kind == SCHED_OP_COPY ? RING_KIND_MEMCPY : RING_KIND_KERNEL);
        start[k] = c.r[i].ts_ns;
        end[k] = c.r[i].ts_ns + c.r[i].dur_ns;
        assert_true(c.r[i].dur_ns > 0);
    }
    for (uint64_t st = 0; st < steps; st++)
        for (size_t i = 0; i < s->n_ops; i++) {
            size_t k = st * s->n_ops + i;
            const SchedOp *op = &s->ops[i];
            assert_true(start[k] >= lend[k]); /* starts after its launch */
            for (uint32_t d = 0; d < op->n_deps; d++) {
                if ((op->deps[d].flags & SCHED_DEP_PREV_STEP) && st == 0) continue;
                size_t dk = (op->deps[d].flags & SCHED_DEP_PREV_STEP ? (st - 1) : st) * s->n_ops + op->deps[d].op;
                assert_true(end[dk] <= start[k]);
            }
            /* stream order: the previous op on the same stream ended before */
            for (size_t j = i; j-- > 0;)
                if (s->ops[j].stream == op->stream) {
                    assert_true(end[st * s->n_ops + j] <= start[k]);
                    break;
                }
        }
    /* events arrive in end-time order per producer (like completed CUPTI records) */
    for (size_t i = 1; i < c.n; i++)
        assert_true(c.r[i].ts_ns + c.r[i].dur_ns >= c.r[i - 1].ts_ns + c.r[i - 1].dur_ns);
    free(start);
    free(end);
    free(lend);
    free(c.r);
    free(c.names);
    Schedule_free(s);
}

static void test_sim_follows_prefill(void **st) {
    (void)st;
    check_sim_follows(SCHED_PREFILL);
}
static void test_sim_follows_decode(void **st) {
    (void)st;
    check_sim_follows(SCHED_DECODE);
}
static void test_sim_follows_serial(void **st) {
    (void)st;
    check_sim_follows(SCHED_SERIAL);
}

/* Equal seeds give equal traces; different seeds differ (jitter is real). */
static void test_seed(void **st) {
    (void)st;
    SimConfig cfg;
    SimConfig_default(&cfg, SCHED_PREFILL);
    cfg.params.layers = 1;
    cfg.start_ns = 1000000000;
    Collect a = {0}, b = {0}, c = {0};
    assert_true(Simulator_run(&cfg, 2, collect, &a, NULL, 0));
    assert_true(Simulator_run(&cfg, 2, collect, &b, NULL, 0));
    cfg.seed = 99;
    assert_true(Simulator_run(&cfg, 2, collect, &c, NULL, 0));
    assert_int_equal(a.n, b.n);
    bool diff = false;
    for (size_t i = 0; i < a.n; i++) {
        assert_true(a.r[i].ts_ns == b.r[i].ts_ns && a.r[i].dur_ns == b.r[i].dur_ns);
        if (i < c.n && c.r[i].dur_ns != a.r[i].dur_ns) diff = true;
    }
    assert_true(diff);
    free(a.r), free(a.names), free(b.r), free(b.names), free(c.r), free(c.names);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefill_structure),   cmocka_unit_test(test_decode_structure),
        cmocka_unit_test(test_serial_structure),    cmocka_unit_test(test_params),
        cmocka_unit_test(test_sim_follows_prefill), cmocka_unit_test(test_sim_follows_decode),
        cmocka_unit_test(test_sim_follows_serial),  cmocka_unit_test(test_seed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
