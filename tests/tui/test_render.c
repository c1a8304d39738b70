/* Rendering into the cell grid: sub-cell event edges, dense cells, the overlap band
 * on hand-built traces, sub-rows, and the layout at 80x24 and 250x80. */
#include "tui_fixture.h"

#include "ovtrace/analysis/overlap.h"
#include "band.h"
#include "layout.h"
#include "theme.h"

static uint32_t find_lane(const Trace *t, bool gpu, int64_t a, int64_t b) {
    for (uint32_t i = 0; i < t->n_lanes; i++) {
        const Lane *l = &t->lanes[i];
        if (l->gpu != gpu) continue;
        if (gpu ? (l->device == a && l->stream == b) : (l->pid == a && l->tid == b)) return i;
    }
    fail_msg("lane not found");
    return 0;
}

/* One GPU stream; the view is set so that every column is exactly 10 ns. */
static App *subcell_app(Caps caps, Grid *g, int *plot_x, int *y) {
    Fix f = Fix_new();
    uint32_t l = Fix_gpu(&f, 0, 7);
    Grid_init(g, 120, 30);
    Layout L = Layout_compute(120, 30, true);
    int W = L.plot.w;
    int64_t base = 1000;
    Fix_add(&f, l, 0, 10, "start", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, l, base + 55, 20, "", KIND_KERNEL, CLASS_COMPUTE);      /* cols 5 (right half), 6, 7 (left half) */
    Fix_add(&f, l, base + 200, 2, "", KIND_KERNEL, CLASS_COMPUTE);      /* col 20: 5 of 10 ns busy */
    Fix_add(&f, l, base + 204, 2, "", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, l, base + 208, 1, "", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, l, base + 301, 2, "", KIND_KERNEL, CLASS_COMM);         /* col 30: one tiny event */
    Fix_add(&f, l, base + 400, 200, "wide_kernel_name", KIND_KERNEL, CLASS_COMM); /* cols 40..59 */
    Fix_add(&f, l, base + 10 * W + 1000, 10, "end", KIND_KERNEL, CLASS_COMPUTE);
    Trace_finish(f.t);
    App *a = App_new(f.t, caps, "test");
    a->v.t0 = base;
    a->v.t1 = base + 10 * W;
    a->v.cursor = base + 10 * W - 1; /* keep the cursor marker off the cells under test */
    App_sync(a);
    App_render(a, g);
    assert_int_equal(a->layout.plot.w, W);
    uint32_t lane = find_lane(f.t, true, 0, 7);
    *y = screen_y_of_row(a, f.t->lanes[lane].first_row);
    assert_true(*y > 0);
    *plot_x = a->layout.plot.x;
    return a;
}

static void free_app(App *a, Grid *g) {
    Trace *t = a->t;
    App_free(a);
    Trace_free(t);
    Grid_free(g);
}

static void test_subcell_unicode(void **state) {
    (void)state;
    Grid g;
    int x0, y;
    App *a = subcell_app((Caps){true, 256}, &g, &x0, &y);
    const Cell *c5 = Grid_at(&g, x0 + 5, y), *c6 = Grid_at(&g, x0 + 6, y), *c7 = Grid_at(&g, x0 + 7, y);
    /* starts half-way into column 5: the reverse of a left half block */
    assert_int_equal(c5->ch, 0x258c);
    assert_true(c5->attr & ATTR_REVERSE);
    assert_int_equal(c5->role, ROLE_CLASS + CLASS_COMPUTE);
    assert_int_equal(c6->ch, 0x2588); /* full */
    assert_int_equal(c7->ch, 0x258c); /* ends half-way: left half */
    assert_false(c7->attr & ATTR_REVERSE);
    assert_int_equal(Grid_at(&g, x0 + 4, y)->ch, ' ');
    assert_int_equal(Grid_at(&g, x0 + 8, y)->ch, ' ');
    /* a cell holding three events, half busy: a half-height bar */
    assert_int_equal(Grid_at(&g, x0 + 20, y)->ch, 0x2584);
    /* a lone event narrower than a cell */
    assert_int_equal(Grid_at(&g, x0 + 30, y)->ch, 0x2502);
    assert_int_equal(Grid_at(&g, x0 + 30, y)->role, ROLE_CLASS + CLASS_COMM);
    /* a wide event shows its name inside */
    assert_int_equal(Grid_find(&g, y, "wide_kernel_name"), x0 + 41);
    assert_int_equal(Grid_at(&g, x0 + 41, y)->role, ROLE_CLASS_TEXT + CLASS_COMM);
    free_app(a, &g);
}

