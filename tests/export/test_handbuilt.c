/* Export on hand-built traces: full round trip (events, flows, overlap figures),
 * exact filter selections, B/E and counter handling, compressed input and output,
 * several ranks, refusal to overwrite inputs, and failures (missing directory, parent
 * is a file, full disk, fatal signal) that must leave nothing behind. */
#include "export_common.h"
#include "ovtrace/cli/signals.h"

/* ------------------------------------------------------------------ hand-built traces */

/* Two GPU streams, a CPU thread launching them (ac2g flows), a B/E pair nested in an
 * X, an unmatched B, a two-series counter, string pid/tid, metadata, sub-µs
 * timestamps with more digits than ns, args with nested values and escapes. */
static const char *HAND =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\"}],\n"
    " \"distributedInfo\": {\"rank\": 0, \"world_size\": 1}, \"traceName\": \"hand\",\n"
    " \"traceEvents\": [\n"
    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"gpu proc\"}},\n"
    "{\"name\": \"process_labels\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"labels\": \"GPU 0\"}},\n"
    "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"sort_index\": 5}},\n"
    "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 7, \"args\": {\"name\": \"stream 7 \"}},\n"
    "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 100, \"tid\": 101, \"args\": {\"name\": \"main \\\"thread\\\"\"}},\n"
    "{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 100, \"tid\": 101, \"args\": {\"sort_index\": -3}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 101, \"ts\": 1000.1234, \"dur\": 50,"
    " \"args\": {\"Input Dims\": [[2, 3], [3, 4]], \"note\": \"tab\\there \\u00e9\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 101,"
    " \"ts\": 1010, \"dur\": 5, \"args\": {\"correlation\": 11}},\n"
    "{\"ph\": \"s\", \"id\": 11, \"pid\": 100, \"tid\": 101, \"ts\": 1010, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1020.5, \"dur\": 30,"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 11, \"grid\": [1, 2, 3]}},\n"
    "{\"ph\": \"f\", \"id\": 11, \"pid\": 0, \"tid\": 7, \"ts\": 1020.5, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 101,"
    " \"ts\": 1030, \"dur\": 4, \"args\": {\"correlation\": 12}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce\", \"pid\": 0, \"tid\": 9, \"ts\": 1040,"
    " \"dur\": 100, \"args\": {\"device\": 0, \"stream\": 9, \"correlation\": 12}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\", \"pid\": 0, \"tid\": 7, \"ts\": 1200, \"dur\": 10,"
    " \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 4096}},\n"
    "{\"ph\": \"B\", \"cat\": \"user_annotation\", \"name\": \"region\", \"pid\": 100, \"tid\": 101, \"ts\": 1002,"
    " \"args\": {\"step\": 3}},\n"
    "{\"ph\": \"E\", \"pid\": 100, \"tid\": 101, \"ts\": 1045.0005},\n"
    "{\"ph\": \"B\", \"cat\": \"user_annotation\", \"name\": \"open region\", \"pid\": 100, \"tid\": 102, \"ts\": 1100},\n"
    "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 100, \"tid\": 0, \"ts\": 1050, \"args\": {\"alloc\": 10, \"reserved\": 20.5}},\n"
    "{\"ph\": \"i\", \"name\": \"marker\", \"pid\": \"Traces\", \"tid\": \"Trace X\", \"ts\": 1060, \"s\": \"g\"},\n"
    "{\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"span\", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"ts\": 1000,"
    " \"dur\": 300}\n"
    "]}\n";

