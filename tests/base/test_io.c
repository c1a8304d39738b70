/* The base layer's IO part: file and path helpers, Regex_compile, Parse_i64 and the
 * compressed-output writer (round trips through zlib and zstd, several frames, a sink
 * that fails). Expected values are written by hand from the headers' contracts. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cmocka.h>

#include "ovtrace/base/file.h"
#include "ovtrace/base/parse.h"
#include "ovtrace/base/regex.h"
#include "ovtrace/base/zwriter.h"

static void paths(void **state) {
    (void)state;
    assert_string_equal(Path_base("a/b/c.json"), "c.json");
    assert_string_equal(Path_base("c.json"), "c.json");
    assert_string_equal(Path_base("/c"), "c");
    const char *cases[][2] = {{"a/b/c", "a/b"}, {"c", "."}, {"/c", "/"}, {"/x/y", "/x"}, {"d/", "d"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *d = Path_dir(cases[i][0]);
        assert_string_equal(d, cases[i][1]);
        free(d);
    }
    assert_true(Path_isTrace("r.json") && Path_isTrace("r.json.gz") && Path_isTrace("r.json.zst"));
    assert_true(Path_isTrace("r.sqlite")); /* an Nsight Systems export */
    assert_false(Path_isTrace(".json") || Path_isTrace("r.gz") || Path_isTrace("r.json.bak") || Path_isTrace("json"));
}

static void touch(const char *dir, const char *name) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
}

static void dir_list(void **state) {
    (void)state;
    char dir[] = "/tmp/ovtrace-base-io-XXXXXX";
    assert_non_null(mkdtemp(dir));
    size_t n = 99;
    char **l = Dir_traceFiles(dir, &n);
    assert_non_null(l); /* empty, not an error */
    assert_int_equal(n, 0);
    Dir_freeList(l, n);
    const char *names[] = {"rank1.json.zst", "rank0.json", ".hidden.json", "notes.txt", "rank10.json.gz", "rank2.json"};
    for (size_t i = 0; i < 6; i++) touch(dir, names[i]);
    l = Dir_traceFiles(dir, &n);
    assert_int_equal(n, 4);
    /* natural order: rank2 before rank10 (strcmp would put it last) */
    const char *want[] = {"rank0.json", "rank1.json.zst", "rank2.json", "rank10.json.gz"};
    for (size_t i = 0; i < 4; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, want[i]);
        assert_string_equal(l[i], p);
    }
    Dir_freeList(l, n);
    /* a trailing slash (shell completion's traces/) adds no second one */
    char slashed[600];
    snprintf(slashed, sizeof slashed, "%s/", dir);
    l = Dir_traceFiles(slashed, &n);
    assert_int_equal(n, 4);
    char p0[512];
    snprintf(p0, sizeof p0, "%s/%s", dir, want[0]);
    assert_string_equal(l[0], p0);
    Dir_freeList(l, n);
    for (size_t i = 0; i < 6; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
    errno = 0;
    assert_null(Dir_traceFiles(dir, &n));
    assert_int_equal(errno, ENOENT);
}

static void write_all(void **state) {
    (void)state;
    char path[] = "/tmp/ovtrace-base-io-w-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(File_writeAll(fd, "hello world", 11, -1));
    assert_true(File_writeAll(fd, "W", 1, 6)); /* positional: the position is not moved */
    assert_true(File_writeAll(fd, "!", 1, -1));
    char buf[32] = {0};
    assert_int_equal(pread(fd, buf, sizeof buf, 0), 12);
    assert_string_equal(buf, "hello World!");
    close(fd);
    unlink(path);
    int full = open("/dev/full", O_WRONLY);
    if (full >= 0) {
        errno = 0;
        assert_false(File_writeAll(full, "x", 1, -1));
        assert_int_equal(errno, ENOSPC);
        close(full);
    }
}

static void parse(void **state) {
    (void)state;
    int64_t v = 7;
    assert_true(Parse_i64("-42", &v) && v == -42);
    assert_true(Parse_i64("0", &v) && v == 0);
    assert_false(Parse_i64("", &v) || Parse_i64("12x", &v) || Parse_i64("1.5", &v) || Parse_i64("x", &v));
    assert_int_equal(v, 0);
}

