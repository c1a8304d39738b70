/* A build without MPI: `ovtrace stats` under mpirun says so (scaleout.h). */
#include "ovtrace/scaleout/scaleout.h"

bool Scaleout_available(void) { return false; }

int Scaleout_stats(const ScaleStatsIn *in, ScaleStats **out) {
    *out = NULL;
    in->error(in->ctx, "this ovtrace was built without MPI: configure with an MPI installed (libopenmpi-dev) to run "
                       "stats under mpirun");
    return 1;
}

void ScaleStats_free(ScaleStats *s) { (void)s; }