static void test_hand_full_roundtrip(void **state) {
    (void)state;
    Trace *a = load_text("hand.json", HAND);
    ExportFilter f = ExportFilter_all();
    f.description = "unit test";
    ExportResult res;
    export_ok(a, &f, path_in("hand-out.json"), &res);
    /* 11 event objects: the B/E pair is one, the two counter series one */
    assert_int_equal(res.events_written, 11);
    assert_int_equal(res.files_written, 1);
    assert_string_equal(res.first_path, path_in("hand-out.json"));
    Trace *b = load1(path_in("hand-out.json"));
    assert_reloads_to(a, NULL, b, true);
    assert_same_stats(a, b);
    /* original text verbatim, matched B became X with the exact duration, open B stays B */
    char *out = read_file(path_in("hand-out.json"), NULL);
    assert_non_null(strstr(out, "\"ts\": 1000.1234, \"dur\": 50, \"args\": {\"Input Dims\": [[2, 3], [3, 4]], "
                                "\"note\": \"tab\\there \\u00e9\"}}"));
    assert_non_null(strstr(out, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"region\", \"pid\": 100, "
                                "\"tid\": 101, \"ts\": 1002, \"args\": {\"step\": 3},\"dur\":43.001}"));
    assert_non_null(strstr(out, "{\"ph\": \"B\", \"cat\": \"user_annotation\", \"name\": \"open region\""));
    assert_null(strstr(out, "\"ph\": \"E\""));
    /* the counter object is written once */
    char *c = strstr(out, "\"name\": \"mem\"");
    assert_non_null(c);
    assert_null(strstr(c + 1, "\"name\": \"mem\""));
    /* metadata and top-level keys */
    assert_non_null(strstr(out, "\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":101,\"args\":{\"name\":\"main "
                                "\\\"thread\\\"\"}"));
    assert_non_null(strstr(out, "\"args\":{\"sort_index\":-3}"));
    assert_non_null(strstr(out, "\"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\"}]"));
    assert_non_null(strstr(out, "\"traceName\":\"hand (ovtrace export: all events)\""));
    assert_non_null(strstr(out, "\"command\":\"unit test\""));
    /* lane names and group metadata survive */
    for (size_t i = 0; i < b->n_groups; i++) {
        const Group *g = &b->groups[i];
        if (g->gpu) {
            assert_string_equal(StrTab_get(b->strings, g->name), "gpu proc");
            assert_string_equal(StrTab_get(b->strings, g->label), "GPU 0");
            assert_int_equal(g->sort_index, 5);
        }
    }
    free(out);
    Trace_free(a);
    Trace_free(b);
}

static void test_hand_filters(void **state) {
    (void)state;
    Trace *a = load_text("hand.json", HAND);
    typedef struct {
        const char *what;
        ExportFilter f;
        size_t expect; /* model events */
    } Case;
    Case cases[8];
    int n = 0;
    ExportFilter f;
    f = ExportFilter_all(), f.stream = 7;
    cases[n++] = (Case){"stream 7", f, 2};
    f = ExportFilter_all(), f.device = 0;
    cases[n++] = (Case){"device 0", f, 3};
    f = ExportFilter_all(), f.t0 = 1046000, f.t1 = 1061000; /* ns */
    cases[n++] = (Case){"range", f, 7};
    f = ExportFilter_all(), f.name_re = "Launch";
    cases[n++] = (Case){"name", f, 2};
    f = ExportFilter_all(), f.class_mask = 1u << CLASS_COMM;
    cases[n++] = (Case){"comm", f, 1};
    f = ExportFilter_all(), f.min_dur = 30000;
    cases[n++] = (Case){"min-dur", f, 6};
    for (int k = 0; k < n; k++) {
        size_t n_ref;
        uint8_t *ref = select_ref(a, &cases[k].f, &n_ref);
        if (n_ref != cases[k].expect) fprintf(stderr, "case %s: reference %zu\n", cases[k].what, n_ref);
        assert_int_equal(n_ref, cases[k].expect);
        export_ok(a, &cases[k].f, path_in("f.json"), NULL);
        Trace *b = load1(path_in("f.json"));
        assert_reloads_to(a, ref, b, true);
        Trace_free(b);
        free(ref);
    }
    /* exclude, and the flow kept only with both ends */
    f = ExportFilter_all();
    f.exclude_re = "^(cudaLaunchKernel|gemm_kernel)$";
    export_ok(a, &f, path_in("f.json"), NULL);
    Trace *b = load1(path_in("f.json"));
    assert_int_equal(b->n_events, a->n_events - 3);
    assert_int_equal(b->n_flows, 0);
    Trace_free(b);
    /* with launches: GPU kernels plus the runtime calls that launched them, with flows */
    f = ExportFilter_all();
    f.class_mask = 1u << CLASS_COMPUTE | 1u << CLASS_COMM;
    f.with_launches = true;
    ExportResult res;
    export_ok(a, &f, path_in("f.json"), &res);
    assert_int_equal(res.events_written, 4);
    b = load1(path_in("f.json"));
    assert_int_equal(b->n_events, 4);
    assert_int_equal(b->n_flows, 2);
    for (size_t i = 0; i < b->n_flows; i++) {
        assert_int_equal(b->events[b->flows[i].from].kind, KIND_RUNTIME);
        assert_int_equal(b->events[b->flows[i].to].kind, KIND_KERNEL);
    }
    Trace_free(b);
    /* a bad regex names the option */
    char err[512];
    f = ExportFilter_all();
    f.name_re = "(unclosed";
    ExportResult r2;
    assert_false(Export_run(a, &f, path_in("bad.json"), &r2, err, sizeof err));
    assert_non_null(strstr(err, "--name"));
    assert_int_equal(access(path_in("bad.json"), F_OK), -1);
    Trace_free(a);
}

