/* Batch fetch of the collective args of many events (the CollArgsFn that the callers of
 * Coll_analyze give it): each source is opened once and read in offset order (a
 * compressed one decompressed once, front to back), where Args_fetchRaw reopens the
 * source per event. */
#ifndef OVTRACE_COLLARGS_H
#define OVTRACE_COLLARGS_H
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/collargs.h"
#include "ovtrace/model/strtab.h"
#include "ovtrace/model/trace.h"

/* A CollArgsFn (ctx unused): out[i] for events[i]. A source whose first COLLARGS_PROBE
 * requested objects carry none of the keys is not read further (DeepEP kernels have no
 * such args). Returns the number of event objects read. */
#define COLLARGS_PROBE 32
size_t CollArgs_fetch(void *ctx, const Trace *t, const uint32_t *events, size_t n, CollArgs *out, StrTab *st);

#endif
