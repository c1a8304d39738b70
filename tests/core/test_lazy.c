/* the GPU-first load (LoadOptions.gpu_only) behind the lazy rank
 * overview. Every figure the overview shows (overlap per device, exposed comm and its
 * wait/transfer split, per-rank waits and straggler counts, per-name skew) must equal
 * the full load's, and the GPU lanes must hold exactly the same events. Checked on the
 * shipped multi-rank data, on Kineto traces with CPU ops, flows and counters, and on
 * simulator output with stragglers. Also the object skip itself (read/jsonpeek.c), at each
 * instruction-set level: by hand, with escapes on every position around the 64-byte block
 * edges, and against the validating scanner on 20,000 random event-like objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "testutil.h"

#include "jsonpeek.h"
#include "ovtrace/read/jsonscan.h"
#include "ovtrace/analysis/collectives.h"
#include "ovtrace/read/collargs.h"
#include "ovtrace/read/load.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/live/simranks.h"

/* ---------- JsPeek ---------- */

static JsPeekStatus peek(const char *s, JsPeek *pk, size_t *len) {
    const char *e = NULL;
    JsPeekStatus st = JsPeek_object(s, s + strlen(s), pk, &e);
    *len = st == JSPEEK_OK ? (size_t)(e - s) : 0;
    return st;
}

static void peek_cases(void) {
    JsPeek pk;
    size_t n;
    const char *a = "{\"ph\": \"X\", \"cat\": \"kernel\", \"args\": {\"ph\": \"B\", \"x\": [1, {\"cat\": \"y\"}]}}, {";
    assert_int_equal(peek(a, &pk, &n), JSPEEK_OK);
    assert_int_equal(n, strchr(a, ',') ? strlen(a) - 3 : 0);
    assert_true(pk.ph && pk.ph_n == 1 && pk.ph[0] == 'X');
    assert_true(pk.cat && pk.cat_n == 6 && !memcmp(pk.cat, "kernel", 6));
    assert_false(pk.esc);
    /* braces and quotes inside strings, members in any order, a value named like a key */
    const char *b = "{\"name\": \"a}\\\"{ph\", \"cat\": \"cpu_op\", \"x\": \"ph\", \"ph\": \"X\"}";
    assert_int_equal(peek(b, &pk, &n), JSPEEK_OK);
    assert_int_equal(n, strlen(b));
    assert_true(pk.ph && pk.ph[0] == 'X' && pk.cat_n == 6 && !memcmp(pk.cat, "cpu_op", 6));
    assert_false(pk.esc); /* the escape is in "name", not in ph or cat */
    /* an escaped ph, an escaped key: left to the real parser */
    assert_int_equal(peek("{\"ph\": \"\\u0058\"}", &pk, &n), JSPEEK_OK);
    assert_true(pk.esc);
    /* of two equal keys the last counts, a string or not */
    assert_int_equal(peek("{\"cat\": \"kernel\", \"cat\": \"cpu_op\", \"ph\": \"X\"}", &pk, &n), JSPEEK_OK);
    assert_false(pk.esc);
    assert_true(pk.cat_n == 6 && !memcmp(pk.cat, "cpu_op", 6));
    assert_int_equal(peek("{\"ph\": \"X\", \"cat\": \"kernel\", \"ph\": 1}", &pk, &n), JSPEEK_OK);
    assert_null(pk.ph);
    /* the members that place the event in time, as written; pid and tid only checked */
    assert_int_equal(peek("{\"ts\": 1.5, \"ph\": \"X\", \"args\": {\"ts\": 9}, \"dur\" :\n 20 , \"ts\":7, \"pid\": \"a\", "
                          "\"tid\": -3}", &pk, &n), JSPEEK_OK);
    assert_true(pk.ts && pk.ts_n == 1 && pk.ts[0] == '7');
    assert_true(pk.dur && pk.dur_n == 2 && !memcmp(pk.dur, "20", 2));
    assert_false(pk.ts_bad || pk.dur_bad || pk.id_bad);
    assert_int_equal(peek("{\"ts\": \"7\", \"dur\": [1], \"tid\": null}", &pk, &n), JSPEEK_OK);
    assert_true(!pk.ts && pk.ts_bad && !pk.dur && pk.dur_bad && pk.id_bad);
    assert_int_equal(peek("{\"c\\u0061t\": \"cpu_op\", \"ph\": \"X\"}", &pk, &n), JSPEEK_OK);
    assert_true(pk.esc);
    /* numbers and containers are not strings */
    assert_int_equal(peek("{\"cat\": 7, \"ph\": \"X\"}", &pk, &n), JSPEEK_OK);
    assert_null(pk.cat);
    assert_int_equal(peek("{\"cat\": [\"kernel\"], \"ph\": \"X\"}", &pk, &n), JSPEEK_OK);
    assert_null(pk.cat);
    /* unfinished: more data needed; stray closers: the parser reports them */
    assert_int_equal(peek("{\"ph\": \"X\", \"name\": \"ab", &pk, &n), JSPEEK_MORE);
    assert_int_equal(peek("{\"ph\": \"X\", \"a\": {", &pk, &n), JSPEEK_MORE);
    assert_int_equal(peek("{\"a\": 1]}", &pk, &n), JSPEEK_BAD); /* the parser says where */
    /* a backslash outside strings: not JSON inside the object, no matter after it */
    assert_int_equal(peek("{\"ph\": \\\"X\"}", &pk, &n), JSPEEK_BAD);
    assert_int_equal(peek("{\"ph\": \"X\"} \\\"", &pk, &n), JSPEEK_OK);
    assert_int_equal(n, 11);
    assert_int_equal(peek("x", &pk, &n), JSPEEK_BAD);
}

