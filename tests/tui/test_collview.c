/* Collectives in the viewer, rendered without curses: wait parts drawn with
 * their own glyph, the details section, the range panel split, the x / X keys. */
#include "tui_fixture.h"

#include "ovtrace/model/classify.h"
#include "ovtrace/analysis/collectives.h"
#include "collview.h"
#include "overview.h"

#define COMBINE "void dpsk::ep::internode::combine<1>(int)"

/* Finishes t and classifies its events with the default rules, as loading does. */
static void finish_classified(Trace *t) {
    Trace_finish(t);
    CommRules *r = CommRules_default();
    Classify_trace(t, r);
    CommRules_free(r);
}

/* Two ranks. Combine on rank 0 [1000, 2000), on rank 1 [1600, 2000): rank 1 arrives
 * last, rank 0 waits [1000, 1600) and transfers [1600, 2000). */
static Trace *two_ranks_from(size_t *ev0, size_t *ev1, int64_t start1) {
    Trace *t = Trace_new();
    uint32_t s0 = Trace_addSource(t, "r0"), s1 = Trace_addSource(t, "r1");
    t->sources[s0].rank = 0;
    t->sources[s1].rank = 1;
    TraceEvent e = {0};
    e.src = TRACE_NO_SRC;
    e.kind = KIND_KERNEL;
    e.name = StrTab_intern(t->strings, COMBINE, strlen(COMBINE));
    e.ts = 1000;
    e.dur = 1000;
    e.lane = Trace_gpuLane(t, s0, 0, 20, 0, 20);
    Trace_append(t, &e);
    e.ts = start1;
    e.dur = 2000 - start1;
    e.lane = Trace_gpuLane(t, s1, 1, 20, 1, 20);
    Trace_append(t, &e);
    finish_classified(t);
    *ev0 = *ev1 = SIZE_MAX;
    for (size_t i = 0; i < t->n_events; i++) {
        if (t->lanes[t->events[i].lane].rank == 0) *ev0 = i;
        else *ev1 = i;
    }
    return t;
}

static Trace *two_ranks(size_t *ev0, size_t *ev1) { return two_ranks_from(ev0, ev1, 1600); }

static int count_ch(const Grid *g, int y, int x0, int x1, uint32_t ch) {
    int n = 0;
    for (int x = x0; x < x1; x++) n += Grid_at((Grid *)g, x, y)->ch == ch;
    return n;
}

static void render(App *a, Grid *g) {
    App_sync(a);
    App_render(a, g);
}

static void check_wait_glyphs(bool unicode) {
    size_t e0, e1;
    Trace *t = two_ranks(&e0, &e1);
    App *a = App_new(t, (Caps){unicode, 0}, "coll");
    /* view exactly [1000, 2000) so that columns map to time simply */
    a->v.t0 = 1000;
    a->v.t1 = 2000;
    a->v.panel_hidden = true;
    Grid g;
    Grid_init(&g, 120, 30);
    render(a, &g);
    assert_non_null(CollView_report(a));
    uint32_t wait = CollView_waitGlyph(unicode), full = a->gl->full;
    int y0 = screen_y_of_row(a, Lines_rowOfEvent(t, e0)), y1 = screen_y_of_row(a, Lines_rowOfEvent(t, e1));
    assert_true(y0 >= 0 && y1 >= 0);
    Rect p = a->layout.plot;
    /* rank 0: the first 60% of the columns are wait (minus the name), none after */
    int split = p.x + p.w * 6 / 10;
    int w_before = count_ch(&g, y0, p.x, split, wait), w_after = count_ch(&g, y0, split + 1, p.x + p.w, wait);
    assert_true(w_before >= p.w * 6 / 10 - 40); /* the name covers at most ~40 cells */
    assert_int_equal(w_after, 0);
    assert_true(count_ch(&g, y0, split + 1, p.x + p.w, full) > 0);
    /* wait cells are in the dim role, transfer cells in the comm role */
    for (int x = p.x; x < p.x + p.w; x++) {
        const Cell *c = Grid_at(&g, x, y0);
        if (c->ch == wait) assert_int_equal(c->role, ROLE_DIM);
        if (c->ch == full) assert_int_equal(c->role, ROLE_CLASS + CLASS_COMM);
    }
    /* rank 1 arrived last: no wait at all */
    assert_int_equal(count_ch(&g, y1, p.x, p.x + p.w, wait), 0);
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
}

