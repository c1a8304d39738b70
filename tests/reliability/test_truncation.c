/* Truncation sweep ("Input"): a real trace cut at 100 evenly spaced byte
 * offsets always loads exactly the events whose JSON object ends before the cut and
 * warns (diag.truncated); compressed streams cut short load the decompressible prefix
 * or fail with a clear message. The expected event sets are computed independently of
 * the loader: a small brace/string scanner finds each traceEvents object's byte span,
 * and the loaded events are matched to those spans through TraceEvent.src. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cmocka.h>

#include "ovtrace/read/load.h"
#include "ovtrace/model/trace.h"

/* ---------------------------------------------------------------- helpers */

static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

static char g_dir[] = "/tmp/ovtrace-trunc-XXXXXX";

static const char *write_tmp(const char *name, const void *data, size_t n) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
    return path;
}

/* Spans [start, end] (end = index of the closing '}') of the objects directly inside
 * the top-level "traceEvents" array (or the top-level array). Independent of the
 * loader: only strings, escapes and bracket depth are tracked. */
typedef struct {
    size_t start, end;
} Span;

static size_t event_spans(const char *s, size_t n, Span **out) {
    size_t cap = 1024, k = 0, depth = 0, arr_depth = 0, obj_start = 0;
    Span *sp = malloc(cap * sizeof *sp);
    bool in_str = false;
    size_t str_start = 0, last_key_start = 0, last_key_len = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\') i++;
            else if (c == '"') {
                in_str = false;
                last_key_start = str_start;
                last_key_len = i - str_start;
            }
            continue;
        }
        switch (c) {
        case '"':
            in_str = true;
            str_start = i + 1;
            break;
        case '[':
            depth++;
            if (!arr_depth && (depth == 1 || (depth == 2 && last_key_len == 11 &&
                                              !memcmp(s + last_key_start, "traceEvents", 11))))
                arr_depth = depth;
            break;
        case '{':
            depth++;
            if (arr_depth && depth == arr_depth + 1) obj_start = i;
            break;
        case '}':
            if (arr_depth && depth == arr_depth + 1) {
                if (k == cap) sp = realloc(sp, (cap *= 2) * sizeof *sp);
                sp[k++] = (Span){obj_start, i};
            }
            depth--;
            break;
        case ']':
            if (depth == arr_depth) arr_depth = (size_t)-1; /* done: later arrays are not events */
            depth--;
            break;
        default: break;
        }
    }
    *out = sp;
    return k;
}

/* One loaded event, comparable across loads (lane numbering and order may differ). */
typedef struct {
    uint64_t src;
    int64_t ts;
    unsigned kind;
    const char *name;
} Key;

static int cmp_key(const void *a, const void *b) {
    const Key *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return strcmp(x->name, y->name);
}

static Key *keys_of(const Trace *t) {
    Key *k = malloc((t->n_events + 1) * sizeof *k);
    for (size_t i = 0; i < t->n_events; i++)
        k[i] = (Key){t->events[i].src, t->events[i].ts, t->events[i].kind, Trace_name(t, &t->events[i])};
    qsort(k, t->n_events, sizeof *k, cmp_key);
    return k;
}

static size_t span_end_of(const Span *sp, size_t n, uint64_t start) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sp[mid].start < start) lo = mid + 1;
        else hi = mid;
    }
    if (lo < n && sp[lo].start == start) return sp[lo].end;
    fail_msg("event src %llu is not the start of a traceEvents object", (unsigned long long)start);
    return 0;
}

/* Loads path (a cut of a file whose events are full/full_keys/spans) and checks the
 * result: exactly the events whose object ended before `avail` decompressed bytes.
 * Returns the number of events loaded. */
/* Options of every load here: NULL (defaults) except in the slab variants. */
static const LoadOptions *g_opt;

