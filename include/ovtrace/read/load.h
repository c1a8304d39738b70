/* Loading Chrome Trace Event Format files (PyTorch profiler / Kineto, legacy 2021
 * traces, anything chrome://tracing opens) into a Trace. */
#ifndef OVTRACE_LOAD_H
#define OVTRACE_LOAD_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/read/snapshot.h"
#include "ovtrace/model/trace.h"

/* Detached saves of the snapshot cache whose outcome is still to come: Load_files adds
 * one per save it starts while LoadOptions.cache_log is set, CacheSaves_wait reports
 * them. Shared by loads on several threads (a lazy load's background load). */
enum { CACHE_SAVES_MAX = 8 };
typedef struct {
    pthread_mutex_t lock;
    size_t n;
    int fd[CACHE_SAVES_MAX];     /* the outcome's pipe */
    FILE *log[CACHE_SAVES_MAX];  /* where the load's notes went */
} CacheSaves;
#define CACHE_SAVES_INIT {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}}
/* Waits up to timeout_s in all for the outcomes ("saved PATH (...)", "not saved: ...")
 * and notes each on its log, or that the save goes on unwatched; then forgets them. */
void CacheSaves_wait(CacheSaves *s, double timeout_s);

typedef void (*LoadProgressFn)(void *ctx, const char *path, uint64_t bytes_done, uint64_t bytes_total,
                               size_t events);

/* What Load_files does once every byte is parsed (LoadOptions.stage). */
typedef enum {
    LOAD_STAGE_LANES = FINISH_LANES, /* Trace_finish's steps */
    LOAD_STAGE_SORT = FINISH_SORT,
    LOAD_STAGE_FLOWS = FINISH_FLOWS,
    LOAD_STAGE_CLASSIFY, /* naming the class of each distinct event name */
    LOAD_STAGE_SNAPSHOT, /* saving the snapshot cache's copy (LoadOptions.cache_sync) */
} LoadStage;
/* events: the model's (what `stats` counts: not metadata, flow points or E events);
 * flow_points: the s/t/f events to bind. */
typedef void (*LoadStageFn)(void *ctx, LoadStage stage, size_t events, size_t lanes, size_t flow_points);

typedef struct {
    const CommRules *rules; /* NULL: built-in defaults */
    LoadProgressFn progress; /* called every few MB (from the loading thread) */
    void *progress_ctx;
    /* Called as each stage after the parse starts (from the loading thread); the last
     * progress report of a file comes at its end, with the events of the whole model. */
    LoadStageFn stage;
    void *stage_ctx;
    const atomic_int *cancel; /* when it becomes non-zero, loading stops with "cancelled" */
    int threads;                /* parser threads: 0 = one per core, 1 = single */
    uint64_t min_parallel_bytes; /* files smaller than this parse single-threaded (0: 16 MB;
                                    compressed files count 8x their size) */
    size_t slab_bytes; /* bytes per unit of parallel work (0: 4 MB; tests:
                          --debug-slab-bytes): compressed input, decompressed bytes per
                          slab; a mapped file, the least bytes per slice of its event
                          array (slices shrink from 1 / (2 x threads) of the array
                          down to this) */
    /* Called right after each progress report, on the loading thread, with the trace
     * being built: lanes and events [0, partial->n_events) are readable for the duration
     * of the call (unsorted, unclassified, not finished). Also called after each parallel
     * slice is adopted. Events are only appended between calls (an E only sets its B's
     * dur), so a cursor over n_events sees each once. For progressive previews. */
    void (*observe)(void *ctx, const Trace *partial);
    void *observe_ctx;
    /* Snapshot cache (ovtrace/read/snapshot.h): -1 off, 0 auto (inputs of >= 64 MB of JSON),
     * 1 on; only with a cache directory in cache_opt (the CLI resolves it, and applies
     * $OVTRACE_CACHE: the library reads no environment). Zeroed: no cache. */
    int cache;
    CacheOptions cache_opt;
    /* Save a new snapshot before Load_files returns, instead of in a detached process
     * that lets the caller go on at once (tests, benchmarks). */
    bool cache_sync;
    /* Notes on the cache (hit, miss and why, saved or not and why). NULL: none. */
    FILE *cache_log;
    /* With cache_log: where a detached save's outcome is handed for the caller to report
     * (CacheSaves_wait); NULL: it is not reported there. */
    CacheSaves *cache_saves;
    /* A file the notes are appended to when cache_log is NULL, and the detached saver's
     * outcome in any case (OVTRACE_CACHE_DEBUG=/path, tests). */
    const char *cache_log_path;
    /* Largest single JSON value (one event, one top-level member) a compressed or
     * streamed input may hold in memory; larger is an error with its byte offset
     * (decompression bombs). 0: 256 MB. */
    uint64_t max_token;
    /* Compressed input decompressed on a read-ahead thread: 0 where there are 2+ cores,
     * -1 never, 1 always (tests compare both paths). */
    int read_ahead;
    /* GPU-first load (the rank overview's first pass): keep only metadata and the
     * events on GPU lanes (kernels, memcpy, memset, syncs, GPU annotations), passing
     * over every other event without building it (read/jsonpeek.c). The model is
     * marked Trace.gpu_only unless no event was passed over (then it is complete); the
     * snapshot cache is off for it. */
    bool gpu_only;
    /* Trace_finish's step times (FinishOptions.timing; bench/). NULL: none. */
    FILE *finish_timing;
    /* A file without a rank of its own (distributedInfo.rank) gets rank_base + its index:
     * a process of an MPI run loads files from index rank_base of the whole list on. Not
     * 0: the snapshot cache is off (a snapshot's ranks are those of a whole-list load). */
    int32_t rank_base;
} LoadOptions;

