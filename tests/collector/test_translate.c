/* CUPTI translation layer without a GPU: synthesised CUpti_Activity* records (the CUDA 13
 * structs) -> RingRecords -> the live store -> a finished Trace, then exact events,
 * classes (Classify_trace) and flows (Trace_partner). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cupti_activity.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ovtrace/model/classify.h"
#include "ovtrace/collector/cupti_translate.h"
#include "ovtrace/live/live.h"
#include "ovtrace/ring/ring.h"
#include "ovtrace/kernels/schedule.h"
#include "ovtrace/model/trace.h"
#include "workload_plan.h" /* WL_NCCL_KERNEL */

#define OFF 1700000000000000000LL /* clock offset: CUPTI ns -> host ns */
#define PID 4242u
#define MANGLED_DISPATCH "_ZN4dpsk2ep9intranode8dispatchILi8ELi20EEEvNS0_12DispatchArgsE"
#define DISPATCH "void dpsk::ep::intranode::dispatch<8, 20>(dpsk::ep::DispatchArgs)"

/* ---- record builders -------------------------------------------------------------------- */

static CUpti_ActivityKernel10 kernel(const char *name, uint32_t dev, uint32_t ctx, uint32_t stream, uint32_t corr,
                                    uint64_t start, uint64_t end) {
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = name;
    k.deviceId = dev;
    k.contextId = ctx;
    k.streamId = stream;
    k.correlationId = corr;
    k.start = start;
    k.end = end;
    k.gridX = 20;
    k.gridY = 1;
    k.gridZ = 1;
    k.blockX = 256;
    return k;
}

static CUpti_ActivityAPI api(CUpti_ActivityKind kind, uint32_t cbid, uint32_t tid, uint32_t corr, uint64_t start,
                             uint64_t end) {
    CUpti_ActivityAPI a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.cbid = cbid;
    a.processId = PID;
    a.threadId = tid;
    a.correlationId = corr;
    a.start = start;
    a.end = end;
    return a;
}

static CUpti_ActivityMemcpy6 memcpy6(uint8_t copy, uint8_t src, uint8_t dst, uint32_t stream, uint32_t corr,
                                     uint64_t bytes, uint64_t start, uint64_t end) {
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = copy;
    m.srcKind = src;
    m.dstKind = dst;
    m.bytes = bytes;
    m.start = start;
    m.end = end;
    m.deviceId = 0;
    m.contextId = 1;
    m.streamId = stream;
    m.correlationId = corr;
    return m;
}

static CUpti_ActivityMarker2 marker(uint32_t flags, uint32_t id, const char *name, uint32_t tid, uint64_t ts) {
    CUpti_ActivityMarker2 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m.flags = (CUpti_ActivityFlag)flags;
    m.id = id;
    m.name = name;
    m.domain = NULL;
    m.timestamp = ts;
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.processId = PID;
    m.objectId.pt.threadId = tid;
    return m;
}

static const char *fake_demangle(const char *mangled, char *buf, size_t n) {
    if (strcmp(mangled, MANGLED_DISPATCH) != 0) return NULL;
    snprintf(buf, n, "%s", DISPATCH);
    return buf;
}

/* ---- emit-callback harness ---------------------------------------------------------------- */

typedef struct {
    RingRecord rec[64];
    char name[64][128];
    size_t n;
} Sink;

static void sink_emit(const RingRecord *r, const char *name, void *ctx) {
    Sink *s = ctx;
    assert_true(s->n < 64);
    s->rec[s->n] = *r;
    snprintf(s->name[s->n], sizeof s->name[0], "%s", name);
    s->n++;
}

typedef struct {
    RingSet *set;
    CuptiTr *tr;
    Sink sink;
} Fix;

static CuptiTrConfig test_cfg(void) {
    CuptiTrConfig c;
    memset(&c, 0, sizeof c);
    c.clock_offset_ns = OFF;
    c.pid = PID;
    c.demangle = fake_demangle;
    return c;
}

static int setup(void **state) {
    Fix *f = calloc(1, sizeof *f);
    f->set = RingSet_new(NULL);
    CuptiTrConfig c = test_cfg();
    f->tr = CuptiTr_newEmit(&c, RingSet_names(f->set), sink_emit, &f->sink);
    assert_non_null(f->tr);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fix *f = *state;
    CuptiTr_free(f->tr);
    RingSet_free(f->set);
    free(f);
    return 0;
}

/* ---- exact records ------------------------------------------------------------------------- */

static void test_kernel_record(void **state) {
    Fix *f = *state;
    CUpti_ActivityKernel10 k = kernel(MANGLED_DISPATCH, 0, 1, 20, 77, 1000, 251000);
    assert_int_equal(CuptiTr_record(f->tr, &k), 1);
    assert_int_equal(f->sink.n, 1);
    const RingRecord *r = &f->sink.rec[0];
    assert_int_equal(r->kind, RING_KIND_KERNEL);
    assert_int_equal(r->ts_ns, OFF + 1000);
    assert_int_equal(r->dur_ns, 250000);
    assert_int_equal(r->device, 0);
    assert_int_equal(r->stream, 20);
    assert_int_equal(r->correlation, 77);
    assert_int_equal(r->arg, 20); /* blocks = comm SMs of a DeepEP kernel */
    assert_int_equal(r->pid, PID);
    assert_int_equal(r->flags, 0);
    assert_string_equal(f->sink.name[0], DISPATCH);
    /* the same mangled name again: demangled once, same id */
    CUpti_ActivityKernel10 k2 = kernel(MANGLED_DISPATCH, 0, 1, 20, 78, 300000, 400000);
    CuptiTr_record(f->tr, &k2);
    assert_int_equal(f->sink.rec[1].name_id, r->name_id);
    /* KERNEL (serialising) records are read the same way */
    CUpti_ActivityKernel10 k3 = kernel("plain_kernel", 0, 1, 7, 79, 500000, 600000);
    k3.kind = CUPTI_ACTIVITY_KIND_KERNEL;
    assert_int_equal(CuptiTr_record(f->tr, &k3), 1);
    assert_string_equal(f->sink.name[2], "plain_kernel");
}

