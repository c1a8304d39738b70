/* Pieces shared by `ovtrace live` (cmd_live.c) and `ovtrace record` (cmd_record.c). */
#ifndef OVTRACE_CLI_LIVE_CMD_H
#define OVTRACE_CLI_LIVE_CMD_H
#include <stddef.h>

#include "ovtrace/collector/launch.h"
#include "ovtrace/live/live.h"
#include "live_opts.h"

/* Parses live/record options (cmd names the command in messages); 0 or exit code 2. */
int live_cmd_parse(LiveCliOptions *o, int argc, char **argv, const char *cmd);
/* The source of the options; 0, or an exit status after printing the error (none,
 * two, simulator options without --simulate, ...). */
int live_cmd_source(const LiveCliOptions *o, const char *cmd, LiveCliSource *src);
/* For a program source: the driver check, then lc (argv, inject) and cfg->launch = lc.
 * *owned: free with Launch_freeArgv. 0, or an exit status after printing the error. */
int live_cmd_prepare(const LiveCliOptions *o, LiveCliSource src, char **argv, LaunchConfig *lc, char ***owned,
                     LiveSessionConfig *cfg);
/* "SIMULATED prefill", "CUPTI in-process: workload moe decode", "CUPTI injected: ./app" */
void live_cmd_describe(const LiveCliOptions *o, LiveCliSource src, char **argv, const LiveSessionConfig *cfg,
                       char *buf, size_t n);

#endif
