/* CUPTI activity records -> RingRecords (include/ovtrace/collector/cupti_translate.h).
 * Reads the record structs of the CUDA 13 headers; links nothing from libcupti. */
#include "ovtrace/collector/cupti_translate.h"

#include <cupti_activity.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cupti_cbid_names.h"

/* The record versions this file was written against; a toolkit that renames them
 * fails here rather than misreading fields. */
typedef CUpti_ActivityKernel10 TrKernel;
typedef CUpti_ActivityMemcpy6 TrMemcpy;
typedef CUpti_ActivityMemcpyPtoP4 TrMemcpyP2P;
typedef CUpti_ActivityMemset4 TrMemset;
typedef CUpti_ActivityAPI TrApi;
typedef CUpti_ActivitySynchronization2 TrSync;
typedef CUpti_ActivityMarker2 TrMarker;
typedef CUpti_ActivityContext3 TrContext;

#define MAX_CONTEXTS 256
#define MAX_COMM_STREAMS 64
#define NVTX_MAX_OPEN (1u << 20)

typedef struct {
    uint32_t id;
    uint8_t state; /* 0 empty, 1 start seen, 2 end seen */
    int64_t ts;    /* host ns of the half seen */
    uint32_t name;
    uint32_t pid;
    int64_t tid;
} NvtxSlot;

typedef struct {
    char *key;
    uint32_t id;
} DemangleSlot;

struct CuptiTr {
    CuptiTrConfig cfg;
    RingSet *set;
    NameTable *names;
    CuptiTrEmitFn emit;
    void *ctx;
    CuptiTrStats st;
    struct {
        uint32_t ctx, dev;
    } ctxmap[MAX_CONTEXTS];
    uint32_t n_ctx;
    int64_t last_dev;
    struct {
        uint32_t dev, stream;
    } comm[MAX_COMM_STREAMS];
    uint32_t n_comm;
    uint32_t memcpy_ids[11][8][8][2]; /* copyKind, src, dst, p2p -> name id + 1 */
    uint32_t memset_ids[8];
    uint32_t *api_ids[2];             /* runtime, driver: cbid -> name id + 1 */
    size_t api_cap[2];
    NvtxSlot *nvtx;
    size_t nvtx_cap, nvtx_n;
    DemangleSlot *dm;
    size_t dm_cap, dm_n;
    char *dm_buf; /* NAME_MAX_LEN + 1: a demangled name, as long as a name can be */
    uint32_t dropped_name;
};

/* ---- names ---------------------------------------------------------------------------- */

static const char *const MEMCPY_KIND[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                          "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
static const char *const MEMORY_KIND[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                          "Array",   "Managed",  "Device Static", "Managed Static"};

const char *CuptiTr_memcpyName(uint8_t copy_kind, uint8_t src_kind, uint8_t dst_kind, bool p2p, char *buf, size_t n) {
    const char *ck = copy_kind < 11 ? MEMCPY_KIND[copy_kind] : "Unknown";
    /* A peer copy that the copy kind does not say is one (MEMCPY2 DtoD between two
     * devices) is still named PtoP: files are flagged P2P by name when reloaded. */
    if (p2p && copy_kind != CUPTI_ACTIVITY_MEMCPY_KIND_PTOP) ck = "PtoP";
    snprintf(buf, n, "Memcpy %s (%s -> %s)", ck, src_kind < 8 ? MEMORY_KIND[src_kind] : "Unknown",
             dst_kind < 8 ? MEMORY_KIND[dst_kind] : "Unknown");
    return buf;
}

const char *CuptiTr_syncName(uint32_t type) {
    switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "Event Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "Stream Wait Event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "Stream Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "Context Sync";
    default: return "Sync";
    }
}

const char *CuptiTr_apiName(int ring_kind, uint32_t cbid) {
    if (ring_kind == RING_KIND_RUNTIME)
        return cbid < ovtrace_cupti_runtime_count ? ovtrace_cupti_runtime_names[cbid] : NULL;
    if (ring_kind == RING_KIND_DRIVER)
        return cbid < ovtrace_cupti_driver_count ? ovtrace_cupti_driver_names[cbid] : NULL;
    return NULL;
}