/* Loads one file into t as a new source (t not yet finished). Returns false with a
 * message "FILE: byte N (line L, column C): expected X" on a syntax error, or when the
 * file holds no valid event. Truncation and skipped events are recorded in t->diag. */
bool Load_chromeFile(Trace *t, const char *path, const LoadOptions *opt, char *err, size_t errlen);

/* Whether path starts with SQLite's header ("SQLite format 3"): an Nsight Systems
 * export, for Load_nsysFile. */
bool Load_isSqlite(const char *path);
/* Loads an Nsight Systems SQLite export (`nsys export --type sqlite`) into t as a new
 * source: kernels, copies, sets, CUDA calls, NVTX ranges, device and thread names
 * (read/load_nsys.c). False with "FILE: ..." when it is not one, or a table lacks a
 * column this reader needs (the message names both). */
bool Load_nsysFile(Trace *t, const char *path, char *err, size_t errlen);

/* Loads every path (a directory contributes its *.json, *.json.gz, *.json.zst and
 * *.sqlite, in name order; an SQLite file is read as an Nsight Systems export), finishes and classifies the model. Ranks come from
 * distributedInfo.rank, else file order. With the snapshot cache on (opt->cache and a
 * directory in opt->cache_opt), a
 * snapshot of exactly these files replaces parsing and finishing; after a parse, one
 * is saved. */
Trace *Load_files(const char *const *paths, size_t n, const LoadOptions *opt, char *err, size_t errlen);

/* Whether path is a run summary (`stats --summary`), and the model of one: a source per
 * rank (its trace's path), a GPU lane per device, the bands drawn back as events
 * (Trace.summary). Load_files opens a summary given alone this way. */
#define SUMMARY_FORMAT 2   /* "ovtrace_summary": the format's version (the reader also opens 1) */
#define SUMMARY_COLUMNS 256 /* band columns stats --summary writes */
bool Load_isSummary(const char *path);
Trace *Load_summaryFile(const char *path, char *err, size_t errlen);

/* The trace files paths name, as Load_files reads them (a directory's trace files in
 * name order; entries that are not regular files left out): a malloc'd array of
 * malloc'd paths, *n_out of them, or NULL with the error in err. */
char **Load_expandPaths(const char *const *paths, size_t n, size_t *n_out, char *err, size_t errlen);

/* Human-readable warnings for t->diag (skipped events, truncation); one per line, each
 * after prefix (the command line's "ovtrace: ", as its errors have). */
void Load_printWarnings(const Trace *t, FILE *out, const char *prefix);
/* The same as one malloc'd string (the TUI shows them in its status bar); NULL: none. */
char *Load_warningsText(const Trace *t);

#endif
