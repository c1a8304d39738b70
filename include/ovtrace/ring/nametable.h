/* NameTable: an append-only, lock-free string interning table that can live in shared
 * memory, so kernel names produced in an injected process resolve in the viewer.
 *
 * Why a shared table rather than name records in the ring: kernel names are few and
 * repeat millions of times, so an id in the fixed-size record keeps records small and
 * pushes cheap; a name is written once, never per event, and a name can never be
 * dropped separately from (or arrive after) the events that use it. The cost is a fixed
 * budget: when it runs out, intern returns NAME_ID_FULL and counts it. */
#ifndef OVTRACE_NAMETABLE_H
#define OVTRACE_NAMETABLE_H
#include <stddef.h>
#include <stdint.h>

typedef struct NameTable NameTable;

#define NAME_ID_NONE 0u /* "" */
#define NAME_ID_FULL 1u /* "<name table full>" */
#define NAME_TABLE_FULL_STR "<name table full>"

/* Any thread, any process attached to the table. Same bytes -> same id. Never blocks;
 * strings longer than NAME_MAX_LEN are truncated. */
#define NAME_MAX_LEN 16384u
uint32_t NameTable_intern(NameTable *nt, const char *s, size_t len);
uint32_t NameTable_intern_cstr(NameTable *nt, const char *s);

/* NUL-terminated name for id, or NULL if id is out of range. len may be NULL. Ids come
 * from records written by another process, so they are bounds-checked; a valid id read
 * from a drained record always resolves (its intern happened-before the push). */
const char *NameTable_get(const NameTable *nt, uint32_t id, size_t *len);

uint32_t NameTable_count(const NameTable *nt);      /* distinct names stored */
uint64_t NameTable_full_count(const NameTable *nt); /* interns answered NAME_ID_FULL */
uint64_t NameTable_bytes_used(const NameTable *nt);

#endif
