/* Fuzz target: CUPTI activity records -> RingRecords (collector/translate.c), the
 * translation the CUPTI collector runs on every record of every completed buffer.
 *
 * The input is a small program that synthesises CUDA 13 CUpti_Activity* records of
 * every kind translate.c reads (kernel, memcpy, memcpy2/P2P, memset, runtime, driver,
 * synchronization, NVTX marker, context) and of kinds it skips, with fuzzed
 * timestamps (0, reversed, straddling INT64_MAX, near UINT64_MAX), ids, streams,
 * devices, grids and cbids (also past the generated name tables), grouped into
 * buffers that are handed over in a fuzzed completion order (CUPTI completes buffers
 * out of order). Each record is its own allocation of exactly its struct's size, so
 * ASan catches a read past a record; name pointers are always valid (a fixed table,
 * or NUL-terminated slices of the input), as CUPTI's are.
 *
 * Oracle: a reference model written from the contract in cupti_translate.h (128-bit
 * time arithmetic, its own context / comm-stream / NVTX bookkeeping) predicts every
 * RingRecord: kind, flags, ts, dur, ids, arg and name must match exactly. On top,
 * every record starts at a representable host time, has dur >= 0 and ts + dur <=
 * INT64_MAX (an end that is 0, before the start or unrepresentable gives dur 0 and is
 * counted in bad_end), every name id resolves in the NameTable, and the stats counters
 * agree with the model after every buffer. Records go to the emit callback or through
 * a small RingSet (ring drops and a full NameTable included).
 *
 * Input: byte 0 = config (see LLVMFuzzerTestOneInput), then the 8-byte clock offset and
 * the 4-byte pid when the config asks for them, then ops: one byte each (low 4 bits =
 * what, see parse()) followed by that op's fields. Bytes past the end read as 0.
 * fuzz/make_corpus.py writes seeds in this encoding. */
#include <cupti_activity.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cbid_names.h"
#include "ovtrace/collector/cupti_translate.h"
#include "ovtrace/ring/ring.h"

static const void *cur_rec;  /* the record being translated, described on a failure */
static int64_t cur_offset;
static void describe(void);

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "fuzz_cupti: check failed: %s: ", #cond);     \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
            describe();                                                   \
            abort();                                                      \
        }                                                                 \
    } while (0)

#define MAX_OPS 1500
#define MAX_BUFS 16
#define MAX_COMM 32 /* markCommStream calls per input: below translate.c's table */
#define BASE_TS 1700000000000000000ULL

/* ---- input reader ------------------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t n, i;
} Rd;

static uint64_t rd(Rd *r, int bytes) {
    uint64_t v = 0;
    for (int j = 0; j < bytes; j++) v |= (uint64_t)(r->i < r->n ? r->p[r->i++] : 0) << (8 * j);
    return v;
}
static uint8_t u8(Rd *r) { return (uint8_t)rd(r, 1); }
static uint16_t u16(Rd *r) { return (uint16_t)rd(r, 2); }
static uint32_t u32(Rd *r) { return (uint32_t)rd(r, 4); }
static uint64_t u64(Rd *r) { return rd(r, 8); }

/* ---- allocations of one input (records, names), freed at the end --------------------- */

typedef struct {
    void **p;
    size_t n, cap;
} Pool;

static void *pool_add(Pool *pl, void *p) {
    if (!p) abort();
    if (pl->n == pl->cap) {
        pl->cap = pl->cap ? pl->cap * 2 : 64;
        pl->p = realloc(pl->p, pl->cap * sizeof *pl->p);
        if (!pl->p) abort();
    }
    return pl->p[pl->n++] = p;
}

static void pool_free(Pool *pl) {
    for (size_t i = 0; i < pl->n; i++) free(pl->p[i]);
    free(pl->p);
}

/* ---- names ---------------------------------------------------------------------------- */

static const char *const NAMES[] = {
    "",
    "k",
    "_ZN4dpsk2ep9intranode8dispatchILi8ELi20EEEvNS0_12DispatchArgsE",
    "ncclDevKernel_AllGather_RING_LL",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
    "_Z",
    "_R",
    "_Rempty_demangling",
    "mb0/attn",
    "step 3",
    "nvtx \xc3\xa9 \xff\xfe",
    "cudaLaunchKernel",
    "Memcpy HtoD (Pageable -> Device)",
    NAME_TABLE_FULL_STR,
};
#define N_NAMES (sizeof NAMES / sizeof NAMES[0])

static char long_mangled[NAME_MAX_LEN + 200]; /* demangles past the longest name kept */
static char long_name[NAME_MAX_LEN + 900]; /* interned truncated to NAME_MAX_LEN */

static void init_names(void) {
    if (long_name[0]) return;
    memset(long_mangled, 'x', sizeof long_mangled - 1);
    memcpy(long_mangled, "_Z", 2);
    for (size_t i = 0; i < sizeof long_name - 1; i++) long_name[i] = (char)('a' + i % 26);
}

/* NULL, a table name, a long one, or a NUL-terminated slice of the input */
static const char *gen_name(Rd *r, Pool *pl) {
    uint8_t s = u8(r);
    switch (s & 7) {
    case 0: return NULL;
    case 1:
    case 2:
    case 3: return NAMES[(s >> 3) % N_NAMES];
    case 4: return s & 8 ? long_mangled : long_name;
    default: {
        size_t len = u8(r);
        if (len > r->n - r->i) len = r->n - r->i;
        char *n = pool_add(pl, malloc(len + 1));
        memcpy(n, r->p + r->i, len);
        n[len] = '\0';
        r->i += len;
        return n;
    }
    }
}

