/* ovtrace workload: the built-in CUDA MoE overlap workload with no collector (the
 * baseline for collector overhead). The workload is a separate executable,
 * ovtrace-workload (kernels/workload.cu, built only with the CUDA toolkit), installed
 * next to ovtrace; this command checks for a driver and execs it, so ovtrace itself
 * never links CUDA. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/collector/launch.h"

void help_workload(FILE *out) {
    fprintf(out,
            "usage: ovtrace workload [--mode prefill|decode|serial|serve] [--comm-sms N] [--steps N] [--warmup N]\n"
            "                        [--tokens N] [--layers N] [--experts N] [--topk K] [--hidden N]\n"
            "                        [--link nvlink|ib] [--tflops X] [--imbalance F] [--gpus N | --device N]\n"
            "                        [--json]\n\n"
            "Runs the built-in DeepSeek-style MoE overlap workload (two micro-batches) with no collector,\n"
            "and prints the step time and tokens/s: the baseline for the collector's overhead. It follows\n"
            "the same schedule as 'ovtrace live --simulate' (same kernels, streams, order, names).\n\n"
            "  --mode M        prefill: dispatch/combine kernels hold --comm-sms SMs (default 20), paced to\n"
            "                  the link bandwidth; decode: transfers on the copy engine (pinned host memory),\n"
            "                  no SMs; serial: everything on one stream (no overlap)\n"
            "  --steps N       measured steps (default 20) after --warmup N (default 3)\n"
            "  --link L        nvlink (160 GB/s, default) or ib (50 GB/s)\n"
            "  --tflops X      FLOP rate the cost model assumes (compute kernels are sized to it)\n"
            "  --imbalance F   the routed experts (and the all-to-all) get (1+F) times the balanced load\n"
            "  --gpus N        N GPUs (0..N-1; CUDA_VISIBLE_DEVICES picks them), each running the schedule,\n"
            "                  with dispatch/combine as a real NCCL all-to-all (grouped ncclSend/ncclRecv\n"
            "                  on at most --comm-sms CTAs; needs libnccl.so.2 >= 2.17, or set\n"
            "                  OVTRACE_NCCL_LIB=PATH). Default: all visible GPUs when there are several\n"
            "                  and NCCL loads. --gpus 1: the one-GPU emulation above, on --device N\n"
            "                  (default 0). Step time and tokens/s cover all GPUs\n"
            "  --json          one JSON line instead of text\n"
            "  --mode serve    serving on one GPU: requests arrive (Poisson, --rate R per s) into a\n"
            "                  queue; each of --steps decode steps (default 200) runs the MoE schedule for a\n"
            "                  batch the policy picks (the simulator's, ovtrace/kernels/serve.h): --batching dynamic\n"
            "                  (default; adapts to KV/activation memory headroom under --mem-cap, GPU\n"
            "                  utilisation and the queue, between --min-batch and --max-batch) or fixed (static\n"
            "                  batches run to completion: the baseline); --prompt-tokens N --out-tokens N.\n"
            "                  Prints throughput, mean batch, latency p50/p99 and memory; under 'ovtrace\n"
            "                  record --workload moe --mode serve' the trace gets counter tracks beside the\n"
            "                  kernels and 'ovtrace stats' reports the same figures from it\n\n"
            "Needs an NVIDIA GPU and driver (H100/H200: sm_90); without one it says so. To watch it live:\n"
            "'ovtrace live --workload moe'. No GPU: 'ovtrace live --simulate'.\n");
    Cli_helpValues(out);
}

/* ovtrace-workload's options (kernels/workload.cu), checked here so that a typo is the
 * same usage error as in every other command, and passed on as --opt VALUE. */
static const OptSpec WORKLOAD_OPTIONS[] = {
    {"--mode", 0, true, 0, NULL, false},      {"--comm-sms", 0, true, 0, NULL, false},
    {"--steps", 0, true, 0, NULL, false},     {"--warmup", 0, true, 0, NULL, false},
    {"--tokens", 0, true, 0, NULL, false},    {"--layers", 0, true, 0, NULL, false},
    {"--experts", 0, true, 0, NULL, false},   {"--topk", 0, true, 0, NULL, false},
    {"--hidden", 0, true, 0, NULL, false},    {"--link", 0, true, 0, NULL, false},
    {"--tflops", 0, true, 0, NULL, false},    {"--imbalance", 0, true, 0, NULL, false},
    {"--gpus", 0, true, 0, NULL, false},      {"--device", 0, true, 0, NULL, false},
    {"--json", 0, false, 0, NULL, false},     {"--batching", 0, true, 0, NULL, false},
    {"--rate", 0, true, 0, NULL, false},      {"--min-batch", 0, true, 0, NULL, false},
    {"--max-batch", 0, true, 0, NULL, false}, {"--mem-cap", 0, true, 0, NULL, false},
    {"--prompt-tokens", 0, true, 0, NULL, false}, {"--out-tokens", 0, true, 0, NULL, false},
    {0},
};
const OptSpec *const WORKLOAD_TABLES[] = {WORKLOAD_OPTIONS, NULL};

typedef struct {
    char **args;
    int n;
} WorkloadArgs;

static int workload_opt(void *ctx, const OptSpec *s, const char *v) {
    WorkloadArgs *W = ctx;
    if (!s) {
        cli_error("unknown option '%s' for workload (see 'ovtrace workload --help')", v);
        return 2;
    }
    W->args[W->n++] = (char *)s->name;
    if (v) W->args[W->n++] = (char *)v;
    return 0;
}

int cmd_workload(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            help_workload(stdout);
            return 0;
        }
    /* --opt=value becomes two words: at most twice as many */
    char **args = xcalloc(2 * (size_t)argc + 2, sizeof *args);
    WorkloadArgs W = {args, 1};
    int rc = Cli_parseOptions("workload", argc, argv, WORKLOAD_TABLES, workload_opt, &W, NULL);
    if (rc) {
        free(args);
        return rc;
    }
    char msg[512];
    if (!Launch_cudaDriver(msg, sizeof msg)) {
        /* its hint names live/record's --simulate, an option workload does not take */
        char *hint = strstr(msg, "; try --simulate");
        if (hint) *hint = '\0';
        cli_error("%s; 'ovtrace live --simulate' needs none", msg);
        free(args);
        return 3;
    }
    char path[PATH_MAX];
    if (!Launch_findHelper(LAUNCH_WORKLOAD_BIN, path, sizeof path)) {
        cli_error("%s is not installed next to ovtrace: the CUDA workload is built only when the CUDA toolkit "
                  "is found at build time; 'ovtrace live --simulate' needs no GPU",
                  LAUNCH_WORKLOAD_BIN);
        free(args);
        return 3;
    }
    args[0] = path;
    fflush(NULL);
    execv(path, args);
    cli_error("cannot run %s: %s", path, strerror(errno));
    free(args);
    return 1;
}