static void test_wait_glyphs_unicode(void **s) {
    (void)s;
    check_wait_glyphs(true);
}

static void test_wait_glyphs_ascii(void **s) {
    (void)s;
    check_wait_glyphs(false);
}

static bool screen_has(const Grid *g, const char *text) {
    for (int y = 0; y < g->h; y++)
        if (strstr(row_text(g, y), text)) return true;
    return false;
}

static void test_details_and_keys(void **s) {
    (void)s;
    size_t e0, e1;
    Trace *t = two_ranks(&e0, &e1);
    App *a = App_new(t, (Caps){true, 256}, "coll");
    Grid g;
    Grid_init(&g, 140, 40);
    App_selectEvent(a, e0);
    render(a, &g);
    assert_int_equal(CollView_detailsLines(a), 6);
    assert_true(screen_has(&g, "collective #0 on 2 ranks: dpsk::ep::internode::combine<"));
    assert_true(screen_has(&g, "this rank waited 600ns, transferred 400ns"));
    assert_true(screen_has(&g, "rank 1 arrived last (skew 600ns)"));
    assert_true(screen_has(&g, "      1     0                0ns         600ns"));
    assert_true(screen_has(&g, "      2     1              600ns           0ns  last"));
    /* x: to the last arrival */
    TuiKey k = {'x', 0, 0};
    App_key(a, &k);
    assert_int_equal(a->v.sel, e1);
    render(a, &g);
    assert_true(screen_has(&g, "rank 1 arrived last"));
    /* X: the next rank, cycling back to rank 0 */
    k.code = 'X';
    App_key(a, &k);
    assert_int_equal(a->v.sel, e0);
    render(a, &g);
    assert_true(screen_has(&g, "rank 0: waited 600ns for rank 1"));
    /* range panel: wait vs transfer over [1000, 2000): rank 0 waits 600, transfers 400 */
    App_setRange(a, 1000, 2000);
    render(a, &g);
    /* the straggler sentence of stats --range, the table (header, two devices) and its
     * note in two lines */
    assert_int_equal(CollView_rangeLines(a, 138), 6);
    assert_true(screen_has(&g, "exp.wait  exp.xfer last waited on  (us)"));
    assert_true(screen_has(&g, "straggler: rank 1 arrived last in 1 of 1 collectives; others waited 600 ns for it "
                               "(summed over the ranks that waited)"));
    /* rank 1 arrived last once, rank 0 waited 600 ns (0.6 us: "1") for it */
    int hy = -1;
    for (int y = 0; y < g.h && hy < 0; y++)
        if (strstr(row_text(&g, y), "last waited on")) hy = y;
    assert_true(hy > 0 && hy + 2 < g.h);
    assert_non_null(strstr(row_text(&g, hy + 1), " r0:0 "));
    assert_non_null(strstr(row_text(&g, hy + 1), "    0         0"));
    assert_non_null(strstr(row_text(&g, hy + 2), " r1:1 "));
    assert_non_null(strstr(row_text(&g, hy + 2), "    1         1"));
    bool found = false;
    for (int y = 0; y < g.h && !found; y++) {
        const char *r = row_text(&g, y);
        /* us with thousands separators: 0.6 us and 0.4 us round to "1" and "0"; check the
         * row shape and the device label instead, and the numbers through the split */
        found = strstr(r, "r0:0") != NULL;
    }
    assert_true(found);
    size_t n_split;
    const CollDeviceSplit *split = CollView_rangeSplit(a, &n_split);
    assert_int_equal(n_split, 2);
    assert_int_equal(split[0].wait, 600);
    assert_int_equal(split[0].transfer, 400);
    assert_int_equal(split[0].exposed_wait, 600);
    /* a single rank: nothing to match, the key says why */
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
}

