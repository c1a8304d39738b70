/* Compute/communication overlap analysis: model + time range in, figures out.
 * All figures are exact measures of unions of [start, end) intervals in ns. Shared by
 * `stats`, the TUI's range panel and group headers, and export. */
#ifndef OVTRACE_OVERLAP_H
#define OVTRACE_OVERLAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

#define OVERLAP_ANY_RANK INT32_MIN
#define OVERLAP_ANY INT64_MIN

typedef struct {
    int64_t t0, t1;   /* absolute ns; INT64_MIN/INT64_MAX for open */
    int32_t rank;     /* OVERLAP_ANY_RANK */
    int64_t device;   /* OVERLAP_ANY */
    int64_t stream;   /* OVERLAP_ANY; restricts which GPU lanes count */
    size_t top_n;     /* kernels to report (0: none) */
} OverlapFilter;

static inline OverlapFilter OverlapFilter_all(void) {
    return (OverlapFilter){INT64_MIN, INT64_MAX, OVERLAP_ANY_RANK, OVERLAP_ANY, OVERLAP_ANY, 10};
}

typedef struct {
    uint32_t lane;
    int64_t stream;
    int64_t busy; /* |U(events on the stream)| within the window */
    size_t n_events;
} StreamFigures;

typedef struct {
    uint32_t group;
    int32_t rank;
    int64_t device;
    int64_t window_start, window_end; /* GPU activity of the device, clipped to the range */
    int64_t window;
    int64_t comm, compute, overlap, exposed, memory, busy, idle;
    bool has_comm;
    double ratio; /* overlap / comm; meaningful only if has_comm */
    size_t n_events;
    size_t n_streams;
    StreamFigures *streams;
} DeviceFigures;

typedef struct {
    uint32_t name;
    EventClass cls;
    size_t count;
    int64_t total;
} KernelFigures;

typedef struct {
    OverlapFilter filter;
    size_t n_devices;
    DeviceFigures *devices;
    size_t n_kernels;
    KernelFigures *kernels; /* top by total time, over all selected devices */
    DeviceFigures total;    /* sums over devices (ratio from the sums) */
} OverlapReport;

/* How the figures of a range count a kernel that crosses its ends: its part inside the
 * range (the words stats --range, the range panel and the kernel table say it with). */
#define OVERLAP_CLIPPED_WORDS "time clipped to the range"

OverlapReport *Overlap_compute(const Trace *t, const OverlapFilter *f);
/* total = the sums over devices[0..n) (ratio from the sums), as OverlapReport.total. */
void Overlap_sumDevices(const DeviceFigures *devices, size_t n, DeviceFigures *total);
/* In OverlapReport.kernels' order: by total time descending, then name id. */
void Overlap_sortKernels(KernelFigures *k, size_t n);
void OverlapReport_free(OverlapReport *r);

/* Whether a GPU event counts toward busy time (kernels, memcpy, memset). */
static inline bool Overlap_counts(const TraceEvent *e) {
    return EventKind_isGpuWork((EventKind)e->kind);
}

/* Per time slice state of one device, for the TUI's overlap band. */
typedef enum { BAND_IDLE, BAND_COMPUTE, BAND_HIDDEN, BAND_EXPOSED, BAND_MEMORY, BAND__COUNT } BandState;

/* For `ncols` equal slices of [t0, t1), the ns each state covers in each slice:
 * out[col * BAND__COUNT + state]. Hidden = comm under compute, exposed = comm alone,
 * compute = compute without comm, memory = memory only. */
void Overlap_band(const Trace *t, uint32_t group, int64_t t0, int64_t t1, int ncols, int64_t *out);

#endif
