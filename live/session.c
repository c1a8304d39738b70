/* LiveSession: one source (the simulator, or a program streaming through a shared
 * ring set: the CUPTI collector in-process or injected) -> RingSet -> drain
 * thread -> LiveStore; a background thread publishes view snapshots into a one-slot
 * mailbox (double buffering: the UI owns the snapshot it renders, the mailbox holds
 * the next) and checkpoints the recording. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "live_internal.h"
#include "ovtrace/collector/gpu_info.h"
#include "ovtrace/write/jsonout.h"

/* events in the quick first checkpoint (~1 ms to write) */
#define FIRST_CHECKPOINT_EVENTS 4096

struct LiveSession {
    LiveSessionConfig cfg;
    RingSet *rings;
    LiveStore *store;
    Simulator *sim;
    Launch *launch;
    int prog_exit;        /* Launch_exitCode once known (-1: running / none) */
    char prog_desc[128];  /* Launch_describe */
    LiveRecorder *rec;
    pthread_t drain_thread, bg_thread;
    bool threads;
    atomic_bool stop_drain, stop_bg;
    _Atomic(Trace *) mailbox;
    atomic_uint_fast64_t recorded;
    pthread_mutex_t rec_mu;
    char rec_err[512];
    LiveStopReport stop_report;
    bool stopped;
    bool stop_ok;
    char stop_err[512];
};

void LiveSessionConfig_default(LiveSessionConfig *c) {
    memset(c, 0, sizeof *c);
    LiveStoreConfig_default(&c->store);
    SimConfig_default(&c->sim, SCHED_PREFILL);
    c->snapshot_ms = 100;
    c->checkpoint_ms = 1000;
    /* 256k records (16 MiB) per ring: 260 ms of slack at 1M ev/s; pages are touched
     * only by rings a producer uses */
    c->ring.nrings = 64;
    c->ring.capacity = 1u << 18;
}

static void sleep_ns(int64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    nanosleep(&ts, NULL);
}

static void first_checkpoint(LiveSession *s);

static void *drain_main(void *arg) {
    LiveSession *s = arg;
    bool first = s->rec == NULL; /* the recording holds events (the first few, at least) */
    for (;;) {
        bool stop = atomic_load(&s->stop_drain);
        size_t n = LiveStore_drain(s->store, 0);
        if (n > 0 && !first) {
            first_checkpoint(s);
            first = atomic_load(&s->recorded) > 0;
        }
        if (stop && n == 0) break;
        if (n == 0) sleep_ns(200000);
    }
    return NULL;
}

static void publish(LiveSession *s) {
    int64_t from = INT64_MIN;
    if (s->cfg.snapshot_span_ns > 0) {
        LiveStats st = LiveStore_stats(s->store);
        if (st.retained) from = st.t_last - s->cfg.snapshot_span_ns;
    }
    Trace *t = LiveStore_snapshot(s->store, 0, from);
    Trace *old = atomic_exchange(&s->mailbox, t);
    Trace_free(old); /* the UI never took it: it was already stale */
}

static void checkpoint(LiveSession *s) {
    pthread_mutex_lock(&s->rec_mu);
    if (s->rec && !s->rec_err[0]) {
        char err[512];
        if (!LiveRecorder_checkpoint(s->rec, s->store, err, sizeof err)) snprintf(s->rec_err, sizeof s->rec_err, "%s", err);
        atomic_store(&s->recorded, LiveRecorder_events(s->rec));
    }
    pthread_mutex_unlock(&s->rec_mu);
}

/* A full checkpoint of a fast source's first second can take seconds, and until its
 * first frame is out the file holds no event: the drain thread (not niced, unlike the
 * background thread) writes the first few thousand events as soon as it has them, so
 * that the file loads from then on even if a kill -9 lands inside that checkpoint. It
 * never waits: while a checkpoint runs it tries again after its next drain. */
static void first_checkpoint(LiveSession *s) {
    if (pthread_mutex_trylock(&s->rec_mu) != 0) return;
    if (s->rec && !s->rec_err[0] && atomic_load(&s->recorded) == 0) {
        char err[512];
        if (!LiveRecorder_checkpointSome(s->rec, s->store, FIRST_CHECKPOINT_EVENTS, err, sizeof err))
            snprintf(s->rec_err, sizeof s->rec_err, "%s", err);
        atomic_store(&s->recorded, LiveRecorder_events(s->rec));
    }
    pthread_mutex_unlock(&s->rec_mu);
}

