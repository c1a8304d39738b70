/* Multi-rank simulation written to per-rank trace files (include/ovtrace/live/simranks.h). */
#include "ovtrace/live/simranks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/atomicfile.h"
#include "ovtrace/base/file.h"
#include "ovtrace/base/zwriter.h"
#include "ovtrace/write/chromejson.h"
#include "ovtrace/write/export.h"
#include "ovtrace/write/outpath.h"
#include "ovtrace/kernels/rng.h"
#include "ovtrace/model/timeunits.h"


void SimRanksConfig_default(SimRanksConfig *c, SchedMode mode) {
    memset(c, 0, sizeof *c);
    ScheduleParams_default(&c->params, mode);
    c->ranks = 8;
    c->imbalance = 0.0;
    c->jitter = 0.05;
    c->seed = 1;
    c->steps = 4;
    c->start_ns = 1700000000000000000LL;
    c->gpus_per_node = 8;
}

typedef struct {
    uint64_t s;
} Rng;

static uint64_t rng_next(Rng *r) { return Rng_next(&r->s); }

static double rng_unit(Rng *r) { return (double)(rng_next(r) >> 11) / 9007199254740992.0; }

static Rng rng_seed(uint64_t seed, uint64_t stream) {
    Rng r = {(seed + 1) * 0x9E3779B97F4A7C15ULL ^ (stream + 1) * 0xD1B54A32D192ED03ULL};
    if (!r.s) r.s = 1;
    for (int i = 0; i < 4; i++) rng_next(&r);
    return r;
}

void SimRanks_loads(const SimRanksConfig *c, double *out) {
    int X = c->params.experts > 0 ? c->params.experts : 1, N = c->ranks;
    int *perm = xmalloc((size_t)X * sizeof *perm);
    for (int e = 0; e < X; e++) perm[e] = e;
    Rng r = rng_seed(c->seed, 0xE);
    for (int e = X - 1; e > 0; e--) { /* which expert is how popular: a seeded shuffle */
        int j = (int)(rng_next(&r) % (uint64_t)(e + 1));
        int x = perm[e];
        perm[e] = perm[j];
        perm[j] = x;
    }
    double total = 0;
    for (int i = 0; i < N; i++) out[i] = 0;
    for (int e = 0; e < X; e++) {
        double w = pow((double)perm[e] + 1.0, -c->imbalance);
        /* experts spread evenly: expert e lives on rank e * N / X (wraps when X < N) */
        int owner = X >= N ? (int)((int64_t)e * N / X) : e % N;
        out[owner] += w;
        total += w;
    }
    if (X < N) /* ranks without an expert of their own share nothing: equal load */
        for (int i = X; i < N; i++) out[i] = out[i % X];
    double mean = 0;
    for (int i = 0; i < N; i++) mean += out[i];
    mean /= N;
    for (int i = 0; i < N; i++) out[i] = mean > 0 ? out[i] / mean : 1.0;
    (void)total;
    free(perm);
}

char *SimRanks_path(const char *path, int rank) { return Export_rankPath(path, rank); }

/* Writes text (n bytes) to path, compressed by extension, through a temporary file
 * renamed over it. A symlink is followed (its target is replaced); a device or FIFO is
 * refused, as export refuses one for a rank's file. */
static bool write_file(const char *path, const char *text, size_t n, char *err, size_t errlen) {
    ZComp comp = ZComp_forPath(path);
    ZBuf out = {0};
    if (comp != ZCOMP_PLAIN) {
        ZWriter zw;
        bool zok = ZWriter_open(&zw, comp, ZSink_buf, &out, err, errlen) && ZWriter_frame(&zw, text, n);
        if (!zok) snprintf(err, errlen, "%s: %s", path, zw.err);
        ZWriter_free(&zw);
        if (!zok) {
            free(out.p);
            return false;
        }
        text = out.p, n = out.len;
    }
    OutPath op;
    AtomicFile f = ATOMICFILE_NONE;
    bool ok = OutPath_resolve(path, &op, err, errlen);
    if (ok && op.stream) {
        snprintf(err, errlen, "%s is not a regular file (one output per rank needs files)", path);
        ok = false;
    }
    ok = ok && AtomicFile_open(&f, op.path, 0644, true, err, errlen);
    if (ok && (!File_writeAll(f.fd, text, n, -1) || !AtomicFile_closeFd(&f) || !AtomicFile_rename(&f))) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        ok = false;
    }
    AtomicFile_free(&f); /* removes the temporary file unless it was renamed */
    OutPath_free(&op);
    free(out.p);
    return ok;
}

