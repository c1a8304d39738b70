/* ovtrace: one binary, one subcommand per file. `ovtrace FILE...` means view. */
#include <stdio.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ovtrace/cli/signals.h"

static const Command COMMANDS[] = {
    {"view", "open traces in the terminal timeline", cmd_view, help_view, VIEW_TABLES},
    {"stats", "compute/communication overlap figures", cmd_stats, help_stats, STATS_TABLES},
    {"diff", "compare two runs: overlap, kernels and steps, with deltas", cmd_diff, help_diff, DIFF_TABLES},
    {"export", "write a filtered trace that Perfetto opens", cmd_export, help_export, EXPORT_TABLES},
    {"query", "SQL over traces (SQLite): events, lanes, collectives, devices, steps", cmd_query, help_query,
     QUERY_TABLES},
    {"live", "watch a running workload (CUPTI or simulator)", cmd_live, help_live, LIVE_TABLES},
    {"record", "record a workload headless to a trace file", cmd_record, help_record, LIVE_TABLES},
    {"workload", "run the built-in CUDA MoE overlap workload", cmd_workload, help_workload, WORKLOAD_TABLES},
};
#define N_COMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

static void usage(FILE *out) {
    fprintf(out,
            "ovtrace %s: terminal trace viewer and live GPU profiler\n\n"
            "usage: ovtrace COMMAND [OPTIONS] ...\n"
            "       ovtrace [VIEW OPTIONS] FILE...   (same as: ovtrace view [OPTIONS] FILE...)\n"
            "       ovtrace --version\n\ncommands:\n",
            OVTRACE_VERSION);
    for (size_t i = 0; i < N_COMMANDS; i++) fprintf(out, "  %-9s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(out, "\n'ovtrace COMMAND --help' describes a command. ");
    Cli_helpValues(out);
}

/* Edit distance of two short words (transpositions count one), for "did you mean". */
static size_t edit_distance(const char *x, const char *y) {
    size_t nx = strlen(x), ny = strlen(y);
    if (nx > 31 || ny > 31) return SIZE_MAX;
    size_t d[32][32];
    for (size_t i = 0; i <= nx; i++) d[i][0] = i;
    for (size_t j = 0; j <= ny; j++) d[0][j] = j;
    for (size_t i = 1; i <= nx; i++)
        for (size_t j = 1; j <= ny; j++) {
            size_t best = d[i - 1][j - 1] + (x[i - 1] != y[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[nx][ny];
}

/* A first word that is no file and looks like no path is a mistyped command: say so
 * (with the nearest command) instead of "No such file" or "the viewer needs a
 * terminal". True when it printed the error. */
static bool unknown_command(const char *a) {
    struct stat st;
    if (a[0] == '-' || strchr(a, '/') || strchr(a, '.') || stat(a, &st) == 0 || errno != ENOENT) return false;
    const char *near = NULL;
    size_t best = 3;
    for (size_t i = 0; i < N_COMMANDS; i++) {
        size_t d = edit_distance(a, COMMANDS[i].name);
        if (d < best) best = d, near = COMMANDS[i].name;
    }
    if (near) cli_error("unknown command '%s': did you mean '%s'? (try 'ovtrace --help')", a, near);
    else cli_error("'%s' is neither a command nor a file (try 'ovtrace --help')", a);
    return true;
}

/* The command's output first, then the outcome of the snapshot saves it started (-v). */
static int finish(int rc) {
    rc = cli_finishStdout(rc);
    cli_waitCacheSaves();
    return rc;
}

int main(int argc, char **argv) {
    Signals_cleanTempsOnExit();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *a = argv[1];
    if (!strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "help")) {
        if (argc > 2)
            for (size_t i = 0; i < N_COMMANDS; i++)
                if (!strcmp(argv[2], COMMANDS[i].name)) {
                    COMMANDS[i].help(stdout);
                    return cli_finishStdout(0);
                }
        usage(stdout);
        return cli_finishStdout(0);
    }
    /* ovtrace --list-options CMD: its options, one per line (the tests' reference for
     * --help, the man page and the completions) */
    if (!strcmp(a, "--list-options") && argc != 3) {
        cli_error("--list-options takes one command: ovtrace --list-options COMMAND");
        return 2;
    }
    if (!strcmp(a, "--list-options")) {
        for (size_t i = 0; i < N_COMMANDS; i++)
            if (!strcmp(argv[2], COMMANDS[i].name)) {
                Cli_listOptions(stdout, COMMANDS[i].options);
                return cli_finishStdout(0);
            }
        cli_error("unknown command '%s' (try 'ovtrace --help')", argv[2]);
        return 2;
    }
    if (!strcmp(a, "--version")) {
        printf("ovtrace %s\n", OVTRACE_VERSION);
        return cli_finishStdout(0);
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(a, COMMANDS[i].name)) continue;
        for (int k = 2; k < argc; k++) {
            if (!strcmp(argv[k], "--")) break;
            if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
                COMMANDS[i].help(stdout);
                return cli_finishStdout(0);
            }
        }
        return finish(COMMANDS[i].run(argc - 1, argv + 1));
    }
    if (unknown_command(a)) return 2;
    if (a[0] == '-' && strcmp(a, "-") && !Cli_isOption(VIEW_TABLES, a)) {
        cli_error("unknown option '%s' (try 'ovtrace --help')", a);
        return 2;
    }
    /* ovtrace [VIEW OPTIONS] FILE...: options and files in any order, as after `view` */
    return finish(cmd_view(argc, argv));
}