/* Random event-like objects (nested args, strings with brackets, quotes and escapes,
 * long and short) against the validating scanner: the same end, and ph/cat as written. */
static unsigned rng_state = 12345;
static unsigned rnd(unsigned n) {
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}
static void rnd_string(char *b, size_t *o) {
    static const char *pieces[] = {"a", "{", "}", "[", "]", ",", ":", "\\\"", "\\\\", "\\u0041", " ", "kernel", "x}y"};
    b[(*o)++] = '"';
    for (unsigned k = rnd(12); k; k--) {
        const char *pc = pieces[rnd(sizeof pieces / sizeof *pieces)];
        *o += (size_t)sprintf(b + *o, "%s", pc);
    }
    b[(*o)++] = '"';
}
static void rnd_value(char *b, size_t *o, int depth) {
    unsigned t = depth > 3 ? rnd(3) : rnd(5);
    if (t == 0) rnd_string(b, o);
    else if (t == 1) *o += (size_t)sprintf(b + *o, "%u.%u", rnd(100000), rnd(1000));
    else if (t == 2) *o += (size_t)sprintf(b + *o, "%s", rnd(2) ? "true" : "null");
    else if (t == 3) {
        b[(*o)++] = '[';
        for (unsigned k = rnd(4); k; k--) {
            rnd_value(b, o, depth + 1);
            if (k > 1) b[(*o)++] = ',';
        }
        b[(*o)++] = ']';
    } else {
        b[(*o)++] = '{';
        for (unsigned k = rnd(4); k; k--) {
            rnd_string(b, o);
            *o += (size_t)sprintf(b + *o, "%s", rnd(2) ? ": " : ":\n      ");
            rnd_value(b, o, depth + 1);
            if (k > 1) b[(*o)++] = ',';
        }
        b[(*o)++] = '}';
    }
}

/* b[0..len) holds one object of `full` bytes and more after it: the validating
 * scanner and the skim both end it at `full`. */
