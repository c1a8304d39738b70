/* The kernel table: aggregation per name over a range, sorting by every
 * column, instances by duration, the layout (sort arrow, selection, wrapped and
 * sanitised full names), OSC 52, and its keys in the App. Expected figures are worked
 * out by hand from the fixture. */
#include "tui_fixture.h"
#include "kernel_table.h"

/* GPU 0 stream 7: A 10, 30, 20 ns; B 100; C 5, 5; a CPU op of 50 ns. */
static Trace *fixture(size_t *a30) {
    Fix f = Fix_new();
    uint32_t g = Fix_gpu(&f, 0, 7), c = Fix_cpu(&f, 1, 1);
    Fix_add(&f, g, 0, 10, "A", KIND_KERNEL, CLASS_COMPUTE);
    size_t i = Fix_add(&f, g, 100, 30, "A", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, g, 200, 20, "A", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, g, 300, 100, "B", KIND_KERNEL, CLASS_COMM);
    Fix_add(&f, g, 500, 5, "C", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, g, 600, 5, "C", KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, c, 0, 50, "op", KIND_CPU_OP, CLASS_CPU);
    Trace_finish(f.t);
    /* Trace_finish moves events: find the 30 ns A again */
    for (size_t k = 0; k < f.t->n_events; k++)
        if (f.t->events[k].ts == 100) i = k;
    if (a30) *a30 = i;
    return f.t;
}

static const char *rname(const Trace *t, const KTable *kt, size_t i) { return StrTab_get(t->strings, kt->rows[i].name); }

static void order(const Trace *t, const KTable *kt, const char *want) {
    char got[16] = "";
    for (size_t i = 0; i < kt->n && i < 15; i++) strcat(got, rname(t, kt, i));
    assert_string_equal(got, want);
}

static void aggregate_and_sort(void **state) {
    (void)state;
    Trace *t = fixture(NULL);
    KTable kt = {0};
    KTable_build(&kt, t, INT64_MIN, INT64_MAX, false);
    assert_int_equal(kt.n, 3);
    assert_int_equal(kt.sum, 170);
    order(t, &kt, "BAC"); /* by total: 100, 60, 10 */
    const KtRow *a = &kt.rows[1];
    assert_int_equal(a->count, 3);
    assert_int_equal(a->total, 60);
    assert_int_equal(a->min, 10);
    assert_int_equal(a->max, 30);
    assert_int_equal(kt.rows[0].cls, CLASS_COMM);
    KTable_sort(&kt, t, KT_COUNT, false);
    order(t, &kt, "ACB");
    KTable_sort(&kt, t, KT_COUNT, true);
    order(t, &kt, "BCA");
    KTable_sort(&kt, t, KT_MIN, true);
    order(t, &kt, "CAB");
    KTable_sort(&kt, t, KT_MEAN, false); /* 100, 20, 5 */
    order(t, &kt, "BAC");
    KTable_sort(&kt, t, KT_MAX, true); /* 5, 30, 100 */
    order(t, &kt, "CAB");
    KTable_sort(&kt, t, KT_NAME, true);
    order(t, &kt, "ABC");
    KTable_sort(&kt, t, KT_NAME, false);
    order(t, &kt, "CBA");
    KTable_sort(&kt, t, KT_CLASS, true); /* compute (A, C by name id) before comm */
    order(t, &kt, "ACB");
    /* every event name: the CPU op too */
    KTable_build(&kt, t, INT64_MIN, INT64_MAX, true);
    assert_int_equal(kt.n, 4);
    order(t, &kt, "BAopC");
    /* a range: [15, 250) intersects A@0? no (ends 10); A@100, A@200 */
    KTable_build(&kt, t, 15, 250, false);
    assert_int_equal(kt.n, 1);
    assert_int_equal(kt.rows[0].count, 2);
    assert_int_equal(kt.rows[0].total, 50);
    /* instances by duration, longest first */
    size_t *inst;
    uint32_t A = kt.rows[0].name;
    size_t n = KTable_instances(t, A, INT64_MIN, INT64_MAX, false, &inst);
    assert_int_equal(n, 3);
    assert_int_equal(t->events[inst[0]].dur, 30);
    assert_int_equal(t->events[inst[1]].dur, 20);
    assert_int_equal(t->events[inst[2]].dur, 10);
    free(inst);
    KTable_free(&kt);
    Trace_free(t);
}

