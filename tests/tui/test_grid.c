/* Cell grid, UTF-8 and the time ruler. */
#include "tui_fixture.h"

#include "ruler.h"
#include "theme.h"

static void test_grid_text_and_utf8(void **state) {
    (void)state;
    Grid g;
    Grid_init(&g, 10, 2);
    int n = Grid_text(&g, 1, 0, 20, "ab\xe2\x96\x88z", ROLE_DEFAULT, 0);
    assert_int_equal(n, 4); /* a b █ z */
    assert_int_equal(Grid_at(&g, 3, 0)->ch, 0x2588);
    assert_string_equal(row_text(&g, 0), " ab\xe2\x96\x88z");
    /* clipped at maxw and at the edge */
    n = Grid_text(&g, 7, 1, 20, "hello", ROLE_DIM, 0);
    assert_int_equal(n, 5);
    assert_string_equal(row_text(&g, 1), "       hel");
    assert_int_equal(Grid_find(&g, 0, "z"), 4);
    int col;
    assert_int_equal(Grid_findAny(&g, "hel", &col), 1);
    assert_int_equal(col, 7);
    /* ASCII mode replaces non-ASCII */
    Grid_textAscii(&g, 0, 0, 10, "\xc3\xa9t\xc3\xa9", ROLE_DEFAULT, 0, true);
    assert_string_equal(row_text(&g, 0), "?t?\xe2\x96\x88z");
    char u[4];
    assert_int_equal(Utf8_encode(0x258f, u), 3);
    const char *p = u;
    assert_int_equal(Utf8_decode(&p), 0x258f);
    Grid_free(&g);
}

static void test_ruler_step(void **state) {
    (void)state;
    /* 132 ms over 100 columns, ticks >= 14 columns apart: 20 ms */
    assert_int_equal(Ruler_step(132000000, 100, 14), 20000000);
    /* 2 us over 200 columns: 200 ns */
    assert_int_equal(Ruler_step(2000, 200, 14), 200);
    /* 5 s over 80 columns: 1 s */
    assert_int_equal(Ruler_step(5000000000LL, 80, 14), 1000000000);
    /* a step always leaves at least min_gap columns */
    for (int64_t span = 7; span < 4000000000LL; span = span * 3 + 1) {
        int64_t s = Ruler_step(span, 123, 12);
        assert_true((__int128)s * 123 >= (__int128)span * 12);
    }
}

static void test_ruler_units(void **state) {
    (void)state;
    int64_t u;
    const char *name;
    assert_int_equal(Ruler_unit(20000000, &u, &name), 0);
    assert_string_equal(name, "ms");
    assert_int_equal(Ruler_unit(200, &u, &name), 1);
    assert_string_equal(name, "us");
    assert_int_equal(Ruler_unit(5, &u, &name), 0);
    assert_string_equal(name, "ns");
    assert_int_equal(Ruler_unit(500000000, &u, &name), 1);
    assert_string_equal(name, "s");
    char buf[64];
    Ruler_format(buf, sizeof buf, 40000000, 20000000);
    assert_string_equal(buf, "40ms");
    Ruler_format(buf, sizeof buf, 1500, 100);
    assert_string_equal(buf, "1.5us");
    Ruler_format(buf, sizeof buf, 812, 1);
    assert_string_equal(buf, "812ns");
    Ruler_format(buf, sizeof buf, 1204000000, 1000000);
    assert_string_equal(buf, "1204ms");
    Ruler_format(buf, sizeof buf, 1500000000, 500000000);
    assert_string_equal(buf, "1.5s");
}

static void render_ruler(int64_t span, int w, Grid *g) {
    ViewState v;
    View_init(&v, 0, span);
    v.cols = w;
    Grid_resize(g, w + 10, 3);
    Ruler_render(g, (Rect){10, 0, w, 2}, (Rect){0, 0, 10, 2}, &v, Glyphs_get(true));
}

static void test_ruler_render_units(void **state) {
    (void)state;
    Grid g;
    Grid_init(&g, 1, 1);
    render_ruler(132000000, 100, &g);
    assert_true(Grid_find(&g, 0, "20ms") > 0);
    assert_true(Grid_find(&g, 0, "time (ms)") == 0);
    render_ruler(2000, 100, &g);
    assert_true(Grid_find(&g, 0, "0.5us") > 0);
    assert_true(Grid_find(&g, 0, "time (us)") == 0);
    assert_true(Grid_find(&g, 0, "ms") < 0);
    render_ruler(7000000000LL, 100, &g);
    assert_true(Grid_find(&g, 0, "1s") > 0);
    assert_true(Grid_find(&g, 0, "time (s)") == 0);
    Grid_free(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_text_and_utf8),
        cmocka_unit_test(test_ruler_step),
        cmocka_unit_test(test_ruler_units),
        cmocka_unit_test(test_ruler_render_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
