/* LiveStore: the growing model of a live session.
 *
 * Ingest (one drain thread): ring records become TraceEvents (lane found through a
 * hash on device/stream or pid/tid, name mapped from the ring's NameTable id to the
 * store's StrTab id once per name, class decided once per name) and are appended to
 * the newest of a deque of fixed-size chunks, in arrival order. Appending is a copy.
 *
 * Retention: after each batch, whole chunks are evicted from the old end while their
 * newest event ended more than retention_ns before the newest event seen, or while
 * more than max_events are held. Memory is therefore bounded by
 * (events in the window + one chunk) * 40 bytes, and eviction never touches events
 * one by one.
 *
 * View: LiveStore_snapshot copies the newest events (under the lock: a memcpy per
 * chunk) and builds a regular finished Trace from them outside the lock
 * (Trace_finish: sort, rows, flows), so the TUI renders it exactly like a loaded
 * file. The session publishes one every ~100 ms (docs/live.md has the measurements
 * that led to this design). */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "live_internal.h"
#include "ovtrace/base/hash.h"
#include "ovtrace/base/map.h"
#include "ovtrace/collector/cupti_translate.h" /* CUPTI_TR_DROPPED_NAME (no CUDA headers) */
#include "ovtrace/write/jsonout.h"
#include "ovtrace/model/timeunits.h"

typedef struct {
    TraceEvent *ev;
    size_t n;
    int64_t max_end;
    uint64_t seq0;
} Chunk;

typedef struct {
    char *key, *json;
} MetaKV;

struct LiveStore {
    LiveStoreConfig cfg;
    CommRules *own_rules;
    const CommRules *rules;
    RingSet *rings;
    pthread_mutex_t mu;
    /* chunk deque */
    Chunk *chunks;
    size_t c_head, c_count, c_cap;
    TraceEvent *spare; /* one evicted chunk kept for reuse */
    uint64_t seq_next, seq_first, evicted;
    uint64_t clamped; /* events whose start or end was moved into the model's range */
    int64_t t_first_seen, t_last;
    /* lanes */
    LiveLane *lanes;
    size_t n_lanes, cap_lanes;
    U64Map lane_map; /* lane_hash -> lane ids (several lanes can share a hash) */
    uint8_t *lane_comm;
    size_t cap_lane_comm;
    /* names */
    StrTab *names;
    uint32_t *ring_map; /* ring name id -> store id + 1 */
    size_t cap_ring_map;
    uint8_t *name_comm; /* store name id -> 0 unknown, 1 compute, 2 comm */
    size_t cap_name_comm;
    /* metadata */
    MetaKV *meta;
    size_t n_meta, cap_meta;
    /* CUPTI's dropped-record counters (cumulative per producer process) */
    uint32_t cupti_name; /* store name id of CUPTI_TR_DROPPED_NAME */
    struct {
        int64_t pid;
        uint64_t value;
    } cupti[16];
    size_t n_cupti;
    uint64_t cupti_drops;
    /* rate */
    int64_t rate_t0;
    uint64_t rate_n0;
    double rate;
    /* last-lane cache for the drain */
    uint32_t last_lane;
    int64_t last_a, last_b;
    int last_gpu;
};

void LiveStoreConfig_default(LiveStoreConfig *c) {
    memset(c, 0, sizeof *c);
    c->retention_ns = 60 * (int64_t)1000000000;
    c->max_events = 32u << 20;
    c->chunk_events = 65536;
    c->snapshot_max_events = 2u << 20;
    c->source_name = "live";
}

LiveStore *LiveStore_new(RingSet *rings, const LiveStoreConfig *cfg) {
    LiveStore *s = xcalloc(1, sizeof *s);
    if (cfg) s->cfg = *cfg;
    else LiveStoreConfig_default(&s->cfg);
    LiveStoreConfig d;
    LiveStoreConfig_default(&d);
    if (!s->cfg.max_events) s->cfg.max_events = d.max_events;
    if (!s->cfg.chunk_events) s->cfg.chunk_events = d.chunk_events;
    if (!s->cfg.snapshot_max_events) s->cfg.snapshot_max_events = d.snapshot_max_events;
    if (!s->cfg.source_name) s->cfg.source_name = d.source_name;
    s->cfg.source_name = xstrdup(s->cfg.source_name);
    if (s->cfg.rules) s->rules = s->cfg.rules;
    else s->rules = s->own_rules = CommRules_default();
    s->rings = rings;
    pthread_mutex_init(&s->mu, NULL);
    s->names = StrTab_new();
    s->cupti_name = StrTab_intern(s->names, CUPTI_TR_DROPPED_NAME, strlen(CUPTI_TR_DROPPED_NAME));
    U64Map_init(&s->lane_map, 32);
    s->last_gpu = -1;
    s->rate_t0 = Clock_monotonicNs();
    return s;
}

