/* Args are not kept in memory; the details view fetches an event's JSON object from
 * its source on demand (a pread for plain files, a re-decompression for gz/zst). */
#ifndef OVTRACE_ARGS_H
#define OVTRACE_ARGS_H
#include <stdbool.h>
#include <stddef.h>

#include "ovtrace/model/trace.h"

/* The event's original JSON object text (malloc'd, NUL-terminated), or NULL with a
 * message (synthesized events have no source text). */
char *Args_fetchRaw(const Trace *t, size_t idx, size_t *len, char *err, size_t errlen);

/* Calls fn for each member of the JSON object text [obj, obj + len) (such as what
 * Args_fetchRaw returns) in order, with the key decoded and the value's text [vp, vq).
 * The loader's member loop does the walking (include/ovtrace/read/jsonscan.h: the same grammar, the
 * same keys, the whole text validated); a syntax error returns false with err naming
 * the byte and what was expected. */
typedef void (*ArgsMemberFn)(void *ctx, const char *key, const char *vp, const char *vq);
bool Args_members(const char *obj, size_t len, ArgsMemberFn fn, void *ctx, char *err, size_t errlen);

#endif
