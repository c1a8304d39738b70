/* Cross-rank collective matching on hand-built traces with hand-computed waits. */
#include "testutil.h"
#include "ovtrace/model/classify.h"
#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/read/collargs.h"

typedef struct {
    int rank;
    int stream;
    int64_t s, e;
    const char *name;
} Ev;

#define DISPATCH "void dpsk::ep::internode::dispatch<1>(int)"
#define COMBINE "void dpsk::ep::internode::combine<1>(int)"
#define GEMM "sm90_gemm"

/* One source per rank (rank = source index), one device each. */
static Trace *build(const Ev *ev, size_t n, int n_ranks) {
    Trace *t = Trace_new();
    for (int r = 0; r < n_ranks; r++) {
        char p[32];
        snprintf(p, sizeof p, "mem-rank%d", r);
        uint32_t s = Trace_addSource(t, p);
        t->sources[s].rank = r;
    }
    for (size_t i = 0; i < n; i++) {
        TraceEvent e = {0};
        e.ts = ev[i].s;
        e.dur = ev[i].e - ev[i].s;
        e.src = TRACE_NO_SRC;
        e.kind = KIND_KERNEL;
        e.name = StrTab_intern(t->strings, ev[i].name, strlen(ev[i].name));
        e.lane = Trace_gpuLane(t, (uint32_t)ev[i].rank, ev[i].rank, ev[i].stream, ev[i].rank, ev[i].stream);
        Trace_append(t, &e);
    }
    Trace_finish(t);
    CommRules *r = CommRules_default();
    Classify_trace(t, r);
    CommRules_free(r);
    return t;
}

static const CollMember *member_of(const Trace *t, const CollReport *R, int rank, int64_t start) {
    for (size_t i = 0; i < R->n_members; i++)
        if (R->members[i].rank == rank && R->members[i].start == start) {
            assert_true(Coll_memberOf(R, R->members[i].event) == &R->members[i]);
            assert_int_equal(t->events[R->members[i].event].ts, start);
            return &R->members[i];
        }
    fail_msg("no member for rank %d at %lld", rank, (long long)start);
    return NULL;
}

/* Two dispatches on three ranks; expected values worked out by hand:
 * #0: starts 100, 130, 170 -> last 170 (rank 2); waits 70, 40, 0; ends 200, 205, 201
 *     -> transfers 30, 35, 31; end spread 5; skew 70.
 * #1: starts 1000, 1090, 1010 -> last 1090 (rank 1); waits 90, 0, 80; ends 1100, 1101,
 *     1100 -> transfers 10, 11, 10; end spread 1; skew 90. */
static const Ev BASIC[] = {
    {0, 20, 100, 200, DISPATCH},   {1, 20, 130, 205, DISPATCH},   {2, 20, 170, 201, DISPATCH},
    {0, 20, 1000, 1100, DISPATCH}, {1, 20, 1090, 1101, DISPATCH}, {2, 20, 1010, 1100, DISPATCH},
    {0, 7, 0, 150, GEMM},          {1, 7, 0, 120, GEMM},          {2, 7, 0, 160, GEMM},
};

