/* Simulated MoE source: runs the Schedule (include/ovtrace/kernels/schedule.h) on a cost
 * model with jitter and emits the resulting GPU and launch events in real time.
 *
 * Discrete-event simulation, nothing beyond the schedule:
 *  - an op starts when it is at the head of its stream, its launch has ended and all
 *    its deps are done (CUDA stream + event semantics);
 *  - work comes from Schedule_opWorkNs (FLOPs at the assumed TFLOP/s or bytes over
 *    HBM, bytes over the link) times (1 + jitter);
 *  - prefill: a running comm kernel holds comm_sms of total_sms, running compute
 *    progresses at (total - held) / total (shared equally if several run at once);
 *    decode: copies hold no SMs; serial: a single stream;
 *  - the host launches a step (one cudaLaunchKernel / cudaMemcpyAsync per op, with
 *    correlation ids) once the step two back has finished, so at most two steps are
 *    in flight and steps run back to back.
 * Events are pushed when they end (like CUPTI's completed records), paced against
 * CLOCK_MONOTONIC so that they appear at the wall time their timestamps say. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "live_internal.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/kernels/rng.h"
#include "serve_sim.h"

void SimConfig_default(SimConfig *c, SchedMode mode) {
    memset(c, 0, sizeof *c);
    ScheduleParams_default(&c->params, mode);
    c->seed = 1;
    c->jitter = 0.05;
    c->speed = 1.0;
}

#define SLOTS 4 /* step states kept: k-2 .. k+1 */

typedef struct {
    int64_t key; /* end time (sim ns) */
    RingRecord rec;
    const char *name;
} Pending;

typedef struct {
    const Schedule *sch;
    SimConfig cfg;
    /* output */
    RingSet *set;
    SimEventFn fn;
    void *ctx;
    uint32_t *name_ids;      /* per op (ring name ids) */
    uint32_t launch_name_id, copy_name_id;
    /* per stream op lists */
    uint32_t *sops[SCHED_MAX_STREAMS];
    uint32_t n_sops[SCHED_MAX_STREAMS];
    uint64_t head_step[SCHED_MAX_STREAMS];
    uint32_t head_pos[SCHED_MAX_STREAMS];
    int32_t running_on[SCHED_MAX_STREAMS]; /* op index running on the stream, -1 */
    /* per step slot */
    struct {
        uint64_t step;
        bool launched;
        uint32_t n_done;
        int64_t *launch_end, *start, *end;
        double *remaining;
        uint32_t *corr;
    } slot[SLOTS];
    uint64_t steps_launched, steps_done;
    int64_t now, host_t;
    uint32_t next_corr;
    uint64_t rng;
    int64_t base_ns;
    uint32_t pid;
    int64_t tid;
    /* pending emissions, min-heap on key */
    Pending *heap;
    size_t n_heap, cap_heap;
    /* pacing */
    int64_t wall0;
    atomic_bool *stop;
    atomic_uint_fast64_t *steps_out; /* progress for other threads */
} Sim;

static uint64_t rng_next(Sim *S) { return Rng_next(&S->rng); }

static double jitter(Sim *S) {
    double u = (double)(rng_next(S) >> 11) / 9007199254740992.0; /* [0, 1) */
    return 1.0 + S->cfg.jitter * (2.0 * u - 1.0);
}

static void heap_push(Sim *S, int64_t key, const RingRecord *rec, const char *name) {
    GROW(S->heap, S->cap_heap, S->n_heap + 1);
    size_t i = S->n_heap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (S->heap[p].key <= key) break;
        S->heap[i] = S->heap[p];
        i = p;
    }
    S->heap[i] = (Pending){key, *rec, name};
}

static Pending heap_pop(Sim *S) {
    Pending top = S->heap[0], last = S->heap[--S->n_heap];
    size_t i = 0, n = S->n_heap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && S->heap[c + 1].key < S->heap[c].key) c++;
        if (S->heap[c].key >= last.key) break;
        S->heap[i] = S->heap[c];
        i = c;
    }
    if (n) S->heap[i] = last;
    return top;
}

