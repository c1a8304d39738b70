/* The trace model: events grouped into lanes (GPU streams, CPU threads), lanes into
 * groups (devices, processes), groups into ranks. Built by any source (file loader,
 * simulator, CUPTI) through Trace_add*, then frozen by Trace_finish, which sorts each
 * lane, assigns sub-rows (depth) to overlapping events and binds flows. */
#ifndef OVTRACE_TRACE_H
#define OVTRACE_TRACE_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ovtrace/model/strtab.h"

typedef enum {
    KIND_KERNEL,
    KIND_MEMCPY,
    KIND_MEMSET,
    KIND_SYNC,           /* cuda_sync on a GPU lane */
    KIND_GPU_ANNOTATION, /* gpu_user_annotation */
    KIND_CPU_OP,
    KIND_RUNTIME, /* cuda_runtime */
    KIND_DRIVER,  /* cuda_driver */
    KIND_PYTHON,
    KIND_ANNOTATION, /* user_annotation, ProfilerStep, ... */
    KIND_INSTANT,
    KIND_COUNTER,
    KIND_OTHER,
    KIND__COUNT
} EventKind;

/* On a GPU lane (a device's stream): kernels, copies, sets, syncs, GPU annotations. */
static inline bool EventKind_isGpu(EventKind k) {
    return k == KIND_KERNEL || k == KIND_MEMCPY || k == KIND_MEMSET || k == KIND_SYNC || k == KIND_GPU_ANNOTATION;
}

/* GPU work: counts toward a device's busy time and ends an ac2g launch flow. */
static inline bool EventKind_isGpuWork(EventKind k) { return k == KIND_KERNEL || k == KIND_MEMCPY || k == KIND_MEMSET; }

/* A host-side launch (CUDA runtime or driver API call): starts an ac2g flow. */
static inline bool EventKind_isLaunch(EventKind k) { return k == KIND_RUNTIME || k == KIND_DRIVER; }

/* The Chrome trace "cat" that names the kind (the loader reads it back as that kind). */
static inline const char *EventKind_category(EventKind k) {
    switch (k) {
    case KIND_KERNEL: return "kernel";
    case KIND_MEMCPY: return "gpu_memcpy";
    case KIND_MEMSET: return "gpu_memset";
    case KIND_SYNC: return "cuda_sync";
    case KIND_GPU_ANNOTATION: return "gpu_user_annotation";
    case KIND_CPU_OP: return "cpu_op";
    case KIND_RUNTIME: return "cuda_runtime";
    case KIND_DRIVER: return "cuda_driver";
    case KIND_PYTHON: return "python_function";
    case KIND_ANNOTATION: return "user_annotation";
    case KIND_INSTANT: return "instant";
    case KIND_COUNTER: return "counter";
    default: return "other";
    }
}

typedef enum {
    CLASS_COMPUTE,
    CLASS_COMM,
    CLASS_MEMORY,
    CLASS_SYNC,
    CLASS_CPU,
    CLASS_ANNOTATION,
    CLASS_OTHER,
    CLASS__COUNT
} EventClass;

enum {
    EVF_MEMCPY_P2P = 1u << 0, /* peer-to-peer copy: classified as communication */
    EVF_NO_DUR = 1u << 1,     /* B without E: duration runs to the end of the trace */
};

#define TRACE_NO_SRC UINT64_MAX

/* 40 bytes. Args are not held: src is the byte offset of the event's JSON object
 * in its (decompressed) source, fetched on demand by Args_fetch. */
typedef struct {
    int64_t ts; /* start, ns (same epoch as the source) */
    union {
        int64_t dur;  /* ns */
        double value; /* KIND_COUNTER */
    };
    uint64_t src;
    uint32_t name; /* StrTab id */
    uint32_t corr; /* correlation id, 0 = none */
    uint32_t lane;
    unsigned kind : 5;   /* EventKind */
    unsigned cls : 3;    /* EventClass */
    unsigned flags : 4;  /* EVF_* */
    unsigned depth : 20; /* sub-row within the lane */
} TraceEvent;

static inline int64_t TraceEvent_end(const TraceEvent *e) {
    return e->kind == KIND_COUNTER ? e->ts : e->ts + e->dur;
}

/* One row of a lane: events at one depth, sorted by start and pairwise disjoint. */
typedef struct {
    uint32_t lane;
    uint32_t depth;
    size_t first; /* index into Trace.events */
    size_t count;
} Row;

