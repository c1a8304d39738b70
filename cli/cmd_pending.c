/* Subcommands whose implementation lands with later issues say so plainly. */
#include "cli.h"

static int pending(const char *cmd, const char *what) {
    cli_error("'ovtrace %s' is not implemented yet (%s). Use 'ovtrace stats' for figures.", cmd, what);
    return 3;
}

void help_view(FILE *out) {
    fprintf(out, "usage: ovtrace view FILE...   (or: ovtrace FILE...)\n\nThe terminal timeline. Not implemented yet.\n");
}
int cmd_view(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return pending("view", "the TUI timeline is tracked in issue 3");
}
void help_export(FILE *out) { fprintf(out, "usage: ovtrace export IN... -o OUT [filters]\n\nNot implemented yet.\n"); }
int cmd_export(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return pending("export", "tracked in issue 4");
}
void help_live(FILE *out) { fprintf(out, "usage: ovtrace live [--simulate | --workload moe | -- CMD ARGS]\n\nNot implemented yet.\n"); }
int cmd_live(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return pending("live", "tracked in issues 5 and 6");
}
void help_record(FILE *out) { fprintf(out, "usage: ovtrace record -o OUT [--duration S] [--simulate | -- CMD ARGS]\n\nNot implemented yet.\n"); }
int cmd_record(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return pending("record", "tracked in issues 5 and 6");
}
void help_workload(FILE *out) { fprintf(out, "usage: ovtrace workload [--mode prefill|decode|serial] ...\n\nNot implemented yet.\n"); }
int cmd_workload(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return pending("workload", "the CUDA MoE workload is tracked in issue 6");
}