void LiveStore_free(LiveStore *s) {
    if (!s) return;
    for (size_t i = 0; i < s->c_count; i++) free(s->chunks[(s->c_head + i) % s->c_cap].ev);
    free(s->chunks);
    free(s->spare);
    free(s->lanes);
    U64Map_free(&s->lane_map);
    free(s->lane_comm);
    StrTab_free(s->names);
    free(s->ring_map);
    free(s->name_comm);
    for (size_t i = 0; i < s->n_meta; i++) {
        free(s->meta[i].key);
        free(s->meta[i].json);
    }
    free(s->meta);
    CommRules_free(s->own_rules);
    pthread_mutex_destroy(&s->mu);
    free((char *)s->cfg.source_name);
    free(s);
}

bool LiveStore_isSimulated(const LiveStore *s) { return s->cfg.simulated; }

/* ---- lanes --------------------------------------------------------------------------- */

/* The lane map's key (U64Map spreads keys itself: b needs no mix of its own). */
static uint64_t lane_hash(int gpu, int64_t a, int64_t b) {
    return Hash_mix((uint64_t)gpu, (uint64_t)a) ^ (uint64_t)b;
}

static bool lane_is(const LiveLane *l, int gpu, int64_t a, int64_t b) {
    return l->gpu == gpu && (gpu ? l->device == a && l->stream == b : l->pid == a && l->tid == b);
}

static uint32_t lane_get(LiveStore *s, int gpu, int64_t a, int64_t b) {
    if (gpu == s->last_gpu && a == s->last_a && b == s->last_b) return s->last_lane;
    uint64_t key = lane_hash(gpu, a, b);
    size_t pos = U64Map_start(&s->lane_map, key);
    uint32_t v;
    while ((v = U64Map_next(&s->lane_map, key, &pos)) != U64MAP_NONE)
        if (lane_is(&s->lanes[v], gpu, a, b)) goto found;
    GROW(s->lanes, s->cap_lanes, s->n_lanes + 1);
    v = (uint32_t)s->n_lanes++;
    LiveLane *l = &s->lanes[v];
    memset(l, 0, sizeof *l);
    l->gpu = gpu;
    if (gpu) {
        l->device = a;
        l->stream = b;
        l->pid = a;
        l->tid = b;
    } else {
        l->device = l->stream = -1;
        l->pid = a;
        l->tid = b;
    }
    GROW(s->lane_comm, s->cap_lane_comm, s->n_lanes);
    s->lane_comm[v] = gpu && CommRules_streamIsComm(s->rules, b);
    U64Map_add(&s->lane_map, key, v);
found:
    s->last_gpu = gpu;
    s->last_a = a;
    s->last_b = b;
    s->last_lane = v;
    return v;
}

static void set_lane_name(LiveStore *s, int gpu, int64_t a, int64_t b, const char *name) {
    pthread_mutex_lock(&s->mu);
    uint32_t l = lane_get(s, gpu, a, b);
    s->lanes[l].name = StrTab_intern(s->names, name, strlen(name));
    pthread_mutex_unlock(&s->mu);
}

void LiveStore_setStreamName(LiveStore *s, int64_t device, int64_t stream, const char *name) {
    set_lane_name(s, 1, device, stream, name);
}

void LiveStore_setThreadName(LiveStore *s, int64_t pid, int64_t tid, const char *name) {
    set_lane_name(s, 0, pid, tid, name);
}

void LiveStore_setMetaJson(LiveStore *s, const char *key, const char *json) {
    pthread_mutex_lock(&s->mu);
    size_t i;
    for (i = 0; i < s->n_meta; i++)
        if (!strcmp(s->meta[i].key, key)) break;
    if (i == s->n_meta) {
        GROW(s->meta, s->cap_meta, s->n_meta + 1);
        s->meta[s->n_meta++] = (MetaKV){xstrdup(key), NULL};
    }
    free(s->meta[i].json);
    s->meta[i].json = xstrdup(json);
    pthread_mutex_unlock(&s->mu);
}

/* ---- ingest ---------------------------------------------------------------------------- */

