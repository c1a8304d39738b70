/* Private: the shared-memory layout behind Ring, RingSet and NameTable.
 *
 * Everything in the mapping is position-independent (offsets, never pointers) because
 * each process maps it at a different address. Process-local handles (struct RingSet,
 * struct NameTable) keep their own copy of the geometry, validated once at attach, so a
 * misbehaving peer scribbling on the header cannot send the consumer out of bounds. */
#ifndef OVTRACE_RING_LAYOUT_H
#define OVTRACE_RING_LAYOUT_H
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ovtrace/ring/nametable.h"
#include "ovtrace/ring/ring.h"

/* Atomics in a mapping shared by two processes must not hide a lock inside the object. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "32-bit atomics must be lock-free");

#define CACHE_LINE 64
#define RING_MAGIC 0x474e495254564f2eull /* ".OVTRING" little-endian */
#define RING_VERSION 2u /* 2: the stop handshake words in the header */

/* One SPSC ring: four cache lines of control, then the records. head is written only by
 * the producer and tail only by the consumer; each sits on its own line so the two sides
 * do not false-share, and each side keeps a private cached copy of the other's index on
 * its own line, touching the other's line only when the cached view says full/empty. */
struct Ring {
    /* Line 0: immutable after init; read by both sides. */
    alignas(CACHE_LINE) uint64_t mask; /* capacity - 1 */
    uint32_t index;                    /* position in its set */
    /* Line 1: producer. */
    alignas(CACHE_LINE) _Atomic uint64_t head; /* next slot to write (monotonic) */
    uint64_t cached_tail;                      /* producer's last view of tail */
    _Atomic uint64_t drops;                    /* single writer: the producer */
    /* Line 2: consumer. */
    alignas(CACHE_LINE) _Atomic uint64_t tail; /* next slot to read (monotonic) */
    uint64_t cached_head;                      /* consumer's last view of head */
    /* Line 3: ownership, touched only on claim/release. (pid << 32 | tid), 0 = free. */
    alignas(CACHE_LINE) _Atomic uint64_t owner;
    alignas(CACHE_LINE) RingRecord slots[];
};
_Static_assert(sizeof(struct Ring) == 4 * CACHE_LINE, "ring control block layout");

/* Offset 0 of a ring-set mapping. */
typedef struct {
    uint64_t magic;
    uint32_t version;
    uint32_t header_size;      /* sizeof(RingShmHeader) */
    uint32_t record_size;      /* sizeof(RingRecord) */
    uint32_t ring_header_size; /* sizeof(struct Ring) */
    uint32_t nrings;
    uint32_t capacity;
    uint32_t name_slots;
    uint32_t name_bytes;
    uint64_t rings_off;   /* from the mapping base */
    uint64_t ring_stride; /* bytes from one ring to the next */
    uint64_t names_off;   /* NameShm */
    uint64_t total_size;
    alignas(CACHE_LINE) _Atomic uint64_t noring_drops; /* pushes that found no free ring */
    _Atomic uint32_t attaches;                         /* producer-side attaches, ever */
    /* Stop handshake (RingSet_requestStop): written by the consumer and the collectors,
     * on a line of its own. */
    alignas(CACHE_LINE) _Atomic uint32_t stop_req; /* consumer: request number, 0 = none */
    _Atomic uint32_t stop_acks;                    /* collectors that flushed for it */
    _Atomic uint32_t collectors;                   /* collectors running that answer requests */
    _Atomic uint64_t stop_ack_events;              /* events those acks reported sent */
} RingShmHeader;

/* NameTable in the mapping: this header, then name_slots x uint32 hash slots (0 = empty,
 * else an id), then name_bytes of append-only entries. An entry is
 * { uint32 len; uint32 hash; char bytes[len]; '\0' } padded to 8; its id is
 * 2 + (offset / 8), ids 0 and 1 being the reserved NAME_ID_NONE / NAME_ID_FULL. */
typedef struct {
    alignas(CACHE_LINE) _Atomic uint64_t used; /* bytes reserved; may overshoot when full */
    alignas(CACHE_LINE) _Atomic uint32_t count;
    _Atomic uint64_t full;
} NameShm;

struct NameTable {
    NameShm *hdr;
    _Atomic uint32_t *slots;
    char *arena;
    uint32_t nslots;    /* power of two */
    uint32_t max_count; /* 3/4 of nslots: keeps linear-probe chains short */
    uint64_t nbytes;
};

struct RingSet {
    char *base;
    size_t size;
    RingShmHeader *hdr;
    uint32_t nrings;
    uint64_t mask; /* local copy: the consumer never trusts the shared one */
    uint64_t rings_off, stride;
    NameTable names;
    uint64_t uid; /* process-unique, keys the thread-local ring cache */
    pthread_key_t key;
    bool key_ok;
    int fd;
    bool owner;
    char *shm_name; /* owner of a named set: unlinked on free */
    uint32_t rr;    /* drain start, rotated for fairness */
};

/* Geometry for cfg (defaults filled in); false if invalid or too large. */
bool ringset_layout(const RingSetConfig *cfg, RingSetConfig *res, RingShmHeader *lay);
/* Write a fresh header, rings and name table into zeroed memory. */
void ringset_format(void *base, const RingShmHeader *lay);
/* Build a process-local handle over a mapping; validates the header against size.
 * NULL (errno = EINVAL) if it is not a ring set of this version. */
RingSet *ringset_wrap(void *base, size_t size, int fd, bool owner);

/* Pop up to max records from r: to fn (zero-copy) when given, else copied to out. */
size_t ring_consume(Ring *r, uint64_t mask, uint32_t index, RingDrainFn fn, void *ctx,
                    RingRecord *out, size_t max);

void nametable_bind(NameTable *nt, void *shm, uint32_t nslots, uint64_t nbytes);

static inline uint64_t ring_align(uint64_t x, uint64_t a) {
    return (x + a - 1) & ~(a - 1);
}

#endif
