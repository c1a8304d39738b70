/* Counter lanes: per-column values, levels and glyphs of a sparkline, the
 * lines a counter series adds, and the lane as rendered, checked against hand-built
 * series whose answers are worked out in the comments. */
#include "tui_fixture.h"
#include "ovtrace/analysis/counters.h"
#include "counter_lane.h"

static size_t add_sample(Fix *f, uint32_t lane, int64_t ts, double v, const char *name) {
    size_t i = Fix_add(f, lane, ts, 0, name, KIND_COUNTER, CLASS_OTHER);
    f->t->events[i].value = v;
    return i;
}

#define MEM0 "[memory] GPU 0 Total Allocated"

/* GPU 0 with one kernel stream; a CPU thread holding only GPU 0's memory samples; a
 * second CPU thread with ops and a plain counter "ctr.x". */
static Trace *fixture(void) {
    Fix f = Fix_new();
    uint32_t k = Fix_gpu(&f, 0, 7), mem = Fix_cpu(&f, 9, 100), th = Fix_cpu(&f, 9, 9);
    Fix_add(&f, k, 0, 100, "gemm", KIND_KERNEL, CLASS_COMPUTE);
    /* samples out of order on purpose: the series is sorted by time */
    add_sample(&f, mem, 35, 9, MEM0);
    add_sample(&f, mem, 10, 5, MEM0);
    add_sample(&f, mem, 30, 1, MEM0);
    add_sample(&f, mem, 70, 2, MEM0);
    Fix_add(&f, th, 0, 50, "op", KIND_CPU_OP, CLASS_CPU);
    add_sample(&f, th, 20, 4, "ctr.x");
    add_sample(&f, th, 80, 6, "ctr.x"); /* after the op: on the op's row */
    Trace_finish(f.t);
    return f.t;
}

static const CounterSeries *find(const CounterSet *cs, const Trace *t, const char *name) {
    for (size_t i = 0; i < cs->n; i++)
        if (!strcmp(StrTab_get(t->strings, cs->s[i].name), name)) return &cs->s[i];
    return NULL;
}

static void columns_and_levels(void **state) {
    (void)state;
    Trace *t = fixture();
    CounterSet *cs = CounterSet_build(t);
    assert_int_equal(cs->n, 2);
    const CounterSeries *s = find(cs, t, MEM0);
    assert_non_null(s);
    assert_int_equal(s->n, 4);
    /* [0, 100) in 10 columns of 10 ns. c0: before the first sample. c1, c2: 5. c3: 1 at
     * its start then 9 at 35: the largest, 9; c4..c6: 9 in effect; c7..c9: 2 from 70 on. */
    double val[10];
    bool has[10];
    CounterLane_columns(t, s, 0, 100, 10, val, has);
    const double want[10] = {0, 5, 5, 9, 9, 9, 9, 2, 2, 2};
    for (int c = 0; c < 10; c++) {
        assert_int_equal(has[c], c > 0);
        assert_true(val[c] == want[c]);
    }
    /* scaled to 2..9: level 1 + round((v - 2) / 7 * 7): 5 -> 4, 9 -> 8, 2 -> 1 */
    uint8_t lvl[10];
    double lo, hi;
    assert_true(CounterLane_levels(val, has, 10, lvl, &lo, &hi));
    assert_true(lo == 2 && hi == 9);
    const uint8_t wl[10] = {0, 4, 4, 8, 8, 8, 8, 1, 1, 1};
    assert_memory_equal(lvl, wl, 10);
    /* a window starting inside: [40, 80) in 4 columns: 9 in effect, 9, 2 at 70, 2 */
    CounterLane_columns(t, s, 40, 80, 4, val, has);
    assert_true(has[0] && val[0] == 9 && val[1] == 9 && val[2] == 9 && val[3] == 2);
    /* flat series: non-zero is full, zero is the lowest bar */
    double flat[3] = {3, 3, 3}, zero[3] = {0, 0, 0};
    bool all[3] = {true, true, true}, none[3] = {false, false, false};
    CounterLane_levels(flat, all, 3, lvl, NULL, NULL);
    assert_true(lvl[0] == 8 && lvl[2] == 8);
    CounterLane_levels(zero, all, 3, lvl, NULL, NULL);
    assert_true(lvl[0] == 1 && lvl[2] == 1);
    assert_false(CounterLane_levels(zero, none, 3, lvl, NULL, NULL));
    assert_int_equal(lvl[1], 0);
    /* glyphs */
    assert_int_equal(CounterLane_glyph(1, true), 0x2581);
    assert_int_equal(CounterLane_glyph(8, true), 0x2588);
    assert_int_equal(CounterLane_glyph(0, true), ' ');
    assert_int_equal(CounterLane_glyph(1, false), '_');
    assert_int_equal(CounterLane_glyph(8, false), '#');
    CounterSet_free(cs);
    Trace_free(t);
}

static size_t count_kind(const App *a, LineKind k) {
    size_t n = 0;
    for (size_t i = 0; i < a->lines.n; i++) n += a->lines.v[i].kind == k;
    return n;
}

