/* Multi-rank simulation with known answers: in serial mode without jitter every rank
 * reaches a dispatch at the same instant (no wait) and reaches a combine after its own
 * expert GEMMs, so a rank waits at each combine exactly (the slowest rank's expert time -
 * its own). The expected waits are computed from the expert kernels' durations in the
 * loaded files, independently of the matcher. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/analysis/collectives.h"
#include "ovtrace/read/load.h"
#include "ovtrace/live/simranks.h"

#define MAXR 16

static Trace *simulate(const SimRanksConfig *c, char *dir) {
    char out[256], err[512];
    snprintf(out, sizeof out, "%s/sim.json", dir);
    uint64_t events = 0;
    if (!SimRanks_write(c, out, &events, err, sizeof err)) fail_msg("%s", err);
    assert_true(events > 0);
    char *paths[MAXR];
    for (int r = 0; r < c->ranks; r++) paths[r] = SimRanks_path(out, r);
    Trace *t = Load_files((const char **)paths, (size_t)c->ranks, NULL, err, sizeof err);
    if (!t) fail_msg("%s", err);
    for (int r = 0; r < c->ranks; r++) {
        unlink(paths[r]);
        free(paths[r]);
    }
    return t;
}

static void test_combine_waits_follow_load(void **state) {
    (void)state;
    char dir[] = "/tmp/ovtrace-simranks-XXXXXX";
    assert_non_null(mkdtemp(dir));
    SimRanksConfig c;
    SimRanksConfig_default(&c, SCHED_SERIAL);
    c.ranks = 6;
    c.imbalance = 1.0;
    c.jitter = 0;
    c.steps = 3;
    Trace *t = simulate(&c, dir);
    rmdir(dir);
    double load[MAXR];
    SimRanks_loads(&c, load);
    int hot = 0;
    for (int r = 1; r < c.ranks; r++)
        if (load[r] > load[hot]) hot = r;
    assert_true(load[hot] > 1.05); /* the knob makes a real straggler */
    /* expert time per rank and number of combines, from the events themselves */
    int64_t expert[MAXR] = {0};
    size_t combines[MAXR] = {0}, dispatches[MAXR] = {0};
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        int r = t->lanes[e->lane].rank;
        const char *nm = Trace_name(t, e);
        if (!strcmp(nm, SCHED_NAME_EXPERT)) expert[r] += e->dur;
        if (strstr(nm, "::combine<")) combines[r]++;
        if (strstr(nm, "::dispatch<")) dispatches[r]++;
    }
    size_t n_comb = combines[0], per = n_comb; /* expert GEMM groups = combines */
    assert_true(n_comb > 0);
    int64_t emax = 0;
    for (int r = 0; r < c.ranks; r++) {
        assert_int_equal(combines[r], n_comb);
        if (expert[r] > emax) emax = expert[r];
    }
    assert_int_equal(expert[hot], emax);
    CollReport *R = Coll_analyze(t, NULL);
    assert_int_equal(R->unmatched + R->mismatched, 0);
    assert_int_equal(R->n_inst, n_comb + dispatches[0]);
    assert_false(R->unreliable);
    assert_int_equal(R->max_end_spread, 0);
    for (int r = 0; r < c.ranks; r++) {
        const CollRank *cr = Coll_rank(R, r);
        /* every expert group has the same duration (no jitter), so the per-group waits add
         * up to the difference of the totals */
        assert_int_equal(cr->wait, emax - expert[r]);
        assert_int_equal(cr->arrived_last, r == hot ? per : 0);
    }
    assert_int_equal(Coll_straggler(R)->rank, hot);
    /* dispatch instances: everybody at once */
    for (size_t i = 0; i < R->n_inst; i++) {
        const char *nm = Coll_nameStr(t, R, R->inst[i].name);
        if (strstr(nm, "::dispatch<")) assert_int_equal(R->inst[i].skew, 0);
        else assert_int_equal(R->inst[i].last_rank, hot);
    }
    CollReport_free(R);
    Trace_free(t);
}

/* Two nodes of 8, the second's clock 1 ms ahead: detected, named, exact. */
static void test_clock_skew_detected(void **state) {
    (void)state;
    char dir[] = "/tmp/ovtrace-simranks-XXXXXX";
    assert_non_null(mkdtemp(dir));
    SimRanksConfig c;
    SimRanksConfig_default(&c, SCHED_PREFILL);
    c.ranks = 16;
    c.jitter = 0;
    c.steps = 1;
    c.clock_skew_ns = 1000000;
    Trace *t = simulate(&c, dir);
    rmdir(dir);
    CollReport *R = Coll_analyze(t, NULL);
    assert_true(R->n_inst > 0);
    assert_true(R->unreliable);
    for (int r = 0; r < 16; r++) assert_int_equal(Coll_rank(R, r)->clock_offset, r < 8 ? 0 : 1000000);
    assert_int_equal(R->median_end_spread, 1000000);
    CollReport_free(R);
    Trace_free(t);
}

/* Deterministic for a seed; different seeds move the hot experts. */
static void test_loads(void **state) {
    (void)state;
    SimRanksConfig c;
    SimRanksConfig_default(&c, SCHED_PREFILL);
    c.ranks = 8;
    double a[8], b[8];
    c.imbalance = 0;
    SimRanks_loads(&c, a);
    for (int r = 0; r < 8; r++) assert_true(a[r] > 0.999999 && a[r] < 1.000001);
    c.imbalance = 1.2;
    SimRanks_loads(&c, a);
    SimRanks_loads(&c, b);
    double sum = 0;
    for (int r = 0; r < 8; r++) {
        assert_true(a[r] == b[r]);
        sum += a[r];
    }
    assert_true(sum > 7.999999 && sum < 8.000001);
    c.seed = 2;
    SimRanks_loads(&c, b);
    int same = 0;
    for (int r = 0; r < 8; r++) same += a[r] == b[r];
    assert_true(same < 8);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_combine_waits_follow_load),
        cmocka_unit_test(test_clock_skew_detected),
        cmocka_unit_test(test_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