static void ends_like_scanner(const char *b, size_t len, size_t full, JsPeek *pk) {
    JsCtx c = {.end = b + len};
    const char *q = b;
    Tok v;
    assert_int_equal(Js_value(&c, &q, &v), JS_OK);
    assert_int_equal(q - b, full);
    Js_free(&c);
    const char *e = NULL;
    assert_int_equal(JsPeek_object(b, b + len, pk, &e), JSPEEK_OK);
    assert_int_equal(e - b, full);
}

static void peek_random(void) {
    static char b[1 << 16];
    for (int it = 0; it < 20000; it++) {
        size_t o = 0;
        b[o++] = '{';
        unsigned members = 2 + rnd(6);
        int ph_at = (int)rnd(members), cat_at = (int)rnd(members);
        if (cat_at == ph_at) cat_at = (ph_at + 1) % (int)members;
        for (unsigned m = 0; m < members; m++) {
            if ((int)m == ph_at) o += (size_t)sprintf(b + o, "\"ph\": \"%c\"", "XBMi"[rnd(4)]);
            else if ((int)m == cat_at) o += (size_t)sprintf(b + o, "\"cat\": \"%s\"", rnd(2) ? "kernel" : "cpu_op");
            else {
                rnd_string(b, &o);
                b[o++] = ':';
                rnd_value(b, &o, 1);
            }
            if (m + 1 < members) o += (size_t)sprintf(b + o, "%s", rnd(2) ? ", " : ",\n    ");
        }
        b[o++] = '}';
        size_t full = o;
        o += (size_t)sprintf(b + o, ", {\"ph\": \"X\"}");
        JsPeek pk;
        ends_like_scanner(b, o, full, &pk);
        assert_true(pk.ph && pk.ph_n == 1 && pk.cat && (pk.cat_n == 6));
        /* any cut before the end needs more data */
        size_t cut = rnd((unsigned)full);
        const char *e = NULL;
        assert_int_equal(JsPeek_object(b, b + cut, &pk, &e), cut ? JSPEEK_MORE : JSPEEK_BAD);
    }
}

/* Strings whose escapes fall on every position around the 64-byte block edges: an
 * escaped quote, an escaped backslash before the closing quote, both, and a run of
 * three; the end found and ph as written, against the validating scanner. */
static void peek_block_edges(void) {
    static const char *tails[] = {"\\\"", "\\\\", "\\\\\\\"", "\\\\\\\\", "}{][,:"};
    char b[512];
    for (size_t t = 0; t < sizeof tails / sizeof *tails; t++)
        for (int pad = 0; pad < 140; pad++) {
            int o = snprintf(b, sizeof b, "{\"name\": \"%*s%s\", \"args\": {\"x\": \"%*s%s\"}, \"ph\": \"X\"}",
                             pad, "", tails[t], (pad * 7) % 70, "", tails[t]);
            size_t full = (size_t)o;
            o += snprintf(b + o, sizeof b - (size_t)o, ", {}");
            JsPeek pk;
            ends_like_scanner(b, (size_t)o, full, &pk);
            assert_true(pk.ph && pk.ph_n == 1 && pk.ph[0] == 'X');
            assert_false(pk.esc); /* the escapes are in name and args, not in a key, ph or cat */
            const char *e = NULL;
            for (size_t cut = full - 1; cut + 70 > full && cut > 0; cut--) /* cut anywhere near the end */
                assert_int_equal(JsPeek_object(b, b + cut, &pk, &e), JSPEEK_MORE);
        }
}

/* Every case at every instruction-set level the CPU has (SSE2, AVX2). */
static void test_peek(void **state) {
    (void)state;
    int most = JsPeek_simdMost();
    for (int level = 1; level <= most; level++) {
        assert_int_equal(JsPeek_setSimd(level), level);
        peek_cases();
        peek_block_edges();
        peek_random();
    }
    JsPeek_setSimd(0);
}

/* ---------- GPU-first model vs full model ---------- */