typedef struct {
    bool gpu;
    int32_t rank;
    uint32_t source;
    int64_t pid, tid;       /* as in the source (string pids map to negative keys) */
    int64_t device, stream; /* GPU lanes: args.device/args.stream, else pid/tid */
    uint32_t name;          /* thread_name, or "stream N" */
    int64_t sort_index;
    uint32_t group;
    size_t first, count; /* events in Trace.events, ordered by (depth, ts) */
    uint32_t first_row, n_rows;
} Lane;

typedef struct {
    bool gpu;
    int32_t rank;
    uint32_t source;
    int64_t id;     /* device for GPU groups, pid for CPU groups */
    uint32_t name;  /* process_name */
    uint32_t label; /* process_labels */
    int64_t sort_index;
    uint32_t first_lane, n_lanes;
} Group;

/* 16 B. Flows are only stored with both ends bound. The id is the source's flow id
 * (Kineto: the correlation id) truncated to 32 bits; string ids are hashed. */
typedef struct {
    uint32_t from; /* event index */
    uint32_t to;
    uint32_t cat; /* StrTab id: "ac2g", "fwdbwd", "async", ... */
    uint32_t id;
} Flow;

typedef struct {
    char *path;
    int32_t rank;
    int32_t world_size; /* -1 when unknown */
    int compression;    /* InputCompression */
    char *display_time_unit; /* "ms", "ns", ... or NULL */
    char *trace_name;
    char *meta_json; /* top-level keys other than traceEvents, as a JSON object text */
    int64_t base_time_ns; /* baseTimeNanoseconds, or 0 */
} TraceSource;

typedef struct {
    size_t skipped;       /* events with bad values */
    size_t ignored;       /* phases not modelled (async b/e, samples, objects) */
    size_t parallel_slices; /* event-array slices parsed on other threads and adopted */
    uint64_t first_skip_offset;
    char *first_skip_path;
    char first_skip_reason[96];
    bool truncated;
    int truncated_compression; /* InputCompression of that file: the offset is in its decompressed JSON */
    char *truncated_path;
    uint64_t truncated_offset;
    uint64_t truncated_comp_end; /* compressed: where its compressed data ends */
} TraceDiag;

/* A run summary's rank overview label of a GPU group (read/load_summary.c): what the
 * label shows for a trace's model comes from the collectives matched in it, which a
 * summary's model has none of. -1: the summary does not hold it (format 1). */
typedef struct {
    int64_t exposed;      /* ns of comm alone over the whole run */
    int64_t arrived_last; /* collectives at which the group's rank arrived last */
    /* the wait parts of its rank's matched comm kernels, as (start, end) ns pairs, for
     * the overview's wait glyphs; none when its rank has several GPU devices (the
     * summary does not say which device ran a comm kernel) */
    const int64_t *wait;
    size_t n_wait;
} GroupSummary;

typedef struct Trace {
    StrTab *strings;
    TraceEvent *events;
    size_t n_events, cap_events;
    Lane *lanes;
    size_t n_lanes;
    Row *rows;
    size_t n_rows;
    Group *groups;
    size_t n_groups;
    Flow *flows; /* sorted by from */
    size_t n_flows;
    uint32_t *flow_by_to; /* flow indices sorted by to */
    TraceSource *sources;
    size_t n_sources;
    int64_t t_min, t_max; /* over all timed events; t_min is the origin of relative times */
    bool simulated;
    bool summary; /* a run summary's model (read/load_summary.c): bands drawn back, no real events */
    GroupSummary *group_summary; /* a summary's model: n_groups entries, else NULL */
    /* only GPU lanes were loaded (LoadOptions.gpu_only): CPU lanes, flows, launch
     * partners and counters are missing until the full model replaces this one */
    bool gpu_only;
    size_t deferred; /* gpu_only loads: events passed over (0: the model is complete) */
    /* gpu_only loads: the span the passed-over events will have in the full model
     * (Trace_deferExtent), folded into t_min/t_max by Trace_finish, so that times
     * relative to t_min stay the same when the full model replaces this one */
    int64_t deferred_min, deferred_max;
    bool deferred_has_min, deferred_has_max;
    TraceDiag diag;
    size_t parallel_files; /* whole files parsed on other threads and merged in order */
    /* "FILE: ..." something the input layer ignored (trailing garbage after gzip data),
     * or NULL; not in TraceDiag, whose layout the snapshot stores (a trace with one is
     * not cached) */
    char *input_warning;
    /* "skipped N directory entries ...": files named like traces in a directory given
     * as input that are not regular files (set by Load_files after loading), or NULL */
    char *dir_warning;
    struct TraceBuild *build; /* non-NULL until Trace_finish */
} Trace;

