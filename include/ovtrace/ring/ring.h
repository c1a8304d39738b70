/* Lock-free event transport for the live pipeline.
 *
 * Ring:    one single-producer/single-consumer queue of fixed-size RingRecords.
 *          A push never blocks: when the ring is full it fails and the drop is counted.
 * RingSet: a fixed array of Rings plus a NameTable, laid out in one mapping that can be
 *          shared between processes (memfd or shm_open). Each producer thread claims its
 *          own Ring on first use; one consumer drains them all.
 *
 * See docs/ring.md for the memory-ordering argument and the shared-memory layout. */
#ifndef OVTRACE_RING_H
#define OVTRACE_RING_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/ring/nametable.h"

/* What a record describes. Own numbering (not EventKind) so the wire format does not
 * change when the trace model grows; the consumer maps these onto EventKind. */
typedef enum {
    RING_KIND_KERNEL,
    RING_KIND_MEMCPY,
    RING_KIND_MEMSET,
    RING_KIND_SYNC,
    RING_KIND_RUNTIME,     /* CUDA runtime API call */
    RING_KIND_DRIVER,      /* CUDA driver API call */
    RING_KIND_NVTX_RANGE,
    RING_KIND_NVTX_MARKER, /* dur_ns == 0 */
    RING_KIND_CPU_OP,
    RING_KIND_OVERHEAD,    /* profiler's own overhead (buffer flush, ...) */
    RING_KIND_COUNTER,     /* arg holds the value */
    RING_KIND__COUNT
} RingKind;

enum {
    RING_F_MEMCPY_P2P = 1u << 0, /* peer-to-peer copy */
    RING_F_ASYNC = 1u << 1,      /* async API variant */
};

/* One event, 64 bytes = one cache line, so a push or pop touches exactly one line of
 * record storage. Plain data, no pointers: it crosses process boundaries. */
typedef struct {
    int64_t ts_ns;        /* start, CLOCK_MONOTONIC-compatible ns (the producer's clock) */
    int64_t dur_ns;       /* 0 for markers/instants */
    int64_t stream;       /* GPU stream id; -1 for CPU-side events */
    int64_t tid;          /* OS thread id of the issuing CPU thread */
    uint64_t arg;         /* kind-specific: bytes for memcpy/memset, counter value bits, ... */
    uint32_t name_id;     /* NameTable id, NAME_ID_NONE if unnamed */
    uint32_t correlation; /* links API call <-> GPU activity; 0 = none */
    uint32_t pid;
    int32_t device;       /* CUDA device ordinal; -1 for CPU-side events */
    uint8_t kind;         /* RingKind */
    uint8_t flags;        /* RING_F_* */
    uint16_t pad;
    uint32_t spare;       /* zero; reserved for the next format version */
} RingRecord;

/* C++ (nvcc compiles kernels/workload.cu) has static_assert, not C's _Static_assert. */
#ifdef __cplusplus
static_assert(sizeof(RingRecord) == 64, "RingRecord is part of the shared-memory format");
#else
_Static_assert(sizeof(RingRecord) == 64, "RingRecord is part of the shared-memory format");
#endif

/* ---- Ring: a single SPSC queue ---------------------------------------------------- */

typedef struct Ring Ring;

/* A standalone in-process ring. capacity must be a power of two >= 2 (else NULL). */
Ring *Ring_new(uint32_t capacity);
void Ring_free(Ring *r);

/* Producer side (one thread at a time). Returns false, counting one drop, if full. */
bool Ring_push(Ring *r, const RingRecord *rec);
/* Consumer side (one thread at a time). */
bool Ring_pop(Ring *r, RingRecord *out);
size_t Ring_pop_batch(Ring *r, RingRecord *out, size_t max);

uint32_t Ring_capacity(const Ring *r);
/* Records pushed but not yet popped; exact only when both sides are quiescent. */
uint64_t Ring_size(const Ring *r);
uint64_t Ring_drops(const Ring *r);

/* ---- RingSet: one ring per producer thread, one consumer -------------------------- */

typedef struct RingSet RingSet;

typedef struct {
    uint32_t nrings;     /* max concurrent producer threads (default 64) */
    uint32_t capacity;   /* records per ring, power of two (default 65536 = 4 MiB) */
    uint32_t name_bytes; /* NameTable string storage (default 4 MiB) */
    uint32_t name_slots; /* NameTable hash slots, power of two (default 65536) */
} RingSetConfig;

/* In-process set (anonymous memory). cfg may be NULL for defaults. NULL on bad config. */
RingSet *RingSet_new(const RingSetConfig *cfg);