static void test_memcpy_records(void **state) {
    Fix *f = *state;
    CUpti_ActivityMemcpy6 h2d = memcpy6(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 7, 10, 1 << 20, 100, 200);
    CUpti_ActivityMemcpy6 d2d = memcpy6(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 7, 11, 4096, 300, 350);
    CUpti_ActivityMemcpy6 d2h = memcpy6(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                                        CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 8, 12, 64, 400, 410);
    CUpti_ActivityMemcpyPtoP4 p2p;
    memset(&p2p, 0, sizeof p2p);
    p2p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    p2p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    p2p.srcKind = p2p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    p2p.bytes = 8 << 20;
    p2p.start = 500;
    p2p.end = 900;
    p2p.deviceId = 0;
    p2p.srcDeviceId = 0;
    p2p.dstDeviceId = 1;
    p2p.contextId = 1;
    p2p.srcContextId = 1;
    p2p.dstContextId = 2;
    p2p.streamId = 20;
    p2p.correlationId = 13;
    /* MEMCPY2 between devices whose copy kind says DtoD is still a peer copy */
    CUpti_ActivityMemcpyPtoP4 p2p_dtod = p2p;
    p2p_dtod.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    p2p_dtod.correlationId = 14;
    assert_int_equal(CuptiTr_record(f->tr, &h2d), 1);
    assert_int_equal(CuptiTr_record(f->tr, &d2d), 1);
    assert_int_equal(CuptiTr_record(f->tr, &d2h), 1);
    assert_int_equal(CuptiTr_record(f->tr, &p2p), 1);
    assert_int_equal(CuptiTr_record(f->tr, &p2p_dtod), 1);
    assert_string_equal(f->sink.name[0], "Memcpy HtoD (Pageable -> Device)");
    assert_string_equal(f->sink.name[1], "Memcpy DtoD (Device -> Device)");
    assert_string_equal(f->sink.name[2], "Memcpy DtoH (Device -> Pinned)");
    assert_string_equal(f->sink.name[3], "Memcpy PtoP (Device -> Device)");
    assert_string_equal(f->sink.name[4], "Memcpy PtoP (Device -> Device)");
    for (int i = 0; i < 5; i++) assert_int_equal(f->sink.rec[i].kind, RING_KIND_MEMCPY);
    assert_int_equal(f->sink.rec[0].arg, 1 << 20);
    assert_int_equal(f->sink.rec[0].ts_ns, OFF + 100);
    assert_int_equal(f->sink.rec[0].dur_ns, 100);
    assert_int_equal(f->sink.rec[0].flags, 0);
    assert_int_equal(f->sink.rec[1].flags, 0);
    assert_int_equal(f->sink.rec[3].flags, RING_F_MEMCPY_P2P);
    assert_int_equal(f->sink.rec[4].flags, RING_F_MEMCPY_P2P);
    assert_int_equal(f->sink.rec[3].arg, 8 << 20);
    assert_int_equal(f->sink.rec[3].stream, 20);
    assert_int_equal(f->sink.rec[3].correlation, 13);
}

static void test_comm_stream_copies(void **state) {
    Fix *f = *state;
    CuptiTr_markCommStream(f->tr, 0, 20);
    CUpti_ActivityMemcpy6 d2h = memcpy6(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                                        CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 20, 1, 1000, 10, 20);
    CUpti_ActivityMemcpy6 other = d2h;
    other.streamId = 7;
    CuptiTr_record(f->tr, &d2h);
    CuptiTr_record(f->tr, &other);
    assert_string_equal(f->sink.name[0], "Memcpy DtoH (Device -> Pinned) P2P");
    assert_int_equal(f->sink.rec[0].flags, RING_F_MEMCPY_P2P);
    assert_string_equal(f->sink.name[1], "Memcpy DtoH (Device -> Pinned)");
    assert_int_equal(f->sink.rec[1].flags, 0);
}

static void test_memset_record(void **state) {
    Fix *f = *state;
    CUpti_ActivityMemset4 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    m.value = 0;
    m.bytes = 12345;
    m.start = 50;
    m.end = 60;
    m.deviceId = 1;
    m.contextId = 2;
    m.streamId = 9;
    m.correlationId = 5;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    assert_int_equal(CuptiTr_record(f->tr, &m), 1);
    const RingRecord *r = &f->sink.rec[0];
    assert_int_equal(r->kind, RING_KIND_MEMSET);
    assert_string_equal(f->sink.name[0], "Memset (Device)");
    assert_int_equal(r->arg, 12345);
    assert_int_equal(r->device, 1);
    assert_int_equal(r->stream, 9);
    assert_int_equal(r->dur_ns, 10);
}

