/* The key table driven headless: zoom, pan, fit, lanes, events, search, launch
 * partner, range statistics, help, quit, mouse, key scripts. */
#include "tui_fixture.h"

#include "panel.h"
#include "partner.h"

#include "ovtrace/analysis/overlap.h"
#include "feature.h"
#include "help.h"
#include "keys.h"

#include <stdio.h>
#include <unistd.h>

static App *make_app(Grid *g) {
    Fix f = Fix_new();
    uint32_t s7 = Fix_gpu(&f, 0, 7), s27 = Fix_gpu(&f, 0, 27), cpu = Fix_cpu(&f, 100, 101);
    for (int i = 0; i < 20; i++) {
        int64_t base = i * 10000;
        size_t k = Fix_add(&f, s7, base + 1000, 6000, "gemm", KIND_KERNEL, CLASS_COMPUTE);
        size_t c = Fix_add(&f, s27, base + 3000, 5000, i % 2 ? "dpsk::ep::internode::combine<false>"
                                                              : "dpsk::ep::internode::dispatch<false>",
                           KIND_KERNEL, CLASS_COMM);
        size_t l1 = Fix_add(&f, cpu, base, 200, "cudaLaunchKernel", KIND_RUNTIME, CLASS_CPU);
        size_t l2 = Fix_add(&f, cpu, base + 300, 200, "cudaLaunchKernelExC", KIND_RUNTIME, CLASS_CPU);
        f.t->events[k].corr = f.t->events[l1].corr = (uint32_t)(2 * i + 1);
        f.t->events[c].corr = f.t->events[l2].corr = (uint32_t)(2 * i + 2);
    }
    Trace_finish(f.t);
    Grid_init(g, 120, 30);
    App *a = App_new(f.t, (Caps){true, 256}, "app");
    App_sync(a);
    App_render(a, g);
    return a;
}

static void press(App *a, Grid *g, const char *script) {
    TuiKey *k;
    size_t n;
    char err[128];
    assert_true(Keys_parseScript(script, &k, &n, err, sizeof err));
    for (size_t i = 0; i < n; i++) {
        App_key(a, &k[i]);
        App_sync(a);
        App_render(a, g);
    }
    free(k);
}

static void done(App *a, Grid *g) {
    Trace *t = a->t;
    App_free(a);
    Trace_free(t);
    Grid_free(g);
}

/* The events whose name holds NEEDLE, in time order (at most cap); their count. */
static size_t events_in_time_order(const Trace *t, const char *needle, size_t *out, size_t cap) {
    size_t n = 0;
    for (size_t i = 0; i < t->n_events && n < cap; i++) {
        if (!strstr(Trace_name(t, &t->events[i]), needle)) continue;
        size_t j = n++;
        for (; j > 0 && t->events[out[j - 1]].ts > t->events[i].ts; j--) out[j] = out[j - 1];
        out[j] = i;
    }
    return n;
}

static void test_script_parse(void **state) {
    (void)state;
    TuiKey *k;
    size_t n;
    char err[128];
    assert_true(Keys_parseScript("/ab<Enter><Left><C-l><Click:3,4><lt>x", &k, &n, err, sizeof err));
    assert_int_equal(n, 9);
    assert_int_equal(k[0].code, '/');
    assert_int_equal(k[3].code, TK_ENTER);
    assert_int_equal(k[4].code, TK_LEFT);
    assert_int_equal(k[5].code, TK_CTRL_L);
    assert_int_equal(k[6].code, TK_CLICK);
    assert_int_equal(k[6].x, 3);
    assert_int_equal(k[6].y, 4);
    assert_int_equal(k[7].code, '<');
    free(k);
    assert_false(Keys_parseScript("<Nope>", &k, &n, err, sizeof err));
    assert_false(Keys_parseScript("<Click>", &k, &n, err, sizeof err));
}