static void *bg_main(void *arg) {
    LiveSession *s = arg;
    /* snapshots and checkpoints yield the CPU to the drain thread, so that a busy view
     * never makes the rings overflow (measured in bench/RESULTS-live.md) */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
    int64_t now = Clock_monotonicNs();
    int64_t next_snap = now, next_ckpt = now + (int64_t)s->cfg.checkpoint_ms * 1000000;
    while (!atomic_load(&s->stop_bg)) {
        now = Clock_monotonicNs();
        if (s->cfg.snapshot_ms > 0 && now >= next_snap) {
            publish(s);
            next_snap = Clock_monotonicNs() + (int64_t)s->cfg.snapshot_ms * 1000000;
        }
        if (s->rec && now >= next_ckpt) {
            checkpoint(s);
            next_ckpt = Clock_monotonicNs() + (int64_t)s->cfg.checkpoint_ms * 1000000;
        }
        sleep_ns(5000000);
    }
    return NULL;
}

/* "collector" metadata: how the program's events are collected, and the command. */
static void describe_program(LiveStore *store, const LaunchConfig *lc) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = xopen_memstream(&buf, &len);
    fprintf(f, "{\"kind\": \"cupti\", \"mode\": \"%s\", \"command\": [", lc->inject ? "injected" : "in-process");
    for (size_t i = 0; lc->argv && lc->argv[i]; i++) {
        if (i) fputs(", ", f);
        JsonOut_string(f, lc->argv[i]);
    }
    fputs("]}", f);
    fclose(f);
    LiveStore_setMetaJson(store, "collector", buf);
    free(buf);
}

/* "gpus" metadata: the hardware a real program ran on, so a recording names it. */
static void describe_gpus(LiveStore *store, const char *libcuda, const char *libnvml) {
    GpuInfo gi;
    if (!GpuInfo_query(&gi, libcuda, libnvml)) return;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = xopen_memstream(&buf, &len);
    fputs("{\"driver\": ", f);
    JsonOut_string(f, gi.driver);
    fprintf(f, ", \"cuda_driver\": \"%d.%d\", \"devices\": [", gi.cuda_driver / 1000, gi.cuda_driver % 1000 / 10);
    for (int i = 0; i < gi.n_devices; i++) {
        const GpuInfoDevice *d = &gi.dev[i];
        fprintf(f, "%s{\"device\": %d, \"name\": ", i ? ", " : "", i);
        JsonOut_string(f, d->name);
        fprintf(f, ", \"sms\": %d, \"compute_capability\": \"%d.%d\", \"memory_mib\": %llu}", d->sms, d->cc_major,
                d->cc_minor, (unsigned long long)(d->memory_bytes >> 20));
    }
    fputs("]}", f);
    fclose(f);
    LiveStore_setMetaJson(store, "gpus", buf);
    free(buf);
}

static void note_exit(LiveSession *s) {
    s->prog_exit = Launch_exitCode(s->launch);
    Launch_describe(s->launch, s->prog_desc, sizeof s->prog_desc);
}

/* The stop handshake of the ring set (ring.h): the program's collectors put what CUPTI
 * holds into the rings and acknowledge, before any signal. Most CUDA programs have no
 * SIGINT handler, so their collector's exit flush never runs and everything since its
 * last periodic flush would be lost. Bounded: a collector that does not answer (an
 * injection library that does not know the handshake, a wedged program) costs
 * LIVE_STOP_ACK_MS. The drain thread keeps emptying the rings meanwhile. */
static void request_flush(LiveSession *s) {
    LiveStopReport *rep = &s->stop_report;
    int64_t t0 = Clock_monotonicNs();
    RingSet_requestStop(s->rings);
    rep->requested = true;
    RingStopState st;
    for (;;) {
        st = RingSet_stopState(s->rings);
        if (st.acks >= st.collectors || Launch_poll(s->launch)) break;
        if (Clock_monotonicNs() - t0 >= (int64_t)LIVE_STOP_ACK_MS * 1000000) break;
        sleep_ns(1000000);
    }
    rep->collectors = st.collectors;
    rep->acks = st.acks;
    rep->events_sent = st.events_sent;
    rep->wait_ns = Clock_monotonicNs() - t0;
}