static bool stopping(const Sim *S) { return S->stop && atomic_load_explicit(S->stop, memory_order_relaxed); }

/* Waits until the wall clock reaches simulated time t (paced mode). False if stopped. */
static bool pace(Sim *S, int64_t t) {
    if (S->cfg.speed <= 0) return !stopping(S);
    int64_t target = S->wall0 + (int64_t)((double)t / S->cfg.speed);
    for (;;) {
        if (stopping(S)) return false;
        int64_t now = Clock_monotonicNs();
        if (now >= target) return true;
        int64_t d = target - now;
        if (d > 20000000) d = 20000000; /* wake up to notice stop */
        struct timespec ts = {(time_t)(d / 1000000000), (long)(d % 1000000000)};
        nanosleep(&ts, NULL);
    }
}

static void emit(Sim *S, const Pending *p) {
    if (S->fn) S->fn(&p->rec, p->name, S->ctx);
    else RingSet_push(S->set, &p->rec);
}

/* Emits every pending event that ended by `upto`. False if stopped. */
static bool flush(Sim *S, int64_t upto) {
    while (S->n_heap && S->heap[0].key <= upto) {
        if (!pace(S, S->heap[0].key)) return false;
        Pending p = heap_pop(S);
        emit(S, &p);
    }
    return true;
}

#define SLOT(k) (&S->slot[(k) % SLOTS])

static bool dep_done(Sim *S, uint64_t step, const SchedDep *d) {
    if (d->flags & SCHED_DEP_PREV_STEP) {
        if (step == 0) return true;
        step--;
    }
    return SLOT(step)->end[d->op] >= 0 && SLOT(step)->end[d->op] <= S->now;
}

static void launch_step(Sim *S) {
    uint64_t k = S->steps_launched++;
    size_t n = S->sch->n_ops;
    __typeof__(S->slot[0]) *sl = SLOT(k);
    sl->step = k;
    sl->launched = true;
    sl->n_done = 0;
    int64_t t = S->host_t > S->now ? S->host_t : S->now;
    double launch = S->sch->p.launch_us * 1e3 * 0.8;
    for (size_t i = 0; i < n; i++) {
        const SchedOp *op = &S->sch->ops[i];
        int64_t dur = (int64_t)(launch * jitter(S));
        if (dur < 1000) dur = 1000;
        sl->launch_end[i] = t + dur;
        sl->start[i] = sl->end[i] = -1;
        sl->remaining[i] = Schedule_opWorkNs(S->sch, op) * jitter(S);
        sl->corr[i] = S->next_corr++;
        if (S->next_corr == 0) S->next_corr = 1;
        RingRecord r = {0};
        r.ts_ns = S->base_ns + t;
        r.dur_ns = dur;
        r.stream = -1;
        r.device = -1;
        r.tid = S->tid;
        r.pid = S->pid;
        r.correlation = sl->corr[i];
        r.kind = RING_KIND_RUNTIME;
        bool copy = op->kind == SCHED_OP_COPY;
        r.name_id = copy ? S->copy_name_id : S->launch_name_id;
        r.flags = copy ? RING_F_ASYNC : 0;
        heap_push(S, t + dur, &r, copy ? "cudaMemcpyAsync" : "cudaLaunchKernel");
        t += dur + 500;
    }
    S->host_t = t;
}

static void finish_op(Sim *S, int stream, int64_t t) {
    uint32_t i = (uint32_t)S->running_on[stream];
    uint64_t k = S->head_step[stream];
    __typeof__(S->slot[0]) *sl = SLOT(k);
    const SchedOp *op = &S->sch->ops[i];
    sl->end[i] = t;
    S->running_on[stream] = -1;
    if (++S->head_pos[stream] == S->n_sops[stream]) {
        S->head_pos[stream] = 0;
        S->head_step[stream]++;
    }
    if (++sl->n_done == S->sch->n_ops) {
        S->steps_done++;
        if (S->steps_out) atomic_store_explicit(S->steps_out, S->steps_done, memory_order_relaxed);
    }
    RingRecord r = {0};
    r.ts_ns = S->base_ns + sl->start[i];
    r.dur_ns = t - sl->start[i];
    r.stream = S->sch->streams[op->stream].id;
    r.device = S->cfg.device;
    r.tid = S->tid;
    r.pid = S->pid;
    r.correlation = sl->corr[i];
    r.name_id = S->name_ids ? S->name_ids[i] : 0;
    if (op->kind == SCHED_OP_COPY) {
        r.kind = RING_KIND_MEMCPY;
        r.flags = RING_F_MEMCPY_P2P;
        r.arg = (uint64_t)op->link_bytes;
    } else {
        r.kind = RING_KIND_KERNEL;
    }
    heap_push(S, t, &r, op->name);
}

