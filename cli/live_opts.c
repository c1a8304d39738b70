/* Option parsing shared by `ovtrace record` and `ovtrace live`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/parse.h"
#include "live_opts.h"
#include "ovtrace/live/simranks.h"
#include "ovtrace/model/timeunits.h"

#define CLOCK_SKEW_MAX_NS (INT64_C(3600) * 1000000000)

void LiveCli_init(LiveCliOptions *o) {
    memset(o, 0, sizeof *o);
    o->mode = SCHED_PREFILL;
    o->comm_sms = o->tokens = o->layers = o->experts = o->topk = o->hidden = o->link = o->device = -1;
    o->tflops = o->speed = o->jitter = -1;
    o->seed = o->steps = -1;
    o->retention_ns = -2;
    o->interval_ns = 1000000000;
    o->window_ns = 500000000;
    o->cmd_index = -1;
    o->imbalance = -1;
    ServeParams_default(&o->serve_p);
}

static bool int_arg(const char *v, long lo, long hi, int64_t *out) {
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) return false;
    *out = x;
    return true;
}

static bool dbl_arg(const char *v, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi)) return false;
    *out = x;
    return true;
}

/* sim: 1 a simulator option the workload takes too, 2 a simulator-only option, 3 a
 * workload-only option (the id field) */
const OptSpec LIVE_CLI_OPTIONS[] = {
    {"--simulate", 0, false, 0, NULL, false},
    {"--headless", 0, false, 0, NULL, false},
    {"--workload", 0, true, 0, "option --workload needs a value (the built-in workload: moe)", false},
    {"--mode", 0, true, 1, NULL, false},      {"--comm-sms", 0, true, 1, NULL, false},
    {"--tokens", 0, true, 1, NULL, false},    {"--layers", 0, true, 1, NULL, false},
    {"--experts", 0, true, 1, NULL, false},   {"--topk", 0, true, 1, NULL, false},
    {"--hidden", 0, true, 1, NULL, false},    {"--link", 0, true, 1, NULL, false},
    {"--tflops", 0, true, 1, NULL, false},    {"--seed", 0, true, 2, NULL, false},
    {"--speed", 0, true, 2, NULL, false},     {"--jitter", 0, true, 2, NULL, false},
    {"--steps", 0, true, 1, NULL, false},     {"--device", 0, true, 1, NULL, false},
    {"--duration", 0, true, 0, NULL, false},  {"--retention", 0, true, 0, NULL, false},
    {"--output", 'o', true, 0, NULL, false},  {"--interval", 0, true, 0, NULL, false},
    {"--window", 0, true, 0, NULL, false},    {"--gpus", 0, true, 3, NULL, false},
    {"--ranks", 0, true, 2, NULL, false},     {"--imbalance", 0, true, 2, NULL, false},
    {"--clock-skew", 0, true, 2, NULL, false},
    /* serving (--mode serve), for the simulator and the workload */
    {"--batching", 0, true, 1, NULL, false},  {"--rate", 0, true, 1, NULL, false},
    {"--min-batch", 0, true, 1, NULL, false}, {"--max-batch", 0, true, 1, NULL, false},
    {"--mem-cap", 0, true, 1, NULL, false},   {"--prompt-tokens", 0, true, 1, NULL, false},
    {"--out-tokens", 0, true, 1, NULL, false},
    /* TEST HOOK: skip the CUDA driver check (the launcher tests run a stand-in program
     * that streams records without a GPU) */
    {"--debug-assume-driver", 0, false, 0, NULL, true},
    {0},
};