static size_t check_prefix(const char *path, size_t avail, const Key *full, size_t n_full, const Span *sp,
                           size_t n_sp, bool must_warn) {
    size_t n_expect = 0;
    Key *expect = malloc((n_full + 1) * sizeof *expect);
    for (size_t i = 0; i < n_full; i++)
        if (span_end_of(sp, n_sp, full[i].src) < avail) expect[n_expect++] = full[i];
    char err[1024] = "";
    const char *paths[] = {path};
    Trace *t = Load_files(paths, 1, g_opt, err, sizeof err);
    size_t got = 0;
    if (!t) {
        /* allowed only when no complete event is there; the message names the file */
        if (n_expect) fail_msg("cut at %zu: load failed although %zu events precede it: %s", avail, n_expect, err);
        assert_non_null(strstr(err, path));
    } else {
        if (must_warn && !t->diag.truncated) fail_msg("cut at %zu: no truncation warning", avail);
        if (t->diag.truncated) assert_true(t->diag.truncated_offset <= avail);
        if (t->n_events != n_expect)
            fail_msg("cut at %zu: %zu events loaded, %zu expected", avail, t->n_events, n_expect);
        Key *k = keys_of(t);
        for (size_t i = 0; i < n_expect; i++)
            if (cmp_key(&k[i], &expect[i]))
                fail_msg("cut at %zu: event %zu differs (src %llu vs %llu)", avail, i, (unsigned long long)k[i].src,
                         (unsigned long long)expect[i].src);
        free(k);
        got = t->n_events;
        Trace_free(t);
    }
    free(expect);
    return got;
}

/* ---------------------------------------------------------------- plain sweep */

static void deepseek_sweep(void **state) {
    (void)state;
    size_t n;
    bool ds = access(OVTRACE_DEEPSEEK, R_OK) == 0;
    const char *path = ds ? OVTRACE_DEEPSEEK : OVTRACE_DEEPSEEK_LIKE; /* a plain clone: the shipped one */
    char *data = read_all(path, &n);
    if (!data) skip();
    Span *sp;
    size_t n_sp = event_spans(data, n, &sp);
    assert_true(n_sp > (ds ? 10000u : 800u));
    char err[1024];
    const char *fp[] = {path};
    Trace *full = Load_files(fp, 1, NULL, err, sizeof err);
    assert_non_null(full);
    assert_false(full->diag.truncated);
    Key *fk = keys_of(full);
    size_t loaded_some = 0;
    for (int i = 1; i <= 100; i++) {
        size_t cut = (size_t)i * n / 101;
        const char *path = write_tmp("cut.json", data, cut);
        size_t got = check_prefix(path, cut, fk, full->n_events, sp, n_sp, true);
        loaded_some += got > 0;
        unlink(path);
    }
    assert_true(loaded_some >= 95);
    free(fk);
    Trace_free(full);
    free(sp);
    free(data);
}

/* Every cut inside the first few objects, byte by byte: the boundaries (inside a
 * key, a number, an escape, between ',' and '{') are where off-by-ones live. */
static void deepseek_dense_head(void **state) {
    (void)state;
    size_t n;
    char *data = read_all(access(OVTRACE_DEEPSEEK, R_OK) == 0 ? OVTRACE_DEEPSEEK : OVTRACE_DEEPSEEK_LIKE, &n);
    if (!data) skip();
    Span *sp;
    size_t n_sp = event_spans(data, n, &sp);
    assert_true(n_sp > 12);
    /* a small trace: the first 12 events of the array, then "]}" */
    size_t head = sp[11].end + 1;
    size_t small_n = head + 3;
    char *small = malloc(small_n);
    memcpy(small, data, head);
    memcpy(small + head, "\n]}", 3);
    Span *ssp;
    size_t n_ssp = event_spans(small, small_n, &ssp);
    assert_int_equal(n_ssp, 12);
    const char *path = write_tmp("head.json", small, small_n);
    char err[1024];
    const char *fp[] = {path};
    Trace *full = Load_files(fp, 1, NULL, err, sizeof err);
    assert_non_null(full);
    Key *fk = keys_of(full);
    for (size_t cut = sp[0].start; cut < small_n; cut++) {
        path = write_tmp("cut.json", small, cut);
        check_prefix(path, cut, fk, full->n_events, ssp, n_ssp, true);
    }
    free(fk);
    Trace_free(full);
    free(ssp);
    free(small);
    free(sp);
    free(data);
}

