/* Cross-rank collective alignment: why is communication exposed?
 *
 * A collective ends at (nearly) the same instant on every rank, so a rank that starts it
 * early spends the difference waiting for the last one to arrive. Per rank, the
 * communication kernels (class comm, kind kernel) are put in start order per channel (the
 * `Process Group Name` arg when the source has it, else the GPU stream id), and the k-th
 * instance of a channel (or the instance with the same `Seq` arg) is matched across
 * ranks when the names agree (`Collective name` arg, else the kernel name). Disagreeing
 * names and instances present on one rank only are counted, never guessed.
 *
 * Per matched instance: last arrival = max start; per rank wait = last start - own start,
 * transfer = own end - last start; end spread = max end - min end (small when clocks
 * agree). Per rank clock offsets are estimated from the ends (median of own end - the
 * instance's median end); a large offset or a negative transfer makes the alignment
 * unreliable, and the report says so. All values are exact int64 ns. */
#ifndef OVTRACE_COLLECTIVES_H
#define OVTRACE_COLLECTIVES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ovtrace/model/collargs.h"
#include "ovtrace/model/trace.h"

#define COLL_NONE UINT32_MAX

typedef struct {
    uint32_t event; /* index in Trace.events */
    uint32_t inst;  /* index in CollReport.inst */
    int32_t rank;
    int64_t start, end;
    int64_t wait;     /* last start - start (>= 0) */
    int64_t transfer; /* end - last start (negative only when clocks disagree) */
} CollMember;

/* Collective names: a kernel's StrTab id, or COLL_ARGNAME | an id in CollReport.strings
 * (the `Collective name` arg). Coll_nameStr resolves both. */
#define COLL_ARGNAME 0x80000000u

typedef struct {
    uint32_t name;       /* collective name (COLL_ARGNAME above) of the first member */
    uint32_t channel;    /* index into CollReport.channels */
    uint64_t seq;        /* ordinal in the channel (the Seq arg where present) */
    uint32_t first, n;   /* members[first .. first+n), in rank order */
    int32_t last_rank;   /* the rank that arrived last (ties: the higher rank) */
    uint32_t last;       /* its member: members[first + last] */
    int64_t first_start, last_start;
    int64_t skew;        /* last_start - first_start */
    int64_t end_spread;  /* max end - min end */
} CollInstance;

typedef struct {
    bool by_group;  /* key is a process group name (args), else a stream id */
    bool by_seq;    /* instances keyed by the Seq arg (every kernel of the channel has one) */
    int64_t stream;
    uint32_t group; /* id in CollReport.strings, by_group only */
} CollChannel;

typedef struct {
    int32_t rank;
    size_t kernels;      /* comm kernels on the rank */
    size_t matched;      /* of which in matched instances */
    int64_t comm;        /* sum of matched kernels' durations = wait + transfer */
    int64_t wait, transfer; /* clamped to [0, dur] so that they sum to comm */
    size_t arrived_last; /* instances with skew > 0 where this rank started last */
    int64_t waited_for;  /* others' wait, summed over the instances this rank arrived last in */
    int64_t clock_offset; /* median(own end - instance median end) */
} CollRank;

typedef struct {
    uint32_t name; /* collective name (COLL_ARGNAME above) */
    size_t count;  /* matched instances */
    int64_t median_skew, max_skew;
} CollName;

typedef struct CollReport {
    StrTab *strings; /* group and collective names from args */
    CollInstance *inst;
    size_t n_inst;
    CollMember *members;
    size_t n_members;
    uint32_t *by_event; /* member indices sorted by event index (lookup) */
    CollChannel *channels;
    size_t n_channels;
    CollRank *ranks; /* sorted by rank */
    size_t n_ranks;
    CollName *names; /* by count descending */
    size_t n_names;
    size_t comm_kernels; /* all comm kernels seen */
    size_t unmatched;    /* comm kernels whose instance exists on one rank only */
    size_t mismatched;   /* comm kernels in instances whose names disagree (or with a Seq
                            repeated on one rank): not matched, not counted as waiting */
    size_t args_read;    /* comm kernels whose args were fetched from the source */
    int64_t median_end_spread, max_end_spread;
    size_t negative_transfers; /* members that end before the last arrival */
    int64_t max_clock_offset;  /* max |CollRank.clock_offset| */
    bool unreliable;           /* clock offsets make waits meaningless */
    char unreliable_why[160];
    int threads; /* CollOptions.threads, resolved (>= 1) */
} CollReport;

