/* The viewer a new user meets, in pure functions and the headless app: the live title
 * keeps its meter at 80 columns and freezing loads the whole buffer, no "-0.0s", the
 * details panel shows whole keys, exact integers and scrolls, the range panel uses the
 * width of wide screens, clutter groups are hidden and ranks that repeat are named by
 * file, Home then . starts at the trace's start, the cursor moves at full zoom. */
#include <stdio.h>

#include "tui_fixture.h"

#include "live.h"
#include "panel.h"

#include "details.h"
#include "keys.h"
#include "lanes_render.h"
#include "layout.h"
#include "rangepanel.h"
#include "ruler.h"
#include "statusbar.h"
#include "ovtrace/tui/title.h"

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

/* the first screen row containing s, or -1 */
static int find_row_from(const Grid *g, int y0, const char *s) {
    for (int y = y0; y < g->h; y++)
        if (strstr(row_text(g, y), s)) return y;
    return -1;
}

static int find_row(const Grid *g, const char *s) { return find_row_from(g, 0, s); }

/* ---- live ---- */

static void test_ruler_no_negative_zero(void **state) {
    (void)state;
    char b[64];
    /* -30 ms at 0.1 s resolution prints as zero: no sign */
    Ruler_format(b, sizeof b, -30000000, 100000000);
    assert_string_equal(b, "0.0s");
    Ruler_format(b, sizeof b, -130000000, 100000000);
    assert_string_equal(b, "-0.1s");
    Ruler_format(b, sizeof b, -400, 1000); /* whole units, rounds to 0 */
    assert_string_equal(b, "0us");
    Ruler_format(b, sizeof b, -2500, 1000);
    assert_string_equal(b, "-2us");
}

static void test_live_title_compose(void **state) {
    (void)state;
    char buf[512];
    const char *meter = "LIVE drops 3  17k ev/s  GPU0 ovl 0.99 exp 0.00ms FROZEN";
    Statusbar_compose(buf, sizeof buf, 80, " | ", meter, "SIMULATED prefill", "view 1.0s..2.0s (1.0s)", "cursor 1.5s",
                      "zoom 3.0x");
    assert_true(Utf8_columns(buf) <= 80);
    assert_non_null(strstr(buf, meter));
    assert_non_null(strstr(buf, "SIMULATED prefill"));
    assert_null(strstr(buf, "zoom")); /* the least important part left out */
    Statusbar_compose(buf, sizeof buf, 200, " | ", meter, "SIMULATED prefill", "view 1.0s..2.0s (1.0s)", "cursor 1.5s",
                      "zoom 3.0x");
    assert_string_equal(buf, " LIVE drops 3  17k ev/s  GPU0 ovl 0.99 exp 0.00ms FROZEN | SIMULATED prefill | "
                             "cursor 1.5s | view 1.0s..2.0s (1.0s) | zoom 3.0x");
}

/* a live source: followed snapshots hold [0, 30 s), the whole buffer [0, 60 s) */
typedef struct {
    Trace *followed, *all;
    int all_calls;
    int ready_at; /* the call that has the whole buffer ready (a background build) */
} FakeLive;

static bool fl_poll(void *ctx, Trace **t) {
    (void)ctx;
    (void)t;
    return false;
}
static const char *fl_describe(void *ctx) {
    (void)ctx;
    return "LIVE drops 3  17k ev/s  GPU0 ovl 0.99 exp 0.00ms";
}
static bool fl_all(void *ctx, Trace **t) {
    FakeLive *f = ctx;
    f->all_calls++;
    if (f->all_calls < f->ready_at) return false;
    *t = f->all;
    return true;
}

static Trace *span_trace(int64_t t0, int64_t t1) {
    Fix f = Fix_new();
    uint32_t s = Fix_gpu(&f, 0, 7);
    for (int64_t ts = t0; ts < t1; ts += 1000000000) Fix_add(&f, s, ts, 500000000, "gemm", KIND_KERNEL, CLASS_COMPUTE);
    Trace_finish(f.t);
    return f.t;
}