static void test_one_rank_key_message(void **s) {
    (void)s;
    Fix f = Fix_new();
    uint32_t l = Fix_gpu(&f, 0, 20);
    size_t e = Fix_add(&f, l, 0, 100, COMBINE, KIND_KERNEL, CLASS_COMM);
    Trace_finish(f.t);
    App *a = App_new(f.t, (Caps){true, 256}, "one");
    Grid g;
    Grid_init(&g, 120, 30);
    App_selectEvent(a, e);
    render(a, &g);
    assert_null(CollView_report(a));
    TuiKey k = {'x', 0, 0};
    App_key(a, &k);
    assert_non_null(strstr(a->msg, "two ranks or more"));
    Grid_free(&g);
    App_free(a);
    Trace_free(f.t);
}

/* N ranks, one combine each: rank r starts at 1000 + 100 r, all end at 3000 (the last,
 * rank N-1, arrives at 1000 + 100 (N-1)). A compute kernel on another stream covers
 * [0, 1000) everywhere, so the waits are exposed. */
static Trace *n_ranks(int N) {
    Trace *t = Trace_new();
    for (int r = 0; r < N; r++) {
        char p[16];
        snprintf(p, sizeof p, "r%d", r);
        uint32_t s = Trace_addSource(t, p);
        t->sources[s].rank = r;
        TraceEvent e = {0};
        e.src = TRACE_NO_SRC;
        e.kind = KIND_KERNEL;
        e.name = StrTab_intern(t->strings, COMBINE, strlen(COMBINE));
        e.ts = 1000 + 100 * r;
        e.dur = 3000 - e.ts;
        e.lane = Trace_gpuLane(t, s, r, 20, r, 20);
        Trace_append(t, &e);
        e.name = StrTab_intern(t->strings, "gemm", 4);
        e.ts = 0;
        e.dur = 1000;
        e.lane = Trace_gpuLane(t, s, r, 7, r, 7);
        Trace_append(t, &e);
    }
    finish_classified(t);
    return t;
}

static void test_overview(void **s) {
    (void)s;
    Trace *t = n_ranks(8);
    App *a = App_new(t, (Caps){true, 0}, "ov");
    assert_true(Overview_on(a)); /* 8 ranks: on by default */
    assert_int_equal(a->lines.n, 8);
    a->v.t0 = 0;
    a->v.t1 = 3000;
    Grid g;
    Grid_init(&g, 130, 30);
    render(a, &g);
    /* rank 0: exposed comm [1000, 3000) = 2 us, arrived last never; rank 7 last once */
    assert_true(screen_has(&g, " r0 2us L0"));
    assert_true(screen_has(&g, " r7 1us L1"));
    /* wait columns of rank 0: [1000, 1700) of [0, 3000) over the plot width */
    int W = a->layout.plot.w;
    int64_t *wc = calloc((size_t)W, sizeof *wc);
    Overview_waitColumns(t, CollView_report(a), a->lines.v[0].group, 0, 3000, W, wc);
    int64_t sum = 0;
    for (int c = 0; c < W; c++) sum += wc[c];
    assert_int_equal(sum, 700);
    /* the band of rank 0 shows the wait glyph in the wait columns, rank 7 none */
    uint32_t wg = CollView_waitGlyph(true);
    int y0 = a->layout.plot.y, y7 = a->layout.plot.y + 7;
    int n0 = 0, n7 = 0;
    for (int x = a->layout.plot.x; x < a->layout.plot.x + W; x++) {
        n0 += Grid_at(&g, x, y0)->ch == wg;
        n7 += Grid_at(&g, x, y7)->ch == wg;
    }
    assert_true(n0 >= W * 7 / 30 - 2 && n0 <= W * 7 / 30 + 2);
    assert_int_equal(n7, 0);
    free(wc);
    /* Enter on rank 3: overview off, rank 3 expanded, the others folded */
    a->v.line = 3;
    TuiKey k = {TK_ENTER, 0, 0};
    App_key(a, &k);
    assert_false(Overview_on(a));
    uint32_t g3 = a->lines.v[a->v.line].group;
    assert_int_equal(t->groups[g3].rank, 3);
    assert_false(a->collapsed[g3]);
    for (uint32_t i = 0; i < t->n_groups; i++)
        if (t->groups[i].gpu && i != g3) assert_true(a->collapsed[i]);
    /* O: back to the overview, on the same rank */
    k.code = 'O';
    App_key(a, &k);
    assert_true(Overview_on(a));
    assert_int_equal(a->lines.n, 8);
    assert_int_equal(a->v.line, 3);
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
    /* fewer than 8 ranks: all lanes by default */
    t = n_ranks(4);
    a = App_new(t, (Caps){true, 0}, "ov4");
    assert_false(Overview_on(a));
    App_free(a);
    Trace_free(t);
}