Trace *Trace_new(void);
void Trace_free(Trace *t);

/* ---- building (before Trace_finish) ---- */
/* A source is one input (file or live session). Lanes are keyed by source, so two
 * files that claim the same rank never mix; rank is resolved at Trace_finish. */
uint32_t Trace_addSource(Trace *t, const char *path);
/* Find or create a lane. pid/tid are the source keys used for metadata and flows. */
uint32_t Trace_gpuLane(Trace *t, uint32_t source, int64_t device, int64_t stream, int64_t pid, int64_t tid);
uint32_t Trace_cpuLane(Trace *t, uint32_t source, int64_t pid, int64_t tid);
/* Appends; e->lane must come from one of the above. Returns the event index. */
size_t Trace_append(Trace *t, const TraceEvent *e);
/* Metadata (process_name, thread_sort_index, ...) keyed by source pid/tid. */
typedef enum { META_PROCESS_NAME, META_PROCESS_LABELS, META_PROCESS_SORT, META_THREAD_NAME, META_THREAD_SORT } MetaKind;
/* tid is ignored for process metadata. str is used for names/labels, num for sort indexes. */
void Trace_setMeta(Trace *t, uint32_t source, MetaKind k, int64_t pid, int64_t tid, const char *str, size_t len,
                   int64_t num);
/* A flow endpoint (ph s/t/f) on the lane that source pid/tid name. bind_enclosing: the
 * slice that contains ts (s, or f with bp "e"); otherwise the next slice to start. */
void Trace_addFlowPoint(Trace *t, uint32_t source, int64_t pid, int64_t tid, int64_t ts, uint64_t id, uint32_t cat,
                        char ph, bool bind_enclosing);
/* Key for a string pid/tid: stable, negative, distinct from numeric ids (which are
 * non-negative: loaders key a negative number by its text). */
int64_t Trace_stringKey(Trace *t, const char *s, size_t len);

/* Moves every lane, metadata record and flow point of process `pid` of `source` to
 * process `new_pid` of source `to` (splitting a merged export back into its ranks).
 * Only after the last Trace_gpuLane/Trace_cpuLane call for `source`. */
void Trace_moveProcess(Trace *t, uint32_t source, int64_t pid, uint32_t to, int64_t new_pid);
/* Adds delta to every timestamp of `source` (events from first_event on, and its flow
 * points): a source whose times are written relative to a base (`baseTimeNanoseconds`)
 * gets its absolute times. False, and nothing changed, when a shifted time would leave
 * the model's range (timeunits.h). Before Trace_finish. */
bool Trace_shiftSource(Trace *t, uint32_t source, size_t first_event, int64_t delta);

/* A passed-over event (LoadOptions.gpu_only) that the full model will hold from ts to
 * end (ts INT64_MAX: it only ends there, as an E ends its B). */
void Trace_deferExtent(Trace *t, int64_t ts, int64_t end);

/* The loader held an input mapping of `bytes` (the largest counts): memory that is free
 * again by Trace_finish, which may then order the events through a second array of up to
 * that size instead of in place. Before Trace_finish. */
void Trace_noteMapped(Trace *t, uint64_t bytes);

/* Moves everything src (an unfinished trace with one source, built from a later slice of
 * the same file) holds into dst's source: strings, lanes, events, metadata, flow points
 * and diagnostics, in src's order, as if dst had parsed the slice itself. src is left
 * empty. Used by the parallel loader. */
void Trace_absorb(Trace *dst, uint32_t dst_source, Trace *src);
/* Moves everything src (an unfinished trace of whole files: its own sources) holds into
 * dst, after dst's sources, with src's sources, flags, skips and warnings, as if dst had
 * read those files itself next. src is left empty. Used to read files on several
 * threads. */
void Trace_absorbFile(Trace *dst, Trace *src);

/* Sort, assign depths and rows, order lanes and groups, bind flows. */
void Trace_finish(Trace *t);
/* The same, spreading lanes over up to `threads` threads (at most 8; the result does not
 * depend on the count). */
void Trace_finishThreads(Trace *t, int threads);

