/* Live preview of the timeline while a trace loads.
 *
 * The loader's observe hook hands over the partial trace every 8 MB; Preview_update
 * consumes only the events appended since its last call (a cursor into
 * Trace.events) and adds their busy time to a fixed number of time buckets per lane
 * and event class. The bucket range grows as events arrive: an event outside it
 * doubles the bucket width (merging bucket pairs; to the left the old range becomes
 * the upper half), so memory is O(lanes x classes x buckets), never O(events), and
 * every bucket's busy time stays exact under merging.
 *
 * The partial trace is unsorted, unclassified and has no groups, names or metadata
 * yet: lanes are ordered as Trace_finish orders them when no metadata says otherwise
 * (rank, source, GPU devices first, device or pid, then stream or tid), labelled
 * with their defaults ("stream 7", "thread 12"), and kernels are classified
 * compute/comm with the same CommRules as the final model (per distinct name, once).
 *
 * Threads: the loading thread calls Preview_update; the UI thread takes a copy with
 * Preview_copy (under a lock the caller holds) and draws the copy with
 * Preview_render, a pure function into the cell grid. */
#ifndef OVTRACE_TUI_PREVIEW_H
#define OVTRACE_TUI_PREVIEW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/model/trace.h"
#include "grid.h"
#include "theme.h"

#define PREVIEW_BUCKETS 512
/* The most the live model's buckets may take (a copy for drawing takes two thirds of
 * that again): with 100k lanes, 6 KB of buckets per lane and class would be gigabytes.
 * Lanes that arrive after the budget is spent are listed without their busy time. */
#define PREVIEW_MAX_BUCKET_BYTES ((size_t)48 << 20)

/* Busy time of one event class on one lane, per bucket. */
typedef struct {
    uint8_t cls;   /* EventClass */
    int64_t *busy; /* n_buckets; ns (whole buckets still pending in full) */
    int32_t *full; /* n_buckets + 1: difference array of events covering whole buckets
                      (O(1) per event however long; folded into busy on rescale/copy);
                      NULL in copies */
} PreviewSlot;

typedef struct {
    bool gpu;
    bool comm_stream; /* CommRules_streamIsComm: its kernels are comm */
    int32_t rank;     /* as known so far (distributedInfo), else the source index */
    uint32_t source;
    int64_t group;                /* device (GPU) or pid (CPU) */
    int64_t key;                  /* stream (GPU) or tid (CPU) */
    char label[40];               /* "stream 7", "thread 12", or a string tid */
    char group_label[48];         /* "GPU 0", "CPU pid 12", CPU "name" (string pid); "rank N " when several sources */
    int8_t slot_of[CLASS__COUNT]; /* -1: no slot yet */
    uint8_t n_slots;
    PreviewSlot slots[CLASS__COUNT];
    size_t events;
    bool no_slot; /* counted in PreviewModel.lanes_no_slot */
} PreviewLane;

typedef struct PreviewModel {
    int n_buckets;           /* even */
    int shift;               /* bucket width = 2^shift ns */
    int64_t t0;              /* start of bucket 0 */
    int64_t t_end;           /* t0 + n_buckets << shift, clamped to INT64_MAX */
    bool any;                /* an event was seen: min_ts/max_end are valid */
    int64_t min_ts, max_end; /* extent of the events seen */
    size_t n_lanes;          /* = lanes of the partial trace seen so far (same indexes) */
    PreviewLane *lanes;
    uint32_t *order; /* display order: indexes into lanes */
    size_t cursor;   /* events [0, cursor) of the trace have been consumed */
    size_t events;   /* events consumed (the pending ones included once counted) */
    bool multi_source;
    uint64_t version; /* bumped by each update that changed something */
    bool folded;      /* a copy: busy holds everything, full is all zero */
    /* events whose duration was 0 when consumed ("B" waiting for its "E", or
     * zero-length): rechecked for a few updates, then dropped; bounded */
    size_t *pending;
    uint8_t *pending_age;
    size_t n_pending;
    /* classification */
    const CommRules *rules; /* NULL until needed when the defaults are used */
    CommRules *own_rules;
    uint8_t kind_cls[KIND__COUNT]; /* class of each kind but kernels (Classify_event) */
    uint8_t *name_cls;             /* per StrTab id: 0 unknown, 1 compute, 2 comm */
    size_t n_name_cls;
    size_t cap_lanes;
    size_t bucket_bytes;   /* what the slots' buckets take, bounded by PREVIEW_MAX_BUCKET_BYTES */
    size_t lanes_no_slot;  /* lanes with events but no buckets: the budget was spent */
} PreviewModel;

/* rules: the CommRules the final model is classified with (NULL: built-in defaults);
 * borrowed, must outlive the model. n_buckets: even, >= 2 (0: PREVIEW_BUCKETS). */
PreviewModel *Preview_new(const CommRules *rules, int n_buckets);
void Preview_free(PreviewModel *p);
/* Consumes the lanes and events t gained since the last call (t: the same trace,
 * growing, never reordered). Returns the number of events consumed. */
size_t Preview_update(PreviewModel *p, const Trace *t);
/* dst becomes a copy of src for drawing (whole-bucket counts folded into busy);
 * allocations of dst are reused. No-op when dst already holds src's version. */
void Preview_copy(PreviewModel *dst, const PreviewModel *src);

/* Busy ns of lanes[lane] in bucket b, all classes (cls < 0) or one class. */
int64_t Preview_bucketBusy(const PreviewModel *p, size_t lane, int b, int cls);
/* Sum over all buckets. */
int64_t Preview_laneBusy(const PreviewModel *p, size_t lane, int cls);

/* Draws the preview (a copy, or the live model, folded on the fly) into r: a header line, the time ruler over [min_ts, max_end)
 * (times relative to min_ts, as the timeline shows them), then GPU groups as a
 * header and one line per stream, CPU groups as one line each (the timeline
 * collapses them too), with lane labels on the left and per-column density in the
 * timeline's glyphs (lower eighth blocks: how full the column is) and class colours.
 * What does not fit is counted on the last line. legend: adds the class legend on
 * the last line (when the terminal has colours). Returns the lines used. */
int Preview_render(Grid *g, Rect r, const PreviewModel *p, const Glyphs *gl, bool legend);

#endif
