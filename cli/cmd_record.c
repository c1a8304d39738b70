/* ovtrace record: run a source headless and write a trace file (export format).
 * Ctrl-C / SIGTERM stop cleanly: the recording on disk is complete after every
 * checkpoint (once a second) and gets a final flush at the stop. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ovtrace/live.h"
#include "ovtrace/live_cli.h"

void help_record(FILE *out) {
    fprintf(out,
            "usage: ovtrace record -o OUT [--duration S] --simulate [SIMULATOR OPTIONS]\n"
            "       ovtrace record -o OUT [--duration S] -- CMD ARGS...   (CUPTI, needs a GPU)\n\n"
            "Records headless to OUT in Chrome Trace JSON (the format 'ovtrace export' writes;\n"
            "'ovtrace view' and Perfetto open it), compressed by extension: .json, .json.gz, .json.zst.\n"
            "The file is complete after every checkpoint (each second) and at the end; Ctrl-C stops\n"
            "cleanly and keeps everything recorded so far. Ring drop counts and, for --simulate, the\n"
            "parameters are recorded under the \"ovtrace\" key, marked \"simulated\": true.\n\n"
            "options:\n"
            "  -o, --output FILE   where to write (required)\n"
            "  --duration S        stop after S (e.g. 10, 2.5s, 500ms); default: until Ctrl-C\n"
            "  --retention S       events kept in memory (default 60s; written out every second)\n");
    LiveCli_helpSim(out);
}

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) { g_stop = sig; }

/* Shared with cmd_live.c's headless mode. */
int live_cli_nosource(const LiveCliOptions *o, const char *cmd);

int live_cli_nosource(const LiveCliOptions *o, const char *cmd) {
    if (o->cmd_index >= 0) {
        char why[256];
        if (!LiveCli_haveCudaDriver(why, sizeof why)) {
            cli_error("no CUDA driver found (%s): 'ovtrace %s -- CMD' traces a CUDA program with CUPTI and needs "
                      "an NVIDIA GPU and driver; try --simulate for the built-in simulated MoE workload",
                      why, cmd);
            return 2;
        }
        cli_error("'ovtrace %s -- CMD' (CUPTI injection) is not implemented yet (issue 6); try --simulate", cmd);
        return 3;
    }
    if (o->sim_option_seen) {
        cli_error("%s is a simulator option: add --simulate", o->first_sim_option);
        return 2;
    }
    cli_error("nothing to %s: give --simulate (a simulated DeepSeek-style MoE workload, no GPU needed) or "
              "-- CMD ARGS (a CUDA program, needs a GPU); see 'ovtrace %s --help'",
              cmd, cmd);
    return 2;
}

int cmd_record(int argc, char **argv) {
    LiveCliOptions o;
    LiveCli_init(&o);
    char err[512];
    for (int i = 1; i < argc; i++) {
        int r = LiveCli_parse(&o, argc, argv, &i, err, sizeof err);
        if (r < 0) {
            cli_error("%s", err);
            return 2;
        }
        if (r == 0) {
            cli_error("unknown option '%s' for record (see 'ovtrace record --help')", argv[i]);
            return 2;
        }
    }
    if (o.headless) {
        cli_error("record is always headless; --headless is for 'ovtrace live'");
        return 2;
    }
    if (!o.simulate) return live_cli_nosource(&o, "record");
    if (o.cmd_index >= 0) {
        cli_error("give either --simulate or -- CMD, not both");
        return 2;
    }
    if (!o.out) {
        cli_error("record needs an output file: -o OUT.json.zst");
        return 2;
    }
    LiveSessionConfig cfg;
    if (!LiveCli_config(&o, &cfg, err, sizeof err)) {
        cli_error("%s", err);
        return 2;
    }
    cfg.record_path = o.out;
    cfg.snapshot_ms = 0; /* no view */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    LiveSession *s = LiveSession_start(&cfg, err, sizeof err);
    if (!s) {
        cli_error("%s", err);
        return 1;
    }
    bool tty = isatty(2);
    int64_t t0 = Live_monotonicNs(), last_status = t0;
    while (!g_stop) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        int64_t now = Live_monotonicNs();
        if (o.duration_ns && now - t0 >= o.duration_ns) break;
        if (LiveSession_sourceDone(s)) break;
        if (LiveSession_recordError(s)[0]) break;
        if (tty && now - last_status >= 1000000000) {
            LiveStats st = LiveStore_stats(LiveSession_store(s));
            fprintf(stderr, "\rrecording (SIMULATED %s): %.1fs, %llu events, %.0f ev/s, drops %llu   ",
                    SchedMode_name(cfg.sim.params.mode), (double)(now - t0) / 1e9, (unsigned long long)st.ingested,
                    st.events_per_s, (unsigned long long)st.ring_drops);
            last_status = now;
        }
    }
    if (tty) fputc('\n', stderr);
    bool ok = LiveSession_stop(s, err, sizeof err);
    LiveStats st = LiveStore_stats(LiveSession_store(s));
    uint64_t steps = Simulator_steps(LiveSession_simulator(s));
    LiveSession_free(s);
    if (!ok) {
        cli_error("recording failed: %s", err);
        return 1;
    }
    fprintf(stderr, "recorded %llu events (SIMULATED %s, %llu steps) to %s; ring drops %llu%s\n",
            (unsigned long long)st.ingested, SchedMode_name(cfg.sim.params.mode), (unsigned long long)steps, o.out,
            (unsigned long long)st.ring_drops, g_stop ? " (stopped by signal)" : "");
    return 0;
}