/* The demangler the collector would pass (its result is what gets interned): wraps
 * "_Z" names, returns "" for "_R" names (translate.c then keeps the raw name), NULL
 * otherwise. */
static const char *fake_demangle(const char *mangled, char *buf, size_t n) {
    if (!strncmp(mangled, "_Z", 2)) {
        snprintf(buf, n, "demangled<%s>", mangled + 2);
        return buf;
    }
    if (!strncmp(mangled, "_R", 2)) {
        if (n) buf[0] = '\0';
        return buf;
    }
    return NULL;
}

/* ---- field generators ------------------------------------------------------------------ */

static uint64_t gen_ts(Rd *r, uint64_t prev) {
    uint8_t s = u8(r);
    switch (s & 7) {
    case 0: return 0;
    case 1: return u16(r);
    case 2: return BASE_TS + u32(r);
    case 3: return prev - 1 - u16(r); /* before the previous record (reversed) */
    case 4: return prev + u16(r);
    case 5: return u64(r);
    case 6: return (uint64_t)INT64_MAX - 128 + (s >> 3) * 9; /* straddles INT64_MAX */
    default: return UINT64_MAX - (s >> 3);
    }
}

static void gen_span(Rd *r, uint64_t *prev, uint64_t *start, uint64_t *end) {
    *start = gen_ts(r, *prev);
    uint8_t e = u8(r);
    switch (e & 7) {
    case 0: *end = *start; break;
    case 1:
    case 2: *end = *start + (uint64_t)(e >> 3) * 100000 + u16(r); break;
    case 3: *end = *start - 1 - u16(r); break; /* ends before it starts */
    case 4: *end = 0; break;
    default: *end = gen_ts(r, *start); break;
    }
    if (*start) *prev = *start;
}

/* small ids collide (same stream, same device), the rest probe the edges */
static uint32_t gen_id(Rd *r) {
    uint8_t s = u8(r);
    if (s < 0xc0) return s & 15;
    if (s < 0xe0) return u32(r);
    return s & 1 ? UINT32_MAX : 0x80000000u + (s & 6);
}

/* at most 132 distinct contexts: translate.c keeps 256 */
static uint32_t gen_ctx(Rd *r) {
    uint8_t s = u8(r);
    return s < 0xf0 ? s & 0x7f : UINT32_MAX - (s & 3);
}

static int32_t gen_grid(Rd *r) {
    uint8_t s = u8(r);
    switch (s & 3) {
    case 0: return s >> 2;
    case 1: return (int32_t)u16(r);
    case 2: return INT32_MAX - (s >> 2);
    default: return (int32_t)u32(r);
    }
}

static const uint32_t RT_CBIDS[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,  CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
};
static const uint32_t DRV_CBIDS[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,     CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,     CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
};

static uint32_t gen_cbid(Rd *r, bool driver) {
    uint32_t count = driver ? ovtrace_cupti_driver_count : ovtrace_cupti_runtime_count;
    uint8_t s = u8(r);
    switch (s & 7) {
    case 0:
    case 1:
    case 2: return u16(r) % count; /* a cbid of the table, or one of its gaps */
    case 3: return driver ? DRV_CBIDS[(s >> 3) % 6] : RT_CBIDS[(s >> 3) % 6];
    case 4: return count - 8 + (s >> 3);  /* around the end of the table */
    case 5: return 4096 - 8 + (s >> 3);   /* around the name cache's bound */
    case 6: return u32(r);
    default: return UINT32_MAX - (s >> 3);
    }
}

/* The fields that matter of the record a check failed on (a reproducer's first hint). */
static void describe(void) {
    if (!cur_rec) return;
    const CUpti_Activity *a = cur_rec;
    uint64_t start = 0, end = 0;
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = cur_rec;
        start = k->start, end = k->end;
        fprintf(stderr, "  kernel grid %d x %d x %d\n", k->gridX, k->gridY, k->gridZ);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: start = ((const CUpti_ActivityMemcpy6 *)cur_rec)->start,
                                     end = ((const CUpti_ActivityMemcpy6 *)cur_rec)->end; break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2: start = ((const CUpti_ActivityMemcpyPtoP4 *)cur_rec)->start,
                                      end = ((const CUpti_ActivityMemcpyPtoP4 *)cur_rec)->end; break;
    case CUPTI_ACTIVITY_KIND_MEMSET: start = ((const CUpti_ActivityMemset4 *)cur_rec)->start,
                                     end = ((const CUpti_ActivityMemset4 *)cur_rec)->end; break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: start = ((const CUpti_ActivityAPI *)cur_rec)->start,
                                     end = ((const CUpti_ActivityAPI *)cur_rec)->end; break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: start = ((const CUpti_ActivitySynchronization2 *)cur_rec)->start,
                                              end = ((const CUpti_ActivitySynchronization2 *)cur_rec)->end; break;
    case CUPTI_ACTIVITY_KIND_MARKER: start = ((const CUpti_ActivityMarker2 *)cur_rec)->timestamp; break;
    default: break;
    }
    fprintf(stderr, "  record kind %d start %llu end %llu, clock offset %lld\n", (int)a->kind,
            (unsigned long long)start, (unsigned long long)end, (long long)cur_offset);
}