typedef struct CollOptions {
    CollArgsFn args;        /* Process Group Name / Collective name / Seq of the comm kernels
                               (the reader's CollArgs_fetch; asked only with two ranks or
                               more and events that have sources). NULL: kernel names and
                               streams alone */
    void *args_ctx;         /* args' ctx */
    int64_t offset_limit;   /* clock offset above which alignment is unreliable (ns; 0: default 50 us) */
    FILE *timing;           /* each step's CPU time (bench/). NULL: none */
    int threads;            /* Coll_deviceSplit's workers (0: one per core; the report keeps it) */
} CollOptions;

static inline CollOptions CollOptions_default(void) { return (CollOptions){.args = NULL}; }

/* Matches the comm kernels of a finished, classified trace. Never fails (a trace with
 * one rank yields only unmatched kernels). */
CollReport *Coll_analyze(const Trace *t, const CollOptions *o);
void CollReport_free(CollReport *r);
const char *Coll_nameStr(const Trace *t, const CollReport *r, uint32_t name);
/* The member holding event idx, or NULL. */
const CollMember *Coll_memberOf(const CollReport *r, size_t idx);
/* The same for a walk over events in increasing index: *cursor (0 to start) remembers
 * where the last lookup ended, so each step moves forward from there (a smaller idx
 * than the last searches from the start). */
const CollMember *Coll_memberFrom(const CollReport *r, size_t idx, size_t *cursor);
const CollRank *Coll_rank(const CollReport *r, int32_t rank);
/* The rank that arrived last most often (ties: more waited_for), or NULL if none. */
const CollRank *Coll_straggler(const CollReport *r);

/* A span for the sentences: "45.9 ms", "812 us", "3.2 us", "2.85 s". */
void Coll_formatSpan(char *buf, size_t n, int64_t ns);

/* Arrivals over the instances whose last arrival falls in [t0, t1) (what `stats
 * --range` and the range panel count): per CollReport.ranks slot, the instances with
 * skew > 0 that rank arrived last at, and the wait of their members (what the others
 * waited for it). */
typedef struct {
    size_t n_inst;       /* instances in the range */
    size_t *last;        /* per slot */
    int64_t *waited_for; /* per slot */
    int straggler;       /* the slot that arrived last most often (ties: longer waited
                            for; then the lower rank); -1: none */
} CollArrivals;
void Coll_arrivals(const CollReport *r, int64_t t0, int64_t t1, CollArrivals *out);
void CollArrivals_free(CollArrivals *a);
/* The straggler sentence of `stats` and the range panel: "straggler: rank 1 arrived last
 * in 8 of 12 collectives; others waited 31.9 ms for it (summed over the ranks that
 * waited)", or "straggler: none (no matched collectives[ in the range])". */
void Coll_stragglerLine(const CollReport *r, const CollArrivals *a, bool in_range, char *buf, size_t n);

/* Per GPU device, comm split by cause over [t0, t1): exposed comm (comm not under
 * compute, as Overlap_compute counts it) = exposed_wait + exposed_transfer, where wait is
 * time covered only by the wait parts of matched kernels and everything else (transfer
 * parts, unmatched kernels, peer-to-peer copies) is transfer. */
typedef struct CollDeviceSplit {
    uint32_t group;
    int32_t rank;
    int64_t device;
    int64_t comm, exposed, exposed_wait, exposed_transfer;
    int64_t wait, transfer; /* unions of the parts (wait: not also transfer) */
} CollDeviceSplit;

/* n_out = number of GPU groups with events selected by rank (INT32_MIN = any). */
CollDeviceSplit *Coll_deviceSplit(const Trace *t, const CollReport *r, int64_t t0, int64_t t1, int32_t rank,
                                  size_t *n_out);
/* For the TUI band: [wait_start, wait_end) of event idx, false if it is not matched. */
bool Coll_waitPart(const CollReport *r, size_t idx, int64_t *wait_start, int64_t *wait_end);
/* The same for a walk in increasing index (Coll_memberFrom's cursor). */
bool Coll_waitPartFrom(const CollReport *r, size_t idx, size_t *cursor, int64_t *wait_start, int64_t *wait_end);

#endif
