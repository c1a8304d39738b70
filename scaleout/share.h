/* One process's share of an MPI stats run (include/ovtrace/scaleout/scaleout.h): what it
 * sends rank 0 (Share_write), what rank 0 reads back (Share_read) and merges. No MPI here:
 * the transport is stats_mpi.c. */
#ifndef OVTRACE_SCALEOUT_SHARE_H
#define OVTRACE_SCALEOUT_SHARE_H
#include "buf.h"
#include "ovtrace/model/collargs.h"
#include "ovtrace/scaleout/scaleout.h"

/* A comm kernel: its name (an index into Share.kn), times, event index in the process's
 * model, args (ids into Share.astr, COLLARGS_NONE) and whether it has a source. */
typedef struct {
    uint32_t name;
    int64_t ts, end;
    uint32_t ev;
    CollArgs a;
    bool has_src;
} ShareItem;

typedef struct {
    uint32_t lane, source; /* the process's lane and source indices */
    int32_t rank;
    int64_t device, stream;
    char *name;
    bool multi_row;
    ShareItem *items; /* in event order */
    size_t n_items;
} ShareLane;

typedef struct {
    uint32_t group, source;
    DeviceFigures d; /* streams[].lane: the process's lane index */
    int64_t *band;   /* SUMMARY_COLUMNS x BAND__COUNT, or NULL */
} ShareDevice;

typedef struct {
    int32_t rank;
    char *name;
    uint32_t source, lane;
    char *text; /* the rendered line or object */
    size_t len;
} ShareCounter;

typedef struct {
    int32_t rank;
    char *name;
    uint32_t source, lane;
    int kind;
    double *v;
    size_t n;
} ShareServeSeries;

typedef struct {
    char *s;
    size_t len;
} ShareStr;

typedef struct {
    uint64_t events, n_model_lanes, skipped; /* the model's counts */
    bool truncated;
    size_t n_src;
    TraceSource *src; /* path, rank, world_size, compression, meta_json */
    size_t n_kn;
    ShareStr *kn; /* kernel names the lanes' items and the kernels name */
    size_t n_lanes;
    ShareLane *lanes; /* GPU lanes, in the process's lane order */
    size_t n_astr;
    ShareStr *astr; /* the args' strings, in the order the reader interned them */
    uint64_t args_read;
    size_t n_dev;
    ShareDevice *dev;
    size_t n_kernels;
    KernelFigures *kernels; /* name: index into kn */
    size_t n_counters;
    ShareCounter *counters;
    ServeParts serve;
    size_t n_serve;
    ShareServeSeries *serve_series;
} Share;

/* The process's record of t (finished, classified, its extent the run's). */
void Share_write(Buf *b, const Trace *t, const ScaleStatsIn *in, const OverlapFilter *f, const OverlapReport *R,
                 const CounterSet *cs);
bool Share_read(Share *s, const char *p, size_t n);
void Share_free(Share *s);

/* The comm kernels of t in Share_write's order (GPU lanes in order, each in event order):
 * their event indices, *n of them. */
uint32_t *Share_commEvents(const Trace *t, size_t *n);

#endif