bool CuptiTr_isLaunchCbid(int ring_kind, uint32_t cbid) {
    const char *n = CuptiTr_apiName(ring_kind, cbid);
    if (!n) return false;
    if (ring_kind == RING_KIND_DRIVER) return !strncmp(n, "cuLaunch", 8) || !strncmp(n, "cuGraphLaunch", 13);
    return !strncmp(n, "cudaLaunch", 10) || !strncmp(n, "cudaGraphLaunch", 15) || !strncmp(n, "__cudaLaunch", 12);
}

/* ---- setup ----------------------------------------------------------------------------- */

static CuptiTr *tr_new(const CuptiTrConfig *cfg) {
    CuptiTr *tr = calloc(1, sizeof *tr);
    if (!tr) return NULL;
    if (cfg) tr->cfg = *cfg;
    if (!tr->cfg.pid) tr->cfg.pid = (uint32_t)getpid();
    tr->last_dev = -1;
    return tr;
}

CuptiTr *CuptiTr_new(const CuptiTrConfig *cfg, RingSet *set) {
    if (!set) return NULL;
    CuptiTr *tr = tr_new(cfg);
    if (!tr) return NULL;
    tr->set = set;
    tr->names = RingSet_names(set);
    return tr;
}

CuptiTr *CuptiTr_newEmit(const CuptiTrConfig *cfg, NameTable *names, CuptiTrEmitFn emit, void *ctx) {
    if (!names || !emit) return NULL;
    CuptiTr *tr = tr_new(cfg);
    if (!tr) return NULL;
    tr->names = names;
    tr->emit = emit;
    tr->ctx = ctx;
    return tr;
}

void CuptiTr_free(CuptiTr *tr) {
    if (!tr) return;
    for (size_t i = 0; i < tr->dm_cap; i++) free(tr->dm[i].key);
    free(tr->dm);
    free(tr->dm_buf);
    free(tr->nvtx);
    free(tr->api_ids[0]);
    free(tr->api_ids[1]);
    free(tr);
}

void CuptiTr_setClockOffset(CuptiTr *tr, int64_t offset_ns) { tr->cfg.clock_offset_ns = offset_ns; }

CuptiTrStats CuptiTr_stats(const CuptiTr *tr) {
    CuptiTrStats st = tr->st;
    st.nvtx_open = st.nvtx_orphan_end = 0;
    for (size_t i = 0; i < tr->nvtx_cap; i++) {
        if (tr->nvtx[i].state == 1) st.nvtx_open++;
        else if (tr->nvtx[i].state == 2) st.nvtx_orphan_end++;
    }
    return st;
}

/* ---- emit ------------------------------------------------------------------------------ */

static void emit(CuptiTr *tr, RingRecord *r) {
    tr->st.events++;
    if (tr->set) {
        if (!RingSet_push(tr->set, r)) tr->st.pushed_failed++;
        return;
    }
    const char *name = NameTable_get(tr->names, r->name_id, NULL);
    tr->emit(r, name ? name : "", tr->ctx);
}

static uint32_t intern(CuptiTr *tr, const char *s) { return NameTable_intern_cstr(tr->names, s ? s : ""); }

/* CUPTI ns -> host ns; false when the sum is not an int64 (a timestamp past INT64_MAX,
 * or one the offset pushes out of range): such a time has no place on the host clock. */
static bool host_ts(const CuptiTr *tr, uint64_t t, int64_t *out) {
    return !__builtin_add_overflow(t, tr->cfg.clock_offset_ns, out);
}

/* Fills ts/dur from a start/end pair; false if the record has no usable start (counted
 * with the records without one). */