static void test_zoom_pan_fit(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    int64_t full = View_span(&a->v);
    char before[4096];
    snprintf(before, sizeof before, "%s", row_text(&g, 1));
    press(a, &g, "+");
    assert_int_equal(View_span(&a->v), full / 2);
    assert_string_not_equal(row_text(&g, 1), before); /* the ruler changed */
    press(a, &g, "W");
    assert_int_equal(View_span(&a->v), full / 16);
    /* l pans an eighth of the window, S-Right half of it, h back an eighth: each
     * step is exact, so keys that pan the wrong way or by the other step fail */
    int64_t t0 = a->v.t0, span = View_span(&a->v);
    press(a, &g, "l");
    assert_int_equal(a->v.t0, t0 + span * 2 / 16);
    press(a, &g, "<S-Right>");
    assert_int_equal(a->v.t0, t0 + span * 2 / 16 + span * 8 / 16);
    press(a, &g, "h");
    assert_int_equal(a->v.t0, t0 + span * 8 / 16);
    assert_int_equal(View_span(&a->v), span);
    press(a, &g, "<End>");
    assert_int_equal(a->v.t1, a->t->t_max);
    press(a, &g, "<Home>");
    assert_int_equal(a->v.t0, a->t->t_min);
    /* deepest zoom stops at one ns per column */
    press(a, &g, "WWWWWWWWWW");
    assert_int_equal(View_span(&a->v), a->layout.plot.w);
    press(a, &g, "0");
    assert_int_equal(View_span(&a->v), full);
    done(a, &g);
}

/* Panning keeps the cursor where it was on screen (so w then zooms there, not at an
 * edge); at the trace's end the window stops and the cursor moves on alone. */
static void test_pan_keeps_cursor_column(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    press(a, &g, "W");
    for (int i = 0; i < 30; i++) press(a, &g, ">");
    int64_t off = a->v.cursor - a->v.t0;
    assert_true(off > 0 && off < View_span(&a->v));
    const char *keys[] = {"l", "<S-Right>", "h", "<S-Left>", "d", "a"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        int64_t t0 = a->v.t0;
        press(a, &g, keys[k]);
        assert_int_not_equal(a->v.t0, t0); /* the window moved */
        assert_int_equal(a->v.cursor - a->v.t0, off);
    }
    /* w zooms around the cursor: it stays in the same place relative to the window */
    double frac = (double)off / (double)View_span(&a->v);
    press(a, &g, "w");
    double now = (double)(a->v.cursor - a->v.t0) / (double)View_span(&a->v);
    assert_true(now > frac - 0.02 && now < frac + 0.02);
    done(a, &g);
}

static void test_lanes_and_events(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    assert_int_equal(a->lines.v[a->v.line].kind, LINE_ROW);
    press(a, &g, ".");
    size_t first = a->v.sel;
    assert_int_not_equal(first, SIZE_MAX);
    press(a, &g, ".");
    assert_int_equal(a->v.sel, first + 1);
    assert_int_equal(a->v.cursor, a->t->events[first + 1].ts);
    press(a, &g, ",");
    assert_int_equal(a->v.sel, first);
    /* f fits the event */
    press(a, &g, "f");
    const TraceEvent *e = &a->t->events[first];
    assert_true(a->v.t0 <= e->ts && a->v.t1 >= TraceEvent_end(e));
    assert_true(View_span(&a->v) < 2 * e->dur);
    /* the CPU group is collapsed; G goes to the last line, Enter expands it */
    size_t n = a->lines.n;
    press(a, &g, "G<Enter>");
    assert_true(a->lines.n > n);
    press(a, &g, "<Enter>");
    assert_int_equal(a->lines.n, n);
    /* g: the first line, the GPU group's header; Tab: the next group's header (the CPU
     * group), not the same line */
    press(a, &g, "g");
    assert_int_equal(a->v.line, 0);
    uint32_t first_group = a->lines.v[0].group;
    press(a, &g, "<Tab>");
    assert_int_equal(a->lines.v[a->v.line].kind, LINE_GROUP);
    assert_int_not_equal(a->lines.v[a->v.line].group, first_group);
    assert_true(a->v.line > 0);
    done(a, &g);
}