/* One simulation loop; returns when max_steps are done or stop is set. */
static void sim_loop(Sim *S) {
    const Schedule *sch = S->sch;
    uint64_t max_steps = S->cfg.max_steps;
    for (;;) {
        /* host: launch steps while at most two are in flight */
        while ((!max_steps || S->steps_launched < max_steps) &&
               (S->steps_launched < 2 || SLOT(S->steps_launched - 2)->n_done == sch->n_ops) &&
               S->steps_launched < S->steps_done + 2)
            launch_step(S);
        /* start every op that can start now */
        bool changed = true;
        int64_t next_launch = INT64_MAX;
        while (changed) {
            changed = false;
            for (int s = 0; s < sch->n_streams; s++) {
                if (S->running_on[s] >= 0 || S->head_step[s] >= S->steps_launched) continue;
                uint64_t k = S->head_step[s];
                uint32_t i = S->sops[s][S->head_pos[s]];
                __typeof__(S->slot[0]) *sl = SLOT(k);
                if (sl->launch_end[i] > S->now) {
                    if (sl->launch_end[i] < next_launch) next_launch = sl->launch_end[i];
                    continue;
                }
                const SchedOp *op = &sch->ops[i];
                bool ready = true;
                for (uint32_t d = 0; d < op->n_deps && ready; d++) ready = dep_done(S, k, &op->deps[d]);
                if (!ready) continue;
                sl->start[i] = S->now;
                S->running_on[s] = (int32_t)i;
                changed = true;
            }
        }
        /* rates */
        int held = 0, n_compute = 0;
        for (int s = 0; s < sch->n_streams; s++) {
            if (S->running_on[s] < 0) continue;
            const SchedOp *op = &sch->ops[S->running_on[s]];
            if (op->kind == SCHED_OP_COMPUTE) n_compute++;
            else if (op->kind == SCHED_OP_COMM_KERNEL) held += op->sms;
        }
        int avail = sch->p.total_sms - held;
        if (avail < 1) avail = 1;
        double crate = n_compute ? (double)avail / sch->p.total_sms / n_compute : 0;
        double rate[SCHED_MAX_STREAMS];
        int64_t t_next = next_launch;
        for (int s = 0; s < sch->n_streams; s++) {
            if (S->running_on[s] < 0) continue;
            uint32_t i = (uint32_t)S->running_on[s];
            rate[s] = sch->ops[i].kind == SCHED_OP_COMPUTE ? crate : 1.0;
            double rem = SLOT(S->head_step[s])->remaining[i];
            int64_t fin = S->now + (int64_t)ceil(rem / rate[s]);
            if (fin <= S->now) fin = S->now + 1;
            if (fin < t_next) t_next = fin;
        }
        if (t_next == INT64_MAX) {
            /* nothing running and nothing to launch: finished */
            flush(S, INT64_MAX);
            return;
        }
        int64_t dt = t_next - S->now;
        S->now = t_next;
        for (int s = 0; s < sch->n_streams; s++) {
            if (S->running_on[s] < 0) continue;
            uint32_t i = (uint32_t)S->running_on[s];
            double *rem = &SLOT(S->head_step[s])->remaining[i];
            *rem -= rate[s] * (double)dt;
            if (*rem <= 0.5) finish_op(S, s, S->now);
        }
        if (!flush(S, S->now)) return;
    }
}

/* ---- serving mode (live/serve_sim.c): its events go through this simulator's heap ---- */

