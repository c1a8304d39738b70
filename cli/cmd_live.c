/* ovtrace live: watch a source while it runs. The TUI (ovtrace/tui/viewer.h) polls a TuiSource
 * that hands it the session's newest snapshot; --headless prints the rolling overlap
 * meter instead. */
#include <inttypes.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "live_cmd.h"
#include "ovtrace/base/clock.h"
#include "ovtrace/live/live.h"
#include "live_opts.h"
#include "ovtrace/base/termsafe.h"
#include "ovtrace/tui/viewer.h"

void help_live(FILE *out) {
    fprintf(out,
            "usage: ovtrace live --simulate [SIMULATOR OPTIONS] [--retention S] [-o FILE]\n"
            "       ovtrace live --workload moe [WORKLOAD OPTIONS]   (CUPTI in-process, needs a GPU)\n"
            "       ovtrace live -- CMD ARGS...                      (CUPTI injected, needs a GPU)\n"
            "       ovtrace live SOURCE --headless [--duration S] [--interval S] [--window S]\n\n"
            "Shows a running workload in the timeline: the view follows the newest data (F toggles,\n"
            "panning leaves it), p or Z (or Space on a lane) freezes the display while collection goes\n"
            "on and loads the whole retained buffer to browse, E saves the whole buffer to a file, the\n"
            "title bar shows first the rolling overlap meter per device, events/s and drops (ring;\n"
            "for CUPTI also CUPTI's dropped records). Simulated data\n"
            "is marked SIMULATED. A program's output goes to a log file while the TUI runs (its path\n"
            "is printed at the end); the session ends when the program exits (q leaves the view).\n\n"
            "options:\n"
            "  --retention S      keep the newest S of events (default 60s); older data is evicted\n"
            "                     in chunks\n"
            "  -o, --output FILE  also record everything to FILE (like 'ovtrace record')\n"
            "  --headless         no TUI: print the meter every --interval (default 1s) over the\n"
            "                     last --window (default 500ms), for --duration (default: until\n"
            "                     Ctrl-C or the source ends)\n\n");
    LiveCli_helpSources(out);
    LiveCli_helpSim(out);
    Cli_helpValues(out);
}

static volatile sig_atomic_t g_stop;
static void on_signal(int sig) { g_stop = sig; }
static bool g_source_ended; /* headless: the source ended by itself */

typedef struct {
    LiveSession *s;
    bool program; /* a CUPTI source: drops also show CUPTI's own count */
    int64_t window_ns;
    Trace *shown, *retired;
    char desc[400];
    /* the whole buffer for a frozen display, built on a thread (tui_snapshot_all) */
    pthread_t all_th;
    int all_state; /* ALL_IDLE, ALL_BUILDING (all_done tells when it finished), ALL_TAKEN */
    atomic_bool all_done;
    Trace *all;
} LiveTui;

enum { ALL_IDLE, ALL_BUILDING, ALL_TAKEN };

/* "drops 0  20k ev/s  GPU0 overlap 0.99 exposed 0.00ms": drops first, so that a
 * narrow title bar still shows them. With CUPTI: "drops 0 cupti 0 ...". */
