/* ovtrace record: run a source headless and write a trace file (export format).
 * Ctrl-C / SIGTERM stop cleanly: the recording on disk is complete after every
 * checkpoint (once a second) and gets a final flush at the stop. A program source
 * (--workload moe, -- CMD) is stopped with SIGINT and drained before the file closes. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "live_cmd.h"
#include "ovtrace/base/clock.h"
#include "ovtrace/live/live.h"
#include "live_opts.h"
#include "ovtrace/live/simranks.h"
#include "ovtrace/base/termsafe.h"

void help_record(FILE *out) {
    fprintf(out,
            "usage: ovtrace record -o OUT [--duration S] --simulate [SIMULATOR OPTIONS]\n"
            "       ovtrace record -o OUT --simulate --ranks N [--imbalance F] [SIMULATOR OPTIONS]\n"
            "       ovtrace record -o OUT [--duration S] --workload moe [WORKLOAD OPTIONS]   (needs a GPU)\n"
            "       ovtrace record -o OUT [--duration S] -- CMD ARGS...                      (needs a GPU)\n\n"
            "Records headless to OUT in Chrome Trace JSON (the format 'ovtrace export' writes;\n"
            "'ovtrace view' and Perfetto open it), compressed by extension: .json, .json.gz, .json.zst.\n"
            "The file exists from the start, holds the first events as soon as they arrive and is\n"
            "complete after every checkpoint (each second) and at the end; Ctrl-C stops\n"
            "cleanly and keeps everything recorded so far (so do SIGTERM, SIGHUP, SIGUSR1 and\n"
            "SIGALRM). A program is stopped with SIGINT (then\n"
            "SIGTERM, SIGKILL), its last events are drained, and recording ends by itself when it\n"
            "exits. Ring and CUPTI drop counts, the source (simulator parameters, or the collector and\n"
            "command) and whether the data is simulated are recorded under the \"ovtrace\" key.\n\n"
            "options:\n"
            "  -o, --output FILE   where to write (required); a symlink's target is written (the link\n"
            "                      stays); '-' (with --simulate), a device or a FIFO gets one stream\n"
            "                      (complete at the end, no per-second checkpoints)\n"
            "  --duration S        stop after S (e.g. 10, 2.5s, 500ms); default: until Ctrl-C or the\n"
            "                      source ends\n"
            "  --retention S       events kept in memory (default 60s; written out every second)\n\n");
    LiveCli_helpSources(out);
    LiveCli_helpSim(out);
    Cli_helpValues(out);
}

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) { g_stop = sig; }

const OptSpec *const LIVE_TABLES[] = {LIVE_CLI_OPTIONS, NULL};

typedef struct {
    LiveCliOptions *o;
    const char *cmd;
} LiveArgs;

static int live_opt(void *ctx, const OptSpec *s, const char *v) {
    LiveArgs *L = ctx;
    char err[512];
    if (!s) {
        cli_error("unknown option '%s' for %s (see 'ovtrace %s --help')", v, L->cmd, L->cmd);
        return 2;
    }
    if (!LiveCli_apply(L->o, s, v, err, sizeof err)) {
        cli_error("%s", err);
        return 2;
    }
    return 0;
}

int live_cmd_parse(LiveCliOptions *o, int argc, char **argv, const char *cmd) {
    LiveCli_init(o);
    LiveArgs L = {o, cmd};
    int rest = -1;
    int rc = Cli_parseOptions(cmd, argc, argv, LIVE_TABLES, live_opt, &L, &rest);
    if (rc) return rc;
    if (rest >= 0) o->cmd_index = rest; /* -- CMD ARGS (argc when nothing follows) */
    return 0;
}

int live_cmd_source(const LiveCliOptions *o, const char *cmd, LiveCliSource *src) {
    char err[512];
    *src = LiveCli_source(o, err, sizeof err);
    if (*src != LIVE_CLI_NONE) return 0;
    if (err[0]) {
        cli_error("%s", err);
        return 2;
    }
    if (o->sim_option_seen) {
        cli_error("%s is a simulator option: add --simulate (or --workload moe for the CUDA workload)",
                  o->first_sim_option);
        return 2;
    }
    cli_error("nothing to %s: give --simulate (a simulated DeepSeek-style MoE workload, no GPU needed), "
              "--workload moe (the CUDA workload, needs a GPU) or -- CMD ARGS (a CUDA program, needs a GPU); "
              "see 'ovtrace %s --help'",
              strcmp(cmd, "live") ? cmd : "watch", cmd);
    return 2;
}