static void test_api_records(void **state) {
    Fix *f = *state;
    CUpti_ActivityAPI rt = api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 99, 77,
                               500, 900);
    CUpti_ActivityAPI cpy = api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 99, 78,
                                1000, 1100);
    CUpti_ActivityAPI drv = api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 98, 80, 600, 700);
    CUpti_ActivityAPI drv_ex = api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, 98, 81, 700,
                                   720);
    CUpti_ActivityAPI other = api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, 98, 82, 800, 850);
    CUpti_ActivityAPI unknown = api(CUPTI_ACTIVITY_KIND_RUNTIME, 60000, 99, 83, 900, 950);
    assert_int_equal(CuptiTr_record(f->tr, &rt), 1);
    assert_int_equal(CuptiTr_record(f->tr, &cpy), 1);
    assert_int_equal(CuptiTr_record(f->tr, &drv), 1);
    assert_int_equal(CuptiTr_record(f->tr, &drv_ex), 1);
    assert_int_equal(CuptiTr_record(f->tr, &other), 0); /* not a launch: filtered */
    assert_int_equal(CuptiTr_record(f->tr, &unknown), 1);
    assert_int_equal(f->sink.n, 5);
    const RingRecord *r = &f->sink.rec[0];
    assert_int_equal(r->kind, RING_KIND_RUNTIME);
    assert_string_equal(f->sink.name[0], "cudaLaunchKernel");
    assert_int_equal(r->pid, PID);
    assert_int_equal(r->tid, 99);
    assert_int_equal(r->stream, -1);
    assert_int_equal(r->device, -1);
    assert_int_equal(r->correlation, 77);
    assert_int_equal(r->arg, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    assert_int_equal(r->ts_ns, OFF + 500);
    assert_int_equal(r->dur_ns, 400);
    assert_int_equal(r->flags, 0);
    assert_string_equal(f->sink.name[1], "cudaMemcpyAsync");
    assert_int_equal(f->sink.rec[1].flags, RING_F_ASYNC);
    assert_int_equal(f->sink.rec[2].kind, RING_KIND_DRIVER);
    assert_string_equal(f->sink.name[2], "cuLaunchKernel");
    assert_int_equal(f->sink.rec[2].arg, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    assert_string_equal(f->sink.name[3], "cuLaunchKernelEx");
    assert_string_equal(f->sink.name[4], "cuda_runtime_cbid_60000");
    CuptiTrStats st = CuptiTr_stats(f->tr);
    assert_int_equal(st.filtered, 1);
    assert_int_equal(st.events, 5);
    assert_int_equal(st.records, 6);
}

static void test_all_driver_calls(void **state) {
    (void)state;
    Sink sink = {0};
    NameTable *nt = RingSet_names(((Fix *)*state)->set);
    CuptiTrConfig c = test_cfg();
    c.all_driver_calls = true;
    CuptiTr *tr = CuptiTr_newEmit(&c, nt, sink_emit, &sink);
    CUpti_ActivityAPI other = api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, 98, 82, 800, 850);
    assert_int_equal(CuptiTr_record(tr, &other), 1);
    assert_string_equal(sink.name[0], "cuMemAlloc");
    CuptiTr_free(tr);
}

static void test_sync_record(void **state) {
    Fix *f = *state;
    /* device learned from a kernel of context 3 on device 2 */
    CUpti_ActivityKernel10 k = kernel("k", 2, 3, 7, 1, 10, 20);
    CuptiTr_record(f->tr, &k);
    CUpti_ActivitySynchronization2 s;
    memset(&s, 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    s.start = 100;
    s.end = 180;
    s.contextId = 3;
    s.streamId = 7;
    s.correlationId = 2;
    s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
    assert_int_equal(CuptiTr_record(f->tr, &s), 1);
    const RingRecord *r = &f->sink.rec[1];
    assert_int_equal(r->kind, RING_KIND_SYNC);
    assert_string_equal(f->sink.name[1], "Stream Sync");
    assert_int_equal(r->device, 2);
    assert_int_equal(r->stream, 7);
    assert_int_equal(r->dur_ns, 80);
    assert_int_equal(r->correlation, 2);
    /* a context sync has no stream; a context record maps context 9 to device 5 */
    CUpti_ActivityContext3 cx;
    memset(&cx, 0, sizeof cx);
    cx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    cx.contextId = 9;
    cx.deviceId = 5;
    assert_int_equal(CuptiTr_record(f->tr, &cx), 0);
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    s.contextId = 9;
    s.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
    CuptiTr_record(f->tr, &s);
    assert_string_equal(f->sink.name[2], "Context Sync");
    assert_int_equal(f->sink.rec[2].device, 5);
    assert_int_equal(f->sink.rec[2].stream, -1);
}

static void test_nvtx(void **state) {
    Fix *f = *state;
    CUpti_ActivityMarker2 st = marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 5, "mb0/attn", 99, 1000);
    CUpti_ActivityMarker2 en = marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 5, NULL, 99, 4000);
    CUpti_ActivityMarker2 inst = marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 6, "step 3", 99, 2000);
    assert_int_equal(CuptiTr_record(f->tr, &st), 0); /* waits for its end */
    assert_int_equal(CuptiTr_stats(f->tr).nvtx_open, 1);
    assert_int_equal(CuptiTr_record(f->tr, &inst), 1);
    assert_int_equal(CuptiTr_record(f->tr, &en), 1);
    assert_int_equal(CuptiTr_stats(f->tr).nvtx_open, 0);
    assert_int_equal(f->sink.rec[0].kind, RING_KIND_NVTX_MARKER);
    assert_string_equal(f->sink.name[0], "step 3");
    assert_int_equal(f->sink.rec[0].dur_ns, 0);
    assert_int_equal(f->sink.rec[0].ts_ns, OFF + 2000);
    const RingRecord *r = &f->sink.rec[1];
    assert_int_equal(r->kind, RING_KIND_NVTX_RANGE);
    assert_string_equal(f->sink.name[1], "mb0/attn");
    assert_int_equal(r->ts_ns, OFF + 1000);
    assert_int_equal(r->dur_ns, 3000);
    assert_int_equal(r->pid, PID);
    assert_int_equal(r->tid, 99);
    assert_int_equal(r->device, -1);
}

