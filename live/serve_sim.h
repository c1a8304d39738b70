/* Serving mode of the simulator: live/serve_sim.c drives the serving
 * policy (ovtrace/kernels/serve.h) and, for every step, simulates one MoE decode step of the
 * chosen batch with the ordinary simulator; simulate.c hands it its output. */
#ifndef OVTRACE_LIVE_SERVE_SIM_H
#define OVTRACE_LIVE_SERVE_SIM_H
#include <stdbool.h>
#include <stdint.h>

#include "ovtrace/live/live.h"

/* Where the serving loop's events go: push(key = emission time, a record, its name),
 * flush(upto) emits everything pushed with key <= upto (pacing; false: stopped), and
 * step_done counts a finished serving step. Times are simulated ns from t = 0; base_ns
 * is the timestamp of t = 0. */
typedef struct {
    void (*push)(void *ctx, int64_t key, const RingRecord *rec, const char *name);
    bool (*flush)(void *ctx, int64_t upto);
    void (*step_done)(void *ctx);
    void *ctx;
    int64_t base_ns;
    uint32_t pid;
} ServeSink;

/* Runs until cfg->max_steps serving steps (0: until flush says stop). */
void ServeSim_loop(const SimConfig *cfg, const ServeSink *sink);

/* Lanes of the serving events (CPU threads of the simulator's process): the counters,
 * the steps and the requests; named by Simulator_describe. */
#define SERVE_TID_COUNTERS 900000001
#define SERVE_TID_STEPS 900000002
#define SERVE_TID_REQUESTS 900000003

#endif