/* ---- the model ------------------------------------------------------------------------ */

typedef struct {
    uint32_t id;
    uint8_t state; /* 1 start seen, 2 end seen */
    int64_t ts;
    const char *name;
    uint32_t pid;
    int64_t tid;
} MNvtx;

typedef struct {
    RingRecord r;
    const char *name; /* expected text (before NAME_MAX_LEN truncation) */
} Expect;

typedef struct {
    int64_t offset;
    uint32_t pid;
    bool all_driver, demangle;
    uint32_t ctx[256], dev[256], n_ctx;
    int64_t last_dev;
    uint32_t comm_dev[MAX_COMM], comm_stream[MAX_COMM], n_comm;
    MNvtx *nvtx;
    size_t n_nvtx, cap_nvtx;
    uint64_t records, events, zero_ts, bad_end, filtered, unknown_kind, dropped, failed;
    Expect *exp; /* expected records of the buffer being delivered */
    size_t n_exp, cap_exp, next_exp;
    Pool *pool; /* expected names built by the model live here */
} Model;

static bool m_host(const Model *m, uint64_t t, int64_t *out) {
    __int128 v = (__int128)t + m->offset;
    if (v < INT64_MIN || v > INT64_MAX) return false;
    *out = (int64_t)v;
    return true;
}

/* ts/dur from a start/end pair; false: no usable start (skipped, zero_ts) */
static bool m_span(Model *m, uint64_t start, uint64_t end, RingRecord *r) {
    if (!start || !m_host(m, start, &r->ts_ns)) {
        m->zero_ts++;
        return false;
    }
    int64_t he;
    if (!end || end < start || !m_host(m, end, &he) || (__int128)he - r->ts_ns > INT64_MAX) {
        m->bad_end++;
        r->dur_ns = 0;
    } else {
        r->dur_ns = he - r->ts_ns;
    }
    return true;
}

static void m_set_ctx(Model *m, uint32_t ctx, uint32_t dev) {
    m->last_dev = dev;
    for (uint32_t i = 0; i < m->n_ctx; i++)
        if (m->ctx[i] == ctx) {
            m->dev[i] = dev;
            return;
        }
    CHECK(m->n_ctx < 256, "more contexts than gen_ctx makes");
    m->ctx[m->n_ctx] = ctx;
    m->dev[m->n_ctx++] = dev;
}

/* GPU records teach context -> device only when the pair is new */
static void m_learn_ctx(Model *m, uint32_t ctx, uint32_t dev) {
    for (uint32_t i = 0; i < m->n_ctx; i++)
        if (m->ctx[i] == ctx && m->dev[i] == dev) return;
    m_set_ctx(m, ctx, dev);
}

static int32_t m_ctx_dev(const Model *m, uint32_t ctx) {
    for (uint32_t i = 0; i < m->n_ctx; i++)
        if (m->ctx[i] == ctx) return (int32_t)m->dev[i];
    return m->last_dev >= 0 ? (int32_t)m->last_dev : 0;
}

static bool m_comm(const Model *m, uint32_t dev, uint32_t stream) {
    for (uint32_t i = 0; i < m->n_comm; i++)
        if (m->comm_dev[i] == dev && m->comm_stream[i] == stream) return true;
    return false;
}

static RingRecord m_gpu(const Model *m, RingKind kind, uint32_t dev, int64_t stream, uint32_t corr) {
    RingRecord r;
    memset(&r, 0, sizeof r);
    r.kind = (uint8_t)kind;
    r.device = (int32_t)dev;
    r.stream = stream;
    r.correlation = corr;
    r.pid = m->pid;
    return r;
}

static void m_expect(Model *m, const RingRecord *r, const char *name) {
    if (m->n_exp == m->cap_exp) {
        m->cap_exp = m->cap_exp ? m->cap_exp * 2 : 64;
        m->exp = realloc(m->exp, m->cap_exp * sizeof *m->exp);
        if (!m->exp) abort();
    }
    m->exp[m->n_exp].r = *r;
    m->exp[m->n_exp++].name = name ? name : "";
    m->events++;
}

static char *m_strdup(Model *m, const char *s) {
    char *d = pool_add(m->pool, malloc(strlen(s) + 1));
    strcpy(d, s);
    return d;
}

static const char *m_kernel_name(Model *m, const char *name) {
    if (!name || !m->demangle) return name;
    static char buf[NAME_MAX_LEN + 1]; /* translate.c demangles into as much: longer results are cut */
    const char *d = fake_demangle(name, buf, sizeof buf);
    return d && *d ? m_strdup(m, d) : name;
}

static const char *const MEMORY_KIND[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                          "Array",   "Managed",  "Device Static", "Managed Static"};