/* ---------------------------------------------------------------- compressed cuts */

/* ~12 MB of events: more than the loader's 4 MB decompression window, so refills
 * and events straddling a window boundary are part of every cut. */
static char *synth_trace(size_t *n_out, size_t n_events) {
    size_t cap = n_events * 220 + 64, n = 0;
    char *s = malloc(cap);
    n += (size_t)sprintf(s + n, "{\"traceEvents\": [\n");
    for (size_t i = 0; i < n_events; i++)
        n += (size_t)sprintf(s + n,
                             "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%zu\",\"pid\":0,\"tid\":7,\"ts\":%zu.%03zu,"
                             "\"dur\":1.5,\"args\":{\"device\":0,\"stream\":7,\"pad\":\"%0*zu\"}}\n",
                             i ? "," : "", i, i, i % 1000, (int)(40 + i % 61), i);
    n += (size_t)sprintf(s + n, "], \"traceName\": \"synthetic\"}\n");
    *n_out = n;
    return s;
}

static size_t gzip_all(const char *in, size_t n, unsigned char **out) {
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, n) + 64;
    *out = malloc(cap);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = *out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t len = cap - z.avail_out;
    deflateEnd(&z);
    return len;
}

static size_t zstd_all(const char *in, size_t n, unsigned char **out) {
    size_t cap = ZSTD_compressBound(n);
    *out = malloc(cap);
    size_t r = ZSTD_compress(*out, cap, in, n, 3);
    assert_false(ZSTD_isError(r));
    return r;
}

/* How many decompressed bytes a cut stream yields (what any reader can recover). */
static size_t gunzip_prefix(const unsigned char *in, size_t n) {
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 15 + 32), Z_OK);
    unsigned char buf[1 << 16];
    size_t total = 0;
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    for (;;) {
        z.next_out = buf;
        z.avail_out = sizeof buf;
        int rc = inflate(&z, Z_NO_FLUSH);
        total += sizeof buf - z.avail_out;
        if (rc != Z_OK) break;
        if (z.avail_in == 0 && z.avail_out != 0) break;
    }
    inflateEnd(&z);
    return total;
}

static size_t unzstd_prefix(const unsigned char *in, size_t n) {
    ZSTD_DStream *d = ZSTD_createDStream();
    ZSTD_initDStream(d);
    unsigned char buf[1 << 16];
    ZSTD_inBuffer ib = {in, n, 0};
    size_t total = 0;
    for (;;) {
        ZSTD_outBuffer ob = {buf, sizeof buf, 0};
        size_t rc = ZSTD_decompressStream(d, &ob, &ib);
        total += ob.pos;
        if (ZSTD_isError(rc) || rc == 0) break;
        if (ib.pos == ib.size && ob.pos < ob.size) break;
    }
    ZSTD_freeDStream(d);
    return total;
}

