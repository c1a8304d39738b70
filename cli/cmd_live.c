/* ovtrace live: watch a source while it runs. The TUI (tui/app.h) polls a TuiSource
 * that hands it the session's newest snapshot; --headless prints the rolling overlap
 * meter instead. */
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ovtrace/live.h"
#include "ovtrace/live_cli.h"
#include "ovtrace/tui/app.h"
#include "ovtrace/tui/crt.h"

int live_cli_nosource(const LiveCliOptions *o, const char *cmd); /* cmd_record.c */

void help_live(FILE *out) {
    fprintf(out,
            "usage: ovtrace live --simulate [SIMULATOR OPTIONS] [--retention S]\n"
            "       ovtrace live --simulate --headless [--duration S] [--interval S] [--window S]\n"
            "       ovtrace live -- CMD ARGS...   (CUPTI, needs a GPU)\n\n"
            "Shows a running workload in the timeline: the view follows the newest data (F toggles,\n"
            "panning leaves it), p freezes the display while collection goes on, the title bar shows\n"
            "the rolling overlap meter per device, events/s and ring drops. Simulated data is marked\n"
            "SIMULATED.\n\n"
            "options:\n"
            "  --retention S   keep the newest S of events (default 60s); older data is evicted in chunks\n"
            "  -o FILE         also record everything to FILE (like 'ovtrace record')\n"
            "  --headless      no TUI: print the meter every --interval (default 1s) over the last\n"
            "                  --window (default 500ms), for --duration (default: until Ctrl-C)\n");
    LiveCli_helpSim(out);
}

static volatile sig_atomic_t g_stop;
static void on_signal(int sig) { g_stop = sig; }

typedef struct {
    LiveSession *s;
    const char *mode;
    int64_t window_ns;
    Trace *shown, *retired;
    char desc[256];
} LiveTui;

/* "drops 0  20k ev/s  GPU0 overlap 0.99 exposed 0.00ms": drops first, so that a
 * narrow title bar still shows them. */
static void meter_text(char *buf, size_t n, const Trace *t, LiveSession *s, int64_t window_ns, bool compact) {
    LiveMeter m[8];
    size_t nd = Live_meter(t, window_ns, m, 8);
    LiveStats st = LiveStore_stats(LiveSession_store(s));
    int w = snprintf(buf, n, "drops %" PRIu64 "%s  %.0f ev/s", st.ring_drops, st.names_full ? " NAMES FULL" : "",
                     st.events_per_s);
    size_t k = w > 0 && (size_t)w < n ? (size_t)w : n - 1;
    for (size_t i = 0; i < nd && k + 1 < n; i++) {
        w = m[i].has_comm ? snprintf(buf + k, n - k, compact ? "  GPU%" PRId64 " ovl %.2f exp %.2fms"
                                                             : "  GPU%" PRId64 " overlap %.2f exposed %.2fms",
                                     m[i].device, m[i].ratio, (double)m[i].exposed_ns / 1e6)
                          : snprintf(buf + k, n - k, "  GPU%" PRId64 " no comm", m[i].device);
        if (w < 0) break;
        k += (size_t)w;
        if (k >= n) k = n - 1;
    }
}

static bool tui_poll(void *ctx, Trace **t) {
    LiveTui *L = ctx;
    Trace *n = LiveSession_takeSnapshot(L->s);
    if (!n) return false;
    Trace_free(L->retired); /* the model the app let go of at the previous poll */
    L->retired = L->shown;
    L->shown = n;
    *t = n;
    return true;
}

static const char *tui_describe(void *ctx) {
    LiveTui *L = ctx;
    char m[200];
    meter_text(m, sizeof m, L->shown, L->s, L->window_ns, true);
    snprintf(L->desc, sizeof L->desc, "LIVE %s", m);
    return L->desc;
}

