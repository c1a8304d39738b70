/* The live pipeline: sources -> RingSet -> LiveStore (+ recorder) -> snapshots for the
 * view, rolling overlap meter. See docs/live.md.
 *
 *   Simulator (producer thread) --push--> RingSet --drain thread--> LiveStore
 *                                                                   |  chunks, retention
 *                    background thread: snapshot every ~100 ms -----+--> mailbox --> UI
 *                                       recording checkpoint  ------+--> out.json.zst
 *
 * Events in the live pipeline have src = TRACE_NO_SRC (no source text). */
#ifndef OVTRACE_LIVE_H
#define OVTRACE_LIVE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/collector/launch.h"
#include "ovtrace/ring/ring.h"
#include "ovtrace/kernels/schedule.h"
#include "ovtrace/kernels/serve.h"
#include "ovtrace/model/trace.h"

/* ---- simulated MoE source (live/simulate.c) ------------------------------------------ */

typedef struct {
    ScheduleParams params;
    uint64_t seed;      /* jitter RNG; equal seeds give equal durations */
    double jitter;      /* relative, uniform in [-jitter, +jitter] (default 0.05) */
    double speed;       /* simulated ns per wall ns (1 = real time); <= 0: unpaced */
    uint64_t max_steps; /* stop after this many steps (0: until stopped) */
    int32_t device;     /* CUDA device ordinal in the events */
    int64_t start_ns;   /* timestamp of simulated t=0 (0: CLOCK_REALTIME at start) */
    /* --mode serve: decode steps whose batch a serving policy picks
     * (ovtrace/kernels/serve.h, live/serve_sim.c); max_steps then counts serving steps */
    bool serve;
    ServeParams serve_params;
} SimConfig;

void SimConfig_default(SimConfig *c, SchedMode mode);

typedef struct Simulator Simulator;

/* Starts the producer thread, pushing into set. NULL (err) on bad parameters. */
Simulator *Simulator_start(const SimConfig *cfg, RingSet *set, char *err, size_t errlen);
/* Asks the thread to stop and joins it. Safe to call twice. */
void Simulator_stop(Simulator *s);
void Simulator_free(Simulator *s);
bool Simulator_finished(const Simulator *s); /* max_steps reached */
uint64_t Simulator_steps(const Simulator *s);
struct LiveStore;
/* Marks a store as holding this simulation: "params" and "simulator" metadata (recorded
 * under the "ovtrace" key) and the schedule's stream names. */
void Simulator_describe(const SimConfig *cfg, struct LiveStore *store);

/* Runs the simulation synchronously without pacing, handing every event (in end-time
 * order) to fn: for tests and for tools that want a trace without threads. */
typedef void (*SimEventFn)(const RingRecord *rec, const char *name, void *ctx);
bool Simulator_run(const SimConfig *cfg, uint64_t steps, SimEventFn fn, void *ctx, char *err, size_t errlen);

/* ---- live store (live/store.c) -------------------------------------------------------- */

typedef struct {
    int64_t retention_ns;       /* keep events whose end is within this of the newest
                                   (default 60 s; < 0: keep everything) */
    size_t max_events;          /* hard cap on retained events (default 32M) */
    size_t chunk_events;        /* eviction granularity (default 65536 events) */
    size_t snapshot_max_events; /* newest events a view snapshot holds (default 2M) */
    const CommRules *rules;     /* NULL: CommRules_default() */
    bool simulated;
    const char *source_name;    /* source path shown by the view (default "live") */
} LiveStoreConfig;

void LiveStoreConfig_default(LiveStoreConfig *c);

typedef struct LiveStore LiveStore;

typedef struct {
    uint64_t ingested;     /* events taken from the rings so far */
    uint64_t retained;     /* events held now */
    uint64_t evicted;      /* events dropped by retention */
    uint64_t ring_drops;   /* exact drops counted by the rings (producers never block) */
    uint64_t names_full;   /* interns refused by the full name table */
    uint64_t cupti_drops;  /* CUPTI's own dropped-record count: the newest value of the
                              "cupti dropped records" counter, summed over processes */
    uint64_t clamped;      /* events whose start or end lay beyond ±2^62 ns (timeunits.h)
                              and was moved to the edge of that range */
    int64_t t_first, t_last; /* retained extent, ns (0 if empty) */
    double events_per_s;   /* ingest rate over the last ~1 s */
    size_t memory_bytes;   /* chunks + lanes + names */
    size_t n_lanes;
} LiveStats;

