/* Multi-rank simulation written to per-rank trace files (include/ovtrace/live/simranks.h). */
#include "ovtrace/live/simranks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/file.h"
#include "ovtrace/base/zwriter.h"
#include "ovtrace/write/export.h"
#include "ovtrace/kernels/rng.h"


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

/* Writes text (n bytes) to path, compressed by extension, via a temp file and rename. */
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
    }
    size_t tl = strlen(path) + 16;
    char *tmp = xmalloc(tl);
    snprintf(tmp, tl, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(tmp);
        free(out.p);
        return false;
    }
    fchmod(fd, 0644); /* mkstemp's 0600 is not what a recording should have */
    bool ok = comp == ZCOMP_PLAIN ? File_writeAll(fd, text, n, -1) : File_writeAll(fd, out.p, out.len, -1);
    if (close(fd) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    free(out.p);
    return ok;
}

static void put_us(FILE *f, int64_t ns) { /* exact: integer us and three decimals */
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
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
    char **text = xcalloc((size_t)N, sizeof *text);
    size_t *text_n = xcalloc((size_t)N, sizeof *text_n);
    FILE **f = xcalloc((size_t)N, sizeof *f);
    bool ok = true;
    uint64_t events = 0;
    int gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 8;
    for (int r = 0; r < N && ok; r++) {
        f[r] = xopen_memstream(&text[r], &text_n[r]);
        char pj[1024];
        ScheduleParams_json(&c->params, pj, sizeof pj);
        fprintf(f[r],
                "{\n\"schemaVersion\": 1,\n\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n"
                "\"ovtrace\": {\"simulated\": true, \"source\": \"simulator (ranks)\", \"params\": %s,\n"
                " \"ranks\": {\"ranks\": %d, \"imbalance\": %g, \"jitter\": %g, \"seed\": %llu, \"clock_skew_ns\": %lld,"
                " \"load\": %.6f}},\n\"traceEvents\": [\n",
                r, N, pj, N, c->imbalance, c->jitter, (unsigned long long)c->seed, (long long)c->clock_skew_ns, load[r]);
        int dev = r % gpn;
        fprintf(f[r], "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"rank %d GPU %d (SIMULATED)\"}}",
                dev, r, dev);
        for (int s = 0; s < sch->n_streams; s++)
            fprintf(f[r], ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %lld, \"args\": {\"name\": \"%s\"}}",
                    dev, (long long)sch->streams[s].id, sch->streams[s].name);
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
                bool copy = op->kind == SCHED_OP_COPY;
                fprintf(f[r], ",\n{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %lld, \"ts\": ",
                        copy ? "gpu_memcpy" : "kernel", op->name, r % gpn, (long long)sch->streams[op->stream].id);
                put_us(f[r], off + start[at]);
                fputs(", \"dur\": ", f[r]);
                put_us(f[r], end[at] - start[at]);
                fprintf(f[r], ", \"args\": {\"device\": %d, \"stream\": %lld, \"step\": %llu, \"layer\": %d, \"mb\": %d}}",
                        r % gpn, (long long)sch->streams[op->stream].id, (unsigned long long)k, op->layer, op->mb);
                events++;
            }
        }
        int64_t *x = prev_end;
        prev_end = end;
        end = x;
    }
    for (int r = 0; r < N; r++) {
        if (!f[r]) continue;
        fputs("\n]\n}\n", f[r]);
        if (fclose(f[r]) != 0) ok = false;
    }
    for (int r = 0; r < N && ok; r++) {
        char *p = SimRanks_path(out_path, r);
        ok = write_file(p, text[r], text_n[r], err, errlen);
        free(p);
    }
    for (int r = 0; r < N; r++) free(text[r]);
    free(text);
    free(text_n);
    free(f);
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
