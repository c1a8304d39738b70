/* Multi-rank simulation: the MoE step of the Schedule run on N ranks in
 * lockstep, with rank-dependent expert load, written as one Chrome trace per rank.
 *
 * Every rank runs the same ops in the same order (each stream in order, deps as the
 * Schedule says). A compute op takes its cost-model time (times jitter); an expert GEMM
 * also times the rank's load. A collective (dispatch, combine: comm kernel or copy)
 * starts on each rank when that rank is ready and ends on every rank at the last
 * arrival + its transfer time, as a real all-to-all does: the rank with the most expert
 * load arrives last at combine, and the others wait exactly the difference. Expert load:
 * the experts are spread evenly over the ranks in a seeded random order, expert e of the
 * popularity order gets weight 1/(e+1)^imbalance (Zipf; 0 = balanced), and a rank's load
 * is the sum of its experts' weights over the mean (so the mean load is 1). Simplified:
 * no SM sharing between comm and compute, no launch latency. Deterministic for a seed. */
#ifndef OVTRACE_SIMRANKS_H
#define OVTRACE_SIMRANKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/kernels/schedule.h"

typedef struct SimRanksConfig {
    ScheduleParams params;
    int ranks;            /* 2..256 */
    double imbalance;     /* Zipf exponent of expert popularity (0: balanced) */
    double jitter;        /* relative jitter of every op (0: exact) */
    uint64_t seed;
    uint64_t steps;
    int64_t start_ns;     /* timestamp of t = 0 */
    int64_t clock_skew_ns; /* rank r's clock reads (r / 8) * this ahead (one node = 8 GPUs) */
    int gpus_per_node;     /* default 8 */
} SimRanksConfig;

void SimRanksConfig_default(SimRanksConfig *c, SchedMode mode);
/* The load of each rank (out[ranks]), mean 1. */
void SimRanks_loads(const SimRanksConfig *c, double *out);
/* Runs the simulation and writes out_path with ".rankN" before the extension (.json,
 * .json.gz, .json.zst: compressed by extension), each file via a temp file and rename.
 * events_out: events written over all ranks (may be NULL). False with a message. */
bool SimRanks_write(const SimRanksConfig *c, const char *out_path, uint64_t *events_out, char *err, size_t errlen);
/* out_path with ".rankN" before the extension (malloc'd). */
char *SimRanks_path(const char *out_path, int rank);

#endif