static void test_basic_waits(void **state) {
    (void)state;
    Trace *t = build(BASIC, sizeof BASIC / sizeof BASIC[0], 3);
    CollReport *R = Coll_analyze(t, NULL);
    assert_int_equal(R->comm_kernels, 6);
    assert_int_equal(R->n_inst, 2);
    assert_int_equal(R->unmatched, 0);
    assert_int_equal(R->mismatched, 0);
    const CollInstance *a = &R->inst[0], *b = &R->inst[1];
    if (a->first_start > b->first_start) {
        const CollInstance *x = a;
        a = b;
        b = x;
    }
    assert_int_equal(a->n, 3);
    assert_int_equal(a->last_rank, 2);
    assert_int_equal(a->last_start, 170);
    assert_int_equal(a->skew, 70);
    assert_int_equal(a->end_spread, 5);
    /* rank order; the last arrival is marked */
    assert_int_equal(a->last, 2);
    assert_int_equal(R->members[a->first].rank, 0);
    assert_int_equal(R->members[a->first + 1].rank, 1);
    assert_int_equal(R->members[a->first + 2].rank, 2);
    assert_int_equal(member_of(t, R, 0, 100)->wait, 70);
    assert_int_equal(member_of(t, R, 1, 130)->wait, 40);
    assert_int_equal(member_of(t, R, 2, 170)->wait, 0);
    assert_int_equal(member_of(t, R, 0, 100)->transfer, 30);
    assert_int_equal(member_of(t, R, 1, 130)->transfer, 35);
    assert_int_equal(member_of(t, R, 2, 170)->transfer, 31);
    assert_int_equal(b->last_rank, 1);
    assert_int_equal(b->last, 1);
    assert_int_equal(b->skew, 90);
    assert_int_equal(b->end_spread, 1);
    assert_int_equal(member_of(t, R, 0, 1000)->wait, 90);
    assert_int_equal(member_of(t, R, 2, 1010)->wait, 80);
    assert_int_equal(member_of(t, R, 2, 1010)->transfer, 10);
    /* per rank */
    const CollRank *r0 = Coll_rank(R, 0), *r1 = Coll_rank(R, 1), *r2 = Coll_rank(R, 2);
    assert_int_equal(r0->wait, 160);
    assert_int_equal(r0->transfer, 40);
    assert_int_equal(r0->comm, 200);
    assert_int_equal(r1->wait, 40);
    assert_int_equal(r1->transfer, 46);
    assert_int_equal(r2->wait, 80);
    assert_int_equal(r2->transfer, 41);
    assert_int_equal(r1->arrived_last, 1);
    assert_int_equal(r2->arrived_last, 1);
    assert_int_equal(r1->waited_for, 170);
    assert_int_equal(r2->waited_for, 110);
    /* tie on arrivals: more waited for wins */
    assert_int_equal(Coll_straggler(R)->rank, 1);
    assert_int_equal(R->n_names, 1);
    assert_string_equal(Coll_nameStr(t, R, R->names[0].name), DISPATCH);
    assert_int_equal(R->names[0].count, 2);
    assert_int_equal(R->names[0].median_skew, 70);
    assert_int_equal(R->names[0].max_skew, 90);
    assert_false(R->unreliable);
    assert_int_equal(R->max_end_spread, 5);
    int64_t ws, we;
    assert_true(Coll_waitPart(R, member_of(t, R, 0, 100)->event, &ws, &we));
    assert_int_equal(ws, 100);
    assert_int_equal(we, 170);
    /* the gemm is not a collective */
    assert_false(Coll_waitPart(R, (size_t)tu_find(t, GEMM), &ws, &we));
    CollReport_free(R);
    Trace_free(t);
}

/* Exposed comm split. Rank 0: compute [0,150), dispatch [100,200) with wait [100,170),
 * dispatch [1000,1100) with wait [1000,1090): comm 200, exposed [150,200) + [1000,1100)
 * = 150, of which wait [150,170) + [1000,1090) = 110 and transfer 30 + 10 = 40. */
static void test_device_split(void **state) {
    (void)state;
    Trace *t = build(BASIC, sizeof BASIC / sizeof BASIC[0], 3);
    CollReport *R = Coll_analyze(t, NULL);
    size_t n;
    CollDeviceSplit *D = Coll_deviceSplit(t, R, INT64_MIN, INT64_MAX, INT32_MIN, &n);
    assert_int_equal(n, 3);
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *O = Overlap_compute(t, &f);
    assert_int_equal(O->n_devices, 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(D[i].exposed, O->devices[i].exposed);
        assert_int_equal(D[i].comm, O->devices[i].comm);
        assert_int_equal(D[i].exposed_wait + D[i].exposed_transfer, D[i].exposed);
    }
    assert_int_equal(D[0].rank, 0);
    assert_int_equal(D[0].comm, 200);
    assert_int_equal(D[0].exposed, 150);
    assert_int_equal(D[0].exposed_wait, 110);
    assert_int_equal(D[0].exposed_transfer, 40);
    assert_int_equal(D[0].wait, 160);
    /* rank 1: compute [0,120); dispatches [130,205) wait 40, [1090,1101) wait 0: all exposed */
    assert_int_equal(D[1].exposed, 86);
    assert_int_equal(D[1].exposed_wait, 40);
    /* rank 2: compute [0,160) covers [170.. no: dispatch [170,201) wait 0; [1010,1100) wait 80 */
    assert_int_equal(D[2].exposed, 121);
    assert_int_equal(D[2].exposed_wait, 80);
    free(D);
    /* a range: [150, 180) on rank 0 only: wait [150,170) = 20, transfer [170,180) = 10 */
    D = Coll_deviceSplit(t, R, 150, 180, 0, &n);
    assert_int_equal(n, 1);
    assert_int_equal(D[0].exposed_wait, 20);
    assert_int_equal(D[0].exposed_transfer, 10);
    free(D);
    OverlapReport_free(O);
    CollReport_free(R);
    Trace_free(t);
}

