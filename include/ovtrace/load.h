/* Loading Chrome Trace Event Format files (PyTorch profiler / Kineto, legacy 2021
 * traces, anything chrome://tracing opens) into a Trace. */
#ifndef OVTRACE_LOAD_H
#define OVTRACE_LOAD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/classify.h"
#include "ovtrace/trace.h"

typedef void (*LoadProgressFn)(void *ctx, const char *path, uint64_t bytes_done, uint64_t bytes_total,
                               size_t events);

typedef struct {
    const CommRules *rules; /* NULL: built-in defaults */
    LoadProgressFn progress; /* called every few MB (from the loading thread) */
    void *progress_ctx;
    const volatile int *cancel; /* when it becomes non-zero, loading stops with "cancelled" */
    int threads;                /* parser threads for plain files: 0 = one per core, 1 = single */
    uint64_t min_parallel_bytes; /* files smaller than this parse single-threaded (0: 16 MB) */
    /* Called right after each progress report, on the loading thread, with the trace
     * being built: lanes and events [0, partial->n_events) are readable for the duration
     * of the call (unsorted, unclassified, not finished). For progressive previews. */
    void (*observe)(void *ctx, const Trace *partial);
    void *observe_ctx;
} LoadOptions;

/* Loads one file into t as a new source (t not yet finished). Returns false with a
 * message "FILE: byte N (line L, column C): expected X" on a syntax error, or when the
 * file holds no valid event. Truncation and skipped events are recorded in t->diag. */
bool Load_chromeFile(Trace *t, const char *path, const LoadOptions *opt, char *err, size_t errlen);

/* Loads every path (a directory contributes its *.json, *.json.gz, *.json.zst, in
 * name order), finishes and classifies the model. Ranks come from
 * distributedInfo.rank, else file order. */
Trace *Load_files(const char *const *paths, size_t n, const LoadOptions *opt, char *err, size_t errlen);

/* Human-readable warnings for t->diag (skipped events, truncation); one per line. */
void Load_printWarnings(const Trace *t, FILE *out);

#endif
