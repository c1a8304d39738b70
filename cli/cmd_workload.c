#include "pending.h"

void help_workload(FILE *out) { fprintf(out, "usage: ovtrace workload [--mode prefill|decode|serial] ...\n\nNot implemented yet (the CUDA MoE workload is tracked in issue 6).\n"); }

int cmd_workload(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_pending("workload", "the CUDA MoE workload is tracked in issue 6");
}