static void test_search_and_partner(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    press(a, &g, "/combine<Enter>");
    assert_true(a->search.active);
    assert_int_equal(a->search.total, 10);
    size_t m[10];
    assert_int_equal(events_in_time_order(a->t, "combine", m, 10), 10);
    /* the search starts at the first match after the cursor (the trace's start) */
    size_t m1 = a->v.sel;
    assert_int_equal(m1, m[0]);
    assert_true(Grid_findAny(&g, "duration", NULL) > 0);
    /* n: the next match in time, N: the previous one; between the first and the third
     * match neither wraps, so n and N swapped land elsewhere */
    press(a, &g, "n");
    assert_int_equal(a->v.sel, m[1]);
    press(a, &g, "n");
    assert_int_equal(a->v.sel, m[2]);
    press(a, &g, "N");
    assert_int_equal(a->v.sel, m[1]);
    press(a, &g, "N");
    assert_int_equal(a->v.sel, m[0]);
    assert_null(strstr(a->msg, "wrapped"));
    /* past either end the search wraps, and says so */
    press(a, &g, "N");
    assert_int_equal(a->v.sel, m[9]);
    assert_non_null(strstr(a->msg, "search wrapped"));
    press(a, &g, "n");
    assert_int_equal(a->v.sel, m[0]);
    assert_non_null(strstr(a->msg, "search wrapped"));
    /* c: to the launching runtime call and back */
    press(a, &g, "c");
    const TraceEvent *l = &a->t->events[a->v.sel];
    assert_string_equal(Trace_name(a->t, l), "cudaLaunchKernelExC");
    assert_false(a->t->lanes[l->lane].gpu);
    assert_false(a->collapsed[a->t->lanes[l->lane].group]); /* its group was expanded */
    press(a, &g, "c");
    assert_int_equal(a->v.sel, m1);
    /* Esc clears the search */
    press(a, &g, "<Esc>");
    assert_false(a->search.active);
    /* a bad regex is reported, not fatal */
    press(a, &g, "/a(<Enter>");
    assert_false(a->search.active);
    assert_non_null(strstr(a->msg, "bad regex"));
    done(a, &g);
}

/* a pattern whose glibc automaton would be exponential (GBs from 30 bytes) is refused
 * by Regex_refuse before regcomp, and shown as the search error in the status bar */
static void test_search_refuses_exponential_regex(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    press(a, &g, "/a+++++++++++++++++++++<Enter>");
    assert_false(a->search.active);
    assert_non_null(strstr(a->msg, "bad regex"));
    assert_true(Grid_findAny(&g, "bad regex", NULL) > 0);
    /* after a refusal an ordinary search still works */
    press(a, &g, "/combine<Enter>");
    assert_true(a->search.active);
    assert_int_equal(a->search.total, 10);
    /* Search_set directly: false with the reason, the search left as it was */
    char err[256] = "";
    assert_false(Search_set(&a->search, a->t, "x(gemm)+++++++++++++++++++++y", err, sizeof err));
    assert_non_null(strstr(err, "bad regex"));
    assert_true(a->search.active);
    assert_int_equal(a->search.total, 10);
    done(a, &g);
}

static void test_range_matches_stats(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    press(a, &g, "/gemm<Enter>[nnn]");
    assert_true(View_rangeSet(&a->v));
    assert_int_equal(a->v.panel, PANEL_RANGE);
    /* from the first gemm to the fourth: the range is the one the keys marked */
    size_t gemm[4];
    assert_int_equal(events_in_time_order(a->t, "gemm", gemm, 4), 4);
    int64_t r0, r1;
    View_range(&a->v, &r0, &r1);
    assert_int_equal(r0, a->t->events[gemm[0]].ts);
    assert_int_equal(r1, a->t->events[gemm[3]].ts);
    OverlapFilter f = OverlapFilter_all();
    f.t0 = r0;
    f.t1 = r1;
    OverlapReport *R = Overlap_compute(a->t, &f);
    assert_non_null(Panel_rangeReport(a));
    assert_true(R->devices[0].comm > 0 && R->devices[0].overlap > 0); /* figures, not zeros */
    assert_int_equal(Panel_rangeReport(a)->devices[0].comm, R->devices[0].comm);
    assert_int_equal(Panel_rangeReport(a)->devices[0].overlap, R->devices[0].overlap);
    assert_int_equal(Panel_rangeReport(a)->devices[0].idle, R->devices[0].idle);
    char want[32];
    snprintf(want, sizeof want, "%.4f", R->devices[0].ratio);
    assert_true(Grid_findAny(&g, want, NULL) > 0);
    assert_true(Grid_findAny(&g, "ovtrace stats --range", NULL) > 0);
    OverlapReport_free(R);
    press(a, &g, "<Esc><Esc>");
    assert_false(View_rangeSet(&a->v));
    done(a, &g);
}