void live_cmd_describe(const LiveCliOptions *o, LiveCliSource src, char **argv, const LiveSessionConfig *cfg,
                       char *buf, size_t n) {
    if (src == LIVE_CLI_SIMULATE) /* serving runs decode steps, but it is its own mode */
        snprintf(buf, n, "SIMULATED %s", cfg->sim.serve ? "serve" : SchedMode_name(cfg->sim.params.mode));
    else if (src == LIVE_CLI_WORKLOAD) snprintf(buf, n, "CUPTI in-process: workload moe %s", SchedMode_name(o->mode));
    else snprintf(buf, n, "CUPTI injected: %s", argv[o->cmd_index] ? argv[o->cmd_index] : "?");
}

int live_cmd_prepare(const LiveCliOptions *o, LiveCliSource src, char **argv, LaunchConfig *lc, char ***owned,
                     LiveSessionConfig *cfg) {
    *owned = NULL;
    if (src == LIVE_CLI_SIMULATE) return 0;
    char err[512];
    int rc = LiveCli_launchConfig(o, argv, lc, owned, err, sizeof err);
    if (rc) {
        cli_error("%s", err);
        return rc;
    }
    cfg->simulate = false;
    cfg->launch = lc;
    return 0;
}

/* --ranks N: the lockstep multi-rank simulation, written as fast as it runs. */
static int record_ranks(const LiveCliOptions *o, LiveCliSource src) {
    char err[512];
    if (src != LIVE_CLI_SIMULATE || o->ranks < 2) {
        cli_error("--ranks, --imbalance and --clock-skew need --simulate --ranks N (N >= 2)");
        return 2;
    }
    if (o->duration_ns || o->speed > 0) {
        cli_error("--ranks runs as fast as it can: give --steps N instead of --duration/--speed");
        return 2;
    }
    SimRanksConfig rc;
    if (!LiveCli_ranksConfig(o, &rc, err, sizeof err)) {
        cli_error("%s", err);
        return 2;
    }
    uint64_t events = 0;
    if (!SimRanks_write(&rc, o->out, &events, err, sizeof err)) {
        cli_error("recording failed: %s", err);
        return 1;
    }
    char *first = SimRanks_path(o->out, 0), *last = SimRanks_path(o->out, rc.ranks - 1);
    double load[256];
    SimRanks_loads(&rc, load);
    int hot = 0;
    for (int r = 1; r < rc.ranks; r++)
        if (load[r] > load[hot]) hot = r;
    fprintf(stderr,
            "recorded %llu events (SIMULATED %s, %d ranks, %llu steps, imbalance %g: rank %d has the most expert "
            "load, %.2fx the mean) to %s .. %s\n",
            (unsigned long long)events, SchedMode_name(rc.params.mode), rc.ranks, (unsigned long long)rc.steps,
            rc.imbalance, hot, load[hot], first, last);
    free(first);
    free(last);
    return 0;
}

