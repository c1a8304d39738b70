/* Comparing two runs (`ovtrace diff`, the viewer's diff panel). Each side is first
 * reduced to a DiffRun (overlap figures per device from Overlap_compute, exactly what
 * `stats` prints, comm wait/transfer per device with two ranks or more, per-kernel and
 * per-class totals, iterations), which owns its strings,
 * so a side's trace can be freed before the other is loaded. Diff_compare pairs the
 * two summaries. */
#ifndef OVTRACE_DIFF_H
#define OVTRACE_DIFF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/analysis/steps.h"
#include "ovtrace/model/trace.h"

typedef struct {
    bool group_names;       /* key kernels by KernelName_normalize */
    const char *step_regex; /* NULL: ProfilerStep#N annotations (Steps_find) */
    int64_t t0, t1;         /* absolute range, INT64_MIN/INT64_MAX for all */
    bool no_steps;          /* skip iteration detection (the viewer's range panel) */
    CollOptions coll;       /* the collectives analysis' (its args callback: the caller's) */
} DiffOptions;

static inline DiffOptions DiffOptions_default(void) {
    return (DiffOptions){false, NULL, INT64_MIN, INT64_MAX, false, CollOptions_default()};
}

typedef struct {
    char *name; /* kernel name, or its grouping key (owned) */
    EventClass cls;
    size_t count;
    int64_t total; /* ns */
    size_t n_names; /* distinct names grouped under this key */
} DiffKernel;

typedef struct {
    size_t count;
    int64_t total;
} DiffClass;

typedef struct {
    char *path;
    int32_t rank;
} DiffFile;

/* Comm split by cause on one (rank, device), from Coll_deviceSplit: the figures of
 * `stats`' collectives section (wait = before the last rank arrived, transfer = after). */
typedef struct {
    int32_t rank;
    int64_t device;
    int64_t comm, wait, transfer, exposed, exposed_wait, exposed_transfer;
} DiffColl;

typedef struct {
    size_t n_files;
    DiffFile *files; /* the trace's sources */
    size_t n_events;
    int64_t t_min, t_max;
    size_t n_devices;
    DeviceFigures *devices; /* streams NULL */
    DeviceFigures total;
    size_t n_kernels;
    DiffKernel *kernels; /* sorted by name (strcmp) */
    DiffClass classes[CLASS__COUNT];
    StepList steps;
    size_t coll_ranks; /* ranks the collectives analysis saw; < 2: no wait/transfer */
    size_t n_coll;
    DiffColl *coll;      /* by (rank, device); empty unless coll_ranks >= 2 */
    DiffColl coll_total; /* sums over coll (rank -1, device -1) */
} DiffRun;

/* NULL with a message in err when the step regex does not compile. */
DiffRun *DiffRun_summarize(const Trace *t, const DiffOptions *o, char *err, size_t errlen);
void DiffRun_free(DiffRun *r);

typedef struct {
    int32_t rank;
    int64_t device;
    const DeviceFigures *a, *b; /* NULL on the side that lacks the device */
    const DiffColl *coll_a, *coll_b; /* NULL: device absent, or the run has one rank */
} DiffDevice;

typedef struct {
    const char *name;
    EventClass cls;
    size_t count_a, count_b;
    int64_t total_a, total_b;
    bool in_a, in_b;
} DiffKernelRow;

typedef struct {
    int64_t key; /* step number */
    const Step *a, *b;
} DiffStepRow;

typedef struct {
    const DiffRun *a, *b;
    size_t n_devices;
    DiffDevice *devices; /* by (rank, device) */
    size_t n_kernels;
    DiffKernelRow *kernels; /* by |total_b - total_a| descending, then name */
    size_t n_steps;
    DiffStepRow *steps; /* by key */
} DiffReport;

DiffReport *Diff_compare(const DiffRun *a, const DiffRun *b);
void DiffReport_free(DiffReport *r);

static inline int64_t DiffKernelRow_delta(const DiffKernelRow *k) { return k->total_b - k->total_a; }

#endif