static void test_nvtx_many_open(void **state) {
    Fix *f = *state;
    /* 5000 nested/overlapping ranges (table growth, deletion with probing), ended in an
     * interleaved order */
    enum { N = 5000 };
    for (uint32_t i = 1; i <= N; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "r%u", i);
        CUpti_ActivityMarker2 m = marker(CUPTI_ACTIVITY_FLAG_MARKER_START, i * 7919u, nm, 1, 100 + i);
        CuptiTr_record(f->tr, &m);
    }
    assert_int_equal(CuptiTr_stats(f->tr).nvtx_open, N);
    int emitted = 0;
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t i = 1 + pass; i <= N; i += 2) {
            CUpti_ActivityMarker2 m = marker(CUPTI_ACTIVITY_FLAG_MARKER_END, i * 7919u, NULL, 1, 100000 + i);
            emitted += CuptiTr_record(f->tr, &m);
            if (f->sink.n == 64) f->sink.n = 0; /* only counts matter here */
        }
    assert_int_equal(emitted, N);
    CuptiTrStats st = CuptiTr_stats(f->tr);
    assert_int_equal(st.nvtx_open, 0);
    assert_int_equal(st.nvtx_orphan_end, 0);
}

static void test_zero_timestamps(void **state) {
    Fix *f = *state;
    CUpti_ActivityKernel10 k0 = kernel("k", 0, 1, 7, 1, 0, 100);    /* no start: skipped */
    CUpti_ActivityKernel10 kend = kernel("k", 0, 1, 7, 2, 500, 0);  /* no end: kept, dur 0 */
    CUpti_ActivityKernel10 kneg = kernel("k", 0, 1, 7, 3, 900, 800); /* end < start: dur 0 */
    CUpti_ActivityAPI a0 = api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1, 1, 0, 0);
    CUpti_ActivityMarker2 m0 = marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 1, "x", 1, 0);
    CUpti_ActivityMemcpy6 c0 = memcpy6(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1, 3, 7, 4, 10, 0, 0);
    assert_int_equal(CuptiTr_record(f->tr, &k0), 0);
    assert_int_equal(CuptiTr_record(f->tr, &kend), 1);
    assert_int_equal(CuptiTr_record(f->tr, &kneg), 1);
    assert_int_equal(CuptiTr_record(f->tr, &a0), 0);
    assert_int_equal(CuptiTr_record(f->tr, &m0), 0);
    assert_int_equal(CuptiTr_record(f->tr, &c0), 0);
    assert_int_equal(f->sink.n, 2);
    assert_int_equal(f->sink.rec[0].ts_ns, OFF + 500);
    assert_int_equal(f->sink.rec[0].dur_ns, 0);
    assert_int_equal(f->sink.rec[1].dur_ns, 0);
    CuptiTrStats st = CuptiTr_stats(f->tr);
    assert_int_equal(st.zero_ts, 4);
    assert_int_equal(st.bad_end, 2);
}

/* Found by fuzz_cupti (docs/reliability.md): timestamps and grids at the limits. Starts
 * that have no int64 host time are skipped, ends that have none (or a duration past
 * INT64_MAX) give dur 0 and count as bad ends, a grid past 64 bits saturates; before,
 * these were signed overflows or wrapped to negative times and durations. */
static void test_timestamp_limits(void **state) {
    Fix *f = *state;
    const uint64_t imax = (uint64_t)INT64_MAX;
    /* start past INT64_MAX: wrapped to -3 + OFF before */
    CUpti_ActivityKernel10 past = kernel("k", 0, 1, 7, 1, UINT64_MAX - 2, UINT64_MAX);
    /* start + offset past INT64_MAX: signed overflow before */
    CUpti_ActivityKernel10 over = kernel("k", 0, 1, 7, 2, imax - 5, imax);
    /* end - start past INT64_MAX: a negative duration before */
    CUpti_ActivityKernel10 longk = kernel("k", 0, 1, 7, 3, 1000, UINT64_MAX - 5);
    /* the end alone past the host clock */
    CUpti_ActivityKernel10 endover = kernel("k", 0, 1, 7, 4, 1000, imax - (uint64_t)OFF + 10);
    /* the last representable end is kept exactly */
    CUpti_ActivityKernel10 edge = kernel("k", 0, 1, 7, 5, 1000, imax - (uint64_t)OFF);
    /* 2^93 blocks: signed overflow before; CUDA's largest grid still exact */
    CUpti_ActivityKernel10 huge = kernel("k", 0, 1, 7, 6, 2000, 3000);
    huge.gridX = huge.gridY = huge.gridZ = INT32_MAX;
    CUpti_ActivityKernel10 maxgrid = huge;
    maxgrid.gridY = maxgrid.gridZ = 65535;
    CUpti_ActivityMarker2 mpast = marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 1, "x", 1, UINT64_MAX);
    assert_int_equal(CuptiTr_record(f->tr, &past), 0);
    assert_int_equal(CuptiTr_record(f->tr, &over), 0);
    assert_int_equal(CuptiTr_record(f->tr, &mpast), 0);
    assert_int_equal(CuptiTr_record(f->tr, &longk), 1);
    assert_int_equal(CuptiTr_record(f->tr, &endover), 1);
    assert_int_equal(CuptiTr_record(f->tr, &edge), 1);
    assert_int_equal(CuptiTr_record(f->tr, &huge), 1);
    assert_int_equal(CuptiTr_record(f->tr, &maxgrid), 1);
    assert_int_equal(f->sink.n, 5);
    assert_int_equal(f->sink.rec[0].ts_ns, OFF + 1000);
    assert_int_equal(f->sink.rec[0].dur_ns, 0);
    assert_int_equal(f->sink.rec[1].dur_ns, 0);
    assert_int_equal(f->sink.rec[2].dur_ns, (int64_t)(imax - (uint64_t)OFF - 1000));
    assert_int_equal(f->sink.rec[2].ts_ns + f->sink.rec[2].dur_ns, INT64_MAX);
    assert_true(f->sink.rec[3].arg == UINT64_MAX);
    assert_true(f->sink.rec[4].arg == (uint64_t)INT32_MAX * 65535u * 65535u);
    CuptiTrStats st = CuptiTr_stats(f->tr);
    assert_int_equal(st.zero_ts, 3);
    assert_int_equal(st.bad_end, 2);

    /* NVTX halves more than 2^63 ns apart on the host clock (a large negative offset
     * puts the start far below 0): the subtraction overflowed before */
    CuptiTr_setClockOffset(f->tr, -(INT64_C(1) << 62));
    CUpti_ActivityMarker2 st0 = marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 9, "far", 1, 1);
    CUpti_ActivityMarker2 en0 = marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 9, NULL, 1, (UINT64_C(1) << 63) + (UINT64_C(1) << 61));
    assert_int_equal(CuptiTr_record(f->tr, &st0), 0);
    assert_int_equal(CuptiTr_record(f->tr, &en0), 1);
    assert_int_equal(f->sink.rec[5].kind, RING_KIND_NVTX_RANGE);
    assert_int_equal(f->sink.rec[5].ts_ns, 1 - (INT64_C(1) << 62));
    assert_int_equal(f->sink.rec[5].dur_ns, 0);
    assert_int_equal(CuptiTr_stats(f->tr).bad_end, 3);
}

