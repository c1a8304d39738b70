/* One process's share of an MPI stats run: written by the process, read by rank 0
 * (share.h). */
#include "share.h"

#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/map.h"

#define SHARE_MAGIC 0x3173766fu /* "ovs1" */

static bool is_comm_kernel(const TraceEvent *e) { return e->kind == KIND_KERNEL && e->cls == CLASS_COMM; }

uint32_t *Share_commEvents(const Trace *t, size_t *n_out) {
    size_t n = 0, cap = 0;
    uint32_t *ev = NULL;
    for (size_t l = 0; l < t->n_lanes; l++) {
        const Lane *L = &t->lanes[l];
        if (!L->gpu) continue;
        for (size_t i = L->first; i < L->first + L->count; i++)
            if (is_comm_kernel(&t->events[i])) {
                GROW(ev, cap, n + 1);
                ev[n++] = (uint32_t)i;
            }
    }
    *n_out = n;
    return ev;
}

/* Event indices by start, then index: the order Coll_analyze gives a multi-row lane's
 * items (the order the reader is asked for their args in, which fixes the order it
 * interns their strings in). */
static int cmp_start(const void *a, const void *b, void *ctx) {
    const TraceEvent *ev = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (ev[x].ts != ev[y].ts) return ev[x].ts < ev[y].ts ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The comm kernels' args, fetched as Coll_analyze fetches them: per lane in start order. */
static CollArgs *fetch_args(const Trace *t, const CollOptions *co, const uint32_t *ev, size_t n, StrTab *st,
                            uint64_t *read) {
    CollArgs *args = xmalloc((n + 1) * sizeof *args);
    for (size_t i = 0; i < n; i++) args[i] = (CollArgs){COLLARGS_NONE, COLLARGS_NONE, -1};
    bool any_src = false;
    for (size_t i = 0; i < n; i++) any_src |= t->events[ev[i]].src != TRACE_NO_SRC;
    *read = 0;
    if (!co->args || !n || !any_src) return args;
    uint32_t *order = xmalloc((n + 1) * sizeof *order);
    memcpy(order, ev, n * sizeof *order);
    for (size_t a = 0; a < n;) { /* per lane: the items of one lane are contiguous */
        uint32_t lane = t->events[order[a]].lane;
        size_t b = a;
        while (b < n && t->events[order[b]].lane == lane) b++;
        if (t->lanes[lane].n_rows > 1 && b - a > 1) qsort_r(order + a, b - a, sizeof *order, cmp_start, t->events);
        a = b;
    }
    CollArgs *got = xmalloc((n + 1) * sizeof *got);
    *read = co->args(co->args_ctx, t, order, n, got, st);
    /* back to event order: both lists are sorted per lane, so a lane's are a permutation */
    U64Map pos;
    U64Map_init(&pos, n);
    for (size_t i = 0; i < n; i++) U64Map_add(&pos, ev[i], (uint32_t)i);
    for (size_t i = 0; i < n; i++) args[U64Map_get(&pos, order[i])] = got[i];
    U64Map_free(&pos);
    free(got);
    free(order);
    return args;
}

/* Kernel names: a local StrTab id -> index in the record's name list. */
typedef struct {
    uint32_t *ref; /* per local id, UINT32_MAX when not listed */
    uint32_t *ids; /* listed local ids */
    size_t n;
} Names;

static uint32_t name_ref(Names *N, uint32_t id) {
    if (N->ref[id] == UINT32_MAX) {
        N->ref[id] = (uint32_t)N->n;
        N->ids[N->n++] = id;
    }
    return N->ref[id];
}

static void write_lanes(Buf *b, const Trace *t, const uint32_t *ev, const CollArgs *args, Names *N) {
    size_t n_gpu = 0;
    for (size_t l = 0; l < t->n_lanes; l++) n_gpu += t->lanes[l].gpu;
    Buf_u32(b, (uint32_t)n_gpu);
    size_t k = 0;
    for (size_t l = 0; l < t->n_lanes; l++) {
        const Lane *L = &t->lanes[l];
        if (!L->gpu) continue;
        Buf_u32(b, (uint32_t)l);
        Buf_u32(b, L->source);
        Buf_i32(b, L->rank);
        Buf_i64(b, L->device);
        Buf_i64(b, L->stream);
        Buf_str(b, StrTab_get(t->strings, L->name));
        Buf_u8(b, L->n_rows > 1);
        size_t cnt = 0;
        for (size_t i = L->first; i < L->first + L->count; i++) cnt += is_comm_kernel(&t->events[i]);
        Buf_u32(b, (uint32_t)cnt);
        for (size_t j = 0; j < cnt; j++, k++) {
            const TraceEvent *e = &t->events[ev[k]];
            Buf_u32(b, name_ref(N, e->name));
            Buf_i64(b, e->ts);
            Buf_i64(b, e->ts + e->dur);
            Buf_u32(b, ev[k]);
            Buf_u32(b, args[k].group);
            Buf_u32(b, args[k].coll);
            Buf_i64(b, args[k].seq);
            Buf_u8(b, e->src != TRACE_NO_SRC);
        }
    }
}

#define BAND_VALUES ((size_t)SUMMARY_COLUMNS * BAND__COUNT)

static void write_device(Buf *b, const Trace *t, const DeviceFigures *d, bool band) {
    Buf_u32(b, d->group);
    Buf_u32(b, t->groups[d->group].source);
    Buf_i32(b, d->rank);
    Buf_i64(b, d->device);
    const int64_t v[] = {d->window_start, d->window_end, d->window, d->comm, d->compute, d->overlap,
                         d->exposed, d->memory, d->busy, d->idle};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) Buf_i64(b, v[i]);
    Buf_u8(b, d->has_comm);
    Buf_f64(b, d->ratio);
    Buf_u64(b, d->n_events);
    Buf_u32(b, (uint32_t)d->n_streams);
    for (size_t k = 0; k < d->n_streams; k++) {
        Buf_u32(b, d->streams[k].lane);
        Buf_i64(b, d->streams[k].stream);
        Buf_i64(b, d->streams[k].busy);
        Buf_u64(b, d->streams[k].n_events);
    }
    Buf_u8(b, band);
    if (!band) return;
    int64_t *bv = xmalloc(BAND_VALUES * sizeof *bv); /* over the run's extent: t's */
    Overlap_band(t, d->group, t->t_min, t->t_max, SUMMARY_COLUMNS, bv);
    Buf_put(b, bv, BAND_VALUES * sizeof *bv);
    free(bv);
}