static bool set_times(CuptiTr *tr, RingRecord *r, uint64_t start, uint64_t end) {
    if (start == 0 || !host_ts(tr, start, &r->ts_ns)) {
        tr->st.zero_ts++;
        return false;
    }
    /* the end too must be a host time, and the duration an int64 (end - start can
     * exceed INT64_MAX) */
    int64_t host_end;
    if (end == 0 || end < start || !host_ts(tr, end, &host_end) ||
        __builtin_sub_overflow(host_end, r->ts_ns, &r->dur_ns)) {
        tr->st.bad_end++;
        r->dur_ns = 0;
    }
    return true;
}

/* ---- contexts and comm streams --------------------------------------------------------- */

void CuptiTr_setContextDevice(CuptiTr *tr, uint32_t context_id, uint32_t device_id) {
    tr->last_dev = device_id;
    for (uint32_t i = 0; i < tr->n_ctx; i++)
        if (tr->ctxmap[i].ctx == context_id) {
            tr->ctxmap[i].dev = device_id;
            return;
        }
    if (tr->n_ctx < MAX_CONTEXTS) {
        tr->ctxmap[tr->n_ctx].ctx = context_id;
        tr->ctxmap[tr->n_ctx].dev = device_id;
        tr->n_ctx++;
    }
}

static void learn_context(CuptiTr *tr, uint32_t context_id, uint32_t device_id) {
    if (tr->n_ctx && tr->ctxmap[tr->n_ctx - 1].ctx == context_id && tr->ctxmap[tr->n_ctx - 1].dev == device_id) return;
    for (uint32_t i = 0; i < tr->n_ctx; i++)
        if (tr->ctxmap[i].ctx == context_id && tr->ctxmap[i].dev == device_id) return;
    CuptiTr_setContextDevice(tr, context_id, device_id);
}

static int32_t context_device(const CuptiTr *tr, uint32_t context_id) {
    for (uint32_t i = 0; i < tr->n_ctx; i++)
        if (tr->ctxmap[i].ctx == context_id) return (int32_t)tr->ctxmap[i].dev;
    return tr->last_dev >= 0 ? (int32_t)tr->last_dev : 0; /* one-GPU programs: the device */
}

void CuptiTr_markCommStream(CuptiTr *tr, uint32_t device_id, uint32_t stream_id) {
    for (uint32_t i = 0; i < tr->n_comm; i++)
        if (tr->comm[i].dev == device_id && tr->comm[i].stream == stream_id) return;
    if (tr->n_comm < MAX_COMM_STREAMS) {
        tr->comm[tr->n_comm].dev = device_id;
        tr->comm[tr->n_comm].stream = stream_id;
        tr->n_comm++;
    }
}

static bool is_comm_stream(const CuptiTr *tr, uint32_t dev, uint32_t stream) {
    for (uint32_t i = 0; i < tr->n_comm; i++)
        if (tr->comm[i].dev == dev && tr->comm[i].stream == stream) return true;
    return false;
}

/* ---- kernel names: demangled once per distinct name ------------------------------------ */

typedef char *(*CxaDemangleFn)(const char *, char *, size_t *, int *);
static CxaDemangleFn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void find_cxa_demangle(void) {
    void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!f) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h) f = dlsym(h, "__cxa_demangle"); /* kept open: used until exit */
    }
    *(void **)&cxa_demangle = f;
}

static const char *demangle_cxa(const char *mangled, char *buf, size_t n) {
    if (!cxa_demangle || strncmp(mangled, "_Z", 2) != 0) return NULL;
    int status = 0;
    char *d = cxa_demangle(mangled, NULL, NULL, &status);
    if (!d || status != 0) {
        free(d);
        return NULL;
    }
    snprintf(buf, n, "%s", d);
    free(d);
    return buf;
}

CuptiTrDemangleFn CuptiTr_cxaDemangler(void) {
    pthread_once(&cxa_once, find_cxa_demangle);
    return cxa_demangle ? demangle_cxa : NULL;
}

static uint64_t str_hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h;
}