/* rings may be NULL (events then come only through LiveStore_add). */
LiveStore *LiveStore_new(RingSet *rings, const LiveStoreConfig *cfg);
void LiveStore_free(LiveStore *s);

/* Consumer side: moves up to max records (0: all there are) from the rings into the
 * store, evicting by retention. Returns the number of events taken. One thread. */
size_t LiveStore_drain(LiveStore *s, size_t max);
/* Adds one record directly (name given as a string): tests, synchronous sources. */
void LiveStore_add(LiveStore *s, const RingRecord *rec, const char *name);
/* Names the lane of a GPU stream / CPU thread (shown by the view and recorded). */
void LiveStore_setStreamName(LiveStore *s, int64_t device, int64_t stream, const char *name);
void LiveStore_setThreadName(LiveStore *s, int64_t pid, int64_t tid, const char *name);
/* Extra metadata recorded under the "ovtrace" key (a JSON object text, e.g. the
 * simulator parameters); copied. */
void LiveStore_setMetaJson(LiveStore *s, const char *key, const char *json);

LiveStats LiveStore_stats(LiveStore *s);

/* A finished, classified Trace of the newest retained events (at most max_events, 0:
 * the configured snapshot_max_events; SIZE_MAX: everything), only those ending at or
 * after t_from (INT64_MIN: no limit). Any thread; the drain only waits while events
 * are copied. The caller owns (Trace_free) the result. */
Trace *LiveStore_snapshot(LiveStore *s, size_t max_events, int64_t t_from);

/* Recording access: copies retained events with sequence number >= *cursor into out
 * (at most max), advancing *cursor; *lost gets how many wanted events were already
 * evicted. */
size_t LiveStore_read(LiveStore *s, uint64_t *cursor, TraceEvent *out, size_t max, uint64_t *lost);

/* ---- recording (live/record.c) --------------------------------------------------------- */

typedef struct LiveRecorder LiveRecorder;

/* Opens a recording: Chrome Trace JSON object form (traceEvents with X events, M
 * metadata for lanes, ac2g flows; the "ovtrace" key records the source, "simulated",
 * parameters and ring drop counts), compressed by extension (.json, .json.gz,
 * .json.zst). Written to a temporary file in the target directory and renamed into
 * place at the first checkpoint (LiveSession makes one at once, before any event). */
LiveRecorder *LiveRecorder_open(const char *path, char *err, size_t errlen);
/* Appends every event the store got since the last checkpoint and rewrites the small
 * trailer, so that the file on disk is complete and loadable after each checkpoint. */
bool LiveRecorder_checkpoint(LiveRecorder *r, LiveStore *s, char *err, size_t errlen);
/* The same with at most max_events of the new events (the rest wait for the next
 * checkpoint): a first checkpoint that is quick whatever the event rate. */
bool LiveRecorder_checkpointSome(LiveRecorder *r, LiveStore *s, size_t max_events, char *err, size_t errlen);
/* Final checkpoint (marked complete) and close. Frees r. */
bool LiveRecorder_close(LiveRecorder *r, LiveStore *s, char *err, size_t errlen);
/* Discards a recording that never checkpointed (nothing left behind). */
void LiveRecorder_abort(LiveRecorder *r);
uint64_t LiveRecorder_events(const LiveRecorder *r);
/* Saves the whole current buffer (everything retained) to path in one go. */
bool LiveStore_save(LiveStore *s, const char *path, char *err, size_t errlen);

/* ---- rolling overlap meter (live/meter.c) ---------------------------------------------- */

typedef struct {
    int32_t rank;
    int64_t device;
    int64_t window_ns;   /* the window actually covered */
    int64_t comm_ns, compute_ns, overlap_ns, exposed_ns;
    bool has_comm;
    double ratio;        /* overlap / comm */
} LiveMeter;