/* Predicts what CuptiTr_record emits for one record (0 or 1 Expect). */
static void m_record(Model *m, const void *act) {
    m->records++;
    const CUpti_Activity *a = act;
    RingRecord r;
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = act;
        m_learn_ctx(m, k->contextId, k->deviceId);
        r = m_gpu(m, RING_KIND_KERNEL, k->deviceId, k->streamId, k->correlationId);
        if (!m_span(m, k->start, k->end, &r)) return;
        if (k->gridX > 0 && k->gridY > 0 && k->gridZ > 0) {
            unsigned __int128 b = (unsigned __int128)k->gridX * (unsigned)k->gridY * (unsigned)k->gridZ;
            r.arg = b > UINT64_MAX ? UINT64_MAX : (uint64_t)b;
        }
        m_expect(m, &r, m_kernel_name(m, k->name));
        return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        bool two = a->kind == CUPTI_ACTIVITY_KIND_MEMCPY2;
        const CUpti_ActivityMemcpy6 *c = act;
        const CUpti_ActivityMemcpyPtoP4 *p = act;
        uint32_t dev = two ? p->deviceId : c->deviceId, ctx = two ? p->contextId : c->contextId;
        uint32_t stream = two ? p->streamId : c->streamId;
        uint8_t ck = two ? p->copyKind : c->copyKind, sk = two ? p->srcKind : c->srcKind;
        uint8_t dk = two ? p->dstKind : c->dstKind;
        m_learn_ctx(m, ctx, dev);
        r = m_gpu(m, RING_KIND_MEMCPY, dev, stream, two ? p->correlationId : c->correlationId);
        if (!m_span(m, two ? p->start : c->start, two ? p->end : c->end, &r)) return;
        /* a peer copy: the PtoP kind, or (MEMCPY2) between devices or contexts */
        bool p2p = ck == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP ||
                   (two && (p->srcDeviceId != p->dstDeviceId || p->srcContextId != p->dstContextId));
        bool comm = !(two && p2p) && m_comm(m, dev, stream);
        if (p2p || comm) r.flags = RING_F_MEMCPY_P2P;
        r.arg = two ? p->bytes : c->bytes;
        char buf[128];
        CuptiTr_memcpyName(ck, sk, dk, p2p, buf, sizeof buf);
        if (comm) strcat(buf, " P2P");
        m_expect(m, &r, m_strdup(m, buf));
        return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *s = act;
        m_learn_ctx(m, s->contextId, s->deviceId);
        r = m_gpu(m, RING_KIND_MEMSET, s->deviceId, s->streamId, s->correlationId);
        if (!m_span(m, s->start, s->end, &r)) return;
        r.arg = s->bytes;
        char buf[64];
        snprintf(buf, sizeof buf, "Memset (%s)", MEMORY_KIND[s->memoryKind < 8 ? s->memoryKind : 0]);
        m_expect(m, &r, m_strdup(m, buf));
        return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const CUpti_ActivityAPI *p = act;
        RingKind kind = a->kind == CUPTI_ACTIVITY_KIND_DRIVER ? RING_KIND_DRIVER : RING_KIND_RUNTIME;
        if (kind == RING_KIND_DRIVER && !m->all_driver && !CuptiTr_isLaunchCbid(kind, p->cbid)) {
            m->filtered++;
            return;
        }
        r = m_gpu(m, kind, (uint32_t)-1, -1, p->correlationId);
        r.pid = p->processId ? p->processId : m->pid;
        r.tid = p->threadId;
        r.arg = p->cbid;
        if (!m_span(m, p->start, p->end, &r)) return;
        const char *n = CuptiTr_apiName(kind, p->cbid);
        if (n && strstr(n, "Async")) r.flags = RING_F_ASYNC;
        if (!n) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s_cbid_%u", kind == RING_KIND_DRIVER ? "cuda_driver" : "cuda_runtime",
                     p->cbid);
            n = m_strdup(m, buf);
        }
        m_expect(m, &r, n);
        return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *s = act;
        int64_t stream = s->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? -1 : (int64_t)s->streamId;
        r = m_gpu(m, RING_KIND_SYNC, (uint32_t)m_ctx_dev(m, s->contextId), stream, s->correlationId);
        if (!m_span(m, s->start, s->end, &r)) return;
        m_expect(m, &r, CuptiTr_syncName(s->type));
        return;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        const CUpti_ActivityMarker2 *mk = act;
        int64_t ts;
        if (!mk->timestamp || !m_host(m, mk->timestamp, &ts)) {
            m->zero_ts++;
            return;
        }
        uint32_t pid = m->pid;
        int64_t tid = 0;
        if (mk->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS || mk->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
            if (mk->objectId.pt.processId) pid = mk->objectId.pt.processId;
            if (mk->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) tid = mk->objectId.pt.threadId;
        }
        r = m_gpu(m, RING_KIND_NVTX_MARKER, (uint32_t)-1, -1, 0);
        uint32_t fl = (uint32_t)mk->flags;
        if (fl & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
            r.ts_ns = ts;
            r.pid = pid;
            r.tid = tid;
            m_expect(m, &r, mk->name);
            return;
        }
        bool start = fl & CUPTI_ACTIVITY_FLAG_MARKER_START, end = fl & CUPTI_ACTIVITY_FLAG_MARKER_END;
        if (!start && !end) {
            m->unknown_kind++;
            return;
        }
        uint8_t half = start ? 1 : 2;
        size_t i = 0;
        while (i < m->n_nvtx && m->nvtx[i].id != mk->id) i++;
        if (i == m->n_nvtx || m->nvtx[i].state == half) { /* first half, or the same half again */
            if (i == m->n_nvtx) {
                if (m->n_nvtx == m->cap_nvtx) {
                    m->cap_nvtx = m->cap_nvtx ? m->cap_nvtx * 2 : 16;
                    m->nvtx = realloc(m->nvtx, m->cap_nvtx * sizeof *m->nvtx);
                    if (!m->nvtx) abort();
                }
                m->n_nvtx++;
                memset(&m->nvtx[i], 0, sizeof m->nvtx[i]);
                m->nvtx[i].id = mk->id;
            }
            MNvtx *s = &m->nvtx[i];
            s->state = half;
            s->ts = ts;
            if (start) {
                s->name = mk->name;
                s->pid = pid;
                s->tid = tid;
            }
            return;
        }
        MNvtx s = m->nvtx[i];
        m->nvtx[i] = m->nvtx[--m->n_nvtx];
        r.kind = RING_KIND_NVTX_RANGE;
        int64_t t0 = start ? ts : s.ts, t1 = start ? s.ts : ts;
        r.ts_ns = t0;
        r.pid = start ? pid : s.pid;
        r.tid = start ? tid : s.tid;
        if (t1 < t0 || (__int128)t1 - t0 > INT64_MAX) {
            m->bad_end++;
        } else {
            r.dur_ns = t1 - t0;
        }
        m_expect(m, &r, start ? mk->name : s.name);
        return;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
        const CUpti_ActivityContext3 *c = act;
        m_set_ctx(m, c->contextId, c->deviceId);
        return;
    }
    default: m->unknown_kind++; return;
    }
}

