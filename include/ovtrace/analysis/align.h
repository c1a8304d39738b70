/* Putting two (or more) runs loaded into one model on comparable clocks, for
 * `ovtrace view A B --align start|step`: every run's timestamps are shifted so that the
 * run starts at 0 (its first event), or so that its first iteration (ProfilerStep#N or
 * a --step regex) starts at 0; its groups are labelled with the run and file name. */
#ifndef OVTRACE_ALIGN_H
#define OVTRACE_ALIGN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

typedef enum { ALIGN_START, ALIGN_STEP } AlignMode;

/* Which run each source of t came from, for a model Load_files built from the runs'
 * paths in order (run 0's, then run 1's): a file path takes the next source, a directory
 * the next sources inside it. out has t->n_sources entries. False (with the path in
 * err) when the sources do not follow the paths. */
bool Align_assignRuns(const Trace *t, const char *const *const *run_paths, const size_t *n_paths, size_t n_runs,
                      uint32_t *out, char *err, size_t errlen);

/* Shifts each run's events by -origin (offsets[run] = origin, absolute ns in the run's
 * own epoch) and recomputes t_min/t_max; prefixes each group's label (GPU) or process
 * name (CPU) with "<run name> <file name>". Works on a finished, classified trace;
 * lanes stay sorted (a lane holds one source). False with a message when mode is
 * ALIGN_STEP and a run has no step mark. */
bool Align_runs(Trace *t, const uint32_t *run_of_source, size_t n_runs, const char *const *run_names, AlignMode mode,
                const char *step_regex, int64_t *offsets, char *err, size_t errlen);

#endif
