/* One command-line option, as a subcommand's table lists it. The tables are the one
 * description of what each subcommand accepts: cli/opts.c builds getopt_long's table
 * from them, `ovtrace --list-options CMD` prints them (tests, shell completion). */
#ifndef OVTRACE_OPTSPEC_H
#define OVTRACE_OPTSPEC_H
#include <stdbool.h>

typedef struct {
    const char *name;    /* "--threads"; NULL for a short-only option */
    char short_name;     /* 'q' for -q; 0 for none */
    bool value;          /* takes a value: --opt VALUE or --opt=VALUE (-o VALUE, -oVALUE) */
    int id;              /* the owner's tag, for its handler */
    const char *missing; /* the error when the value is missing; NULL: "option X needs a value" */
    bool hidden;         /* test and benchmark hooks: not in --help */
} OptSpec;

#endif