static void test_unknown_kinds(void **state) {
    Fix *f = *state;
    uint64_t buf[64];
    memset(buf, 0, sizeof buf);
    CUpti_Activity *a = (CUpti_Activity *)buf;
    CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_NVLINK, CUPTI_ACTIVITY_KIND_PCIE, CUPTI_ACTIVITY_KIND_OVERHEAD,
                                  CUPTI_ACTIVITY_KIND_INVALID, (CUpti_ActivityKind)5000};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        a->kind = kinds[i];
        assert_int_equal(CuptiTr_record(f->tr, a), 0);
    }
    /* a marker that is neither start, end nor instant (sync markers) */
    CUpti_ActivityMarker2 m = marker(CUPTI_ACTIVITY_FLAG_MARKER_SYNC_ACQUIRE, 3, "lock", 1, 10);
    assert_int_equal(CuptiTr_record(f->tr, &m), 0);
    assert_int_equal(CuptiTr_record(f->tr, NULL), 0);
    assert_int_equal(f->sink.n, 0);
    CuptiTrStats st = CuptiTr_stats(f->tr);
    assert_int_equal(st.unknown_kind, 6);
    assert_int_equal(st.events, 0);
}

static void test_cupti_dropped(void **state) {
    Fix *f = *state;
    CuptiTr_addCuptiDropped(f->tr, 0, 5); /* nothing */
    CuptiTr_addCuptiDropped(f->tr, 10, OFF + 5);
    CuptiTr_addCuptiDropped(f->tr, 7, OFF + 9);
    assert_int_equal(f->sink.n, 2);
    assert_int_equal(f->sink.rec[1].kind, RING_KIND_COUNTER);
    assert_string_equal(f->sink.name[1], CUPTI_TR_DROPPED_NAME);
    double v;
    memcpy(&v, &f->sink.rec[1].arg, sizeof v);
    assert_true(v == 17.0);
    assert_int_equal(CuptiTr_stats(f->tr).cupti_dropped, 17);
}