/* ---- comparing what came out with the model ---------------------------------------------- */

typedef struct {
    Model *m;
    NameTable *names;
    int emitted; /* during the current CuptiTr_record call */
} Ctx;

static void check_name(NameTable *names, uint32_t id, const char *want, const char *got_cb) {
    size_t len = 0;
    const char *got = NameTable_get(names, id, &len);
    CHECK(got != NULL, "name id %u does not resolve", id);
    if (got_cb) CHECK(!strcmp(got_cb, got), "callback name '%s' != table name '%s'", got_cb, got);
    if (id == NAME_ID_FULL) return; /* the table ran out: allowed, counted by the table */
    size_t wl = strlen(want);
    if (wl > NAME_MAX_LEN) wl = NAME_MAX_LEN;
    CHECK(len == wl && !memcmp(got, want, wl), "name '%.80s' (%zu bytes), want '%.80s' (%zu bytes)", got, len,
          want, wl);
}

static void check_record(Ctx *c, const RingRecord *got, const char *got_name) {
    Model *m = c->m;
    CHECK(m->next_exp < m->n_exp, "unexpected record kind %u ts %lld", got->kind, (long long)got->ts_ns);
    const Expect *e = &m->exp[m->next_exp++];
    const RingRecord *w = &e->r;
    /* the invariants first: they hold whatever the model says */
    CHECK(got->kind < RING_KIND__COUNT, "kind %u", got->kind);
    CHECK(got->dur_ns >= 0, "dur %lld < 0 (kind %u)", (long long)got->dur_ns, got->kind);
    int64_t end;
    CHECK(!__builtin_add_overflow(got->ts_ns, got->dur_ns, &end), "ts %lld + dur %lld overflows",
          (long long)got->ts_ns, (long long)got->dur_ns);
    CHECK(got->pad == 0 && got->spare == 0, "reserved fields set");
    CHECK(got->kind == w->kind, "kind %u, want %u", got->kind, w->kind);
    CHECK(got->flags == w->flags, "flags %u, want %u (kind %u)", got->flags, w->flags, w->kind);
    CHECK(got->ts_ns == w->ts_ns, "ts %lld, want %lld (kind %u)", (long long)got->ts_ns, (long long)w->ts_ns,
          w->kind);
    CHECK(got->dur_ns == w->dur_ns, "dur %lld, want %lld (kind %u)", (long long)got->dur_ns,
          (long long)w->dur_ns, w->kind);
    CHECK(got->stream == w->stream, "stream %lld, want %lld", (long long)got->stream, (long long)w->stream);
    CHECK(got->device == w->device, "device %d, want %d (kind %u)", got->device, w->device, w->kind);
    CHECK(got->tid == w->tid, "tid %lld, want %lld", (long long)got->tid, (long long)w->tid);
    CHECK(got->pid == w->pid, "pid %u, want %u", got->pid, w->pid);
    CHECK(got->correlation == w->correlation, "correlation %u, want %u", got->correlation, w->correlation);
    CHECK(got->arg == w->arg, "arg %llu, want %llu (kind %u)", (unsigned long long)got->arg,
          (unsigned long long)w->arg, w->kind);
    check_name(c->names, got->name_id, e->name, got_name);
}

static void on_emit(const RingRecord *rec, const char *name, void *ctx) {
    Ctx *c = ctx;
    c->emitted++;
    CHECK(name != NULL, "emit without a name");
    check_record(c, rec, name);
}

