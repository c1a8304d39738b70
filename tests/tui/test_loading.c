/* Progressive load: the loading screen on the cell grid (progress bar,
 * percentage, MB/s, ETA, events, multi-file list, phases), the progress collector's
 * aggregation over files, and the background load job (done, error, cancelled). */
#include "tui_fixture.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loading.h"

static const char *names1[] = {"train.json"};
static const uint64_t sizes1[] = {200000000};

static LoadingView view1(uint64_t done, double elapsed) {
    LoadingView v = {0};
    v.n_files = 1;
    v.names = names1;
    v.sizes = sizes1;
    v.done = done;
    v.total = sizes1[0];
    v.events = 1234567;
    v.elapsed = elapsed;
    v.phase = LOAD_READING;
    return v;
}

static int count_cells(const Grid *g, int y, uint32_t ch) {
    int n = 0;
    for (int x = 0; x < g->w; x++) n += Grid_cat(g, x, y)->ch == ch;
    return n;
}

static int find_below(const Grid *g, int y0, const char *needle) {
    for (int y = y0; y < g->h; y++)
        if (Grid_find(g, y, needle) >= 0) return y;
    return -1;
}

static void test_percent_rate_eta(void **state) {
    (void)state;
    assert_int_equal(Loading_percent(0, 0), 0);
    assert_int_equal(Loading_percent(50, 200), 25);
    assert_int_equal(Loading_percent(199, 200), 99);
    assert_int_equal(Loading_percent(300, 200), 100);
    LoadingView v = view1(100000000, 1.0);
    assert_true(Loading_rate(&v) > 0.99e8 && Loading_rate(&v) < 1.01e8);
    assert_true(Loading_eta(&v) > 0.99 && Loading_eta(&v) < 1.01);
    v = view1(100000000, 0.05); /* too early to tell */
    assert_true(Loading_rate(&v) == 0);
    assert_true(Loading_eta(&v) < 0);
    v = view1(1000, 2.0); /* under 1 MB: no ETA yet */
    assert_true(Loading_eta(&v) < 0);
}

static void test_format(void **state) {
    (void)state;
    char b[32];
    assert_string_equal(Loading_formatEta(b, sizeof b, -1), "--");
    assert_string_equal(Loading_formatEta(b, sizeof b, 0), "0.0 s");
    assert_string_equal(Loading_formatEta(b, sizeof b, 2.14), "2.1 s");
    assert_string_equal(Loading_formatEta(b, sizeof b, 42.4), "42 s");
    assert_string_equal(Loading_formatEta(b, sizeof b, 185), "3m05s");
    assert_string_equal(Loading_formatEta(b, sizeof b, 3725), "1h02m");
    assert_string_equal(Loading_formatEta(b, sizeof b, 1e12), "--");
    assert_string_equal(Loading_formatBytes(b, sizeof b, 812), "812 B");
    assert_string_equal(Loading_formatBytes(b, sizeof b, 3400), "3.4 kB");
    assert_string_equal(Loading_formatBytes(b, sizeof b, 682100000), "682.1 MB");
    assert_string_equal(Loading_formatBytes(b, sizeof b, 2000000000), "2.00 GB");
}