/* built in the background: the frozen app asks between frames until it is ready */
static void test_live_freeze_async(void **state) {
    (void)state;
    const int64_t S = 1000000000;
    FakeLive fl = {span_trace(30 * S, 60 * S), span_trace(0, 60 * S), 0, 3};
    TuiSource src = {fl_poll, NULL, fl_describe, &fl, NULL, fl_all};
    App *a = App_new(fl.followed, (Caps){true, 256}, "SIMULATED prefill");
    TuiKey k = {'p', 0, 0};
    App_runHeadless(a, &src, &k, 1, 2, 80, 24, false, NULL); /* frame 2: p */
    assert_int_equal(fl.all_calls, 1);
    assert_ptr_equal(a->t, fl.followed); /* not ready yet: still the followed model */
    assert_true(Live_allPending(a));
    App_runHeadless(a, &src, NULL, 0, 3, 80, 24, false, NULL);
    assert_int_equal(fl.all_calls, 3);
    assert_ptr_equal(a->t, fl.all);
    assert_false(Live_allPending(a));
    assert_int_equal(a->t->t_max - a->t->t_min, fl.all->t_max - fl.all->t_min);
    assert_true(strstr(a->msg, "whole buffer (59.50s)") != NULL);
    App_free(a);
    Trace_free(fl.followed);
    Trace_free(fl.all);
}

static void test_live_freeze_loads_all(void **state) {
    (void)state;
    const int64_t S = 1000000000;
    FakeLive fl = {span_trace(30 * S, 60 * S), span_trace(0, 60 * S), 0, 1};
    TuiSource src = {fl_poll, NULL, fl_describe, &fl, NULL, fl_all};
    Grid g;
    Grid_init(&g, 80, 24);
    App *a = App_new(fl.followed, (Caps){true, 256}, "SIMULATED prefill");
    a->src = &src;
    a->v.follow = true;
    App_sync(a);
    App_render(a, &g);
    const char *title = row_text(&g, 0);
    assert_non_null(strstr(title, "drops 3"));
    assert_non_null(strstr(title, "ev/s"));
    assert_non_null(strstr(title, "ovl 0.99"));
    assert_non_null(strstr(title, "follow"));
    assert_non_null(strstr(title, "SIMULATED prefill"));
    press(a, &g, "p0");
    assert_int_equal(fl.all_calls, 1);
    assert_ptr_equal(a->t, fl.all);
    assert_true(a->v.frozen);
    title = row_text(&g, 0);
    assert_non_null(strstr(title, "FROZEN"));
    assert_non_null(strstr(title, "drops 3"));
    assert_non_null(strstr(title, "SIMULATED prefill"));
    /* 0 fits the whole buffer: the 60 s are reachable */
    assert_true(a->v.t0 <= fl.all->t_min);
    assert_true(a->v.t1 >= fl.all->t_max);
    assert_true(View_span(&a->v) >= 59 * S);
    App_free(a);
    Trace_free(fl.followed);
    Trace_free(fl.all);
    Grid_free(&g);
}

/* ---- details ---- */

static const char *field(const DetailsCache *d, const char *key) {
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->keys[i], key)) return d->vals[i];
    return NULL;
}