static void check_stats(const CuptiTr *tr, const Model *m) {
    CuptiTrStats st = CuptiTr_stats(tr);
    size_t open = 0, orphan = 0;
    for (size_t i = 0; i < m->n_nvtx; i++) *(m->nvtx[i].state == 1 ? &open : &orphan) += 1;
    CHECK(st.records == m->records, "records %llu, want %llu", (unsigned long long)st.records,
          (unsigned long long)m->records);
    CHECK(st.events == m->events, "events %llu, want %llu", (unsigned long long)st.events,
          (unsigned long long)m->events);
    CHECK(st.zero_ts == m->zero_ts, "zero_ts %llu, want %llu", (unsigned long long)st.zero_ts,
          (unsigned long long)m->zero_ts);
    CHECK(st.bad_end == m->bad_end, "bad_end %llu, want %llu", (unsigned long long)st.bad_end,
          (unsigned long long)m->bad_end);
    CHECK(st.filtered == m->filtered, "filtered %llu, want %llu", (unsigned long long)st.filtered,
          (unsigned long long)m->filtered);
    CHECK(st.unknown_kind == m->unknown_kind, "unknown_kind %llu, want %llu", (unsigned long long)st.unknown_kind,
          (unsigned long long)m->unknown_kind);
    CHECK(st.cupti_dropped == m->dropped, "cupti_dropped");
    CHECK(st.pushed_failed == m->failed, "pushed_failed %llu, want %llu", (unsigned long long)st.pushed_failed,
          (unsigned long long)m->failed);
    CHECK(st.nvtx_open == open && st.nvtx_orphan_end == orphan, "nvtx open %llu / orphan %llu, want %zu / %zu",
          (unsigned long long)st.nvtx_open, (unsigned long long)st.nvtx_orphan_end, open, orphan);
    CHECK(st.nvtx_overflow == 0, "nvtx overflow with a few open ranges");
}

/* ---- the program ------------------------------------------------------------------------ */

enum { OP_RECORD, OP_COMM, OP_DROPPED, OP_SETCTX, OP_NULL, OP_OFFSET };

typedef struct {
    int op;
    const void *rec;
    uint64_t a, b;
} Item;

typedef struct {
    Item *items;
    size_t n, cap;
    unsigned rank;
    size_t order;
} Buf;

static void buf_add(Buf *b, Item it) {
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->items = realloc(b->items, b->cap * sizeof *b->items);
        if (!b->items) abort();
    }
    b->items[b->n++] = it;
}

static void *new_rec(Pool *pl, size_t size, CUpti_ActivityKind kind) {
    CUpti_Activity *a = pool_add(pl, calloc(1, size)); /* exactly the struct: ASan sees over-reads */
    a->kind = kind;
    return a;
}

static bool handled(CUpti_ActivityKind k) {
    switch (k) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
    case CUPTI_ACTIVITY_KIND_MEMSET:
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    case CUPTI_ACTIVITY_KIND_MARKER:
    case CUPTI_ACTIVITY_KIND_CONTEXT: return true;
    default: return false;
    }
}

