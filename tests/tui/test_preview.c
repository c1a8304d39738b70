/* Live preview while loading: the bucket model (exact totals under range
 * growth, lane order, incremental cursor, classes, copies), its rendering on the cell
 * grid, the loading screen with a preview, and the preview fed by the real loader. */
#include "tui_fixture.h"

#include <time.h>

#include <stdio.h>
#include <unistd.h>

#include "ovtrace/read/load.h"
#include "loading.h"
#include "preview.h"

/* Busy ns expected in bucket b of p: brute force over the events [0, n) of t. */
static int64_t expected_bucket(const PreviewModel *p, const Trace *t, size_t lane, int b, size_t n) {
    int64_t bw = (int64_t)1 << p->shift, ba = p->t0 + (int64_t)b * bw, bb = ba + bw, sum = 0;
    for (size_t i = 0; i < n; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->lane != lane || e->kind == KIND_COUNTER || e->dur <= 0) continue;
        int64_t s = e->ts > ba ? e->ts : ba, en = e->ts + e->dur < bb ? e->ts + e->dur : bb;
        if (en > s) sum += en - s;
    }
    return sum;
}

static int64_t expected_lane(const Trace *t, size_t lane, size_t n) {
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        if (t->events[i].lane == lane && t->events[i].kind != KIND_COUNTER && t->events[i].dur > 0)
            sum += t->events[i].dur;
    return sum;
}

static void check_exact(const PreviewModel *p, const Trace *t) {
    for (size_t l = 0; l < t->n_lanes; l++) {
        for (int b = 0; b < p->n_buckets; b++)
            assert_int_equal(Preview_bucketBusy(p, l, b, -1), expected_bucket(p, t, l, b, t->n_events));
        assert_int_equal(Preview_laneBusy(p, l, -1), expected_lane(t, l, t->n_events));
    }
}

/* Range growth to the right and to the left merges bucket pairs; every bucket stays
 * exact, whole-bucket events included. */
static void test_merge_keeps_totals_exact(void **state) {
    (void)state;
    Fix f = Fix_new();
    uint32_t a = Fix_gpu(&f, 0, 7), c = Fix_cpu(&f, 10, 11);
    PreviewModel *p = Preview_new(NULL, 8);
    assert_int_equal(p->n_buckets, 8);
    Fix_add(&f, a, 100000, 300, "k", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, c, 100100, 5000, "op", KIND_CPU_OP, CLASS_CPU);
    Preview_update(p, f.t);
    int shift0 = p->shift;
    int64_t t00 = p->t0;
    check_exact(p, f.t);
    /* far to the right: several doublings */
    Fix_add(&f, a, 900000, 7777, "k", KIND_KERNEL, CLASS_COMPUTE);
    Preview_update(p, f.t);
    assert_true(p->shift > shift0);
    assert_int_equal(p->t0, t00);
    check_exact(p, f.t);
    /* to the left: the range start moves */
    Fix_add(&f, c, 3000, 1234, "op", KIND_CPU_OP, CLASS_CPU);
    Preview_update(p, f.t);
    assert_true(p->t0 <= 3000 && p->t0 < t00);
    check_exact(p, f.t);
    /* one event over every bucket (O(1) whole-bucket counting), then another rescale */
    int shift1 = p->shift;
    Fix_add(&f, c, p->t0 + 1, (int64_t)8 << p->shift, "long", KIND_ANNOTATION, CLASS_ANNOTATION);
    Fix_add(&f, a, 200000, 1, "k", KIND_KERNEL, CLASS_COMPUTE);
    Preview_update(p, f.t);
    check_exact(p, f.t);
    assert_true(p->shift > shift1);
    /* pseudo-random events both sides, in several updates */
    uint64_t x = 88172645463325252ull;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 25; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int64_t ts = (int64_t)(x % 50000000) - 20000000 * (round % 3 == 0);
            int64_t dur = (int64_t)((x >> 20) % 400000);
            Fix_add(&f, i % 2 ? a : c, ts, dur, "r", i % 2 ? KIND_KERNEL : KIND_CPU_OP, CLASS_OTHER);
        }
        Preview_update(p, f.t);
        check_exact(p, f.t);
    }
    assert_true(p->min_ts < 0);
    /* memory is bounded by the buckets: still 8 of them */
    assert_int_equal(p->n_buckets, 8);
    Preview_free(p);
    Trace_free(f.t);
}

/* Lanes come in any order across updates; the display order is the timeline's:
 * GPU devices first, then by device/pid, stream/tid; ranks before all of that. */
