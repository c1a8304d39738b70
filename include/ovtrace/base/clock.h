/* Clocks, in int64 ns (or double seconds for the progress and timing lines). */
#ifndef OVTRACE_BASE_CLOCK_H
#define OVTRACE_BASE_CLOCK_H
#include <stdint.h>

int64_t Clock_monotonicNs(void); /* CLOCK_MONOTONIC: for intervals */
int64_t Clock_realtimeNs(void);  /* CLOCK_REALTIME: wall-clock timestamps (live events) */
double Clock_monotonicS(void);   /* CLOCK_MONOTONIC in seconds */

#endif
