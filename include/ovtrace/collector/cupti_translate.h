/* CUPTI activity records -> RingRecords: the pure translation layer of the CUPTI
 * collector (collector/translate.c).
 *
 * It reads the CUDA 13 activity record structs (CUpti_ActivityKernel10,
 * CUpti_ActivityMemcpy6, CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemset4,
 * CUpti_ActivityAPI, CUpti_ActivitySynchronization2, CUpti_ActivityMarker2,
 * CUpti_ActivityContext3) but calls nothing in libcupti, so it builds against the
 * headers alone and is unit-tested on machines without a GPU. The CUPTI glue
 * (collector/cupti_collector.c) iterates completed buffers with
 * cuptiActivityGetNextRecord and hands every record to CuptiTr_record.
 *
 * Mapping (docs/collector.md):
 *   CONCURRENT_KERNEL -> RING_KIND_KERNEL  device/stream, arg = blocks in the grid
 *   MEMCPY, MEMCPY2   -> RING_KIND_MEMCPY  arg = bytes; MEMCPY2 / PtoP get RING_F_MEMCPY_P2P
 *   MEMSET            -> RING_KIND_MEMSET  arg = bytes
 *   RUNTIME / DRIVER  -> RING_KIND_RUNTIME / _DRIVER  pid/tid, arg = cbid, name from cbid
 *   SYNCHRONIZATION   -> RING_KIND_SYNC    device (via context) / stream
 *   MARKER            -> RING_KIND_NVTX_RANGE (start+end paired by id), _NVTX_MARKER
 *   CONTEXT           -> no event; learns contextId -> deviceId
 * Correlation ids are copied, so a launch and its kernel are partners (Trace_partner).
 * Timestamps: host CLOCK_REALTIME ns = CUPTI ns + clock_offset_ns.
 *
 * Not thread-safe: one CuptiTr is used by one thread at a time (the glue holds a lock
 * around each completed buffer). */
#ifndef OVTRACE_CUPTI_TRANSLATE_H
#define OVTRACE_CUPTI_TRANSLATE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/ring/ring.h"

typedef struct CuptiTr CuptiTr;

/* Writes the demangled form of a C++ symbol into buf (NUL-terminated) and returns buf,
 * or NULL to keep the name as it is. */
typedef const char *(*CuptiTrDemangleFn)(const char *mangled, char *buf, size_t n);

/* The Itanium-ABI demangler (libstdc++'s __cxa_demangle) as a CuptiTrDemangleFn, or NULL
 * when the process cannot load one. CUPTI reports kernels mangled
 * ("_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE"); Kineto and the comm
 * rules use the demangled text ("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
 * "void dpsk::ep::intranode::dispatch<8, 20>(dpsk::ep::DispatchArgs)"). It is looked up at
 * run time (the process's own, else dlopen libstdc++.so.6) so that these C libraries, the
 * injection library included, link no C++ runtime; the toolkit's __cu_demangle (libcufilt.a)
 * is not in every CUDA install. Non-"_Z" names are kept as they are. Thread-safe. */
CuptiTrDemangleFn CuptiTr_cxaDemangler(void);

typedef struct {
    int64_t clock_offset_ns; /* host CLOCK_REALTIME ns - CUPTI ns (CuptiTr_estimateOffset) */
    uint32_t pid;            /* process of the GPU records (default: getpid()) */
    bool all_driver_calls;   /* false (default): DRIVER records are kept only for launch
                                cbids (cuLaunchKernel*, cuLaunchCooperativeKernel*,
                                cuGraphLaunch*, ...): those are what NCCL and Triton
                                launch through; other driver calls sit inside runtime
                                calls and would double the CPU lanes */
    CuptiTrDemangleFn demangle; /* kernel names; NULL: kept mangled */
} CuptiTrConfig;