static Trace *load(const char *const *paths, size_t n, bool gpu_only, int threads) {
    LoadOptions o = {.cache = -1, .gpu_only = gpu_only, .threads = threads, .min_parallel_bytes = 1};
    char err[1024];
    Trace *t = Load_files(paths, n, &o, err, sizeof err);
    if (!t) fail_msg("%s", err);
    /* marked partial exactly when something was left out */
    assert_int_equal(t->gpu_only, gpu_only && t->deferred > 0);
    return t;
}

static const Lane *find_lane(const Trace *t, const Lane *l) {
    for (size_t i = 0; i < t->n_lanes; i++) {
        const Lane *m = &t->lanes[i];
        if (m->gpu && m->source == l->source && m->device == l->device && m->stream == l->stream && m->pid == l->pid &&
            m->tid == l->tid)
            return m;
    }
    return NULL;
}

static const DeviceFigures *find_dev(const OverlapReport *r, int32_t rank, int64_t dev) {
    for (size_t i = 0; i < r->n_devices; i++)
        if (r->devices[i].rank == rank && r->devices[i].device == dev) return &r->devices[i];
    return NULL;
}

/* Returns the number of GPU events compared. */
static size_t compare(const Trace *full, const Trace *gpu) {
    size_t gpu_events = 0, gpu_lanes = 0;
    for (size_t i = 0; i < full->n_lanes; i++) {
        const Lane *l = &full->lanes[i];
        if (!l->gpu) continue;
        gpu_lanes++;
        const Lane *m = find_lane(gpu, l);
        assert_non_null(m);
        assert_int_equal(m->count, l->count);
        assert_int_equal(m->n_rows, l->n_rows);
        assert_string_equal(StrTab_get(gpu->strings, m->name), StrTab_get(full->strings, l->name));
        for (size_t k = 0; k < l->count; k++) {
            const TraceEvent *a = &full->events[l->first + k], *b = &gpu->events[m->first + k];
            assert_int_equal(a->ts, b->ts);
            assert_int_equal(a->dur, b->dur);
            assert_int_equal(a->src, b->src);
            assert_int_equal(a->kind, b->kind);
            assert_int_equal(a->cls, b->cls);
            assert_int_equal(a->depth, b->depth);
            assert_int_equal(a->corr, b->corr);
            assert_string_equal(StrTab_get(full->strings, a->name), StrTab_get(gpu->strings, b->name));
        }
        gpu_events += l->count;
    }
    /* nothing else: only GPU lanes, no flows, no counters */
    size_t lanes = 0;
    for (size_t i = 0; i < gpu->n_lanes; i++) lanes += gpu->lanes[i].gpu;
    assert_int_equal(lanes, gpu->n_lanes);
    assert_int_equal(gpu->n_lanes, gpu_lanes);
    assert_int_equal(gpu->n_events, gpu_events);
    assert_int_equal(gpu->n_flows, 0);
    assert_int_equal(gpu->n_sources, full->n_sources);
    /* the same extent: times relative to t_min (the ruler, the details, the range
     * commands) do not move when the full model replaces the GPU-first one */
    assert_int_equal(gpu->t_min, full->t_min);
    assert_int_equal(gpu->t_max, full->t_max);
    for (size_t s = 0; s < full->n_sources; s++) assert_int_equal(gpu->sources[s].rank, full->sources[s].rank);

    /* overlap per device: what the band and the range panel draw */
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *ra = Overlap_compute(full, &f), *rb = Overlap_compute(gpu, &f);
    assert_int_equal(ra->n_devices, rb->n_devices);
    for (size_t i = 0; i < ra->n_devices; i++) {
        const DeviceFigures *a = &ra->devices[i], *b = find_dev(rb, a->rank, a->device);
        assert_non_null(b);
        assert_int_equal(a->comm, b->comm);
        assert_int_equal(a->compute, b->compute);
        assert_int_equal(a->overlap, b->overlap);
        assert_int_equal(a->exposed, b->exposed);
        assert_int_equal(a->memory, b->memory);
        assert_int_equal(a->busy, b->busy);
        assert_int_equal(a->idle, b->idle);
        assert_int_equal(a->window_start, b->window_start);
        assert_int_equal(a->window_end, b->window_end);
    }
    OverlapReport_free(ra);
    OverlapReport_free(rb);

    /* collectives: the overview's straggler column and exposed-comm column, with the
     * args the viewer gives the analysis */
    CollOptions co = CollOptions_default();
    co.args = CollArgs_fetch;
    CollReport *ca = Coll_analyze(full, &co), *cb = Coll_analyze(gpu, &co);
    assert_int_equal(ca == NULL, cb == NULL);
    if (ca) {
        assert_int_equal(ca->n_inst, cb->n_inst);
        assert_int_equal(ca->n_members, cb->n_members);
        assert_int_equal(ca->comm_kernels, cb->comm_kernels);
        assert_int_equal(ca->unmatched, cb->unmatched);
        assert_int_equal(ca->mismatched, cb->mismatched);
        assert_int_equal(ca->max_end_spread, cb->max_end_spread);
        assert_int_equal(ca->unreliable, cb->unreliable);
        assert_int_equal(ca->n_ranks, cb->n_ranks);
        for (size_t i = 0; i < ca->n_ranks; i++) {
            const CollRank *a = &ca->ranks[i], *b = &cb->ranks[i];
            assert_int_equal(a->rank, b->rank);
            assert_int_equal(a->kernels, b->kernels);
            assert_int_equal(a->matched, b->matched);
            assert_int_equal(a->comm, b->comm);
            assert_int_equal(a->wait, b->wait);
            assert_int_equal(a->transfer, b->transfer);
            assert_int_equal(a->arrived_last, b->arrived_last);
            assert_int_equal(a->waited_for, b->waited_for);
            assert_int_equal(a->clock_offset, b->clock_offset);
        }
        assert_int_equal(ca->n_names, cb->n_names);
        for (size_t i = 0; i < ca->n_names; i++) {
            assert_string_equal(Coll_nameStr(full, ca, ca->names[i].name), Coll_nameStr(gpu, cb, cb->names[i].name));
            assert_int_equal(ca->names[i].count, cb->names[i].count);
            assert_int_equal(ca->names[i].median_skew, cb->names[i].median_skew);
            assert_int_equal(ca->names[i].max_skew, cb->names[i].max_skew);
        }
        size_t na = 0, nb = 0;
        CollDeviceSplit *da = Coll_deviceSplit(full, ca, INT64_MIN, INT64_MAX, INT32_MIN, &na);
        CollDeviceSplit *db = Coll_deviceSplit(gpu, cb, INT64_MIN, INT64_MAX, INT32_MIN, &nb);
        assert_int_equal(na, nb);
        for (size_t i = 0; i < na; i++) {
            size_t j = 0;
            while (j < nb && (db[j].rank != da[i].rank || db[j].device != da[i].device)) j++;
            assert_true(j < nb);
            assert_int_equal(da[i].comm, db[j].comm);
            assert_int_equal(da[i].exposed, db[j].exposed);
            assert_int_equal(da[i].exposed_wait, db[j].exposed_wait);
            assert_int_equal(da[i].exposed_transfer, db[j].exposed_transfer);
            assert_int_equal(da[i].wait, db[j].wait);
            assert_int_equal(da[i].transfer, db[j].transfer);
        }
        free(da);
        free(db);
    }
    CollReport_free(ca);
    CollReport_free(cb);
    return gpu_events;
}

