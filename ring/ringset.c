/* RingSet: a fixed array of SPSC rings, one per producer thread, drained by one consumer.
 *
 * Why one ring per thread instead of one MPSC queue: CUPTI and the runtime call back
 * on several threads at once, and a shared queue would need a CAS (and a retry loop)
 * per event on a contended line. With a ring per thread a push is two plain stores and
 * a release store on a line nobody else writes.
 *
 * A thread claims a ring with one CAS on the ring's owner word (0 -> pid<<32|tid), then
 * remembers it in a small thread-local cache, so the fast path is a few compares. The
 * ring goes back to the pool when the thread exits (pthread key destructor). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ring_layout.h"

#define RING_MAX_RINGS 4096u
#define RING_MAX_CAPACITY (1u << 24)
#define NAME_MAX_SLOTS (1u << 24)
#define NAME_MAX_BYTES (1u << 30)
#define TL_CACHE 4

static bool is_pow2(uint32_t x) {
    return x && (x & (x - 1)) == 0;
}

bool ringset_layout(const RingSetConfig *cfg, RingSetConfig *res, RingShmHeader *lay) {
    RingSetConfig c = cfg ? *cfg : (RingSetConfig){0};
    if (!c.nrings)
        c.nrings = 64;
    if (!c.capacity)
        c.capacity = 65536;
    if (!c.name_bytes)
        c.name_bytes = 4u << 20;
    if (!c.name_slots)
        c.name_slots = 65536;
    if (c.nrings > RING_MAX_RINGS || c.capacity < 2 || !is_pow2(c.capacity) ||
        c.capacity > RING_MAX_CAPACITY || c.name_slots < 4 || !is_pow2(c.name_slots) ||
        c.name_slots > NAME_MAX_SLOTS || c.name_bytes < 64 || c.name_bytes > NAME_MAX_BYTES)
        return false;
    memset(lay, 0, sizeof *lay);
    lay->magic = RING_MAGIC;
    lay->version = RING_VERSION;
    lay->header_size = sizeof(RingShmHeader);
    lay->record_size = sizeof(RingRecord);
    lay->ring_header_size = sizeof(struct Ring);
    lay->nrings = c.nrings;
    lay->capacity = c.capacity;
    lay->name_slots = c.name_slots;
    lay->name_bytes = c.name_bytes;
    /* With the limits above nothing here can overflow 64 bits. */
    lay->rings_off = ring_align(sizeof(RingShmHeader), CACHE_LINE);
    lay->ring_stride = sizeof(struct Ring) + (uint64_t)c.capacity * sizeof(RingRecord);
    lay->names_off = lay->rings_off + (uint64_t)c.nrings * lay->ring_stride;
    uint64_t names_size = sizeof(NameShm) +
                          ring_align((uint64_t)c.name_slots * sizeof(uint32_t), CACHE_LINE) +
                          c.name_bytes;
    lay->total_size = ring_align(lay->names_off + names_size, 4096);
    if (res)
        *res = c;
    return true;
}

static Ring *ring_at(const RingSet *set, uint32_t i) {
    return (Ring *)(set->base + set->rings_off + (uint64_t)i * set->stride);
}

void ringset_format(void *base, const RingShmHeader *lay) {
    RingShmHeader *h = base;
    memcpy(h, lay, sizeof *lay);
    for (uint32_t i = 0; i < lay->nrings; i++) {
        Ring *r = (Ring *)((char *)base + lay->rings_off + (uint64_t)i * lay->ring_stride);
        r->mask = lay->capacity - 1;
        r->index = i;
    }
}

/* ---- producer registration ---------------------------------------------------------- */

static _Atomic uint64_t next_uid = 1;
static _Thread_local struct {
    uint64_t uid;
    Ring *ring;
} tl_cache[TL_CACHE];
static _Thread_local unsigned tl_next;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* After fork the child's only thread inherits the parent thread's cache, which points
 * at rings the parent thread still owns; forget them so the child claims its own. */
static void atfork_child(void) {
    memset(tl_cache, 0, sizeof tl_cache);
}
static void install_atfork(void) {
    pthread_atfork(NULL, NULL, atfork_child);
}

static uint64_t self_owner(void) {
    return (uint64_t)(uint32_t)getpid() << 32 | (uint32_t)gettid();
}

/* Thread exit: hand the ring back. Its unread records stay; the next owner appends
 * after them. The release store orders this thread's pushes before the next owner's. */
static void release_on_exit(void *p) {
    Ring *r = p;
    uint64_t me = self_owner();
    atomic_compare_exchange_strong_explicit(&r->owner, &me, 0, memory_order_release,
                                            memory_order_relaxed);
}

