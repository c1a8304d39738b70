/* Shared helpers for the libFuzzer targets. The loader memory-maps files, so fuzz
 * data is handed to it through an anonymous memfd opened by path
 * (/proc/self/fd/N): no disk I/O, no temp files to clean up, and the exact same
 * code path (open, fstat, magic sniffing, mmap or streaming) as a real file. */
#ifndef OVTRACE_FUZZ_COMMON_H
#define OVTRACE_FUZZ_COMMON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ovtrace/read/args.h"
#include "ovtrace/read/input.h"
#include "ovtrace/read/load.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"

/* zstd's default window limit (128 MB) instead of ovtrace's 2 GB: under ASan a 2 GB
 * window costs seconds per input (its shadow is poisoned on every allocation), which
 * would stall every session on the --long=31 seed and its mutants. Such frames then
 * fail with the decoder's error, which the targets accept. */
__attribute__((constructor)) static void fz_zstd_window(void) { Input_zstdWindowLogMax = 27; }

/* An fd holding exactly data[0..n), rewound. Aborts on failure (not a finding). */
static inline int fz_memfd(const void *data, size_t n) {
    int fd = memfd_create("ovtrace-fuzz", MFD_CLOEXEC);
    if (fd < 0) abort();
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) abort();
        p += w;
        n -= (size_t)w;
    }
    return fd;
}

static inline void fz_fdpath(int fd, char *buf, size_t n) { snprintf(buf, n, "/proc/self/fd/%d", fd); }

/* Everything a loaded trace offers to its users, exercised once: the overlap report
 * (what `stats` prints), per-device bands, lane queries, partners, args fetches. */
static inline void fz_exercise(const Trace *t) {
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *r = Overlap_compute(t, &f);
    if (!r) abort();
    OverlapReport_free(r);
    if (t->n_events) {
        /* a window in the middle of the trace, and a per-rank view */
        f.t0 = t->t_min + (t->t_max - t->t_min) / 4;
        f.t1 = t->t_max - (t->t_max - t->t_min) / 4;
        f.rank = t->lanes[t->events[0].lane].rank;
        r = Overlap_compute(t, &f);
        OverlapReport_free(r);
    }
    int64_t band[16 * BAND__COUNT];
    for (size_t g = 0; g < t->n_groups && g < 4; g++)
        if (t->groups[g].gpu) Overlap_band(t, (uint32_t)g, t->t_min, t->t_max + 1, 16, band);
    for (size_t i = 0; i < t->n_rows; i++) (void)Row_lowerBound(t, &t->rows[i], t->t_min + (t->t_max - t->t_min) / 2);
    size_t step = t->n_events / 8 + 1;
    for (size_t i = 0; i < t->n_events; i += step) {
        (void)Trace_laneOf(t, i);
        (void)Trace_partner(t, i);
        (void)Trace_name(t, &t->events[i]);
        char err[256];
        size_t len;
        char *raw = Args_fetchRaw(t, i, &len, err, sizeof err);
        free(raw);
    }
    (void)Trace_memoryBytes(t);
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        Load_printWarnings(t, devnull, "");
        fclose(devnull);
    }
}

/* Loads data as a file and exercises the result. */
static inline void fz_load_bytes(const void *data, size_t n) {
    int fd = fz_memfd(data, n);
    char path[64], err[1024];
    fz_fdpath(fd, path, sizeof path);
    const char *paths[] = {path};
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    if (t) {
        fz_exercise(t);
        Trace_free(t);
    } else if (!err[0]) {
        fprintf(stderr, "load failed without a message\n");
        abort();
    }
    close(fd);
}

#endif
