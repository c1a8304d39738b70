/* U64Map: uint64 key -> uint32 value, open addressing with linear probing, load <= 1/2.
 * A key may hold several values: callers whose keys are wider than 64 bits (a lane is
 * source, kind, pid and tid) use a hash of them as the key, walk the values stored
 * under it and compare the full keys themselves:
 *     size_t pos = U64Map_start(m, key);
 *     for (uint32_t v; (v = U64Map_next(m, key, &pos)) != U64MAP_NONE;)
 *         if (same(v)) return v;
 *     U64Map_add(m, key, new_id);
 * Values are ids (UINT32_MAX is the empty slot); entries are never removed. */
#ifndef OVTRACE_BASE_MAP_H
#define OVTRACE_BASE_MAP_H
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/base/hash.h"

#define U64MAP_NONE UINT32_MAX

typedef struct {
    uint64_t key;
    uint32_t val; /* U64MAP_NONE: empty */
} U64MapSlot;

typedef struct {
    U64MapSlot *slots;
    size_t mask; /* slot count - 1 (a power of two) */
    size_t n;
} U64Map;

void U64Map_init(U64Map *m, size_t expect); /* room for `expect` entries before growing */
void U64Map_free(U64Map *m);
void U64Map_add(U64Map *m, uint64_t key, uint32_t val); /* one more value under key */

static inline size_t U64Map_start(const U64Map *m, uint64_t key) { return (size_t)Hash_u64(key) & m->mask; }

/* The next value under key from *pos on, or U64MAP_NONE after the last. */
static inline uint32_t U64Map_next(const U64Map *m, uint64_t key, size_t *pos) {
    for (;;) {
        const U64MapSlot *s = &m->slots[*pos];
        if (s->val == U64MAP_NONE) return U64MAP_NONE;
        *pos = (*pos + 1) & m->mask;
        if (s->key == key) return s->val;
    }
}

/* The first value stored under key, or U64MAP_NONE. */
static inline uint32_t U64Map_get(const U64Map *m, uint64_t key) {
    size_t pos = U64Map_start(m, key);
    return U64Map_next(m, key, &pos);
}

#endif