static void test_details_exact_args(void **state) {
    (void)state;
    const char *raw = "{\"ph\": \"X\", \"name\": \"k\", \"cat\": \"kernel\", \"args\": {\"Comms Id\": 10159970886766084411,"
                      " \"Seq Id\": -9007199254740993, \"External id\": 5634, \"External ts\": 1740461679470679,"
                      " \"nested\": {\"a\": [1, 18446744073709551615], \"s\": \"x y\"}, \"s\": \"a\\\"b\\u00e9\","
                      " \"f\": 1.5e3, \"t\": true}}";
    DetailsCache d;
    Details_init(&d);
    assert_true(Details_addArgsJson(&d, raw, strlen(raw)));
    assert_int_equal(d.n, 9);
    assert_string_equal(d.keys[0], "cat");
    assert_string_equal(field(&d, "cat"), "kernel");
    /* as written: 10159970886766084411 is not a double (that would print 1.0159970886766084e+19) */
    assert_string_equal(field(&d, "Comms Id"), "10159970886766084411");
    assert_string_equal(field(&d, "Seq Id"), "-9007199254740993");
    assert_string_equal(field(&d, "External id"), "5634");
    assert_string_equal(field(&d, "External ts"), "1740461679470679");
    assert_string_equal(field(&d, "nested"), "{\"a\":[1,18446744073709551615],\"s\":\"x y\"}");
    assert_string_equal(field(&d, "s"), "a\"b\xc3\xa9");
    assert_string_equal(field(&d, "f"), "1.5e3");
    assert_string_equal(field(&d, "t"), "true");
    Details_free(&d);
    /* no args, and text that is not an object */
    Details_init(&d);
    assert_true(Details_addArgsJson(&d, "{\"ph\":\"i\"}", 10));
    assert_string_equal(field(&d, "args"), "(none)");
    Details_free(&d);
    /* keys as the loader reads them: escapes decoded, the last of two equal keys
     * counts (in the first one's place, as JSON.parse lists them) */
    Details_init(&d);
    const char *dup = "{\"c\\u0061t\": \"kernel\", \"cat\": \"other\", \"\\u0061rgs\": {\"\\u0064evice\": 3}, "
                      "\"args\": {\"b\": 2, \"a\": 1, \"\\u0062\": 5}}";
    assert_true(Details_addArgsJson(&d, dup, strlen(dup)));
    assert_string_equal(field(&d, "cat"), "other");
    assert_null(field(&d, "device"));
    assert_string_equal(field(&d, "b"), "5");
    assert_int_equal(d.n, 3); /* cat, b, a */
    assert_string_equal(d.keys[1], "b");
    Details_free(&d);
    const char *bad[] = {"[1,2]", "{\"args\": {\"a\" 1}}", "{\"args\": {\"a\": \"x", "{\"args\": {\"a\": [1, 2}", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Details_init(&d);
        assert_false(Details_addArgsJson(&d, bad[i], strlen(bad[i])));
        Details_free(&d);
    }
}

static void test_details_keys_and_scroll(void **state) {
    (void)state;
    DetailsCache d;
    Details_init(&d);
    d.idx = 0; /* a selection (render only) */
    Details_add(&d, "name", "ncclDevKernel_AllReduce");
    Details_add(&d, "External id", "5634");
    Details_add(&d, "External ts", "1740461679470679");
    Details_add(&d, "correlation", "44471");
    char k[32], v[32];
    for (int i = 0; i < 20; i++) {
        snprintf(k, sizeof k, "field %02d", i);
        snprintf(v, sizeof v, "value %02d", i);
        Details_add(&d, k, v);
    }
    Details_add(&d, "a key far longer than a third of the panel's width", "its value");
    Grid g;
    Grid_init(&g, 60, 10);
    const Glyphs *gl = Glyphs_get(false);
    int total = Details_renderScroll(&g, (Rect){0, 0, 60, 10}, &d, gl, true, 0);
    /* 24 one-line fields + the long key on its own line + its value */
    assert_int_equal(total, 26);
    assert_true(find_row(&g, "External id  ") >= 0 || find_row(&g, "External id ") >= 0);
    assert_true(find_row(&g, "External ts") >= 0);
    assert_true(find_row(&g, "correlation") >= 0);
    assert_true(find_row(&g, "more lines") == 9);
    assert_int_equal(find_row(&g, "field 20"), -1);
    /* the last page: the long key whole, its value below */
    Grid_clear(&g);
    Details_renderScroll(&g, (Rect){0, 0, 60, 10}, &d, gl, true, 1000);
    int ky = find_row(&g, "a key far longer than a third of the panel's width");
    assert_int_equal(ky, 8);
    assert_non_null(strstr(row_text(&g, 9), "its value"));
    assert_int_equal(find_row(&g, "more lines"), -1);
    Details_free(&d);
    Grid_free(&g);
}

/* Whether row y ends with a number and row y + 1 starts with a unit ("130.7" / "ms ..."). */
static bool quantity_split(const Grid *g, int y) {
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", row_text(g, y));
    snprintf(b, sizeof b, "%s", row_text(g, y + 1));
    size_t n = strlen(a);
    while (n && a[n - 1] == ' ') a[--n] = 0;
    const char *u = b;
    while (*u == ' ') u++;
    if (!n || a[n - 1] < '0' || a[n - 1] > '9') return false;
    static const char *const units[] = {"ns", "us", "ms", "s ", "MB", "%"};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (!strncmp(u, units[i], strlen(units[i]))) return true;
    return false;
}

/* Wrapped panel text (the straggler sentence, a details value) keeps every number with
 * its unit at every width, and still breaks at the other spaces. */