static const uint8_t KIND_MAP[RING_KIND__COUNT] = {
    [RING_KIND_KERNEL] = KIND_KERNEL,         [RING_KIND_MEMCPY] = KIND_MEMCPY,
    [RING_KIND_MEMSET] = KIND_MEMSET,         [RING_KIND_SYNC] = KIND_SYNC,
    [RING_KIND_RUNTIME] = KIND_RUNTIME,       [RING_KIND_DRIVER] = KIND_DRIVER,
    [RING_KIND_NVTX_RANGE] = KIND_ANNOTATION, [RING_KIND_NVTX_MARKER] = KIND_INSTANT,
    [RING_KIND_CPU_OP] = KIND_CPU_OP,         [RING_KIND_OVERHEAD] = KIND_OTHER,
    [RING_KIND_COUNTER] = KIND_COUNTER,
};

static Chunk *chunk_at(LiveStore *s, size_t i) { return &s->chunks[(s->c_head + i) % s->c_cap]; }

static Chunk *open_chunk(LiveStore *s) {
    if (s->c_count) {
        Chunk *c = chunk_at(s, s->c_count - 1);
        if (c->n < s->cfg.chunk_events) return c;
    }
    if (s->c_count == s->c_cap) {
        size_t nc = s->c_cap ? s->c_cap * 2 : 16;
        Chunk *n = xmalloc(nc * sizeof *n);
        for (size_t i = 0; i < s->c_count; i++) n[i] = *chunk_at(s, i);
        free(s->chunks);
        s->chunks = n;
        s->c_cap = nc;
        s->c_head = 0;
    }
    Chunk *c = chunk_at(s, s->c_count++);
    c->ev = s->spare ? s->spare : xmalloc(s->cfg.chunk_events * sizeof *c->ev);
    s->spare = NULL;
    c->n = 0;
    c->max_end = INT64_MIN;
    c->seq0 = s->seq_next;
    return c;
}

static uint8_t name_class(LiveStore *s, uint32_t name) {
    if (name >= s->cap_name_comm) {
        size_t old = s->cap_name_comm;
        GROW(s->name_comm, s->cap_name_comm, (size_t)name + 1);
        memset(s->name_comm + old, 0, s->cap_name_comm - old);
    }
    if (!s->name_comm[name])
        s->name_comm[name] = CommRules_nameIsComm(s->rules, StrTab_get(s->names, name)) ? 2 : 1;
    return s->name_comm[name];
}

/* The collector sends CUPTI's dropped-record count as a cumulative counter per
 * process: keep the largest value seen per pid (records of one process may arrive
 * out of order across its rings) and their sum. */
static void note_cupti_dropped(LiveStore *s, int64_t pid, double v) {
    uint64_t x = v > 0 && v < 1.8e19 ? (uint64_t)v : 0;
    size_t i;
    for (i = 0; i < s->n_cupti; i++)
        if (s->cupti[i].pid == pid) break;
    if (i == s->n_cupti) {
        if (i == sizeof s->cupti / sizeof s->cupti[0]) i--; /* more processes: the last slot is shared */
        else s->cupti[s->n_cupti++].pid = pid;
    }
    if (x > s->cupti[i].value) {
        s->cupti_drops += x - s->cupti[i].value;
        s->cupti[i].value = x;
    }
}

static void ingest(LiveStore *s, const RingRecord *r, uint32_t name) {
    unsigned rk = r->kind < RING_KIND__COUNT ? r->kind : RING_KIND_OVERHEAD;
    TraceEvent e;
    memset(&e, 0, sizeof e);
    e.kind = KIND_MAP[rk];
    e.ts = r->ts_ns;
    if (rk == RING_KIND_COUNTER) {
        double v;
        memcpy(&v, &r->arg, sizeof v);
        e.value = v;
        if (name == s->cupti_name) note_cupti_dropped(s, r->pid, v);
    } else {
        e.dur = r->dur_ns > 0 ? r->dur_ns : 0;
    }
    /* Records can come from another process (the injection library writes the shared
     * ring): keep start and end within the model's range (timeunits.h), so that no
     * span overflows downstream; counted, recorded as "clamped_times". */
    bool clamp = !Time_inModel(e.ts);
    if (clamp) e.ts = e.ts > 0 ? TIME_LIMIT_NS - 1 : -TIME_LIMIT_NS + 1;
    if (rk != RING_KIND_COUNTER && e.dur >= TIME_LIMIT_NS - e.ts) {
        e.dur = TIME_LIMIT_NS - 1 - e.ts;
        clamp = true;
    }
    s->clamped += clamp;
    e.src = TRACE_NO_SRC;
    e.name = name;
    e.corr = r->correlation;
    bool gpu = EventKind_isGpu((EventKind)e.kind);
    e.lane = gpu ? lane_get(s, 1, r->device, r->stream) : lane_get(s, 0, r->pid, r->tid);
    if (rk == RING_KIND_MEMCPY && (r->flags & RING_F_MEMCPY_P2P)) e.flags |= EVF_MEMCPY_P2P;
    EventClass c = Classify_event(NULL, (EventKind)e.kind, e.flags, "", 0);
    if (e.kind == KIND_KERNEL && (name_class(s, name) == 2 || s->lane_comm[e.lane])) c = CLASS_COMM;
    e.cls = c;
    Chunk *ch = open_chunk(s);
    ch->ev[ch->n++] = e;
    int64_t end = TraceEvent_end(&e);
    if (end > ch->max_end) ch->max_end = end;
    if (end > s->t_last || s->seq_next == 0) s->t_last = end;
    if (s->seq_next == 0) s->t_first_seen = e.ts;
    s->seq_next++;
}

