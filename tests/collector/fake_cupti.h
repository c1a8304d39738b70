/* A stand-in for libcupti (tests/collector/fake_cupti.c): the CUPTI calls of
 * collector/cupti_collector.c, implemented on the CPU so that the collector's own logic
 * (buffer callbacks, locks, flusher, stop, fork) runs in tests without a GPU.
 *
 * Kernel records are queued with FakeCupti_queueKernels and delivered, like CUPTI, only
 * by cuptiActivityFlushAll: a default flush (flag 0) delivers the queue when
 * FakeCupti_setComplete(true) (the records are complete), a forced flush always.
 * Counters live in a MAP_SHARED mapping so a fork()ed child's calls show in the parent. */
#ifndef OVTRACE_FAKE_CUPTI_H
#define OVTRACE_FAKE_CUPTI_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    int flushes;        /* cuptiActivityFlushAll calls */
    int forced;         /* ... with CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
    int foreign_calls;  /* CUPTI calls from a process other than the one of FakeCupti_reset */
    int delivered;      /* kernel records handed to the buffer-completed callback */
    int ctx_blocked;    /* context creations that could not finish while a buffer callback
                           asked for the drop count (the collector held its lock there) */
} FakeCuptiCounts;

/* Clears the counters and the queue; the calling process becomes the owner. */
void FakeCupti_reset(void);
FakeCuptiCounts FakeCupti_counts(void);
/* Queue n kernel records (start..end on the CUPTI clock, 1 us each, 1 us apart). */
void FakeCupti_queueKernels(int n);
/* Whether the queued records count as complete (a default flush delivers them). */
void FakeCupti_setComplete(bool complete);
/* cuptiGetTimestamp fails from now on (or works again). */
void FakeCupti_failTimestamp(bool fail);
/* cuptiActivityGetNumDroppedRecords reports n dropped records once, and meanwhile
 * creates a context on another thread (the resource callback), as CUPTI may while the
 * collector handles a buffer: ctx_blocked counts the creations that could not finish. */
void FakeCupti_dropsWithContextCreation(size_t n);
/* Waits for the context-creating threads started so far. */
void FakeCupti_quiesce(void);
/* Asks for n buffers and keeps them, as CUPTI keeps each buffer holding a record of a
 * kernel not yet run; returns how many it got. */
int FakeCupti_holdBuffers(int n);
/* Completes the buffers held (one kernel record each). */
void FakeCupti_releaseHeld(void);

#endif
