#include "ovtrace/base/clock.h"

#include <time.h>

static int64_t ns_of(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t Clock_monotonicNs(void) { return ns_of(CLOCK_MONOTONIC); }
int64_t Clock_realtimeNs(void) { return ns_of(CLOCK_REALTIME); }

double Clock_monotonicS(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