/* Owner (consumer) side of a cross-process set, backed by a memfd. The fd is
 * close-on-exec until RingSet_export makes it inheritable. */
RingSet *RingSet_create_shared(const RingSetConfig *cfg);
/* Same, backed by a POSIX shm object (name like "/ovtrace-1234"); the owner unlinks
 * it in RingSet_free. */
RingSet *RingSet_create_named(const RingSetConfig *cfg, const char *name);

/* Writes the value for the OVTRACE_SHM environment variable into buf ("fd:N" or the
 * shm name) and makes a memfd inheritable across exec. Returns 0, or -1 (buf too small). */
int RingSet_export(RingSet *set, char *buf, size_t n);

/* Producer side: map a set created by another process. spec is "fd:N", a bare fd
 * number (duplicated: the caller keeps its own), or a shm name starting with '/'.
 * Validates magic, version and geometry; NULL (errno set) if the mapping is not a ring
 * set this build understands. */
RingSet *RingSet_attach(const char *spec);
/* RingSet_attach(getenv("OVTRACE_SHM")); NULL if unset. */
RingSet *RingSet_attach_env(void);
#define RING_SHM_ENV "OVTRACE_SHM"

/* Unmaps; the owner also closes/unlinks the backing object. All local producer threads
 * must have stopped using the set. Rings claimed by this process are released. */
void RingSet_free(RingSet *set);

/* The calling thread's ring, claimed on first use (lock-free slot claim) and released
 * when the thread exits. NULL if every ring is taken. */
Ring *RingSet_producer(RingSet *set);
/* RingSet_producer + Ring_push; with no ring available the event is dropped and counted. */
bool RingSet_push(RingSet *set, const RingRecord *rec);

/* Consumer: calls fn for up to max records (0 = no limit beyond what is there now),
 * visiting rings round-robin. rec points into the ring and is valid only during the
 * call. Records from one ring arrive in push order. Returns the number delivered. */
typedef void (*RingDrainFn)(const RingRecord *rec, uint32_t ring, void *ctx);
size_t RingSet_drain(RingSet *set, RingDrainFn fn, void *ctx, size_t max);
/* Same, copying into out[0..max). */
size_t RingSet_drain_into(RingSet *set, RingRecord *out, size_t max);

/* ---- stop handshake ------------------------------------------------------------------
 * A collector holds events in buffers (CUPTI's) and hands them to the rings in batches;
 * a program stopped by a signal may never run its exit flush. Before it signals the
 * program, the consumer asks every collector of the set for a forced flush and waits
 * (bounded) for their acknowledgements:
 *   consumer:  RingSet_requestStop; poll RingSet_stopState until acks >= collectors
 *   collector: RingSet_collectorJoin at start; RingSet_stopRequested(&seen) in its flush
 *              loop; when true: flush, then RingSet_stopAck(events sent so far);
 *              RingSet_collectorLeave at its end.
 * A collector that joins after a request answers it too (seen starts at 0). */
void RingSet_collectorJoin(RingSet *set);
void RingSet_collectorLeave(RingSet *set);
/* True once per new request: *seen (0 at first) is the last request this collector
 * answered, and becomes the current one. */
bool RingSet_stopRequested(RingSet *set, uint32_t *seen);
/* After the flush: events_sent = records this collector has pushed into the set so far. */
void RingSet_stopAck(RingSet *set, uint64_t events_sent);
/* Consumer: a new request (the acknowledgements of any earlier one are cleared). */
void RingSet_requestStop(RingSet *set);
typedef struct {
    uint32_t request;     /* current request number, 0 = none */
    uint32_t collectors;  /* collectors running now */
    uint32_t acks;        /* collectors that flushed for the request */
    uint64_t events_sent; /* what they reported sent by their acknowledgement, summed */
} RingStopState;
RingStopState RingSet_stopState(const RingSet *set);

/* Total drops: every ring's count plus pushes that found no free ring. */
uint64_t RingSet_drops(const RingSet *set);
uint32_t RingSet_nrings(const RingSet *set);
Ring *RingSet_ring(RingSet *set, uint32_t i);
/* Rings currently claimed by a producer thread (any process). */
uint32_t RingSet_active(const RingSet *set);
/* Consumer: free the rings still owned by processes that have died (a crashed
 * injectee), so new producers can claim them. Returns how many were freed. */
uint32_t RingSet_reap(RingSet *set);
NameTable *RingSet_names(RingSet *set);
/* Backing fd (-1 for RingSet_new); owned by the set. */
int RingSet_fd(const RingSet *set);

#endif
