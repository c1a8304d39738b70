#include "pending.h"

void help_live(FILE *out) { fprintf(out, "usage: ovtrace live [--simulate | --workload moe | -- CMD ARGS]\n\nNot implemented yet (tracked in issues 5 and 6).\n"); }

int cmd_live(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_pending("live", "tracked in issues 5 and 6");
}