static void test_render_unicode(void **state) {
    (void)state;
    Grid g;
    Grid_init(&g, 100, 30);
    LoadingView v = view1(100000000, 1.0);
    Loading_render(&g, &v, Glyphs_get(true));
    assert_true(Grid_find(&g, 0, "ovtrace  loading train.json") >= 0);
    int col;
    assert_true(Grid_findAny(&g, "Loading train.json  (200.0 MB)", &col) >= 0);
    int yb = Grid_findAny(&g, " 50%", &col);
    assert_true(yb > 0);
    /* bar: 86 columns = [ + 84 cells + ]; half of them full */
    assert_int_equal(count_cells(&g, yb, 0x2588), 42);
    assert_int_equal(count_cells(&g, yb, 0x00b7), 42);
    int yf = Grid_findAny(&g, "100.0 MB / 200.0 MB", &col);
    assert_true(yf > yb);
    assert_true(Grid_find(&g, yf, "1,234,567 events") >= 0);
    assert_true(Grid_find(&g, yf, "100 MB/s") >= 0);
    assert_true(Grid_find(&g, yf, "ETA 1.0 s") >= 0);
    assert_true(Grid_findAny(&g, "elapsed 1.0 s", &col) > yf);
    assert_true(Grid_find(&g, g.h - 1, "q:cancel") >= 0);
    assert_int_equal(Grid_cat(&g, 1, g.h - 1)->role, ROLE_STATUS_KEY);
    /* a partial cell uses the eighth blocks: 30% of 84 cells = 25 1/8 cells */
    v = view1(60000000, 1.0);
    Loading_render(&g, &v, Glyphs_get(true));
    yb = Grid_findAny(&g, " 30%", &col);
    assert_true(yb > 0);
    assert_int_equal(count_cells(&g, yb, 0x2588), 25);
    assert_int_equal(count_cells(&g, yb, 0x258f), 1); /* 1/8 */
    assert_int_equal(count_cells(&g, yb, 0x00b7), 84 - 26);
    assert_true(Grid_find(&g, yb + 2, "ETA 2.3 s") >= 0);
    /* cancelling is said */
    v.cancelling = true;
    Loading_render(&g, &v, Glyphs_get(true));
    assert_true(Grid_findAny(&g, "cancelling...", &col) > 0);
    Grid_free(&g);
}

static void test_render_ascii_and_small(void **state) {
    (void)state;
    Grid g;
    Grid_init(&g, 80, 24);
    LoadingView v = view1(150000000, 3.0);
    Loading_render(&g, &v, Glyphs_get(false));
    int col, yb = Grid_findAny(&g, " 75%", &col);
    assert_true(yb > 0);
    assert_int_equal(count_cells(&g, yb, '#'), 48); /* 75% of 64 cells */
    assert_int_equal(count_cells(&g, yb, '.'), 16);
    for (int y = 0; y < g.h; y++)
        for (int x = 0; x < g.w; x++) assert_true(Grid_cat(&g, x, y)->ch < 128);
    /* tiny terminals do not crash and keep the percentage */
    Grid_resize(&g, 20, 6);
    Loading_render(&g, &v, Glyphs_get(true));
    assert_true(Grid_findAny(&g, "75%", &col) >= 0);
    Grid_resize(&g, 1, 1);
    Loading_render(&g, &v, Glyphs_get(true));
    Grid_free(&g);
}

static void test_render_files_and_building(void **state) {
    (void)state;
    static const char *names[] = {"rank0.json", "rank1.json.gz", "rank2.json.zst"};
    static const uint64_t sizes[] = {1000000000, 500000000, 500000000};
    LoadingView v = {0};
    v.n_files = 3;
    v.names = names;
    v.sizes = sizes;
    v.current = 1;
    v.done = 1250000000;
    v.total = 2000000000;
    v.events = 42;
    v.elapsed = 2.5;
    v.phase = LOAD_READING;
    Grid g;
    Grid_init(&g, 120, 40);
    Loading_render(&g, &v, Glyphs_get(true));
    int col;
    assert_true(Grid_find(&g, 0, "loading rank0.json +2") >= 0);
    assert_true(Grid_findAny(&g, "Loading 3 files  (2.00 GB)", &col) >= 0);
    int y0 = find_below(&g, 1, "rank0.json");
    int y1 = find_below(&g, 1, "rank1.json.gz");
    assert_true(y0 > 0 && y1 == y0 + 1);
    assert_true(Grid_find(&g, y0, "done") >= 0);
    assert_true(Grid_find(&g, y0 + 2, "rank2.json.zst") >= 0);
    assert_true(Grid_find(&g, y1, ">") >= 0);
    assert_true(Grid_find(&g, y1, "500.0 MB") >= 0);
    assert_true(Grid_findAny(&g, " 62%", &col) > y1);
    assert_true(Grid_findAny(&g, "1.25 GB / 2.00 GB", &col) > 0);
    assert_true(Grid_findAny(&g, "500 MB/s", &col) > 0);
    assert_true(Grid_findAny(&g, "ETA 1.5 s", &col) > 0);
    /* after the bytes: full bar, rate and time over the reading, the stage named */
    v.phase = LOAD_BUILDING;
    v.build = BUILD_SORT;
    v.events = 1526512;
    v.lanes = 8;
    v.stage_elapsed = 0.4;
    v.done = v.total;
    v.read_elapsed = 4.0;
    v.elapsed = 4.6;
    Loading_render(&g, &v, Glyphs_get(true));
    assert_true(Grid_findAny(&g, "100%", &col) > 0);
    assert_true(Grid_findAny(&g, "sorting 1,526,512 events on 8 lanes into rows (0.4 s)", &col) > 0);
    assert_true(Grid_findAny(&g, "1,526,512 events", &col) > 0);
    assert_true(Grid_findAny(&g, "read in 4.0 s", &col) > 0);
    assert_int_equal(Grid_findAny(&g, "ETA", &col), -1); /* no "ETA 0.0 s" while it builds */
    assert_true(Grid_findAny(&g, "500 MB/s", &col) > 0);
    Grid_free(&g);
}