static uint32_t map_ring_name(LiveStore *s, uint32_t id) {
    if (id < s->cap_ring_map && s->ring_map[id]) return s->ring_map[id] - 1;
    if (id >= s->cap_ring_map) {
        size_t old = s->cap_ring_map;
        GROW(s->ring_map, s->cap_ring_map, (size_t)id + 1);
        memset(s->ring_map + old, 0, (s->cap_ring_map - old) * sizeof *s->ring_map);
    }
    size_t len = 0;
    const char *str = s->rings ? NameTable_get(RingSet_names(s->rings), id, &len) : NULL;
    uint32_t sid = str ? StrTab_intern(s->names, str, len) : StrTab_intern(s->names, "<bad name id>", 13);
    s->ring_map[id] = sid + 1;
    return sid;
}

static void evict(LiveStore *s) {
    while (s->c_count > 1) {
        Chunk *c = chunk_at(s, 0);
        uint64_t retained = s->seq_next - s->seq_first;
        bool old = s->cfg.retention_ns >= 0 && c->max_end < s->t_last - s->cfg.retention_ns;
        if (!old && retained <= s->cfg.max_events) break;
        s->seq_first = c->seq0 + c->n;
        s->evicted += c->n;
        if (!s->spare) s->spare = c->ev;
        else free(c->ev);
        s->c_head = (s->c_head + 1) % s->c_cap;
        s->c_count--;
    }
}

static void drain_cb(const RingRecord *rec, uint32_t ring, void *ctx) {
    (void)ring;
    LiveStore *s = ctx;
    ingest(s, rec, map_ring_name(s, rec->name_id));
}

static void update_rate(LiveStore *s) {
    int64_t now = Clock_monotonicNs();
    if (now - s->rate_t0 >= 500000000) {
        s->rate = (double)(s->seq_next - s->rate_n0) * 1e9 / (double)(now - s->rate_t0);
        s->rate_t0 = now;
        s->rate_n0 = s->seq_next;
    }
}

size_t LiveStore_drain(LiveStore *s, size_t max) {
    size_t total = 0;
    if (!s->rings) return 0;
    for (;;) {
        size_t want = 16384;
        if (max && max - total < want) want = max - total;
        pthread_mutex_lock(&s->mu);
        size_t n = RingSet_drain(s->rings, drain_cb, s, want);
        evict(s);
        update_rate(s);
        pthread_mutex_unlock(&s->mu);
        total += n;
        if (n < want || (max && total >= max)) break;
    }
    return total;
}

void LiveStore_add(LiveStore *s, const RingRecord *rec, const char *name) {
    pthread_mutex_lock(&s->mu);
    uint32_t id = StrTab_intern(s->names, name ? name : "", name ? strlen(name) : 0);
    ingest(s, rec, id);
    evict(s);
    update_rate(s);
    pthread_mutex_unlock(&s->mu);
}