static void test_names(void **state) {
    (void)state;
    assert_string_equal(CuptiTr_apiName(RING_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000),
                        "cudaLaunchKernel");
    assert_string_equal(CuptiTr_apiName(RING_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060),
                        "cudaLaunchKernelExC");
    assert_string_equal(CuptiTr_apiName(RING_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz),
                        "cuLaunchKernel_ptsz");
    assert_null(CuptiTr_apiName(RING_KIND_RUNTIME, 0));
    assert_null(CuptiTr_apiName(RING_KIND_DRIVER, 1u << 30));
    assert_true(CuptiTr_isLaunchCbid(RING_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    assert_true(CuptiTr_isLaunchCbid(RING_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel));
    assert_true(CuptiTr_isLaunchCbid(RING_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch));
    assert_false(CuptiTr_isLaunchCbid(RING_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2));
    char b[96];
    assert_string_equal(CuptiTr_memcpyName(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                                           CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, false, b, sizeof b),
                        "Memcpy HtoD (Pinned -> Device)");
    assert_string_equal(CuptiTr_memcpyName(200, 200, 200, false, b, sizeof b), "Memcpy Unknown (Unknown -> Unknown)");
    assert_string_equal(CuptiTr_syncName(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE), "Event Sync");
    assert_string_equal(CuptiTr_syncName(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT), "Stream Wait Event");
}

static uint64_t mono_clock(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void test_clock_offset(void **state) {
    (void)state;
    int64_t off = CuptiTr_estimateOffset(mono_clock, NULL, 16);
    struct timespec rt, mo;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mo);
    int64_t want = ((int64_t)rt.tv_sec - mo.tv_sec) * 1000000000 + (rt.tv_nsec - mo.tv_nsec);
    int64_t d = off - want;
    assert_true(d > -1000000 && d < 1000000); /* 1 ms: the two reads above are not atomic */
}

/* ---- through the ring and the live store into a Trace ------------------------------------- */

static size_t find(const Trace *t, const char *name, EventKind kind) {
    for (size_t i = 0; i < t->n_events; i++)
        if (t->events[i].kind == kind && !strcmp(Trace_name(t, &t->events[i]), name)) return i;
    return SIZE_MAX;
}

static void test_trace_classes_and_flows(void **state) {
    (void)state;
    RingSet *set = RingSet_new(NULL);
    CuptiTrConfig c = test_cfg();
    CuptiTr *tr = CuptiTr_new(&c, set);
    LiveStore *store = LiveStore_new(set, NULL);

    /* Buffer 1 (GPU records, completed first, out of time order) */
    CUpti_ActivityKernel10 gemm = kernel("moe::expert_gemm(moe::GemmArgs)", 0, 1, 7, 101, 5000, 9000);
    CUpti_ActivityKernel10 disp = kernel(MANGLED_DISPATCH, 0, 1, 20, 102, 3000, 8000);
    CUpti_ActivityMemcpy6 h2d = memcpy6(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 7, 103, 4096, 1000, 1500);
    CUpti_ActivityMemcpyPtoP4 p2p;
    memset(&p2p, 0, sizeof p2p);
    p2p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    p2p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    p2p.srcKind = p2p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    p2p.start = 9500;
    p2p.end = 9900;
    p2p.dstDeviceId = 1;
    p2p.contextId = 1;
    p2p.streamId = 21;
    p2p.correlationId = 104;
    p2p.bytes = 1 << 20;
    CUpti_ActivityMemset4 ms;
    memset(&ms, 0, sizeof ms);
    ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    ms.start = 200;
    ms.end = 300;
    ms.streamId = 7;
    ms.contextId = 1;
    ms.correlationId = 105;
    ms.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    CUpti_ActivityMarker2 nvtx_end = marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, NULL, 555, 9950);
    const void *buf1[] = {&gemm, &disp, &h2d, &p2p, &ms, &nvtx_end};
    for (size_t i = 0; i < 6; i++) CuptiTr_record(tr, buf1[i]);
    LiveStore_drain(store, 0);

    /* Buffer 2 (API records and the NVTX start, arriving later) */
    CUpti_ActivityAPI l_gemm = api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 555,
                                   101, 2000, 2100);
    CUpti_ActivityAPI l_disp = api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 556, 102, 1800,
                                   1900);
    CUpti_ActivityAPI l_cpy = api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 555, 103,
                                  900, 950);
    CUpti_ActivityAPI l_p2p = api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000, 555,
                                  104, 2200, 2300);
    CUpti_ActivityAPI l_ms = api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, 555, 105,
                                 150, 160);
    CUpti_ActivityMarker2 nvtx_start = marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, "mb0/expert", 555, 100);
    const void *buf2[] = {&l_gemm, &l_disp, &l_cpy, &l_p2p, &l_ms, &nvtx_start};
    for (size_t i = 0; i < 6; i++) CuptiTr_record(tr, buf2[i]);
    LiveStore_drain(store, 0);

    Trace *t = LiveStore_snapshot(store, SIZE_MAX, INT64_MIN);
    CommRules *rules = CommRules_default();
    Classify_trace(t, rules);
    assert_int_equal(t->n_events, 11);

    size_t i_gemm = find(t, "moe::expert_gemm(moe::GemmArgs)", KIND_KERNEL);
    size_t i_disp = find(t, DISPATCH, KIND_KERNEL);
    size_t i_h2d = find(t, "Memcpy HtoD (Pinned -> Device)", KIND_MEMCPY);
    size_t i_p2p = find(t, "Memcpy PtoP (Device -> Device)", KIND_MEMCPY);
    size_t i_ms = find(t, "Memset (Device)", KIND_MEMSET);
    size_t i_lg = find(t, "cudaLaunchKernel", KIND_RUNTIME);
    size_t i_ld = find(t, "cuLaunchKernel", KIND_DRIVER);
    size_t i_lc = find(t, "cudaMemcpyAsync", KIND_RUNTIME);
    size_t i_lp = find(t, "cudaMemcpyPeerAsync", KIND_RUNTIME);
    size_t i_lm = find(t, "cudaMemsetAsync", KIND_RUNTIME);
    size_t i_nv = find(t, "mb0/expert", KIND_ANNOTATION);
    size_t all[] = {i_gemm, i_disp, i_h2d, i_p2p, i_ms, i_lg, i_ld, i_lc, i_lp, i_lm, i_nv};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) assert_true(all[k] != SIZE_MAX);

    /* classes */
    assert_int_equal(t->events[i_gemm].cls, CLASS_COMPUTE);
    assert_int_equal(t->events[i_disp].cls, CLASS_COMM); /* DeepEP name rule, after demangling */
    assert_int_equal(t->events[i_h2d].cls, CLASS_MEMORY);
    assert_int_equal(t->events[i_p2p].cls, CLASS_COMM);
    assert_int_equal(t->events[i_ms].cls, CLASS_MEMORY);
    assert_int_equal(t->events[i_lg].cls, CLASS_CPU);
    assert_int_equal(t->events[i_ld].cls, CLASS_CPU);
    assert_int_equal(t->events[i_nv].cls, CLASS_ANNOTATION);

    /* flows: each launch <-> its GPU op, by correlation id, both directions */
    size_t pairs[][2] = {{i_lg, i_gemm}, {i_ld, i_disp}, {i_lc, i_h2d}, {i_lp, i_p2p}, {i_lm, i_ms}};
    for (size_t k = 0; k < 5; k++) {
        assert_int_equal(Trace_partner(t, pairs[k][0]), pairs[k][1]);
        assert_int_equal(Trace_partner(t, pairs[k][1]), pairs[k][0]);
    }
    assert_int_equal(Trace_partner(t, i_nv), SIZE_MAX);

    /* exact times (host clock), lanes */
    assert_int_equal(t->events[i_gemm].ts, OFF + 5000);
    assert_int_equal(t->events[i_gemm].dur, 4000);
    assert_int_equal(t->events[i_nv].ts, OFF + 100);
    assert_int_equal(t->events[i_nv].dur, 9850);
    const Lane *lg = &t->lanes[Trace_laneOf(t, i_gemm)], *ld = &t->lanes[Trace_laneOf(t, i_disp)];
    assert_true(lg->gpu && ld->gpu);
    assert_int_equal(lg->device, 0);
    assert_int_equal(lg->stream, 7);
    assert_int_equal(ld->stream, 20);
    const Lane *cpu = &t->lanes[Trace_laneOf(t, i_lg)];
    assert_false(cpu->gpu);
    assert_int_equal(cpu->pid, PID);
    assert_int_equal(cpu->tid, 555);
    assert_int_equal(Trace_laneOf(t, i_nv), Trace_laneOf(t, i_lg)); /* NVTX on its thread */
    /* events in a lane come out sorted by start even though they arrived unsorted */
    for (size_t l = 0; l < t->n_lanes; l++)
        for (size_t k = 1; k < t->lanes[l].count; k++) {
            const TraceEvent *a = &t->events[t->lanes[l].first + k - 1], *b = &t->events[t->lanes[l].first + k];
            if (a->depth == b->depth) assert_true(a->ts <= b->ts);
        }
    assert_int_equal(LiveStore_stats(store).ring_drops, 0);

    CommRules_free(rules);
    Trace_free(t);
    LiveStore_free(store);
    CuptiTr_free(tr);
    RingSet_free(set);
}

