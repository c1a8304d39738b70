/* `ovtrace stats` over MPI (scaleout/, built when MPI is found; docs/scaleout.md).
 *
 * Under mpirun every process expands the same file list and loads its contiguous share
 * of it (balanced by bytes); rank 0 of the run gathers from each process what the cross-
 * rank phases need and what it prints: per source its path and rank, per GPU device its
 * figures, per kernel name its count and time, per counter series its rendered line, the
 * serving figures' parts, and per GPU lane the tuples of its comm kernels (name, start,
 * end, process group, collective name, Seq). On those tuples rank 0 runs the unchanged
 * Coll_analyze over a skeleton model (the GPU lanes and their comm kernels, in the whole
 * run's lane order, names interned in the whole run's order), sends each process its
 * kernels' waits back, and gathers the per-device wait/transfer split, which needs the
 * compute kernels only the process holds. The result prints byte for byte what one
 * process prints for the same files. */
#ifndef OVTRACE_SCALEOUT_H
#define OVTRACE_SCALEOUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/analysis/counters.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/analysis/serve_stats.h"
#include "ovtrace/read/load.h"

/* What the command line supplies: its files and options, and the parts of its output
 * that are rendered per process. */
typedef struct {
    const char *const *paths;
    size_t n_paths;
    LoadOptions load;
    bool quiet;          /* no load warnings on stderr */
    OverlapFilter filter; /* before --range (resolve sets t0/t1) */
    CollOptions coll;
    bool json;
    bool summary;        /* gather each device's overlap band (stats --summary) */
    /* Sets f->t0/t1 from --range against t's extent (the whole run's); 0 or the exit
     * status. report: this process prints what is wrong (rank 0 only). */
    int (*resolve)(void *ctx, const Trace *t, OverlapFilter *f, bool report);
    /* Rank 0 reports why the run fails, one message per failed process (each names its
     * file), before any process exits: mpirun aborts the job on the first non-zero exit. */
    void (*error)(void *ctx, const char *msg);
    /* One counter series as its text line or its JSON object. */
    void (*counter)(void *ctx, FILE *out, const Trace *t, const CounterSeries *s, const OverlapFilter *f, bool json);
    void *ctx;
} ScaleStatsIn;

typedef struct {
    char *text;
    size_t len;
} ScaleText;

/* Rank 0's result: what the printers read. */
typedef struct {
    Trace *t;              /* skeleton: every source, the GPU lanes, their comm kernels, the names */
    size_t events, lanes;  /* the whole run's */
    int64_t t_min, t_max;
    bool truncated;
    size_t skipped;
    OverlapFilter filter;  /* with the range resolved */
    OverlapReport *R;      /* devices in the run's group order, kernels over all of them */
    int64_t *bands;        /* with summary: per device of R, SUMMARY_COLUMNS x BAND__COUNT over [t_min, t_max) */
    ScaleText *counters;   /* selected series, in CounterSet order */
    size_t n_counters;
    bool serve_any;
    ServeStats serve;
    CollReport *coll;
    CollDeviceSplit *dev;
    size_t n_dev;
} ScaleStats;

/* Whether this process runs under mpirun (OMPI_COMM_WORLD_SIZE in the environment). */
bool Scaleout_underMpirun(void);
/* Whether this binary was built with MPI. */
bool Scaleout_available(void);

/* Runs the load and the analysis on every process. Returns 0 with *out on rank 0 (NULL
 * on the others, which print nothing), else the exit status on every process, once rank
 * 0 has reported (error, resolve): 1 when a process could not load its share, or
 * resolve's status. MPI is initialized and finalized inside. */
int Scaleout_stats(const ScaleStatsIn *in, ScaleStats **out);
void ScaleStats_free(ScaleStats *s);

#endif
