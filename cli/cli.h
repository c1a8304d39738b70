/* Shared pieces of the subcommands: option parsing for inputs and rules, loading with
 * a progress bar, errors. One file per subcommand (cmd_*.c). */
#ifndef OVTRACE_CLI_H
#define OVTRACE_CLI_H
#include <stdbool.h>
#include <stdio.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/analysis/collectives.h"
#include "ovtrace/read/load.h"
#include "optspec.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"
#include "opts.h"

typedef struct {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    void (*help)(FILE *out);
    const OptSpec *const *options; /* its option tables (ovtrace --list-options CMD) */
} Command;

/* Each command's option tables (NULL-terminated lists). */
extern const OptSpec *const VIEW_TABLES[], *const STATS_TABLES[], *const DIFF_TABLES[], *const EXPORT_TABLES[],
    *const LIVE_TABLES[], *const WORKLOAD_TABLES[], *const QUERY_TABLES[];

/* Options every trace-reading command accepts. */
typedef struct {
    CommRules *rules;
    bool quiet;
    int threads; /* parser threads (0 = one per core) */
    int cache;   /* snapshot cache: -1 --no-cache, 0 auto, 1 --cache (LoadOptions.cache) */
    bool verbose; /* -v: notes on the cache on stderr */
    uint64_t max_token; /* --max-token: LoadOptions.max_token (0: its default) */
    /* hidden test hooks: --debug-parallel-min-bytes, --debug-slab-bytes */
    uint64_t min_parallel_bytes;
    size_t slab_bytes;
    /* hidden benchmark hooks: --debug-finish-timing (Trace_finish's steps on stderr) and
     * --debug-coll-timing (Coll_analyze's: coll.timing) */
    bool finish_timing;
    CollOptions coll; /* Coll_analyze's options for this run */
    /* the environment, read once by InputOptions_init (README, Environment):
     * $OVTRACE_CACHE (-1 0, 1 1, else 0), the cache directory from $XDG_CACHE_HOME or
     * $HOME ("" none) and $OVTRACE_CACHE_MAX_MB */
    int env_cache;
    bool mpirun; /* $OMPI_COMM_WORLD_SIZE is set: a process of an mpirun (stats shares the files) */
    char cache_dir[4096];
    uint64_t cache_max_bytes;
    const char *files[256];
    size_t n_files;
} InputOptions;

void InputOptions_init(InputOptions *o);
void InputOptions_free(InputOptions *o);
/* The options every trace-reading command accepts (ids for InputOptions_apply). */
extern const OptSpec INPUT_OPTIONS[];
/* Applies one of INPUT_OPTIONS, or adds a positional argument (s NULL) as an input
 * file. 0, or exit status 2 after printing the error. */
int InputOptions_apply(InputOptions *o, const OptSpec *s, const char *value);
/* The LoadOptions of these options (no progress callback). */
LoadOptions InputOptions_loadOptions(const InputOptions *o);
/* With -v (or OVTRACE_CACHE_DEBUG=1), the outcome of each detached snapshot save this
 * process started, waited for up to CLI_CACHE_SAVE_WAIT_S in all (--debug-cache-wait-ms)
 * and noted on the load's notes; after the command's output, before it exits. */
#define CLI_CACHE_SAVE_WAIT_S 2.0
void cli_waitCacheSaves(void);
void InputOptions_help(FILE *out);
/* True when o names an input; else the usage error every command gives without one
 * (usage: the command's synopsis). */
bool InputOptions_needFiles(const InputOptions *o, const char *cmd, const char *usage);
/* True unless t is a run summary (stats --summary), whose events are its bands drawn
 * back for the viewer's overview: figures, exports or queries of them would mislead, so
 * cmd says so, naming path, and the caller exits 2. */
bool cli_notSummary(const Trace *t, const char *cmd, const char *path);
/* Loads o->files (progress bar on a TTY stderr), prints warnings. NULL on error. */
Trace *InputOptions_load(InputOptions *o);

/* "error: ..." on stderr */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A filter value of option `opt` (--rank, --device, --stream, --top): an integer in
 * 0..max, else a usage error naming the option and the range (false). */
bool cli_filterValue(const char *opt, const char *v, int64_t max, int64_t *out);
/* A --range's ends and the trace's span as text, relative to the trace start (an open
 * end, INT64_MIN or INT64_MAX, is the trace's own). */
typedef struct {
    char a0[48], a1[48], span[48];
} RangeTexts;
RangeTexts cli_rangeTexts(const Trace *t, int64_t r0, int64_t r1);
/* The error view and stats give for a --range wholly outside the trace. */
void cli_rangeOutside(const char *range, const Trace *t, int64_t r0, int64_t r1);
/* Flushes stdout; if that or any earlier write to it failed (ENOSPC, EIO, EBADF), says
 * so and returns 1 (rc when already non-zero), else rc. Every command's exit goes through it. */
int cli_finishStdout(int rc);

int cmd_view(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_workload(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_query(int argc, char **argv);
void help_view(FILE *out);
void help_stats(FILE *out);
void help_export(FILE *out);
void help_live(FILE *out);
void help_record(FILE *out);
void help_workload(FILE *out);
void help_diff(FILE *out);
void help_query(FILE *out);

/* The overlap figures of one device as JSON members (no braces): the same keys in
 * `stats --json` and `diff --json`. */
void cli_jsonFigures(FILE *out, const DeviceFigures *d);

#endif