static void serve_push(void *ctx, int64_t key, const RingRecord *rec, const char *name) {
    Sim *S = ctx;
    RingRecord r = *rec;
    if (S->set && name) r.name_id = NameTable_intern_cstr(RingSet_names(S->set), name);
    heap_push(S, key, &r, name);
}

static bool serve_flush(void *ctx, int64_t upto) { return flush(ctx, upto); }

static void serve_step(void *ctx) {
    Sim *S = ctx;
    S->steps_done++;
    if (S->steps_out) atomic_store_explicit(S->steps_out, S->steps_done, memory_order_relaxed);
}

static void run_loop(Sim *S) {
    if (!S->cfg.serve) {
        sim_loop(S);
        return;
    }
    ServeSink k = {serve_push, serve_flush, serve_step, S, S->base_ns, S->pid};
    ServeSim_loop(&S->cfg, &k);
}

static bool sim_init(Sim *S, const SimConfig *cfg, char *err, size_t errlen) {
    memset(S, 0, sizeof *S);
    S->cfg = *cfg;
    if (cfg->serve && !ServeParams_validate(&cfg->serve_params, err, errlen)) return false;
    S->sch = Schedule_build(&cfg->params, err, errlen);
    if (!S->sch) return false;
    const Schedule *sch = S->sch;
    size_t n = sch->n_ops;
    for (int s = 0; s < sch->n_streams; s++) {
        S->sops[s] = xcalloc(n, sizeof(uint32_t));
        S->running_on[s] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        int s = sch->ops[i].stream;
        S->sops[s][S->n_sops[s]++] = (uint32_t)i;
    }
    for (int s = 0; s < sch->n_streams; s++)
        if (S->n_sops[s] == 0) S->head_step[s] = UINT64_MAX; /* unused stream */
    for (int k = 0; k < SLOTS; k++) {
        S->slot[k].launch_end = xcalloc(n, sizeof(int64_t));
        S->slot[k].start = xcalloc(n, sizeof(int64_t));
        S->slot[k].end = xcalloc(n, sizeof(int64_t));
        S->slot[k].remaining = xcalloc(n, sizeof(double));
        S->slot[k].corr = xcalloc(n, sizeof(uint32_t));
        for (size_t i = 0; i < n; i++) S->slot[k].end[i] = -1;
    }
    S->rng = cfg->seed ? cfg->seed * 0x9E3779B97F4A7C15ULL : 0x9E3779B97F4A7C15ULL;
    S->next_corr = 1;
    S->pid = (uint32_t)getpid();
    S->tid = (int64_t)syscall(SYS_gettid);
    S->base_ns = cfg->start_ns ? cfg->start_ns : Clock_realtimeNs();
    S->wall0 = Clock_monotonicNs();
    return true;
}

static void sim_fini(Sim *S) {
    for (int s = 0; s < SCHED_MAX_STREAMS; s++) free(S->sops[s]);
    for (int k = 0; k < SLOTS; k++) {
        free(S->slot[k].launch_end);
        free(S->slot[k].start);
        free(S->slot[k].end);
        free(S->slot[k].remaining);
        free(S->slot[k].corr);
    }
    free(S->heap);
    free(S->name_ids);
    Schedule_free((Schedule *)S->sch);
}

bool Simulator_run(const SimConfig *cfg, uint64_t steps, SimEventFn fn, void *ctx, char *err, size_t errlen) {
    Sim S;
    SimConfig c = *cfg;
    c.speed = 0;
    c.max_steps = steps ? steps : 1;
    if (!sim_init(&S, &c, err, errlen)) return false;
    S.fn = fn;
    S.ctx = ctx;
    run_loop(&S);
    sim_fini(&S);
    return true;
}

/* ---- threaded source ---------------------------------------------------------------- */

struct Simulator {
    Sim S;
    pthread_t thread;
    bool running;
    atomic_bool stop;
    atomic_bool finished;
    atomic_uint_fast64_t steps;
};