typedef struct {
    uint64_t records;        /* records handed to CuptiTr_record */
    uint64_t events;         /* RingRecords emitted */
    uint64_t pushed_failed;  /* emits the ring refused (also counted by the RingSet) */
    uint64_t unknown_kind;   /* records of kinds not translated (skipped) */
    uint64_t zero_ts;        /* records without a start timestamp (skipped) */
    uint64_t bad_end;        /* end 0 or before start: emitted with dur 0 */
    uint64_t filtered;       /* driver calls skipped (not launches) */
    uint64_t nvtx_open;      /* NVTX ranges started and not yet ended (now) */
    uint64_t nvtx_orphan_end;/* NVTX ends still waiting for their start (now) */
    uint64_t nvtx_overflow;  /* NVTX start/end not kept: too many open at once */
    uint64_t cupti_dropped;  /* CUPTI's own dropped-record count (CuptiTr_addCuptiDropped) */
} CuptiTrStats;

/* Receives each translated record; name is the interned name's text (may be ""). */
typedef void (*CuptiTrEmitFn)(const RingRecord *rec, const char *name, void *ctx);

/* Records go to set (RingSet_push from the calling thread), names are interned in its
 * NameTable. cfg may be NULL for defaults. */
CuptiTr *CuptiTr_new(const CuptiTrConfig *cfg, RingSet *set);
/* Same, with a NameTable of one's own and a callback instead of a ring (tests, tools). */
CuptiTr *CuptiTr_newEmit(const CuptiTrConfig *cfg, NameTable *names, CuptiTrEmitFn emit, void *ctx);
void CuptiTr_free(CuptiTr *tr);

/* Translates one CUpti_Activity record (pointer to its `kind` field). Returns the
 * number of RingRecords emitted (0 for skipped, pending NVTX halves, contexts). */
int CuptiTr_record(CuptiTr *tr, const void *activity);

/* Context -> device, for records that carry only a context (SYNCHRONIZATION). Also
 * learned from every kernel/memcpy/memset/context record. */
void CuptiTr_setContextDevice(CuptiTr *tr, uint32_t context_id, uint32_t device_id);
/* Copies on this stream are all-to-all transfers (the workload's decode mode emulates
 * them through pinned host memory): they get RING_F_MEMCPY_P2P and " P2P" appended to
 * their name, so they classify as communication live and after a reload. */
void CuptiTr_markCommStream(CuptiTr *tr, uint32_t device_id, uint32_t stream_id);
/* Adds to CUPTI's dropped-record count and emits it as a RING_KIND_COUNTER record
 * named "cupti dropped records" (cumulative value, on the collector's CPU lane), so
 * the drops reach the UI and the recording through the ring. */
void CuptiTr_addCuptiDropped(CuptiTr *tr, uint64_t n, int64_t host_ts_ns);
void CuptiTr_setClockOffset(CuptiTr *tr, int64_t offset_ns);
CuptiTrStats CuptiTr_stats(const CuptiTr *tr);

/* Offset to add to CUPTI timestamps to get CLOCK_REALTIME ns: samples
 * (realtime, gpu_now(), realtime) `samples` times and keeps the tightest bracket. */
typedef uint64_t (*CuptiTrClockFn)(void *ctx);
int64_t CuptiTr_estimateOffset(CuptiTrClockFn gpu_now, void *ctx, int samples);

/* Names used by the translation (static strings; NULL if unknown). kind is
 * RING_KIND_RUNTIME or RING_KIND_DRIVER; the "_vNNNN" version suffix is removed. */
const char *CuptiTr_apiName(int ring_kind, uint32_t cbid);
bool CuptiTr_isLaunchCbid(int ring_kind, uint32_t cbid);
/* "Memcpy HtoD (Pageable -> Device)" style name (Kineto's), into buf. */
const char *CuptiTr_memcpyName(uint8_t copy_kind, uint8_t src_kind, uint8_t dst_kind, bool p2p, char *buf, size_t n);
const char *CuptiTr_syncName(uint32_t type);

#define CUPTI_TR_DROPPED_NAME "cupti dropped records"

#endif