/* The steps of Trace_finish, as FinishOptions.step announces them. */
typedef enum {
    FINISH_LANES, /* ordering groups and lanes from the metadata */
    FINISH_SORT,  /* ordering each lane's events, sub-rows, moving the events into place */
    FINISH_FLOWS, /* binding flow points to events, deriving launch links */
} FinishStep;

/* How Trace_finishWith works; zeroed: one thread, no timing. */
typedef struct {
    int threads;           /* as Trace_finishThreads (0: one) */
    uint64_t parallel_min; /* threads start only when a second lane holds this many events
                              or flow points (0: 32Ki; tests: 1, small traces in parallel) */
    FILE *timing;          /* each step's wall time and resident memory (bench/). NULL: none */
    /* Called as each step starts, on the finishing thread, with the model's events,
     * lanes and flow points (a loading screen names what it waits for). NULL: none */
    void (*step)(void *ctx, FinishStep step, size_t events, size_t lanes, size_t flow_points);
    void *step_ctx;
    int32_t rank_base;     /* a source without a rank of its own gets rank_base + its index
                              (a process of an MPI run holds files from rank_base on) */
    /* When it becomes non-zero, finishing stops after the step or sub-step under way (a
     * lane's layout at most): a loader's cancel request. NULL: never */
    const atomic_int *cancel;
} FinishOptions;
/* False when cancelled (fo->cancel): the model is then only for Trace_free. */
bool Trace_finishWith(Trace *t, const FinishOptions *fo);

/* ---- queries (after Trace_finish) ---- */
static inline const char *Trace_name(const Trace *t, const TraceEvent *e) {
    return StrTab_get(t->strings, e->name);
}
/* Index of the lane holding event idx. */
uint32_t Trace_laneOf(const Trace *t, size_t idx);
/* First event in row whose end > ts (i.e. the first that may be visible from ts). */
size_t Row_lowerBound(const Trace *t, const Row *r, int64_t ts);

/* The events of one lane that overlap [t0, t1), row by row, each row in time order: the
 * walk every windowed figure (overlap, bands, wait parts, compare) is made of.
 *   LaneWindow w = LaneWindow_begin(t, lane, t0, t1);
 *   while (LaneWindow_next(&w)) use(w.index, w.ev, w.start, w.end);
 * start/end are the event clipped to the window (end may equal start: instants, counters). */
typedef struct {
    const Trace *t;
    const Lane *lane;
    int64_t t0, t1;
    uint32_t row;          /* next row of the lane */
    size_t cur, row_end;   /* cursor in the current row */
    size_t index;          /* the event: its index in t->events */
    const TraceEvent *ev;
    int64_t start, end;    /* ... clipped to [t0, t1) */
} LaneWindow;

static inline LaneWindow LaneWindow_begin(const Trace *t, const Lane *lane, int64_t t0, int64_t t1) {
    LaneWindow w = {t, lane, t0, t1, 0, 0, 0, 0, NULL, 0, 0};
    return w;
}

static inline bool LaneWindow_next(LaneWindow *w) {
    for (;;) {
        if (w->cur < w->row_end) {
            const TraceEvent *e = &w->t->events[w->cur];
            if (e->ts < w->t1) {
                int64_t end = TraceEvent_end(e);
                w->index = w->cur++;
                w->ev = e;
                w->start = e->ts > w->t0 ? e->ts : w->t0;
                w->end = end < w->t1 ? end : w->t1;
                return true;
            }
            w->cur = w->row_end; /* the rest of this row starts later */
        }
        if (w->row >= w->lane->n_rows) return false;
        const Row *r = &w->t->rows[w->lane->first_row + w->row++];
        w->cur = Row_lowerBound(w->t, r, w->t0);
        w->row_end = r->first + r->count;
    }
}
/* Partner of a GPU op (its launching runtime call) or of a launch (its GPU op), by
 * flow: the source's ac2g flows, or those Trace_finish derived from equal correlation
 * ids where the source had none. SIZE_MAX if none. */
size_t Trace_partner(const Trace *t, size_t idx);
/* Resident memory of the model, bytes (events, lanes, rows, flows, strings, indexes). */
size_t Trace_memoryBytes(const Trace *t);
const char *EventKind_name(EventKind k);
const char *EventClass_name(EventClass c);
/* Parse "compute", "comm", ... ; returns -1 if unknown. */
int EventClass_parse(const char *s);

#endif