static void check_files(const char *const *paths, size_t n, bool expect_cpu) {
    for (int threads = 1; threads <= 2; threads++) {
        Trace *full = load(paths, n, false, threads), *gpu = load(paths, n, true, threads);
        size_t g = compare(full, gpu);
        assert_true(g > 0);
        if (expect_cpu) assert_true(full->n_events > g); /* CPU events were really left out */
        /* partial exactly when events or flows were left out */
        assert_int_equal(gpu->gpu_only, full->n_events > g || full->n_flows > 0);
        Trace_free(full);
        Trace_free(gpu);
    }
}

static void test_shipped_multirank(void **state) {
    (void)state;
    const char *moe[] = {OVTRACE_TESTDATA "/moe-ep/rank0.json", OVTRACE_TESTDATA "/moe-ep/rank1.json"};
    check_files(moe, 2, true);
    const char *k2[] = {OVTRACE_TESTDATA "/kineto-2node.json", OVTRACE_TESTDATA "/kineto-nccl-args.json"};
    check_files(k2, 1, true);
    check_files(k2 + 1, 1, true);
    const char *mem[] = {OVTRACE_TESTDATA "/kineto-memory.json"}; /* counters and [memory] instants */
    check_files(mem, 1, true);
    const char *samples[] = {OVTRACE_SAMPLES "/demo-moe.json.gz", OVTRACE_SAMPLES "/sim-prefill.json.zst"};
    check_files(samples, 1, true);
    check_files(samples + 1, 1, false);
}

