/* Rolling overlap meter: the overlap analysis (Overlap_compute) over the newest
 * window of a snapshot, per GPU device. */
#include "live_internal.h"
#include "ovtrace/analysis/overlap.h"

size_t Live_meter(const Trace *t, int64_t window_ns, LiveMeter *out, size_t max) {
    if (!t || t->n_events == 0 || max == 0) return 0;
    OverlapFilter f = OverlapFilter_all();
    f.top_n = 0;
    f.t1 = t->t_max;
    f.t0 = window_ns > 0 && t->t_max - window_ns > t->t_min ? t->t_max - window_ns : t->t_min;
    OverlapReport *R = Overlap_compute(t, &f);
    size_t n = 0;
    for (size_t i = 0; i < R->n_devices && n < max; i++) {
        const DeviceFigures *d = &R->devices[i];
        out[n++] = (LiveMeter){d->rank, d->device, f.t1 - f.t0, d->comm, d->compute, d->overlap, d->exposed,
                               d->has_comm, d->ratio};
    }
    OverlapReport_free(R);
    return n;
}