static void test_compressed(void **state) {
    (void)state;
    /* compressed input is streamed (no map); output by extension */
    write_gz(path_in("hand.json.gz"), HAND);
    Trace *a = load1(path_in("hand.json.gz"));
    ExportFilter f = ExportFilter_all();
    const char *outs[] = {"c.json.gz", "c.json.zst", "c.json"};
    for (int k = 0; k < 3; k++) {
        export_ok(a, &f, path_in(outs[k]), NULL);
        Trace *b = load1(path_in(outs[k]));
        assert_int_equal(b->sources[0].compression, k == 0 ? COMP_GZIP : k == 1 ? COMP_ZSTD : COMP_NONE);
        assert_reloads_to(a, NULL, b, true);
        Trace_free(b);
    }
    Trace_free(a);
}

static void test_refuse_overwrite(void **state) {
    (void)state;
    const char *in = path_in("in.json");
    write_file(in, HAND);
    Trace *a = load1(in);
    assert_int_equal(link(in, path_in("hard.json")), 0);
    assert_int_equal(symlink(in, path_in("sym.json")), 0);
    const char *targets[] = {in, path_in("hard.json"), path_in("sym.json"), path_in("./in.json")};
    ExportFilter f = ExportFilter_all();
    for (int k = 0; k < 4; k++) {
        char err[1024];
        ExportResult r;
        assert_false(Export_run(a, &f, targets[k], &r, err, sizeof err));
        assert_non_null(strstr(err, "refusing to overwrite input"));
    }
    char *now = read_file(in, NULL);
    assert_string_equal(now, HAND);
    free(now);
    assert_int_equal(count_files(g_dir), 3); /* in, hard, sym: no temporary left */
    Trace_free(a);
}

static void test_failures_leave_nothing(void **state) {
    (void)state;
    const char *in = path_in("in.json");
    write_file(in, HAND);
    Trace *a = load1(in);
    ExportFilter f = ExportFilter_all();
    char err[1024];
    ExportResult r;
    /* the directory does not exist */
    assert_false(Export_run(a, &f, path_in("nodir/out.json"), &r, err, sizeof err));
    assert_non_null(strstr(err, "cannot create"));
    /* the parent is a regular file */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/out.json", in);
    assert_false(Export_run(a, &f, bad, &r, err, sizeof err));
    assert_non_null(strstr(err, "cannot create"));
    /* the target is a directory */
    mkdir(path_in("adir"), 0755);
    assert_false(Export_run(a, &f, path_in("adir"), &r, err, sizeof err));
    rmdir(path_in("adir"));
    assert_int_equal(count_files(g_dir), 1);

    /* a full disk (file size limit: writes fail with EFBIG; SIGXFSZ ignored) */
    char *big = malloc(8u << 20);
    size_t off = (size_t)sprintf(big, "{\"traceEvents\": [\n");
    for (int i = 0; off < (7u << 20); i++)
        off += (size_t)sprintf(big + off, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": 1, "
                                          "\"tid\": 1, \"ts\": %d, \"dur\": 1}", i ? ",\n" : "", i % 1000, i * 2);
    sprintf(big + off, "\n]}\n");
    const char *bigp = path_in("big.json");
    write_file(bigp, big);
    free(big);
    Trace *tb = load1(bigp);
    mkdir(path_in("out"), 0755);
    for (int mode = 0; mode < 2; mode++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            /* mode 0: SIGXFSZ ignored, the write fails; mode 1: the signal kills the
             * process, and the CLI's handler removes the temporary file first */
            signal(SIGXFSZ, mode == 0 ? SIG_IGN : SIG_DFL);
            Signals_cleanTempsOnExit();
            struct rlimit rl = {1u << 20, 1u << 20};
            setrlimit(RLIMIT_FSIZE, &rl);
            char e2[1024];
            ExportResult r3;
            bool ok = Export_run(tb, &f, path_in("out/big-out.json"), &r3, e2, sizeof e2);
            if (!ok) fprintf(stderr, "(expected) %s\n", e2);
            _exit(ok ? 0 : 3);
        }
        int st;
        waitpid(pid, &st, 0);
        if (mode == 0) assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 3);
        else assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ);
        assert_int_equal(count_files(path_in("out")), 0);
    }
    /* the same export without the limit works */
    ExportResult r4;
    export_ok(tb, &f, path_in("out/big-out.json"), &r4);
    assert_int_equal(r4.events_written, tb->n_events);
    assert_int_equal(count_files(path_in("out")), 1);
    Trace_free(tb);
    Trace_free(a);
}

static const char *RANK_TMPL =
    "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2}, \"traceEvents\": [\n"
    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"gpu%d\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"step\", \"pid\": 100, \"tid\": 100, \"ts\": %d, \"dur\": 50},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 10,"
    " \"args\": {\"device\": 0, \"stream\": 7}}\n]}\n";