static void test_help_lists_every_binding(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    static char lines[128][160];
    int n = Help_lines(a, lines, 128);
    for (size_t i = 0; i < Features_bindingCount(); i++) {
        bool found = false;
        for (int k = 0; k < n && !found; k++) found = strstr(lines[k], Features_binding(i)->names) != NULL;
        assert_true(found);
    }
    press(a, &g, "?");
    assert_true(Help_shown(a));
    assert_true(Grid_findAny(&g, "ovtrace view: keys", NULL) == 0);
    press(a, &g, "?");
    assert_false(Help_shown(a));
    press(a, &g, "q");
    assert_true(a->quit);
    done(a, &g);
}

/* Every feature brings its own key table: a code bound by two features would reach only
 * the first one's handler. */
static void test_no_key_bound_twice(void **state) {
    (void)state;
    for (size_t i = 0; i < Features_bindingCount(); i++)
        for (int a = 0; a < 6 && Features_binding(i)->keys[a]; a++) {
            int code = Features_binding(i)->keys[a];
            assert_ptr_equal(Features_lookupKey(code), Features_binding(i));
            for (int b = a + 1; b < 6 && Features_binding(i)->keys[b]; b++)
                assert_int_not_equal(Features_binding(i)->keys[b], code);
        }
}

static void test_mouse(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    /* click in the middle of the first gemm on stream 7 */
    size_t line = a->v.line;
    int y = a->layout.plot.y + (int)(line - a->v.top);
    const Row *r = &a->t->rows[a->lines.v[line].row];
    const TraceEvent *e = &a->t->events[r->first];
    int64_t mid = e->ts + e->dur / 2;
    int x = a->layout.plot.x + (int)((mid - a->v.t0) * a->layout.plot.w / View_span(&a->v));
    char s[64];
    snprintf(s, sizeof s, "<Click:%d,%d>", x, y);
    press(a, &g, s);
    assert_int_equal(a->v.sel, r->first);
    int64_t span = View_span(&a->v);
    snprintf(s, sizeof s, "<WheelUp:%d,%d>", x, y);
    press(a, &g, s);
    assert_true(View_span(&a->v) < span);
    done(a, &g);
}

/* Time at the middle of plot column x (as the mouse handlers take it). */
static int64_t col_time(const App *a, int x) {
    const Rect *p = &a->layout.plot;
    int64_t c0 = TraceIndex_colTime(a->v.t0, a->v.t1, p->w, x - p->x);
    int64_t c1 = TraceIndex_colTime(a->v.t0, a->v.t1, p->w, x - p->x + 1);
    return c0 + (c1 - c0) / 2;
}

/* Press, drag, release on the timeline marks the range between the two columns, and
 * the panel shows its figures (Overlap_compute, as m ... m gives them); a drag on the
 * ruler pans with the mouse; a click on a lane's label selects the lane. */