static void layout(void **state) {
    (void)state;
    Fix f = Fix_new();
    uint32_t g = Fix_gpu(&f, 0, 7);
    char longname[400];
    memset(longname, 'x', sizeof longname);
    memcpy(longname, "void k<", 7);
    longname[sizeof longname - 1] = '\0';
    longname[100] = '\033'; /* hostile: an escape inside the name */
    Fix_add(&f, g, 0, 100, longname, KIND_KERNEL, CLASS_COMPUTE);
    Fix_add(&f, g, 200, 50, "short", KIND_KERNEL, CLASS_COMM);
    Trace_finish(f.t);
    KTable kt = {0};
    KTable_build(&kt, f.t, 0, 250, false); /* the events' span, as the viewer builds it */
    Grid gr;
    Grid_init(&gr, 100, 20);
    int shown = KTable_render(&gr, (Rect){0, 0, 100, 20}, f.t, &kt, 0, 0, false);
    assert_int_equal(shown, 2);
    assert_true(Grid_find(&gr, 0, "Kernels in") >= 0);
    assert_true(Grid_find(&gr, 0, "2 names, 2 events") >= 0);
    assert_true(Grid_find(&gr, 1, "2 total\xe2\x96\xbc") >= 0); /* sort arrow on total */
    assert_true(Grid_find(&gr, 2, "66.7%") >= 0);                /* 100 of 150 ns */
    assert_true(Grid_find(&gr, 3, "short") >= 0);
    assert_int_equal(Grid_at(&gr, 5, 2)->role, ROLE_SELECTED_TEXT);
    /* the selected name, wrapped below the separator over 3 lines: 99 columns each; the
     * escape is drawn as '?', the rest ends with an ellipsis */
    assert_true(Grid_find(&gr, 17, "void k<xxx") == 1);
    char buf[512];
    Grid_rowText(&gr, 17, buf, sizeof buf);
    assert_int_equal(strlen(buf), 100);
    Grid_rowText(&gr, 18, buf, sizeof buf);
    assert_int_equal(buf[1], 'x');
    assert_int_equal(buf[2], '?'); /* character 100 of the name (99 on the first line) */
    assert_int_equal(Grid_at(&gr, 99, 19)->ch, 0x2026);
    for (int y = 0; y < 20; y++)
        for (int x = 0; x < 100; x++) assert_true(Grid_at(&gr, x, y)->ch >= 0x20);
    /* ascending by name: arrow up, ASCII */
    KTable_sort(&kt, f.t, KT_NAME, true);
    Grid_clear(&gr);
    KTable_render(&gr, (Rect){0, 0, 100, 20}, f.t, &kt, 1, 0, true);
    assert_true(Grid_find(&gr, 1, "8 name^") >= 0);
    assert_true(Grid_find(&gr, 2, "short") >= 0);
    Grid_free(&gr);
    KTable_free(&kt);
    Trace_free(f.t);
}

/* The title at any width: whole parts only (a hint is never cut), the less needed ones
 * left out first: how time is counted stays from 52 columns, t/Esc close from 70, the
 * sort keys from 80, the counts from 100. */