static void test_multi_rank(void **state) {
    (void)state;
    char buf[2048];
    for (int r = 0; r < 2; r++) {
        snprintf(buf, sizeof buf, RANK_TMPL, r, r, 1000 + r, r, 1010 + r);
        char name[32];
        snprintf(name, sizeof name, "r%d.json", r);
        write_file(path_in(name), buf);
    }
    const char *p[] = {path_in("r0.json"), path_in("r1.json")};
    char err[1024];
    Trace *a = Load_files(p, 2, NULL, err, sizeof err);
    assert_non_null(a);
    ExportFilter f = ExportFilter_all();
    ExportResult res;
    export_ok(a, &f, path_in("m.json.gz"), &res);
    assert_int_equal(res.files_written, 2);
    assert_int_equal(res.events_written, 4);
    assert_string_equal(res.first_path, path_in("m.rank0.json.gz"));
    for (int r = 0; r < 2; r++) {
        char name[32];
        snprintf(name, sizeof name, "m.rank%d.json.gz", r);
        Trace *b = load1(path_in(name));
        assert_int_equal(b->n_events, 2);
        assert_int_equal(b->sources[0].rank, r);
        Trace_free(b);
    }
    assert_int_equal(access(path_in("m.json.gz"), F_OK), -1);
    /* --rank picks one: no suffix */
    f.rank = 1;
    export_ok(a, &f, path_in("one.json"), &res);
    assert_string_equal(res.first_path, path_in("one.json"));
    Trace *b = load1(path_in("one.json"));
    assert_int_equal(b->n_events, 2);
    assert_int_equal(b->sources[0].rank, 1);
    Trace_free(b);
    /* merged: one file, the ranks' processes kept apart */
    f = ExportFilter_all();
    f.merge = true;
    export_ok(a, &f, path_in("merged.json"), &res);
    assert_int_equal(res.files_written, 1);
    b = load1(path_in("merged.json"));
    assert_int_equal(b->n_events, 4);
    size_t cpu_lanes = 0;
    for (size_t i = 0; i < b->n_lanes; i++) cpu_lanes += !b->lanes[i].gpu;
    assert_int_equal(cpu_lanes, 2);
    char *text = read_file(path_in("merged.json"), NULL);
    assert_non_null(strstr(text, "\"pid\":\"rank 1 pid 100\""));
    free(text);
    Trace_free(b);
    /* several ranks cannot go to stdout unmerged */
    f = ExportFilter_all();
    assert_false(Export_run(a, &f, "-", &res, err, sizeof err));
    assert_non_null(strstr(err, "--merge"));
    Trace_free(a);
}


/* Live and simulated traces have no source text: events are written from the model. */
static void test_synthesized(void **state) {
    (void)state;
    Trace *a = Trace_new();
    uint32_t src = Trace_addSource(a, "live session");
    uint32_t gl = Trace_gpuLane(a, src, 0, 7, 0, 7), cl = Trace_cpuLane(a, src, 4242, 4243);
    TraceEvent e = {0};
    e.src = TRACE_NO_SRC;
    e.lane = cl, e.kind = KIND_RUNTIME, e.ts = 1000001, e.dur = 2500, e.corr = 5;
    e.name = StrTab_intern(a->strings, "cudaLaunchKernel", 16);
    Trace_append(a, &e);
    e.lane = gl, e.kind = KIND_KERNEL, e.ts = 1004003, e.dur = 7001, e.corr = 5;
    e.name = StrTab_intern(a->strings, "ncclDevKernel \"x\"", 16);
    Trace_append(a, &e);
    e.lane = cl, e.kind = KIND_COUNTER, e.ts = 1005000, e.value = 20.5, e.corr = 0;
    e.name = StrTab_intern(a->strings, "gpu util", 8);
    Trace_append(a, &e);
    Trace_setMeta(a, src, META_PROCESS_NAME, 4242, 0, "trainer", 7, 0);
    Trace_finish(a);
    CommRules *r = CommRules_default();
    Classify_trace(a, r);
    CommRules_free(r);
    ExportFilter f = ExportFilter_all();
    ExportResult res;
    export_ok(a, &f, path_in("live.json"), &res);
    assert_int_equal(res.events_written, 3);
    Trace *b = load1(path_in("live.json"));
    assert_reloads_to(a, NULL, b, true);
    assert_int_equal(b->n_flows, 1);
    Trace_free(b);
    Trace_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hand_full_roundtrip, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_hand_filters, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_compressed, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_refuse_overwrite, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_failures_leave_nothing, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_multi_rank, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_synthesized, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
