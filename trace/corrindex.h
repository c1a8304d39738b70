/* Events by (lane, correlation id): lets a flow point whose id is a correlation id bind
 * to the slice carrying that id rather than to whichever slice the geometry picks (a
 * 0 us cudaFuncSetAttribute at the same timestamp as the cudaLaunchKernelExC). */
#ifndef OVTRACE_CORRINDEX_H
#define OVTRACE_CORRINDEX_H
#include <stdint.h>

#include "ovtrace/trace.h"

typedef struct CorrIndex CorrIndex;

/* Indexes the finished layout's events with corr != 0 (NULL when there are none). */
CorrIndex *CorrIndex_build(const Trace *t);
void CorrIndex_free(CorrIndex *ci);

/* The event the flow point (lane, id, ts) binds to among events of that lane whose corr
 * is id and that qualify (enclosing: start <= ts <= end, then the deepest, the later one
 * in its row on a tie; otherwise start >= ts, then the earliest start, lowest depth, row
 * order). SIZE_MAX when none qualifies. Read-only: safe from several threads. */
size_t CorrIndex_bind(const CorrIndex *ci, const Trace *t, uint32_t lane, uint64_t id, int64_t ts, bool enclosing);

#endif