/* Parse_bytes: the one size syntax (--max-token, serve --mem-cap). */
static void parse_bytes(void **state) {
    (void)state;
    uint64_t b = 7;
    assert_true(Parse_bytes("1073741824", &b) && b == 1073741824ULL);
    assert_true(Parse_bytes("0", &b) && b == 0);
    assert_true(Parse_bytes("64M", &b) && b == 64ULL << 20);
    assert_true(Parse_bytes("64m", &b) && b == 64ULL << 20);
    assert_true(Parse_bytes("512KiB", &b) && b == 512ULL << 10);
    assert_true(Parse_bytes("512kB", &b) && b == 512ULL << 10);
    assert_true(Parse_bytes("10GiB", &b) && b == 10ULL << 30);
    assert_true(Parse_bytes("1.5G", &b) && b == 3ULL << 29);
    assert_true(Parse_bytes("2T", &b) && b == 2ULL << 40);
    assert_true(Parse_bytes("0.5K", &b) && b == 512);
    assert_true(Parse_bytes("100B", &b) && b == 100);
    assert_true(Parse_bytes("4611686018427387904", &b) && b == 1ULL << 62); /* the limit */
    b = 7;
    const char *bad[] = {"", "-1", "+1", " 1", "1 ", "1.5", "1.", ".5K", "1X", "1KiBB", "1iB", "K", "1e3",
                         "4611686018427387905", "4194305T", "99999999999999999999999", "1Ki B", "1.5.5G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (Parse_bytes(bad[i], &b)) fail_msg("'%s' accepted as %llu", bad[i], (unsigned long long)b);
    }
    assert_int_equal(b, 7); /* untouched on failure */
}

static void regex(void **state) {
    (void)state;
    regex_t re;
    char err[256];
    assert_true(Regex_compile(&re, "^nccl|all_?reduce", REG_EXTENDED | REG_NOSUB, "bad regex", err, sizeof err));
    assert_int_equal(regexec(&re, "ncclKernel", 0, NULL, 0), 0);
    assert_int_not_equal(regexec(&re, "gemm", 0, NULL, 0), 0);
    regfree(&re);
    assert_false(Regex_compile(&re, "a++", REG_EXTENDED, "--step", err, sizeof err));
    assert_true(!strncmp(err, "--step 'a++': stacked repetition", 32));
    assert_false(Regex_compile(&re, "(((((((((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)", REG_EXTENDED,
                               "bad regex", err, sizeof err));
    assert_non_null(strstr(err, "too much repetition"));
    assert_false(Regex_compile(&re, "(ab", REG_EXTENDED, "bad name regular expression", err, sizeof err));
    assert_true(!strncmp(err, "bad name regular expression '(ab': ", 35));
    assert_true(strlen(err) > 35); /* regerror's text follows */
}

/* zlib's multi-member gzip, or zstd's concatenated frames, back to text */
static char *decode(ZComp c, const char *p, size_t n, size_t *out_n, size_t *members) {
    size_t cap = 64u << 20;
    char *o = malloc(cap);
    *members = 0;
    if (c == ZCOMP_PLAIN) {
        memcpy(o, p, n);
        *out_n = n;
        *members = 1;
    } else if (c == ZCOMP_ZSTD) {
        *out_n = ZSTD_decompress(o, cap, p, n);
        assert_false(ZSTD_isError(*out_n));
        for (size_t at = 0; at < n; (*members)++) {
            size_t f = ZSTD_findFrameCompressedSize(p + at, n - at);
            assert_false(ZSTD_isError(f));
            /* the frame header descriptor after the magic: bit 2 is Content_Checksum_flag */
            assert_true((unsigned char)p[at + 4] >> 2 & 1); /* every frame carries its checksum */
            at += f;
        }
    } else {
        z_stream z;
        memset(&z, 0, sizeof z);
        assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
        z.next_in = (Bytef *)p;
        z.avail_in = (uInt)n;
        z.next_out = (Bytef *)o;
        z.avail_out = (uInt)cap;
        for (;;) {
            int rc = inflate(&z, Z_NO_FLUSH);
            assert_true(rc == Z_OK || rc == Z_STREAM_END);
            if (rc == Z_STREAM_END) {
                (*members)++;
                if (!z.avail_in) break;
                inflateReset(&z);
            }
        }
        *out_n = cap - z.avail_out;
        inflateEnd(&z);
    }
    return o;
}