static Ring *tl_remember(RingSet *set, Ring *r) {
    unsigned k = tl_next++ % TL_CACHE;
    tl_cache[k].uid = set->uid;
    tl_cache[k].ring = r;
    return r;
}

static Ring *producer_slow(RingSet *set) {
    uint64_t me = self_owner();
    /* Evicted from the cache but still ours? */
    for (uint32_t i = 0; i < set->nrings; i++) {
        Ring *r = ring_at(set, i);
        if (atomic_load_explicit(&r->owner, memory_order_acquire) == me)
            return tl_remember(set, r);
    }
    for (uint32_t i = 0; i < set->nrings; i++) {
        Ring *r = ring_at(set, i);
        uint64_t expect = 0;
        /* Acquire pairs with the previous owner's release: its head/cached_tail/drops
         * writes happen-before ours, keeping the ring single-producer across owners. */
        if (atomic_load_explicit(&r->owner, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&r->owner, &expect, me,
                                                    memory_order_acquire,
                                                    memory_order_relaxed)) {
            if (set->key_ok)
                pthread_setspecific(set->key, r);
            return tl_remember(set, r);
        }
    }
    return NULL;
}

Ring *RingSet_producer(RingSet *set) {
    for (int k = 0; k < TL_CACHE; k++)
        if (tl_cache[k].uid == set->uid)
            return tl_cache[k].ring;
    return producer_slow(set);
}

bool RingSet_push(RingSet *set, const RingRecord *rec) {
    Ring *r = RingSet_producer(set);
    if (!r) {
        atomic_fetch_add_explicit(&set->hdr->noring_drops, 1, memory_order_relaxed);
        return false;
    }
    return Ring_push(r, rec);
}

/* ---- construction ------------------------------------------------------------------- */

RingSet *ringset_wrap(void *base, size_t size, int fd, bool owner) {
    const RingShmHeader *h = base;
    RingShmHeader lay;
    RingSetConfig c;
    if (size < sizeof *h || h->magic != RING_MAGIC || h->version != RING_VERSION ||
        h->header_size != sizeof(RingShmHeader) || h->record_size != sizeof(RingRecord) ||
        h->ring_header_size != sizeof(struct Ring))
        goto invalid;
    c = (RingSetConfig){h->nrings, h->capacity, h->name_bytes, h->name_slots};
    if (!c.nrings || !ringset_layout(&c, NULL, &lay) || lay.rings_off != h->rings_off ||
        lay.ring_stride != h->ring_stride || lay.names_off != h->names_off ||
        lay.total_size != h->total_size || lay.total_size > size)
        goto invalid;

    RingSet *set = calloc(1, sizeof *set);
    if (!set)
        return NULL;
    set->base = base;
    set->size = size;
    set->hdr = base;
    set->nrings = lay.nrings;
    set->mask = lay.capacity - 1;
    set->rings_off = lay.rings_off;
    set->stride = lay.ring_stride;
    nametable_bind(&set->names, set->base + lay.names_off, lay.name_slots, lay.name_bytes);
    set->uid = atomic_fetch_add_explicit(&next_uid, 1, memory_order_relaxed);
    set->key_ok = pthread_key_create(&set->key, release_on_exit) == 0;
    set->fd = fd;
    set->owner = owner;
    pthread_once(&atfork_once, install_atfork);
    return set;
invalid:
    errno = EINVAL;
    return NULL;
}