static void *sim_thread(void *arg) {
    Simulator *sim = arg;
    Sim *S = &sim->S;
    S->tid = (int64_t)syscall(SYS_gettid);
    S->wall0 = Clock_monotonicNs();
    if (!sim->S.cfg.start_ns) S->base_ns = Clock_realtimeNs();
    run_loop(S);
    atomic_store(&sim->finished, !stopping(S));
    return NULL;
}

Simulator *Simulator_start(const SimConfig *cfg, RingSet *set, char *err, size_t errlen) {
    Simulator *sim = xcalloc(1, sizeof *sim);
    if (!sim_init(&sim->S, cfg, err, errlen)) {
        free(sim);
        return NULL;
    }
    Sim *S = &sim->S;
    S->set = set;
    NameTable *nt = RingSet_names(set);
    S->name_ids = xcalloc(S->sch->n_ops, sizeof(uint32_t));
    for (size_t i = 0; i < S->sch->n_ops; i++) S->name_ids[i] = NameTable_intern_cstr(nt, S->sch->ops[i].name);
    S->launch_name_id = NameTable_intern_cstr(nt, "cudaLaunchKernel");
    S->copy_name_id = NameTable_intern_cstr(nt, "cudaMemcpyAsync");
    S->stop = &sim->stop;
    S->steps_out = &sim->steps;
    atomic_init(&sim->stop, false);
    atomic_init(&sim->steps, 0);
    atomic_init(&sim->finished, false);
    int rc = pthread_create(&sim->thread, NULL, sim_thread, sim);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the simulator thread: %s", strerror(rc));
        sim_fini(S);
        free(sim);
        return NULL;
    }
    sim->running = true;
    return sim;
}

void Simulator_stop(Simulator *sim) {
    if (!sim || !sim->running) return;
    atomic_store(&sim->stop, true);
    pthread_join(sim->thread, NULL);
    sim->running = false;
}

void Simulator_free(Simulator *sim) {
    if (!sim) return;
    Simulator_stop(sim);
    sim_fini(&sim->S);
    free(sim);
}

bool Simulator_finished(const Simulator *sim) { return atomic_load(&((Simulator *)sim)->finished); }
uint64_t Simulator_steps(const Simulator *sim) { return atomic_load(&((Simulator *)sim)->steps); }

void Simulator_describe(const SimConfig *cfg, LiveStore *store) {
    char pj[1024], sj[256];
    ScheduleParams_json(&cfg->params, pj, sizeof pj);
    LiveStore_setMetaJson(store, "params", pj);
    snprintf(sj, sizeof sj, "{\"seed\": %llu, \"jitter\": %g, \"speed\": %g, \"device\": %d}",
             (unsigned long long)cfg->seed, cfg->jitter, cfg->speed, cfg->device);
    LiveStore_setMetaJson(store, "simulator", sj);
    if (cfg->serve) { /* the serving lanes (serve_sim.c): CPU threads of this process */
        char sv[320];
        const ServeParams *sp = &cfg->serve_params;
        snprintf(sv, sizeof sv,
                 "{\"batching\": \"%s\", \"rate\": %g, \"min_batch\": %d, \"max_batch\": %d, \"mem_cap\": %.0f, "
                 "\"prompt_tokens\": %d, \"out_tokens\": %d}",
                 ServeBatching_name(sp->batching), sp->rate, sp->min_batch, sp->max_batch, sp->mem_cap, sp->prompt_tokens,
                 sp->out_tokens);
        LiveStore_setMetaJson(store, "serve", sv);
        int64_t pid = (int64_t)getpid();
        LiveStore_setThreadName(store, pid, SERVE_TID_COUNTERS, "serve counters");
        LiveStore_setThreadName(store, pid, SERVE_TID_STEPS, "serve steps");
        LiveStore_setThreadName(store, pid, SERVE_TID_REQUESTS, "serve requests");
    }
    Schedule *sch = Schedule_build(&cfg->params, NULL, 0);
    if (!sch) return;
    for (int i = 0; i < sch->n_streams; i++)
        LiveStore_setStreamName(store, cfg->device, sch->streams[i].id, sch->streams[i].name);
    Schedule_free(sch);
}