static void write_counters(Buf *b, const Trace *t, const ScaleStatsIn *in, const OverlapFilter *f,
                           const CounterSet *cs) {
    size_t n = 0;
    for (size_t i = 0; i < cs->n; i++) {
        const CounterSeries *s = &cs->s[i];
        if (f->rank != OVERLAP_ANY_RANK && t->lanes[s->lane].rank != f->rank) continue;
        if (f->device != OVERLAP_ANY && s->device != f->device) continue;
        n++;
    }
    Buf_u32(b, (uint32_t)n);
    for (size_t i = 0; i < cs->n; i++) {
        const CounterSeries *s = &cs->s[i];
        if (f->rank != OVERLAP_ANY_RANK && t->lanes[s->lane].rank != f->rank) continue;
        if (f->device != OVERLAP_ANY && s->device != f->device) continue;
        char *text = NULL;
        size_t len = 0;
        FILE *m = xopen_memstream(&text, &len);
        in->counter(in->ctx, m, t, s, f, in->json);
        fclose(m);
        Buf_i32(b, t->lanes[s->lane].rank);
        Buf_str(b, StrTab_get(t->strings, s->name));
        Buf_u32(b, t->lanes[s->lane].source);
        Buf_u32(b, s->lane);
        Buf_strn(b, text, len);
        free(text);
    }
}

/* The serving figures' parts: steps and latencies, and every [serve] series' samples in
 * the range (rank 0 feeds them in the run's series order). */
