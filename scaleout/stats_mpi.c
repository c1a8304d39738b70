/* `ovtrace stats` over MPI: the transport and rank 0's merge (scaleout.h). Messages go
 * point to point to and from rank 0, one record per process in process order, each sent
 * in pieces below 1 GiB (MPI counts are int). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/map.h"
#include "ovtrace/scaleout/scaleout.h"
#include "share.h"

#define PIECE (1u << 30)
enum { TAG_SIZE = 1, TAG_DATA, TAG_WAITS, TAG_SPLIT };

bool Scaleout_available(void) { return true; }

/* ---- transport ---- */

static void send_buf(const Buf *b, int to, int tag) {
    uint64_t n = b->n;
    MPI_Send(&n, 1, MPI_UINT64_T, to, TAG_SIZE, MPI_COMM_WORLD);
    for (uint64_t off = 0; off < n; off += PIECE) {
        uint64_t k = n - off < PIECE ? n - off : PIECE;
        MPI_Send(b->p + off, (int)k, MPI_BYTE, to, tag, MPI_COMM_WORLD);
    }
}

static void recv_buf(Buf *b, int from, int tag) {
    uint64_t n;
    MPI_Recv(&n, 1, MPI_UINT64_T, from, TAG_SIZE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    b->n = 0;
    GROW(b->p, b->cap, n + 1);
    for (uint64_t off = 0; off < n; off += PIECE) {
        uint64_t k = n - off < PIECE ? n - off : PIECE;
        MPI_Recv(b->p + off, (int)k, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    b->n = n;
}

/* Rank 0: every process's buffer (its own is `mine`, moved); others: sends mine. */
static Buf *gather(Buf *mine, int me, int np, int tag) {
    if (me) {
        send_buf(mine, 0, tag);
        return NULL;
    }
    Buf *all = xcalloc((size_t)np, sizeof *all);
    all[0] = *mine;
    *mine = (Buf){0};
    for (int p = 1; p < np; p++) recv_buf(&all[p], p, tag);
    return all;
}

static void bcast_buf(Buf *b, int me) {
    uint64_t n = b->n;
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (me) {
        b->n = 0;
        GROW(b->p, b->cap, n + 1);
        b->n = n;
    }
    for (uint64_t off = 0; off < n; off += PIECE) {
        uint64_t k = n - off < PIECE ? n - off : PIECE;
        MPI_Bcast(b->p + off, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
}

/* ---- the share of the file list ---- */

/* Files [*lo, *hi) for process me of np: contiguous, balanced by bytes (a file goes to
 * the process its middle byte falls in), so that rank order is file order. */
static void share_range(char **files, size_t n, int me, int np, size_t *lo, size_t *hi) {
    uint64_t *size = xmalloc((n + 1) * sizeof *size), total = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        size[i] = stat(files[i], &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
        total += size[i];
    }
    *lo = *hi = n;
    uint64_t before = 0;
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 mid = total ? (unsigned __int128)(before + size[i] / 2) * (unsigned)np / total
                                      : (unsigned __int128)i * (unsigned)np / n;
        int p = mid >= (unsigned)np ? np - 1 : (int)mid;
        before += size[i];
        if (p == me && first) {
            *lo = i;
            first = false;
        }
        if (p == me) *hi = i + 1;
    }
    if (first) *lo = *hi = 0;
    free(size);
}

/* ---- rank 0: the merge ---- */

typedef struct {
    int p;
    uint32_t i;
    int32_t rank;
    uint32_t gsrc, local;
    const char *name; /* counters and serve series: by rank, name, lane */
} Key;

static int cmp_key(const void *a, const void *b) {
    const Key *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->name) {
        int c = strcmp(x->name, y->name);
        if (c) return c;
    }
    if (x->gsrc != y->gsrc) return x->gsrc < y->gsrc ? -1 : 1;
    return x->local < y->local ? -1 : x->local > y->local;
}

typedef struct {
    Share *sh;
    int np;
    uint32_t *src_base;  /* per process: its first source in the run's order */
    uint32_t **kn_gid;   /* per process, per listed name: the skeleton's id */
    uint32_t **item_ev;  /* per process, per item in its order: the skeleton's event */
    size_t *n_items;
    const ShareItem **ev_item; /* per skeleton event */
    int *ev_proc;
    uint32_t **astr_gid; /* per process: its args' strings in the report's table */
} Merge;

/* The CollArgsFn of the skeleton: the args the processes read, their strings interned in
 * the order one process reading every source would intern them (sources in order). */
static size_t skeleton_args(void *ctx, const Trace *t, const uint32_t *events, size_t n, CollArgs *out, StrTab *st) {
    (void)t;
    Merge *M = ctx;
    size_t read = 0;
    for (int p = 0; p < M->np; p++) {
        M->astr_gid[p] = xmalloc((M->sh[p].n_astr + 1) * sizeof *M->astr_gid[p]);
        for (size_t j = 0; j < M->sh[p].n_astr; j++)
            M->astr_gid[p][j] = StrTab_intern(st, M->sh[p].astr[j].s, M->sh[p].astr[j].len);
        read += M->sh[p].args_read;
    }
    for (size_t i = 0; i < n; i++) {
        const ShareItem *it = M->ev_item[events[i]];
        const uint32_t *g = M->astr_gid[M->ev_proc[events[i]]];
        out[i] = (CollArgs){it->a.group == COLLARGS_NONE ? COLLARGS_NONE : g[it->a.group],
                            it->a.coll == COLLARGS_NONE ? COLLARGS_NONE : g[it->a.coll], it->a.seq};
    }
    return read;
}

static int cmp_by_key(const void *a, const void *b, void *ctx) {
    const uint64_t *key = ctx;
    uint64_t x = key[*(const uint32_t *)a], y = key[*(const uint32_t *)b];
    return x < y ? -1 : x > y;
}

/* The kernel names in the order one process would have interned them: for each name, the
 * first process that holds it and its id there (MPI_MIN over every process's key), so a
 * tie broken by name id breaks the same way. Collective on every process; rank 0 returns
 * the names' ids in the union `u`, in that order. */
static uint32_t *name_order(const Trace *t, StrTab *u, int me) {
    Buf b = {0};
    size_t n = me ? 0 : StrTab_count(u);
    if (!me) {
        Buf_u64(&b, n);
        for (size_t i = 0; i < n; i++) Buf_strn(&b, StrTab_get(u, (uint32_t)i), StrTab_len(u, (uint32_t)i));
    }
    bcast_buf(&b, me);
    Rd r = {b.p, b.p + b.n, false};
    n = Rd_u64(&r);
    uint64_t *key = xmalloc((n + 1) * sizeof *key), *min = me ? NULL : xmalloc((n + 1) * sizeof *min);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        char *s = Rd_str(&r, &len);
        uint32_t id = StrTab_find(t->strings, s, len);
        key[i] = id == STRTAB_NONE ? UINT64_MAX : (uint64_t)me << 32 | id;
        free(s);
    }
    free(b.p);
    for (size_t off = 0; off < n; off += PIECE / 8) {
        int k = (int)(n - off < PIECE / 8 ? n - off : PIECE / 8);
        MPI_Reduce(key + off, me ? NULL : min + off, k, MPI_UINT64_T, MPI_MIN, 0, MPI_COMM_WORLD);
    }
    free(key);
    if (me) return NULL;
    uint32_t *order = xmalloc((n + 1) * sizeof *order);
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    qsort_r(order, n, sizeof *order, cmp_by_key, min); /* keys are distinct: (process, id) */
    free(min);
    return order;
}

/* The skeleton's sources, GPU lanes and comm kernels, in the run's order. */
static void build_skeleton(Merge *M, Trace *sk, U64Map *lane_of) {
    int np = M->np;
    size_t n_src = 0, n_lanes = 0, n_ev = 0;
    for (int p = 0; p < np; p++) {
        M->src_base[p] = (uint32_t)n_src;
        n_src += M->sh[p].n_src;
        n_lanes += M->sh[p].n_lanes;
        M->n_items[p] = 0;
        for (size_t l = 0; l < M->sh[p].n_lanes; l++) M->n_items[p] += M->sh[p].lanes[l].n_items;
        n_ev += M->n_items[p];
        M->item_ev[p] = xmalloc((M->n_items[p] + 1) * sizeof *M->item_ev[p]);
    }
    sk->sources = xcalloc(n_src + 1, sizeof *sk->sources);
    for (int p = 0; p < np; p++)
        for (size_t i = 0; i < M->sh[p].n_src; i++) {
            TraceSource *s = &sk->sources[sk->n_sources++];
            *s = M->sh[p].src[i];
            s->path = xstrdup(M->sh[p].src[i].path);
            s->meta_json = M->sh[p].src[i].meta_json ? xstrdup(M->sh[p].src[i].meta_json) : NULL;
        }
    Key *K = xmalloc((n_lanes + 1) * sizeof *K);
    size_t k = 0;
    for (int p = 0; p < np; p++)
        for (uint32_t l = 0; l < M->sh[p].n_lanes; l++) {
            const ShareLane *L = &M->sh[p].lanes[l];
            K[k++] = (Key){p, l, L->rank, M->src_base[p] + L->source, L->lane, NULL};
        }
    qsort(K, n_lanes, sizeof *K, cmp_key);
    /* each process's items, numbered in its order: where each lane's start */
    size_t **first = xmalloc((size_t)np * sizeof *first);
    for (int p = 0; p < np; p++) {
        first[p] = xmalloc((M->sh[p].n_lanes + 1) * sizeof *first[p]);
        size_t s = 0;
        for (size_t l = 0; l < M->sh[p].n_lanes; l++) {
            first[p][l] = s;
            s += M->sh[p].lanes[l].n_items;
        }
    }
    sk->lanes = xcalloc(n_lanes + 1, sizeof *sk->lanes);
    sk->events = xcalloc(n_ev + 1, sizeof *sk->events);
    sk->cap_events = n_ev + 1;
    M->ev_item = xmalloc((n_ev + 1) * sizeof *M->ev_item);
    M->ev_proc = xmalloc((n_ev + 1) * sizeof *M->ev_proc);
    for (size_t j = 0; j < n_lanes; j++) {
        int p = K[j].p;
        const ShareLane *L = &M->sh[p].lanes[K[j].i];
        Lane *D = &sk->lanes[j];
        D->gpu = true;
        D->rank = L->rank;
        D->source = K[j].gsrc;
        D->device = D->pid = L->device;
        D->stream = D->tid = L->stream;
        D->name = StrTab_intern(sk->strings, L->name, strlen(L->name));
        D->first = sk->n_events;
        D->count = L->n_items;
        D->n_rows = L->multi_row ? 2 : 1;
        U64Map_add(lane_of, (uint64_t)p << 32 | L->lane, (uint32_t)j);
        for (size_t i = 0; i < L->n_items; i++) {
            const ShareItem *it = &L->items[i];
            size_t e = sk->n_events++;
            sk->events[e] = (TraceEvent){.ts = it->ts,
                                         .dur = it->end - it->ts,
                                         .src = it->has_src ? 0 : TRACE_NO_SRC,
                                         .name = M->kn_gid[p][it->name],
                                         .lane = (uint32_t)j,
                                         .kind = KIND_KERNEL,
                                         .cls = CLASS_COMM};
            M->ev_item[e] = it;
            M->ev_proc[e] = p;
            M->item_ev[p][first[p][K[j].i] + i] = (uint32_t)e;
        }
    }
    sk->n_lanes = n_lanes;
    for (int p = 0; p < np; p++) free(first[p]);
    free(first);
    free(K);
}

/* The devices in the run's group order (by rank, source, then the process's own order),
 * their streams' lanes made the skeleton's, the total and the kernels over all. */
static OverlapReport *merge_overlap(Merge *M, Trace *sk, const U64Map *lane_of, const OverlapFilter *f, int64_t **bands) {
    int np = M->np;
    OverlapReport *R = xcalloc(1, sizeof *R);
    R->filter = *f;
    size_t n = 0;
    for (int p = 0; p < np; p++) n += M->sh[p].n_dev;
    Key *K = xmalloc((n + 1) * sizeof *K);
    size_t k = 0;
    for (int p = 0; p < np; p++)
        for (uint32_t i = 0; i < M->sh[p].n_dev; i++)
            K[k++] = (Key){p, i, M->sh[p].dev[i].d.rank, M->src_base[p] + M->sh[p].dev[i].source, M->sh[p].dev[i].group, NULL};
    qsort(K, n, sizeof *K, cmp_key);
    R->devices = xcalloc(n + 1, sizeof *R->devices);
    R->n_devices = n;
    const size_t nb = (size_t)SUMMARY_COLUMNS * BAND__COUNT;
    *bands = xcalloc(n * nb + 1, sizeof **bands);
    for (size_t j = 0; j < n; j++) {
        ShareDevice *S = &M->sh[K[j].p].dev[K[j].i];
        R->devices[j] = S->d;
        S->d.streams = NULL;
        S->d.n_streams = 0;
        if (S->band) memcpy(*bands + j * nb, S->band, nb * sizeof **bands);
        DeviceFigures *d = &R->devices[j];
        for (size_t s = 0; s < d->n_streams; s++) {
            uint32_t l = U64Map_get(lane_of, (uint64_t)K[j].p << 32 | d->streams[s].lane);
            d->streams[s].lane = l == U64MAP_NONE ? 0 : l;
        }
    }
    free(K);
    Overlap_sumDevices(R->devices, R->n_devices, &R->total);
    if (!f->top_n) return R;
    size_t n_names = StrTab_count(sk->strings);
    size_t *count = xcalloc(n_names + 1, sizeof *count);
    int64_t *total = xcalloc(n_names + 1, sizeof *total);
    uint8_t *cls = xcalloc(n_names + 1, 1);
    for (int p = 0; p < np; p++)
        for (size_t i = 0; i < M->sh[p].n_kernels; i++) {
            const KernelFigures *kf = &M->sh[p].kernels[i];
            uint32_t g = M->kn_gid[p][kf->name];
            count[g] += kf->count;
            total[g] += kf->total;
            cls[g] = (uint8_t)kf->cls;
        }
    size_t nk = 0;
    for (size_t i = 0; i < n_names; i++) nk += count[i] > 0;
    R->kernels = xmalloc((nk + 1) * sizeof *R->kernels);
    for (size_t i = 0, j = 0; i < n_names; i++)
        if (count[i]) R->kernels[j++] = (KernelFigures){(uint32_t)i, (EventClass)cls[i], count[i], total[i]};
    Overlap_sortKernels(R->kernels, nk);
    R->n_kernels = nk < f->top_n ? nk : f->top_n;
    free(count);
    free(total);
    free(cls);
    return R;
}

/* Counter lines in CounterSet's order: by rank, name, then lane. */
static void merge_counters(Merge *M, ScaleStats *S) {
    size_t n = 0;
    for (int p = 0; p < M->np; p++) n += M->sh[p].n_counters;
    Key *K = xmalloc((n + 1) * sizeof *K);
    size_t k = 0;
    for (int p = 0; p < M->np; p++)
        for (uint32_t i = 0; i < M->sh[p].n_counters; i++) {
            const ShareCounter *c = &M->sh[p].counters[i];
            K[k++] = (Key){p, i, c->rank, M->src_base[p] + c->source, c->lane, c->name};
        }
    qsort(K, n, sizeof *K, cmp_key);
    S->counters = xcalloc(n + 1, sizeof *S->counters);
    S->n_counters = n;
    for (size_t j = 0; j < n; j++) {
        ShareCounter *c = &M->sh[K[j].p].counters[K[j].i];
        S->counters[j] = (ScaleText){c->text, c->len};
        c->text = NULL;
    }
    free(K);
}

/* The serving figures from every process's parts, the series fed in the run's order. */
static void merge_serve(Merge *M, ScaleStats *S) {
    ServeParts acc = ServeParts_init();
    size_t n = 0;
    for (int p = 0; p < M->np; p++) {
        const ServeParts *q = &M->sh[p].serve;
        acc.steps += q->steps;
        if (q->w0 < acc.w0) acc.w0 = q->w0;
        if (q->w1 > acc.w1) acc.w1 = q->w1;
        GROW(acc.lat, acc.cap_lat, acc.n_lat + q->n_lat);
        if (q->n_lat) memcpy(acc.lat + acc.n_lat, q->lat, q->n_lat * sizeof *q->lat);
        acc.n_lat += q->n_lat;
        n += M->sh[p].n_serve;
    }
    Key *K = xmalloc((n + 1) * sizeof *K);
    size_t k = 0;
    for (int p = 0; p < M->np; p++)
        for (uint32_t i = 0; i < M->sh[p].n_serve; i++) {
            const ShareServeSeries *s = &M->sh[p].serve_series[i];
            K[k++] = (Key){p, i, s->rank, M->src_base[p] + s->source, s->lane, s->name};
        }
    qsort(K, n, sizeof *K, cmp_key);
    for (size_t j = 0; acc.steps && j < n; j++) {
        const ShareServeSeries *s = &M->sh[K[j].p].serve_series[K[j].i];
        for (size_t v = 0; v < s->n; v++) ServeParts_sample(&acc, s->kind, s->v[v]);
    }
    free(K);
    S->serve_any = ServeParts_finish(&acc, &S->serve);
    ServeParts_free(&acc);
}

/* Each process's waits, item by item in its order (-1: not in a matched instance). */
static Buf *waits_for(const Merge *M, const CollReport *R) {
    Buf *w = xcalloc((size_t)M->np, sizeof *w);
    for (int p = 0; p < M->np; p++)
        for (size_t i = 0; i < M->n_items[p]; i++) {
            const CollMember *m = Coll_memberOf(R, M->item_ev[p][i]);
            Buf_i64(&w[p], m ? m->wait : -1);
        }
    return w;
}

/* ---- every process: the device split from rank 0's waits ---- */

static int cmp_member_event(const void *a, const void *b) {
    const CollMember *x = a, *y = b;
    return x->event < y->event ? -1 : x->event > y->event;
}

static void local_split(const Trace *t, const ScaleStatsIn *in, const OverlapFilter *f, const Buf *waits, Buf *out) {
    size_t n;
    uint32_t *ev = Share_commEvents(t, &n);
    Rd r = {waits->p, waits->p + waits->n, false};
    CollReport lr = {0};
    lr.members = xmalloc((n + 1) * sizeof *lr.members);
    for (size_t i = 0; i < n; i++) {
        int64_t w = Rd_i64(&r);
        if (w < 0) continue;
        const TraceEvent *e = &t->events[ev[i]];
        lr.members[lr.n_members++] = (CollMember){ev[i], 0, t->lanes[e->lane].rank, e->ts, e->ts + e->dur, w, 0};
    }
    qsort(lr.members, lr.n_members, sizeof *lr.members, cmp_member_event);
    lr.by_event = xmalloc((lr.n_members + 1) * sizeof *lr.by_event);
    for (size_t i = 0; i < lr.n_members; i++) lr.by_event[i] = (uint32_t)i;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    lr.threads = in->coll.threads > 0 ? in->coll.threads : cores > 0 ? (int)cores : 1;
    size_t nd = 0;
    CollDeviceSplit *d = Coll_deviceSplit(t, &lr, f->t0, f->t1, f->rank == OVERLAP_ANY_RANK ? INT32_MIN : f->rank, &nd);
    Buf_u32(out, (uint32_t)nd);
    for (size_t i = 0; i < nd; i++) {
        Buf_u32(out, d[i].group);
        Buf_u32(out, t->groups[d[i].group].source);
        Buf_i32(out, d[i].rank);
        const int64_t v[] = {d[i].device, d[i].comm, d[i].exposed, d[i].exposed_wait, d[i].exposed_transfer, d[i].wait, d[i].transfer};
        for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) Buf_i64(out, v[j]);
    }
    free(d);
    free(lr.members);
    free(lr.by_event);
    free(ev);
}

/* Rank 0: the splits of every process, in the run's group order. */
static void merge_splits(const Merge *M, Buf *all, ScaleStats *S) {
    size_t n = 0, cap = 0;
    CollDeviceSplit *d = NULL;
    Key *K = NULL;
    size_t cap_k = 0;
    for (int p = 0; p < M->np; p++) {
        Rd r = {all[p].p, all[p].p + all[p].n, false};
        uint32_t m = Rd_u32(&r);
        for (uint32_t i = 0; i < m && !r.bad; i++) {
            GROW(d, cap, n + 1);
            GROW(K, cap_k, n + 1);
            uint32_t group = Rd_u32(&r), src = Rd_u32(&r);
            CollDeviceSplit *x = &d[n];
            x->group = 0;
            x->rank = Rd_i32(&r);
            int64_t *v[] = {&x->device, &x->comm, &x->exposed, &x->exposed_wait, &x->exposed_transfer, &x->wait, &x->transfer};
            for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) *v[j] = Rd_i64(&r);
            K[n] = (Key){p, (uint32_t)n, x->rank, M->src_base[p] + src, group, NULL};
            n++;
        }
    }
    qsort(K, n, sizeof *K, cmp_key);
    S->dev = xmalloc((n + 1) * sizeof *S->dev);
    for (size_t j = 0; j < n; j++) S->dev[j] = d[K[j].i];
    S->n_dev = n;
    free(d);
    free(K);
}