static void zwriter_round_trip(void **state) {
    (void)state;
    /* 3 MB of text over 100 writes: more than the compressor's output buffer */
    size_t n = 3u << 20;
    char *text = malloc(n);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        text[i] = (char)(i % 97 == 96 ? '\n' : 'a' + (x >> 16) % 7);
    }
    const ZComp comps[] = {ZCOMP_PLAIN, ZCOMP_GZIP, ZCOMP_ZSTD};
    for (size_t c = 0; c < 3; c++) {
        ZBuf b = {0};
        ZWriter w;
        char err[128];
        assert_true(ZWriter_open(&w, comps[c], ZSink_buf, &b, err, sizeof err));
        size_t half = n / 2, step = half / 50;
        for (size_t at = 0; at < half; at += step) assert_true(ZWriter_write(&w, text + at, half - at < step ? half - at : step));
        assert_true(ZWriter_endFrame(&w)); /* a record checkpoint: complete so far */
        size_t first = b.len, got, members;
        char *d = decode(comps[c], b.p, first, &got, &members);
        assert_int_equal(got, half);
        assert_memory_equal(d, text, half);
        free(d);
        /* a frame begun by a write and ended by ZWriter_frame, then a whole frame at once */
        size_t third = half + (n - half) / 2;
        assert_true(ZWriter_write(&w, text + half, 1000));
        assert_true(ZWriter_frame(&w, text + half + 1000, third - half - 1000));
        assert_true(ZWriter_frame(&w, text + third, n - third));
        assert_true(ZWriter_endFrame(&w)); /* an empty frame adds nothing to the text */
        ZWriter_free(&w);
        d = decode(comps[c], b.p, b.len, &got, &members);
        assert_int_equal(got, n);
        assert_memory_equal(d, text, n);
        if (comps[c] != ZCOMP_PLAIN) assert_true(members >= 3 && members <= 4);
        if (comps[c] != ZCOMP_PLAIN) assert_true(b.len < n / 2); /* compressed */
        free(d);
        free(b.p);
    }
    free(text);
    assert_int_equal(ZComp_forPath("a.json.gz"), ZCOMP_GZIP);
    assert_int_equal(ZComp_forPath("a.zst"), ZCOMP_ZSTD);
    assert_int_equal(ZComp_forPath("a.json"), ZCOMP_PLAIN);
    assert_int_equal(ZComp_forPath("gz"), ZCOMP_PLAIN);
}

static void zwriter_sink_fails(void **state) {
    (void)state;
    int full = open("/dev/full", O_WRONLY);
    if (full < 0) skip();
    const ZComp comps[] = {ZCOMP_PLAIN, ZCOMP_GZIP, ZCOMP_ZSTD};
    for (size_t c = 0; c < 3; c++) {
        ZWriter w;
        char err[128];
        assert_true(ZWriter_open(&w, comps[c], ZSink_fd, (void *)(intptr_t)full, err, sizeof err));
        bool ok = ZWriter_write(&w, "{\"traceEvents\":[]}", 18);
        ok = ok && ZWriter_endFrame(&w); /* a small frame reaches the sink at its end */
        assert_false(ok);
        assert_true(w.failed);
        assert_string_equal(w.err, "write failed: No space left on device");
        assert_false(ZWriter_write(&w, "x", 1)); /* stays failed */
        ZWriter_free(&w);
    }
    close(full);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths),
        cmocka_unit_test(dir_list),
        cmocka_unit_test(write_all),
        cmocka_unit_test(parse),
        cmocka_unit_test(parse_bytes),
        cmocka_unit_test(regex),
        cmocka_unit_test(zwriter_round_trip),
        cmocka_unit_test(zwriter_sink_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
