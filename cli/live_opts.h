/* Command-line options shared by `ovtrace record` and `ovtrace live` (parsing lives
 * in the live library so that both subcommands and tests agree). */
#ifndef OVTRACE_LIVE_CLI_H
#define OVTRACE_LIVE_CLI_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ovtrace/live/live.h"
#include "optspec.h"

typedef struct {
    bool simulate;
    bool sim_option_seen; /* a simulator option without --simulate */
    const char *first_sim_option;
    int mode;             /* SchedMode */
    /* overrides, -1 / < 0 = default for the mode */
    int comm_sms, tokens, layers, experts, topk, hidden, link, device;
    double tflops, speed, jitter;
    int64_t seed, steps;
    int64_t duration_ns;  /* 0: until stopped */
    int64_t retention_ns; /* -2: default */
    const char *out;
    bool headless;
    int64_t interval_ns;  /* headless meter period */
    int64_t window_ns;    /* meter window */
    int cmd_index;        /* argv index of the first word after "--", or -1 */
    const char *workload; /* --workload NAME ("moe"), NULL if not given */
    /* the options --workload moe passes on to ovtrace-workload (--mode, --comm-sms,
     * --steps, --tokens, --layers, --experts, --topk, --hidden, --link, --tflops,
     * --device, --gpus), validated, as given: pointers into argv */
    char *fwd[64];
    size_t n_fwd;
    const char *first_sim_only; /* first option only the simulator takes (--seed, --speed, --jitter) */
    const char *first_wl_only;  /* first option only the CUDA workload takes (--gpus) */
    /* --mode serve: decode steps under a batching policy; --batching, --rate,
     * --min-batch, --max-batch, --mem-cap, --prompt-tokens, --out-tokens */
    bool serve;
    ServeParams serve_p;
    const char *first_serve_option; /* a serving option given without --mode serve */
    /* record --simulate --ranks N: N ranks in lockstep, one file per rank */
    int ranks;             /* 0: one rank (the live simulator) */
    double imbalance;      /* < 0: default 0 (balanced) */
    int64_t clock_skew_ns; /* per node of 8 ranks */
    bool assume_driver;    /* --debug-assume-driver: TEST ONLY, see LiveCli_launchConfig */
} LiveCliOptions;

/* Where the events come from. */
typedef enum { LIVE_CLI_NONE, LIVE_CLI_SIMULATE, LIVE_CLI_WORKLOAD, LIVE_CLI_COMMAND } LiveCliSource;

void LiveCli_init(LiveCliOptions *o);
/* The options of `record` and `live` (the CLI parses argv with them; '--' CMD ARGS is
 * the CLI's: it sets cmd_index). */
extern const OptSpec LIVE_CLI_OPTIONS[];
/* Applies one of LIVE_CLI_OPTIONS with its value (NULL for a flag). False (err) if the
 * value is bad. */
bool LiveCli_apply(LiveCliOptions *o, const OptSpec *s, const char *value, char *err, size_t errlen);
/* Fills a session configuration from the options. False (err) if inconsistent. */
bool LiveCli_config(const LiveCliOptions *o, LiveSessionConfig *cfg, char *err, size_t errlen);
void LiveCli_helpSim(FILE *out);
void LiveCli_helpSources(FILE *out);
/* The source the options ask for; LIVE_CLI_NONE with err set when they conflict (two
 * sources, simulator options for a program, ...) or name none (err empty then). */
LiveCliSource LiveCli_source(const LiveCliOptions *o, char *err, size_t errlen);
/* For a program source (--workload moe, -- CMD): the CUDA driver check first
 * (Launch_cudaDriver: "no CUDA driver found ...; try --simulate"), then lc:
 *   --workload moe: argv = Launch_workloadArgv(true, forwarded options), inject = false
 *                   (the workload runs the CUPTI collector in-process);
 *   -- CMD ARGS:    argv = CMD ARGS, inject = true (CUPTI injection library).
 * output_path (the program's stdout/stderr; NULL: inherited) and own_pgrp are the
 * caller's (a TUI wants both). *owned_argv is to be freed with Launch_freeArgv (NULL
 * for -- CMD). Returns 0, or the exit status for the error in err.
 * o->assume_driver (--debug-assume-driver) skips the driver check: TEST ONLY (the launcher tests run a
 * stand-in program that streams records without a GPU). */
int LiveCli_launchConfig(const LiveCliOptions *o, char **argv, LaunchConfig *lc, char ***owned_argv, char *err,
                         size_t errlen);
/* The multi-rank simulation the options ask for (--ranks N > 1). False (err) if bad. */
struct SimRanksConfig;
bool LiveCli_ranksConfig(const LiveCliOptions *o, struct SimRanksConfig *c, char *err, size_t errlen);

#endif