bool LiveCli_apply(LiveCliOptions *o, const OptSpec *s, const char *v, char *err, size_t errlen) {
    const char *a = s->name;
    if (!strcmp(a, "--simulate")) {
        o->simulate = true;
        return true;
    }
    if (!strcmp(a, "--headless")) {
        o->headless = true;
        return true;
    }
    if (!strcmp(a, "--debug-assume-driver")) {
        o->assume_driver = true;
        return true;
    }
    if (!strcmp(a, "--workload")) {
        if (strcmp(v, "moe") != 0) {
            snprintf(err, errlen, "unknown workload '%s' (the built-in workload is 'moe')", v);
            return false;
        }
        o->workload = v;
        return true;
    }
    if (s->id && !o->sim_option_seen) {
        o->sim_option_seen = true;
        o->first_sim_option = a;
    }
    if (s->id == 2 && !o->first_sim_only) o->first_sim_only = a;
    if (s->id == 3 && !o->first_wl_only) o->first_wl_only = a;
    if ((s->id == 1 || s->id == 3) && o->n_fwd + 2 <= sizeof o->fwd / sizeof o->fwd[0]) { /* for --workload moe */
        o->fwd[o->n_fwd++] = (char *)a; /* the name alone, also for --opt=value */
        o->fwd[o->n_fwd++] = (char *)v;
    }
    int64_t n;
    double d;
    char terr[128];
#define BAD(...)                                                                                                       \
    do {                                                                                                               \
        snprintf(err, errlen, __VA_ARGS__);                                                                            \
        return false;                                                                                                  \
    } while (0)
    if (!strcmp(a, "--batching") || !strcmp(a, "--rate") || !strcmp(a, "--min-batch") || !strcmp(a, "--max-batch") ||
        !strcmp(a, "--mem-cap") || !strcmp(a, "--prompt-tokens") || !strcmp(a, "--out-tokens")) {
        ServeParams *sp = &o->serve_p;
        if (!o->first_serve_option) o->first_serve_option = a;
        if (!strcmp(a, "--batching")) {
            int b = ServeBatching_parse(v);
            if (b < 0) BAD("--batching takes dynamic or fixed, got '%s'", v);
            sp->batching = (ServeBatching)b;
        } else if (!strcmp(a, "--rate")) {
            if (!dbl_arg(v, 1e-3, 1e7, &d)) BAD("--rate needs requests per second in 0.001..1e7, got '%s'", v);
            sp->rate = d;
        } else if (!strcmp(a, "--min-batch") || !strcmp(a, "--max-batch")) {
            if (!int_arg(v, 1, 4096, &n)) BAD("%s needs a request count in 1..4096, got '%s'", a, v);
            if (a[3] == 'i') sp->min_batch = (int)n;
            else sp->max_batch = (int)n;
        } else if (!strcmp(a, "--mem-cap")) {
            uint64_t b;
            if (!Parse_bytes(v, &b) || b == 0) BAD("--mem-cap needs a size (e.g. 10GiB, 512MiB, bytes), got '%s'", v);
            sp->mem_cap = (double)b;
        } else if (!strcmp(a, "--prompt-tokens")) {
            if (!int_arg(v, 0, 1 << 20, &n)) BAD("--prompt-tokens needs a count in 0..1048576, got '%s'", v);
            sp->prompt_tokens = (int)n;
        } else {
            if (!int_arg(v, 1, 1 << 16, &n)) BAD("--out-tokens needs a count in 1..65536, got '%s'", v);
            sp->out_tokens = (int)n;
        }
        return true;
    }
    if (!strcmp(a, "--mode") && !strcmp(v, "serve")) {
        o->serve = true;
        o->mode = SCHED_DECODE; /* serving steps are decode steps */
    } else if (!strcmp(a, "--mode")) {
        int m = SchedMode_parse(v);
        if (m < 0) BAD("--mode takes prefill, decode, serial or serve, got '%s'", v);
        o->mode = m;
        o->serve = false;
    } else if (!strcmp(a, "--link")) {
        int l = SchedLink_parse(v);
        if (l < 0) BAD("--link takes nvlink (160 GB/s) or ib (50 GB/s), got '%s'", v);
        o->link = l;
    } else if (!strcmp(a, "--comm-sms")) {
        if (!int_arg(v, 1, 1023, &n)) BAD("--comm-sms needs an SM count in 1..131 (of 132), got '%s'", v);
        o->comm_sms = (int)n;
    } else if (!strcmp(a, "--tokens")) {
        if (!int_arg(v, 1, 1 << 20, &n)) BAD("--tokens needs a count in 1..1048576, got '%s'", v);
        o->tokens = (int)n;
    } else if (!strcmp(a, "--layers")) {
        if (!int_arg(v, 1, 1000, &n)) BAD("--layers needs a count in 1..1000, got '%s'", v);
        o->layers = (int)n;
    } else if (!strcmp(a, "--experts")) {
        if (!int_arg(v, 1, 65536, &n)) BAD("--experts needs a count in 1..65536, got '%s'", v);
        o->experts = (int)n;
    } else if (!strcmp(a, "--topk")) {
        if (!int_arg(v, 1, 65536, &n)) BAD("--topk needs a count in 1..65536, got '%s'", v);
        o->topk = (int)n;
    } else if (!strcmp(a, "--hidden")) {
        if (!int_arg(v, 1, 1 << 18, &n)) BAD("--hidden needs a size in 1..262144, got '%s'", v);
        o->hidden = (int)n;
    } else if (!strcmp(a, "--device")) {
        if (!int_arg(v, 0, 1023, &n)) BAD("--device needs an ordinal in 0..1023, got '%s'", v);
        o->device = (int)n;
    } else if (!strcmp(a, "--gpus")) { /* only passed on: ovtrace-workload checks it against the GPUs */
        if (!int_arg(v, 1, 1024, &n)) BAD("--gpus needs a GPU count in 1..1024, got '%s'", v);
    } else if (!strcmp(a, "--seed")) {
        if (!int_arg(v, 0, INT32_MAX, &n)) BAD("--seed needs a non-negative integer, got '%s'", v);
        o->seed = n;
    } else if (!strcmp(a, "--steps")) {
        if (!int_arg(v, 1, INT32_MAX, &n)) BAD("--steps needs a positive count, got '%s'", v);
        o->steps = n;
    } else if (!strcmp(a, "--tflops")) {
        if (!dbl_arg(v, 1e-3, 1e6, &d)) BAD("--tflops needs a positive number, got '%s'", v);
        o->tflops = d;
    } else if (!strcmp(a, "--speed")) {
        if (!dbl_arg(v, 1e-3, 1e6, &d)) BAD("--speed needs a factor in 0.001..1e6 (simulated time per wall time), got '%s'", v);
        o->speed = d;
    } else if (!strcmp(a, "--jitter")) {
        if (!dbl_arg(v, 0, 0.9, &d)) BAD("--jitter needs a fraction in 0..0.9, got '%s'", v);
        o->jitter = d;
    } else if (!strcmp(a, "--ranks")) {
        if (!int_arg(v, 1, 256, &n)) BAD("--ranks needs a rank count in 1..256, got '%s'", v);
        o->ranks = (int)n;
    } else if (!strcmp(a, "--imbalance")) {
        if (!dbl_arg(v, 0, 10, &d)) BAD("--imbalance needs a Zipf exponent in 0..10 (0: balanced experts), got '%s'", v);
        o->imbalance = d;
    } else if (!strcmp(a, "--clock-skew")) {
        if (!Time_parseDuration(v, 1000, &n, terr, sizeof terr))
            BAD("--clock-skew needs a duration (e.g. 200us, 1ms; bare numbers are us): %s", terr);
        /* at most an hour per node: 31 nodes of 256 ranks stay far inside the model's
         * 2^62 ns, where a larger skew would overflow the rank files' timestamps */
        if (n < 0 || n > CLOCK_SKEW_MAX_NS) BAD("--clock-skew needs a duration of at most 1h (3600s) per node, got '%s'", v);
        o->clock_skew_ns = n;
    } else if (!strcmp(a, "--duration") || !strcmp(a, "--retention") || !strcmp(a, "--interval") ||
               !strcmp(a, "--window")) {
        if (!Time_parseDuration(v, 1000000000, &n, terr, sizeof terr) || n <= 0)
            BAD("%s needs a positive duration (e.g. 10, 2.5s, 500ms): %s", a, n <= 0 ? "must be > 0" : terr);
        if (!strcmp(a, "--duration")) o->duration_ns = n;
        else if (!strcmp(a, "--retention")) o->retention_ns = n;
        else if (!strcmp(a, "--interval")) o->interval_ns = n;
        else o->window_ns = n;
    } else { /* -o / --output */
        o->out = v;
    }
#undef BAD
    return true;
}

