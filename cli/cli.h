/* Shared pieces of the subcommands: option parsing for inputs and rules, loading with
 * a progress bar, errors. One file per subcommand (cmd_*.c). */
#ifndef OVTRACE_CLI_H
#define OVTRACE_CLI_H
#include <stdbool.h>
#include <stdio.h>

#include "ovtrace/classify.h"
#include "ovtrace/load.h"
#include "ovtrace/overlap.h"
#include "ovtrace/trace.h"

typedef struct {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    void (*help)(FILE *out);
} Command;

/* Options every trace-reading command accepts. */
typedef struct {
    CommRules *rules;
    bool quiet;
    int threads; /* parser threads (0 = one per core) */
    int cache;   /* snapshot cache: -1 --no-cache, 0 auto, 1 --cache (LoadOptions.cache) */
    bool verbose; /* -v: notes on the cache on stderr */
    uint64_t max_token; /* --max-token: LoadOptions.max_token (0: its default) */
    const char *files[256];
    size_t n_files;
} InputOptions;

void InputOptions_init(InputOptions *o);
void InputOptions_free(InputOptions *o);
/* Consumes argv[*i] (and its value) if it is an input option; returns 1 if consumed,
 * 0 if not an input option, -1 on error (message printed). */
int InputOptions_parse(InputOptions *o, int argc, char **argv, int *i);
void InputOptions_help(FILE *out);
/* Loads o->files (progress bar on a TTY stderr), prints warnings. NULL on error. */
Trace *InputOptions_load(InputOptions *o);

/* "error: ..." on stderr */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Flushes stdout; if that or any earlier write to it failed (ENOSPC, EIO, EBADF), says
 * so and returns 1 (rc when already non-zero), else rc. Every command's exit goes through it. */
int cli_finishStdout(int rc);
/* argv[*i] needs a value: returns it, or NULL after printing an error. */
const char *cli_value(int argc, char **argv, int *i);

int cmd_view(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_workload(int argc, char **argv);
int cmd_diff(int argc, char **argv);
void help_view(FILE *out);
void help_stats(FILE *out);
void help_export(FILE *out);
void help_live(FILE *out);
void help_record(FILE *out);
void help_workload(FILE *out);
void help_diff(FILE *out);

/* The overlap figures of one device as JSON members (no braces): the same keys in
 * `stats --json` and `diff --json`. */
void cli_jsonFigures(FILE *out, const DeviceFigures *d);

#endif