static uint32_t kernel_name(CuptiTr *tr, const char *name) {
    if (!name) return NAME_ID_NONE;
    if (!tr->cfg.demangle) return intern(tr, name);
    if (tr->dm_n * 2 >= tr->dm_cap) {
        size_t nc = tr->dm_cap ? tr->dm_cap * 2 : 256;
        DemangleSlot *n = calloc(nc, sizeof *n);
        if (!n) return intern(tr, name);
        for (size_t i = 0; i < tr->dm_cap; i++) {
            if (!tr->dm[i].key) continue;
            size_t j = str_hash(tr->dm[i].key) & (nc - 1);
            while (n[j].key) j = (j + 1) & (nc - 1);
            n[j] = tr->dm[i];
        }
        free(tr->dm);
        tr->dm = n;
        tr->dm_cap = nc;
    }
    size_t mask = tr->dm_cap - 1, j = str_hash(name) & mask;
    for (; tr->dm[j].key; j = (j + 1) & mask)
        if (!strcmp(tr->dm[j].key, name)) return tr->dm[j].id;
    /* C++ template kernels demangle to kilobytes (PyTorch's reach 5 KB): the whole name,
     * up to the name table's limit, as Kineto keeps it */
    if (!tr->dm_buf && !(tr->dm_buf = malloc(NAME_MAX_LEN + 1))) return intern(tr, name);
    const char *d = tr->cfg.demangle(name, tr->dm_buf, NAME_MAX_LEN + 1);
    uint32_t id = intern(tr, d && *d ? d : name);
    char *key = strdup(name);
    if (!key) return id;
    tr->dm[j].key = key;
    tr->dm[j].id = id;
    tr->dm_n++;
    return id;
}

/* ---- API names ------------------------------------------------------------------------- */

static uint32_t api_name(CuptiTr *tr, int kind, uint32_t cbid) {
    int k = kind == RING_KIND_DRIVER;
    if (cbid < 4096) {
        if (cbid >= tr->api_cap[k]) {
            size_t nc = 1024;
            while (nc <= cbid) nc *= 2;
            uint32_t *n = realloc(tr->api_ids[k], nc * sizeof *n);
            if (n) {
                memset(n + tr->api_cap[k], 0, (nc - tr->api_cap[k]) * sizeof *n);
                tr->api_ids[k] = n;
                tr->api_cap[k] = nc;
            }
        }
        if (cbid < tr->api_cap[k] && tr->api_ids[k][cbid]) return tr->api_ids[k][cbid] - 1;
    }
    const char *n = CuptiTr_apiName(kind, cbid);
    char buf[64];
    if (!n) {
        snprintf(buf, sizeof buf, "%s_cbid_%u", k ? "cuda_driver" : "cuda_runtime", cbid);
        n = buf;
    }
    uint32_t id = intern(tr, n);
    if (cbid < tr->api_cap[k]) tr->api_ids[k][cbid] = id + 1;
    return id;
}

/* ---- records --------------------------------------------------------------------------- */

static RingRecord gpu_record(const CuptiTr *tr, RingKind kind, uint32_t device, uint32_t stream, uint32_t corr) {
    RingRecord r;
    memset(&r, 0, sizeof r);
    r.kind = (uint8_t)kind;
    r.device = (int32_t)device;
    r.stream = stream;
    r.correlation = corr;
    r.pid = tr->cfg.pid;
    return r;
}

static int do_kernel(CuptiTr *tr, const TrKernel *k) {
    learn_context(tr, k->contextId, k->deviceId);
    RingRecord r = gpu_record(tr, RING_KIND_KERNEL, k->deviceId, k->streamId, k->correlationId);
    if (!set_times(tr, &r, k->start, k->end)) return 0;
    /* blocks in the grid; three int32 factors can exceed 64 bits (not within CUDA's
     * limits, but the product must not be undefined): saturate */
    if (k->gridX > 0 && k->gridY > 0 && k->gridZ > 0 &&
        __builtin_mul_overflow((uint64_t)k->gridX * (uint64_t)k->gridY, (uint64_t)k->gridZ, &r.arg))
        r.arg = UINT64_MAX;
    r.name_id = kernel_name(tr, k->name);
    emit(tr, &r);
    return 1;
}

