/* Command-line parsing for every subcommand: getopt_long over the subcommand's option
 * tables (cli/optspec.h), so that each accepts --opt VALUE and --opt=VALUE, short
 * options (-o OUT, -oOUT, -qv), options and positional arguments in any order, '-' as
 * a positional argument (standard input), and '--' to end the options. Abbreviated long
 * options are refused (getopt_long would take --thr for --threads): names stay exact. */
#ifndef OVTRACE_CLI_OPTS_H
#define OVTRACE_CLI_OPTS_H
#include <stdio.h>

#include "optspec.h"

/* Called for each option (s) with its value (NULL for a flag), and for each positional
 * argument (s NULL, value the argument). Returns 0, or the exit status after printing
 * the error. */
typedef int (*CliOptFn)(void *ctx, const OptSpec *s, const char *value);

/* Parses argv[1..argc) of `ovtrace cmd` in order. tables: a NULL-terminated list of
 * option tables, each ending with an all-zero entry. Unknown options, a missing value
 * and a value given to a flag print the error and return 2. After '--': with rest
 * NULL, the remaining arguments are positional; else *rest is the index of the first
 * one (argc when none) and they are not passed to fn (-1 when there was no '--'). */
int Cli_parseOptions(const char *cmd, int argc, char **argv, const OptSpec *const *tables, CliOptFn fn, void *ctx,
                     int *rest);

/* Whether arg ("--name", "--name=VALUE", "-c", "-cVALUE", "-qv") starts with an option
 * of the tables: `ovtrace --color none T.json` is view's option, so the command is view. */
bool Cli_isOption(const OptSpec *const *tables, const char *arg);

/* One line per option: "--name\tvalue|flag\t-c|" ("hidden" appended for hooks). */
void Cli_listOptions(FILE *out, const OptSpec *const *tables);

/* The line each command's help ends with. */
void Cli_helpValues(FILE *out);

#endif