bool LiveCli_config(const LiveCliOptions *o, LiveSessionConfig *cfg, char *err, size_t errlen) {
    LiveSessionConfig_default(cfg);
    SimConfig_default(&cfg->sim, (SchedMode)o->mode);
    ScheduleParams *p = &cfg->sim.params;
    if (o->comm_sms >= 0) p->comm_sms = o->comm_sms;
    if (o->tokens >= 0) p->tokens = o->tokens;
    if (o->layers >= 0) p->layers = o->layers;
    if (o->experts >= 0) p->experts = o->experts;
    if (o->topk >= 0) p->topk = o->topk;
    if (o->hidden >= 0) p->hidden = o->hidden;
    if (o->link >= 0) ScheduleParams_setLink(p, (SchedLink)o->link);
    if (o->tflops > 0) p->tflops = o->tflops;
    if (o->device >= 0) cfg->sim.device = o->device;
    if (o->seed >= 0) cfg->sim.seed = (uint64_t)o->seed;
    if (o->steps > 0) cfg->sim.max_steps = (uint64_t)o->steps;
    if (o->speed > 0) cfg->sim.speed = o->speed;
    if (o->jitter >= 0) cfg->sim.jitter = o->jitter;
    if (o->retention_ns != -2) cfg->store.retention_ns = o->retention_ns;
    if (o->experts >= 0 && o->topk < 0 && p->topk > p->experts) p->topk = p->experts;
    if (p->ep_ranks > p->experts) p->ep_ranks = p->experts;
    cfg->simulate = o->simulate;
    if (o->first_serve_option && !o->serve) {
        snprintf(err, errlen, "%s configures serving: add --mode serve", o->first_serve_option);
        return false;
    }
    cfg->sim.serve = o->serve;
    cfg->sim.serve_params = o->serve_p;
    cfg->sim.serve_params.seed = cfg->sim.seed;
    if (o->serve && !ServeParams_validate(&o->serve_p, err, errlen)) return false;
    if (o->ranks > 1) {
        snprintf(err, errlen, "--ranks simulates several ranks into one file each: use 'ovtrace record --simulate --ranks N -o OUT'");
        return false;
    }
    return ScheduleParams_validate(p, err, errlen);
}

