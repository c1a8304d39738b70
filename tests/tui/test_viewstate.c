/* View_setExtent: what the window does when the model under it changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "viewstate.h"

/* A window that showed everything shows everything after the model grew on both sides
 * (the lazy overview's swap: the CPU events widen the GPU-only extent). */
static void test_whole_window_refits(void **state) {
    (void)state;
    ViewState v;
    View_init(&v, 1000, 5000);
    v.cursor = 1400;
    View_setExtent(&v, 900, 7000);
    assert_int_equal(v.t0, 900);
    assert_int_equal(v.t1, 7000);
    assert_int_equal(v.cursor - v.t0, 400); /* same place in the window */
}

/* A zoomed-in window stays where the user put it. */
static void test_zoomed_window_stays(void **state) {
    (void)state;
    ViewState v;
    View_init(&v, 1000, 5000);
    View_fit(&v, 2000, 3000);
    int64_t t0 = v.t0, t1 = v.t1, cur = v.cursor;
    View_setExtent(&v, 900, 7000);
    assert_int_equal(v.t0, t0);
    assert_int_equal(v.t1, t1);
    assert_int_equal(v.cursor, cur);
}

/* Follow mode keeps its span and slides to the new end. */
static void test_follow_slides(void **state) {
    (void)state;
    ViewState v;
    View_init(&v, 0, 10000);
    View_fit(&v, 8000, 10000);
    v.follow = true;
    int64_t span = View_span(&v);
    View_setExtent(&v, 0, 20000);
    assert_int_equal(v.t1, 20000);
    assert_int_equal(View_span(&v), span);
}

/* A shrinking extent (a smaller snapshot) clamps a whole-extent window to the new one. */
static void test_shrink(void **state) {
    (void)state;
    ViewState v;
    View_init(&v, 0, 10000);
    View_setExtent(&v, 2000, 6000);
    assert_int_equal(v.t0, 2000);
    assert_int_equal(v.t1, 6000);
    assert_true(v.cursor >= v.t0 && v.cursor < v.t1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_window_refits),
        cmocka_unit_test(test_zoomed_window_stays),
        cmocka_unit_test(test_follow_slides),
        cmocka_unit_test(test_shrink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