RingSet *RingSet_new(const RingSetConfig *cfg) {
    RingShmHeader lay;
    if (!ringset_layout(cfg, NULL, &lay)) {
        errno = EINVAL;
        return NULL;
    }
    /* MAP_SHARED so a fork()ed child can produce into the same set directly. */
    void *base = mmap(NULL, lay.total_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                      -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    ringset_format(base, &lay);
    RingSet *set = ringset_wrap(base, lay.total_size, -1, true);
    if (!set)
        munmap(base, lay.total_size);
    return set;
}

void RingSet_free(RingSet *set) {
    if (!set)
        return;
    if (set->key_ok)
        pthread_key_delete(set->key);
    /* Give back this process's rings (an injected library detaching at exit). */
    uint32_t pid = (uint32_t)getpid();
    for (uint32_t i = 0; i < set->nrings; i++) {
        Ring *r = ring_at(set, i);
        uint64_t o = atomic_load_explicit(&r->owner, memory_order_relaxed);
        if (o && (uint32_t)(o >> 32) == pid)
            atomic_compare_exchange_strong_explicit(&r->owner, &o, 0, memory_order_release,
                                                    memory_order_relaxed);
    }
    munmap(set->base, set->size);
    if (set->fd >= 0)
        close(set->fd);
    if (set->shm_name) {
        if (set->owner)
            shm_unlink(set->shm_name);
        free(set->shm_name);
    }
    free(set);
}

/* ---- consumer ----------------------------------------------------------------------- */

static size_t drain(RingSet *set, RingDrainFn fn, void *ctx, RingRecord *out, size_t max) {
    if (max == 0)
        max = SIZE_MAX;
    size_t total = 0;
    uint32_t start = set->rr;
    set->rr = set->nrings ? (start + 1) % set->nrings : 0;
    for (uint32_t k = 0; k < set->nrings && total < max; k++) {
        uint32_t i = (start + k) % set->nrings;
        total += ring_consume(ring_at(set, i), set->mask, i, fn, ctx, out ? out + total : NULL,
                              max - total);
    }
    return total;
}

size_t RingSet_drain(RingSet *set, RingDrainFn fn, void *ctx, size_t max) {
    return fn ? drain(set, fn, ctx, NULL, max) : 0;
}

size_t RingSet_drain_into(RingSet *set, RingRecord *out, size_t max) {
    return max ? drain(set, NULL, NULL, out, max) : 0;
}

uint64_t RingSet_drops(const RingSet *set) {
    uint64_t d = atomic_load_explicit(&set->hdr->noring_drops, memory_order_relaxed);
    for (uint32_t i = 0; i < set->nrings; i++)
        d += Ring_drops(ring_at(set, i));
    return d;
}

uint32_t RingSet_reap(RingSet *set) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < set->nrings; i++) {
        Ring *r = ring_at(set, i);
        uint64_t o = atomic_load_explicit(&r->owner, memory_order_acquire);
        if (!o)
            continue;
        pid_t pid = (pid_t)(o >> 32);
        if (kill(pid, 0) != 0 && errno == ESRCH &&
            atomic_compare_exchange_strong_explicit(&r->owner, &o, 0, memory_order_release,
                                                    memory_order_relaxed))
            n++;
    }
    return n;
}

/* ---- stop handshake ------------------------------------------------------------------- */

void RingSet_collectorJoin(RingSet *set) {
    atomic_fetch_add_explicit(&set->hdr->collectors, 1, memory_order_release);
}

void RingSet_collectorLeave(RingSet *set) {
    uint32_t n = atomic_load_explicit(&set->hdr->collectors, memory_order_relaxed);
    while (n && !atomic_compare_exchange_weak_explicit(&set->hdr->collectors, &n, n - 1, memory_order_release,
                                                       memory_order_relaxed)) {
    }
}

bool RingSet_stopRequested(RingSet *set, uint32_t *seen) {
    uint32_t r = atomic_load_explicit(&set->hdr->stop_req, memory_order_acquire);
    if (r == *seen)
        return false;
    *seen = r;
    return true;
}

void RingSet_stopAck(RingSet *set, uint64_t events_sent) {
    /* The events count first, then the ack that publishes it (release): a consumer that
     * sees the ack also sees the count, and the flushed records pushed before both. */
    atomic_fetch_add_explicit(&set->hdr->stop_ack_events, events_sent, memory_order_relaxed);
    atomic_fetch_add_explicit(&set->hdr->stop_acks, 1, memory_order_release);
}

void RingSet_requestStop(RingSet *set) {
    atomic_store_explicit(&set->hdr->stop_acks, 0, memory_order_relaxed);
    atomic_store_explicit(&set->hdr->stop_ack_events, 0, memory_order_relaxed);
    uint32_t r = atomic_load_explicit(&set->hdr->stop_req, memory_order_relaxed) + 1;
    atomic_store_explicit(&set->hdr->stop_req, r ? r : 1, memory_order_release);
}

RingStopState RingSet_stopState(const RingSet *set) {
    RingStopState st;
    st.acks = atomic_load_explicit(&set->hdr->stop_acks, memory_order_acquire);
    st.events_sent = atomic_load_explicit(&set->hdr->stop_ack_events, memory_order_relaxed);
    st.collectors = atomic_load_explicit(&set->hdr->collectors, memory_order_acquire);
    st.request = atomic_load_explicit(&set->hdr->stop_req, memory_order_relaxed);
    return st;
}

uint32_t RingSet_nrings(const RingSet *set) {
    return set->nrings;
}

Ring *RingSet_ring(RingSet *set, uint32_t i) {
    return i < set->nrings ? ring_at(set, i) : NULL;
}

uint32_t RingSet_active(const RingSet *set) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < set->nrings; i++)
        n += atomic_load_explicit(&ring_at(set, i)->owner, memory_order_relaxed) != 0;
    return n;
}

NameTable *RingSet_names(RingSet *set) {
    return &set->names;
}

int RingSet_fd(const RingSet *set) {
    return set->fd;
}