void LiveCli_helpSim(FILE *out) {
    fprintf(out,
            "simulator options (--simulate: a DeepSeek-style MoE step, two micro-batches, no GPU needed;\n"
            "all data is marked SIMULATED):\n"
            "  --mode M          prefill (comm kernels hold SMs; default), decode (comm on the copy\n"
            "                    engine, waited on after compute) or serial (no overlap, baseline)\n"
            "  --comm-sms N      SMs of 132 a dispatch/combine kernel holds in prefill (default 20)\n"
            "  --tokens N        tokens per micro-batch (default 4096 prefill, 128 decode)\n"
            "  --layers N        MoE layers per step (default 4 prefill, 8 decode)\n"
            "  --experts N --topk K   routed experts and experts per token (default 256, 8)\n"
            "  --hidden N        hidden size (default 7168)\n"
            "  --link L          nvlink (160 GB/s, default) or ib (50 GB/s)\n"
            "  --tflops X        assumed dense TFLOP/s of the GPU (default 500)\n"
            "  --seed N          jitter seed (default 1); --jitter F relative jitter (default 0.05)\n"
            "  --speed X         simulated time per wall time (default 1: real time)\n"
            "  --steps N         stop after N steps\n"
            "  --device N        device ordinal in the events (default 0)\n"
            "  --ranks N         (record) N ranks in lockstep, one file per rank (OUT.rankK.json...):\n"
            "                    each collective ends on every rank at the last arrival + its transfer\n"
            "                    time; runs as fast as it can (default 4 steps)\n"
            "  --imbalance F     (with --ranks) expert popularity ~ 1/(i+1)^F over the experts in a\n"
            "                    seeded order, so ranks get unequal expert load and the most loaded\n"
            "                    rank arrives last at combine (default 0: balanced)\n"
            "  --clock-skew D    (with --ranks) node k's clock (ranks 8k..8k+7) reads k*D ahead\n"
            "serving (--mode serve: decode steps whose batch a serving policy picks; counter tracks\n"
            "'[serve] GPU N batch size', 'queue length', 'memory in use', 'tokens/s' beside the kernels,\n"
            "a serve::request range per request; 'ovtrace stats' reports throughput, mean batch,\n"
            "latency p50/p99 and memory):\n"
            "  --batching B      dynamic (default: continuous batching within the memory cap, the GPU's\n"
            "                    utilisation and the queue) or fixed (static batches of min(max-batch,\n"
            "                    what fits under --mem-cap), run to completion: the baseline)\n"
            "  --rate R          Poisson request arrivals per second (default 2000)\n"
            "  --min-batch N --max-batch N   requests per step (default 1, 64)\n"
            "  --mem-cap SIZE    weights + KV + activations (default 10GiB; 8 GiB of weights, 70 KiB of\n"
            "                    KV per token, 4 MiB of activations per request)\n"
            "  --prompt-tokens N --out-tokens N   KV tokens per prompt (512), mean output tokens (32)\n");
}

