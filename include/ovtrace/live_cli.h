/* Command-line options shared by `ovtrace record` and `ovtrace live` (parsing lives
 * in the live library so that both subcommands and tests agree). */
#ifndef OVTRACE_LIVE_CLI_H
#define OVTRACE_LIVE_CLI_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ovtrace/live.h"

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
} LiveCliOptions;

void LiveCli_init(LiveCliOptions *o);
/* Consumes argv[*i] (and its value). 1 consumed, 0 not a live option, -1 error (err). */
int LiveCli_parse(LiveCliOptions *o, int argc, char **argv, int *i, char *err, size_t errlen);
/* Fills a session configuration from the options. False (err) if inconsistent. */
bool LiveCli_config(const LiveCliOptions *o, LiveSessionConfig *cfg, char *err, size_t errlen);
void LiveCli_helpSim(FILE *out);
/* Whether a CUDA driver can be loaded (dlopen libcuda.so.1). */
bool LiveCli_haveCudaDriver(char *why, size_t n);

#endif
