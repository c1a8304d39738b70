#include "pending.h"

void help_export(FILE *out) { fprintf(out, "usage: ovtrace export IN... -o OUT [filters]\n\nNot implemented yet (tracked in issue 4).\n"); }

int cmd_export(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_pending("export", "tracked in issue 4");
}
