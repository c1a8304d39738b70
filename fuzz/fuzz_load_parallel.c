/* Fuzz target, differential: the speculative parallel parser (plain files cut into
 * slices parsed on worker threads, adopted only at verified element boundaries) must
 * give exactly what the single-threaded parser gives: the same success or the same
 * error message, the same events (time, duration, source offset, name, kind, class,
 * flags, depth, lane identity), lanes, flows and diagnostics. Slicing is forced on
 * small inputs (min_parallel_bytes = 1); byte 0 picks 2..5 threads, and slices of the
 * default size (one per thread on a small input) or of 64 B to 1 kB (many per thread,
 * taken in turn). The same input, zstd-compressed, must load the same single-threaded
 * and in slabs parsed by workers (read/slabfeed.c; slabs of 64 B to 1 kB, so they are
 * many). */
#include <zstd.h>

#include "fuzz_common.h"

static Trace *load_slabs(const char *path, int threads, size_t slab, char *err, size_t errlen) {
    LoadOptions o = {0};
    o.threads = threads;
    o.min_parallel_bytes = 1;
    o.slab_bytes = slab;
    const char *paths[] = {path};
    err[0] = '\0';
    return Load_files(paths, 1, &o, err, errlen);
}

static Trace *load(const char *path, int threads, char *err, size_t errlen) {
    return load_slabs(path, threads, 0, err, errlen);
}

#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            fprintf(stderr, "serial/parallel mismatch: " __VA_ARGS__);                                                \
            fprintf(stderr, "\n");                                                                                    \
            abort();                                                                                                  \
        }                                                                                                             \
    } while (0)

static void compare(const Trace *a, const Trace *b) {
    CHECK(a->n_events == b->n_events, "%zu vs %zu events", a->n_events, b->n_events);
    CHECK(a->n_lanes == b->n_lanes, "%zu vs %zu lanes", a->n_lanes, b->n_lanes);
    CHECK(a->n_flows == b->n_flows, "%zu vs %zu flows", a->n_flows, b->n_flows);
    CHECK(a->t_min == b->t_min && a->t_max == b->t_max, "time span");
    CHECK(a->diag.skipped == b->diag.skipped, "skipped %zu vs %zu", a->diag.skipped, b->diag.skipped);
    CHECK(a->diag.ignored == b->diag.ignored, "ignored %zu vs %zu", a->diag.ignored, b->diag.ignored);
    CHECK(a->diag.truncated == b->diag.truncated, "truncated flag");
    if (a->diag.skipped) {
        CHECK(a->diag.first_skip_offset == b->diag.first_skip_offset, "first skip offset");
        CHECK(!strcmp(a->diag.first_skip_reason, b->diag.first_skip_reason), "first skip reason");
    }
    if (a->diag.truncated) CHECK(a->diag.truncated_offset == b->diag.truncated_offset, "truncation offset");
    for (size_t i = 0; i < a->n_events; i++) {
        const TraceEvent *x = &a->events[i], *y = &b->events[i];
        CHECK(x->ts == y->ts && x->src == y->src && x->kind == y->kind && x->cls == y->cls && x->flags == y->flags &&
                  x->depth == y->depth && x->corr == y->corr && !memcmp(&x->dur, &y->dur, sizeof x->dur),
              "event %zu (src %llu vs %llu)", i, (unsigned long long)x->src, (unsigned long long)y->src);
        CHECK(!strcmp(Trace_name(a, x), Trace_name(b, y)), "event %zu name", i);
        const Lane *la = &a->lanes[x->lane], *lb = &b->lanes[y->lane];
        CHECK(la->gpu == lb->gpu && la->pid == lb->pid && la->tid == lb->tid && la->device == lb->device &&
                  la->stream == lb->stream && la->rank == lb->rank,
              "event %zu lane", i);
    }
    for (size_t i = 0; i < a->n_lanes; i++)
        CHECK(!strcmp(StrTab_get(a->strings, a->lanes[i].name), StrTab_get(b->strings, b->lanes[i].name)),
              "lane %zu name", i);
    for (size_t i = 0; i < a->n_flows; i++)
        CHECK(a->flows[i].from == b->flows[i].from && a->flows[i].to == b->flows[i].to, "flow %zu", i);
}

static void differential(const char *path, int threads, size_t slab) {
    char e1[1024], e2[1024];
    Trace *a = load(path, 1, e1, sizeof e1);
    Trace *b = load_slabs(path, threads, slab, e2, sizeof e2);
    CHECK(!a == !b, "serial %s, parallel %s (%s | %s)", a ? "loads" : "fails", b ? "loads" : "fails", e1, e2);
    if (!a) CHECK(!strcmp(e1, e2), "errors differ: '%s' vs '%s'", e1, e2);
    else compare(a, b);
    if (b) fz_exercise(b);
    Trace_free(a);
    Trace_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int threads = 2 + data[0] % 4;
    char path[64];
    int fd = fz_memfd(data + 1, size - 1);
    fz_fdpath(fd, path, sizeof path);
    size_t small = 64u << (data[0] / 4 % 5);
    differential(path, threads, data[0] & 0x80 ? small : 0);
    close(fd);
    size_t cap = ZSTD_compressBound(size - 1);
    void *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, data + 1, size - 1, 1);
    if (ZSTD_isError(zn)) abort();
    fd = fz_memfd(z, zn);
    fz_fdpath(fd, path, sizeof path);
    differential(path, threads, small);
    close(fd);
    free(z);
    return 0;
}