static void test_wrap_keeps_quantities(void **state) {
    (void)state;
    const char *s = "straggler: rank 5 arrived last in 23 of 32 collectives; others waited 130.7 ms for it "
                    "(summed over the ranks that waited), 4.5 us a step, 12 MB moved";
    for (int w = 20; w <= 120; w++) {
        Grid g;
        Grid_init(&g, w, 12);
        int lines = Details_wrapText(&g, (Rect){0, 0, w, 12}, 0, s, ROLE_PANEL);
        assert_int_equal(lines, Details_wrapText(NULL, (Rect){0, 0, w, 12}, 0, s, ROLE_PANEL));
        for (int y = 0; y + 1 < lines; y++) {
            if (quantity_split(&g, y)) fail_msg("width %d: a quantity split after line %d", w, y);
            assert_true(strlen(row_text(&g, y)) > 0);
        }
        Grid_free(&g);
    }
    /* the same wrapper lays out a details value */
    DetailsCache d;
    Details_init(&d);
    d.idx = 0;
    Details_add(&d, "note", s);
    for (int w = 30; w <= 120; w++) {
        Grid g;
        Grid_init(&g, w, 12);
        Details_renderScroll(&g, (Rect){0, 0, w, 12}, &d, Glyphs_get(false), true, 0);
        for (int y = 0; y + 1 < 12; y++)
            if (quantity_split(&g, y)) fail_msg("value, width %d: a quantity split after line %d", w, y);
        Grid_free(&g);
    }
    Details_free(&d);
}

/* ---- wide screens ---- */

static void test_layout_panel_need(void **state) {
    (void)state;
    Layout L0 = Layout_compute(160, 40, true), L = Layout_computeFor(160, 40, true, 0);
    assert_memory_equal(&L0.panel, &L.panel, sizeof L.panel);
    assert_memory_equal(&L0.plot, &L.plot, sizeof L.plot);
    assert_int_equal(L0.panel_right, L.panel_right);
    L = Layout_computeFor(160, 40, true, 77);
    assert_true(L.panel_right);
    assert_true(L.panel.w >= 80);
    assert_int_equal(L.plot.x + L.plot.w, L.panel.x);
    L = Layout_computeFor(160, 40, true, 90); /* wider than half: full width at the bottom */
    assert_false(L.panel_right);
    assert_int_equal(L.panel.w, 160);
    L = Layout_computeFor(220, 50, true, 90);
    assert_true(L.panel_right);
    assert_true(L.panel.w >= 93 && L.panel.w <= 110);
}

static App *comm_app(Grid *g, int w, int h) {
    Fix f = Fix_new();
    uint32_t s7 = Fix_gpu(&f, 0, 7), s27 = Fix_gpu(&f, 0, 27);
    for (int i = 0; i < 20; i++) {
        int64_t base = i * 10000;
        Fix_add(&f, s7, base + 1000, 6000, "cutlass::device_kernel<foo>", KIND_KERNEL, CLASS_COMPUTE);
        Fix_add(&f, s27, base + 3000, 5000, "dpsk::ep::internode::combine<false>", KIND_KERNEL, CLASS_COMM);
    }
    Trace_finish(f.t);
    Grid_init(g, w, h);
    App *a = App_new(f.t, (Caps){true, 256}, "app");
    App_sync(a);
    App_render(a, g);
    return a;
}

static void done(App *a, Grid *g) {
    Trace *t = a->t;
    App_free(a);
    Trace_free(t);
    Grid_free(g);
}

static void test_range_panel_wide(void **state) {
    (void)state;
    static const int widths[] = {160, 190, 220};
    for (size_t i = 0; i < 3; i++) {
        Grid g;
        App *a = comm_app(&g, widths[i], 40);
        press(a, &g, "0[<End>]");
        int hy = find_row(&g, "exposed");
        assert_true(hy >= 0);
        const char *h = row_text(&g, hy);
        assert_non_null(strstr(h, "memory"));
        assert_non_null(strstr(h, "ratio"));
        /* the device row carries the ratio Overlap_compute gives */
        char ratio[16];
        snprintf(ratio, sizeof ratio, "%.4f", Panel_rangeReport(a)->devices[0].ratio);
        assert_true(find_row_from(&g, hy + 1, ratio) > hy);
        /* kernel names whole, not "cutl" (without the namespaces that tell nothing apart) */
        assert_true(find_row(&g, "combine<false>") >= 0);
        assert_true(find_row(&g, "device_kernel<foo>") >= 0);
        done(a, &g);
    }
}