/* ---- real kernel names and the workload's comm ------------------------------------------ */

/* Mangled names as CUPTI reports them (the workload's from its cubin, NCCL's from
 * libnccl.so.2 2.28), through the real demangler, classify like Kineto's text. */
static void test_real_demangled_names(void **state) {
    (void)state;
    CuptiTrDemangleFn dm = CuptiTr_cxaDemangler();
    assert_non_null(dm); /* libstdc++ is on every machine that builds the CUDA parts */
    static const struct {
        const char *mangled, *name;
        EventClass cls;
    } K[] = {
        {"_ZN4dpsk2ep9intranode8dispatchILi8ELi20EEEvNS0_12DispatchArgsE",
         "void dpsk::ep::intranode::dispatch<8, 20>(dpsk::ep::DispatchArgs)", CLASS_COMM},
        {"_ZN4dpsk2ep9internode7combineILi8ELi20EEEvNS0_11CombineArgsE",
         "void dpsk::ep::internode::combine<8, 20>(dpsk::ep::CombineArgs)", CLASS_COMM},
        {"_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE",
         "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", CLASS_COMM},
        {"_Z42ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_tP11ncclDevCommmP8ncclWork",
         "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", CLASS_COMM},
        {"_ZN3moe9attn_projENS_8GemmArgsE", "moe::attn_proj(moe::GemmArgs)", CLASS_COMPUTE},
        {"_ZN3moe11expert_gemmENS_8GemmArgsE", "moe::expert_gemm(moe::GemmArgs)", CLASS_COMPUTE},
        {"triton_poi_fused_0", "triton_poi_fused_0", CLASS_COMPUTE}, /* not mangled: kept */
        {"_Zbroken", "_Zbroken", CLASS_COMPUTE},                     /* not demangled: kept */
    };
    size_t nk = sizeof K / sizeof K[0];
    /* the schedule's names are what the demangler gives for the workload's kernels */
    assert_string_equal(K[0].name, SCHED_NAME_DISPATCH_NVL);
    assert_string_equal(K[1].name, SCHED_NAME_COMBINE);
    assert_int_equal(strncmp(K[2].name, WL_NCCL_KERNEL "(", strlen(WL_NCCL_KERNEL) + 1), 0);

    RingSet *set = RingSet_new(NULL);
    CuptiTrConfig c = test_cfg();
    c.demangle = dm;
    CuptiTr *tr = CuptiTr_new(&c, set);
    LiveStore *store = LiveStore_new(set, NULL);
    for (size_t i = 0; i < nk; i++) {
        CUpti_ActivityKernel10 k = kernel(K[i].mangled, 0, 1, 20, (uint32_t)(200 + i), 1000 * (i + 1), 1000 * (i + 1) + 500);
        assert_int_equal(CuptiTr_record(tr, &k), 1);
    }
    LiveStore_drain(store, 0);
    Trace *t = LiveStore_snapshot(store, SIZE_MAX, INT64_MIN);
    CommRules *rules = CommRules_default();
    Classify_trace(t, rules);
    assert_int_equal(t->n_events, nk);
    for (size_t i = 0; i < nk; i++) {
        size_t e = find(t, K[i].name, KIND_KERNEL);
        if (e == SIZE_MAX) fail_msg("no kernel named '%s' (from %s)", K[i].name, K[i].mangled);
        if (t->events[e].cls != K[i].cls) fail_msg("'%s' classified %d, want %d", K[i].name, t->events[e].cls, K[i].cls);
    }
    CommRules_free(rules);
    Trace_free(t);
    LiveStore_free(store);
    CuptiTr_free(tr);
    RingSet_free(set);
}