/* Reads ops into buffers; returns the number of buffers. */
static size_t parse(Rd *r, Pool *pl, Buf *bufs) {
    size_t nb = 1, comm = 0;
    uint64_t prev = BASE_TS;
    bufs[0].rank = 128;
    for (int ops = 0; ops < MAX_OPS && r->i < r->n; ops++) {
        uint8_t op = u8(r);
        Buf *b = &bufs[nb - 1];
        Item it = {OP_RECORD, NULL, 0, 0};
        switch (op & 15) {
        case 0:
        case 1: {
            CUpti_ActivityKernel10 *k = new_rec(pl, sizeof *k, op & 1 ? CUPTI_ACTIVITY_KIND_KERNEL
                                                                      : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
            gen_span(r, &prev, &k->start, &k->end);
            k->deviceId = gen_id(r);
            k->contextId = gen_ctx(r);
            k->streamId = gen_id(r);
            k->correlationId = gen_id(r);
            k->gridX = gen_grid(r);
            k->gridY = op & 0x10 ? gen_grid(r) : 1;
            k->gridZ = op & 0x20 ? gen_grid(r) : 1;
            k->blockX = 128;
            k->name = gen_name(r, pl);
            it.rec = k;
            break;
        }
        case 2: {
            CUpti_ActivityMemcpy6 *c = new_rec(pl, sizeof *c, CUPTI_ACTIVITY_KIND_MEMCPY);
            gen_span(r, &prev, &c->start, &c->end);
            c->copyKind = u8(r) % 13; /* 11 kinds, and two past them */
            c->srcKind = u8(r) % 10;
            c->dstKind = u8(r) % 10;
            c->bytes = op & 0x10 ? u64(r) : u16(r);
            c->deviceId = gen_id(r);
            c->contextId = gen_ctx(r);
            c->streamId = gen_id(r);
            c->correlationId = gen_id(r);
            it.rec = c;
            break;
        }
        case 3: {
            CUpti_ActivityMemcpyPtoP4 *p = new_rec(pl, sizeof *p, CUPTI_ACTIVITY_KIND_MEMCPY2);
            gen_span(r, &prev, &p->start, &p->end);
            p->copyKind = u8(r) % 13;
            p->srcKind = u8(r) % 10;
            p->dstKind = u8(r) % 10;
            p->bytes = u32(r);
            p->deviceId = gen_id(r);
            p->contextId = gen_ctx(r);
            p->streamId = gen_id(r);
            p->correlationId = gen_id(r);
            p->srcDeviceId = op & 0x10 ? gen_id(r) : p->deviceId;
            p->dstDeviceId = op & 0x20 ? gen_id(r) : p->deviceId;
            p->srcContextId = op & 0x40 ? gen_ctx(r) : p->contextId;
            p->dstContextId = op & 0x80 ? gen_ctx(r) : p->contextId;
            it.rec = p;
            break;
        }
        case 4: {
            CUpti_ActivityMemset4 *s = new_rec(pl, sizeof *s, CUPTI_ACTIVITY_KIND_MEMSET);
            gen_span(r, &prev, &s->start, &s->end);
            s->bytes = u32(r);
            s->value = u8(r);
            s->memoryKind = op & 0x10 ? u16(r) : u8(r) % 9;
            s->deviceId = gen_id(r);
            s->contextId = gen_ctx(r);
            s->streamId = gen_id(r);
            s->correlationId = gen_id(r);
            it.rec = s;
            break;
        }
        case 5:
        case 6: {
            bool drv = (op & 15) == 6;
            CUpti_ActivityAPI *a = new_rec(pl, sizeof *a, drv ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME);
            a->cbid = gen_cbid(r, drv);
            gen_span(r, &prev, &a->start, &a->end);
            a->processId = op & 0x10 ? u32(r) : 0;
            a->threadId = gen_id(r);
            a->correlationId = gen_id(r);
            it.rec = a;
            break;
        }
        case 7: {
            CUpti_ActivitySynchronization2 *s = new_rec(pl, sizeof *s, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
            s->type = (CUpti_ActivitySynchronizationType)(u8(r) % 7);
            gen_span(r, &prev, &s->start, &s->end);
            s->contextId = gen_ctx(r);
            s->streamId = op & 0x10 ? CUPTI_SYNCHRONIZATION_INVALID_VALUE : gen_id(r);
            s->correlationId = gen_id(r);
            s->cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
            it.rec = s;
            break;
        }
        case 8: {
            static const uint32_t FLAGS[] = {
                CUPTI_ACTIVITY_FLAG_MARKER_START, CUPTI_ACTIVITY_FLAG_MARKER_END,
                CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS,
                CUPTI_ACTIVITY_FLAG_MARKER_START | CUPTI_ACTIVITY_FLAG_MARKER_END,
                CUPTI_ACTIVITY_FLAG_MARKER_SYNC_ACQUIRE, 0, CUPTI_ACTIVITY_FLAG_MARKER_START,
                CUPTI_ACTIVITY_FLAG_MARKER_END};
            CUpti_ActivityMarker2 *mk = new_rec(pl, sizeof *mk, CUPTI_ACTIVITY_KIND_MARKER);
            uint8_t f = u8(r);
            mk->flags = (CUpti_ActivityFlag)(f < 0xf8 ? FLAGS[f % 8] : u32(r));
            mk->timestamp = gen_ts(r, prev);
            if (mk->timestamp) prev = mk->timestamp;
            mk->id = op & 0x10 ? u32(r) : u8(r) & 7; /* a few ids, so halves pair up */
            mk->objectKind = (CUpti_ActivityObjectKind)(u8(r) % 7);
            mk->objectId.pt.processId = op & 0x20 ? u32(r) : 0;
            mk->objectId.pt.threadId = gen_id(r);
            mk->name = gen_name(r, pl);
            mk->domain = op & 0x40 ? "domain" : NULL;
            it.rec = mk;
            break;
        }
        case 9: {
            CUpti_ActivityContext3 *c = new_rec(pl, sizeof *c, CUPTI_ACTIVITY_KIND_CONTEXT);
            c->contextId = gen_ctx(r);
            c->deviceId = gen_id(r);
            it.rec = c;
            break;
        }
        case 10: { /* kinds translate.c skips: only `kind` may be read */
            static const CUpti_ActivityKind OTHER[] = {
                CUPTI_ACTIVITY_KIND_INVALID, CUPTI_ACTIVITY_KIND_NVLINK,   CUPTI_ACTIVITY_KIND_PCIE,
                CUPTI_ACTIVITY_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_DEVICE,  CUPTI_ACTIVITY_KIND_NAME,
                CUPTI_ACTIVITY_KIND_MARKER_DATA, CUPTI_ACTIVITY_KIND_COUNT};
            uint8_t s = u8(r);
            CUpti_ActivityKind kind = s < 0xf0 ? OTHER[s % 8] : (CUpti_ActivityKind)u32(r);
            if (handled(kind)) kind = CUPTI_ACTIVITY_KIND_INVALID; /* this record has no body */
            it.rec = new_rec(pl, sizeof(CUpti_Activity), kind);
            break;
        }
        case 11: /* this buffer is complete; it is delivered in order of rank */
            if (nb == MAX_BUFS) continue;
            bufs[nb].rank = u8(r);
            bufs[nb].order = nb;
            nb++;
            continue;
        case 12:
            if (comm == MAX_COMM) continue;
            comm++;
            it.op = OP_COMM;
            it.a = gen_id(r);
            it.b = gen_id(r);
            break;
        case 13:
            it.op = OP_DROPPED;
            it.a = op & 0x10 ? u32(r) : u8(r) & 3;
            it.b = u64(r);
            break;
        case 14:
            it.op = OP_SETCTX;
            it.a = gen_ctx(r);
            it.b = gen_id(r);
            break;
        default:
            if (op & 0x10) {
                it.op = OP_OFFSET;
                it.a = op & 0x20 ? u64(r) : (uint64_t)(int64_t)(int16_t)u16(r) * 1000000;
            } else {
                it.op = OP_NULL;
            }
            break;
        }
        buf_add(b, it);
    }
    return nb;
}

static int by_rank(const void *x, const void *y) {
    const Buf *a = x, *b = y;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static void drain_check(RingSet *set, Ctx *c, CuptiTr *tr) {
    Model *m = c->m;
    RingRecord out[256];
    size_t got;
    while ((got = RingSet_drain_into(set, out, 256)) > 0)
        for (size_t i = 0; i < got; i++) check_record(c, &out[i], NULL);
    /* a full ring refuses the rest of the buffer: what came out is a prefix */
    uint64_t failed = CuptiTr_stats(tr).pushed_failed - m->failed;
    CHECK(m->next_exp + failed == m->n_exp, "ring: %zu drained + %llu refused != %zu emitted", m->next_exp,
          (unsigned long long)failed, m->n_exp);
    CHECK(RingSet_drops(set) == CuptiTr_stats(tr).pushed_failed, "ring drops disagree with pushed_failed");
    m->failed += failed;
    m->next_exp = m->n_exp; /* the refused ones are accounted for */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 65536) return 0;
    init_names();
    Rd r = {data, size, 0};
    /* config: bit 0 all driver calls, 1 demangle, 2 through a RingSet, 3 small name
     * table, 4-5 clock offset, 6 explicit pid, 7 small ring */
    uint8_t cfgb = u8(&r);
    CuptiTrConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.all_driver_calls = cfgb & 1;
    cfg.demangle = cfgb & 2 ? fake_demangle : NULL;
    static const int64_t OFFSETS[] = {0, 1700000000000000000LL, -123456789};
    cfg.clock_offset_ns = ((cfgb >> 4) & 3) < 3 ? OFFSETS[(cfgb >> 4) & 3] : (int64_t)u64(&r);
    /* never 0 (translate.c's getpid() default): a pid that differs per run would reach
     * the comparisons libFuzzer learns from and make the CI session unrepeatable */
    cfg.pid = cfgb & 0x40 ? u32(&r) | 1 : 4242;
    bool ring = cfgb & 4;
    RingSetConfig rc = {1, cfgb & 0x80 ? 16 : 1024, cfgb & 8 ? 2048 : 1u << 20, cfgb & 8 ? 16 : 4096};
    RingSet *set = RingSet_new(&rc);
    if (!set) abort();

    Pool pool = {0};
    Model m;
    memset(&m, 0, sizeof m);
    m.offset = cfg.clock_offset_ns;
    m.pid = cfg.pid;
    m.all_driver = cfg.all_driver_calls;
    m.demangle = cfg.demangle != NULL;
    m.last_dev = -1;
    m.pool = &pool;
    Ctx c = {&m, RingSet_names(set), 0};
    CuptiTr *tr = ring ? CuptiTr_new(&cfg, set) : CuptiTr_newEmit(&cfg, RingSet_names(set), on_emit, &c);
    if (!tr) abort();

    Buf bufs[MAX_BUFS];
    memset(bufs, 0, sizeof bufs);
    size_t nb = parse(&r, &pool, bufs);
    qsort(bufs, nb, sizeof *bufs, by_rank);
    for (size_t bi = 0; bi < nb; bi++) {
        m.n_exp = m.next_exp = 0;
        for (size_t k = 0; k < bufs[bi].n; k++) {
            const Item *it = &bufs[bi].items[k];
            size_t before = m.n_exp;
            c.emitted = 0;
            int n = 0;
            switch (it->op) {
            case OP_RECORD:
                cur_rec = it->rec;
                cur_offset = m.offset;
                m_record(&m, it->rec);
                n = CuptiTr_record(tr, it->rec);
                break;
            case OP_NULL: n = CuptiTr_record(tr, NULL); break;
            case OP_COMM:
                CuptiTr_markCommStream(tr, (uint32_t)it->a, (uint32_t)it->b);
                if (!m_comm(&m, (uint32_t)it->a, (uint32_t)it->b)) {
                    m.comm_dev[m.n_comm] = (uint32_t)it->a;
                    m.comm_stream[m.n_comm++] = (uint32_t)it->b;
                }
                break;
            case OP_DROPPED: {
                if (it->a) {
                    m.dropped += it->a;
                    RingRecord w = m_gpu(&m, RING_KIND_COUNTER, (uint32_t)-1, -1, 0);
                    w.ts_ns = (int64_t)it->b;
                    double v = (double)m.dropped;
                    memcpy(&w.arg, &v, sizeof v);
                    m_expect(&m, &w, CUPTI_TR_DROPPED_NAME);
                }
                CuptiTr_addCuptiDropped(tr, it->a, (int64_t)it->b);
                n = (int)(m.n_exp - before); /* returns nothing: counted by the callback */
                if (!ring) CHECK(c.emitted == n, "dropped counter: %d emitted, want %d", c.emitted, n);
                continue;
            }
            case OP_SETCTX:
                m_set_ctx(&m, (uint32_t)it->a, (uint32_t)it->b);
                CuptiTr_setContextDevice(tr, (uint32_t)it->a, (uint32_t)it->b);
                break;
            case OP_OFFSET:
                m.offset = (int64_t)it->a;
                CuptiTr_setClockOffset(tr, (int64_t)it->a);
                break;
            }
            CHECK(n == (int)(m.n_exp - before), "CuptiTr_record returned %d, model says %zu", n, m.n_exp - before);
            if (!ring) CHECK(c.emitted == n, "%d records emitted, returned %d", c.emitted, n);
        }
        cur_rec = NULL;
        if (ring) drain_check(set, &c, tr);
        CHECK(m.next_exp == m.n_exp, "%zu records expected, %zu came", m.n_exp, m.next_exp);
        check_stats(tr, &m);
    }

    CuptiTr_free(tr);
    RingSet_free(set);
    for (size_t i = 0; i < MAX_BUFS; i++) free(bufs[i].items);
    free(m.exp);
    free(m.nvtx);
    pool_free(&pool);
    return 0;
}