/* Rank 1 has an extra combine before its second dispatch: position 1 disagrees
 * (dispatch, combine, dispatch) -> 3 mismatched; position 2 exists on rank 1 only -> 1
 * unmatched. Rank 3 has a kernel on a stream nobody else uses -> unmatched. */
/* The split runs its GPU groups on several workers above 32k events: the same figures,
 * in the same order, as one worker, for the whole trace, a window and one rank. */
static void test_device_split_threads(void **state) {
    (void)state;
    enum { RANKS = 8, PER = 4200 };
    Ev *ev = calloc((size_t)RANKS * PER * 2, sizeof *ev);
    assert_non_null(ev);
    size_t n = 0;
    uint64_t x = 12345;
    for (int r = 0; r < RANKS; r++) {
        int64_t g = 0, c = 0;
        for (int k = 0; k < PER; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            int64_t gd = 50 + (int64_t)(x >> 40) % 400, cd = 30 + (int64_t)(x >> 20) % 300;
            ev[n++] = (Ev){r, 7, g, g + gd, GEMM};
            g += gd + (int64_t)(x >> 50) % 40;
            /* dispatch k starts at a rank-dependent time, as stragglers do */
            int64_t cs = (int64_t)k * 500 + (int64_t)((x >> 30) % 97) * (r + 1);
            if (cs < c) cs = c;
            ev[n++] = (Ev){r, 20, cs, cs + cd, DISPATCH};
            c = cs + cd + 1;
        }
    }
    Trace *t = build(ev, n, RANKS);
    CollOptions o = CollOptions_default();
    o.threads = 1;
    CollReport *R = Coll_analyze(t, &o);
    assert_int_equal(R->threads, 1);
    assert_true(R->n_inst > 0);
    const struct {
        int64_t t0, t1;
        int32_t rank;
    } cases[] = {{INT64_MIN, INT64_MAX, INT32_MIN}, {300000, 1500000, INT32_MIN}, {INT64_MIN, INT64_MAX, 5}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        R->threads = 1;
        size_t n1, n4;
        CollDeviceSplit *a = Coll_deviceSplit(t, R, cases[c].t0, cases[c].t1, cases[c].rank, &n1);
        R->threads = 4;
        CollDeviceSplit *b = Coll_deviceSplit(t, R, cases[c].t0, cases[c].t1, cases[c].rank, &n4);
        assert_int_equal(n1, cases[c].rank == INT32_MIN ? RANKS : 1);
        assert_int_equal(n1, n4);
        int64_t waits = 0;
        for (size_t i = 0; i < n1; i++) {
            assert_int_equal(a[i].group, b[i].group);
            assert_int_equal(a[i].rank, b[i].rank);
            assert_int_equal(a[i].device, b[i].device);
            assert_int_equal(a[i].comm, b[i].comm);
            assert_int_equal(a[i].exposed, b[i].exposed);
            assert_int_equal(a[i].exposed_wait, b[i].exposed_wait);
            assert_int_equal(a[i].exposed_transfer, b[i].exposed_transfer);
            assert_int_equal(a[i].wait, b[i].wait);
            assert_int_equal(a[i].transfer, b[i].transfer);
            if (i) assert_true(a[i].group > a[i - 1].group); /* group order */
            waits += a[i].wait;
        }
        assert_true(waits > 0); /* the data has waits to split */
        free(a);
        free(b);
    }
    CollReport_free(R);
    Trace_free(t);
    free(ev);
}