/* Each stage of the build has its own words, with the counts it works on. */
static void test_stage_text(void **state) {
    (void)state;
    LoadingView v = view1(100, 1.0);
    char b[160];
    assert_string_equal(Loading_stageText(b, sizeof b, &v), "reading events");
    v.phase = LOAD_STARTING;
    assert_string_equal(Loading_stageText(b, sizeof b, &v), "opening...");
    v.phase = LOAD_BUILDING;
    v.events = 1289714;
    v.lanes = 1;
    v.flow_points = 250001;
    v.stage_elapsed = 1.25;
    static const struct {
        BuildStage b;
        const char *text;
    } want[] = {
        {BUILD_WAITING, "parsing the last events (1.2 s)"},
        {BUILD_LANES, "ordering 1 lane (1.2 s)"},
        {BUILD_SORT, "sorting 1,289,714 events on 1 lane into rows (1.2 s)"},
        {BUILD_FLOWS, "binding 250,001 flow points to events (1.2 s)"},
        {BUILD_CLASSIFY, "classifying event names (compute, communication, ...) (1.2 s)"},
        {BUILD_SNAPSHOT, "saving a snapshot for the next open (1.2 s)"},
        {BUILD_INDEX, "indexing the timeline and the overlap bands (1.2 s)"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        v.build = want[i].b;
        assert_string_equal(Loading_stageText(b, sizeof b, &v), want[i].text);
    }
    v.cancelling = true;
    assert_string_equal(Loading_stageText(b, sizeof b, &v), "cancelling...");
    char tiny[8]; /* cut, never overrun */
    v.cancelling = false;
    v.build = BUILD_SORT;
    assert_int_equal(strlen(Loading_stageText(tiny, sizeof tiny, &v)), 7);
}

/* writes n bytes to dir/name */
static void write_file(const char *dir, const char *name, size_t n, char *path, size_t len) {
    int r = snprintf(path, len, "%s/%s", dir, name);
    assert_true(r > 0 && (size_t)r < len);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++) fputc(' ', f);
    fclose(f);
}

