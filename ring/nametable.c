/* NameTable: lock-free, append-only string interning in (shared) memory.
 *
 * intern: hash the name and walk the open-addressed slot array. An empty slot means the
 * name is not there yet: reserve arena space with fetch_add (unique range, no lock),
 * write the entry with plain stores, then publish its id with a CAS 0 -> id (release).
 * Readers load slots with acquire, so an id they see always points at complete bytes.
 * If the CAS loses, the winner's entry is compared like any other: when it is the same
 * name we return the winner's id (our reserved bytes are wasted, which only happens when
 * two threads intern the same new name at the same instant), otherwise we keep probing
 * and try to publish ours further on. Nothing ever waits for another thread, so a
 * producer preempted (or killed) mid-intern cannot stall the others. Not base's U64Map:
 * this table lives in shared memory with a fixed layout and lock-free readers. */
#include <string.h>

#include "ring_layout.h"

#define ENTRY_HDR 8u

static uint32_t name_hash(const char *s, size_t n) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

void nametable_bind(NameTable *nt, void *shm, uint32_t nslots, uint64_t nbytes) {
    nt->hdr = shm;
    nt->slots = (_Atomic uint32_t *)((char *)shm + sizeof(NameShm));
    nt->arena = (char *)nt->slots + ring_align((uint64_t)nslots * sizeof(uint32_t), CACHE_LINE);
    nt->nslots = nslots;
    nt->max_count = nslots / 4 * 3;
    nt->nbytes = nbytes;
}

/* Entry at id, bounds-checked against this process's idea of the arena size. */
static const char *entry_at(const NameTable *nt, uint32_t id, uint32_t *len, uint32_t *hash) {
    if (id < 2)
        return NULL;
    uint64_t off = (uint64_t)(id - 2) * 8;
    if (off + ENTRY_HDR + 1 > nt->nbytes)
        return NULL;
    const char *e = nt->arena + off;
    uint32_t l, h;
    memcpy(&l, e, 4);
    memcpy(&h, e + 4, 4);
    if (l > NAME_MAX_LEN || off + ENTRY_HDR + l + 1 > nt->nbytes || e[ENTRY_HDR + l] != '\0')
        return NULL;
    *len = l;
    if (hash)
        *hash = h;
    return e + ENTRY_HDR;
}

/* Reserve and fill an entry; 0 when the arena is exhausted. Not yet visible to anyone. */
static uint32_t write_entry(NameTable *nt, const char *s, uint32_t len, uint32_t hash) {
    uint64_t need = ring_align(ENTRY_HDR + len + 1, 8);
    uint64_t off = atomic_fetch_add_explicit(&nt->hdr->used, need, memory_order_relaxed);
    if (off + need > nt->nbytes)
        return 0; /* 'used' stays past the end, so every later reservation fails too */
    char *e = nt->arena + off;
    memcpy(e, &len, 4);
    memcpy(e + 4, &hash, 4);
    memcpy(e + ENTRY_HDR, s, len);
    e[ENTRY_HDR + len] = '\0';
    return (uint32_t)(off / 8 + 2);
}

uint32_t NameTable_intern(NameTable *nt, const char *s, size_t n) {
    if (n == 0)
        return NAME_ID_NONE;
    uint32_t len = n > NAME_MAX_LEN ? NAME_MAX_LEN : (uint32_t)n;
    uint32_t hash = name_hash(s, len);
    uint32_t mask = nt->nslots - 1;
    uint32_t mine = 0; /* our written, unpublished entry */
    for (uint32_t probe = 0, i = hash & mask; probe < nt->nslots; probe++, i = (i + 1) & mask) {
        uint32_t id = atomic_load_explicit(&nt->slots[i], memory_order_acquire);
        if (id == 0) {
            if (!mine) {
                if (atomic_load_explicit(&nt->hdr->count, memory_order_relaxed) >=
                    nt->max_count)
                    break;
                mine = write_entry(nt, s, len, hash);
                if (!mine)
                    break;
            }
            if (atomic_compare_exchange_strong_explicit(&nt->slots[i], &id, mine,
                                                        memory_order_acq_rel,
                                                        memory_order_acquire)) {
                atomic_fetch_add_explicit(&nt->hdr->count, 1, memory_order_relaxed);
                return mine;
            }
            /* Lost the race: id now holds the winner; compare it below. */
        }
        uint32_t elen, ehash;
        const char *e = entry_at(nt, id, &elen, &ehash);
        if (e && ehash == hash && elen == len && memcmp(e, s, len) == 0)
            return id;
    }
    atomic_fetch_add_explicit(&nt->hdr->full, 1, memory_order_relaxed);
    return NAME_ID_FULL;
}

uint32_t NameTable_intern_cstr(NameTable *nt, const char *s) {
    return NameTable_intern(nt, s, strlen(s));
}

const char *NameTable_get(const NameTable *nt, uint32_t id, size_t *len) {
    const char *s;
    uint32_t l = 0;
    if (id == NAME_ID_NONE) {
        s = "";
    } else if (id == NAME_ID_FULL) {
        s = NAME_TABLE_FULL_STR;
        l = sizeof NAME_TABLE_FULL_STR - 1;
    } else {
        s = entry_at(nt, id, &l, NULL);
    }
    if (s && len)
        *len = l;
    return s;
}

uint32_t NameTable_count(const NameTable *nt) {
    return atomic_load_explicit(&nt->hdr->count, memory_order_relaxed);
}

uint64_t NameTable_full_count(const NameTable *nt) {
    return atomic_load_explicit(&nt->hdr->full, memory_order_relaxed);
}

uint64_t NameTable_bytes_used(const NameTable *nt) {
    uint64_t u = atomic_load_explicit(&nt->hdr->used, memory_order_relaxed);
    return u > nt->nbytes ? nt->nbytes : u;
}
