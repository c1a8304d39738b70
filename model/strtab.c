/* String interning with an open-addressing hash table over an append-only arena.
 * Ids are dense so callers can keep per-name side tables (classification cache,
 * kernel statistics). */
#include "ovtrace/model/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/hash.h"

typedef struct {
    uint32_t off; /* into arena */
    uint32_t len;
} StrRef;

struct StrTab {
    char *arena;
    size_t arena_len, arena_cap;
    StrRef *refs;
    size_t n, cap_refs;
    /* id+1, 0 = empty; hashed by Hash_bytes (ids do not depend on it). Not a U64Map:
     * a slot is the 4-byte id, the string itself is the key. */
    uint32_t *slots;
    size_t n_slots;
};

StrTab *StrTab_new(void) {
    StrTab *st = xcalloc(1, sizeof *st);
    st->n_slots = 1024;
    st->slots = xcalloc(st->n_slots, sizeof *st->slots);
    StrTab_intern(st, "", 0);
    return st;
}

void StrTab_free(StrTab *st) {
    if (!st) return;
    free(st->arena);
    free(st->refs);
    free(st->slots);
    free(st);
}

static void rehash_to(StrTab *st, size_t ns) {
    uint32_t *slots = xcalloc(ns, sizeof *slots);
    for (size_t id = 0; id < st->n; id++) {
        const StrRef *r = &st->refs[id];
        size_t i = Hash_bytes(st->arena + r->off, r->len) & (ns - 1);
        while (slots[i]) i = (i + 1) & (ns - 1);
        slots[i] = (uint32_t)id + 1;
    }
    free(st->slots);
    st->slots = slots;
    st->n_slots = ns;
}

static void rehash(StrTab *st) { rehash_to(st, st->n_slots * 2); }

void StrTab_reserve(StrTab *st, size_t n) {
    size_t ns = st->n_slots;
    while ((st->n + n) * 2 > ns) ns *= 2; /* the load factor StrTab_intern keeps */
    if (ns != st->n_slots) rehash_to(st, ns);
}

/* Appends s[0..len) as a new string whose hash slot is i. */
static uint32_t append(StrTab *st, const char *s, size_t len, size_t i) {
    if (st->arena_len + len + 1 > st->arena_cap) {
        size_t cap = st->arena_cap ? st->arena_cap : 4096;
        while (cap < st->arena_len + len + 1) cap *= 2;
        st->arena = xrealloc(st->arena, cap);
        st->arena_cap = cap;
    }
    if (st->n == st->cap_refs) {
        st->cap_refs = st->cap_refs ? st->cap_refs * 2 : 256;
        st->refs = xrealloc(st->refs, st->cap_refs * sizeof *st->refs);
    }
    uint32_t id = (uint32_t)st->n++;
    st->refs[id] = (StrRef){(uint32_t)st->arena_len, (uint32_t)len};
    memcpy(st->arena + st->arena_len, s, len);
    st->arena[st->arena_len + len] = '\0';
    st->arena_len += len + 1;
    st->slots[i] = id + 1;
    if (st->n * 2 > st->n_slots) rehash(st);
    return id;
}

uint32_t StrTab_intern(StrTab *st, const char *s, size_t len) {
    size_t mask = st->n_slots - 1;
    size_t i = Hash_bytes(s, len) & mask;
    for (uint32_t v; (v = st->slots[i]) != 0; i = (i + 1) & mask) {
        const StrRef *r = &st->refs[v - 1];
        if (r->len == len && memcmp(st->arena + r->off, s, len) == 0) return v - 1;
    }
    return append(st, s, len, i);
}

uint32_t StrTab_add(StrTab *st, const char *s, size_t len) {
    size_t mask = st->n_slots - 1;
    size_t i = Hash_bytes(s, len) & mask;
    while (st->slots[i]) i = (i + 1) & mask; /* no string to compare: s is new */
    return append(st, s, len, i);
}

void StrTab_prefetch(const StrTab *st, const char *s, size_t len) {
    __builtin_prefetch(&st->slots[Hash_bytes(s, len) & (st->n_slots - 1)]);
}

uint32_t StrTab_find(const StrTab *st, const char *s, size_t len) {
    size_t mask = st->n_slots - 1;
    for (size_t i = Hash_bytes(s, len) & mask;; i = (i + 1) & mask) {
        uint32_t v = st->slots[i];
        if (!v) return STRTAB_NONE;
        const StrRef *r = &st->refs[v - 1];
        if (r->len == len && memcmp(st->arena + r->off, s, len) == 0) return v - 1;
    }
}

const char *StrTab_get(const StrTab *st, uint32_t id) {
    return id < st->n ? st->arena + st->refs[id].off : "";
}

size_t StrTab_len(const StrTab *st, uint32_t id) { return id < st->n ? st->refs[id].len : 0; }

size_t StrTab_count(const StrTab *st) { return st->n; }

size_t StrTab_bytes(const StrTab *st) {
    return st->arena_cap + st->cap_refs * sizeof(StrRef) + st->n_slots * sizeof(uint32_t);
}

const char *StrTab_arena(const StrTab *st, size_t *len) {
    *len = st->arena_len;
    return st->arena;
}

/* Bulk construction: no per-string arena growth, one table sized once. */
StrTab *StrTab_adopt(char *arena, size_t arena_len, const uint32_t *lens, size_t n) {
    if (n == 0 || lens[0] != 0 || arena_len > UINT32_MAX) return NULL;
    StrRef *refs = malloc(n * sizeof *refs);
    size_t n_slots = 1024;
    while (n * 2 > n_slots) n_slots *= 2; /* the load factor StrTab_intern keeps */
    uint32_t *slots = calloc(n_slots, sizeof *slots);
    if (!refs || !slots) goto fail;
    size_t off = 0;
    for (size_t id = 0; id < n; id++) {
        size_t len = lens[id];
        if (len >= arena_len - off || arena[off + len] != '\0') goto fail;
        refs[id] = (StrRef){(uint32_t)off, (uint32_t)len};
        size_t i = Hash_bytes(arena + off, len) & (n_slots - 1);
        for (uint32_t v; (v = slots[i]) != 0; i = (i + 1) & (n_slots - 1))
            if (refs[v - 1].len == len && memcmp(arena + refs[v - 1].off, arena + off, len) == 0) goto fail;
        slots[i] = (uint32_t)id + 1;
        off += len + 1;
    }
    if (off != arena_len) goto fail;
    StrTab *st = calloc(1, sizeof *st);
    if (!st) goto fail;
    *st = (StrTab){.arena = arena, .arena_len = arena_len, .arena_cap = arena_len, .refs = refs, .n = n,
                   .cap_refs = n, .slots = slots, .n_slots = n_slots};
    return st;
fail:
    free(refs);
    free(slots);
    return NULL;
}
