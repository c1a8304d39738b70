/* The CUPTI collector (collector/cupti_collector.c): CUDA activity records of this
 * process -> CuptiTr translation -> RingSet. Used in-process by the built-in workload
 * (ovtrace-workload --collect) and by the injection library (libovtrace_inject.so,
 * loaded through CUDA_INJECTION64_PATH). Needs libcupti; built only with the CUDA
 * toolkit. CUPTI's callbacks are process-global, so there is one collector per process.
 *
 * Activity kinds: CONCURRENT_KERNEL (never KERNEL: it serialises kernels), MEMCPY,
 * MEMCPY2, MEMSET, RUNTIME, DRIVER, SYNCHRONIZATION, MARKER (NVTX), CONTEXT.
 * Buffers come from a pool allocated at start (the request callback never allocates and
 * may run on several threads at once); a flusher thread calls cuptiActivityFlushAll
 * every flush_ms; Cupti_stop and the exit path force a final flush. See
 * docs/collector.md. */
#ifndef OVTRACE_CUPTI_H
#define OVTRACE_CUPTI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/collector/cupti_translate.h"
#include "ovtrace/ring/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int flush_ms;           /* periodic flush (default 100; env OVTRACE_CUPTI_FLUSH_MS) */
    size_t buffer_bytes;    /* one activity buffer (default 2 MiB; env OVTRACE_CUPTI_BUFFER_KB) */
    int n_buffers;          /* buffers allocated at start (default 32; env OVTRACE_CUPTI_BUFFERS) */
    int max_buffers;        /* the pool grows to this many while CUPTI holds them all
                               (default 512; env OVTRACE_CUPTI_MAX_BUFFERS) */
    bool driver;            /* enable DRIVER records (default true; env OVTRACE_CUPTI_DRIVER=0) */
    bool all_driver_calls;  /* keep every driver call, not only launches */
    bool demangle;          /* demangle kernel names with __cxa_demangle if present (default) */
} CuptiConfig;

/* Defaults, then the OVTRACE_CUPTI_* environment overrides. */
void CuptiConfig_default(CuptiConfig *c);

/* Subscribes to CUPTI, enables the activity kinds, starts the flusher. Records go to set
 * (which must outlive Cupti_stop). False with a message in err when CUPTI cannot be
 * used: no driver, another CUPTI client (Nsight Systems, Nsight Compute, a PyTorch /
 * Kineto profiler, cuda-gdb) already attached, unsupported device, ... */
bool Cupti_start(const CuptiConfig *cfg, RingSet *set, char *err, size_t errlen);
/* Final forced flush, disables the activity kinds, unsubscribes, joins the flusher.
 * Idempotent; also registered with atexit by Cupti_start. In a child fork()ed after
 * Cupti_start, Cupti_stop does nothing and Cupti_running is false: the collector belongs
 * to the process that started it. */
void Cupti_stop(void);
bool Cupti_running(void);
/* Copies issued on this stream are all-to-all transfers (see CuptiTr_markCommStream).
 * stream is a CUstream / cudaStream_t. False if CUPTI cannot resolve it. */
bool Cupti_markCommStream(void *stream);
CuptiTrStats Cupti_stats(void);
/* Buffer requests answered with no buffer because the pool was empty. */
uint64_t Cupti_poolMisses(void);
/* Buffers allocated so far (the pool's start, plus those it grew by). */
int Cupti_buffersAllocated(void);

/* Path of the loaded libcupti (for NVTX_INJECTION64_PATH: NVTX ranges reach CUPTI's
 * MARKER records only through it), NULL if unknown. Sets the variable when unset and
 * set_env is true; call before the process's first NVTX call. */
const char *Cupti_libraryPath(bool set_env);

#ifdef __cplusplus
}
#endif
#endif