/* The legend names the wait glyph when some rank waited, within 80 columns even
 * without colour (the longest legend), and not otherwise. */
static void check_legend(int64_t start1, Caps caps, bool named) {
    size_t e0, e1;
    Trace *t = two_ranks_from(&e0, &e1, start1);
    App *a = App_new(t, caps, "coll");
    Grid g;
    Grid_init(&g, 80, 24);
    render(a, &g);
    assert_non_null(CollView_report(a));
    int y = a->layout.legend.y;
    assert_int_equal(Grid_find(&g, y, "band:"), 0);
    char want[16];
    want[Utf8_encode(CollView_waitGlyph(caps.unicode), want)] = '\0';
    strcat(want, " coll wait");
    int x = Grid_find(&g, y, want);
    if (!named) {
        assert_int_equal(x, -1);
        assert_int_equal(Grid_find(&g, y, "coll wait"), -1);
    } else {
        assert_true(x > 0);
        assert_true(x + 11 <= 80);
        assert_int_equal(Grid_at(&g, x, y)->role, ROLE_DIM); /* as the timeline draws it */
        /* the help screen's legend too */
        TuiKey k = {'?', 0, 0};
        App_key(a, &k);
        render(a, &g);
        assert_true(Grid_find(&g, g.h - 1, want) > 0);
    }
    Grid_free(&g);
    App_free(a);
    Trace_free(t);
}

static void test_legend_names_wait_glyph(void **s) {
    (void)s;
    check_legend(1600, (Caps){true, 256}, true);
    check_legend(1600, (Caps){true, 0}, true);
    check_legend(1600, (Caps){false, 0}, true);
    check_legend(1600, (Caps){false, 16}, true);
    check_legend(1000, (Caps){true, 256}, false); /* matched, both arrive together: no wait */
}

/* Overview_waitColumnsAll's rows equal Overview_waitColumns group by group, for windows
 * cutting the trace, the whole trace and beyond it, and its slots (every other GPU
 * group, the rest left out). */
static void check_wait_all(const Trace *t, const CollReport *R) {
    int64_t span = t->t_max - t->t_min;
    const struct {
        int64_t t0, t1;
        int n;
    } cases[] = {{t->t_min, t->t_max, 97}, {t->t_min + span / 3, t->t_min + span / 3 + span / 7, 13},
                 {t->t_min - 5, t->t_max + 1000, 160}, {t->t_min + 7, t->t_min + 11, 9}};
    uint32_t *slot = calloc(t->n_groups + 1, sizeof *slot);
    size_t n_slots = 0, gpu = 0;
    for (uint32_t g = 0; g < t->n_groups; g++)
        slot[g] = t->groups[g].gpu && gpu++ % 2 == 0 ? (uint32_t)n_slots++ : UINT32_MAX;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int n = cases[c].n;
        int64_t *all = calloc(n_slots * (size_t)n + 1, sizeof *all), *one = calloc((size_t)n, sizeof *one);
        Overview_waitColumnsAll(t, R, slot, n_slots, cases[c].t0, cases[c].t1, n, all);
        for (uint32_t g = 0; g < t->n_groups; g++) {
            if (slot[g] == UINT32_MAX) continue;
            Overview_waitColumns(t, R, g, cases[c].t0, cases[c].t1, n, one);
            assert_memory_equal(all + (size_t)slot[g] * (size_t)n, one, (size_t)n * sizeof *one);
        }
        free(all);
        free(one);
    }
    free(slot);
}

