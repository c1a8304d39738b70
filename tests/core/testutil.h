/* Helpers for core tests: load a trace from a string through a temp file. */
#ifndef OVTRACE_TESTUTIL_H
#define OVTRACE_TESTUTIL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ovtrace/load.h"
#include "ovtrace/trace.h"

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
