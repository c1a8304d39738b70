/* Iterations of a run: `ProfilerStep#N` annotations (PyTorch profiler), or events whose
 * name matches a user regex. A step's CPU span is its annotation; its GPU window is the
 * span of the GPU work launched from inside that annotation (found through the
 * launch->GPU links), or the annotation itself when it lies on a GPU lane or nothing
 * links. Figures per step are Overlap_compute over the GPU window, all devices. */
#ifndef OVTRACE_STEPS_H
#define OVTRACE_STEPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"

typedef struct {
    int64_t key;              /* N of ProfilerStep#N (the last number in the name), else order */
    size_t n_marks;           /* annotations with this key (one per rank, usually) */
    int64_t cpu_start, cpu_end; /* union span of those annotations, absolute ns */
    int64_t gpu_start, gpu_end; /* GPU window, absolute ns */
    bool gpu_from_launches;   /* window from launched GPU work (else the annotation) */
    size_t gpu_events;        /* launch->GPU links attributed to the step */
    DeviceFigures fig;        /* total over devices within the GPU window (streams NULL) */
} Step;

typedef struct {
    size_t n;
    Step *steps; /* by key */
    bool by_regex;
} StepList;

/* regex NULL: ProfilerStep#N. Returns false with a message when regex is invalid. */
bool Steps_find(const Trace *t, const char *regex, StepList *out, char *err, size_t errlen);
void StepList_free(StepList *s);
/* "ProfilerStep#" followed by digits only. */
bool Steps_isProfilerStep(const char *name);
/* Median of step GPU-window lengths (lower median for an even count); 0 if none. */
int64_t Steps_medianTime(const StepList *s);
/* Median over steps of a figure picked by offset into DeviceFigures (int64 fields). */
int64_t Steps_medianField(const StepList *s, size_t offset);
/* Median overlap ratio over the steps that have communication; -1 if none has. */
double Steps_medianRatio(const StepList *s);

#endif