LiveCliSource LiveCli_source(const LiveCliOptions *o, char *err, size_t errlen) {
    if (errlen) err[0] = 0;
    int n = (o->simulate ? 1 : 0) + (o->workload ? 1 : 0) + (o->cmd_index >= 0 ? 1 : 0);
    if (n > 1) {
        snprintf(err, errlen, "give one source: --simulate, --workload moe or -- CMD ARGS");
        return LIVE_CLI_NONE;
    }
    if (o->simulate) {
        if (o->first_wl_only) {
            snprintf(err, errlen, "%s is a --workload moe option; the simulator models one GPU", o->first_wl_only);
            return LIVE_CLI_NONE;
        }
        return LIVE_CLI_SIMULATE;
    }
    if (o->workload) {
        if (o->first_sim_only) {
            snprintf(err, errlen, "%s is a simulator option (--simulate); the CUDA workload runs in real time", o->first_sim_only);
            return LIVE_CLI_NONE;
        }
        return LIVE_CLI_WORKLOAD;
    }
    if (o->cmd_index >= 0) {
        if (o->sim_option_seen) {
            snprintf(err, errlen, "%s configures --simulate or --workload moe, not a program run with -- CMD",
                     o->first_sim_option);
            return LIVE_CLI_NONE;
        }
        return LIVE_CLI_COMMAND;
    }
    return LIVE_CLI_NONE;
}

int LiveCli_launchConfig(const LiveCliOptions *o, char **argv, LaunchConfig *lc, char ***owned_argv, char *err,
                         size_t errlen) {
    LaunchConfig_default(lc);
    *owned_argv = NULL;
    bool skip_check = o->assume_driver; /* TEST ONLY: see live_cli.h */
    if (!skip_check && !Launch_cudaDriver(err, errlen)) return 2;
    lc->check_driver = !skip_check;
    if (o->workload) {
        *owned_argv = Launch_workloadArgv(true, o->fwd, o->n_fwd, err, errlen);
        if (!*owned_argv) return 2;
        lc->argv = *owned_argv;
        lc->inject = false; /* ovtrace-workload --collect runs the CUPTI collector in-process */
    } else {
        if (o->cmd_index < 0 || !argv[o->cmd_index]) {
            snprintf(err, errlen, "no program after '--' (usage: -- CMD ARGS)");
            return 2;
        }
        lc->argv = &argv[o->cmd_index];
        lc->inject = true;
    }
    return 0;
}

void LiveCli_helpSources(FILE *out) {
    fprintf(out,
            "sources (exactly one):\n"
            "  --simulate        the built-in simulated MoE workload (no GPU; data marked SIMULATED)\n"
            "  --workload moe    the built-in CUDA MoE workload (ovtrace-workload) under the in-process\n"
            "                    CUPTI collector; --mode --comm-sms --steps --tokens --layers --experts\n"
            "                    --topk --hidden --link --tflops --device --gpus are passed on to it\n"
            "                    (--gpus N: N GPUs with a real NCCL all-to-all; default: all visible\n"
            "                    GPUs when there are several and NCCL loads; --gpus 1: one GPU)\n"
            "  -- CMD ARGS       any CUDA program, with ovtrace's CUPTI injection library\n"
            "                    (CUDA_INJECTION64_PATH); the session ends when it exits\n"
            "The last two need an NVIDIA GPU and driver; without one they say so and exit non-zero.\n\n");
}

bool LiveCli_ranksConfig(const LiveCliOptions *o, SimRanksConfig *c, char *err, size_t errlen) {
    LiveCliOptions one = *o;
    one.ranks = 0;
    LiveSessionConfig cfg;
    if (!LiveCli_config(&one, &cfg, err, errlen)) return false;
    SimRanksConfig_default(c, (SchedMode)o->mode);
    c->params = cfg.sim.params;
    c->ranks = o->ranks;
    if (o->imbalance >= 0) c->imbalance = o->imbalance;
    if (o->jitter >= 0) c->jitter = o->jitter;
    if (o->seed >= 0) c->seed = (uint64_t)o->seed;
    if (o->steps > 0) c->steps = (uint64_t)o->steps;
    c->clock_skew_ns = o->clock_skew_ns;
    if (c->ranks < 2) {
        snprintf(err, errlen, "--ranks needs at least 2 ranks for a multi-rank simulation");
        return false;
    }
    return true;
}