/* A C++ template kernel demangles to kilobytes (PyTorch's random-number kernels to 5 KB):
 * the whole name is kept, as Kineto keeps it, not the first kilobyte. The mangled name's
 * substitutions (S_) repeat a 200-character class in the demangled text. */
static void test_long_demangled_name(void **state) {
    (void)state;
    CuptiTrDemangleFn dm = CuptiTr_cxaDemangler();
    assert_non_null(dm);
    char cls[201], mangled[512], want[8192];
    memset(cls, 'a', 200);
    cls[200] = 0;
    int k = snprintf(mangled, sizeof mangled, "_Z1f200%s", cls);
    for (int i = 0; i < 24; i++) k += snprintf(mangled + k, sizeof mangled - (size_t)k, "S_");
    k = snprintf(want, sizeof want, "f(%s", cls);
    for (int i = 0; i < 24; i++) k += snprintf(want + k, sizeof want - (size_t)k, ", %s", cls);
    snprintf(want + k, sizeof want - (size_t)k, ")");
    assert_true(strlen(want) > 5000);
    RingSet *set = RingSet_new(NULL);
    CuptiTrConfig c = test_cfg();
    c.demangle = dm;
    CuptiTr *tr = CuptiTr_new(&c, set);
    LiveStore *store = LiveStore_new(set, NULL);
    CUpti_ActivityKernel10 kr = kernel(mangled, 0, 1, 20, 300, 1000, 2000);
    assert_int_equal(CuptiTr_record(tr, &kr), 1);
    LiveStore_drain(store, 0);
    Trace *t = LiveStore_snapshot(store, SIZE_MAX, INT64_MIN);
    assert_int_equal(t->n_events, 1);
    if (find(t, want, KIND_KERNEL) == SIZE_MAX) fail_msg("the %zu-character name was not kept whole", strlen(want));
    Trace_free(t);
    LiveStore_free(store);
    CuptiTr_free(tr);
    RingSet_free(set);
}

/* Decode mode's emulated all-to-all: DtoH then HtoD through pinned memory on the comm
 * stream. CUPTI calls them plain copies (memory); marked comm streams make them
 * communication, per device (each GPU has its own comm stream ids). */
static void test_decode_copies_are_comm(void **state) {
    (void)state;
    RingSet *set = RingSet_new(NULL);
    CuptiTrConfig c = test_cfg();
    CuptiTr *tr = CuptiTr_new(&c, set);
    LiveStore *store = LiveStore_new(set, NULL);
    CuptiTr_markCommStream(tr, 0, 20);
    CuptiTr_markCommStream(tr, 1, 33);
    struct {
        uint32_t dev, stream;
        bool comm;
    } where[] = {{0, 20, true}, {1, 33, true}, {0, 7, false}, {1, 20, false}, {2, 20, false}};
    uint32_t corr = 300;
    uint64_t ts = 1000;
    for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
        CUpti_ActivityMemcpy6 d2h = memcpy6(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                                            CUPTI_ACTIVITY_MEMORY_KIND_PINNED, where[w].stream, corr++, 1 << 20, ts,
                                            ts + 100);
        CUpti_ActivityMemcpy6 h2d = memcpy6(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                                            CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, where[w].stream, corr++, 1 << 20,
                                            ts + 200, ts + 300);
        d2h.deviceId = h2d.deviceId = where[w].dev;
        d2h.contextId = h2d.contextId = where[w].dev + 1;
        ts += 1000;
        assert_int_equal(CuptiTr_record(tr, &d2h), 1);
        assert_int_equal(CuptiTr_record(tr, &h2d), 1);
    }
    LiveStore_drain(store, 0);
    Trace *t = LiveStore_snapshot(store, SIZE_MAX, INT64_MIN);
    CommRules *rules = CommRules_default();
    Classify_trace(t, rules);
    assert_int_equal(t->n_events, 10);
    size_t seen = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        const Lane *l = &t->lanes[Trace_laneOf(t, i)];
        assert_int_equal(e->kind, KIND_MEMCPY);
        bool comm = false;
        for (size_t w = 0; w < sizeof where / sizeof where[0]; w++)
            if ((uint32_t)l->device == where[w].dev && (uint32_t)l->stream == where[w].stream) comm = where[w].comm;
        const char *name = Trace_name(t, e);
        if (comm) {
            assert_int_equal(e->cls, CLASS_COMM);
            /* the name says it too, so a recording reloaded from file classifies it again */
            assert_non_null(strstr(name, " P2P"));
        } else {
            assert_int_equal(e->cls, CLASS_MEMORY);
            assert_null(strstr(name, "P2P"));
        }
        seen++;
    }
    assert_int_equal(seen, 10);
    CommRules_free(rules);
    Trace_free(t);
    LiveStore_free(store);
    CuptiTr_free(tr);
    RingSet_free(set);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kernel_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memcpy_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_comm_stream_copies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memset_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_api_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_all_driver_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nvtx, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nvtx_many_open, setup, teardown),
        cmocka_unit_test_setup_teardown(test_zero_timestamps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timestamp_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cupti_dropped, setup, teardown),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_clock_offset),
        cmocka_unit_test(test_trace_classes_and_flows),
        cmocka_unit_test(test_real_demangled_names),
        cmocka_unit_test(test_long_demangled_name),
        cmocka_unit_test(test_decode_copies_are_comm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