static void test_subcell_ascii(void **state) {
    (void)state;
    Grid g;
    int x0, y;
    App *a = subcell_app((Caps){false, 0}, &g, &x0, &y);
    assert_int_equal(Grid_at(&g, x0 + 5, y)->ch, '[');
    assert_int_equal(Grid_at(&g, x0 + 6, y)->ch, '=');
    assert_int_equal(Grid_at(&g, x0 + 7, y)->ch, ']');
    assert_int_equal(Grid_at(&g, x0 + 20, y)->ch, ':');
    assert_int_equal(Grid_at(&g, x0 + 30, y)->ch, '|');
    /* nothing outside ASCII anywhere on screen */
    for (int yy = 0; yy < g.h; yy++)
        for (int xx = 0; xx < g.w; xx++) assert_true(Grid_at(&g, xx, yy)->ch < 0x80);
    free_app(a, &g);
}

/* compute [0,100) on stream 1, comm [50,150) and [300,400) on stream 2, memcpy
 * [200,250) on stream 3, compute [400,410); 100 ns per column. */
static App *band_app(Caps caps, Grid *g, int *x0, int *y) {
    Fix f = Fix_new();
    uint32_t s1 = Fix_gpu(&f, 0, 1), s2 = Fix_gpu(&f, 0, 2), s3 = Fix_gpu(&f, 0, 3);
    Grid_init(g, 120, 30);
    int W = Layout_compute(120, 30, true).plot.w;
    Fix_add(&f, s1, 0, 100, "gemm", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, s2, 50, 100, "combine", KIND_KERNEL, CLASS_COMM);
    Fix_add(&f, s3, 200, 50, "Memcpy HtoD", KIND_MEMCPY, CLASS_MEMORY);
    Fix_add(&f, s2, 300, 100, "dispatch", KIND_KERNEL, CLASS_COMM);
    Fix_add(&f, s1, 400, 10, "gemm", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, s1, 100 * (int64_t)W - 10, 10, "gemm", KIND_KERNEL, CLASS_COMPUTE);
    Trace_finish(f.t);
    App *a = App_new(f.t, caps, "band");
    a->v.t0 = 0;
    a->v.t1 = 100 * (int64_t)W;
    a->v.cursor = a->v.t1 - 1;
    App_sync(a);
    App_render(a, g);
    *y = screen_y_of_band(a, 0);
    assert_true(*y > 0);
    *x0 = a->layout.plot.x;
    return a;
}

static void test_band_states_color(void **state) {
    (void)state;
    Grid g;
    int x0, y;
    App *a = band_app((Caps){true, 256}, &g, &x0, &y);
    assert_int_equal(Grid_at(&g, x0 + 0, y)->role, ROLE_BAND + BAND_HIDDEN);  /* 50 compute + 50 hidden: hidden */
    assert_int_equal(Grid_at(&g, x0 + 1, y)->role, ROLE_BAND + BAND_EXPOSED); /* 50 exposed, 50 idle */
    assert_int_equal(Grid_at(&g, x0 + 2, y)->role, ROLE_BAND + BAND_MEMORY);
    assert_int_equal(Grid_at(&g, x0 + 3, y)->role, ROLE_BAND + BAND_EXPOSED);
    assert_int_equal(Grid_at(&g, x0 + 4, y)->role, ROLE_BAND + BAND_IDLE); /* 10 of 100 busy */
    assert_int_equal(Grid_at(&g, x0 + 5, y)->role, ROLE_BAND + BAND_IDLE);
    /* height shows how busy: full where busy, half where half busy */
    assert_int_equal(Grid_at(&g, x0 + 0, y)->ch, 0x2588);
    assert_int_equal(Grid_at(&g, x0 + 1, y)->ch, 0x2584);
    /* the header gives the ratio hidden / comm over the visible range: 50 / 200 */
    int hy = y - 1;
    assert_true(Grid_find(&g, hy, "ratio 0.2500") > 0);
    OverlapFilter of = OverlapFilter_all();
    of.t0 = a->v.t0;
    of.t1 = a->v.t1;
    OverlapReport *R = Overlap_compute(a->t, &of);
    assert_int_equal(R->devices[0].overlap, 50);
    assert_int_equal(R->devices[0].comm, 200);
    OverlapReport_free(R);
    /* the legend is there */
    assert_true(Grid_find(&g, a->layout.legend.y, "comm exposed") > 0);
    free_app(a, &g);
}