static void test_mismatch_unmatched(void **state) {
    (void)state;
    static const Ev E[] = {
        {0, 20, 100, 200, DISPATCH}, {1, 20, 110, 200, DISPATCH}, {2, 20, 120, 200, DISPATCH},
        {0, 20, 300, 400, DISPATCH}, {1, 20, 250, 280, COMBINE},  {2, 20, 320, 400, DISPATCH},
        {1, 20, 310, 400, DISPATCH}, {3, 21, 0, 10, COMBINE},
    };
    Trace *t = build(E, sizeof E / sizeof E[0], 4);
    CollReport *R = Coll_analyze(t, NULL);
    assert_int_equal(R->comm_kernels, 8);
    assert_int_equal(R->n_inst, 1);
    assert_int_equal(R->inst[0].n, 3);
    assert_int_equal(R->mismatched, 3);
    assert_int_equal(R->unmatched, 2);
    assert_int_equal(Coll_rank(R, 3)->kernels, 1);
    assert_int_equal(Coll_rank(R, 3)->matched, 0);
    assert_null(Coll_memberOf(R, (size_t)tu_find(t, COMBINE)));
    CollReport_free(R);
    Trace_free(t);
}

/* One rank: nothing to match. */
static void test_single_rank(void **state) {
    (void)state;
    static const Ev E[] = {{0, 20, 100, 200, DISPATCH}, {0, 20, 300, 400, COMBINE}};
    Trace *t = build(E, 2, 1);
    CollReport *R = Coll_analyze(t, NULL);
    assert_int_equal(R->n_inst, 0);
    assert_int_equal(R->unmatched, 2);
    assert_null(Coll_straggler(R));
    size_t n;
    CollDeviceSplit *D = Coll_deviceSplit(t, R, INT64_MIN, INT64_MAX, INT32_MIN, &n);
    assert_int_equal(n, 1);
    assert_int_equal(D[0].exposed, 200);
    assert_int_equal(D[0].exposed_transfer, 200);
    assert_int_equal(D[0].exposed_wait, 0);
    free(D);
    CollReport_free(R);
    Trace_free(t);
}

/* Rank 1's clock runs 2 ms ahead: its ends are 2 ms late in every instance. Ends per
 * instance k (start 1000k): rank 0 at +100, rank 2 at +102, rank 1 at +101 + 2 ms; the
 * median end is rank 2's, so rank 1's offset is exactly 2 ms - 1 ns. */
static void test_clock_offset(void **state) {
    (void)state;
    Ev E[30];
    size_t n = 0;
    for (int k = 0; k < 10; k++) {
        int64_t b = 10000 * k;
        E[n++] = (Ev){0, 20, b, b + 100, DISPATCH};
        E[n++] = (Ev){1, 20, b + 2000000 + 50, b + 2000000 + 101, DISPATCH};
        E[n++] = (Ev){2, 20, b + 60, b + 102, DISPATCH};
    }
    Trace *t = build(E, n, 3);
    CollReport *R = Coll_analyze(t, NULL);
    assert_int_equal(R->n_inst, 10);
    assert_int_equal(Coll_rank(R, 1)->clock_offset, 2000000 - 1);
    assert_int_equal(Coll_rank(R, 0)->clock_offset, -2);
    assert_int_equal(Coll_rank(R, 2)->clock_offset, 0);
    assert_true(R->unreliable);
    assert_non_null(strstr(R->unreliable_why, "rank 1"));
    /* the offset makes rank 1 look like the straggler every time, and the others' kernels end
     * before it arrives */
    assert_int_equal(Coll_straggler(R)->rank, 1);
    assert_int_equal(R->negative_transfers, 20);
    CollReport_free(R);
    /* a limit above the offset: not flagged by offset, but the negative transfers still are */
    CollOptions o = CollOptions_default();
    o.offset_limit = 3000000;
    R = Coll_analyze(t, &o);
    assert_true(R->unreliable);
    assert_non_null(strstr(R->unreliable_why, "end before"));
    CollReport_free(R);
    Trace_free(t);
}

/* Overlapping comm kernels on one stream land in two rows; they are still matched in
 * start order. Rank 0: A [0,100), B [10,50) (row 1); rank 1: A [5,100), B [20,60). */
static void test_multi_row_lane(void **state) {
    (void)state;
    static const Ev E[] = {
        {0, 20, 0, 100, DISPATCH}, {0, 20, 10, 50, COMBINE}, {1, 20, 5, 100, DISPATCH}, {1, 20, 20, 60, COMBINE},
    };
    Trace *t = build(E, 4, 2);
    CollReport *R = Coll_analyze(t, NULL);
    assert_int_equal(R->n_inst, 2);
    assert_int_equal(R->mismatched, 0);
    assert_int_equal(member_of(t, R, 0, 0)->wait, 5);
    assert_int_equal(member_of(t, R, 0, 10)->wait, 10);
    assert_int_equal(member_of(t, R, 1, 20)->transfer, 40);
    CollReport_free(R);
    Trace_free(t);
}

