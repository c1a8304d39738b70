/* a kernel's launch is the runtime call carrying its correlation id,
 * not whatever slice encloses the ac2g `s` point. A hand-built fixture with the
 * equal-timestamp traps (a 0 us cudaFuncSetAttribute at the launch's timestamp, in
 * either file order, inside a CPU op), and DeepSeek's trace (skipped when absent):
 * every kernel maps to the runtime call with its own correlation id, and
 * `export --with-launches` writes exactly those calls. */
#include "export_common.h"

/* Expected answers by construction: kernel gemm_a is launched by the call with
 * correlation 6, gemm_b by the one with 8; the copy (no correlation anywhere) by the
 * only runtime call enclosing its flow's `s` point. */
static const char FIXTURE[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":10,\"tid\":10,\"ts\":90,\"dur\":300,"
    "\"args\":{\"External id\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaFuncSetAttribute\",\"pid\":10,\"tid\":10,\"ts\":100,"
    "\"dur\":0,\"args\":{\"External id\":5,\"correlation\":5}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernelExC\",\"pid\":10,\"tid\":10,\"ts\":100,"
    "\"dur\":3,\"args\":{\"External id\":6,\"correlation\":6}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_a\",\"pid\":0,\"tid\":7,\"ts\":105,\"dur\":10,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":6,\"External id\":6}},\n"
    "{\"ph\":\"s\",\"id\":6,\"pid\":10,\"tid\":10,\"ts\":100,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
    "{\"ph\":\"f\",\"id\":6,\"pid\":0,\"tid\":7,\"ts\":105,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":10,\"ts\":200,"
    "\"dur\":0,\"args\":{\"External id\":8,\"correlation\":8}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaFuncSetAttribute\",\"pid\":10,\"tid\":10,\"ts\":200,"
    "\"dur\":0,\"args\":{\"External id\":7,\"correlation\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_b\",\"pid\":0,\"tid\":7,\"ts\":210,\"dur\":10,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":8,\"External id\":8}},\n"
    "{\"ph\":\"s\",\"id\":8,\"pid\":10,\"tid\":10,\"ts\":200,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
    "{\"ph\":\"f\",\"id\":8,\"pid\":0,\"tid\":7,\"ts\":210,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":10,\"tid\":10,\"ts\":300,"
    "\"dur\":2,\"args\":{}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoD\",\"pid\":0,\"tid\":7,\"ts\":310,\"dur\":5,"
    "\"args\":{\"device\":0,\"stream\":7}},\n"
    "{\"ph\":\"s\",\"id\":999,\"pid\":10,\"tid\":10,\"ts\":301,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
    "{\"ph\":\"f\",\"id\":999,\"pid\":0,\"tid\":7,\"ts\":310,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}\n"
    "]}\n";

static long find_ev(const Trace *t, const char *name) {
    for (size_t i = 0; i < t->n_events; i++)
        if (!strcmp(Trace_name(t, &t->events[i]), name)) return (long)i;
    return -1;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static const char *partner_name(const Trace *t, const char *kernel) {
    long k = find_ev(t, kernel);
    assert_true(k >= 0);
    size_t p = Trace_partner(t, (size_t)k);
    assert_true(p != SIZE_MAX);
    assert_int_equal(Trace_partner(t, p), (size_t)k); /* and back */
    return Trace_name(t, &t->events[p]);
}

static void fixture_partners(void **state) {
    (void)state;
    Trace *t = load_text("trap.json", FIXTURE);
    assert_string_equal(partner_name(t, "gemm_a"), "cudaLaunchKernelExC");
    assert_string_equal(partner_name(t, "gemm_b"), "cudaLaunchKernel");
    assert_string_equal(partner_name(t, "Memcpy DtoD"), "cudaMemcpyAsync"); /* no correlation: geometry */
    /* the traps stay unlinked */
    long fs = find_ev(t, "cudaFuncSetAttribute");
    assert_int_equal(Trace_partner(t, (size_t)fs), SIZE_MAX);
    Trace_free(t);
}

static void fixture_export(void **state) {
    (void)state;
    Trace *t = load_text("trap2.json", FIXTURE);
    ExportFilter f = ExportFilter_all();
    f.name_re = "^gemm_";
    f.with_launches = true;
    ExportResult res;
    export_ok(t, &f, path_in("trap-out.json"), &res);
    assert_int_equal(res.events_written, 4);
    Trace *b = load1(path_in("trap-out.json"));
    assert_int_equal(b->n_events, 4);
    assert_true(find_ev(b, "cudaLaunchKernelExC") >= 0);
    assert_true(find_ev(b, "cudaLaunchKernel") >= 0);
    assert_int_equal(find_ev(b, "cudaFuncSetAttribute"), -1);
    assert_string_equal(partner_name(b, "gemm_a"), "cudaLaunchKernelExC");
    Trace_free(b);
    Trace_free(t);
}

/* The shipped DeepSeek-like trace (tests/data/moe-ep, 53 traps on rank 0): every
 * kernel's launch is the call make.py wrote with the kernel's correlation id. */
static void shipped_partners(void **state) {
    (void)state;
    size_t len;
    char *exp = read_file(OVTRACE_TESTDATA "/moe-ep/expected.txt", &len);
    assert_non_null(exp);
    char *line = strstr(exp, "\nlinks0 ");
    assert_non_null(line);
    line += 8;
    Trace *t = load1(OVTRACE_TESTDATA "/moe-ep/rank0.json");
    size_t checked = 0;
    for (char *p = line; *p && *p != '\n';) {
        char *colon = strchr(p, ':'), *end = p + strcspn(p, " \n");
        assert_true(colon && colon < end);
        uint32_t corr = (uint32_t)strtoul(p, NULL, 10);
        char api[64];
        snprintf(api, sizeof api, "%.*s", (int)(end - colon - 1), colon + 1);
        size_t k = SIZE_MAX;
        for (size_t i = 0; i < t->n_events && k == SIZE_MAX; i++)
            if (t->lanes[t->events[i].lane].gpu && t->events[i].corr == corr) k = i;
        assert_true(k != SIZE_MAX);
        size_t l = Trace_partner(t, k);
        if (l == SIZE_MAX || t->events[l].corr != corr || strcmp(Trace_name(t, &t->events[l]), api))
            fail_msg("GPU op corr %u: launched by %s (corr %u), want %s", corr,
                     l == SIZE_MAX ? "nothing" : Trace_name(t, &t->events[l]), l == SIZE_MAX ? 0 : t->events[l].corr,
                     api);
        checked++;
        if (*end != ' ') break; /* the end of the line */
        p = end + 1;
    }
    assert_true(checked >= 150);
    Trace_free(t);
    free(exp);
}

static void deepseek_partners(void **state) {
    (void)state;
    if (access(OVTRACE_DEEPSEEK, R_OK) != 0) skip();
    Trace *t = load1(OVTRACE_DEEPSEEK);
    size_t kernels = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->kind != KIND_KERNEL) continue;
        kernels++;
        size_t p = Trace_partner(t, i);
        if (p == SIZE_MAX) fail_msg("kernel %zu (corr %u) has no launch", i, e->corr);
        const TraceEvent *l = &t->events[p];
        if ((l->kind != KIND_RUNTIME && l->kind != KIND_DRIVER) || l->corr != e->corr)
            fail_msg("kernel corr %u launched by %s corr %u", e->corr, Trace_name(t, l), l->corr);
    }
    assert_int_equal(kernels, 963);
    /* export --with-launches of every kernel: exactly the runtime calls with their ids */
    ExportFilter f = ExportFilter_all();
    f.class_mask = (1u << CLASS_COMPUTE) | (1u << CLASS_COMM);
    f.with_launches = true;
    ExportResult res;
    export_ok(t, &f, path_in("ds-launches.json"), &res);
    Trace *b = load1(path_in("ds-launches.json"));
    size_t k = 0, launches = 0, setattr = 0;
    uint32_t *want = calloc(b->n_events, sizeof *want); /* correlation ids of kept GPU ops */
    size_t n_want = 0;
    for (size_t i = 0; i < b->n_events; i++) {
        const TraceEvent *e = &b->events[i];
        if (b->lanes[e->lane].gpu) want[n_want++] = e->corr;
        k += e->kind == KIND_KERNEL;
    }
    qsort(want, n_want, sizeof *want, cmp_u32);
    for (size_t i = 0; i < b->n_events; i++) {
        const TraceEvent *e = &b->events[i];
        if (e->kind != KIND_RUNTIME && e->kind != KIND_DRIVER) continue;
        launches++;
        setattr += !strcmp(Trace_name(b, e), "cudaFuncSetAttribute");
        if (!bsearch(&e->corr, want, n_want, sizeof *want, cmp_u32))
            fail_msg("exported %s corr %u launches no kept GPU op", Trace_name(b, e), e->corr);
    }
    assert_int_equal(k, 963);
    assert_int_equal(setattr, 0);
    for (size_t i = 0; i < b->n_events; i++) /* every GPU op came with its own launch */
        if (b->events[i].kind == KIND_KERNEL) {
            size_t p = Trace_partner(b, i);
            assert_true(p != SIZE_MAX && b->events[p].corr == b->events[i].corr);
        }
    assert_true(launches >= 963);
    free(want);
    Trace_free(b);
    Trace_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixture_partners),
        cmocka_unit_test(fixture_export),
        cmocka_unit_test(shipped_partners),
        cmocka_unit_test(deepseek_partners),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
