/* The collective args of a comm kernel, as its source records them: the process group,
 * the collective's name and its sequence number. The reader fetches them from the
 * sources (read/collargs.c); the collectives analysis matches by them and takes them
 * through a CollArgsFn its caller supplies, so that analysis never reads a file. */
#ifndef OVTRACE_MODEL_COLLARGS_H
#define OVTRACE_MODEL_COLLARGS_H
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/strtab.h"
#include "ovtrace/model/trace.h"

#define COLLARGS_NONE UINT32_MAX

typedef struct {
    uint32_t group; /* "Process Group Name" interned in st, or COLLARGS_NONE */
    uint32_t coll;  /* "Collective name" interned in st, or COLLARGS_NONE */
    int64_t seq;    /* "Seq", or -1 */
} CollArgs;

/* Fills out[i] for t->events[events[i]], i < n, interning names in st; an event without
 * args gets {COLLARGS_NONE, COLLARGS_NONE, -1}. Returns the number of event objects read.
 * ctx: the caller's, as given with the function. */
typedef size_t (*CollArgsFn)(void *ctx, const Trace *t, const uint32_t *events, size_t n, CollArgs *out,
                             StrTab *st);

#endif
