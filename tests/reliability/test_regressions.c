/* Regression tests for the bugs the fuzzers found (docs/reliability.md, "Findings").
 * The crashing inputs themselves are replayed by reliability.replay.* (under UBSan in
 * tests/sanitize.sh); these tests pin the intended behaviour in any build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/write/export.h"
#include "ovtrace/read/load.h"
#include "ovtrace/model/timeunits.h"

/* fuzz_time-formatus-overflow: Time_formatUs(ns) rounds without computing ns - 500 (or
 * ns + 500), a signed overflow near INT64_MIN/INT64_MAX. */
static void formatus_limits(void **state) {
    (void)state;
    char buf[64];
    Time_formatUs(buf, sizeof buf, INT64_MIN + 3);
    assert_string_equal(buf, "-9,223,372,036,854,776");
    Time_formatUs(buf, sizeof buf, INT64_MAX);
    assert_string_equal(buf, "9,223,372,036,854,776");
    Time_formatUs(buf, sizeof buf, INT64_MIN);
    assert_string_equal(buf, "-9,223,372,036,854,776");
    /* rounding half away from zero is unchanged */
    Time_formatUs(buf, sizeof buf, 1499);
    assert_string_equal(buf, "1");
    Time_formatUs(buf, sizeof buf, 1500);
    assert_string_equal(buf, "2");
    Time_formatUs(buf, sizeof buf, -1500);
    assert_string_equal(buf, "-2");
    Time_formatUs(buf, sizeof buf, -1499);
    assert_string_equal(buf, "-1");
    Time_formatUs(buf, sizeof buf, 113030000);
    assert_string_equal(buf, "113,030");
}

/* fuzz_time-range-origin-overflow: a relative bound added to the origin is checked for
 * overflow ("9000000s:" against an epoch-scale origin). */
static void range_relative_overflow(void **state) {
    (void)state;
    int64_t t0, t1;
    char err[256] = "";
    const int64_t origin = 1740461679471346000;
    assert_false(Time_parseRange("9000000000s:", origin, &t0, &t1, err, sizeof err));
    assert_non_null(strstr(err, "out of range"));
    err[0] = '\0';
    assert_false(Time_parseRange(":-9223372036s", -origin, &t0, &t1, err, sizeof err));
    assert_non_null(strstr(err, "out of range"));
    /* in range: unchanged */
    assert_true(Time_parseRange("10ms:20ms", origin, &t0, &t1, err, sizeof err));
    assert_int_equal(t0, origin + 10000000);
    assert_int_equal(t1, origin + 20000000);
    assert_true(Time_parseRange("@5us:", origin, &t0, &t1, err, sizeof err));
    assert_int_equal(t0, 5000);
    assert_int_equal(t1, INT64_MAX);
}

/* fuzz_export-qsort-null: an export whose filter keeps no event must not call
 * qsort(NULL, 0, ...) while writing metadata (UB); it writes a valid empty trace. */