static void title_parts(void **state) {
    (void)state;
    Fix f = Fix_new();
    uint32_t g = Fix_gpu(&f, 0, 7);
    for (int i = 0; i < 700; i++) Fix_add(&f, g, i * 1000000LL, 500, i % 2 ? "gemm" : "allreduce", KIND_KERNEL, CLASS_COMPUTE);
    Trace_finish(f.t);
    KTable kt = {0};
    KTable_build(&kt, f.t, 0, 700 * 1000000LL, false);
    static const char *const hints[] = {"1-8 sort", "w whole/clipped", "Enter slowest", "a all events",
                                        "</> scroll names", "y copy", "t/Esc close"};
    char row[512];
    for (int w = 30; w <= 220; w++) {
        Grid gr;
        Grid_init(&gr, w, 12);
        KTable_render(&gr, (Rect){0, 0, w, 12}, f.t, &kt, 0, 0, true);
        Grid_rowText(&gr, 0, row, sizeof row);
        size_t n = strlen(row);
        while (n && row[n - 1] == ' ') row[--n] = 0;
        if (!strstr(row, " Kernels in 0ns..700.0ms")) fail_msg("width %d: no title: '%s'", w, row);
        if (w >= 52 && !strstr(row, ", time clipped to the range")) fail_msg("width %d: how time counts left out", w);
        const char *open = strstr(row, "  (");
        if (open && row[n - 1] != ')') fail_msg("width %d: hints cut: '%s'", w, row);
        if (w >= 70 && !strstr(row, "t/Esc close)")) fail_msg("width %d: no t/Esc close: '%s'", w, row);
        if (w >= 80 && !strstr(row, "(1-8 sort, ")) fail_msg("width %d: no 1-8 sort: '%s'", w, row);
        if (w >= 100 && !strstr(row, ": 2 names, 700 events, ")) fail_msg("width %d: no counts: '%s'", w, row);
        /* every piece between "(" and ")" is a whole hint */
        char list[512] = "";
        if (open) snprintf(list, sizeof list, "%.*s", (int)(row + n - 1 - (open + 3)), open + 3);
        for (char *save = NULL, *h = strtok_r(list, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
            while (*h == ' ') h++;
            bool known = false;
            for (size_t i = 0; i < sizeof hints / sizeof *hints; i++) known |= !strcmp(h, hints[i]);
            if (!known) fail_msg("width %d: '%s' is not a whole hint", w, h);
        }
        if (w >= 180)
            assert_non_null(strstr(row, "time clipped to the range  (1-8 sort, w whole/clipped, Enter slowest, a all "
                                        "events, </> scroll names, y copy, t/Esc close)"));
        Grid_free(&gr);
    }
    KTable_free(&kt);
    Trace_free(f.t);
}

static void osc52(void **state) {
    (void)state;
    char out[64];
    assert_int_equal(KTable_osc52("hello", out, sizeof out), 16);
    assert_string_equal(out, "\033]52;c;aGVsbG8=\a");
    KTable_osc52("ab", out, sizeof out);
    assert_string_equal(out, "\033]52;c;YWI=\a");
    KTable_osc52("abc", out, sizeof out);
    assert_string_equal(out, "\033]52;c;YWJj\a");
    assert_int_equal(KTable_osc52("hello", out, 10), 0);
}

static unsigned key(App *a, int code) {
    TuiKey k = {0};
    k.code = code;
    return App_key(a, &k);
}

static void keys_in_app(void **state) {
    (void)state;
    size_t a30;
    Trace *t = fixture(&a30);
    Caps caps = {true, 256};
    App *a = App_new(t, caps, "test");
    Grid g;
    Grid_init(&g, 120, 40);
    App_sync(a);
    App_render(a, &g);
    key(a, 't');
    App_render(a, &g);
    assert_true(Grid_findAny(&g, "Kernels in", NULL) >= 0);
    /* rows: B, A, C by total; j selects A; Enter: its slowest instance (30 ns) */
    key(a, 'j');
    key(a, TK_ENTER);
    App_render(a, &g);
    assert_true(Grid_findAny(&g, "Kernels in", NULL) < 0); /* closed */
    assert_int_equal(a->v.sel, a30);
    assert_non_null(strstr(a->msg, "instance 1/3"));
    key(a, 'n');
    assert_int_equal(t->events[a->v.sel].dur, 20);
    key(a, 'n');
    assert_int_equal(t->events[a->v.sel].dur, 10);
    key(a, 'n'); /* stays on the shortest */
    assert_int_equal(t->events[a->v.sel].dur, 10);
    key(a, 'N');
    assert_int_equal(t->events[a->v.sel].dur, 20);
    /* Esc ends the walk: n is the search key again (no search: a message, no move) */
    key(a, TK_ESC);
    size_t sel = a->v.sel;
    key(a, 'n');
    assert_int_equal(a->v.sel, sel);
    /* sorting by count (key 2 = total is the current column: 1 = count), a = all events */
    key(a, 't');
    key(a, '1');
    key(a, 'g');
    App_render(a, &g);
    int y = Grid_findAny(&g, "1 count\xe2\x96\xbc", NULL);
    assert_true(y >= 0);
    assert_true(Grid_find(&g, y + 1, "  A") >= 0 || Grid_find(&g, y + 1, " A") >= 0);
    key(a, 'a');
    App_render(a, &g);
    assert_true(Grid_findAny(&g, "Events in", NULL) >= 0);
    assert_true(Grid_findAny(&g, " op", NULL) >= 0);
    /* y with OSC 52 off: says how to turn it on */
    key(a, 'y');
    assert_non_null(strstr(a->msg, "--osc52"));
    key(a, TK_ESC);
    App_render(a, &g);
    assert_true(Grid_findAny(&g, "Events in", NULL) < 0);
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
}

/* With a range that cuts events, the table counts their parts inside it, as the range
 * panel (and stats --range) do, and says so; w: the whole events, said so too. */
static void clipped_and_whole(void **state) {
    (void)state;
    Trace *t = fixture(NULL);
    /* [105, 210): A@100 (30 ns) has 25 inside, A@200 (20 ns) 10: 35 clipped, 50 whole */
    KTable kt = {0};
    KTable_build(&kt, t, 105, 210, false);
    assert_int_equal(kt.n, 1);
    assert_int_equal(kt.rows[0].count, 2);
    assert_int_equal(kt.rows[0].total, 35);
    assert_int_equal(kt.rows[0].min, 10);
    assert_int_equal(kt.rows[0].max, 25);
    kt.whole = true;
    KTable_build(&kt, t, 105, 210, false);
    assert_true(kt.whole); /* kept by the rebuild */
    assert_int_equal(kt.rows[0].total, 50);
    assert_int_equal(kt.rows[0].min, 20);
    KTable_free(&kt);

    /* in the App: the range panel and the table over the same marked range */
    App *a = App_new(t, (Caps){true, 256}, "test");
    Grid g;
    Grid_init(&g, 200, 50);
    a->v.t0 = 0;
    a->v.t1 = 700;
    App_setRange(a, 105, 310); /* A: 25 + 20; B@300 (100 ns): 10 */
    App_sync(a);
    App_render(a, &g);
    int py = Grid_findAny(&g, "top kernels (time clipped to the range)", NULL);
    assert_true(py > 0);
    assert_true(Grid_find(&g, py + 1, "      2          0  compute A") >= 0); /* 45 ns: "0" us */
    key(a, 't');
    App_render(a, &g);
    int ty = Grid_findAny(&g, "Kernels in", NULL);
    assert_true(ty >= 0);
    assert_true(Grid_find(&g, ty, "2 names, 3 events, time clipped to the range") >= 0);
    assert_true(Grid_findAny(&g, "  45ns ", NULL) >= 0);
    assert_true(Grid_findAny(&g, "  10ns ", NULL) >= 0); /* B's 10 ns inside */
    key(a, 'w');
    App_render(a, &g);
    assert_true(Grid_find(&g, ty, "2 names, 3 events, whole events' time") >= 0);
    assert_true(Grid_findAny(&g, "  50ns ", NULL) >= 0);
    assert_true(Grid_findAny(&g, "  100ns ", NULL) >= 0);
    assert_true(Grid_findAny(&g, "  45ns ", NULL) < 0);
    key(a, 'w');
    App_render(a, &g);
    assert_true(Grid_findAny(&g, "  45ns ", NULL) >= 0);
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
}

/* live mode: a new model keeps the open table, on the same name; a walk ends */
static void new_model(void **state) {
    (void)state;
    Trace *t = fixture(NULL), *t2 = fixture(NULL);
    Caps caps = {true, 256};
    App *a = App_new(t, caps, "test");
    key(a, 't');
    key(a, 'j'); /* A */
    App_setTrace(a, t2);
    Grid g;
    Grid_init(&g, 120, 40);
    App_sync(a);
    App_render(a, &g);
    assert_true(Grid_findAny(&g, "Kernels in", NULL) >= 0);
    key(a, TK_ENTER);
    assert_string_equal(Trace_name(t2, &t2->events[a->v.sel]), "A");
    assert_int_equal(t2->events[a->v.sel].dur, 30);
    App_setTrace(a, t); /* the walk ends: n is the search key again */
    size_t sel = a->v.sel;
    key(a, 'n');
    assert_int_equal(a->v.sel, sel);
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
    Trace_free(t2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aggregate_and_sort),
        cmocka_unit_test(layout),
        cmocka_unit_test(title_parts),
        cmocka_unit_test(osc52),
        cmocka_unit_test(keys_in_app),
        cmocka_unit_test(clipped_and_whole),
        cmocka_unit_test(new_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