static uint32_t memcpy_name(CuptiTr *tr, uint8_t ck, uint8_t sk, uint8_t dk, bool p2p, bool comm) {
    uint32_t *slot = NULL;
    if (ck < 11 && sk < 8 && dk < 8 && !comm) {
        slot = &tr->memcpy_ids[ck][sk][dk][p2p];
        if (*slot) return *slot - 1;
    }
    char buf[96];
    CuptiTr_memcpyName(ck, sk, dk, p2p && !comm, buf, sizeof buf);
    if (comm) strncat(buf, " P2P", sizeof buf - strlen(buf) - 1);
    uint32_t id = intern(tr, buf);
    if (slot) *slot = id + 1;
    return id;
}

static int do_memcpy(CuptiTr *tr, const TrMemcpy *m) {
    learn_context(tr, m->contextId, m->deviceId);
    RingRecord r = gpu_record(tr, RING_KIND_MEMCPY, m->deviceId, m->streamId, m->correlationId);
    if (!set_times(tr, &r, m->start, m->end)) return 0;
    bool p2p = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    bool comm = is_comm_stream(tr, m->deviceId, m->streamId);
    if (p2p || comm) r.flags |= RING_F_MEMCPY_P2P;
    r.arg = m->bytes;
    r.name_id = memcpy_name(tr, m->copyKind, m->srcKind, m->dstKind, p2p, comm);
    emit(tr, &r);
    return 1;
}

static int do_memcpy2(CuptiTr *tr, const TrMemcpyP2P *m) {
    learn_context(tr, m->contextId, m->deviceId);
    RingRecord r = gpu_record(tr, RING_KIND_MEMCPY, m->deviceId, m->streamId, m->correlationId);
    if (!set_times(tr, &r, m->start, m->end)) return 0;
    /* MEMCPY2 is the peer-to-peer kind: copies between devices (or their contexts) */
    bool p2p = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP || m->srcDeviceId != m->dstDeviceId ||
               m->srcContextId != m->dstContextId;
    bool comm = !p2p && is_comm_stream(tr, m->deviceId, m->streamId);
    if (p2p || comm) r.flags |= RING_F_MEMCPY_P2P;
    r.arg = m->bytes;
    r.name_id = memcpy_name(tr, m->copyKind, m->srcKind, m->dstKind, p2p, comm);
    emit(tr, &r);
    return 1;
}

static int do_memset(CuptiTr *tr, const TrMemset *m) {
    learn_context(tr, m->contextId, m->deviceId);
    RingRecord r = gpu_record(tr, RING_KIND_MEMSET, m->deviceId, m->streamId, m->correlationId);
    if (!set_times(tr, &r, m->start, m->end)) return 0;
    r.arg = m->bytes;
    unsigned mk = m->memoryKind < 8 ? m->memoryKind : 0;
    if (!tr->memset_ids[mk]) {
        char buf[48];
        snprintf(buf, sizeof buf, "Memset (%s)", MEMORY_KIND[mk]);
        tr->memset_ids[mk] = intern(tr, buf) + 1;
    }
    r.name_id = tr->memset_ids[mk] - 1;
    emit(tr, &r);
    return 1;
}

static int do_api(CuptiTr *tr, const TrApi *a, RingKind kind) {
    if (kind == RING_KIND_DRIVER && !tr->cfg.all_driver_calls && !CuptiTr_isLaunchCbid(RING_KIND_DRIVER, a->cbid)) {
        tr->st.filtered++;
        return 0;
    }
    RingRecord r;
    memset(&r, 0, sizeof r);
    r.kind = (uint8_t)kind;
    r.stream = -1;
    r.device = -1;
    r.pid = a->processId ? a->processId : tr->cfg.pid;
    r.tid = a->threadId;
    r.correlation = a->correlationId;
    r.arg = a->cbid;
    if (!set_times(tr, &r, a->start, a->end)) return 0;
    r.name_id = api_name(tr, kind, a->cbid);
    const char *n = CuptiTr_apiName(kind, a->cbid);
    if (n && strstr(n, "Async")) r.flags |= RING_F_ASYNC;
    emit(tr, &r);
    return 1;
}

