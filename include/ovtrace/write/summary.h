/* A run's summary (docs/summary.md): what the rank overview shows, for any number of
 * ranks, without their traces. Per rank: the path of its trace, per GPU device its
 * figures and its overlap band at SUMMARY_COLUMNS columns over the run's extent, the
 * overview label's figures, and its matched comm kernels with their wait and transfer. `ovtrace stats --summary OUT`
 * writes it (one process or under mpirun), `ovtrace view OUT` opens it
 * (read/load_summary.c). */
#ifndef OVTRACE_WRITE_SUMMARY_H
#define OVTRACE_WRITE_SUMMARY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/analysis/overlap.h"
#include "ovtrace/read/load.h" /* SUMMARY_FORMAT, SUMMARY_COLUMNS */


typedef struct {
    const char *name;
    int64_t start, end, wait, transfer;
} SummaryComm;

typedef struct {
    const DeviceFigures *fig; /* streams are not written */
    /* per column: the ns in BAND_COMPUTE, BAND_HIDDEN, BAND_EXPOSED, BAND_MEMORY
     * (Overlap_band's layout, all BAND__COUNT states per column) */
    const int64_t *band;
} SummaryDevice;

typedef struct {
    int32_t rank;
    const char *path;
    size_t arrived_last; /* matched collectives at which the rank arrived last (CollRank) */
    SummaryDevice *dev;
    size_t n_dev;
    SummaryComm *comm;
    size_t n_comm;
} SummaryRank;

typedef struct {
    int64_t t0, t1; /* the bands' extent */
    SummaryRank *ranks;
    size_t n_ranks;
} Summary;

/* Writes s to out (a regular file: through a temporary file renamed over it; "-", a
 * device or a FIFO in place). False with a message. */
bool Summary_write(const char *out, const Summary *s, char *err, size_t errlen);

#endif