static void export_nothing_kept(void **state) {
    (void)state;
    const char *paths[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    char err[1024];
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    assert_non_null(t);
    ExportFilter f = ExportFilter_all();
    f.name_re = "^this matches nothing$";
    f.merge = true;
    char dir[] = "/tmp/ovtrace-rel-XXXXXX", out[128];
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/empty.json", dir);
    ExportResult res;
    assert_true(Export_run(t, &f, out, &res, err, sizeof err));
    assert_int_equal(res.events_written, 0);
    /* and it loads back as a trace with no events: a clear error, not a crash */
    const char *back[] = {out};
    Trace *t2 = Load_files(back, 1, NULL, err, sizeof err);
    if (t2) Trace_free(t2);
    else assert_non_null(strstr(err, "no trace events"));
    unlink(out);
    rmdir(dir);
    Trace_free(t);
}

/* fuzz_rules-regcomp-exponential: glibc's regcomp takes memory exponential in stacked
 * or nested repetition ("l+++++++++++++++++++++++++++++_" ran the fuzzer out of 2 GB;
 * 20 levels of "(...)+" take 850 MB). Such patterns are refused with a message, in
 * rules files and in export's --name/--exclude; ordinary patterns are unaffected. */
static void regex_exponential_refused(void **state) {
    (void)state;
    char err[512] = "";
    CommRules *r = CommRules_empty();
    assert_false(CommRules_addLine(r, "comm-stream nl+++++++++++++++++++++++++++++_", err, sizeof err));
    assert_non_null(strstr(err, "stacked repetition"));
    /* fuzz_export-regcomp-stacked-timeout: under the size bound, yet over 10 s in glibc */
    assert_false(CommRules_addLine(r, "comm \xa0*++++++z~?+", err, sizeof err));
    assert_non_null(strstr(err, "stacked repetition"));
    assert_false(CommRules_addLine(r, "comm a*+", err, sizeof err));
    assert_false(CommRules_addLine(r, "comm a?{2}", err, sizeof err));
    char nested[256] = "comm ";
    for (int i = 0; i < 20; i++) strcat(nested, "(");
    strcat(nested, "a");
    for (int i = 0; i < 20; i++) strcat(nested, ")+");
    assert_false(CommRules_addLine(r, nested, err, sizeof err));
    assert_non_null(strstr(err, "too much repetition")); /* the size estimate, no stacking */
    assert_false(CommRules_addLine(r, "comm ((a{100}){100}){100}", err, sizeof err));
    assert_false(CommRules_addLine(r, "comm a{99999}{99999}", err, sizeof err));
    /* an unterminated [: class inside a bracket must not end the estimate early */
    assert_false(CommRules_addLine(r, "comm l++++++++++++++++++++++++++:(i)[:(ine-[:(]", err, sizeof err));
    assert_false(CommRules_addLine(r, "comm [:a++++++++++++++++++++++++++", err, sizeof err));
    assert_false(CommRules_addLine(r, "comm a{2,x++++++++++++++++++++++++++", err, sizeof err));
    /* fuzz_export-regcomp-slow-closure: stacked + after '?' twice, 13 each: ~30k nodes,
     * quadratic closures (11 s under ASan, 3.5 GB without at 13) */
    assert_false(CommRules_addLine(r, "comm a+++++++++++++~b?+++++++++++++", err, sizeof err));
    assert_false(CommRules_addLine(r, "comm a++++++++++~b?++++++++++", err, sizeof err));
    /* fuzz_export-regex-refuse-long-bound: a bound with 6+ digits looped forever in the
     * estimator (it stopped consuming digits once saturated) */
    assert_false(CommRules_addLine(r, "comm x{2000000000000000000000000000,3}", err, sizeof err));
    assert_false(CommRules_addLine(r, "comm x{1,2000000000000000000000}", err, sizeof err));
    /* a lone '[' at the end: the estimator itself read past the pattern (fuzzed, ASan) */
    assert_false(CommRules_addLine(r, "comm [", err, sizeof err));
    assert_false(CommRules_addLine(r, "comm a[^", err, sizeof err));
    /* ordinary patterns still compile */
    const char *ok[] = {"comm ^(void )?(nccl|rccl)", "comm (dpsk::ep|deep_ep)::[A-Za-z_]+::(dispatch|combine)[<(]",
                        "not-comm gemm|Gemm+", "comm-stream ^(7|9|1[0-9])$", "comm [[:alpha:]]{2,8}x?y*",
                        "comm a{1,200}", "comm (ab+c*){3}", "comm \\(+", "comm [+*]+"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!CommRules_addLine(r, ok[i], err, sizeof err)) fail_msg("'%s' refused: %s", ok[i], err);
    CommRules_free(r);
    r = CommRules_default();
    CommRules_free(r);

    const char *paths[] = {OVTRACE_TESTDATA "/kineto-2node.json"};
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    assert_non_null(t);
    ExportFilter f = ExportFilter_all();
    f.name_re = "x++++++++++++++++++++++++++++++";
    f.merge = true;
    ExportResult res;
    err[0] = '\0';
    assert_false(Export_run(t, &f, "/tmp/ovtrace-never-written.json", &res, err, sizeof err));
    assert_non_null(strstr(err, "--name"));
    assert_int_equal(access("/tmp/ovtrace-never-written.json", F_OK), -1);
    Trace_free(t);
}

/* reliability.malformed under UBSan: loading an empty directory must not call
 * qsort(NULL + 0, 0); it fails with "no *.json ... files in directory". */
static void load_empty_directory(void **state) {
    (void)state;
    char dir[] = "/tmp/ovtrace-rel-empty-XXXXXX", err[512] = "";
    assert_non_null(mkdtemp(dir));
    const char *paths[] = {dir};
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    assert_null(t);
    assert_non_null(strstr(err, "no *.json"));
    rmdir(dir);
}

/* fuzz_export-basetime-cast: "baseTimeNanoseconds": 1.7e19 does not fit int64 (a cast
 * would be UB, float-cast-overflow): out-of-range values are ignored. */
static void basetime_out_of_range(void **state) {
    (void)state;
    char path[] = "/tmp/ovtrace-rel-bt-XXXXXX.json", err[512];
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    const char *json = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1}],"
                       "\"baseTimeNanoseconds\":17122000000000000000}";
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    const char *paths[] = {path};
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(t->sources[0].base_time_ns, 0);
    Trace_free(t);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formatus_limits),
        cmocka_unit_test(range_relative_overflow),
        cmocka_unit_test(export_nothing_kept),
        cmocka_unit_test(regex_exponential_refused),
        cmocka_unit_test(load_empty_directory),
        cmocka_unit_test(basetime_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
