#include "pending.h"

void help_view(FILE *out) { fprintf(out, "usage: ovtrace view FILE...   (or: ovtrace FILE...)\n\nNot implemented yet (the TUI timeline is tracked in issue 3).\n"); }

int cmd_view(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_pending("view", "the TUI timeline is tracked in issue 3");
}
