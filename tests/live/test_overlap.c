/* Simulated recordings, loaded back like any file: overlap figures per mode, the cost
 * of comm SMs in prefill, and the recording's metadata. */
#include <cjson/cJSON.h>

#include "live_test_util.h"

static Trace *record_mode(SchedMode mode, int comm_sms, uint64_t steps, const char *suffix) {
    SimConfig cfg;
    SimConfig_default(&cfg, mode);
    if (comm_sms) cfg.params.comm_sms = comm_sms;
    LiveStore *s = simulate_store(&cfg, steps);
    Trace *t = roundtrip(s, suffix);
    LiveStore_free(s);
    return t;
}

static void test_prefill_hidden(void **st) {
    (void)st;
    Trace *t = record_mode(SCHED_PREFILL, 0, 6, ".json.zst");
    int64_t comm;
    double r = total_ratio(t, NULL, &comm);
    print_message("prefill overlap ratio %.4f (comm %lld ns)\n", r, (long long)comm);
    assert_true(comm > 0);
    assert_true(r >= 0.8);
    Trace_free(t);
}

static void test_decode_hidden(void **st) {
    (void)st;
    Trace *t = record_mode(SCHED_DECODE, 0, 10, ".json.gz");
    int64_t comm;
    double r = total_ratio(t, NULL, &comm);
    print_message("decode overlap ratio %.4f\n", r);
    assert_true(comm > 0);
    assert_true(r >= 0.8);
    /* decode's comm is copy-engine traffic (P2P memcpy), not kernels */
    size_t copies = 0;
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == KIND_MEMCPY) {
            assert_int_equal(t->events[i].cls, CLASS_COMM);
            copies++;
        }
    assert_true(copies > 0);
    Trace_free(t);
}

static void test_serial_exposed(void **st) {
    (void)st;
    Trace *t = record_mode(SCHED_SERIAL, 0, 4, ".json");
    int64_t comm;
    double r = total_ratio(t, NULL, &comm);
    print_message("serial overlap ratio %.4f\n", r);
    assert_true(comm > 0);
    assert_true(r < 0.05);
    Trace_free(t);
}

/* Compute kernel time per step, from the loaded trace. */
static double compute_per_step(const Trace *t) {
    double total = 0;
    size_t gates = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->kind != KIND_KERNEL || e->cls != CLASS_COMPUTE) continue;
        total += (double)e->dur;
        if (!strcmp(Trace_name(t, e), "moe::gate")) gates++;
    }
    return gates ? total / (double)gates : 0;
}

static void test_comm_sms_slow_compute(void **st) {
    (void)st;
    double prev = 0;
    /* up to full_bw_sms (20) more SMs also make comm faster, so the SM-time comm holds
     * stays the same; beyond it, more SMs only take compute away */
    int sms[] = {20, 40, 80, 120};
    for (size_t i = 0; i < 4; i++) {
        Trace *t = record_mode(SCHED_PREFILL, sms[i], 4, ".json.zst");
        double c = compute_per_step(t);
        print_message("comm SMs %3d: compute per layer and micro-batch %.0f ns\n", sms[i], c);
        assert_true(c > 0);
        if (i) assert_true(c > prev * 1.01);
        prev = c;
        Trace_free(t);
    }
}

static void test_recording_metadata(void **st) {
    (void)st;
    Trace *t = record_mode(SCHED_DECODE, 0, 1, ".json.zst");
    assert_int_equal(t->n_sources, 1);
    const char *m = t->sources[0].meta_json;
    assert_non_null(m);
    cJSON *j = cJSON_Parse(m);
    assert_non_null(j);
    cJSON *o = cJSON_GetObjectItem(j, "ovtrace");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "simulated")));
    cJSON *p = cJSON_GetObjectItem(o, "params");
    assert_string_equal(cJSON_GetObjectItem(p, "mode")->valuestring, "decode");
    assert_int_equal(cJSON_GetObjectItem(p, "comm_sms")->valueint, 20);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "ring"), "drops")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "recording"), "complete")));
    cJSON_Delete(j);
    /* lanes: 3 GPU streams named by the schedule, marked SIMULATED; one host thread;
     * every GPU op has its launch as ac2g partner */
    size_t gpu_lanes = 0;
    for (size_t i = 0; i < t->n_lanes; i++) gpu_lanes += t->lanes[i].gpu;
    assert_int_equal(gpu_lanes, 3);
    bool marked = false;
    for (size_t g = 0; g < t->n_groups; g++)
        if (strstr(StrTab_get(t->strings, t->groups[g].name), "SIMULATED")) marked = true;
    assert_true(marked);
    size_t ops = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        EventKind k = t->events[i].kind;
        if (k != KIND_KERNEL && k != KIND_MEMCPY) continue;
        ops++;
        size_t p2 = Trace_partner(t, i);
        assert_true(p2 != SIZE_MAX);
        assert_int_equal(t->events[p2].kind, KIND_RUNTIME);
    }
    assert_true(ops > 0);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefill_hidden),      cmocka_unit_test(test_decode_hidden),
        cmocka_unit_test(test_serial_exposed),      cmocka_unit_test(test_comm_sms_slow_compute),
        cmocka_unit_test(test_recording_metadata),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