static void test_mouse_drag(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    const Rect p = a->layout.plot;
    int y = p.y + 1, x0 = p.x + 10, x1 = p.x + 40;
    int64_t want0 = col_time(a, x0), want1 = col_time(a, x1);
    char s[128];
    snprintf(s, sizeof s, "<Press:%d,%d><Drag:%d,%d><Drag:%d,%d><Release:%d,%d>", x0, y, x0 + 5, y, x1, y, x1, y);
    press(a, &g, s);
    assert_true(View_rangeSet(&a->v));
    int64_t r0, r1;
    View_range(&a->v, &r0, &r1);
    assert_int_equal(r0, want0);
    assert_int_equal(r1, want1);
    assert_int_equal(a->v.panel, PANEL_RANGE);
    OverlapFilter f = OverlapFilter_all();
    f.t0 = r0;
    f.t1 = r1;
    OverlapReport *R = Overlap_compute(a->t, &f);
    assert_non_null(Panel_rangeReport(a));
    assert_int_equal(Panel_rangeReport(a)->devices[0].comm, R->devices[0].comm);
    assert_int_equal(Panel_rangeReport(a)->devices[0].overlap, R->devices[0].overlap);
    OverlapReport_free(R);
    assert_true(Grid_findAny(&g, "Range statistics", NULL) >= 0);
    /* dragging right to left marks the same kind of range */
    snprintf(s, sizeof s, "<Esc><Press:%d,%d><Release:%d,%d>", x1, y, x0, y);
    press(a, &g, s);
    View_range(&a->v, &r0, &r1);
    assert_int_equal(r0, want0);
    assert_int_equal(r1, want1);
    /* a press and release in one column is a click: no range */
    snprintf(s, sizeof s, "<Esc><Press:%d,%d><Release:%d,%d>", x0, y, x0, y);
    press(a, &g, s);
    assert_false(View_rangeSet(&a->v));
    /* the ruler: zoomed in, dragging 10 columns right moves the window 10 columns left */
    press(a, &g, "WW");
    int64_t t0 = a->v.t0, per_col = View_span(&a->v) / p.w;
    snprintf(s, sizeof s, "<Press:%d,%d><Drag:%d,%d><Release:%d,%d>", x1, a->layout.ruler.y, x1 + 10,
             a->layout.ruler.y, x1 + 10, a->layout.ruler.y);
    press(a, &g, s);
    assert_int_equal(a->v.t0, t0 - 10 * per_col);
    assert_false(View_rangeSet(&a->v));
    /* a click on the second lane's label selects that lane */
    size_t line = a->v.top + 2;
    snprintf(s, sizeof s, "<Click:%d,%d>", 2, p.y + 2);
    press(a, &g, s);
    assert_int_equal(a->v.line, line);
    done(a, &g);
}

/* P pins the selected lane to the top: it is drawn on the first timeline row whatever
 * the scroll, the rest scrolls below it; P again puts it back in its place. */
static void test_pin(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    size_t n = a->lines.n;
    /* the last GPU row (stream 27) */
    size_t s27 = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (a->lines.v[i].kind == LINE_ROW && a->t->lanes[a->lines.v[i].lane].stream == 27) s27 = i;
    assert_int_not_equal(s27, SIZE_MAX);
    assert_true(s27 > 0);
    Line pinned = a->lines.v[s27];
    a->v.line = s27;
    press(a, &g, "P");
    assert_int_equal(a->v.pinned, 1);
    assert_int_equal(a->lines.n, n);
    assert_int_equal(a->lines.v[0].row, pinned.row);
    assert_int_equal(a->v.line, 0); /* the selection follows it */
    assert_true(Grid_find(&g, a->layout.plot.y, "stream 27") >= 0);
    /* scrolled: row 0 is still the pinned line, the next rows scroll */
    a->v.line = n - 1;
    a->v.rows = 2;
    View_scrollToLine(&a->v, a->lines.n);
    assert_int_equal(App_lineAtRow(a, 0), 0);
    assert_int_equal(App_lineAtRow(a, 1), a->v.top);
    assert_true(a->v.top > 1);
    press(a, &g, "<Home>");
    /* unpin: back in its place */
    a->v.line = 0;
    press(a, &g, "P");
    assert_int_equal(a->v.pinned, 0);
    assert_int_equal(a->lines.v[s27].row, pinned.row);
    assert_int_equal(a->v.line, s27);
    /* a group pins with its lines: the CPU group (the last header) comes first, then
     * expanded, its thread row pinned with it */
    size_t hdr = SIZE_MAX;
    for (size_t i = 0; i < a->lines.n; i++)
        if (a->lines.v[i].kind == LINE_GROUP) hdr = i;
    uint32_t grp = a->lines.v[hdr].group;
    a->v.line = hdr;
    press(a, &g, "P");
    assert_int_equal(a->lines.v[0].kind, LINE_GROUP);
    assert_int_equal(a->lines.v[0].group, grp);
    size_t before = a->v.pinned;
    press(a, &g, "<Enter>"); /* expand it */
    assert_true(a->v.pinned > before);
    for (size_t i = 0; i < a->v.pinned; i++) assert_int_equal(a->lines.v[i].group, grp);
    done(a, &g);
}