static void write_serve(Buf *b, const Trace *t, const OverlapFilter *f, const CounterSet *cs) {
    ServeParts p = ServeParts_init();
    ServeParts_events(&p, t, f->t0, f->t1);
    Buf_u64(b, p.steps);
    Buf_i64(b, p.w0);
    Buf_i64(b, p.w1);
    Buf_u64(b, p.n_lat);
    for (size_t i = 0; i < p.n_lat; i++) Buf_i64(b, p.lat[i]);
    ServeParts_free(&p);
    size_t n = 0;
    for (size_t k = 0; k < cs->n; k++) n += ServeParts_seriesKind(StrTab_get(t->strings, cs->s[k].name)) >= 0;
    Buf_u32(b, (uint32_t)n);
    for (size_t k = 0; k < cs->n; k++) {
        const CounterSeries *s = &cs->s[k];
        int kind = ServeParts_seriesKind(StrTab_get(t->strings, s->name));
        if (kind < 0) continue;
        Buf_i32(b, t->lanes[s->lane].rank);
        Buf_str(b, StrTab_get(t->strings, s->name));
        Buf_u32(b, t->lanes[s->lane].source);
        Buf_u32(b, s->lane);
        Buf_u8(b, (uint8_t)kind);
        size_t j0 = Counter_lowerBound(t, s, f->t0), j1 = j0;
        while (j1 < s->n && t->events[s->ev[j1]].ts < f->t1) j1++;
        Buf_u64(b, j1 - j0);
        for (size_t j = j0; j < j1; j++) Buf_f64(b, Counter_value(t, s, j));
    }
}

void Share_write(Buf *b, const Trace *t, const ScaleStatsIn *in, const OverlapFilter *f, const OverlapReport *R,
                 const CounterSet *cs) {
    Buf_u32(b, SHARE_MAGIC);
    Buf_u64(b, t->n_events);
    Buf_u64(b, t->n_lanes);
    Buf_u8(b, t->diag.truncated);
    Buf_u64(b, t->diag.skipped);
    Buf_u32(b, (uint32_t)t->n_sources);
    for (size_t i = 0; i < t->n_sources; i++) {
        Buf_str(b, t->sources[i].path);
        Buf_i32(b, t->sources[i].rank);
        Buf_i32(b, t->sources[i].world_size);
        Buf_i32(b, t->sources[i].compression);
        Buf_str(b, t->sources[i].meta_json); /* the hardware it names, among others */
    }
    size_t n_ev;
    uint32_t *ev = Share_commEvents(t, &n_ev);
    StrTab *ast = StrTab_new();
    uint64_t read;
    CollArgs *args = fetch_args(t, &in->coll, ev, n_ev, ast, &read);
    size_t n_ids = StrTab_count(t->strings);
    Names N = {xmalloc((n_ids + 1) * sizeof *N.ref), xmalloc((n_ids + 1) * sizeof *N.ids), 0};
    memset(N.ref, 0xff, (n_ids + 1) * sizeof *N.ref);
    Buf lanes = {0};
    write_lanes(&lanes, t, ev, args, &N);
    free(ev);
    free(args);
    Buf kern = {0};
    Buf_u32(&kern, (uint32_t)R->n_kernels);
    for (size_t i = 0; i < R->n_kernels; i++) {
        Buf_u32(&kern, name_ref(&N, R->kernels[i].name));
        Buf_u8(&kern, (uint8_t)R->kernels[i].cls);
        Buf_u64(&kern, R->kernels[i].count);
        Buf_i64(&kern, R->kernels[i].total);
    }
    Buf_u32(b, (uint32_t)N.n); /* the names first: lanes and kernels refer to them */
    for (size_t i = 0; i < N.n; i++) Buf_strn(b, StrTab_get(t->strings, N.ids[i]), StrTab_len(t->strings, N.ids[i]));
    Buf_put(b, lanes.p, lanes.n);
    Buf_put(b, kern.p, kern.n);
    free(lanes.p);
    free(kern.p);
    free(N.ref);
    free(N.ids);
    size_t n_astr = StrTab_count(ast);
    Buf_u64(b, read);
    Buf_u32(b, (uint32_t)n_astr);
    for (size_t i = 0; i < n_astr; i++) Buf_strn(b, StrTab_get(ast, (uint32_t)i), StrTab_len(ast, (uint32_t)i));
    StrTab_free(ast);
    Buf_u32(b, (uint32_t)R->n_devices);
    for (size_t i = 0; i < R->n_devices; i++) write_device(b, t, &R->devices[i], in->summary);
    write_counters(b, t, in, f, cs);
    write_serve(b, t, f, cs);
}

/* ---- rank 0: reading a record back ---- */

static ShareStr read_str(Rd *r) {
    ShareStr s;
    s.s = Rd_str(r, &s.len);
    return s;
}

/* A count of records at least `each` bytes long each: a bad one reads as none. */
static size_t read_count(Rd *r, size_t each) {
    uint32_t n = Rd_u32(r);
    if ((size_t)(r->end - r->p) / each < n) {
        r->bad = true;
        return 0;
    }
    return n;
}