static void lines_and_render(void **state) {
    (void)state;
    Trace *t = fixture();
    Caps caps = {true, 256};
    App *a = App_new(t, caps, "test");
    /* GPU 0 expanded: header, band, stream 7, the memory lane moved under it. The CPU
     * group is collapsed. */
    assert_int_equal(count_kind(a, LINE_COUNTER), 1);
    const Line *L = &a->lines.v[3];
    assert_int_equal(L->kind, LINE_COUNTER);
    assert_string_equal(StrTab_get(t->strings, CounterLane_set(a)->s[L->row].name), MEM0);
    /* expanding the CPU group shows "ctr.x" as a lane, and the thread holding only
     * memory samples has no rows of its own any more (its series is under GPU 0) */
    size_t cpu = Lines_findGroup(&a->lines, 1);
    assert_true(cpu != SIZE_MAX);
    a->collapsed[1] = false;
    App_rebuildLines(a);
    assert_int_equal(count_kind(a, LINE_COUNTER), 2);
    size_t rows = 0;
    for (size_t i = 0; i < a->lines.n; i++)
        if (a->lines.v[i].kind == LINE_ROW) {
            assert_false(CounterLane_set(a)->lane_only[a->lines.v[i].lane]);
            rows++;
        }
    /* stream 7 and thread 9's first row (op, and ctr.x's sample at 80); the sample at 20
     * sat alone on a sub-row */
    assert_int_equal(rows, 2);

    Grid g;
    Grid_init(&g, 120, 40);
    a->v.t0 = 0;
    a->v.t1 = 100;
    a->v.cursor = 50;
    App_sync(a);
    App_render(a, &g);
    int y = -1;
    for (int r = 0; r < g.h && y < 0; r++)
        if (Grid_find(&g, r, "mem allocated") >= 0) y = r;
    assert_true(y > 0);
    int W = a->layout.plot.w, x0 = a->layout.plot.x;
    /* the highest value (9, from 35 to 70) is a full block, the lowest (1, from 30 to 35:
     * wider than a column here) the lowest bar, 2 one above (1 + round(1/8 * 7)) */
    int c9 = (int)(40 * (int64_t)W / 100), c1 = (int)(32 * (int64_t)W / 100), c2 = (int)(72 * (int64_t)W / 100); /* the value text is further right */
    assert_int_equal(Grid_at(&g, x0 + c9, y)->ch, 0x2588);
    assert_int_equal(Grid_at(&g, x0 + c1, y)->ch, 0x2581);
    assert_int_equal(Grid_at(&g, x0 + c2, y)->ch, 0x2582);
    assert_int_equal(Grid_at(&g, x0 + 2, y)->ch, ' '); /* before the first sample */
    /* in the values column right of the plot (too narrow here for the min..max): the
     * value under the cursor (9 at 50 ns) */
    assert_int_equal(Grid_find(&g, y, " 9 B"), a->layout.values.x + a->layout.values.w - 5);
    /* selecting the line picks the sample in effect at the cursor: 9 at 35 */
    App_selectLine(a, (size_t)(a->v.top + (size_t)(y - a->layout.plot.y)));
    assert_true(a->v.sel < t->n_events);
    assert_true(t->events[a->v.sel].ts == 35 && t->events[a->v.sel].value == 9);
    /* range panel: min/max/mean of the samples in [0, 100): 1, 9, 2.5 (mean of 5,1,9,2
     * = 4.25) */
    App_setRange(a, 0, 100);
    App_sync(a);
    App_render(a, &g);
    int py = Grid_findAny(&g, "counter ", NULL);
    assert_true(py > 0);
    int ry = -1;
    for (int r = py; r < g.h && ry < 0; r++)
        if (Grid_find(&g, r, "[memory] GPU 0 Total") >= 0) ry = r;
    assert_true(ry > 0);
    char buf[512];
    Grid_rowText(&g, ry, buf, sizeof buf);
    assert_non_null(strstr(buf, "1 B"));
    assert_non_null(strstr(buf, "9 B"));
    assert_non_null(strstr(buf, "4 B")); /* 4.25 bytes, formatted as whole bytes */
    /* the sample at 80 ns shares thread 9's first row with the op: not drawn there, only
     * on its counter lane */
    int ty = -1;
    for (int r = 0; r < g.h && ty < 0; r++)
        if (Grid_find(&g, r, " thread 9") >= 0) ty = r;
    assert_true(ty > 0);
    assert_int_equal(Grid_at(&g, x0 + (int)(80 * (int64_t)W / 100), ty)->ch, ' ');
    assert_true(Grid_at(&g, x0 + (int)(20 * (int64_t)W / 100), ty)->ch != ' '); /* the op */
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
}