static void meter_text(char *buf, size_t n, const Trace *t, LiveSession *s, bool program, int64_t window_ns,
                       bool compact) {
    LiveMeter m[8];
    size_t nd = t ? Live_meter(t, window_ns, m, 8) : 0;
    LiveStats st = LiveStore_stats(LiveSession_store(s));
    char cupti[48] = "";
    if (program || st.cupti_drops) snprintf(cupti, sizeof cupti, " cupti %" PRIu64, st.cupti_drops);
    char rate[32];
    if (compact && st.events_per_s >= 1e6) snprintf(rate, sizeof rate, "%.1fM", st.events_per_s / 1e6);
    else if (compact && st.events_per_s >= 1e4) snprintf(rate, sizeof rate, "%.0fk", st.events_per_s / 1e3);
    else snprintf(rate, sizeof rate, "%.0f", st.events_per_s);
    int w = snprintf(buf, n, "drops %" PRIu64 "%s%s  %s ev/s", st.ring_drops, cupti, st.names_full ? " NAMES FULL" : "",
                     rate);
    size_t k = w > 0 && (size_t)w < n ? (size_t)w : n - 1;
    if (compact && nd > 1) { /* the title bar: the worst device stands for all */
        size_t wi = SIZE_MAX;
        for (size_t i = 0; i < nd; i++)
            if (m[i].has_comm && (wi == SIZE_MAX || m[i].ratio < m[wi].ratio)) wi = i;
        if (wi == SIZE_MAX) snprintf(buf + k, n - k, "  %zu GPUs no comm", nd);
        else
            snprintf(buf + k, n - k, "  %zu GPUs min ovl %.2f (GPU%" PRId64 ") exp %.2fms", nd, m[wi].ratio,
                     m[wi].device, (double)m[wi].exposed_ns / 1e6);
        return;
    }
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

static void *all_main(void *arg) {
    LiveTui *L = arg;
    /* at most 4M events (~0.3-0.5 us each to build, bench/README.md); the message says
     * what span that covers when the buffer holds more */
    L->all = LiveStore_snapshot(LiveSession_store(L->s), (size_t)4 << 20, INT64_MIN);
    atomic_store(&L->all_done, true);
    return NULL;
}

/* Drops a full snapshot being built or not taken (the display resumed, or the end). */
static void all_reset(LiveTui *L) {
    if (L->all_state == ALL_BUILDING) {
        pthread_join(L->all_th, NULL);
        Trace_free(L->all);
    }
    L->all = NULL;
    L->all_state = ALL_IDLE;
    atomic_store(&L->all_done, false);
}

static void tui_set_frozen(void *ctx, bool frozen) {
    if (!frozen) all_reset(ctx);
}

/* Built on a thread so that freezing never blocks the keys: false until it is ready. */
static bool tui_snapshot_all(void *ctx, Trace **t) {
    LiveTui *L = ctx;
    if (L->all_state == ALL_IDLE) {
        atomic_store(&L->all_done, false);
        if (pthread_create(&L->all_th, NULL, all_main, L) != 0) return false;
        L->all_state = ALL_BUILDING;
        return false;
    }
    if (L->all_state != ALL_BUILDING || !atomic_load(&L->all_done)) return false;
    pthread_join(L->all_th, NULL);
    L->all_state = ALL_TAKEN;
    Trace *n = L->all;
    L->all = NULL;
    if (!n || !n->n_events) {
        Trace_free(n);
        return false;
    }
    Trace_free(L->retired); /* the model the app let go of before */
    L->retired = L->shown;
    L->shown = n;
    *t = n;
    return true;
}

static const char *tui_describe(void *ctx) {
    LiveTui *L = ctx;
    char m[200];
    meter_text(m, sizeof m, L->shown, L->s, L->program, L->window_ns, true);
    char ended[160];
    if (L->program && LiveSession_sourceDone(L->s)) {
        LiveSession_programExit(L->s, ended, sizeof ended);
        /* the meter before the exit text: a narrow title bar cuts the latter */
        snprintf(L->desc, sizeof L->desc, "ENDED %s (program %s)", m, ended);
    } else {
        snprintf(L->desc, sizeof L->desc, "LIVE %s", m);
    }
    return L->desc;
}

static bool tui_save(void *ctx, const char *path, char *msg, size_t n) {
    LiveTui *L = ctx;
    char err[512];
    LiveStats st = LiveStore_stats(LiveSession_store(L->s));
    if (!LiveStore_save(LiveSession_store(L->s), path, err, sizeof err)) {
        snprintf(msg, n, "save failed: %s", err);
        return false;
    }
    snprintf(msg, n, "saved the buffer (%" PRIu64 " events) to %s", st.retained, path);
    return true;
}

static int run_tui(LiveSession *s, const char *what, bool program, const LiveCliOptions *o) {
    /* the first model: wait for a snapshot with events (at most ~5 s for the simulator;
     * a program may take long to start its GPU work: until it ends or q / Ctrl-C) */
    Trace *t = NULL;
    if (program) fprintf(stderr, "ovtrace live: waiting for the first events of %s (Ctrl-C stops)\n", what);
    for (int i = 0; (program || i < 500) && !g_stop; i++) {
        Trace *n = LiveSession_takeSnapshot(s);
        if (n && n->n_events) {
            Trace_free(t);
            t = n;
            break;
        }
        Trace_free(n);
        if (program && LiveSession_sourceDone(s)) {
            Trace *last = LiveSession_takeSnapshot(s);
            if (last && last->n_events) {
                t = last;
                break;
            }
            Trace_free(last);
            char ended[160];
            LiveSession_programExit(s, ended, sizeof ended);
            cli_error("the program %s before it sent any GPU events", ended);
            return 1;
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    /* follow mode keeps the span of the first view: let the data cover a useful span
     * (500 ms of trace time) first, waiting at most 1.5 s */
    for (int i = 0; t && i < 150 && !g_stop && t->t_max - t->t_min < 500000000; i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        Trace *n = LiveSession_takeSnapshot(s);
        if (n && n->n_events >= t->n_events) {
            Trace_free(t);
            t = n;
        } else Trace_free(n);
        if (program && LiveSession_sourceDone(s)) break;
    }
    if (!t) {
        if (g_stop) return 128 + g_stop;
        cli_error("the source produced no events");
        return 1;
    }
    LiveTui L = {.s = s, .program = program, .window_ns = o->window_ns, .shown = t};
    atomic_init(&L.all_done, false);
    TuiSource src = {tui_poll, tui_set_frozen, tui_describe, &L, tui_save, tui_snapshot_all};
    App *a = App_new(t, Crt_detectCaps(COLOR_MODE_AUTO, false), what);
    int rc = App_runInteractive(a, &src);
    App_free(a);
    all_reset(&L);
    Trace_free(L.shown);
    Trace_free(L.retired);
    return rc;
}

static void headless_line(LiveSession *s, const Trace *t, bool program, const LiveCliOptions *o, int64_t t0,
                          const char *tag) {
    char m[256];
    if (t) meter_text(m, sizeof m, t, s, program, o->window_ns, false);
    else snprintf(m, sizeof m, "(no data yet)");
    LiveStats st = LiveStore_stats(LiveSession_store(s));
    printf("t=%6.1fs  %s  retained %" PRIu64 " events%s\n", (double)(Clock_monotonicNs() - t0) / 1e9, m, st.retained,
           tag);
    fflush(stdout);
}

static int run_headless(LiveSession *s, const char *what, bool program, const LiveCliOptions *o) {
    int64_t t0 = Clock_monotonicNs(), next = t0 + o->interval_ns;
    Trace *t = NULL;
    printf("# ovtrace live --headless: %s; overlap meter over the last %.0f ms\n", what, (double)o->window_ns / 1e6);
    fflush(stdout);
    bool done = false;
    while (!g_stop) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        Trace *n = LiveSession_takeSnapshot(s);
        if (n) {
            Trace_free(t);
            t = n;
        }
        int64_t now = Clock_monotonicNs();
        if (LiveSession_sourceDone(s)) g_source_ended = true;
        if ((o->duration_ns && now - t0 >= o->duration_ns) || g_source_ended) {
            done = true;
            break;
        }
        if (now >= next) {
            headless_line(s, t, program, o, t0, "");
            next += o->interval_ns;
        }
    }
    Trace_free(t);
    /* the last line covers everything: stop (final drain), then a fresh snapshot */
    char err[512];
    LiveSession_stop(s, err, sizeof err); /* idempotent: cmd_live reports its result */
    t = LiveStore_snapshot(LiveSession_store(s), 0, INT64_MIN);
    headless_line(s, t && t->n_events ? t : NULL, program, o, t0, done ? "  (end)" : "  (stopped)");
    Trace_free(t);
    return 0;
}

int cmd_live(int argc, char **argv) {
    /* as view does: Unicode glyphs in a UTF-8 terminal; numbers (recordings, the meter)
     * keep the C locale's decimal point */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    LiveCliOptions o;
    char err[512];
    int prc = live_cmd_parse(&o, argc, argv, "live");
    if (prc) return prc;
    LiveCliSource srck;
    int rc = live_cmd_source(&o, "live", &srck);
    if (rc) return rc;
    bool program = srck != LIVE_CLI_SIMULATE;
    if (!o.headless && o.duration_ns) {
        cli_error("--duration is for --headless (the TUI runs until q)");
        return 2;
    }
    LiveSessionConfig cfg;
    if (!LiveCli_config(&o, &cfg, err, sizeof err)) {
        cli_error("%s", err);
        return 2;
    }
    LaunchConfig lc;
    char **owned = NULL;
    rc = live_cmd_prepare(&o, srck, argv, &lc, &owned, &cfg);
    if (rc) return rc;
    if (!o.headless && !isatty(1)) {
        cli_error("the live TUI needs a terminal; use --headless for the meter on stdout");
        Launch_freeArgv(owned);
        return 2;
    }
    /* the TUI owns the terminal: the program writes to a log file and runs in its own
     * process group (Ctrl-C is a key of the TUI, which then stops the program) */
    char log_path[512] = "";
    if (program && !o.headless) {
        const char *tmp = getenv("TMPDIR");
        snprintf(log_path, sizeof log_path, "%s/ovtrace-live-%ld.log", tmp && *tmp ? tmp : "/tmp", (long)getpid());
        lc.output_path = log_path;
        lc.own_pgrp = true;
    } else {
        lc.output_path = NULL;
        lc.own_pgrp = false;
    }
    char what[300];
    live_cmd_describe(&o, srck, argv, &cfg, what, sizeof what);
    if (o.out && !strcmp(o.out, "-")) {
        cli_error("live -o needs a file, device or FIFO: stdout is the %s", o.headless ? "meter's" : "TUI's");
        Launch_freeArgv(owned);
        return 2;
    }
    cfg.record_path = o.out;
    cfg.snapshot_ms = 100;
    cfg.store.snapshot_max_events = 1u << 20; /* bounds a snapshot build to ~0.4 s */
    /* the followed view covers the whole retention (bounded by snapshot_max_events);
     * freezing takes everything retained (tui_snapshot_all) */
    cfg.snapshot_span_ns = cfg.store.retention_ns > 0 ? cfg.store.retention_ns : 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    if (o.headless || program) { /* the TUI installs its own handlers once it runs */
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
    }
    LiveSession *s = LiveSession_start(&cfg, err, sizeof err);
    if (!s) {
        cli_error("%s", err);
        Launch_freeArgv(owned);
        return 1;
    }
    rc = o.headless ? run_headless(s, what, program, &o) : run_tui(s, what, program, &o);
    bool ok = LiveSession_stop(s, err, sizeof err);
    char ended[160] = "";
    int prog = LiveSession_programExit(s, ended, sizeof ended);
    LiveStats st = LiveStore_stats(LiveSession_store(s));
    LiveSession_free(s);
    Launch_freeArgv(owned);
    if (program)
        fprintf(stderr, "ovtrace live: program %s; ring drops %" PRIu64 ", CUPTI dropped records %" PRIu64 "%s%s\n",
                ended, st.ring_drops, st.cupti_drops, log_path[0] ? "; its output: " : "", log_path);
    if (!ok) {
        cli_error("recording failed: %s", err);
        return 1;
    }
    if (o.out) TermSafe_fprintf(stderr, "recorded to %s\n", o.out);
    /* headless, a program that failed on its own passes its status on (as record does;
     * Ctrl-C and --duration are the normal ways out); the TUI leaves with q's 0 */
    if (o.headless && rc == 0 && !g_stop && prog > 0 && g_source_ended) return prog;
    return rc;
}
