/* Live preview of the timeline while a trace loads.
 *
 * The loader's observe hook hands over the partial trace every 8 MB; Preview_update
 * consumes only the events appended since its last call (a cursor into
 * Trace.events) and adds their busy time to a fixed number of time buckets per lane
 * and event class. The bucket range grows as events arrive: an event outside it
 * doubles the bucket width (merging bucket pairs; to the left the old range becomes
 * the upper half), so memory is never O(events), and every bucket's busy time stays
 * exact under merging. Only the lanes a screen can show hold buckets (the first
 * PREVIEW_MAX_LINES lines), within a fixed budget: a million lanes cost 13 bytes each
 * and the buckets of the lines on screen, not buckets for every lane.
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
 * that again). Only the lanes of the first PREVIEW_MAX_LINES lines (the lanes a screen
 * can show) hold buckets, so this is reached only by a process of thousands of threads
 * on screen: its lanes past the budget are listed without their busy time. */
#define PREVIEW_MAX_BUCKET_BYTES ((size_t)48 << 20)
/* Lines the preview lays out (CRT_MAX_ROWS rows fit): lanes past them are counted only. */
#define PREVIEW_MAX_LINES 1024

/* Busy time of one event class on one lane: a slot of the model's pool; its buckets
 * are slot i's row of the pool's arrays. */
typedef struct {
    uint32_t lane; /* index of the trace's lane; PREVIEW_FREE: an unused slot */
    uint32_t pos;  /* copies: the lane's display position (a copy's slots are sorted by it) */
    uint8_t cls;   /* EventClass */
    int32_t next;  /* live model: the lane's next slot, or the next free slot; -1: none */
} PreviewSlot;
#define PREVIEW_FREE UINT32_MAX

typedef enum { PLINE_GROUP, PLINE_LANE, PLINE_CPU } PreviewLineKind;

/* One line of the preview: a GPU group's header, a GPU stream, or a CPU process (its
 * threads collapsed, as the timeline shows them). */
typedef struct {
    uint8_t kind;         /* PreviewLineKind */
    uint32_t first, n;    /* lanes at display positions [first, first + n) */
    char label[48];       /* "stream 7"; a group: "GPU 0", "CPU pid 12", CPU "name", "rank N " first when several sources */
} PreviewLine;

/* The live model (the loading thread's, Preview_update) keeps per lane only its display
 * order and position, its first slot and a flag: 13 bytes. Its lines and buckets cover
 * the first PREVIEW_MAX_LINES lines; a lane pushed past them gives its slots back. A copy
 * (Preview_copy, the UI thread's) holds those lines and the buckets of their lanes alone,
 * never anything per lane: what it takes is bounded whatever the lane count. */
typedef struct PreviewModel {
    int n_buckets;           /* even */
    int shift;               /* bucket width = 2^shift ns */
    int64_t t0;              /* start of bucket 0 */
    int64_t t_end;           /* t0 + n_buckets << shift, clamped to INT64_MAX */
    bool any;                /* an event was seen: min_ts/max_end are valid */
    int64_t min_ts, max_end; /* extent of the events seen */
    size_t n_lanes;          /* = lanes of the partial trace seen so far (same indexes) */
    /* live model only (NULL in copies), per lane */
    uint32_t *order; /* display order: lane indexes */
    uint32_t *pos;   /* position of each lane in order */
    int32_t *head;   /* first slot of each lane, -1: none */
    uint8_t *flags;  /* LANE_* bits (preview.c): no buckets for want of budget, its stream comm or not */
    size_t cap_lanes;
    int32_t *src_rank; /* rank of each source as last seen (a change reorders) */
    size_t n_src;
    /* lines: the first PREVIEW_MAX_LINES of the display */
    PreviewLine *lines;
    size_t n_lines;
    bool more_lines;   /* lines past n_lines exist */
    size_t window_end; /* lanes at positions [0, window_end) are on those lines */
    /* slots: a pool (live) or those of the lines' lanes sorted by position (copies) */
    PreviewSlot *slots;
    size_t n_slots, cap_slots, max_slots;
    int32_t free_slot; /* live: first free slot, -1 none */
    int64_t *busy;     /* cap_slots x n_buckets: ns (whole buckets still pending in full) */
    int32_t *full;     /* cap_slots x (n_buckets + 1): difference arrays of events covering
                          whole buckets (O(1) per event however long; folded into busy on
                          rescale and copy); NULL in copies */
    size_t cursor;   /* events [0, cursor) of the trace have been consumed */
    size_t events;   /* events consumed (the pending ones included once counted) */
    bool multi_source;
    uint64_t version; /* bumped by each update that changed something */
    bool folded;      /* a copy: busy holds everything */
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
    size_t bucket_bytes;  /* what the slots in use take, bounded by PREVIEW_MAX_BUCKET_BYTES */
    size_t lanes_no_slot; /* lanes on the lines with events but no buckets: the budget was spent */
} PreviewModel;

/* rules: the CommRules the final model is classified with (NULL: built-in defaults);
 * borrowed, must outlive the model. n_buckets: even, >= 2 (0: PREVIEW_BUCKETS). */
PreviewModel *Preview_new(const CommRules *rules, int n_buckets);
void Preview_free(PreviewModel *p);
/* Consumes the lanes and events t gained since the last call (t: the same trace,
 * growing, never reordered). Returns the number of events consumed. */
size_t Preview_update(PreviewModel *p, const Trace *t);
/* dst becomes a copy of src for drawing: its lines and their lanes' buckets (whole-
 * bucket counts folded into busy); O(lines + slots x buckets), whatever the lane count.
 * Allocations of dst are reused. No-op when dst already holds src's version. */
void Preview_copy(PreviewModel *dst, const PreviewModel *src);

/* Busy ns of lane `lane` (a trace lane index) in bucket b, all classes (cls < 0) or
 * one class; 0 for a lane without buckets (off the lines, or past the budget). */
int64_t Preview_bucketBusy(const PreviewModel *p, size_t lane, int b, int cls);
/* Sum over all buckets. */
/* The lane at display position k of a live model (tests). */
uint32_t Preview_laneAt(const PreviewModel *p, size_t k);
/* What the model holds in memory, its arrays and buckets (tests, benchmarks). */
size_t Preview_memoryBytes(const PreviewModel *p);
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