static void test_band_states_mono(void **state) {
    (void)state;
    Grid g;
    int x0, y;
    App *a = band_app((Caps){true, 0}, &g, &x0, &y);
    const Glyphs *gl = Glyphs_get(true);
    BandState want[] = {BAND_HIDDEN, BAND_EXPOSED, BAND_MEMORY, BAND_EXPOSED, BAND_IDLE};
    for (int c = 0; c < 5; c++) assert_int_equal(Grid_at(&g, x0 + c, y)->ch, gl->band_mono[want[c]]);
    /* every state has its own glyph without colour */
    for (int s = 0; s < BAND__COUNT; s++)
        for (int u = s + 1; u < BAND__COUNT; u++) assert_int_not_equal(gl->band_mono[s], gl->band_mono[u]);
    const Glyphs *ga = Glyphs_get(false);
    for (int s = 0; s < BAND__COUNT; s++)
        for (int u = s + 1; u < BAND__COUNT; u++) assert_int_not_equal(ga->band_mono[s], ga->band_mono[u]);
    free_app(a, &g);
}

static void test_band_pick(void **state) {
    (void)state;
    int64_t ns[BAND__COUNT] = {0};
    assert_int_equal(Band_pick(ns), BAND_IDLE);
    ns[BAND_IDLE] = 80;
    ns[BAND_EXPOSED] = 20;
    assert_int_equal(Band_pick(ns), BAND_EXPOSED);
    ns[BAND_IDLE] = 90;
    ns[BAND_EXPOSED] = 10;
    assert_int_equal(Band_pick(ns), BAND_IDLE);
    int64_t m[BAND__COUNT] = {0, 60, 30, 0, 10};
    assert_int_equal(Band_pick(m), BAND_COMPUTE);
}

static void test_subrows(void **state) {
    (void)state;
    Fix f = Fix_new();
    uint32_t cpu = Fix_cpu(&f, 10, 11), gpu = Fix_gpu(&f, 0, 7);
    Fix_add(&f, cpu, 0, 1000, "outer", KIND_CPU_OP, CLASS_CPU);
    Fix_add(&f, cpu, 100, 400, "inner", KIND_CPU_OP, CLASS_CPU);
    Fix_add(&f, cpu, 200, 100, "leaf", KIND_CPU_OP, CLASS_CPU);
    Fix_add(&f, gpu, 0, 100, "k1", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, gpu, 50, 100, "k2", KIND_KERNEL, CLASS_COMPUTE);
    Trace_finish(f.t);
    const Trace *t = f.t;
    const Lane *lc = &t->lanes[find_lane(t, false, 10, 11)];
    const Lane *lg = &t->lanes[find_lane(t, true, 0, 7)];
    assert_int_equal(lc->n_rows, 3);
    assert_int_equal(lg->n_rows, 2);
    Grid g;
    Grid_init(&g, 100, 30);
    App *a = App_new(f.t, (Caps){true, 256}, "subrows");
    /* CPU groups start collapsed: the GPU lane's two rows are shown, the CPU rows not */
    assert_int_not_equal(Lines_findRow(&a->lines, lg->first_row + 1), SIZE_MAX);
    assert_int_equal(Lines_findRow(&a->lines, lc->first_row), SIZE_MAX);
    /* selecting the nested op expands its group */
    size_t leaf = SIZE_MAX;
    for (size_t i = 0; i < t->n_events; i++)
        if (!strcmp(Trace_name(t, &t->events[i]), "leaf")) leaf = i;
    App_selectEvent(a, leaf);
    a->v.t0 = 0;
    a->v.t1 = 1000;
    App_sync(a);
    App_render(&*a, &g);
    int y0 = screen_y_of_row(a, lc->first_row), y2 = screen_y_of_row(a, lc->first_row + 2);
    assert_true(y0 > 0);
    assert_int_equal(y2, y0 + 2);
    /* 1000 ns over the plot: "outer" covers the whole depth-0 row, "leaf" a tenth of depth 2 */
    int W = a->layout.plot.w, x0 = a->layout.plot.x;
    int leaf_col = (int)(250LL * W / 1000);
    assert_int_not_equal(Grid_at(&g, x0 + leaf_col, y2)->ch, ' ');
    assert_int_equal(Grid_at(&g, x0 + W - 2, y2)->ch, ' ');
    assert_int_not_equal(Grid_at(&g, x0 + W - 2, y0)->ch, ' ');
    assert_true(Grid_find(&g, y0, "outer") > 0);
    int role = Grid_at(&g, x0 + leaf_col, y2)->role;
    assert_true(role == ROLE_SELECTED || role == ROLE_SELECTED_TEXT);
    /* the details panel names the selection and its depth */
    assert_true(Grid_findAny(&g, "depth 2", NULL) > 0);
    free_app(a, &g);
}