/* ---- lane clutter ---- */

static Trace *clutter_trace(void) {
    Trace *t = Trace_new();
    const char *files[3] = {"/x/rank0-a.json", "/x/rank0-b.json", "/x/rank1.json"};
    for (int s = 0; s < 3; s++) {
        uint32_t src = Trace_addSource(t, files[s]);
        uint32_t gpu = Trace_gpuLane(t, src, 0, 7, 0, 7);
        uint32_t cpu = Trace_cpuLane(t, src, 100, 101);
        uint32_t traces = Trace_cpuLane(t, src, 200, 1); /* Kineto's "Traces": an instant */
        uint32_t spans = Trace_cpuLane(t, src, 300, 1);  /* "Spans": one annotation */
        TraceEvent e;
        memset(&e, 0, sizeof e);
        e.src = TRACE_NO_SRC;
        e.name = StrTab_intern(t->strings, "gemm", 4);
        e.ts = 1000, e.dur = 500, e.lane = gpu, e.kind = KIND_KERNEL, e.cls = CLASS_COMPUTE;
        Trace_append(t, &e);
        e.lane = cpu, e.kind = KIND_RUNTIME, e.cls = CLASS_CPU;
        Trace_append(t, &e);
        e.lane = traces, e.kind = KIND_INSTANT, e.cls = CLASS_OTHER, e.dur = 0;
        Trace_append(t, &e);
        e.lane = spans, e.kind = KIND_ANNOTATION, e.cls = CLASS_ANNOTATION, e.dur = 2000;
        Trace_append(t, &e);
    }
    Trace_finish(t);
    t->sources[0].rank = 0, t->sources[1].rank = 0, t->sources[2].rank = 1;
    return t;
}

static void test_clutter_hidden(void **state) {
    (void)state;
    Trace *t = clutter_trace();
    bool *hidden = calloc(t->n_groups, 1);
    assert_int_equal(Lines_clutter(t, hidden), 6);
    for (uint32_t g = 0; g < t->n_groups; g++)
        assert_int_equal(hidden[g], !t->groups[g].gpu && t->groups[g].id != 100);
    Lines L = {0};
    Lines_buildFiltered(&L, t, NULL, hidden);
    for (size_t i = 0; i < L.n; i++) assert_false(hidden[L.v[i].group]);
    Lines_free(&L);
    free(hidden);
    /* ranks that repeat are named by file */
    char b[96];
    Lanes_rankLabel(t, 0, b, sizeof b);
    assert_string_equal(b, "rank 0 rank0-a.json ");
    Lanes_rankLabel(t, 1, b, sizeof b);
    assert_string_equal(b, "rank 0 rank0-b.json ");
    Lanes_rankLabel(t, 2, b, sizeof b);
    assert_string_equal(b, "rank 1 ");

    /* the app: hidden at start, v shows them, v again hides them */
    Grid g;
    Grid_init(&g, 120, 40);
    App *a = App_new(t, (Caps){true, 256}, "x");
    App_sync(a);
    App_render(a, &g);
    assert_true(find_row(&g, "6 empty or annotation-only CPU groups hidden (v shows them)") >= 0);
    assert_true(find_row(&g, "rank 0 rank0-b.json GPU 0") >= 0);
    assert_int_equal(find_row(&g, "pid 200"), -1);
    assert_int_equal(find_row(&g, "pid 300"), -1);
    press(a, &g, "v");
    assert_true(find_row(&g, "rank 1 CPU pid 200") >= 0);
    assert_true(find_row(&g, "rank 1 CPU pid 300") >= 0);
    press(a, &g, "v");
    assert_int_equal(find_row(&g, "pid 300"), -1);
    /* jumping to an event in a hidden group shows that group */
    size_t ev = SIZE_MAX;
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == KIND_ANNOTATION) ev = i;
    App_selectEvent(a, ev);
    App_sync(a);
    App_render(a, &g);
    assert_true(find_row(&g, "CPU pid 300") >= 0);
    assert_true(find_row(&g, "5 empty or annotation-only CPU groups hidden") >= 0);
    done(a, &g);
}