/* Args from the source files: process group channels and Seq. The ranks use different
 * streams (so stream matching would fail) and rank 1 issues seq 6 before seq 5 on a
 * second stream; Seq decides. Also a compressed copy of rank 1 (the streaming path). */
static const char *RANK0_PLAIN =
    "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 2}, \"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)\","
    "\"pid\":0,\"tid\":30,\"ts\":100,\"dur\":50,\"args\":{\"device\":0,\"stream\":30,\"Collective name\":\"allreduce\","
    "\"Process Group Name\":\"0\",\"Seq\":5}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)\","
    "\"pid\":0,\"tid\":30,\"ts\":200,\"dur\":50,\"args\":{\"device\":0,\"stream\":30,\"Collective name\":\"allgather\","
    "\"Process Group Name\":\"0\",\"Seq\":6}}]}\n";
static const char *RANK1_PLAIN =
    "{\"distributedInfo\": {\"rank\": 1, \"world_size\": 2}, \"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)\","
    "\"pid\":1,\"tid\":44,\"ts\":190,\"dur\":61,\"args\":{\"device\":1,\"stream\":44,\"Collective name\":\"allgather\","
    "\"Process Group Name\":\"0\",\"Seq\":6}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)\","
    "\"pid\":1,\"tid\":45,\"ts\":120,\"dur\":31,\"args\":{\"device\":1,\"stream\":45,\"Collective name\":\"allreduce\","
    "\"Process Group Name\":\"0\",\"Seq\":5}}]}\n";

/* Coll_analyze with the reader's args, as the command line and the viewer run it. */
static CollReport *analyze_with_args(const Trace *t) {
    CollOptions o = CollOptions_default();
    o.args = CollArgs_fetch;
    return Coll_analyze(t, &o);
}

static void check_args_report(const Trace *t) {
    CollReport *R = analyze_with_args(t);
    assert_int_equal(R->comm_kernels, 4);
    assert_int_equal(R->args_read, 4);
    assert_int_equal(R->n_channels, 1);
    assert_true(R->channels[0].by_group);
    assert_true(R->channels[0].by_seq);
    assert_int_equal(R->n_inst, 2);
    assert_int_equal(R->unmatched + R->mismatched, 0);
    /* (us in the files) allreduce seq 5: starts 100 (r0), 120 (r1): wait 20 on rank 0;
     * allgather seq 6: starts 200 (r0), 190 (r1): rank 0 last, wait 10 on rank 1 */
    assert_int_equal(member_of(t, R, 0, 100000)->wait, 20000);
    assert_int_equal(member_of(t, R, 0, 100000)->transfer, 30000);
    assert_int_equal(member_of(t, R, 1, 190000)->wait, 10000);
    assert_int_equal(member_of(t, R, 1, 190000)->transfer, 51000);
    for (size_t i = 0; i < R->n_inst; i++) {
        const char *nm = Coll_nameStr(t, R, R->inst[i].name);
        assert_true(!strcmp(nm, "allreduce") || !strcmp(nm, "allgather"));
        assert_int_equal(R->inst[i].seq, !strcmp(nm, "allreduce") ? 5 : 6);
    }
    CollReport_free(R);
    /* without args: streams differ, nothing matches */
    R = Coll_analyze(t, NULL);
    assert_int_equal(R->n_inst, 0);
    assert_int_equal(R->unmatched, 4);
    CollReport_free(R);
}