static int do_sync(CuptiTr *tr, const TrSync *s) {
    int32_t dev = context_device(tr, s->contextId);
    int64_t stream = s->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? -1 : (int64_t)s->streamId;
    RingRecord r = gpu_record(tr, RING_KIND_SYNC, (uint32_t)dev, 0, s->correlationId);
    r.stream = stream;
    r.device = dev;
    if (!set_times(tr, &r, s->start, s->end)) return 0;
    r.name_id = intern(tr, CuptiTr_syncName(s->type));
    emit(tr, &r);
    return 1;
}

/* NVTX: START and END halves share an id and may arrive in either order (different
 * buffers); a range is emitted when both are there. Its own table rather than base's
 * U64Map: closed ranges are removed (U64Map never removes). */
static NvtxSlot *nvtx_find(CuptiTr *tr, uint32_t id, bool create) {
    if (create && (tr->nvtx_n + 1) * 2 > tr->nvtx_cap) {
        if (tr->nvtx_n + 1 > NVTX_MAX_OPEN) return NULL;
        size_t nc = tr->nvtx_cap ? tr->nvtx_cap * 2 : 1024;
        NvtxSlot *n = calloc(nc, sizeof *n);
        if (!n) return NULL;
        for (size_t i = 0; i < tr->nvtx_cap; i++) {
            if (!tr->nvtx[i].state) continue;
            size_t j = (tr->nvtx[i].id * 2654435761u) & (nc - 1);
            while (n[j].state) j = (j + 1) & (nc - 1);
            n[j] = tr->nvtx[i];
        }
        free(tr->nvtx);
        tr->nvtx = n;
        tr->nvtx_cap = nc;
    }
    if (!tr->nvtx_cap) return NULL;
    size_t mask = tr->nvtx_cap - 1;
    for (size_t j = (id * 2654435761u) & mask;; j = (j + 1) & mask) {
        if (!tr->nvtx[j].state) {
            if (!create) return NULL;
            tr->nvtx[j].id = id;
            tr->nvtx_n++;
            return &tr->nvtx[j];
        }
        if (tr->nvtx[j].id == id) return &tr->nvtx[j];
    }
}

/* Removes a slot (linear probing: shift the following cluster back). */
static void nvtx_remove(CuptiTr *tr, NvtxSlot *slot) {
    size_t mask = tr->nvtx_cap - 1, i = (size_t)(slot - tr->nvtx), j = i;
    tr->nvtx[i].state = 0;
    tr->nvtx_n--;
    for (;;) {
        j = (j + 1) & mask;
        if (!tr->nvtx[j].state) return;
        size_t home = (tr->nvtx[j].id * 2654435761u) & mask;
        /* can the entry at j move to the hole at i? yes unless home lies in (i, j] */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays) continue;
        tr->nvtx[i] = tr->nvtx[j];
        tr->nvtx[j].state = 0;
        i = j;
    }
}

static void marker_owner(const CuptiTr *tr, const TrMarker *m, uint32_t *pid, int64_t *tid) {
    if (m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS || m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
        *pid = m->objectId.pt.processId ? m->objectId.pt.processId : tr->cfg.pid;
        *tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? (int64_t)m->objectId.pt.threadId : 0;
    } else {
        *pid = tr->cfg.pid;
        *tid = 0;
    }
}

