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
const char *StrTab_get(const StrTab *st, uint32_t id);
size_t StrTab_len(const StrTab *st, uint32_t id);
size_t StrTab_count(const StrTab *st);
size_t StrTab_bytes(const StrTab *st); /* resident bytes, for memory accounting */

#endif