/* s with every from replaced by to (malloc'd) */
static char *replace_all(const char *s, const char *from, const char *to) {
    char *out = malloc(strlen(s) * 2 + 1), *o = out;
    for (const char *p = s; *p;) {
        if (!strncmp(p, from, strlen(from))) {
            o += sprintf(o, "%s", to);
            p += strlen(from);
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* The arg keys spelled with \u escapes read as the plain keys. */
static char *escape_arg_keys(const char *rank) {
    char *a = replace_all(rank, "\"Seq\"", "\"S\\u0065q\"");
    char *b = replace_all(a, "\"Process Group Name\"", "\"Process Group N\\u0061me\"");
    char *c = replace_all(b, "\"Collective name\"", "\"\\u0043ollective name\"");
    free(a);
    free(b);
    return c;
}

static void test_args_groups_seq(void **state) {
    (void)state;
    for (int comp = 0; comp < 4; comp++) {
        const char *r0 = comp < 2 ? RANK0_PLAIN : escape_arg_keys(RANK0_PLAIN);
        const char *r1 = comp < 2 ? RANK1_PLAIN : escape_arg_keys(RANK1_PLAIN);
        assert_true(comp < 2 || strstr(r1, "S\\u0065q"));
        char *p0 = strdup(tu_write(r0, strlen(r0), ".json"));
        char *p1;
        if (comp % 2) {
            size_t zn;
            char *z = tu_compress(r1, strlen(r1), true, 3, &zn);
            p1 = strdup(tu_write(z, zn, ".json.zst"));
            free(z);
        } else {
            p1 = strdup(tu_write(r1, strlen(r1), ".json"));
        }
        const char *paths[] = {p0, p1};
        char err[512] = "";
        Trace *t = Load_files(paths, 2, NULL, err, sizeof err);
        if (!t) fail_msg("%s", err);
        check_args_report(t);
        Trace_free(t);
        unlink(p0);
        unlink(p1);
        free(p0);
        free(p1);
        if (comp >= 2) free((char *)r0), free((char *)r1);
    }
}

/* Coll_analyze reads no file: its args come only from the CollArgsFn it is given, with
 * the given ctx. This one puts every kernel in one process group without Seq, so the
 * two ranks' kernels on different streams match in start order. */
typedef struct {
    int calls;
    size_t n;
} FakeArgs;

static size_t fake_args(void *ctx, const Trace *t, const uint32_t *events, size_t n, CollArgs *out, StrTab *st) {
    FakeArgs *f = ctx;
    f->calls++;
    f->n = n;
    for (size_t i = 0; i < n; i++) {
        assert_true(events[i] < t->n_events);
        out[i] = (CollArgs){StrTab_intern(st, "pg", 2), COLLARGS_NONE, -1};
    }
    return n + 1000; /* reported back as args_read */
}

static void test_args_callback(void **state) {
    (void)state;
    char *p0 = strdup(tu_write(RANK0_PLAIN, strlen(RANK0_PLAIN), ".json"));
    char *p1 = strdup(tu_write(RANK1_PLAIN, strlen(RANK1_PLAIN), ".json"));
    const char *paths[] = {p0, p1};
    char err[512] = "";
    Trace *t = Load_files(paths, 2, NULL, err, sizeof err);
    if (!t) fail_msg("%s", err);
    FakeArgs f = {0, 0};
    CollOptions o = CollOptions_default();
    o.args = fake_args;
    o.args_ctx = &f;
    CollReport *R = Coll_analyze(t, &o);
    assert_int_equal(f.calls, 1);
    assert_int_equal(f.n, 4);
    assert_int_equal(R->args_read, 1004);
    assert_int_equal(R->n_channels, 1);
    assert_true(R->channels[0].by_group);
    assert_false(R->channels[0].by_seq);
    assert_string_equal(StrTab_get(R->strings, R->channels[0].group), "pg");
    assert_int_equal(R->n_inst, 2);
    assert_int_equal(R->unmatched + R->mismatched, 0);
    assert_int_equal(member_of(t, R, 0, 100000)->wait, 20000); /* allreduce: rank 1 at 120 us */
    assert_int_equal(member_of(t, R, 1, 190000)->wait, 10000); /* allgather: rank 0 at 200 us */
    CollReport_free(R);
    Trace_free(t);
    unlink(p0);
    unlink(p1);
    free(p0);
    free(p1);
}

/* More kernels than the args probe reads (COLLARGS_PROBE): the rest come from a second
 * pass. Rank 1 lists its kernels in reverse, gzip-compressed; Seq matches them. */
static char *many_kernels(int rank, bool reverse) {
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2}, \"traceEvents\": [\n", rank);
    for (int j = 0; j < 40; j++) {
        int k = reverse ? 39 - j : j;
        n += (size_t)snprintf(b + n, cap - n,
                              "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\","
                              "\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":10,\"args\":{\"device\":%d,\"stream\":%d,"
                              "\"Collective name\":\"allreduce\",\"Process Group Name\":\"7\",\"Seq\":%d}}\n",
                              j ? "," : "", rank, 30 + rank, 1000 * k + 3 * rank, rank, 30 + rank, k);
    }
    snprintf(b + n, cap - n, "]}\n");
    return b;
}

static void test_args_beyond_probe(void **state) {
    (void)state;
    char *r0 = many_kernels(0, false), *r1 = many_kernels(1, true);
    size_t zn;
    char *z = tu_compress(r1, strlen(r1), false, 6, &zn);
    char *p0 = strdup(tu_write(r0, strlen(r0), ".json")), *p1 = strdup(tu_write(z, zn, ".json.gz"));
    const char *paths[] = {p0, p1};
    char err[512] = "";
    Trace *t = Load_files(paths, 2, NULL, err, sizeof err);
    if (!t) fail_msg("%s", err);
    CollReport *R = analyze_with_args(t);
    assert_int_equal(R->args_read, 80);
    assert_int_equal(R->n_inst, 40);
    assert_int_equal(R->unmatched + R->mismatched, 0);
    for (size_t i = 0; i < R->n_inst; i++) {
        const CollInstance *I = &R->inst[i];
        assert_int_equal(I->last_rank, 1);
        assert_int_equal(R->members[I->first].wait, 3000);
        assert_int_equal(R->members[I->first].start, (int64_t)I->seq * 1000000); /* rank 0 starts at Seq ms */
    }
    assert_int_equal(Coll_rank(R, 1)->arrived_last, 40);
    CollReport_free(R);
    Trace_free(t);
    unlink(p0);
    unlink(p1);
    free(p0);
    free(p1);
    free(z);
    free(r0);
    free(r1);
}

/* Coll_memberFrom (a walk up the event indices with a cursor) finds what Coll_memberOf
 * finds: every index in order, every other one, and random indices that go back too. */
static void test_member_cursor(void **state) {
    (void)state;
    enum { INST = 300, RANKS = 3 };
    Ev *ev = calloc(INST * RANKS * 2, sizeof *ev);
    size_t n = 0;
    for (int i = 0; i < INST; i++)
        for (int r = 0; r < RANKS; r++) {
            int64_t at = 1000 * i;
            ev[n++] = (Ev){r, 20, at + 10 * r, at + 300, DISPATCH};
            if ((i + r) % 3) ev[n++] = (Ev){r, 7, at, at + 5 + r, GEMM};
        }
    Trace *t = build(ev, n, RANKS);
    CollReport *R = Coll_analyze(t, NULL);
    assert_non_null(R);
    assert_int_equal(R->n_members, INST * RANKS);
    for (size_t stride = 1; stride <= 2; stride++) {
        size_t cur = 0;
        for (size_t i = 0; i < t->n_events + 2; i += stride) assert_ptr_equal(Coll_memberFrom(R, i, &cur), Coll_memberOf(R, i));
    }
    uint64_t x = 12345;
    size_t cur = 0;
    for (int k = 0; k < 20000; k++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        size_t i = (size_t)(x >> 33) % (t->n_events + 1);
        assert_ptr_equal(Coll_memberFrom(R, i, &cur), Coll_memberOf(R, i));
        int64_t a, b, c, d;
        bool w = Coll_waitPart(R, i, &a, &b);
        size_t cur2 = cur;
        assert_int_equal(Coll_waitPartFrom(R, i, &cur2, &c, &d), w);
        if (w) assert_true(a == c && b == d);
    }
    CollReport_free(R);
    Trace_free(t);
    free(ev);
}

/* The split of group g over [t0, t1) counted ns by ns from the events and their members:
 * what the sweep and the edges must both give. */
static CollDeviceSplit split_by_ns(const Trace *t, const CollReport *R, uint32_t g, int64_t t0, int64_t t1,
                                   bool *busy) {
    CollDeviceSplit D = {0};
    *busy = false;
    const Group *G = &t->groups[g];
    for (int64_t x = t0; x < t1; x++) {
        bool comp = false, wait = false, other = false;
        for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++)
            for (size_t i = t->lanes[li].first; i < t->lanes[li].first + t->lanes[li].count; i++) {
                const TraceEvent *e = &t->events[i];
                if (!Overlap_counts(e) || x < e->ts || x >= e->ts + e->dur) continue;
                if (e->cls == CLASS_COMPUTE) comp = true;
                if (e->cls != CLASS_COMM) continue;
                const CollMember *m = Coll_memberOf(R, i);
                int64_t we = m ? e->ts + (m->wait < e->dur ? m->wait : e->dur) : e->ts;
                if (x < we) wait = true;
                else other = true;
            }
        *busy |= comp || wait || other;
        if (wait || other) D.comm++;
        if (other) D.transfer++;
        else if (wait) D.wait++;
        if (!comp && other) D.exposed_transfer++;
        else if (!comp && wait) D.exposed_wait++;
    }
    D.exposed = D.exposed_wait + D.exposed_transfer;
    return D;
}