/* The metadata of one rank's GPU: its process, its streams. */
static void rank_metadata(ChromeJson *w, const Schedule *sch, int rank, int dev) {
    char pname[64];
    snprintf(pname, sizeof pname, "rank %d GPU %d (SIMULATED)", rank, dev);
    ChromeJson_beginEvent(w);
    ChromeJson_strField(w, "ph", "M");
    ChromeJson_strField(w, "name", "process_name");
    ChromeJson_intField(w, "pid", dev);
    ChromeJson_intField(w, "tid", 0);
    ChromeJson_beginObject(w, "args");
    ChromeJson_strField(w, "name", pname);
    ChromeJson_end(w);
    ChromeJson_end(w);
    for (int s = 0; s < sch->n_streams; s++) {
        ChromeJson_beginEvent(w);
        ChromeJson_strField(w, "ph", "M");
        ChromeJson_strField(w, "name", "thread_name");
        ChromeJson_intField(w, "pid", dev);
        ChromeJson_intField(w, "tid", sch->streams[s].id);
        ChromeJson_beginObject(w, "args");
        ChromeJson_strField(w, "name", sch->streams[s].name);
        ChromeJson_end(w);
        ChromeJson_end(w);
    }
}

/* One op instance on one rank's GPU: an X slice with its step, layer and micro-batch. */
static void op_event(ChromeJson *w, const Schedule *sch, const SchedOp *op, int dev, int64_t ts, int64_t dur,
                     uint64_t step) {
    int64_t stream = sch->streams[op->stream].id;
    ChromeJson_beginEvent(w);
    ChromeJson_strField(w, "ph", "X");
    ChromeJson_strField(w, "cat", op->kind == SCHED_OP_COPY ? "gpu_memcpy" : "kernel");
    ChromeJson_strField(w, "name", op->name);
    ChromeJson_intField(w, "pid", dev);
    ChromeJson_intField(w, "tid", stream);
    ChromeJson_usField(w, "ts", ts);
    ChromeJson_usField(w, "dur", dur);
    ChromeJson_beginObject(w, "args");
    ChromeJson_intField(w, "device", dev);
    ChromeJson_intField(w, "stream", stream);
    ChromeJson_intField(w, "step", (int64_t)step);
    ChromeJson_intField(w, "layer", op->layer);
    ChromeJson_intField(w, "mb", op->mb);
    ChromeJson_end(w);
    ChromeJson_end(w);
}

