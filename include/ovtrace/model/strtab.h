/* String interning: every event name, category and lane name is stored once. */
#ifndef OVTRACE_STRTAB_H
#define OVTRACE_STRTAB_H
#include <stddef.h>
#include <stdint.h>

typedef struct StrTab StrTab;

StrTab *StrTab_new(void);
void StrTab_free(StrTab *st);
/* Returns the id of s[0..len); id 0 is always the empty string. */
uint32_t StrTab_intern(StrTab *st, const char *s, size_t len);
/* Adds s[0..len), which the caller knows is not in the table, without comparing it
 * with the strings in its hash chain; its id. */
uint32_t StrTab_add(StrTab *st, const char *s, size_t len);
/* Starts fetching the hash slot of s[0..len) into the cache: a caller adding many
 * strings asks for one some strings ahead of the one it adds. */
void StrTab_prefetch(const StrTab *st, const char *s, size_t len);
/* Room for n more strings before the hash table grows: one rehash instead of one per
 * doubling when many strings are interned at once (the lanes' labels). */
void StrTab_reserve(StrTab *st, size_t n);
/* The id of s[0..len) when it is interned, else STRTAB_NONE (the table is unchanged:
 * a lookup on a finished, shared model). */
#define STRTAB_NONE UINT32_MAX
uint32_t StrTab_find(const StrTab *st, const char *s, size_t len);
const char *StrTab_get(const StrTab *st, uint32_t id);
size_t StrTab_len(const StrTab *st, uint32_t id);
size_t StrTab_count(const StrTab *st);
size_t StrTab_bytes(const StrTab *st); /* resident bytes, for memory accounting */
/* Every string in id order, each followed by '\0' (strings may hold '\0' themselves:
 * StrTab_len tells where each ends). For the snapshot cache. */
const char *StrTab_arena(const StrTab *st, size_t *len);
/* Builds a table from an arena laid out as StrTab_arena returns it and the length of
 * each string; takes ownership of arena (a malloc'd block) on success. Ids are the
 * order of the strings. NULL, arena untouched, when the lengths do not describe the
 * arena exactly, string 0 is not "", or a string occurs twice. */
StrTab *StrTab_adopt(char *arena, size_t arena_len, const uint32_t *lens, size_t n);

#endif