LiveStats LiveStore_stats(LiveStore *s) {
    LiveStats st;
    memset(&st, 0, sizeof st);
    pthread_mutex_lock(&s->mu);
    update_rate(s);
    st.ingested = s->seq_next;
    st.retained = s->seq_next - s->seq_first;
    st.evicted = s->evicted;
    st.events_per_s = s->rate;
    st.n_lanes = s->n_lanes;
    st.cupti_drops = s->cupti_drops;
    st.clamped = s->clamped;
    if (st.retained) {
        st.t_first = INT64_MAX;
        Chunk *c = chunk_at(s, 0);
        for (size_t i = 0; i < c->n && i < 4096; i++) /* arrival order ~ time order */
            if (c->ev[i].ts < st.t_first) st.t_first = c->ev[i].ts;
        st.t_last = s->t_last;
    }
    st.memory_bytes = sizeof *s + (s->c_count + (s->spare != NULL)) * s->cfg.chunk_events * sizeof(TraceEvent) +
                      s->c_cap * sizeof(Chunk) + s->cap_lanes * sizeof(LiveLane) + StrTab_bytes(s->names) +
                      s->cap_ring_map * sizeof(uint32_t) + s->cap_name_comm;
    pthread_mutex_unlock(&s->mu);
    if (s->rings) {
        st.ring_drops = RingSet_drops(s->rings);
        st.names_full = NameTable_full_count(RingSet_names(s->rings));
    }
    return st;
}

/* ---- reading ------------------------------------------------------------------------- */

size_t LiveStore_read(LiveStore *s, uint64_t *cursor, TraceEvent *out, size_t max, uint64_t *lost) {
    size_t n = 0;
    pthread_mutex_lock(&s->mu);
    if (*cursor < s->seq_first) {
        if (lost) *lost += s->seq_first - *cursor;
        *cursor = s->seq_first;
    }
    for (size_t i = 0; i < s->c_count && n < max; i++) {
        Chunk *c = chunk_at(s, i);
        if (*cursor >= c->seq0 + c->n) continue;
        size_t off = (size_t)(*cursor - c->seq0), k = c->n - off;
        if (k > max - n) k = max - n;
        memcpy(out + n, c->ev + off, k * sizeof *out);
        n += k;
        *cursor += k;
    }
    pthread_mutex_unlock(&s->mu);
    return n;
}

bool LiveLane_label(const LiveLane *l, const char *name, char *buf, size_t n) {
    if (LiveLane_noStream(l) && name) snprintf(buf, n, "%s %s", LIVE_NOSTREAM_LABEL, name);
    else if (LiveLane_noStream(l)) snprintf(buf, n, "%s", LIVE_NOSTREAM_LABEL);
    else if (!name) return false;
    else if (l->gpu) snprintf(buf, n, "stream %lld %s", (long long)l->stream, name);
    else snprintf(buf, n, "%s", name);
    return true;
}

size_t LiveStore_laneCount(LiveStore *s) {
    pthread_mutex_lock(&s->mu);
    size_t n = s->n_lanes;
    pthread_mutex_unlock(&s->mu);
    return n;
}

bool LiveStore_lane(LiveStore *s, uint32_t lane, LiveLane *out, char **name_dup) {
    pthread_mutex_lock(&s->mu);
    bool ok = lane < s->n_lanes;
    if (ok) {
        *out = s->lanes[lane];
        if (name_dup) *name_dup = out->name ? xstrdup(StrTab_get(s->names, out->name)) : NULL;
    }
    pthread_mutex_unlock(&s->mu);
    return ok;
}

char *LiveStore_nameDup(LiveStore *s, uint32_t id) {
    pthread_mutex_lock(&s->mu);
    char *r = id < StrTab_count(s->names) ? xstrndup(StrTab_get(s->names, id), StrTab_len(s->names, id)) : NULL;
    pthread_mutex_unlock(&s->mu);
    return r;
}

char *LiveStore_metaJson(LiveStore *s, const char *extra) {
    LiveStats st = LiveStore_stats(s);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = xopen_memstream(&buf, &len);
    fprintf(f, "{\"version\": 1, \"source\": ");
    JsonOut_string(f, s->cfg.source_name);
    fprintf(f, ", \"simulated\": %s", s->cfg.simulated ? "true" : "false");
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->n_meta; i++) {
        fputs(", ", f);
        JsonOut_string(f, s->meta[i].key);
        fprintf(f, ": %s", s->meta[i].json);
    }
    int64_t retention = s->cfg.retention_ns;
    pthread_mutex_unlock(&s->mu);
    fprintf(f,
            ", \"ring\": {\"drops\": %" PRIu64 ", \"name_table_full\": %" PRIu64 "}"
            ", \"store\": {\"ingested\": %" PRIu64 ", \"evicted\": %" PRIu64 ", \"retention_ns\": %" PRId64,
            st.ring_drops, st.names_full, st.ingested, st.evicted, retention);
    if (st.clamped) fprintf(f, ", \"clamped_times\": %" PRIu64, st.clamped);
    fputc('}', f);
    if (!s->cfg.simulated || st.cupti_drops) fprintf(f, ", \"cupti\": {\"dropped_records\": %" PRIu64 "}", st.cupti_drops);
    if (extra && *extra) fprintf(f, ", %s", extra);
    fputc('}', f);
    fclose(f);
    return buf;
}