int cmd_record(int argc, char **argv) {
    LiveCliOptions o;
    char err[512];
    int prc = live_cmd_parse(&o, argc, argv, "record");
    if (prc) return prc;
    if (o.headless) {
        cli_error("record is always headless; --headless is for 'ovtrace live'");
        return 2;
    }
    LiveCliSource src;
    int rc = live_cmd_source(&o, "record", &src);
    if (rc) return rc;
    if (!o.out) {
        cli_error("record needs an output file: -o OUT.json.zst");
        return 2;
    }
    if (!strcmp(o.out, "-") && src != LIVE_CLI_SIMULATE) {
        cli_error("-o - needs --simulate: a program writes to stdout too (use a FIFO or a file)");
        return 2;
    }
    if (o.ranks > 0 || o.imbalance >= 0 || o.clock_skew_ns) {
        if (!strcmp(o.out, "-")) {
            cli_error("--ranks writes one file per rank (OUT.rankK.json...): -o needs a file name");
            return 2;
        }
        return record_ranks(&o, src);
    }
    LiveSessionConfig cfg;
    if (!LiveCli_config(&o, &cfg, err, sizeof err)) {
        cli_error("%s", err);
        return 2;
    }
    LaunchConfig lc;
    char **owned = NULL;
    rc = live_cmd_prepare(&o, src, argv, &lc, &owned, &cfg);
    if (rc) return rc;
    lc.output_path = NULL; /* headless: the program keeps the terminal */
    lc.own_pgrp = false;   /* and gets the terminal's Ctrl-C itself */
    cfg.record_path = o.out;
    cfg.snapshot_ms = 0; /* no view */
    char what[300];
    live_cmd_describe(&o, src, argv, &cfg, what, sizeof what);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* any other request to end (hangup, kill -USR1, an alarm) stops cleanly too: a
     * complete file rather than a temporary one; signals ignored at start stay ignored */
    const int stops[] = {SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        struct sigaction old;
        if (sigaction(stops[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
            sigaction(stops[i], &sa, NULL);
    }
    LiveSession *s = LiveSession_start(&cfg, err, sizeof err);
    if (!s) {
        cli_error("%s", err);
        Launch_freeArgv(owned);
        return 1;
    }
    bool tty = isatty(2) && src == LIVE_CLI_SIMULATE; /* a program may write to the terminal too */
    int64_t t0 = Clock_monotonicNs(), last_status = t0;
    bool source_ended = false, timed_out = false;
    while (!g_stop) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        int64_t now = Clock_monotonicNs();
        if (o.duration_ns && now - t0 >= o.duration_ns) {
            timed_out = true;
            break;
        }
        if (LiveSession_sourceDone(s)) {
            source_ended = true;
            break;
        }
        if (LiveSession_recordError(s)[0]) break;
        if (tty && now - last_status >= 1000000000) {
            LiveStats st = LiveStore_stats(LiveSession_store(s));
            fprintf(stderr, "\rrecording (%s): %.1fs, %llu events, %.0f ev/s, drops %llu   ", what,
                    (double)(now - t0) / 1e9, (unsigned long long)st.ingested, st.events_per_s,
                    (unsigned long long)st.ring_drops);
            last_status = now;
        }
    }
    if (tty) fputc('\n', stderr);
    bool ok = LiveSession_stop(s, err, sizeof err);
    LiveStopReport stop = LiveSession_stopReport(s);
    if (stop.requested && stop.acks < stop.collectors)
        fprintf(stderr,
                "ovtrace: warning: %u of %u collectors of the program did not confirm a final flush within %d ms: "
                "its events since their last periodic flush may be missing\n",
                stop.collectors - stop.acks, stop.collectors, LIVE_STOP_ACK_MS);
    LiveStats st = LiveStore_stats(LiveSession_store(s));
    char ended[160] = "";
    int prog = LiveSession_programExit(s, ended, sizeof ended);
    uint64_t steps = src == LIVE_CLI_SIMULATE ? Simulator_steps(LiveSession_simulator(s)) : 0;
    LiveSession_free(s);
    Launch_freeArgv(owned);
    if (!ok) {
        cli_error("recording failed: %s", err);
        return 1;
    }
    if (src == LIVE_CLI_SIMULATE)
        TermSafe_fprintf(stderr, "recorded %llu events (%s, %llu steps) to %s; ring drops %llu%s\n",
                (unsigned long long)st.ingested, what, (unsigned long long)steps, o.out,
                (unsigned long long)st.ring_drops, g_stop ? " (stopped by signal)" : "");
    else
        TermSafe_fprintf(stderr, "recorded %llu events (%s) to %s; ring drops %llu, CUPTI dropped records %llu; program %s%s\n",
                (unsigned long long)st.ingested, what, o.out, (unsigned long long)st.ring_drops,
                (unsigned long long)st.cupti_drops, ended,
                g_stop ? " (stopped by signal)" : timed_out ? " (stopped after --duration)" : "");
    /* a program that failed on its own passes its status on (like time(1)); stopped by
     * us, it ended as asked */
    if (source_ended && prog > 0) return prog;
    return 0;
}