static void test_clutter_only(void **state) {
    (void)state;
    /* a trace of annotations only keeps them: that is its content */
    Fix f = Fix_new();
    uint32_t cpu = Fix_cpu(&f, 1, 1);
    Fix_add(&f, cpu, 0, 100, "step", KIND_ANNOTATION, CLASS_ANNOTATION);
    Trace_finish(f.t);
    bool hidden[1] = {true};
    assert_int_equal(Lines_clutter(f.t, hidden), 0);
    assert_false(hidden[0]);
    Trace_free(f.t);
}

static void test_title_inputs(void **state) {
    (void)state;
    char b[128];
    const char *p1[] = {"traces/"};
    bool dir = true, file = false;
    Title_inputs(b, sizeof b, p1, 1, &dir);
    assert_string_equal(b, "traces/");
    const char *p2[] = {"/data/run-7//"};
    Title_inputs(b, sizeof b, p2, 1, &dir);
    assert_string_equal(b, "run-7/");
    const char *p3[] = {"x/a.json", "x/b.json", "x/c.json"};
    Title_inputs(b, sizeof b, p3, 3, &file);
    assert_string_equal(b, "a.json +2");
    const char *p4[] = {"/"};
    Title_inputs(b, sizeof b, p4, 1, &dir);
    assert_string_equal(b, "/");
}

/* ---- cursor: Home, stepping, full zoom ---- */

static void test_home_then_next(void **state) {
    (void)state;
    Grid g;
    App *a = comm_app(&g, 120, 40);
    /* the first lane row (stream 7) is selected; step to its 5th event */
    press(a, &g, ".....");
    size_t far = a->v.sel;
    assert_true(far != SIZE_MAX);
    const Row *r = &a->t->rows[Lines_rowOfEvent(a->t, far)];
    assert_int_equal(far, r->first + 4);
    press(a, &g, "<Home>.");
    assert_int_equal(a->v.sel, r->first); /* the lane's first event, not far + 1 */
    press(a, &g, "<End>,");
    assert_int_equal(a->v.sel, r->first + r->count - 1);
    done(a, &g);
}

static void test_cursor_full_zoom(void **state) {
    (void)state;
    Grid g;
    App *a = comm_app(&g, 120, 40);
    press(a, &g, "0<Home>");
    int64_t t0 = a->v.t0, t1 = a->v.t1, c = a->v.cursor;
    press(a, &g, "<Right>");
    assert_int_equal(a->v.t0, t0); /* everything visible: the window stays */
    assert_int_equal(a->v.t1, t1);
    assert_true(a->v.cursor > c);
    int64_t c1 = a->v.cursor;
    press(a, &g, ">");
    int64_t col = View_span(&a->v) / a->v.cols;
    assert_int_equal(a->v.cursor, c1 + col);
    press(a, &g, "<lt><lt>");
    assert_int_equal(a->v.cursor, c1 - col);
    press(a, &g, "<Left><Left><Left><Left><Left><Left><Left><Left><Left><Left>");
    assert_int_equal(a->v.cursor, a->v.t0); /* clamped to the window */
    done(a, &g);
}

static void test_clamp_range(void **state) {
    (void)state;
    int64_t a = 50, b = 300;
    assert_int_equal(View_clampRange(0, 200, &a, &b), 1);
    assert_int_equal(a, 50);
    assert_int_equal(b, 200);
    a = 250, b = 300;
    assert_int_equal(View_clampRange(0, 200, &a, &b), -1);
    a = -100, b = 0;
    assert_int_equal(View_clampRange(0, 200, &a, &b), -1);
    a = 10, b = 20;
    assert_int_equal(View_clampRange(0, 200, &a, &b), 0);
    assert_int_equal(a, 10);
    assert_int_equal(b, 20);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ruler_no_negative_zero), cmocka_unit_test(test_live_title_compose),
        cmocka_unit_test(test_live_freeze_loads_all),  cmocka_unit_test(test_live_freeze_async),
        cmocka_unit_test(test_details_exact_args),
        cmocka_unit_test(test_details_keys_and_scroll), cmocka_unit_test(test_wrap_keeps_quantities),
        cmocka_unit_test(test_layout_panel_need),
        cmocka_unit_test(test_range_panel_wide),       cmocka_unit_test(test_clutter_hidden),
        cmocka_unit_test(test_clutter_only),           cmocka_unit_test(test_title_inputs),
        cmocka_unit_test(test_home_then_next),         cmocka_unit_test(test_cursor_full_zoom),
        cmocka_unit_test(test_clamp_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