static int run_tui(LiveSession *s, const LiveSessionConfig *cfg, const LiveCliOptions *o) {
    /* the first model: wait for a snapshot with events (at most ~5 s) */
    Trace *t = NULL;
    for (int i = 0; i < 500 && !g_stop; i++) {
        Trace *n = LiveSession_takeSnapshot(s);
        if (n && n->n_events) {
            Trace_free(t);
            t = n;
            break;
        }
        Trace_free(n);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    if (!t) {
        cli_error("the source produced no events");
        return 1;
    }
    LiveTui L = {s, SchedMode_name(cfg->sim.params.mode), o->window_ns, t, NULL, {0}};
    TuiSource src = {tui_poll, NULL, tui_describe, &L};
    char title[64];
    snprintf(title, sizeof title, "SIMULATED %s", L.mode);
    App *a = App_new(t, Crt_detectCaps(COLOR_MODE_AUTO, false), title);
    int rc = App_runInteractive(a, &src);
    App_free(a);
    Trace_free(L.shown);
    Trace_free(L.retired);
    return rc;
}

static int run_headless(LiveSession *s, const LiveSessionConfig *cfg, const LiveCliOptions *o) {
    int64_t t0 = Live_monotonicNs(), next = t0 + o->interval_ns;
    Trace *t = NULL;
    printf("# ovtrace live --headless: SIMULATED %s; overlap meter over the last %.0f ms\n",
           SchedMode_name(cfg->sim.params.mode), (double)o->window_ns / 1e6);
    fflush(stdout);
    while (!g_stop) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        Trace *n = LiveSession_takeSnapshot(s);
        if (n) {
            Trace_free(t);
            t = n;
        }
        int64_t now = Live_monotonicNs();
        bool end = (o->duration_ns && now - t0 >= o->duration_ns) || LiveSession_sourceDone(s);
        if (now >= next || end) {
            char m[256];
            if (t) meter_text(m, sizeof m, t, s, o->window_ns, false);
            else snprintf(m, sizeof m, "(no data yet)");
            LiveStats st = LiveStore_stats(LiveSession_store(s));
            printf("t=%6.1fs  %s  retained %" PRIu64 " events\n", (double)(now - t0) / 1e9, m, st.retained);
            fflush(stdout);
            next += o->interval_ns;
        }
        if (end) break;
    }
    Trace_free(t);
    return 0;
}

int cmd_live(int argc, char **argv) {
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
            cli_error("unknown option '%s' for live (see 'ovtrace live --help')", argv[i]);
            return 2;
        }
    }
    if (!o.simulate) return live_cli_nosource(&o, "live");
    if (o.cmd_index >= 0) {
        cli_error("give either --simulate or -- CMD, not both");
        return 2;
    }
    if (!o.headless && o.duration_ns) {
        cli_error("--duration is for --headless (the TUI runs until q)");
        return 2;
    }
    if (!o.headless && !isatty(1)) {
        cli_error("the live TUI needs a terminal; use --headless for the meter on stdout");
        return 2;
    }
    LiveSessionConfig cfg;
    if (!LiveCli_config(&o, &cfg, err, sizeof err)) {
        cli_error("%s", err);
        return 2;
    }
    cfg.record_path = o.out;
    cfg.snapshot_ms = 100;
    cfg.store.snapshot_max_events = 1u << 20; /* bounds a snapshot build to ~0.4 s */
    /* the view gets the newest 30 s (or the retention) at most */
    cfg.snapshot_span_ns = cfg.store.retention_ns > 0 && cfg.store.retention_ns < 30 * (int64_t)1000000000
                               ? cfg.store.retention_ns
                               : 30 * (int64_t)1000000000;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    if (o.headless) {
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
    }
    LiveSession *s = LiveSession_start(&cfg, err, sizeof err);
    if (!s) {
        cli_error("%s", err);
        return 1;
    }
    int rc = o.headless ? run_headless(s, &cfg, &o) : run_tui(s, &cfg, &o);
    bool ok = LiveSession_stop(s, err, sizeof err);
    LiveSession_free(s);
    if (!ok) {
        cli_error("recording failed: %s", err);
        return 1;
    }
    if (o.out) fprintf(stderr, "recorded to %s\n", o.out);
    return rc;
}
