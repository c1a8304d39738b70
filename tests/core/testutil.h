/* Helpers for core tests: load a trace from a string through a temp file. */
#ifndef OVTRACE_TESTUTIL_H
#define OVTRACE_TESTUTIL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "ovtrace/read/load.h"
#include "ovtrace/model/trace.h"

/* data compressed in memory: gzip (zstd false) or zstd at the given level; malloc'd. */
static inline char *tu_compress(const char *data, size_t n, bool zstd, int level, size_t *out_n) {
    if (zstd) {
        size_t cap = ZSTD_compressBound(n);
        char *out = malloc(cap);
        *out_n = ZSTD_compress(out, cap, data, n, level);
        assert_false(ZSTD_isError(*out_n));
        return out;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, n) + 64;
    char *out = malloc(cap);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* Writes n bytes to a fresh temp file; returns its path (static buffer per call slot). */
static inline char *tu_write(const void *data, size_t n, const char *suffix) {
    static char paths[16][256];
    static int slot;
    char *p = paths[slot++ % 16];
    snprintf(p, 256, "/tmp/ovtrace-test-XXXXXX%s", suffix ? suffix : "");
    int fd = mkstemps(p, suffix ? (int)strlen(suffix) : 0);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
    return p;
}

static inline Trace *tu_load(const char *json, char *err, size_t errlen) {
    char *p = tu_write(json, strlen(json), ".json");
    const char *paths[] = {p};
    Trace *t = Load_files(paths, 1, NULL, err, errlen);
    unlink(p);
    return t;
}

/* Loads json that must succeed. */
static inline Trace *tu_load_ok(const char *json) {
    char err[512] = "";
    Trace *t = tu_load(json, err, sizeof err);
    if (!t) fail_msg("load failed: %s", err);
    return t;
}

/* Index of the first event with this name, or -1. */
static inline long tu_find(const Trace *t, const char *name) {
    for (size_t i = 0; i < t->n_events; i++)
        if (!strcmp(Trace_name(t, &t->events[i]), name)) return (long)i;
    return -1;
}

static inline int tu_skip_if_missing(const char *path) {
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "skipping: %s not found\n", path);
        return 1;
    }
    return 0;
}

#endif