/* The arrow's cells: along the start column, a corner, along the row next to the end,
 * a head pointing at the end; ASCII too; nothing on one row. */
static void test_flow_arrow_cells(void **state) {
    (void)state;
    Grid g;
    Grid_init(&g, 12, 8);
    Rect plot = {0, 0, 12, 8};
    Flow_drawArrow(&g, plot, 2, 6, 8, 1, true); /* up and right */
    assert_int_equal(Grid_at(&g, 2, 5)->ch, 0x2502);
    assert_int_equal(Grid_at(&g, 2, 3)->ch, 0x2502);
    assert_int_equal(Grid_at(&g, 2, 2)->ch, 0x250C);
    assert_int_equal(Grid_at(&g, 5, 2)->ch, 0x2500);
    assert_int_equal(Grid_at(&g, 8, 2)->ch, 0x25B2);
    assert_int_equal(Grid_at(&g, 2, 6)->ch, ' '); /* the ends themselves stay */
    assert_int_equal(Grid_at(&g, 8, 1)->ch, ' ');
    Grid_clear(&g);
    Flow_drawArrow(&g, plot, 9, 1, 3, 5, false); /* down and left, ASCII */
    assert_int_equal(Grid_at(&g, 9, 2)->ch, '|');
    assert_int_equal(Grid_at(&g, 9, 4)->ch, '+');
    assert_int_equal(Grid_at(&g, 6, 4)->ch, '-');
    assert_int_equal(Grid_at(&g, 3, 4)->ch, 'v');
    Grid_clear(&g);
    Flow_drawArrow(&g, plot, 1, 3, 9, 3, true);
    for (int x = 0; x < 12; x++) assert_int_equal(Grid_at(&g, x, 3)->ch, ' ');
    /* next rows, either way: the head alone on the start's row */
    Flow_drawArrow(&g, plot, 1, 4, 6, 3, true);
    assert_int_equal(Grid_at(&g, 6, 4)->ch, 0x25B2);
    assert_int_equal(Grid_at(&g, 1, 4)->ch, ' ');
    Flow_drawArrow(&g, plot, 1, 5, 1, 6, true);
    assert_int_equal(Grid_at(&g, 1, 5)->ch, ' ');
    Grid_free(&g);
}

/* A selected kernel's launch link is drawn: the head over the kernel's start column, on
 * the line next to its row, pointing at it; none without a selection. */
static void test_flow_arrow_on_timeline(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    press(a, &g, "<End>"); /* the CPU group (its launches) below the GPU rows */
    press(a, &g, "<Enter>");
    press(a, &g, "0/dispatch<Enter>");
    size_t k = a->v.sel;
    assert_int_not_equal(k, SIZE_MAX);
    assert_int_not_equal(Trace_partner(a->t, k), SIZE_MAX);
    size_t line = Lines_findRow(&a->lines, Lines_rowOfEvent(a->t, k));
    int y = a->layout.plot.y + (int)(line - a->v.top);
    const Rect *p = &a->layout.plot;
    int x = p->x + (int)((a->t->events[k].ts - a->v.t0) * p->w / (a->v.t1 - a->v.t0));
    /* the launch is on a CPU line below: the head is under the kernel, pointing up */
    assert_int_equal(Grid_at(&g, x, y + 1)->ch, 0x25B2);
    press(a, &g, "<Esc><Esc>");
    a->v.sel = SIZE_MAX;
    App_render(a, &g);
    assert_int_not_equal(Grid_at(&g, x, y + 1)->ch, 0x25B2);
    done(a, &g);
}