static void test_lane_order(void **state) {
    (void)state;
    Fix f = Fix_new();
    uint32_t c5 = Fix_cpu(&f, 5, 2), g17 = Fix_gpu(&f, 1, 7), g020 = Fix_gpu(&f, 0, 20);
    Fix_add(&f, c5, 10, 5, "op", KIND_CPU_OP, CLASS_CPU);
    Fix_add(&f, g17, 10, 5, "k", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, g020, 10, 5, "k", KIND_KERNEL, CLASS_COMPUTE);
    PreviewModel *p = Preview_new(NULL, 0);
    Preview_update(p, f.t);
    assert_int_equal(p->n_lanes, 3);
    assert_int_equal(Preview_laneAt(p, 0), g020);
    assert_int_equal(Preview_laneAt(p, 1), g17);
    assert_int_equal(Preview_laneAt(p, 2), c5);
    /* a later update brings lanes that sort in between */
    uint32_t g07 = Fix_gpu(&f, 0, 7), c3 = Fix_cpu(&f, 3, 9), c52 = Fix_cpu(&f, 5, 1);
    Fix_add(&f, c3, 20, 5, "op", KIND_CPU_OP, CLASS_CPU);
    Fix_add(&f, g07, 20, 5, "k", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, c52, 20, 5, "op", KIND_CPU_OP, CLASS_CPU);
    Preview_update(p, f.t);
    uint32_t want[] = {g07, g020, g17, c3, c52, c5};
    assert_int_equal(p->n_lanes, 6);
    for (size_t i = 0; i < 6; i++) assert_int_equal(Preview_laneAt(p, i), want[i]);
    /* lines: GPU groups expanded (header, then a line per stream), CPU groups one line */
    static const char *lines[] = {"GPU 0", "stream 7", "stream 20", "GPU 1", "stream 7", "CPU pid 3", "CPU pid 5"};
    static const uint8_t kinds[] = {PLINE_GROUP, PLINE_LANE, PLINE_LANE, PLINE_GROUP, PLINE_LANE, PLINE_CPU, PLINE_CPU};
    assert_int_equal(p->n_lines, 7);
    for (size_t i = 0; i < 7; i++) {
        assert_string_equal(p->lines[i].label, lines[i]);
        assert_int_equal(p->lines[i].kind, kinds[i]);
    }
    assert_int_equal(p->lines[0].n, 2);
    assert_int_equal(p->lines[6].first, 4);
    assert_int_equal(p->lines[6].n, 2);
    assert_false(p->more_lines);
    assert_int_equal(p->window_end, 6);
    /* a second source: ranks from distributedInfo order it, "rank N" in its labels */
    uint32_t s2 = Trace_addSource(f.t, "rank0.json");
    f.t->sources[s2].rank = 0;
    f.t->sources[f.src].rank = 1;
    uint32_t r0 = Trace_cpuLane(f.t, s2, 1, 1);
    Fix_add(&f, r0, 30, 5, "op", KIND_CPU_OP, CLASS_CPU);
    Preview_update(p, f.t);
    assert_int_equal(Preview_laneAt(p, 0), r0);
    assert_int_equal(Preview_laneAt(p, 1), g07);
    assert_string_equal(p->lines[0].label, "rank 0 CPU pid 1");
    assert_string_equal(p->lines[1].label, "rank 1 GPU 0");
    /* string pids and tids keep their names */
    uint32_t sp = Trace_cpuLane(f.t, f.src, Trace_stringKey(f.t, "Spans", 5), Trace_stringKey(f.t, "PyTorch", 7));
    Fix_add(&f, sp, 30, 5, "span", KIND_ANNOTATION, CLASS_ANNOTATION);
    Preview_update(p, f.t);
    size_t k = 0;
    while (k < p->n_lines && strcmp(p->lines[k].label, "rank 1 CPU \"Spans\"")) k++;
    assert_true(k < p->n_lines);
    assert_int_equal(Preview_laneAt(p, p->lines[k].first), sp);
    Preview_free(p);
    Trace_free(f.t);
}

/* Many lanes arriving in reverse order over many updates: the order stays exact and
 * costs O(n log n) per update (an insertion sort here takes minutes). */
