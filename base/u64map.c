#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/map.h"

static void alloc_slots(U64Map *m, size_t n_slots) {
    m->slots = xmalloc(n_slots * sizeof *m->slots);
    memset(m->slots, 0xff, n_slots * sizeof *m->slots); /* every val U64MAP_NONE */
    m->mask = n_slots - 1;
}

void U64Map_init(U64Map *m, size_t expect) {
    size_t n_slots = 16;
    while (n_slots < 2 * expect) n_slots *= 2;
    alloc_slots(m, n_slots);
    m->n = 0;
}

void U64Map_free(U64Map *m) {
    free(m->slots);
    m->slots = NULL;
    m->mask = m->n = 0;
}

static void put(U64Map *m, uint64_t key, uint32_t val) {
    size_t i = U64Map_start(m, key);
    while (m->slots[i].val != U64MAP_NONE) i = (i + 1) & m->mask;
    m->slots[i] = (U64MapSlot){key, val};
}

void U64Map_add(U64Map *m, uint64_t key, uint32_t val) {
    if (2 * (m->n + 1) > m->mask + 1) {
        U64MapSlot *old = m->slots;
        size_t n_old = m->mask + 1;
        alloc_slots(m, 2 * n_old);
        for (size_t i = 0; i < n_old; i++)
            if (old[i].val != U64MAP_NONE) put(m, old[i].key, old[i].val);
        free(old);
    }
    put(m, key, val);
    m->n++;
}