static void test_watch_aggregates(void **state) {
    (void)state;
    char dir[] = "/tmp/ovt-loading-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[512], b[512], c[512], sub[256];
    write_file(dir, "a.json", 1000, a, sizeof a);
    snprintf(sub, sizeof sub, "%s/d", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    write_file(sub, "y.json", 3000, b, sizeof b);
    write_file(sub, "x.json.gz", 2000, c, sizeof c);
    char ignored[512];
    write_file(sub, "notes.txt", 5000, ignored, sizeof ignored);
    const char *paths[] = {a, sub};
    LoadWatch *w = LoadWatch_new(paths, 2);
    LoadingView v;
    LoadWatch_snapshot(w, &v);
    assert_int_equal(v.n_files, 3); /* a.json, d/x.json.gz, d/y.json: the loader's order */
    assert_string_equal(v.names[1], "x.json.gz");
    assert_int_equal(v.total, 6000);
    assert_int_equal(v.done, 0);
    assert_int_equal(v.phase, LOAD_STARTING);
    LoadWatch_progress(w, a, 500, 1000, 10);
    LoadWatch_snapshot(w, &v);
    assert_int_equal(v.phase, LOAD_READING);
    assert_int_equal(v.done, 500);
    assert_int_equal(v.events, 10);
    /* the next file starts: the first is complete */
    LoadWatch_progress(w, c, 100, 2000, 30);
    LoadWatch_snapshot(w, &v);
    assert_int_equal(v.current, 1);
    assert_int_equal(v.done, 1100);
    assert_int_equal(v.events, 30);
    /* the loader's stages: building, with the model's event count (the reports of
     * the parse may be a slice behind it) */
    LoadWatch_stage(w, LOAD_STAGE_SORT, 35, 4, 2);
    LoadWatch_snapshot(w, &v);
    assert_int_equal(v.phase, LOAD_BUILDING);
    assert_int_equal(v.build, BUILD_SORT);
    assert_int_equal(v.events, 35);
    assert_int_equal(v.lanes, 4);
    assert_int_equal(v.flow_points, 2);
    assert_int_equal(v.done, 6000);
    LoadWatch_setBuild(w, BUILD_INDEX);
    LoadWatch_snapshot(w, &v);
    assert_int_equal(v.build, BUILD_INDEX);
    assert_int_equal(v.events, 35);
    LoadWatch_free(w);
    unlink(a), unlink(b), unlink(c), unlink(ignored), rmdir(sub), rmdir(dir);
}

static void wait_job(LoadJob *j) {
    for (int i = 0; i < 6000 && !LoadJob_finished(j); i++) usleep(10000);
    assert_true(LoadJob_finished(j));
    LoadJob_join(j);
}

static void test_job(void **state) {
    (void)state;
    const char *path = OVTRACE_SAMPLES "/demo-moe.json.gz";
    if (access(path, R_OK) != 0) skip();
    const char *paths[] = {path};
    LoadJob j;
    assert_true(LoadJob_start(&j, paths, 1, NULL, (Caps){true, 256}, "demo"));
    wait_job(&j);
    assert_non_null(j.app);
    assert_true(j.app->t->n_events > 500);
    assert_null(j.warnings);
    LoadingView v;
    LoadWatch_snapshot(j.watch, &v);
    assert_int_equal(v.phase, LOAD_DONE);
    assert_int_equal(v.done, v.total);
    assert_int_equal(v.events, j.app->t->n_events); /* what `stats` says, not the last report's */
    assert_int_equal(v.lanes, j.app->t->n_lanes);
    assert_int_equal(v.build, BUILD_INDEX);
    Trace *t = j.app->t;
    App_free(j.app);
    Trace_free(t);
    LoadJob_free(&j);

    /* started cancelled: the loader stops with "loading cancelled" */
    atomic_int cancel = 1;
    LoadOptions lo = {.cancel = &cancel};
    assert_true(LoadJob_start(&j, paths, 1, &lo, (Caps){true, 256}, "demo"));
    wait_job(&j);
    assert_null(j.app);
    assert_non_null(strstr(j.err, "loading cancelled"));
    LoadWatch_snapshot(j.watch, &v);
    assert_int_equal(v.phase, LOAD_FAILED);
    LoadJob_free(&j);

    /* a syntax error comes back as the loader's message */
    char dir[] = "/tmp/ovt-loading-XXXXXX", bad[256];
    assert_non_null(mkdtemp(dir));
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    FILE *f = fopen(bad, "w");
    fputs("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}, {\"ph\": x}]}", f);
    fclose(f);
    const char *bp[] = {bad};
    assert_true(LoadJob_start(&j, bp, 1, NULL, (Caps){true, 256}, "bad"));
    wait_job(&j);
    assert_null(j.app);
    assert_non_null(strstr(j.err, "bad.json: byte 77"));
    assert_non_null(strstr(j.err, "expected"));
    LoadJob_free(&j);
    unlink(bad), rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percent_rate_eta),     cmocka_unit_test(test_format),
        cmocka_unit_test(test_render_unicode),       cmocka_unit_test(test_render_ascii_and_small),
        cmocka_unit_test(test_render_files_and_building), cmocka_unit_test(test_watch_aggregates),
        cmocka_unit_test(test_job),          cmocka_unit_test(test_stage_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