static void test_lane_order_many(void **state) {
    (void)state;
    enum { N = 60000, STEP = 1000 };
    Fix f = Fix_new();
    PreviewModel *p = Preview_new(NULL, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < N; i += STEP) {
        for (int k = 0; k < STEP; k++) Fix_gpu(&f, 0, N - i - k); /* streams N down to 1 */
        Preview_update(p, f.t);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(p->n_lanes, N);
    for (size_t i = 1; i < N; i++)
        assert_true(f.t->lanes[Preview_laneAt(p, i - 1)].stream < f.t->lanes[Preview_laneAt(p, i)].stream);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    assert_true(s < 10.0);
    Preview_free(p);
    Trace_free(f.t);
}

/* Each event is counted once, however many updates see the trace; a kernel without a
 * duration yet (a "B" before its "E") counts once its duration is known. */
static void test_cursor_counts_once(void **state) {
    (void)state;
    Fix f = Fix_new();
    uint32_t a = Fix_gpu(&f, 0, 7);
    PreviewModel *p = Preview_new(NULL, 16);
    for (int i = 0; i < 10; i++) Fix_add(&f, a, 1000 * i, 500, "k", KIND_KERNEL, CLASS_COMPUTE);
    assert_int_equal(Preview_update(p, f.t), 10);
    assert_int_equal(Preview_laneBusy(p, a, -1), 5000);
    uint64_t v = p->version;
    assert_int_equal(Preview_update(p, f.t), 0); /* nothing new */
    assert_int_equal(Preview_update(p, f.t), 0);
    assert_int_equal(Preview_laneBusy(p, a, -1), 5000);
    assert_int_equal(p->version, v);
    size_t open = Fix_add(&f, a, 20000, 0, "open", KIND_KERNEL, CLASS_COMPUTE);
    for (int i = 10; i < 15; i++) Fix_add(&f, a, 1000 * i, 100, "k", KIND_KERNEL, CLASS_COMPUTE);
    assert_int_equal(Preview_update(p, f.t), 6);
    assert_int_equal(Preview_laneBusy(p, a, -1), 5500);
    assert_int_equal(p->cursor, f.t->n_events);
    f.t->events[open].dur = 3000; /* its "E" arrived */
    Preview_update(p, f.t);
    assert_int_equal(Preview_laneBusy(p, a, -1), 8500);
    Preview_update(p, f.t);
    Preview_update(p, f.t);
    assert_int_equal(Preview_laneBusy(p, a, -1), 8500);
    assert_int_equal(p->events, 16);
    check_exact(p, f.t);
    Preview_free(p);
    Trace_free(f.t);
}

/* Kernels are compute or comm by the CommRules (name and stream rules), other kinds
 * by kind, as the final classification does. */
static void test_classes(void **state) {
    (void)state;
    Fix f = Fix_new();
    uint32_t a = Fix_gpu(&f, 0, 7), b = Fix_gpu(&f, 0, 99), c = Fix_cpu(&f, 1, 1);
    Fix_add(&f, a, 0, 100, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", KIND_KERNEL, CLASS_OTHER);
    Fix_add(&f, a, 200, 10, "gemm_bf16", KIND_KERNEL, CLASS_OTHER);
    Fix_add(&f, a, 300, 20, "Memcpy HtoD", KIND_MEMCPY, CLASS_OTHER);
    Fix_add(&f, b, 0, 40, "gemm_bf16", KIND_KERNEL, CLASS_OTHER);
    Fix_add(&f, c, 0, 70, "aten::mm", KIND_CPU_OP, CLASS_OTHER);
    CommRules *r = CommRules_default();
    char err[128];
    assert_true(CommRules_addLine(r, "comm-stream ^99$", err, sizeof err));
    PreviewModel *p = Preview_new(r, 0);
    Preview_update(p, f.t);
    assert_int_equal(Preview_laneBusy(p, a, CLASS_COMM), 100);
    assert_int_equal(Preview_laneBusy(p, a, CLASS_COMPUTE), 10);
    assert_int_equal(Preview_laneBusy(p, a, CLASS_MEMORY), 20);
    assert_int_equal(Preview_laneBusy(p, b, CLASS_COMM), 40); /* by its stream */
    assert_int_equal(Preview_laneBusy(p, c, CLASS_CPU), 70);
    Preview_free(p);
    CommRules_free(r);
    Trace_free(f.t);
}

/* The UI thread's copy has the same buckets (whole-bucket counts folded in) and is
 * refreshed only when the model changed. */
static void test_copy(void **state) {
    (void)state;
    Fix f = Fix_new();
    uint32_t a = Fix_gpu(&f, 0, 7), c = Fix_cpu(&f, 1, 1);
    PreviewModel *p = Preview_new(NULL, 16), *q = Preview_new(NULL, 16);
    Fix_add(&f, a, 0, 100000, "k", KIND_KERNEL, CLASS_OTHER); /* whole buckets */
    Preview_update(p, f.t);
    Preview_copy(q, p);
    assert_int_equal(q->n_lanes, 2);
    assert_int_equal(Preview_laneBusy(q, c, -1), 0);
    assert_int_equal(q->n_slots, 1); /* the one lane with busy time */
    for (int b = 0; b < 16; b++) assert_int_equal(Preview_bucketBusy(q, a, b, -1), Preview_bucketBusy(p, a, b, -1));
    assert_int_equal(Preview_laneBusy(q, a, -1), 100000);
    Fix_add(&f, c, 50, 70, "op", KIND_CPU_OP, CLASS_OTHER);
    Fix_add(&f, a, 200000, 5, "k", KIND_KERNEL, CLASS_OTHER);
    Preview_update(p, f.t);
    uint32_t c2 = Fix_cpu(&f, 0, 1); /* a lane that sorts before c */
    Fix_add(&f, c2, 10, 5, "op", KIND_CPU_OP, CLASS_OTHER);
    Preview_update(p, f.t);
    Preview_copy(q, p);
    assert_int_equal(q->n_lanes, 3);
    assert_int_equal(q->shift, p->shift);
    assert_int_equal(q->n_lines, 4); /* GPU 0, stream 7, CPU pid 0, CPU pid 1 */
    assert_string_equal(q->lines[2].label, "CPU pid 0");
    assert_string_equal(q->lines[3].label, "CPU pid 1");
    assert_null(q->order); /* nothing per lane in a copy */
    for (size_t l = 0; l < 3; l++)
        for (int b = 0; b < 16; b++) assert_int_equal(Preview_bucketBusy(q, l, b, -1), Preview_bucketBusy(p, l, b, -1));
    assert_int_equal(Preview_laneBusy(q, a, -1), 100005);
    /* a copy of a copy (no whole-bucket counts left to fold) */
    PreviewModel *q2 = Preview_new(NULL, 16);
    Preview_copy(q2, q);
    for (size_t l = 0; l < 3; l++) assert_int_equal(Preview_laneBusy(q2, l, -1), Preview_laneBusy(p, l, -1));
    Preview_free(q2);
    Preview_free(p);
    Preview_free(q);
    Trace_free(f.t);
}

static int count_row(const Grid *g, int y, int x0, uint32_t ch, int role) {
    int n = 0;
    for (int x = x0; x < g->w; x++) {
        const Cell *cell = Grid_cat(g, x, y);
        n += cell->ch == ch && (role < 0 || cell->role == role);
    }
    return n;
}

/* Two GPU streams and a CPU process: header, ruler, group header, labels, density. */
static void test_render(void **state) {
    (void)state;
    Fix f = Fix_new();
    uint32_t s7 = Fix_gpu(&f, 0, 7), s27 = Fix_gpu(&f, 0, 27), cpu = Fix_cpu(&f, 4242, 1), cpu2 = Fix_cpu(&f, 4242, 2);
    /* [0, 1 ms): stream 7 busy the whole time, stream 27 (comm) the first half */
    Fix_add(&f, s7, 1000000, 1000000, "gemm", KIND_KERNEL, CLASS_OTHER);
    Fix_add(&f, s27, 1000000, 500000, "ncclKernel_AllGather", KIND_KERNEL, CLASS_OTHER);
    Fix_add(&f, cpu, 1000000, 250000, "aten::mm", KIND_CPU_OP, CLASS_OTHER);
    Fix_add(&f, cpu2, 1750000, 250000, "aten::mm", KIND_CPU_OP, CLASS_OTHER);
    PreviewModel *p = Preview_new(NULL, 0);
    Preview_update(p, f.t);
    Grid g;
    Grid_init(&g, 100, 16);
    Rect r = {0, 2, 100, 13};
    int used = Preview_render(&g, r, p, Glyphs_get(true), true);
    assert_true(used > 5);
    int col;
    assert_int_equal(Grid_find(&g, 2, "Preview: 4 lanes so far"), 0);
    assert_int_equal(Grid_find(&g, 3, "time (ms)"), 0); /* ticks of 0.2 ms */
    assert_int_equal(Grid_find(&g, 3, "0.0ms"), 17);  /* the origin at the plot's first column */
    assert_true(Grid_find(&g, 3, "0.4ms") > 40);
    assert_int_equal(Grid_cat(&g, 17, 4)->ch, 0x2502); /* major tick under the label */
    int yg = Grid_findAny(&g, "GPU 0  2 streams", &col);
    assert_int_equal(yg, 5);
    assert_int_equal(Grid_cat(&g, 0, yg)->ch, 0x25bc); /* ▼ */
    assert_int_equal(Grid_cat(&g, 0, yg)->role, ROLE_GROUP);
    assert_int_equal(Grid_find(&g, 6, "stream 7"), 2);
    assert_int_equal(Grid_find(&g, 7, "stream 27"), 2);
    assert_int_equal(Grid_cat(&g, 16, 6)->ch, 0x2502); /* │ between labels and plot */
    int pw = 100 - 17;
    /* stream 7: every column full, compute colour */
    assert_int_equal(count_row(&g, 6, 17, 0x2588, ROLE_CLASS + CLASS_COMPUTE), pw);
    /* stream 27: comm, the first half */
    int n27 = count_row(&g, 7, 17, 0x2588, ROLE_CLASS + CLASS_COMM);
    assert_true(n27 >= pw / 2 - 1 && n27 <= pw / 2 + 1);
    assert_int_equal(Grid_cat(&g, 17, 7)->ch, 0x2588);
    assert_int_equal(Grid_cat(&g, 99, 7)->ch, ' ');
    /* the CPU process is one collapsed line: two threads, the first and last quarter */
    assert_int_equal(Grid_find(&g, 8, "CPU pid 4242"), 2);
    assert_int_equal(Grid_cat(&g, 0, 8)->ch, 0x25b6); /* ▶ */
    int ncpu = count_row(&g, 8, 17, 0x2588, ROLE_CLASS + CLASS_CPU);
    assert_true(ncpu >= pw / 2 - 2 && ncpu <= pw / 2 + 1);
    assert_int_equal(Grid_cat(&g, 17 + pw / 2, 8)->ch, ' ');
    /* the legend on the last line */
    assert_int_equal(Grid_find(&g, 14, "events:"), 0);
    assert_true(Grid_find(&g, 14, "comm") > 0);
    /* a partly busy column shows how full it is with the lower eighths: column 58 is
     * [1698796, 1710844) ns, 3000 ns of it busy -> 2/8 */
    Fix_add(&f, s27, 1700000, 3000, "ncclKernel_AllGather", KIND_KERNEL, CLASS_OTHER);
    Preview_update(p, f.t);
    Grid_clear(&g);
    Preview_render(&g, r, p, Glyphs_get(true), false);
    assert_int_equal(Grid_cat(&g, 17 + 58, 7)->ch, 0x2582);
    assert_int_equal(Grid_cat(&g, 17 + 58, 7)->role, ROLE_CLASS + CLASS_COMM);
    assert_int_equal(Grid_cat(&g, 17 + 57, 7)->ch, ' ');
    assert_int_equal(Grid_cat(&g, 17 + 59, 7)->ch, ' ');
    assert_int_equal(Grid_find(&g, 14, "events:"), -1); /* no colours: no legend */
    Grid_free(&g);
    Preview_free(p);
    Trace_free(f.t);
}

/* More lanes than lines: the rest is counted; ASCII glyphs; nothing when too small. */
static void test_render_overflow_ascii(void **state) {
    (void)state;
    Fix f = Fix_new();
    for (int s = 0; s < 12; s++) {
        uint32_t l = Fix_gpu(&f, s / 4, s);
        Fix_add(&f, l, 0, 1000, "k", KIND_KERNEL, CLASS_OTHER);
    }
    PreviewModel *p = Preview_new(NULL, 0);
    Preview_update(p, f.t);
    Grid g;
    Grid_init(&g, 80, 12);
    Preview_render(&g, (Rect){0, 0, 80, 12}, p, Glyphs_get(false), false);
    /* 9 lines for 15: GPU 0 header + 4 streams, GPU 1 header + 2 streams, "... 6 more lanes" */
    assert_int_equal(Grid_find(&g, 3, "- GPU 0  4 streams"), 0);
    assert_int_equal(Grid_find(&g, 8, "- GPU 1  4 streams"), 0);
    assert_int_equal(Grid_find(&g, 10, "stream 5"), 2);
    assert_int_equal(Grid_find(&g, 11, "... 6 more lanes"), 2);
    assert_int_equal(count_row(&g, 4, 17, '#', ROLE_CLASS + CLASS_COMPUTE), 80 - 17);
    for (int y = 0; y < g.h; y++)
        for (int x = 0; x < g.w; x++) assert_true(Grid_cat(&g, x, y)->ch < 128);
    Grid_clear(&g);
    assert_int_equal(Preview_render(&g, (Rect){0, 0, 80, 3}, p, Glyphs_get(true), false), 0);
    assert_int_equal(Grid_findAny(&g, "Preview", NULL), -1);
    /* an empty model draws nothing */
    PreviewModel *e = Preview_new(NULL, 0);
    assert_int_equal(Preview_render(&g, (Rect){0, 0, 80, 12}, e, Glyphs_get(true), false), 0);
    Preview_free(e);
    Grid_free(&g);
    Preview_free(p);
    Trace_free(f.t);
}

/* The loading screen keeps the progress on top and fills the rest with the preview. */
static void test_loading_screen_with_preview(void **state) {
    (void)state;
    static const char *names[] = {"train.json"};
    static const uint64_t sizes[] = {200000000};
    Fix f = Fix_new();
    uint32_t s7 = Fix_gpu(&f, 0, 7);
    Fix_add(&f, s7, 0, 1000000, "gemm", KIND_KERNEL, CLASS_OTHER);
    PreviewModel *p = Preview_new(NULL, 0);
    LoadingView v = {0};
    v.n_files = 1;
    v.names = names;
    v.sizes = sizes;
    v.done = 100000000;
    v.total = sizes[0];
    v.events = 1234567;
    v.elapsed = 1.0;
    v.phase = LOAD_READING;
    v.preview = p; /* no lanes yet: the screen as before */
    v.colors = true;
    Grid g;
    Grid_init(&g, 120, 40);
    Loading_render(&g, &v, Glyphs_get(true));
    int col;
    assert_int_equal(Grid_findAny(&g, "Loading train.json", &col), 10);
    assert_true(Grid_findAny(&g, "The timeline opens when the load completes.", &col) > 10);
    assert_int_equal(Grid_findAny(&g, "Preview", &col), -1);
    Preview_update(p, f.t);
    Loading_render(&g, &v, Glyphs_get(true));
    assert_int_equal(Grid_findAny(&g, "Loading train.json", &col), 2);
    int yb = Grid_findAny(&g, " 50%", &col);
    int yf = Grid_findAny(&g, "100.0 MB / 200.0 MB   1,234,567 events", &col);
    int yp = Grid_findAny(&g, "Preview: 1 lane so far", &col);
    assert_true(yb > 2 && yf > yb && yp > yf);
    assert_true(Grid_find(&g, yf, "ETA 1.0 s") >= 0);
    assert_int_equal(Grid_findAny(&g, "The timeline opens when the load completes.", &col), -1);
    assert_int_equal(Grid_findAny(&g, "GPU 0  1 stream", &col), yp + 3);
    assert_int_equal(Grid_find(&g, yp + 4, "stream 7"), 2);
    assert_int_equal(count_row(&g, yp + 4, 21, 0x2588, ROLE_CLASS + CLASS_COMPUTE), 120 - 21);
    assert_int_equal(Grid_find(&g, 38, "events:"), 0);
    assert_true(Grid_find(&g, 39, "q:cancel") >= 0);
    /* a short terminal keeps the plain screen */
    Grid_resize(&g, 80, 15);
    Loading_render(&g, &v, Glyphs_get(true));
    assert_int_equal(Grid_findAny(&g, "Preview", &col), -1);
    assert_true(Grid_findAny(&g, " 50%", &col) > 0);
    Grid_free(&g);
    Preview_free(p);
    Trace_free(f.t);
}

/* ---- fed by the real loader ---- */

typedef struct {
    LoadWatch *w;
    int calls;
    size_t last_n;
} Observed;

/* After each update: the preview holds exactly the durations of the events read so
 * far (the loader's partial trace, every event once). */
static void check_observe(void *ctx, const Trace *t) {
    Observed *o = ctx;
    LoadWatch_observe(o->w, t);
    LoadingView v;
    LoadWatch_snapshot(o->w, &v);
    const PreviewModel *p = v.preview;
    assert_non_null(p);
    assert_int_equal(p->cursor, t->n_events);
    assert_int_equal(p->n_lanes, t->n_lanes);
    for (size_t l = 0; l < t->n_lanes; l++) assert_int_equal(Preview_laneBusy(p, l, -1), expected_lane(t, l, t->n_events));
    o->calls++;
    o->last_n = t->n_events;
}

/* ~30 MB of kernels on GPU 0 streams 7 and 27 (every 7th an NCCL kernel) and CPU ops
 * on pid 42 threads 42..45: the loader reports at 8, 16 and 24 MB. */
static void write_big(char *dir, char *path, size_t len) {
    assert_non_null(mkdtemp(dir));
    snprintf(path, len, "%s/big.json", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("{\"traceEvents\":[\n", fp);
    for (int i = 0; i < 200000; i++) {
        if (i) fputs(",\n", fp);
        if (i % 3)
            fprintf(fp,
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,\"ts\":%d.5,\"dur\":%d,"
                    "\"args\":{\"device\":0,\"stream\":%d,\"correlation\":%d,\"padding\":\"xxxxxxxxxxxxxxxxxxxxxx\"}}",
                    i % 7 ? "gemm" : "ncclKernel_AllReduce", 7 + i % 2 * 20, i * 10, 3 + i % 5, 7 + i % 2 * 20, i);
        else
            fprintf(fp, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":42,\"tid\":%d,\"ts\":%d,\"dur\":%d}",
                    42 + i % 4, i * 10, 4);
    }
    fputs("]}\n", fp);
    fclose(fp);
}

static void test_loader_feeds_preview(void **state) {
    (void)state;
    char dir[] = "/tmp/ovt-preview-XXXXXX", path[256];
    write_big(dir, path, sizeof path);
    for (int threads = 1; threads <= 2; threads++) {
        const char *paths[] = {path};
        Observed o = {LoadWatch_new(paths, 1), 0, 0};
        LoadWatch_enablePreview(o.w, NULL);
        LoadOptions lo = {.threads = threads, .observe = check_observe, .observe_ctx = &o};
        char err[256];
        Trace *t = Load_files(paths, 1, &lo, err, sizeof err);
        assert_non_null(t);
        assert_true(o.calls >= 1);
        assert_true(o.last_n > 20000);
        LoadingView v;
        LoadWatch_snapshot(o.w, &v);
        /* lanes as the final model orders them: GPU 0 streams 7, 27, then CPU pid 42 */
        assert_int_equal(v.preview->n_lanes, 2 + 4);
        assert_string_equal(v.preview->lines[1].label, "stream 7");
        assert_string_equal(v.preview->lines[2].label, "stream 27");
        const PreviewSlot *sl = v.preview->slots; /* a copy's slots are in display order */
        assert_true(v.preview->n_slots >= 2 && sl[0].pos == 0 && sl[v.preview->n_slots - 1].pos >= 1);
        assert_true(Preview_laneBusy(v.preview, sl[0].lane, CLASS_COMM) > 0);
        uint32_t second = 0;
        for (size_t k = 0; k < v.preview->n_slots; k++)
            if (sl[k].pos == 1) second = sl[k].lane;
        assert_true(Preview_laneBusy(v.preview, second, CLASS_COMPUTE) > 0);
        Trace_free(t);
        LoadWatch_free(o.w);
    }
    unlink(path);
    rmdir(dir);
}

/* The job: the loading thread updates the preview while this thread snapshots and
 * draws it (the UI's side), as LoadJob_runScreen does. */
static void test_job_preview(void **state) {
    (void)state;
    char dir[] = "/tmp/ovt-preview-XXXXXX", path[256];
    write_big(dir, path, sizeof path);
    const char *paths[] = {path};
    LoadOptions lo = {.threads = 1};
    LoadJob j;
    assert_true(LoadJob_start(&j, paths, 1, &lo, (Caps){true, 256}, "big"));
    Grid g;
    Grid_init(&g, 120, 40);
    LoadingView v;
    while (!LoadJob_finished(&j)) {
        LoadWatch_snapshot(j.watch, &v);
        Loading_render(&g, &v, Glyphs_get(true));
        usleep(2000);
    }
    LoadJob_join(&j);
    assert_non_null(j.app);
    LoadWatch_snapshot(j.watch, &v);
    assert_non_null(v.preview);
    assert_int_equal(v.preview->n_lanes, 6); /* seen by the reports at 8, 16 and 24 MB */
    assert_true(v.preview->events > 0 && v.preview->events < j.app->t->n_events);
    Loading_render(&g, &v, Glyphs_get(true));
    int col;
    assert_true(Grid_findAny(&g, "Preview: 6 lanes so far", &col) > 0);
    assert_true(Grid_findAny(&g, "stream 27", &col) > 0);
    Grid_free(&g);
    Trace *t = j.app->t;
    App_free(j.app);
    Trace_free(t);
    LoadJob_free(&j);
    unlink(path);
    rmdir(dir);
}

/* Preview memory is bounded whatever the lane count: a process of more threads than
 * the budget has buckets for shows its first ones; the rest are counted (and said on
 * the header line), every lane and event is still counted, and the lanes that have
 * buckets keep exact totals. */
static void test_bucket_budget(void **state) {
    (void)state;
    enum { N = 20000 };
    Fix f = Fix_new();
    PreviewModel *p = Preview_new(NULL, 0);
    for (int i = 0; i < N; i++) Fix_add(&f, Fix_cpu(&f, 1, i + 1), 1000 + i, 500, "op", KIND_CPU_OP, 0);
    Preview_update(p, f.t);
    assert_int_equal(p->n_lanes, N);
    assert_int_equal(p->events, N);
    assert_int_equal(p->n_lines, 1); /* one collapsed process: every thread is on screen */
    assert_true(p->bucket_bytes <= PREVIEW_MAX_BUCKET_BYTES);
    assert_true(p->lanes_no_slot > 0 && p->lanes_no_slot < N);
    size_t with = 0;
    for (size_t s = 0; s < p->n_slots; s++) {
        if (p->slots[s].lane == PREVIEW_FREE) continue;
        with++;
        if (s % 997 == 0) assert_int_equal(Preview_laneBusy(p, p->slots[s].lane, -1), 500);
    }
    assert_int_equal(with + p->lanes_no_slot, N);
    Grid g;
    Grid_init(&g, 200, 45);
    Preview_render(&g, (Rect){0, 0, 200, 45}, p, Glyphs_get(true), false);
    assert_true(Grid_find(&g, 0, "without busy time: preview memory is bounded") > 0);
    Grid_free(&g);
    Preview_free(p);
    Trace_free(f.t);
}

/* Only the lanes of the first PREVIEW_MAX_LINES lines hold buckets: 200k GPU streams
 * cost a few bytes each in the live model and nothing per lane in the UI's copy (not
 * labels and buckets for every lane: 300 bytes per lane twice, 600 MB for a million),
 * and they arrive in reverse, so that each new stream pushes the others down: the lanes
 * pushed off the lines give their buckets back. */
static void test_memory_bounded(void **state) {
    (void)state;
    enum { N = 200000, STEP = 20000 };
    Fix f = Fix_new();
    PreviewModel *p = Preview_new(NULL, 0), *q = Preview_new(NULL, 0);
    for (int i = 0; i < N; i += STEP) {
        for (int k = 0; k < STEP; k++) Fix_add(&f, Fix_gpu(&f, 0, N - i - k), 1000 + k, 500, "gemm", KIND_KERNEL, 0);
        Preview_update(p, f.t);
        Preview_copy(q, p);
    }
    assert_int_equal(p->n_lanes, N);
    assert_int_equal(p->n_lines, PREVIEW_MAX_LINES);
    assert_true(p->more_lines);
    assert_int_equal(p->window_end, PREVIEW_MAX_LINES - 1); /* the GPU 0 header, then streams 1.. */
    assert_int_equal(p->lanes_no_slot, 0);
    size_t slot = (size_t)p->n_buckets * (sizeof(int64_t) + sizeof(int32_t)) + sizeof(int32_t);
    assert_int_equal(p->bucket_bytes, p->window_end * slot); /* one class per stream on the lines */
    size_t fixed = 2 * PREVIEW_MAX_LINES * slot + PREVIEW_MAX_LINES * sizeof(PreviewLine) + 64 * 1024;
    assert_true(Preview_memoryBytes(p) <= 2 * (size_t)N * 16 + fixed); /* cap_lanes <= 2 N, 13 B each */
    assert_true(Preview_memoryBytes(q) <= fixed);
    /* the streams on the lines are exact; the rest are counted, not drawn */
    for (size_t k = 1; k < PREVIEW_MAX_LINES; k++) {
        uint32_t lane = Preview_laneAt(p, k - 1);
        assert_int_equal(f.t->lanes[lane].stream, (int64_t)k);
        if (k % 101 == 1) assert_int_equal(Preview_laneBusy(q, lane, -1), 500);
    }
    assert_int_equal(Preview_laneBusy(q, Preview_laneAt(p, PREVIEW_MAX_LINES), -1), 0);
    Grid g;
    Grid_init(&g, 120, 40);
    Preview_render(&g, (Rect){0, 0, 120, 40}, q, Glyphs_get(true), false);
    int col;
    assert_true(Grid_findAny(&g, "GPU 0  200000 streams", &col) > 0);
    assert_true(Grid_findAny(&g, "... 199965 more lanes", &col) > 0); /* 37 rows: GPU 0, 35 streams, the count */
    int drawn = 0; /* stream 1's kernel, near the end */
    for (int x = 17; x < g.w; x++) drawn += Grid_cat(&g, x, 4)->role == ROLE_CLASS + CLASS_COMPUTE;
    assert_true(drawn > 0);
    Grid_free(&g);
    Preview_free(q);
    Preview_free(p);
    Trace_free(f.t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_keeps_totals_exact),
        cmocka_unit_test(test_lane_order),
        cmocka_unit_test(test_lane_order_many),
        cmocka_unit_test(test_bucket_budget),
        cmocka_unit_test(test_memory_bounded),
        cmocka_unit_test(test_cursor_counts_once),
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_render_overflow_ascii),
        cmocka_unit_test(test_loading_screen_with_preview),
        cmocka_unit_test(test_loader_feeds_preview),
        cmocka_unit_test(test_job_preview),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