/* ---- the run ---- */

/* Loads this process's share; NULL with the error in err. A process without files holds
 * an empty model. */
static Trace *load_share(const ScaleStatsIn *in, char **files, size_t lo, size_t hi, int np, char *err, size_t errlen) {
    if (lo == hi) {
        Trace *t = Trace_new();
        Trace_finish(t);
        return t;
    }
    LoadOptions lo_opt = in->load;
    lo_opt.rank_base = (int32_t)lo;
    if (np > 1) lo_opt.cache = -1; /* no snapshot of a part, nor a detached saver forked from an MPI process */
    Trace *t = Load_files((const char *const *)(files + lo), hi - lo, &lo_opt, err, errlen);
    if (t && !in->quiet) Load_printWarnings(t, stderr, "ovtrace: ");
    return t;
}

/* Collective: whether every process loaded; rank 0 gets the errors, one line each. */
static bool all_loaded(bool ok, const char *err, int me, int np, char **errs) {
    int mine = ok, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) return true;
    Buf b = {0};
    if (!ok) Buf_put(&b, err, strlen(err));
    Buf *got = gather(&b, me, np, TAG_DATA);
    if (!me) {
        Buf text = {0};
        for (int p = 0; p < np; p++) {
            if (got[p].n) {
                Buf_put(&text, got[p].p, got[p].n);
                Buf_put(&text, "\n", 1);
            }
            free(got[p].p);
        }
        Buf_put(&text, "", 1);
        *errs = text.p;
        free(got);
    }
    free(b.p);
    return false;
}