static void ascii_glyphs(void **state) {
    (void)state;
    Trace *t = fixture();
    Caps caps = {false, 0};
    App *a = App_new(t, caps, "test");
    Grid g;
    Grid_init(&g, 100, 30);
    a->v.t0 = 0;
    a->v.t1 = 100;
    a->v.cursor = 99;
    App_sync(a);
    App_render(a, &g);
    int y = -1;
    for (int r = 0; r < g.h && y < 0; r++)
        if (Grid_find(&g, r, "mem allocated") >= 0) y = r;
    assert_true(y > 0);
    for (int x = 0; x < g.w; x++) assert_true(Grid_at(&g, x, y)->ch < 0x80);
    int W = a->layout.plot.w, x0 = a->layout.plot.x;
    assert_int_equal(Grid_at(&g, x0 + (int)(40 * (int64_t)W / 100), y)->ch, '#');
    /* at this width 1 (from 30 to 35) is the view's minimum: 2 is level 1 + round(1/8 * 7) = 2 */
    assert_int_equal(Grid_at(&g, x0 + (int)(32 * (int64_t)W / 100), y)->ch, '_');
    assert_int_equal(Grid_at(&g, x0 + (int)(75 * (int64_t)W / 100), y)->ch, '.');
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
}

/* The values column: widths, texts, and a lane whose lowest sample shares a plot column
 * with a higher one (a column draws its largest value) still says its true min. */
static void values_column(void **state) {
    (void)state;
    /* "9 B" is 3 wide: "at cursor" (9) and "view min..max" (13) set the fields; the range
     * field where the plot keeps 80 columns beside it */
    CounterColumns c = CounterLane_valueColumns(3, 175);
    assert_int_equal(c.at, 9);
    assert_int_equal(c.range, 13);
    assert_int_equal(c.w, 1 + 9 + 2 + 13 + 1);
    c = CounterLane_valueColumns(3, 1 + 9 + 2 + 13 + 1 + 1 + 79);
    assert_int_equal(c.range, 0);
    assert_int_equal(c.w, 1 + 9 + 1);
    char buf[128];
    CounterLane_valueText(&c, "7", "1", "9", buf, sizeof buf);
    assert_string_equal(buf, "         7 ");
    c = CounterLane_valueColumns(8, 200);
    CounterLane_valueText(&c, "8.04 GiB", "8.04 GiB", "9.88 GiB", buf, sizeof buf);
    assert_string_equal(buf, "  8.04 GiB  8.04 GiB..9.88 GiB ");
    CounterLane_valueHead(&c, buf, sizeof buf);
    assert_string_equal(buf, " at cursor       view min..max ");
    CounterLane_valueText(&c, "-", NULL, NULL, buf, sizeof buf);
    assert_string_equal(buf, "         -                   - ");

    /* GPU 0's memory: 5 at 10 us, 1 at 10 us + 1 ns, 9 at 10 us + 2 ns (one plot column
     * holds all three: it draws 9), 5 at 50 us; the cursor at 60 us */
    Fix f = Fix_new();
    uint32_t k = Fix_gpu(&f, 0, 7), mem = Fix_cpu(&f, 9, 100);
    Fix_add(&f, k, 0, 100000, "gemm", KIND_KERNEL, CLASS_COMPUTE);
    add_sample(&f, mem, 10000, 5, MEM0);
    add_sample(&f, mem, 10001, 1, MEM0);
    add_sample(&f, mem, 10002, 9, MEM0);
    add_sample(&f, mem, 50000, 5, MEM0);
    Trace_finish(f.t);
    Trace *t = f.t;
    App *a = App_new(t, (Caps){true, 256}, "test");
    Grid g;
    Grid_init(&g, 200, 50);
    a->v.t0 = 0;
    a->v.t1 = 100000;
    a->v.cursor = 60000;
    App_sync(a);
    App_render(a, &g);
    int y = -1;
    for (int r = 0; r < g.h && y < 0; r++)
        if (Grid_find(&g, r, "mem allocated") >= 0) y = r;
    assert_true(y > 0);
    Rect v = a->layout.values, p = a->layout.plot;
    assert_true(v.w > 0);
    assert_int_equal(v.x, p.x + p.w + 1);
    /* the header over the column, in the ruler's first row */
    assert_int_equal(Grid_find(&g, a->layout.ruler.y, "at cursor"), v.x + 1 + 9 - 9);
    assert_true(Grid_find(&g, a->layout.ruler.y, "view min..max") > v.x);
    /* 5 at the cursor; min 1 (not 5, the lowest column's largest), max 9 */
    assert_true(Grid_find(&g, y, "5 B") > v.x);
    assert_true(Grid_find(&g, y, " 1 B..9 B ") > v.x);
    /* nothing covers the sparkline: its last column (5, the view's lowest column: level 1)
     * is a bar, and the plot ends before the values column */
    assert_int_equal(Grid_at(&g, p.x + p.w - 1, y)->ch, 0x2581);
    assert_true(Grid_find(&g, y, "B") > p.x + p.w);
    /* the ruler ends with the plot: the column is not under a tick */
    assert_int_equal(a->layout.ruler.w, p.w);
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(columns_and_levels),
        cmocka_unit_test(lines_and_render),
        cmocka_unit_test(ascii_glyphs),
        cmocka_unit_test(values_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
