#include "pending.h"

void help_record(FILE *out) { fprintf(out, "usage: ovtrace record -o OUT [--duration S] [--simulate | -- CMD ARGS]\n\nNot implemented yet (tracked in issues 5 and 6).\n"); }

int cmd_record(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_pending("record", "tracked in issues 5 and 6");
}
