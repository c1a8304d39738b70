/* Helpers for the live tests: simulate synchronously into a store, save, reload. */
#ifndef LIVE_TEST_UTIL_H
#define LIVE_TEST_UTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/live/live.h"
#include "ovtrace/read/load.h"
#include "ovtrace/analysis/overlap.h"

static void add_to_store(const RingRecord *rec, const char *name, void *ctx) { LiveStore_add(ctx, rec, name); }

/* Simulates `steps` steps of cfg into a fresh store (marked simulated). */
static inline LiveStore *simulate_store(const SimConfig *cfg, uint64_t steps) {
    LiveStoreConfig sc;
    LiveStoreConfig_default(&sc);
    sc.simulated = true;
    sc.retention_ns = -1;
    LiveStore *s = LiveStore_new(NULL, &sc);
    Simulator_describe(cfg, s);
    char err[256] = "";
    bool ok = Simulator_run(cfg, steps, add_to_store, s, err, sizeof err);
    if (!ok) fail_msg("Simulator_run: %s", err);
    return s;
}

static inline char *tmp_path(const char *suffix) {
    static int n;
    char *p = malloc(512);
    const char *dir = getenv("TMPDIR");
    snprintf(p, 512, "%s/ovtrace-live-test-%ld-%d%s", dir && *dir ? dir : "/tmp", (long)getpid(), n++, suffix);
    return p;
}

static inline Trace *load_one(const char *path) {
    char err[512] = "";
    const char *paths[1] = {path};
    Trace *t = Load_files(paths, 1, NULL, err, sizeof err);
    if (!t) fail_msg("load %s: %s", path, err);
    return t;
}

/* Saves the store to a temporary .json.zst, reloads it and returns the model. */
static inline Trace *roundtrip(LiveStore *s, const char *suffix) {
    char *p = tmp_path(suffix);
    char err[512] = "";
    if (!LiveStore_save(s, p, err, sizeof err)) fail_msg("save: %s", err);
    Trace *t = load_one(p);
    unlink(p);
    free(p);
    return t;
}

static inline double total_ratio(const Trace *t, int64_t *compute, int64_t *comm) {
    OverlapFilter f = OverlapFilter_all();
    OverlapReport *R = Overlap_compute(t, &f);
    double r = R->total.ratio;
    if (compute) *compute = R->total.compute;
    if (comm) *comm = R->total.comm;
    OverlapReport_free(R);
    return r;
}

#endif
