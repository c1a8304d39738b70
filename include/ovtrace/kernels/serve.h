/* Serving with dynamic or fixed batching: the ONE schedule logic the
 * simulator (live/serve_sim.c) and the CUDA workload (kernels/workload.cu, --mode
 * serve) share. Pure C, no clock: callers pass the time.
 *
 * Requests arrive as a Poisson process (rate per second) into a FIFO queue; each
 * carries a prompt (prompt_tokens of KV) and generates out_tokens tokens (uniform in
 * 1 .. 2*mean-1), one per decode step it is part of. A step runs the MoE decode
 * schedule on the active requests (its batch) and each active request generates one
 * token; a request is done after its last token.
 *
 *  - fixed (the baseline, static batching): waits until fixed batch requests are queued
 *    (or the oldest has waited max_wait), runs them together until the last one is
 *    done, and only then takes the next batch;
 *  - dynamic (continuous batching): before every step admits queued requests while the
 *    batch stays within max_batch, the KV/activation memory reserved for the batch
 *    (prompt + max output tokens of KV, plus activations, per request) fits under the
 *    memory cap, and, when the last step's GPU utilisation reached util_target, only
 *    while the queue is longer than the batch (a saturated GPU gains no throughput
 *    from a bigger batch, only latency); runs as soon as min_batch requests are there
 *    (or the oldest waited max_wait).
 * Both reserve memory the same way, so "the same memory cap" allows the same number of
 * requests in flight: the fixed batch is min(max_batch, requests that fit). */
#ifndef OVTRACE_SERVE_H
#define OVTRACE_SERVE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { SERVE_DYNAMIC, SERVE_FIXED } ServeBatching;

typedef struct {
    ServeBatching batching;
    double rate;               /* requests per second (Poisson arrivals) */
    int min_batch, max_batch;  /* requests per step */
    int prompt_tokens;         /* KV tokens a request brings */
    int out_tokens;            /* mean tokens generated per request */
    double kv_bytes_per_token; /* KV cache per token */
    double act_bytes_per_req;  /* activations per request in a step */
    double weight_bytes;       /* model weights resident on the GPU */
    double mem_cap;            /* bytes the weights, KV and activations may use */
    double util_target;        /* dynamic: GPU utilisation (0..1) above which the batch grows only with the queue */
    int64_t max_wait_ns;       /* longest wait for a batch to fill (fixed) or for min_batch (dynamic) */
    uint64_t seed;
} ServeParams;

void ServeParams_default(ServeParams *p);
bool ServeParams_validate(const ServeParams *p, char *err, size_t errlen);
/* "dynamic" | "fixed" -> batching; -1 if unknown. */
int ServeBatching_parse(const char *s);
const char *ServeBatching_name(ServeBatching b);
/* Memory reserved for one request in flight (KV of prompt + max output, activations). */
double ServeParams_reservePerRequest(const ServeParams *p);
/* Requests in flight the memory cap allows (>= 0). */
int ServeParams_memLimit(const ServeParams *p);
/* The fixed baseline's batch: min(max_batch, ServeParams_memLimit). */
int ServeParams_fixedBatch(const ServeParams *p);

typedef struct {
    int64_t arrive, start, done; /* start: its first step; done: -1 until its last token */
    int out_tokens, generated;
} ServeRequest;

typedef struct {
    ServeParams p;
    uint64_t rng;
    int64_t next_arrival;
    ServeRequest *req; /* every request that arrived, in arrival order */
    size_t n_req, cap_req;
    size_t q_head;     /* queue: req[q_head .. n_req) (admitted in arrival order) */
    uint32_t *active;  /* indices into req */
    size_t n_active, cap_active;
    double reserved;   /* memory reserved by the active requests */
    double util_last;
    size_t done_count;
    uint64_t tokens;   /* generated so far */
} ServeState;

void Serve_init(ServeState *s, const ServeParams *p);
void Serve_free(ServeState *s);
/* Takes the arrivals up to now into the queue and decides: returns the batch to run a
 * step with now (> 0: the active requests), or 0 with *wait_until set to when to ask
 * again (the next arrival, or the end of a wait for the batch to fill). */
int Serve_plan(ServeState *s, int64_t now, int64_t *wait_until);
/* The step [t0, t1) ran with the active requests: each generated a token; those done
 * leave (done = t1; the callback, if any, sees each). util: the step's GPU utilisation. */
typedef void (*ServeDoneFn)(const ServeRequest *r, void *ctx);
void Serve_stepDone(ServeState *s, int64_t t0, int64_t t1, double util, ServeDoneFn fn, void *ctx);
/* Bytes in use: weights + KV of the active requests (prompt + generated) + activations. */
double Serve_memoryInUse(const ServeState *s);
size_t Serve_queueLength(const ServeState *s);

#endif