/* Devices with overlapping kernels on a stream (several rows, walked side by side), one
 * with more rows than the sweep takes (the edges), windows cutting kernels: every
 * figure as counted ns by ns. */
static void test_device_split_rows(void **state) {
    (void)state;
    enum { RANKS = 4, PER = 40 };
    Ev ev[RANKS * PER * 3 + 40];
    size_t n = 0;
    uint64_t x = 777;
    for (int r = 0; r < RANKS; r++)
        for (int k = 0; k < PER; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            int64_t at = (int64_t)k * 100, cs = at + (int64_t)(x >> 40) % 60;
            ev[n++] = (Ev){r, 7, at + (int64_t)(x >> 20) % 30, at + 40 + (int64_t)(x >> 30) % 90, GEMM}; /* overlaps the next */
            ev[n++] = (Ev){r, 20, cs, cs + 20 + (int64_t)(x >> 50) % 30, DISPATCH};
            if (k % 3 == r % 3) ev[n++] = (Ev){r, 21, at + 5, at + 70, DISPATCH}; /* unmatched, on a stream of its own */
        }
    for (int k = 0; k < 20; k++) ev[n++] = (Ev){3, 9, 2000 + k, 2600 - k, GEMM}; /* 20 nested: 20 rows */
    Trace *t = build(ev, n, RANKS);
    CollReport *R = Coll_analyze(t, NULL);
    assert_true(R->n_inst > PER / 2);
    size_t rows3 = 0;
    for (uint32_t li = t->groups[3].first_lane; li < t->groups[3].first_lane + t->groups[3].n_lanes; li++)
        rows3 += t->lanes[li].n_rows;
    assert_true(rows3 > 16);
    const int64_t win[][2] = {{INT64_MIN, INT64_MAX}, {0, 4200}, {1234, 2777}, {2100, 2101}, {5000, 6000}};
    for (size_t w = 0; w < sizeof win / sizeof win[0]; w++)
        {
            size_t nd;
            CollDeviceSplit *D = Coll_deviceSplit(t, R, win[w][0], win[w][1], INT32_MIN, &nd);
            int64_t a = win[w][0] < 0 ? 0 : win[w][0], b = win[w][1] > 4300 ? 4300 : win[w][1];
            size_t k = 0;
            int64_t waits = 0;
            for (uint32_t g = 0; g < t->n_groups; g++) {
                bool busy;
                CollDeviceSplit E = split_by_ns(t, R, g, a, b, &busy);
                if (!busy) continue; /* no event in the window: no figures */
                assert_true(k < nd);
                assert_int_equal(D[k].group, g);
                assert_int_equal(D[k].comm, E.comm);
                assert_int_equal(D[k].wait, E.wait);
                assert_int_equal(D[k].transfer, E.transfer);
                assert_int_equal(D[k].exposed_wait, E.exposed_wait);
                assert_int_equal(D[k].exposed_transfer, E.exposed_transfer);
                assert_int_equal(D[k].exposed, E.exposed);
                waits += D[k].wait;
                k++;
            }
            assert_int_equal(k, nd);
            if (w < 3) assert_true(waits > 0); /* the figures have waits to split */
            free(D);
        }
    CollReport_free(R);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_waits),      cmocka_unit_test(test_device_split),
        cmocka_unit_test(test_device_split_threads),
        cmocka_unit_test(test_mismatch_unmatched), cmocka_unit_test(test_single_rank),
        cmocka_unit_test(test_clock_offset),     cmocka_unit_test(test_multi_row_lane),
        cmocka_unit_test(test_args_groups_seq),  cmocka_unit_test(test_args_callback),
        cmocka_unit_test(test_args_beyond_probe), cmocka_unit_test(test_member_cursor),
        cmocka_unit_test(test_device_split_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