/* The overview's wait columns: each ns of a rank's wait in column floor((x - t0) *
 * ncols / (t1 - t0)), for windows the columns do not divide, cutting the waits, wider
 * than the trace and with more columns than ns. */
static void test_wait_columns_per_ns(void **s) {
    (void)s;
    Trace *t = n_ranks(8);
    CollReport *R = Coll_analyze(t, NULL);
    const struct {
        int64_t t0, t1;
        int n;
    } cases[] = {{0, 3000, 7}, {1050, 1690, 13}, {1234, 1238, 9}, {-10, 5000, 97}};
    for (uint32_t g = 0; g < t->n_groups; g++) {
        if (!t->groups[g].gpu) continue;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            int64_t t0 = cases[c].t0, t1 = cases[c].t1, want[97] = {0}, got[97];
            int n = cases[c].n;
            Overview_waitColumns(t, R, g, t0, t1, n, got);
            for (int64_t x = t0; x < t1; x++)
                for (size_t i = 0; i < t->n_events; i++) {
                    int64_t ws, we;
                    if (t->lanes[t->events[i].lane].group != g || !Coll_waitPart(R, i, &ws, &we)) continue;
                    if (x >= ws && x < we) want[(x - t0) * n / (t1 - t0)]++;
                }
            int64_t sum = 0;
            for (int k = 0; k < n; k++) {
                assert_int_equal(got[k], want[k]);
                sum += got[k];
            }
            if (c == 0) assert_int_equal(sum, 700 - 100 * (int64_t)t->groups[g].rank); /* rank r waits from 1000 + 100 r */
        }
    }
    check_wait_all(t, R);
    CollReport_free(R);
    Trace_free(t);
}

/* App_newMatching starts the matching with the caller's options before the App exists:
 * the first frame draws what App_new's does, from a report made with those options. */
static void test_new_matching(void **s) {
    (void)s;
    Trace *t = n_ranks(8);
    CollOptions opt = CollOptions_default();
    opt.threads = 3; /* kept in the report: it was matched with these options */
    App *a = App_newMatching(t, (Caps){true, 0}, "ov", &opt);
    assert_ptr_equal(CollView_options(a), &opt);
    a->v.t0 = 0;
    a->v.t1 = 3000;
    Grid g;
    Grid_init(&g, 130, 30);
    render(a, &g);
    assert_true(screen_has(&g, " r0 2us L0"));
    assert_true(screen_has(&g, " r7 1us L1"));
    const CollReport *R = CollView_report(a);
    assert_non_null(R);
    assert_int_equal(R->threads, 3);
    CollReport *D = Coll_analyze(t, NULL);
    assert_int_equal(R->n_inst, D->n_inst);
    assert_int_equal(R->n_members, D->n_members);
    for (size_t i = 0; i < R->n_members; i++) {
        assert_int_equal(R->members[i].event, D->members[i].event);
        assert_int_equal(R->members[i].wait, D->members[i].wait);
        assert_int_equal(R->members[i].transfer, D->members[i].transfer);
    }
    CollReport_free(D);
    Grid_free(&g);
    App_free(a);
    /* one rank: nothing to match, no report */
    size_t e0, e1;
    Trace *one = two_ranks(&e0, &e1);
    one->sources[1].rank = 0;
    a = App_newMatching(one, (Caps){true, 0}, "one", &opt);
    assert_false(CollView_matched(a));
    assert_null(CollView_report(a));
    App_free(a);
    Trace_free(one);
    Trace_free(t);
}