/* ahead: decompress on the read-ahead thread (the default with 2+ cores) or inline */
static void compressed_cuts(bool zstd, bool ahead) {
    const LoadOptions *saved = g_opt;
    static LoadOptions ra;
    ra = saved ? *saved : (LoadOptions){0};
    ra.read_ahead = ahead ? 1 : -1;
    g_opt = &ra;
    size_t n;
    char *data = synth_trace(&n, 60000);
    assert_true(n > 10u << 20);
    Span *sp;
    size_t n_sp = event_spans(data, n, &sp);
    assert_int_equal(n_sp, 60000);
    unsigned char *z;
    size_t zn = zstd ? zstd_all(data, n, &z) : gzip_all(data, n, &z);
    const char *name = zstd ? "synth.json.zst" : "synth.json.gz";
    const char *path = write_tmp(name, z, zn);
    char err[1024];
    const char *fp[] = {path};
    Trace *full = Load_files(fp, 1, g_opt, err, sizeof err);
    assert_non_null(full);
    assert_int_equal(full->n_events, 60000);
    if (saved) assert_true(full->diag.parallel_slices > 50); /* the slabs were used */
    assert_false(full->diag.truncated);
    Key *fk = keys_of(full);
    /* cuts in the header, then spread over the stream, then just before the end */
    size_t cuts[] = {1, 2, 5, 11, 40, zn / 9, zn / 4, zn / 3 + 7, zn / 2, 2 * zn / 3, 5 * zn / 6, zn - 9, zn - 4, zn - 1};
    size_t prev_got = 0;
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        size_t cut = cuts[i];
        size_t avail = zstd ? unzstd_prefix(z, cut) : gunzip_prefix(z, cut);
        path = write_tmp(name, z, cut);
        size_t got = check_prefix(path, avail, fk, full->n_events, sp, n_sp, avail > 0);
        assert_true(got >= prev_got); /* longer cuts never load less */
        prev_got = got;
    }
    assert_true(prev_got > 59000);
    /* a flipped byte in the middle: a clear error naming the file, or a prefix */
    z[zn / 2] ^= 0x5a;
    path = write_tmp(name, z, zn);
    err[0] = '\0';
    Trace *t = Load_files(fp, 1, g_opt, err, sizeof err);
    if (t) Trace_free(t);
    else {
        /* the decoder notices (bad block, checksum), or the garbage it produced is a
         * JSON syntax error at a decompressed offset: either way file and place */
        fprintf(stderr, "flipped byte: %s\n", err);
        assert_non_null(strstr(err, path));
        assert_true(strstr(err, zstd ? "zstd" : "gzip") || strstr(err, "expected"));
    }
    unlink(path);
    free(fk);
    Trace_free(full);
    free(z);
    free(sp);
    free(data);
    g_opt = saved;
}

static void gzip_cuts(void **state) {
    (void)state;
    compressed_cuts(false, true);
}
static void zstd_cuts(void **state) {
    (void)state;
    compressed_cuts(true, true);
}
static void gzip_cuts_inline(void **state) {
    (void)state;
    compressed_cuts(false, false);
}
static void zstd_cuts_inline(void **state) {
    (void)state;
    compressed_cuts(true, false);
}

/* Parallel slabs (read/slabfeed.c), small so that every cut lands among many of them,
 * with more workers than cores so that slices finish out of order. */
static void slab_cuts(bool zstd) {
    LoadOptions o = {.threads = 3, .min_parallel_bytes = 1, .slab_bytes = 64 << 10, .cache = -1};
    g_opt = &o;
    compressed_cuts(zstd, false);
    g_opt = NULL;
}
static void gzip_cuts_slabs(void **state) {
    (void)state;
    slab_cuts(false);
}
static void zstd_cuts_slabs(void **state) {
    (void)state;
    slab_cuts(true);
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(g_dir) ? 0 : -1;
}
static int teardown(void **state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deepseek_sweep),
        cmocka_unit_test(deepseek_dense_head),
        cmocka_unit_test(gzip_cuts),
        cmocka_unit_test(zstd_cuts),
        cmocka_unit_test(gzip_cuts_inline),
        cmocka_unit_test(zstd_cuts_inline),
        cmocka_unit_test(gzip_cuts_slabs),
        cmocka_unit_test(zstd_cuts_slabs),
    };
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    if (rc == 0 && access(OVTRACE_DEEPSEEK, R_OK) != 0)
        fprintf(stderr, "note: %s not found: the sweeps ran on %s\n", OVTRACE_DEEPSEEK, OVTRACE_DEEPSEEK_LIKE);
    return rc;
}
