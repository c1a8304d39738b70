/* Live store times beyond the model's range: ring records come
 * from another process too (the injection library writes the shared ring), so a start
 * near INT64_MAX or an end past it must not reach the model: ts + dur overflowed in the
 * store itself (UBSan) and spans downstream. Such records are moved to the edge of
 * ±2^62 ns (timeunits.h), counted in LiveStats.clamped and recorded as
 * "clamped_times"; records within the range are untouched. */
#include "live_test_util.h"
#include "ovtrace/model/timeunits.h"

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = 0;
    fclose(f);
    return b;
}

static RingRecord rec(RingKind kind, int64_t ts, int64_t dur, int64_t stream) {
    RingRecord r = {0};
    r.ts_ns = ts;
    r.dur_ns = dur;
    r.stream = stream;
    r.device = 0;
    r.kind = (uint8_t)kind;
    return r;
}

static void test_clamp(void **st) {
    (void)st;
    LiveStoreConfig c;
    LiveStoreConfig_default(&c);
    c.retention_ns = -1; /* keep everything */
    LiveStore *s = LiveStore_new(NULL, &c);
    const int64_t L = TIME_LIMIT_NS;
    RingRecord in[] = {
        rec(RING_KIND_KERNEL, 1000, 10, 7),                   /* fine */
        rec(RING_KIND_KERNEL, L - 11, 10, 7),                 /* fine: ends at 2^62 - 1 */
        rec(RING_KIND_KERNEL, INT64_MAX - 10, 5, 7),          /* start beyond */
        rec(RING_KIND_KERNEL, 0, INT64_MAX, 8),               /* end beyond (and past INT64_MAX) */
        rec(RING_KIND_KERNEL, INT64_MIN + 5, 100, 8),         /* start below */
        rec(RING_KIND_KERNEL, L - 10, 10, 8),                 /* ends at exactly 2^62 */
        rec(RING_KIND_COUNTER, INT64_MAX, 0, 9),              /* a counter's start beyond */
    };
    static const int64_t want_ts[] = {1000, TIME_LIMIT_NS - 11, TIME_LIMIT_NS - 1, 0, -TIME_LIMIT_NS + 1,
                                      TIME_LIMIT_NS - 10, TIME_LIMIT_NS - 1};
    static const int64_t want_end[] = {1010, TIME_LIMIT_NS - 1, TIME_LIMIT_NS - 1, TIME_LIMIT_NS - 1,
                                       -TIME_LIMIT_NS + 101, TIME_LIMIT_NS - 1, TIME_LIMIT_NS - 1};
    size_t n = sizeof in / sizeof in[0];
    for (size_t i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%zu", i);
        LiveStore_add(s, &in[i], name);
    }
    LiveStats stt = LiveStore_stats(s);
    assert_int_equal(stt.ingested, n);
    assert_int_equal(stt.clamped, 5);
    Trace *t = LiveStore_snapshot(s, SIZE_MAX, INT64_MIN);
    assert_non_null(t);
    assert_int_equal(t->n_events, n);
    for (size_t k = 0; k < t->n_events; k++) {
        const TraceEvent *e = &t->events[k];
        const char *nm = Trace_name(t, e);
        size_t i = (size_t)atoi(nm + 1);
        assert_true(i < n);
        if (e->ts != want_ts[i] || TraceEvent_end(e) != want_end[i])
            fail_msg("%s: [%lld, %lld), want [%lld, %lld)", nm, (long long)e->ts, (long long)TraceEvent_end(e),
                     (long long)want_ts[i], (long long)want_end[i]);
        assert_true(Time_inModel(e->ts) && Time_inModel(TraceEvent_end(e)));
    }
    /* the span of the whole snapshot fits int64: the overlap report has no negative figure */
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *R = Overlap_compute(t, &f);
    assert_int_equal(R->n_devices, 1);
    assert_true(R->devices[0].window > 0 && R->devices[0].idle >= 0 && R->devices[0].busy > 0);
    assert_int_equal(R->devices[0].window, want_end[1] - want_ts[4]);
    OverlapReport_free(R);
    Trace_free(t);
    /* recorded with the count, and the recording loads back whole: nothing out of range */
    char path[] = "/tmp/ovtrace-clamp-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    char err[512] = "";
    if (!LiveStore_save(s, path, err, sizeof err)) fail_msg("save: %s", err);
    char *text = read_file(path);
    if (!strstr(text, "\"clamped_times\": 5")) fail_msg("recording without the count");
    free(text);
    const char *paths[] = {path};
    Trace *back = Load_files(paths, 1, NULL, err, sizeof err);
    if (!back) fail_msg("reload: %s", err);
    assert_int_equal(back->n_events, n);
    assert_int_equal(back->diag.skipped, 0);
    Trace_free(back);
    unlink(path);
    LiveStore_free(s);
}

static void test_no_clamp_no_key(void **st) {
    (void)st;
    LiveStoreConfig c;
    LiveStoreConfig_default(&c);
    LiveStore *s = LiveStore_new(NULL, &c);
    RingRecord r = rec(RING_KIND_KERNEL, 1700000000000000000, 1000, 7); /* epoch ns: fine */
    LiveStore_add(s, &r, "k");
    assert_int_equal(LiveStore_stats(s).clamped, 0);
    char path[] = "/tmp/ovtrace-clamp-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    char err[512] = "";
    if (!LiveStore_save(s, path, err, sizeof err)) fail_msg("save: %s", err);
    char *text = read_file(path);
    assert_null(strstr(text, "clamped_times")); /* recordings unchanged when nothing was clamped */
    free(text);
    unlink(path);
    LiveStore_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_clamp), cmocka_unit_test(test_no_clamp_no_key)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