/* Collective: the run's extent, made t's (a relative --range and the span use it). */
static void run_extent(Trace *t) {
    int64_t mn = t->n_events ? t->t_min : INT64_MAX, mx = t->n_events ? t->t_max : INT64_MIN, gmn, gmx;
    MPI_Allreduce(&mn, &gmn, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mx, &gmx, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (gmn > gmx) gmn = gmx = 0;
    t->t_min = gmn;
    t->t_max = gmx;
}

/* Rank 0: the merged result from every process's record, the skeleton's names in order.
 * Collective (name_order). */
static bool merge_shares(Merge *M, bool read_ok, const Trace *t, const ScaleStatsIn *in, const OverlapFilter *f, int me,
                         ScaleStats *S) {
    int np = M->np;
    int bad = !me && !read_ok;
    StrTab *u = NULL;
    uint32_t **kn_u = NULL;
    if (!me) {
        u = StrTab_new();
        kn_u = xcalloc((size_t)np, sizeof *kn_u);
        for (int p = 0; p < np; p++) {
            kn_u[p] = xmalloc((M->sh[p].n_kn + 1) * sizeof *kn_u[p]);
            for (size_t k = 0; k < M->sh[p].n_kn; k++) kn_u[p][k] = StrTab_intern(u, M->sh[p].kn[k].s, M->sh[p].kn[k].len);
        }
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad) {
        if (!me) {
            for (int p = 0; p < np; p++) free(kn_u[p]);
            free(kn_u);
            StrTab_free(u);
        }
        return false;
    }
    uint32_t *order = name_order(t, u, me);
    if (me) return true;
    size_t nu = StrTab_count(u);
    uint32_t *gid = xmalloc((nu + 1) * sizeof *gid);
    S->t = Trace_new();
    for (size_t i = 0; i < nu; i++) gid[order[i]] = StrTab_intern(S->t->strings, StrTab_get(u, order[i]), StrTab_len(u, order[i]));
    for (int p = 0; p < np; p++) {
        M->kn_gid[p] = xmalloc((M->sh[p].n_kn + 1) * sizeof *M->kn_gid[p]);
        for (size_t k = 0; k < M->sh[p].n_kn; k++) M->kn_gid[p][k] = gid[kn_u[p][k]];
        free(kn_u[p]);
    }
    free(kn_u);
    free(gid);
    free(order);
    StrTab_free(u);
    U64Map lane_of;
    U64Map_init(&lane_of, 64);
    build_skeleton(M, S->t, &lane_of);
    S->t->t_min = t->t_min;
    S->t->t_max = t->t_max;
    S->filter = *f;
    for (int p = 0; p < np; p++) {
        S->events += M->sh[p].events;
        S->lanes += M->sh[p].n_model_lanes;
        S->truncated |= M->sh[p].truncated;
        S->skipped += M->sh[p].skipped;
    }
    S->t_min = t->t_min;
    S->t_max = t->t_max;
    S->R = merge_overlap(M, S->t, &lane_of, f, &S->bands);
    U64Map_free(&lane_of);
    merge_counters(M, S);
    merge_serve(M, S);
    CollOptions co = in->coll;
    if (co.args) {
        co.args = skeleton_args;
        co.args_ctx = M;
    }
    S->coll = Coll_analyze(S->t, &co);
    return true;
}

static void merge_free(Merge *M) {
    for (int p = 0; p < M->np; p++) {
        Share_free(&M->sh[p]);
        free(M->kn_gid[p]);
        free(M->item_ev[p]);
        free(M->astr_gid[p]);
    }
    free(M->sh);
    free(M->src_base);
    free(M->kn_gid);
    free(M->item_ev);
    free(M->n_items);
    free(M->ev_item);
    free(M->ev_proc);
    free(M->astr_gid);
}

static int run(const ScaleStatsIn *in, int me, int np, ScaleStats **out, char **errs) {
    char err[2048] = "";
    size_t n_files = 0;
    char **files = Load_expandPaths(in->paths, in->n_paths, &n_files, err, sizeof err);
    Trace *t = NULL;
    if (files) {
        size_t lo, hi;
        share_range(files, n_files, me, np, &lo, &hi);
        t = load_share(in, files, lo, hi, np, err, sizeof err);
        for (size_t i = 0; i < n_files; i++) free(files[i]);
        free(files);
    }
    if (!all_loaded(t != NULL, err, me, np, errs)) {
        Trace_free(t);
        return 1;
    }
    run_extent(t);
    OverlapFilter f = in->filter;
    int rc = in->resolve(in->ctx, t, &f, me == 0);
    if (rc) {
        Trace_free(t);
        return rc;
    }
    OverlapFilter every = f; /* every kernel's figures: the top ones are the run's */
    every.top_n = f.top_n ? SIZE_MAX : 0;
    OverlapReport *R = Overlap_compute(t, &every);
    CounterSet *cs = CounterSet_build(t);
    Buf rec = {0};
    Share_write(&rec, t, in, &f, R, cs);
    OverlapReport_free(R);
    CounterSet_free(cs);
    Merge M = {.np = np};
    ScaleStats *S = NULL;
    if (!me) {
        M.sh = xcalloc((size_t)np, sizeof *M.sh);
        M.src_base = xcalloc((size_t)np, sizeof *M.src_base);
        M.kn_gid = xcalloc((size_t)np, sizeof *M.kn_gid);
        M.item_ev = xcalloc((size_t)np, sizeof *M.item_ev);
        M.n_items = xcalloc((size_t)np, sizeof *M.n_items);
        M.astr_gid = xcalloc((size_t)np, sizeof *M.astr_gid);
        S = xcalloc(1, sizeof *S);
    }
    bool read_ok = true;
    if (me) {
        send_buf(&rec, 0, TAG_DATA);
    } else { /* each record read as it comes and freed: rank 0 never holds them all raw */
        for (int p = 0; p < np; p++) {
            Buf b = {0};
            if (p) recv_buf(&b, p, TAG_DATA);
            const Buf *r = p ? &b : &rec;
            read_ok &= Share_read(&M.sh[p], r->p, r->n);
            free(b.p);
            if (!p) {
                free(rec.p);
                rec = (Buf){0};
            }
        }
    }
    free(rec.p);
    bool ok = merge_shares(&M, read_ok, t, in, &f, me, S);
    if (!ok) {
        if (!me) {
            *errs = xstrdup("a process's record did not read back (processes of different builds?)\n");
            merge_free(&M);
            ScaleStats_free(S);
        }
        Trace_free(t);
        return 1;
    }
    /* the device split: the same rule as one process's (with two ranks, and always in JSON) */
    int split = !me && (S->coll->n_ranks >= 2 || in->json);
    MPI_Bcast(&split, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (split) {
        Buf mine = {0};
        if (!me) {
            Buf *w = waits_for(&M, S->coll);
            mine = w[0];
            for (int p = 1; p < np; p++) {
                send_buf(&w[p], p, TAG_WAITS);
                free(w[p].p);
            }
            free(w);
        } else {
            recv_buf(&mine, 0, TAG_WAITS);
        }
        Buf sp = {0};
        local_split(t, in, &f, &mine, &sp);
        free(mine.p);
        Buf *all = gather(&sp, me, np, TAG_SPLIT);
        free(sp.p);
        if (!me) {
            merge_splits(&M, all, S);
            for (int p = 0; p < np; p++) free(all[p].p);
            free(all);
        }
    }
    if (!me) merge_free(&M);
    Trace_free(t);
    *out = S;
    return 0;
}

int Scaleout_stats(const ScaleStatsIn *in, ScaleStats **out) {
    *out = NULL;
    char *errs = NULL;
    MPI_Init(NULL, NULL);
    int me = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int rc = run(in, me, np, out, &errs);
    if (rc) { /* said before anyone exits: mpirun kills the job at the first failed exit */
        for (char *line = errs, *nl; line && *line; line = nl + 1) {
            nl = strchr(line, '\n');
            if (!nl) break;
            *nl = '\0';
            in->error(in->ctx, line);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(errs);
    MPI_Finalize();
    return rc;
}

void ScaleStats_free(ScaleStats *s) {
    if (!s) return;
    Trace_free(s->t);
    OverlapReport_free(s->R);
    free(s->bands);
    for (size_t i = 0; i < s->n_counters; i++) free(s->counters[i].text);
    free(s->counters);
    CollReport_free(s->coll);
    free(s->dev);
    free(s);
}
