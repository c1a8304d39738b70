/* Fuzz target: `ovtrace export` filters (--name/--exclude regexes, --range,
 * --class, --min-dur, --rank/--device/--stream, --with-launches, --merge) and the
 * export writer, which re-reads and copies each kept event's bytes from the source.
 * Input: byte 0 = flags, then lines "NAME_RE\nEXCLUDE_RE\nRANGE\nCLASSES\nMIN_DUR\n",
 * then a trace (plain JSON; if empty, tests/data/kineto-2node.json). Output goes to
 * stdout, which is /dev/null here, and to a gzip/zstd encoder now and then. */
#include <fcntl.h>

#include "fuzz_common.h"
#include "ovtrace/write/export.h"
#include "ovtrace/model/timeunits.h"

#ifndef FUZZ_DEFAULT_TRACE
#error FUZZ_DEFAULT_TRACE must name a small trace
#endif

#define MAX_RE 64 /* glibc regex is exponential on some patterns: keep the fuzzer on our code */

static Trace *g_default;
static char g_tmpdir[] = "/tmp/ovtrace-fuzz-export-XXXXXX";

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull < 0 || dup2(devnull, STDOUT_FILENO) < 0) abort();
    close(devnull);
    const char *paths[] = {FUZZ_DEFAULT_TRACE};
    char err[512];
    g_default = Load_files(paths, 1, NULL, err, sizeof err);
    if (!g_default) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    if (!mkdtemp(g_tmpdir)) abort();
    return 0;
}

static const char *next_line(const char **p, const char *end, char *buf, size_t cap) {
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl) return NULL;
    size_t n = (size_t)(nl - *p);
    if (n >= cap) n = cap - 1;
    memcpy(buf, *p, n);
    buf[n] = '\0';
    *p = nl + 1;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t flags = data[0];
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    char name_re[MAX_RE + 1], exc_re[MAX_RE + 1], range[160], classes[64], min_dur[64];
    if (!next_line(&p, end, name_re, sizeof name_re) || !next_line(&p, end, exc_re, sizeof exc_re) ||
        !next_line(&p, end, range, sizeof range) || !next_line(&p, end, classes, sizeof classes) ||
        !next_line(&p, end, min_dur, sizeof min_dur))
        return 0;

    Trace *t = g_default;
    int fd = -1;
    if (p < end) {
        fd = fz_memfd(p, (size_t)(end - p));
        char path[64], err[512];
        fz_fdpath(fd, path, sizeof path);
        const char *paths[] = {path};
        t = Load_files(paths, 1, NULL, err, sizeof err);
        if (!t) {
            close(fd);
            return 0;
        }
    }

    ExportFilter f = ExportFilter_all();
    f.name_re = name_re[0] ? name_re : NULL;
    f.exclude_re = exc_re[0] ? exc_re : NULL;
    char err[1024];
    if (range[0] && !Time_parseRange(range, t->t_min, &f.t0, &f.t1, err, sizeof err)) goto out;
    for (char *save = NULL, *tok = strtok_r(classes, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int c = EventClass_parse(tok);
        if (c >= 0) f.class_mask |= 1u << c;
    }
    if (min_dur[0] && !Time_parseDuration(min_dur, 1000, &f.min_dur, err, sizeof err)) goto out;
    if (flags & 1) f.rank = (flags >> 4) & 3;
    if (flags & 2) f.device = (flags >> 6) & 3;
    if (flags & 4) f.stream = (flags >> 4) & 15;
    f.with_launches = flags & 8;
    f.merge = true;
    f.description = name_re;
    ExportResult res;
    err[0] = '\0';
    const char *out = "-";
    char path[300];
    if ((flags & 0x30) == 0x30) { /* now and then a real compressed file: temp + rename */
        snprintf(path, sizeof path, "%s/out.json%s", g_tmpdir, flags & 0x40 ? ".gz" : ".zst");
        out = path;
    }
    if (!Export_run(t, &f, out, &res, err, sizeof err) && !err[0]) abort(); /* failures explain */
    if (out == path) unlink(path);
out:
    if (t != g_default) Trace_free(t);
    if (fd >= 0) close(fd);
    return 0;
}