/* ---- snapshots ------------------------------------------------------------------------ */

Trace *LiveStore_snapshot(LiveStore *s, size_t max_events, int64_t t_from) {
    if (!max_events) max_events = s->cfg.snapshot_max_events;
    Trace *t = Trace_new();
    pthread_mutex_lock(&s->mu);
    /* names first, in id order, so that store name ids are trace name ids */
    size_t n_names = StrTab_count(s->names);
    for (size_t i = 1; i < n_names; i++) StrTab_intern(t->strings, StrTab_get(s->names, (uint32_t)i), StrTab_len(s->names, (uint32_t)i));
    size_t n_lanes = s->n_lanes;
    LiveLane *lanes = xmalloc((n_lanes ? n_lanes : 1) * sizeof *lanes);
    if (n_lanes) memcpy(lanes, s->lanes, n_lanes * sizeof *lanes); /* a program source starts empty */
    /* newest events: walk chunks from the newest back */
    uint64_t retained = s->seq_next - s->seq_first;
    size_t want = retained < max_events ? (size_t)retained : max_events;
    TraceEvent *ev = xmalloc((want ? want : 1) * sizeof *ev);
    size_t n = 0;
    size_t skip = (size_t)(retained - want); /* oldest retained events left out */
    for (size_t i = 0; i < s->c_count; i++) {
        Chunk *c = chunk_at(s, i);
        size_t off = 0;
        if (skip >= c->n) {
            skip -= c->n;
            continue;
        }
        off = skip;
        skip = 0;
        if (t_from != INT64_MIN && c->max_end < t_from) continue;
        if (t_from == INT64_MIN) {
            memcpy(ev + n, c->ev + off, (c->n - off) * sizeof *ev);
            n += c->n - off;
        } else {
            for (size_t k = off; k < c->n; k++)
                if (TraceEvent_end(&c->ev[k]) >= t_from) ev[n++] = c->ev[k];
        }
    }
    pthread_mutex_unlock(&s->mu);
    char *meta = LiveStore_metaJson(s, NULL);

    uint32_t src = Trace_addSource(t, s->cfg.source_name);
    const char *mark = s->cfg.simulated ? " (SIMULATED)" : "";
    char buf[96];
    for (size_t i = 0; i < n_lanes; i++) {
        const LiveLane *l = &lanes[i];
        uint32_t id = l->gpu ? Trace_gpuLane(t, src, l->device, l->stream, l->pid, l->tid)
                             : Trace_cpuLane(t, src, l->pid, l->tid);
        (void)id; /* == i: lanes are created in store order */
        if (l->gpu) snprintf(buf, sizeof buf, "GPU %lld%s", (long long)l->device, mark);
        else snprintf(buf, sizeof buf, "host %lld%s", (long long)l->pid, mark);
        Trace_setMeta(t, src, META_PROCESS_NAME, l->pid, 0, buf, strlen(buf), 0);
        if (LiveLane_label(l, l->name ? StrTab_get(t->strings, l->name) : NULL, buf, sizeof buf))
            Trace_setMeta(t, src, META_THREAD_NAME, l->pid, l->tid, buf, strlen(buf), 0);
        if (LiveLane_noStream(l)) Trace_setMeta(t, src, META_THREAD_SORT, l->pid, l->tid, NULL, 0, LIVE_NOSTREAM_SORT);
    }
    free(lanes);
    free(t->events);
    t->events = ev;
    t->n_events = t->cap_events = n;
    Trace_finish(t); /* no lock: it keeps no global state (its sorts take a context) */
    t->simulated = s->cfg.simulated;
    /* the same top-level metadata a recording carries */
    size_t ml = strlen(meta);
    char *top = xmalloc(ml + 16);
    snprintf(top, ml + 16, "{\"ovtrace\": %s}", meta);
    free(meta);
    t->sources[src].meta_json = top;
    t->sources[src].trace_name = xstrdup(s->cfg.simulated ? "ovtrace live (SIMULATED)" : "ovtrace live");
    return t;
}