static void check_layout(Layout L, int w, int h) {
    assert_false(L.too_small);
    Rect all[] = {L.title, L.ruler, L.labels, L.plot, L.panel, L.legend, L.status};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        assert_true(all[i].x >= 0 && all[i].y >= 0);
        assert_true(all[i].x + all[i].w <= w && all[i].y + all[i].h <= h);
    }
    /* plot, labels and panel do not overlap */
    assert_true(L.labels.x + L.labels.w < L.plot.x);
    if (L.panel.w == 0) assert_int_equal(L.plot.y + L.plot.h, L.legend.y);
    else if (L.panel_right) assert_true(L.plot.x + L.plot.w <= L.panel.x);
    else assert_true(L.plot.y + L.plot.h <= L.panel.y);
    assert_int_equal(L.status.y, h - 1);
    assert_int_equal(L.legend.y, h - 2);
    assert_int_equal(L.ruler.x, L.plot.x);
    assert_int_equal(L.ruler.w, L.plot.w);
}

static void render_at(int w, int h, Grid *g, App **out) {
    Fix f = Fix_new();
    uint32_t s1 = Fix_gpu(&f, 0, 1), s2 = Fix_gpu(&f, 0, 2), c = Fix_cpu(&f, 5, 5);
    for (int i = 0; i < 50; i++) {
        Fix_add(&f, s1, i * 1000, 700, "gemm", KIND_KERNEL, CLASS_COMPUTE);
        Fix_add(&f, s2, i * 1000 + 500, 600, "dpsk::ep::internode::combine<x>", KIND_KERNEL, CLASS_COMM);
        Fix_add(&f, c, i * 1000, 50, "cudaLaunchKernel", KIND_RUNTIME, CLASS_CPU);
    }
    Trace_finish(f.t);
    Grid_init(g, w, h);
    App *a = App_new(f.t, (Caps){true, 256}, "layout");
    App_sync(a);
    App_render(a, g);
    *out = a;
}

static void test_layout_80x24(void **state) {
    (void)state;
    Layout L = Layout_compute(80, 24, true);
    check_layout(L, 80, 24);
    assert_false(L.panel_right);
    assert_true(L.plot.w >= 60);
    assert_true(L.plot.h >= 8);
    assert_true(Layout_compute(79, 24, true).too_small);
    assert_true(Layout_compute(80, 23, true).too_small);
    Grid g;
    App *a;
    render_at(80, 24, &g, &a);
    assert_true(Grid_find(&g, 0, "zoom 1.0x") > 0);
    assert_true(Grid_find(&g, 23, "?:help") == 0);
    assert_true(Grid_find(&g, 22, "band:") == 0);
    assert_true(Grid_find(&g, 22, "coll wait") < 0); /* one rank: no collectives matched */
    assert_true(Grid_findAny(&g, "GPU 0", NULL) == a->layout.plot.y);
    assert_int_equal(screen_y_of_band(a, 0), a->layout.plot.y + 1);
    assert_true(Grid_findAny(&g, "Details", NULL) == a->layout.panel.y);
    free_app(a, &g);
    /* too small: a clear message instead of a broken screen */
    render_at(70, 20, &g, &a);
    assert_true(Grid_findAny(&g, "terminal too small", NULL) >= 0);
    free_app(a, &g);
}

static void test_layout_250x80(void **state) {
    (void)state;
    Layout L = Layout_compute(250, 80, true);
    check_layout(L, 250, 80);
    assert_true(L.panel_right);
    assert_true(L.plot.h >= 70);
    Layout H = Layout_compute(250, 80, false);
    check_layout(H, 250, 80);
    assert_int_equal(H.plot.x + H.plot.w, 250);
    Grid g;
    App *a;
    render_at(250, 80, &g, &a);
    assert_int_equal(Grid_at(&g, a->layout.panel.x, 5)->ch, 0x2502);
    assert_true(Grid_find(&g, 1, "Details") > a->layout.panel.x);
    assert_true(Grid_find(&g, 79, "e:export") > 0);
    free_app(a, &g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_subcell_unicode), cmocka_unit_test(test_subcell_ascii),
        cmocka_unit_test(test_band_states_color), cmocka_unit_test(test_band_states_mono),
        cmocka_unit_test(test_band_pick),       cmocka_unit_test(test_subrows),
        cmocka_unit_test(test_layout_80x24),    cmocka_unit_test(test_layout_250x80),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