/* After the final drain: what the stop cost, into the metadata. */
static void note_stop(LiveSession *s) {
    LiveStopReport *rep = &s->stop_report;
    if (!rep->requested) return;
    rep->events_received = LiveStore_stats(s->store).ingested;
    rep->events_lost = rep->events_sent > rep->events_received ? rep->events_sent - rep->events_received : 0;
    char buf[320];
    snprintf(buf, sizeof buf,
             "{\"flush_requested\": true, \"collectors\": %u, \"acknowledged\": %u, \"wait_ms\": %.1f, "
             "\"events_sent\": %llu, \"events_received\": %llu, \"events_lost\": %llu}",
             rep->collectors, rep->acks, (double)rep->wait_ns / 1e6, (unsigned long long)rep->events_sent,
             (unsigned long long)rep->events_received, (unsigned long long)rep->events_lost);
    LiveStore_setMetaJson(s->store, "stop", buf);
}

/* The stop handshake, then SIGINT (the program's own clean stop: the workload finishes
 * its step and flushes), 5 s; then SIGTERM, 3 s; then SIGKILL. */
static void stop_program(LiveSession *s) {
    if (s->prog_exit >= 0 || Launch_poll(s->launch)) {
        note_exit(s);
        return;
    }
    request_flush(s);
    if (Launch_poll(s->launch)) { /* it ended by itself meanwhile */
        note_exit(s);
        return;
    }
    Launch_signal(s->launch, SIGINT);
    if (!Launch_wait(s->launch, 5000000000LL)) {
        Launch_signal(s->launch, SIGTERM);
        if (!Launch_wait(s->launch, 3000000000LL)) {
            Launch_signal(s->launch, SIGKILL);
            Launch_wait(s->launch, -1);
        }
    }
    note_exit(s);
}

LiveSession *LiveSession_start(const LiveSessionConfig *cfg, char *err, size_t errlen) {
    if (cfg->simulate && cfg->launch) {
        snprintf(err, errlen, "a session has one source: the simulator or a program, not both");
        return NULL;
    }
    LiveSession *s = xcalloc(1, sizeof *s);
    s->cfg = *cfg;
    if (s->cfg.checkpoint_ms <= 0) s->cfg.checkpoint_ms = 1000;
    pthread_mutex_init(&s->rec_mu, NULL);
    atomic_init(&s->mailbox, NULL);
    atomic_init(&s->recorded, 0);
    atomic_init(&s->stop_drain, false);
    atomic_init(&s->stop_bg, false);
    s->prog_exit = -1;
    bool shared = cfg->shared_rings || cfg->launch;
    s->rings = shared ? RingSet_create_shared(&s->cfg.ring) : RingSet_new(&s->cfg.ring);
    if (!s->rings) {
        snprintf(err, errlen, shared ? "cannot create the shared ring set (memfd): out of memory or bad ring configuration"
                                     : "bad ring configuration");
        goto fail;
    }
    s->cfg.store.simulated = cfg->simulate;
    char srcname[300];
    if (!s->cfg.store.source_name) {
        if (cfg->simulate) s->cfg.store.source_name = "live:simulate";
        else if (cfg->launch && cfg->launch->argv && cfg->launch->argv[0]) {
            const char *base = strrchr(cfg->launch->argv[0], '/');
            snprintf(srcname, sizeof srcname, "live:%s", base ? base + 1 : cfg->launch->argv[0]);
            s->cfg.store.source_name = srcname;
        } else s->cfg.store.source_name = "live";
    }
    s->store = LiveStore_new(s->rings, &s->cfg.store);
    s->cfg.store.source_name = NULL; /* the store has its own copy (srcname is local) */
    if (cfg->launch) describe_program(s->store, cfg->launch);
    if (cfg->simulate) {
        char e2[256];
        if (!ScheduleParams_validate(&cfg->sim.params, e2, sizeof e2)) {
            snprintf(err, errlen, "%s", e2);
            goto fail;
        }
        Simulator_describe(&cfg->sim, s->store);
    }
    if (cfg->record_path) {
        s->rec = LiveRecorder_open(cfg->record_path, err, errlen);
        if (!s->rec) goto fail;
    }
    if (cfg->simulate) {
        s->sim = Simulator_start(&cfg->sim, s->rings, err, errlen);
        if (!s->sim) goto fail;
    }
    if (cfg->launch) {
        s->launch = Launch_start(cfg->launch, s->rings, err, errlen);
        if (!s->launch) goto fail;
    }
    s->cfg.launch = NULL; /* the caller's; only needed to start */
    checkpoint(s); /* the recording exists (complete, no events yet) from the start */
    pthread_create(&s->drain_thread, NULL, drain_main, s);
    pthread_create(&s->bg_thread, NULL, bg_main, s);
    s->threads = true;
    /* while the program starts: cuInit here takes a moment and creates no context */
    if (s->launch && (cfg->gpu_libcuda || cfg->launch->check_driver))
        describe_gpus(s->store, cfg->gpu_libcuda, cfg->gpu_libnvml);
    return s;
fail:
    LiveRecorder_abort(s->rec);
    s->rec = NULL;
    Simulator_stop(s->sim);
    Simulator_free(s->sim);
    LiveStore_free(s->store);
    RingSet_free(s->rings);
    pthread_mutex_destroy(&s->rec_mu);
    free(s);
    return NULL;
}