/* Figures over the last window_ns of t (ending at t->t_max), per GPU device. Returns
 * the number of devices written (at most max). */
size_t Live_meter(const Trace *t, int64_t window_ns, LiveMeter *out, size_t max);

/* ---- session: rings + store + source + threads (live/session.c) ------------------------ */

typedef struct {
    LiveStoreConfig store;
    RingSetConfig ring;
    bool simulate;
    SimConfig sim;
    int snapshot_ms;          /* publish a view snapshot this often (0: no snapshots) */
    int64_t snapshot_span_ns; /* snapshots hold the newest span (0: all retained) */
    const char *record_path;  /* record to this file (NULL: no recording) */
    int checkpoint_ms;        /* recording checkpoint period (default 1000) */
    /* A program as the source: the session creates the ring set with
     * RingSet_create_shared, starts the program with Launch_start (after the store and
     * the recording are set up, so that a failed start leaves no file), ends when it
     * exits (LiveSession_sourceDone = Launch_poll) and stops it at LiveSession_stop:
     * first the stop handshake of the ring set (the collectors flush and acknowledge,
     * at most LIVE_STOP_ACK_MS), then SIGINT, 5 s, SIGTERM, 3 s, SIGKILL. The data is marked real
     * ("simulated": false) and the recording names the collector (CUPTI in-process for
     * the workload, injected for `-- CMD`) and the command. NULL: no program. */
    const LaunchConfig *launch;
    /* With a program whose launch checks the driver (or with gpu_libcuda set), the
     * recording's "gpus" metadata names the GPUs, the driver and the CUDA version
     * (GpuInfo_query; these name the libraries, NULL: the system's). */
    const char *gpu_libcuda, *gpu_libnvml;
    bool shared_rings;        /* RingSet_create_shared without a program (tests); implied by launch */
} LiveSessionConfig;

void LiveSessionConfig_default(LiveSessionConfig *c);

typedef struct LiveSession LiveSession;

LiveSession *LiveSession_start(const LiveSessionConfig *cfg, char *err, size_t errlen);
/* Stops the source, drains what is left, writes the final recording checkpoint.
 * Returns false (err) if the recording failed. Idempotent. */
bool LiveSession_stop(LiveSession *s, char *err, size_t errlen);
void LiveSession_free(LiveSession *s);
LiveStore *LiveSession_store(LiveSession *s);
Simulator *LiveSession_simulator(LiveSession *s);
/* True once the source has nothing more to send (simulator reached max_steps, the
 * program exited: Launch_poll). UI thread. */
bool LiveSession_sourceDone(LiveSession *s);
/* How the program ended: Launch_exitCode (-1 while it runs, or without a program) and
 * Launch_describe into desc ("exited with status 0"); after LiveSession_stop these
 * stay available. */
int LiveSession_programExit(LiveSession *s, char *desc, size_t n);
/* How the last stop of a running program went (LiveSession_stop; recorded as the "stop"
 * object of the "ovtrace" metadata). */
#define LIVE_STOP_ACK_MS 2000 /* the longest wait for the collectors' final flush */
typedef struct {
    bool requested;        /* the program was running: its collectors were asked to flush */
    uint32_t collectors;   /* collectors running when the wait ended */
    uint32_t acks;         /* of them, those that flushed and acknowledged */
    int64_t wait_ns;       /* how long the session waited for them */
    uint64_t events_sent;  /* events the acknowledging collectors had sent by then */
    uint64_t events_received; /* events the store took from the rings in all */
    uint64_t events_lost;  /* sent by an acknowledging collector, never received */
} LiveStopReport;
LiveStopReport LiveSession_stopReport(LiveSession *s);
/* Double-buffered view: the newest published snapshot, or NULL if none newer than the
 * last one taken. The caller owns it. UI thread. */
Trace *LiveSession_takeSnapshot(LiveSession *s);
/* The recording's last error (empty if none). */
const char *LiveSession_recordError(LiveSession *s);

#endif