static void read_lanes(Share *s, Rd *r) {
    s->n_lanes = read_count(r, 30);
    s->lanes = xcalloc(s->n_lanes + 1, sizeof *s->lanes);
    for (size_t l = 0; l < s->n_lanes && !r->bad; l++) {
        ShareLane *L = &s->lanes[l];
        L->lane = Rd_u32(r);
        L->source = Rd_u32(r);
        L->rank = Rd_i32(r);
        L->device = Rd_i64(r);
        L->stream = Rd_i64(r);
        L->name = Rd_str(r, NULL);
        L->multi_row = Rd_u8(r);
        L->n_items = read_count(r, 41);
        L->items = xmalloc((L->n_items + 1) * sizeof *L->items);
        for (size_t i = 0; i < L->n_items; i++) {
            ShareItem *it = &L->items[i];
            it->name = Rd_u32(r);
            it->ts = Rd_i64(r);
            it->end = Rd_i64(r);
            it->ev = Rd_u32(r);
            it->a.group = Rd_u32(r);
            it->a.coll = Rd_u32(r);
            it->a.seq = Rd_i64(r);
            it->has_src = Rd_u8(r);
            if (it->name >= s->n_kn) r->bad = true;
        }
    }
}

static void read_device(Rd *r, ShareDevice *D) {
    D->group = Rd_u32(r);
    D->source = Rd_u32(r);
    DeviceFigures *d = &D->d;
    d->rank = Rd_i32(r);
    d->device = Rd_i64(r);
    int64_t *v[] = {&d->window_start, &d->window_end, &d->window, &d->comm, &d->compute, &d->overlap,
                    &d->exposed, &d->memory, &d->busy, &d->idle};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) *v[i] = Rd_i64(r);
    d->has_comm = Rd_u8(r);
    d->ratio = Rd_f64(r);
    d->n_events = Rd_u64(r);
    d->n_streams = read_count(r, 28);
    d->streams = xcalloc(d->n_streams + 1, sizeof *d->streams);
    for (size_t k = 0; k < d->n_streams; k++) {
        d->streams[k].lane = Rd_u32(r);
        d->streams[k].stream = Rd_i64(r);
        d->streams[k].busy = Rd_i64(r);
        d->streams[k].n_events = Rd_u64(r);
    }
    if (!Rd_u8(r)) return;
    if ((size_t)(r->end - r->p) / 8 < BAND_VALUES) {
        r->bad = true;
        return;
    }
    D->band = xmalloc(BAND_VALUES * sizeof *D->band);
    Rd_get(r, D->band, BAND_VALUES * sizeof *D->band);
}

static void read_serve(Share *s, Rd *r) {
    s->serve = ServeParts_init();
    s->serve.steps = Rd_u64(r);
    s->serve.w0 = Rd_i64(r);
    s->serve.w1 = Rd_i64(r);
    uint64_t n_lat = Rd_u64(r);
    if ((uint64_t)(r->end - r->p) / 8 < n_lat) {
        r->bad = true;
        n_lat = 0;
    }
    s->serve.lat = xmalloc((n_lat + 1) * sizeof *s->serve.lat);
    s->serve.n_lat = s->serve.cap_lat = n_lat;
    for (size_t i = 0; i < n_lat; i++) s->serve.lat[i] = Rd_i64(r);
    s->n_serve = read_count(r, 29);
    s->serve_series = xcalloc(s->n_serve + 1, sizeof *s->serve_series);
    for (size_t k = 0; k < s->n_serve && !r->bad; k++) {
        ShareServeSeries *S = &s->serve_series[k];
        S->rank = Rd_i32(r);
        S->name = Rd_str(r, NULL);
        S->source = Rd_u32(r);
        S->lane = Rd_u32(r);
        S->kind = Rd_u8(r);
        uint64_t n = Rd_u64(r);
        if ((uint64_t)(r->end - r->p) / 8 < n) {
            r->bad = true;
            n = 0;
        }
        S->v = xmalloc((n + 1) * sizeof *S->v);
        S->n = n;
        for (size_t j = 0; j < n; j++) S->v[j] = Rd_f64(r);
    }
}