static int do_marker(CuptiTr *tr, const TrMarker *m) {
    int64_t ts;
    if (m->timestamp == 0 || !host_ts(tr, m->timestamp, &ts)) {
        tr->st.zero_ts++;
        return 0;
    }
    uint32_t flags = (uint32_t)m->flags;
    RingRecord r;
    memset(&r, 0, sizeof r);
    r.stream = -1;
    r.device = -1;
    if (flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
        r.kind = RING_KIND_NVTX_MARKER;
        r.ts_ns = ts;
        marker_owner(tr, m, &r.pid, &r.tid);
        r.name_id = intern(tr, m->name);
        emit(tr, &r);
        return 1;
    }
    bool start = flags & CUPTI_ACTIVITY_FLAG_MARKER_START, end = flags & CUPTI_ACTIVITY_FLAG_MARKER_END;
    if (!start && !end) {
        tr->st.unknown_kind++;
        return 0;
    }
    NvtxSlot *s = nvtx_find(tr, m->id, true);
    if (!s) {
        tr->st.nvtx_overflow++;
        return 0;
    }
    if (!s->state || s->state == (start ? 1 : 2)) { /* first half (a repeated half replaces) */
        s->state = start ? 1 : 2;
        s->ts = ts;
        if (start) {
            s->name = intern(tr, m->name);
            marker_owner(tr, m, &s->pid, &s->tid);
        }
        return 0;
    }
    /* the other half is there: emit the range */
    r.kind = RING_KIND_NVTX_RANGE;
    int64_t t0 = start ? ts : s->ts, t1 = start ? s->ts : ts;
    if (start) {
        r.name_id = intern(tr, m->name);
        marker_owner(tr, m, &r.pid, &r.tid);
    } else {
        r.name_id = s->name;
        r.pid = s->pid;
        r.tid = s->tid;
    }
    nvtx_remove(tr, s);
    r.ts_ns = t0;
    if (t1 < t0 || __builtin_sub_overflow(t1, t0, &r.dur_ns)) { /* halves over 2^63 ns apart */
        tr->st.bad_end++;
        r.dur_ns = 0;
    }
    emit(tr, &r);
    return 1;
}

int CuptiTr_record(CuptiTr *tr, const void *activity) {
    if (!activity) return 0;
    tr->st.records++;
    const CUpti_Activity *a = activity;
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: return do_kernel(tr, activity);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return do_memcpy(tr, activity);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return do_memcpy2(tr, activity);
    case CUPTI_ACTIVITY_KIND_MEMSET: return do_memset(tr, activity);
    case CUPTI_ACTIVITY_KIND_RUNTIME: return do_api(tr, activity, RING_KIND_RUNTIME);
    case CUPTI_ACTIVITY_KIND_DRIVER: return do_api(tr, activity, RING_KIND_DRIVER);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return do_sync(tr, activity);
    case CUPTI_ACTIVITY_KIND_MARKER: return do_marker(tr, activity);
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
        const TrContext *c = activity;
        CuptiTr_setContextDevice(tr, c->contextId, c->deviceId);
        return 0;
    }
    default: tr->st.unknown_kind++; return 0;
    }
}

void CuptiTr_addCuptiDropped(CuptiTr *tr, uint64_t n, int64_t host_ts_ns) {
    if (!n) return;
    tr->st.cupti_dropped += n;
    if (!tr->dropped_name) tr->dropped_name = intern(tr, CUPTI_TR_DROPPED_NAME) + 1;
    RingRecord r;
    memset(&r, 0, sizeof r);
    r.kind = RING_KIND_COUNTER;
    r.ts_ns = host_ts_ns;
    r.stream = -1;
    r.device = -1;
    r.pid = tr->cfg.pid;
    r.name_id = tr->dropped_name - 1;
    double v = (double)tr->st.cupti_dropped;
    memcpy(&r.arg, &v, sizeof v);
    emit(tr, &r);
}

/* ---- clock ----------------------------------------------------------------------------- */

static int64_t realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t CuptiTr_estimateOffset(CuptiTrClockFn gpu_now, void *ctx, int samples) {
    if (samples < 1) samples = 1;
    int64_t best_gap = INT64_MAX, best = 0;
    for (int i = 0; i < samples; i++) {
        int64_t h0 = realtime_ns();
        uint64_t g = gpu_now(ctx);
        int64_t h1 = realtime_ns();
        if (h1 - h0 < best_gap) {
            best_gap = h1 - h0;
            best = h0 + (h1 - h0) / 2 - (int64_t)g;
        }
    }
    return best;
}