bool SimRanks_write(const SimRanksConfig *c, const char *out_path, uint64_t *events_out, char *err, size_t errlen) {
    if (c->ranks < 2 || c->ranks > 256) {
        snprintf(err, errlen, "--ranks needs 2..256 ranks, got %d", c->ranks);
        return false;
    }
    Schedule *sch = Schedule_build(&c->params, err, errlen);
    if (!sch) return false;
    int N = c->ranks;
    size_t n_ops = sch->n_ops;
    uint64_t steps = c->steps ? c->steps : 1;
    double *load = xmalloc((size_t)N * sizeof *load);
    SimRanks_loads(c, load);
    /* per rank: op start/end of this step and the previous one, stream free times */
    int64_t *start = xcalloc((size_t)N * n_ops, sizeof *start);
    int64_t *end = xcalloc((size_t)N * n_ops, sizeof *end);
    int64_t *prev_end = xcalloc((size_t)N * n_ops, sizeof *prev_end);
    int64_t *free_at = xcalloc((size_t)N * SCHED_MAX_STREAMS, sizeof *free_at);
    Rng *rr = xmalloc((size_t)N * sizeof *rr);
    for (int r = 0; r < N; r++) rr[r] = rng_seed(c->seed, (uint64_t)r + 1);
    Rng shared = rng_seed(c->seed, 0xC0);
    ChromeJson *json = xcalloc((size_t)N, sizeof *json); /* each rank's file, in memory */
    /* times relative to the whole second of the start, one base for every rank (as the
     * recorder writes them, live/record.c: exact in any reader's double) */
    int64_t base = Time_floorSecond(c->start_ns);
    bool ok = true;
    uint64_t events = 0;
    int gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 8;
    for (int r = 0; r < N && ok; r++) {
        ChromeJson *w = &json[r];
        ChromeJson_init(w, CHROMEJSON_SPACED, NULL, NULL);
        char pj[1024];
        ScheduleParams_json(&c->params, pj, sizeof pj);
        ChromeJson_printf(w,
                "{\n\"schemaVersion\": 1,\n\"baseTimeNanoseconds\": %lld,\n"
                "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n"
                "\"ovtrace\": {\"simulated\": true, \"source\": \"simulator (ranks)\", \"params\": %s,\n"
                " \"ranks\": {\"ranks\": %d, \"imbalance\": %g, \"jitter\": %g, \"seed\": %llu, \"clock_skew_ns\": %lld,"
                " \"load\": %.6f}},\n\"traceEvents\": [",
                (long long)base, r, N, pj, N, c->imbalance, c->jitter, (unsigned long long)c->seed, (long long)c->clock_skew_ns, load[r]);
        rank_metadata(w, sch, r, r % gpn);
    }
    int64_t *ready = xmalloc((size_t)N * sizeof *ready);
    for (uint64_t k = 0; k < steps && ok; k++) {
        for (size_t i = 0; i < n_ops; i++) {
            const SchedOp *op = &sch->ops[i];
            double work = Schedule_opWorkNs(sch, op);
            bool coll = op->kind != SCHED_OP_COMPUTE;
            int64_t last = INT64_MIN;
            for (int r = 0; r < N; r++) {
                int64_t t = free_at[(size_t)r * SCHED_MAX_STREAMS + (size_t)op->stream];
                for (uint32_t d = 0; d < op->n_deps; d++) {
                    const SchedDep *dp = &op->deps[d];
                    int64_t e;
                    if (dp->flags & SCHED_DEP_PREV_STEP) e = k ? prev_end[(size_t)r * n_ops + dp->op] : 0;
                    else e = end[(size_t)r * n_ops + dp->op];
                    if (e > t) t = e;
                }
                ready[r] = t;
                if (t > last) last = t;
            }
            /* a collective's transfer: one draw per instance, shared by all ranks */
            int64_t transfer = coll ? (int64_t)llround(work * (1.0 + c->jitter * (2.0 * rng_unit(&shared) - 1.0))) : 0;
            if (coll && transfer < 1) transfer = 1;
            for (int r = 0; r < N; r++) {
                size_t at = (size_t)r * n_ops + i;
                start[at] = ready[r];
                if (coll) {
                    end[at] = last + transfer;
                } else {
                    double w = work * (op->phase == SCHED_PH_EXPERT ? load[r] : 1.0);
                    int64_t d = (int64_t)llround(w * (1.0 + c->jitter * (2.0 * rng_unit(&rr[r]) - 1.0)));
                    end[at] = start[at] + (d < 1 ? 1 : d);
                }
                free_at[(size_t)r * SCHED_MAX_STREAMS + (size_t)op->stream] = end[at];
                int64_t off = c->start_ns + (int64_t)(r / gpn) * c->clock_skew_ns;
                op_event(&json[r], sch, op, r % gpn, off + start[at] - base, end[at] - start[at], k);
                events++;
            }
        }
        int64_t *x = prev_end;
        prev_end = end;
        end = x;
    }
    for (int r = 0; r < N && ok; r++) {
        ChromeJson_puts(&json[r], "\n]\n}\n");
        char *p = SimRanks_path(out_path, r);
        ok = write_file(p, json[r].buf, json[r].len, err, errlen);
        free(p);
    }
    for (int r = 0; r < N; r++) ChromeJson_free(&json[r]);
    free(json);
    free(ready);
    free(rr);
    free(free_at);
    free(prev_end);
    free(end);
    free(start);
    free(load);
    Schedule_free(sch);
    if (events_out) *events_out = events;
    return ok;
}