bool Share_read(Share *s, const char *p, size_t n) {
    memset(s, 0, sizeof *s);
    Rd r = {p, p + n, false};
    if (Rd_u32(&r) != SHARE_MAGIC) return false;
    s->events = Rd_u64(&r);
    s->n_model_lanes = Rd_u64(&r);
    s->truncated = Rd_u8(&r);
    s->skipped = Rd_u64(&r);
    s->n_src = read_count(&r, 16);
    s->src = xcalloc(s->n_src + 1, sizeof *s->src);
    for (size_t i = 0; i < s->n_src; i++) {
        s->src[i].path = Rd_str(&r, NULL);
        s->src[i].rank = Rd_i32(&r);
        s->src[i].world_size = Rd_i32(&r);
        s->src[i].compression = Rd_i32(&r);
        s->src[i].meta_json = Rd_str(&r, NULL);
        if (s->src[i].meta_json && !s->src[i].meta_json[0]) {
            free(s->src[i].meta_json);
            s->src[i].meta_json = NULL;
        }
    }
    s->n_kn = read_count(&r, 4);
    s->kn = xcalloc(s->n_kn + 1, sizeof *s->kn);
    for (size_t i = 0; i < s->n_kn; i++) s->kn[i] = read_str(&r);
    read_lanes(s, &r);
    s->n_kernels = read_count(&r, 21);
    s->kernels = xcalloc(s->n_kernels + 1, sizeof *s->kernels);
    for (size_t i = 0; i < s->n_kernels; i++) {
        KernelFigures *k = &s->kernels[i];
        k->name = Rd_u32(&r);
        k->cls = (EventClass)Rd_u8(&r);
        k->count = Rd_u64(&r);
        k->total = Rd_i64(&r);
        if (k->name >= s->n_kn) r.bad = true;
    }
    s->args_read = Rd_u64(&r);
    s->n_astr = read_count(&r, 4);
    s->astr = xcalloc(s->n_astr + 1, sizeof *s->astr);
    for (size_t i = 0; i < s->n_astr; i++) s->astr[i] = read_str(&r);
    for (size_t l = 0; l < s->n_lanes; l++) /* args refer to the strings */
        for (size_t i = 0; i < s->lanes[l].n_items; i++) {
            const CollArgs *a = &s->lanes[l].items[i].a;
            if ((a->group != COLLARGS_NONE && a->group >= s->n_astr) || (a->coll != COLLARGS_NONE && a->coll >= s->n_astr))
                r.bad = true;
        }
    s->n_dev = read_count(&r, 120);
    s->dev = xcalloc(s->n_dev + 1, sizeof *s->dev);
    for (size_t i = 0; i < s->n_dev && !r.bad; i++) read_device(&r, &s->dev[i]);
    s->n_counters = read_count(&r, 24);
    s->counters = xcalloc(s->n_counters + 1, sizeof *s->counters);
    for (size_t i = 0; i < s->n_counters && !r.bad; i++) {
        ShareCounter *c = &s->counters[i];
        c->rank = Rd_i32(&r);
        c->name = Rd_str(&r, NULL);
        c->source = Rd_u32(&r);
        c->lane = Rd_u32(&r);
        c->text = Rd_str(&r, &c->len);
    }
    read_serve(s, &r);
    return !r.bad && r.p == r.end;
}

void Share_free(Share *s) {
    for (size_t i = 0; i < s->n_src; i++) {
        free(s->src[i].path);
        free(s->src[i].meta_json);
    }
    free(s->src);
    for (size_t i = 0; i < s->n_kn; i++) free(s->kn[i].s);
    free(s->kn);
    for (size_t l = 0; l < s->n_lanes; l++) {
        free(s->lanes[l].name);
        free(s->lanes[l].items);
    }
    free(s->lanes);
    for (size_t i = 0; i < s->n_astr; i++) free(s->astr[i].s);
    free(s->astr);
    for (size_t i = 0; i < s->n_dev; i++) {
        free(s->dev[i].d.streams);
        free(s->dev[i].band);
    }
    free(s->dev);
    free(s->kernels);
    for (size_t i = 0; i < s->n_counters; i++) {
        free(s->counters[i].name);
        free(s->counters[i].text);
    }
    free(s->counters);
    ServeParts_free(&s->serve);
    for (size_t k = 0; k < s->n_serve; k++) {
        free(s->serve_series[k].name);
        free(s->serve_series[k].v);
    }
    free(s->serve_series);
    memset(s, 0, sizeof *s);
}