/* The labels' exposed comm from the view index's band sums equals the device split's,
 * to the ns: devices with enough events for the index's buckets, overlapping kernels
 * (several rows), and a device with no GPU work (-1: the label says '-'). The wait
 * columns of all groups at once match the group-by-group walk on two channels. */
static void test_overview_exposed(void **s) {
    (void)s;
    enum { RANKS = 8, PER = 1400 };
    Trace *t = Trace_new();
    uint64_t x = 4242;
    for (int r = 0; r < RANKS; r++) {
        char p[16];
        snprintf(p, sizeof p, "r%d", r);
        uint32_t src = Trace_addSource(t, p);
        t->sources[src].rank = r;
        for (int k = 0; k < (r == RANKS - 1 ? 0 : PER); k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            TraceEvent e = {0};
            e.src = TRACE_NO_SRC;
            e.kind = KIND_KERNEL;
            e.name = StrTab_intern(t->strings, "gemm", 4);
            e.ts = (int64_t)k * 1000 + (int64_t)(x >> 40) % 500;
            e.dur = 100 + (int64_t)(x >> 20) % 1500; /* overlaps the next: several rows */
            e.lane = Trace_gpuLane(t, src, r, 7, r, 7);
            Trace_append(t, &e);
            e.name = StrTab_intern(t->strings, COMBINE, strlen(COMBINE));
            e.ts = (int64_t)k * 1000 + 300 + (int64_t)(x >> 50) % 200;
            e.dur = 200 + (int64_t)(x >> 30) % 300;
            e.lane = Trace_gpuLane(t, src, r, 20, r, 20);
            Trace_append(t, &e);
            if (r < 4 && k % 5 == 0) { /* a second channel on four ranks */
                e.ts = (int64_t)k * 1000 + 600 + (int64_t)(x >> 45) % 100 * r;
                e.dur = 150;
                e.lane = Trace_gpuLane(t, src, r, 21, r, 21);
                Trace_append(t, &e);
            }
        }
        if (r == RANKS - 1) { /* a counter only: a GPU group without GPU work */
            TraceEvent e = {0};
            e.src = TRACE_NO_SRC;
            e.kind = KIND_COUNTER;
            e.name = StrTab_intern(t->strings, "util", 4);
            e.ts = 5000;
            e.lane = Trace_gpuLane(t, src, r, 9, r, 9);
            Trace_append(t, &e);
        }
    }
    finish_classified(t);
    App *a = App_new(t, (Caps){true, 0}, "ov");
    CollReport *R = Coll_analyze(t, NULL);
    size_t n;
    CollDeviceSplit *D = Coll_deviceSplit(t, R, INT64_MIN, INT64_MAX, INT32_MIN, &n);
    size_t k = 0, checked = 0, none = 0;
    for (uint32_t g = 0; g < t->n_groups; g++) {
        if (!t->groups[g].gpu) continue;
        int64_t want = k < n && D[k].group == g ? D[k++].exposed : -1;
        assert_int_equal(Overview_exposed(a, g), want);
        checked++;
        none += want < 0;
    }
    assert_int_equal(k, n);
    assert_true(checked == RANKS && none == 1);
    assert_true(R->n_channels == 2 && R->n_inst > PER);
    check_wait_all(t, R);
    free(D);
    CollReport_free(R);
    App_free(a);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_glyphs_unicode),
        cmocka_unit_test(test_wait_glyphs_ascii),
        cmocka_unit_test(test_legend_names_wait_glyph),
        cmocka_unit_test(test_details_and_keys),
        cmocka_unit_test(test_one_rank_key_message),
        cmocka_unit_test(test_overview),
        cmocka_unit_test(test_wait_columns_per_ns),
        cmocka_unit_test(test_new_matching),
        cmocka_unit_test(test_overview_exposed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