/* The span of the passed-over events, with the loader's checks: CPU events start
 * before the first kernel and end after the last, an E ends its B, and events the
 * loader skips (a negative dur, a null pid, a string ts, a counter without a number),
 * flows, metadata and async events span nothing. Written in the peek's shape and with
 * escapes (the validating parser's path), in one slice and in many. */
static void test_passed_over_span(void **state) {
    (void)state;
    static const char *const shapes[] = {
        "{\"ph\":\"%s\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":%s,\"tid\":3,\"ts\":%s%s}",
        "{\"ph\":\"%s\",\"c\\u0061t\":\"cpu_op\",\"name\":\"op\",\"pid\":%s,\"tid\":3,\"ts\":%s%s}",
    };
    for (size_t sh = 0; sh < 2; sh++) {
        char *b = malloc(1 << 16);
        size_t o = (size_t)sprintf(b, "{\"traceEvents\":[");
#define EV(ph, pid, ts, more) o += (size_t)sprintf(b + o, shapes[sh], ph, pid, ts, more), b[o++] = ','
        EV("X", "1", "0.1", ",\"dur\":-1");       /* skipped: negative dur */
        EV("X", "null", "0.2", ",\"dur\":1");     /* skipped: null pid */
        EV("X", "1", "\"0.3\"", ",\"dur\":1");  /* skipped: ts a string */
        EV("C", "1", "0.4", ",\"args\":{\"a\":\"x\"}"); /* no series: no event */
        EV("s", "1", "0.5", ",\"id\":1");           /* a flow: no event */
        EV("b", "1", "0.6", ",\"id\":2");           /* async: not modelled */
        EV("X", "1", "5", ",\"dur\":2,\"args\":{\"ts\":0.01}"); /* the start */
        EV("i", "1", "6", ",\"ts\":0.7,\"ts\":7"); /* the last ts counts */
        EV("B", "1", "50", "");
        EV("E", "1", "90", "");                       /* the end: it closes the B */
        EV("E", "1", "1e9", ",\"dur\":\"x\"");   /* skipped: dur not a number */
        EV("C", "1", "8", ",\"args\":{\"v\":1}");
#undef EV
        for (int k = 0; k < 300; k++) /* enough objects for parallel slices */
            o += (size_t)sprintf(b + o, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,"
                                        "\"ts\":%d,\"dur\":0.5,\"args\":{\"device\":0,\"stream\":7}}%s",
                                 k % 7, 10 + k / 10, k < 299 ? "," : "");
        o += (size_t)sprintf(b + o, ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"ts\":0,"
                                    "\"args\":{\"name\":\"x\"}}]}");
        const char *path = tu_write(b, o, ".json");
        free(b);
        const char *p[] = {path};
        check_files(p, 1, true);
        Trace *gpu = load(p, 1, true, 1);
        assert_int_equal(gpu->t_min, 5000); /* 5 us: the kernels start at 10 */
        assert_int_equal(gpu->t_max, 90000);
        Trace_free(gpu);
        unlink(path);
    }
}