bool LiveSession_stop(LiveSession *s, char *err, size_t errlen) {
    if (s->stopped) {
        if (!s->stop_ok) snprintf(err, errlen, "%s", s->stop_err);
        return s->stop_ok;
    }
    s->stopped = true;
    Simulator_stop(s->sim);
    if (s->launch) stop_program(s);
    if (s->threads) {
        atomic_store(&s->stop_drain, true); /* the drain thread empties the rings before it ends */
        pthread_join(s->drain_thread, NULL);
        atomic_store(&s->stop_bg, true);
        pthread_join(s->bg_thread, NULL);
        s->threads = false;
    }
    LiveStore_drain(s->store, 0); /* everything the source pushed before it ended */
    if (s->launch) {
        note_stop(s);
        char buf[256];
        FILE *f = fmemopen(buf, sizeof buf, "w");
        if (f) {
            fprintf(f, "{\"exit_status\": %d, \"ended\": ", s->prog_exit);
            JsonOut_string(f, s->prog_desc);
            fputc('}', f);
            fputc(0, f);
            fclose(f);
            buf[sizeof buf - 1] = 0;
            LiveStore_setMetaJson(s->store, "program", buf);
        }
    }
    s->stop_ok = true;
    pthread_mutex_lock(&s->rec_mu);
    if (s->rec) {
        if (s->rec_err[0]) {
            snprintf(s->stop_err, sizeof s->stop_err, "%s", s->rec_err);
            s->stop_ok = false;
            LiveRecorder_abort(s->rec);
        } else {
            LiveRecorder *r = s->rec;
            uint64_t before = LiveRecorder_events(r);
            (void)before;
            if (!LiveRecorder_close(r, s->store, s->stop_err, sizeof s->stop_err)) s->stop_ok = false;
        }
        s->rec = NULL;
    }
    pthread_mutex_unlock(&s->rec_mu);
    if (!s->stop_ok) snprintf(err, errlen, "%s", s->stop_err);
    return s->stop_ok;
}

void LiveSession_free(LiveSession *s) {
    if (!s) return;
    char err[512];
    LiveSession_stop(s, err, sizeof err);
    Simulator_free(s->sim);
    Launch_free(s->launch);
    Trace_free(atomic_exchange(&s->mailbox, NULL));
    LiveStore_free(s->store);
    RingSet_free(s->rings);
    pthread_mutex_destroy(&s->rec_mu);
    free(s);
}

LiveStore *LiveSession_store(LiveSession *s) { return s->store; }
Simulator *LiveSession_simulator(LiveSession *s) { return s->sim; }
bool LiveSession_sourceDone(LiveSession *s) {
    if (s->launch) {
        if (s->prog_exit >= 0) return true;
        if (!Launch_poll(s->launch)) return false;
        note_exit(s);
        return true;
    }
    return s->sim && Simulator_finished(s->sim);
}

LiveStopReport LiveSession_stopReport(LiveSession *s) { return s->stop_report; }

int LiveSession_programExit(LiveSession *s, char *desc, size_t n) {
    if (s->launch && s->prog_exit < 0 && Launch_poll(s->launch)) note_exit(s);
    if (n) snprintf(desc, n, "%s", s->prog_exit >= 0 ? s->prog_desc : s->launch ? "running" : "");
    return s->prog_exit;
}
Trace *LiveSession_takeSnapshot(LiveSession *s) { return atomic_exchange(&s->mailbox, NULL); }
const char *LiveSession_recordError(LiveSession *s) { return s->rec_err; }