/* e onto a file that exists asks first: n (or Enter, Esc) keeps it, y replaces it;
 * other keys wait for the answer. */
static void test_export_asks_before_overwrite(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    char dir[] = "/tmp/ovtrace-test-export-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], script[256];
    snprintf(path, sizeof path, "%s/out.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old", f);
    fclose(f);
    snprintf(script, sizeof script, "e<C-u>%s<Enter>", path);
    press(a, &g, script);
    assert_true(a->prompt.open);
    assert_non_null(strstr(a->prompt.label, "exists: overwrite? (y/n)"));
    press(a, &g, "x"); /* not an answer */
    assert_true(a->prompt.open);
    press(a, &g, "n");
    assert_false(a->prompt.open);
    assert_non_null(strstr(a->msg, "kept"));
    char buf[8] = "";
    f = fopen(path, "r");
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "old");
    press(a, &g, script);
    press(a, &g, "y");
    assert_non_null(strstr(a->msg, "exported"));
    f = fopen(path, "r");
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_not_equal(buf, "old");
    unlink(path);
    rmdir(dir);
    done(a, &g);
}

/* : runs SQL over the trace: an id column makes a result list (the first result
 * selected, n/N step in result order, the results in the match colour, Esc ends); other
 * rows a table over the timeline; an error says where. */
static void test_sql_query(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    press(a, &g, ":<C-u>select id from events where name like '%dispatch%' order by ts desc<Enter>");
    size_t d[10];
    assert_int_equal(events_in_time_order(a->t, "dispatch", d, 10), 10);
    assert_int_equal(a->v.sel, d[9]); /* the latest first: result order */
    assert_non_null(strstr(a->msg, "query result 1/10"));
    press(a, &g, "n");
    assert_int_equal(a->v.sel, d[8]);
    press(a, &g, "N");
    assert_int_equal(a->v.sel, d[9]);
    /* another result than the selection is in the match colour */
    press(a, &g, "0");
    size_t line = Lines_findRow(&a->lines, Lines_rowOfEvent(a->t, d[0]));
    int y = a->layout.plot.y + (int)(line - a->v.top);
    const TraceEvent *e = &a->t->events[d[0]];
    int x = a->layout.plot.x + TraceIndex_colOf(a->v.t0, a->v.t1, a->layout.plot.w, e->ts + e->dur / 2);
    int role = Grid_at(&g, x, y)->role;
    assert_true(role == ROLE_MATCH || role == ROLE_MATCH_TEXT);
    press(a, &g, "<Esc>");
    assert_int_not_equal(Grid_at(&g, x, y)->role, ROLE_MATCH);
    /* no id column: a table */
    press(a, &g, ":<C-u>select name, count(*) as n from events group by name order by name<Enter>");
    assert_true(Grid_findAny(&g, "Query: 5 rows", NULL) >= 0);
    assert_true(Grid_findAny(&g, "cudaLaunchKernelExC", NULL) >= 0);
    press(a, &g, "<Esc>");
    assert_true(Grid_findAny(&g, "Query:", NULL) < 0);
    press(a, &g, ":<C-u>select nope from events<Enter>");
    assert_non_null(strstr(a->msg, "no such column: nope (at column 8)"));
    done(a, &g);
}

/* App_applyBinding: a handler's reaction decides whether the status message survives the key. */
static unsigned h_keep(App *a, const TuiKey *k, int arg) {
    (void)a, (void)k, (void)arg;
    return REDRAW_VIEW | KEEP_MSG;
}
static unsigned h_plain(App *a, const TuiKey *k, int arg) {
    (void)a, (void)k, (void)arg;
    return REDRAW_VIEW;
}
static unsigned h_says(App *a, const TuiKey *k, int arg) {
    (void)k;
    App_message(a, ROLE_DIM, "said %d", arg);
    return REDRAW_VIEW;
}