/* Runs of kernels long enough that the skim rests (nothing to pass over), then CPU
 * events that start earlier and end later, then kernels again: the CPU events are left
 * out whether the skim or the parser meets them, and their span still counts. */
static void test_skim_rests(void **state) {
    (void)state;
    enum { K1 = 6000, C = 3000, K2 = 2000 };
    char *b = malloc((size_t)(K1 + C + K2) * 160 + 64);
    size_t o = (size_t)sprintf(b, "{\"traceEvents\":[");
    for (int k = 0; k < K1 + C + K2; k++) {
        bool cpu = k >= K1 && k < K1 + C;
        if (cpu)
            o += (size_t)sprintf(b + o, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":3,"
                                        "\"ts\":%d.5,\"dur\":%d}",
                                 k - K1 + 1, k == K1 + C - 1 ? 1000000 : 1);
        else
            o += (size_t)sprintf(b + o, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,"
                                        "\"ts\":%d,\"dur\":0.5,\"args\":{\"device\":0,\"stream\":7}}",
                                 k % 5, 10000 + k);
        b[o++] = k + 1 < K1 + C + K2 ? ',' : ']';
    }
    b[o++] = '}';
    const char *path = tu_write(b, o, ".json");
    free(b);
    const char *p[] = {path};
    check_files(p, 1, true);
    for (int threads = 1; threads <= 2; threads++) {
        Trace *gpu = load(p, 1, true, threads);
        assert_int_equal(gpu->n_events, K1 + K2);
        assert_int_equal(gpu->deferred, C);
        assert_int_equal(gpu->t_min, 1500);                        /* the first CPU event */
        assert_int_equal(gpu->t_max, (int64_t)(C + 1000000) * 1000 + 500); /* the last one's end */
        Trace_free(gpu);
    }
    unlink(path);
}

static void test_deepseek(void **state) {
    (void)state;
    if (access(OVTRACE_DEEPSEEK, R_OK) != 0) skip();
    const char *p[] = {OVTRACE_DEEPSEEK};
    check_files(p, 1, true);
}

static void test_simulated_stragglers(void **state) {
    (void)state;
    char dir[] = "/tmp/ovtrace-lazy-XXXXXX", out[256], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/sim.json", dir);
    SimRanksConfig c;
    SimRanksConfig_default(&c, SCHED_PREFILL);
    c.ranks = 8;
    c.imbalance = 1;
    c.steps = 3;
    uint64_t events = 0;
    if (!SimRanks_write(&c, out, &events, err, sizeof err)) fail_msg("%s", err);
    char *paths[8];
    for (int r = 0; r < c.ranks; r++) paths[r] = SimRanks_path(out, r);
    Trace *full = load((const char *const *)paths, 8, false, 2), *gpu = load((const char *const *)paths, 8, true, 2);
    assert_int_equal(compare(full, gpu), events);
    assert_false(gpu->gpu_only); /* simulator ranks hold GPU events only: the first pass is complete */
    CollReport *R = Coll_analyze(gpu, NULL);
    assert_non_null(R);
    size_t last = 0;
    for (size_t i = 0; i < R->n_ranks; i++) last += R->ranks[i].arrived_last;
    assert_true(last > 0); /* there are stragglers to agree on */
    CollReport_free(R);
    Trace_free(full);
    Trace_free(gpu);
    for (int r = 0; r < c.ranks; r++) {
        unlink(paths[r]);
        free(paths[r]);
    }
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peek),
        cmocka_unit_test(test_shipped_multirank),
        cmocka_unit_test(test_passed_over_span),
        cmocka_unit_test(test_skim_rests),
        cmocka_unit_test(test_deepseek),
        cmocka_unit_test(test_simulated_stragglers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
