/* Comparing runs in the viewer (`ovtrace view A B --align start|step`): which run each
 * source belongs to, the V key (show both runs, only A, only B: the other run's groups
 * fold to their headers) and the C key (a panel with the overlap figures of each run
 * over the visible range, side by side with B - A; the runs share the time axis after
 * alignment, so the visible range is the same stretch of each run). */
#ifndef OVTRACE_TUI_COMPARE_H
#define OVTRACE_TUI_COMPARE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"

struct App;

#define COMPARE_MAX_RUNS    2
#define COMPARE_TOP_KERNELS 8

/* One kernel name's time in the range in each of two runs (clipped to the range). */
typedef struct {
    uint32_t name;
    size_t count[2];
    int64_t total[2];
} CompareKernel;

/* Per-run sums of Overlap_compute's devices over [t0, t1) (ratio from the sums). */
void Compare_figures(const Trace *t, const uint32_t *run_of_source, size_t n_runs, int64_t t0, int64_t t1,
                     DeviceFigures *out, size_t *n_devices);

/* The kernels of runs 0 and 1 over [t0, t1) whose total time changed most (by
 * |total[1] - total[0]|, then the larger total, then name id); up to max. Returns how many. */
size_t Compare_kernelChanges(const Trace *t, const uint32_t *run_of_source, int64_t t0, int64_t t1, CompareKernel *out,
                             size_t max);

#endif