static void test_reaction_keeps_or_clears_message(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    TuiKey k = {'#', 0, 0};
    const KeyBinding keep = {{'#'}, "#", "keeps", h_keep, 0}, plain = {{'#'}, "#", "clears", h_plain, 0},
                     says = {{'#'}, "#", "says", h_says, 7};
    App_message(a, ROLE_ERROR, "before");
    assert_int_equal(App_applyBinding(a, &keep, &k), REDRAW_VIEW | KEEP_MSG);
    assert_string_equal(a->msg, "before"); /* kept */
    assert_int_equal(a->msg_role, ROLE_ERROR);
    assert_int_equal(App_applyBinding(a, &says, &k), REDRAW_VIEW);
    assert_string_equal(a->msg, "said 7"); /* a handler's own message stays without the flag */
    assert_int_equal(App_applyBinding(a, &plain, &k), REDRAW_VIEW);
    assert_string_equal(a->msg, ""); /* cleared */
    /* through the key table: panning clears a message, ] (range end) says its own */
    App_message(a, ROLE_DIM, "before");
    press(a, &g, "<Right>");
    assert_string_equal(a->msg, "");
    assert_int_equal(Grid_findAny(&g, "before", NULL), -1);
    press(a, &g, "[l]");
    assert_non_null(strstr(a->msg, "range marked"));
    assert_true(Grid_findAny(&g, "range marked", NULL) > 0);
    done(a, &g);
}

/* The help's line count comes from the text's layout without rendering it; it matches
 * what is rendered, and scrolling stops on the last line. */
static void test_help_count_is_rendered_lines(void **state) {
    (void)state;
    Grid g;
    App *a = make_app(&g);
    static char lines[256][160];
    int n = Help_count(a);
    assert_int_equal(Help_lines(a, lines, 256), n);
    assert_int_equal(n, 2 + (int)Features_bindingCount() + 16);
    char buf[160];
    assert_false(Help_line(a, n, buf, sizeof buf));
    assert_false(Help_line(a, -1, buf, sizeof buf));
    /* a screen tall enough for all of it: one row per line, the legend below */
    Grid tall;
    Grid_init(&tall, 200, n + 1);
    press(a, &g, "?");
    App_render(a, &tall);
    for (int i = 0; i < n; i++) {
        char want[170];
        snprintf(want, sizeof want, " %s", lines[i]);
        size_t l = strlen(want);
        while (l && want[l - 1] == ' ') want[--l] = '\0'; /* rows are trimmed */
        assert_string_equal(row_text(&tall, i), want);
    }
    assert_true(Grid_find(&tall, n, "band:") == 0);
    Grid_free(&tall);
    /* PgDn past the end: the last line is at the top */
    for (int i = 0; i < n; i++) press(a, &g, "<PgDn>");
    assert_int_equal(Help_scroll(a), n - 1);
    assert_true(Grid_find(&g, 0, "  * after it: the rank") == 1);
    press(a, &g, "j");
    assert_int_equal(Help_scroll(a), n - 1);
    press(a, &g, "k");
    assert_int_equal(Help_scroll(a), n - 2);
    done(a, &g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_script_parse),
        cmocka_unit_test(test_zoom_pan_fit),
        cmocka_unit_test(test_pan_keeps_cursor_column),
        cmocka_unit_test(test_lanes_and_events),
        cmocka_unit_test(test_search_and_partner),
        cmocka_unit_test(test_range_matches_stats),
        cmocka_unit_test(test_help_lists_every_binding),
        cmocka_unit_test(test_no_key_bound_twice),
        cmocka_unit_test(test_mouse),
        cmocka_unit_test(test_mouse_drag),
        cmocka_unit_test(test_pin),
        cmocka_unit_test(test_flow_arrow_cells),
        cmocka_unit_test(test_flow_arrow_on_timeline),
        cmocka_unit_test(test_export_asks_before_overwrite),
        cmocka_unit_test(test_sql_query),
        cmocka_unit_test(test_search_refuses_exponential_regex),
        cmocka_unit_test(test_reaction_keeps_or_clears_message),
        cmocka_unit_test(test_help_count_is_rendered_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
