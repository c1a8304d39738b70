/* Args are not kept in memory; the details view fetches an event's JSON object from
 * its source on demand (a pread for plain files, a re-decompression for gz/zst). */
#ifndef OVTRACE_ARGS_H
#define OVTRACE_ARGS_H
#include <stddef.h>

#include "ovtrace/trace.h"

/* The event's original JSON object text (malloc'd, NUL-terminated), or NULL with a
 * message (synthesized events have no source text). */
char *Args_fetchRaw(const Trace *t, size_t idx, size_t *len, char *err, size_t errlen);

#endif
