/* ovtrace-gpucheck: an independent consumer of the live transport, for the GPU run
 * (tests/gpu/run.sh) where the ovtrace CLI may not build. It uses only ring/ and
 * collector/launch.c: starts a program with a shared ring set (injected with -i LIB, or
 * a program that collects itself, e.g. ovtrace-workload --collect), drains it, and
 * prints one line "GPUCHECK {json}": record counts by kind, kernels by name (count, mean
 * duration), per device the compute / comm / overlap time and overlap ratio (its own
 * classification: kernels named dpsk::ep:: or nccl*, and peer copies, are comm; other
 * kernels compute), drops, and how far the newest event ends before now (clock sanity).
 *
 *   ovtrace-gpucheck [-i LIB] [--stop-after SEC] [--assume-driver] -- PROG ARGS
 * --stop-after SEC: after SEC seconds stop the program as ovtrace does (the ring set's
 * stop handshake, at most 2 s, then SIGINT, 5 s, SIGKILL) and report the handshake:
 * collectors, acknowledgements, events they sent by then and events drained in all.
 * --assume-driver: no CUDA driver check (tests without a GPU only).
 * Exit status: the program's (0 after a requested stop that it survived cleanly). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ovtrace/collector/launch.h"
#include "ovtrace/ring/ring.h"

#define MAX_DEV 64
#define MAX_NAMES 256

typedef struct {
    int64_t s, e;
    int dev;
    int comm;
} Iv;

typedef struct {
    char name[128];
    uint64_t n;
    int64_t total_ns;
} Kern;

static RingSet *set;
static Iv *ivs;
static size_t n_iv, cap_iv;
static uint64_t kinds[RING_KIND__COUNT], drained, bad_gpu, cupti_dropped;
static int64_t newest_end;
static Kern kerns[MAX_NAMES];
static int n_kerns;

static int64_t now_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool is_comm_name(const char *nm) {
    return strstr(nm, "dpsk::ep::") || strstr(nm, "nccl") || strstr(nm, "NCCL");
}

static void add_kernel(const char *nm, int64_t dur) {
    int k = 0;
    while (k < n_kerns && strncmp(kerns[k].name, nm, sizeof kerns[k].name - 1) != 0) k++;
    if (k == n_kerns) {
        if (n_kerns == MAX_NAMES) return;
        snprintf(kerns[n_kerns++].name, sizeof kerns[0].name, "%s", nm);
    }
    kerns[k].n++;
    kerns[k].total_ns += dur;
}

static void on_record(const RingRecord *r, uint32_t ring, void *ctx) {
    (void)ring, (void)ctx;
    drained++;
    if (r->kind < RING_KIND__COUNT) kinds[r->kind]++;
    const char *nm = NameTable_get(RingSet_names(set), r->name_id, NULL);
    if (!nm) nm = "";
    if (r->kind == RING_KIND_COUNTER && !strcmp(nm, "cupti dropped records")) {
        double v;
        memcpy(&v, &r->arg, sizeof v);
        if (v > (double)cupti_dropped) cupti_dropped = (uint64_t)v;
        return;
    }
    if (r->ts_ns + r->dur_ns > newest_end) newest_end = r->ts_ns + r->dur_ns;
    if (r->kind != RING_KIND_KERNEL && r->kind != RING_KIND_MEMCPY) return;
    if (r->dur_ns < 0 || r->device < 0 || r->device >= MAX_DEV) {
        bad_gpu++;
        return;
    }
    if (r->kind == RING_KIND_KERNEL) add_kernel(nm, r->dur_ns);
    bool comm = r->kind == RING_KIND_KERNEL ? is_comm_name(nm) : (r->flags & RING_F_MEMCPY_P2P) != 0;
    if (r->kind == RING_KIND_MEMCPY && !comm) return; /* memory traffic: neither side */
    if (n_iv == cap_iv) {
        cap_iv = cap_iv ? 2 * cap_iv : 65536;
        ivs = realloc(ivs, cap_iv * sizeof *ivs);
        if (!ivs) abort();
    }
    ivs[n_iv++] = (Iv){r->ts_ns, r->ts_ns + r->dur_ns, r->device, comm};
}

static int by_start(const void *a, const void *b) {
    const Iv *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* Union of one device's intervals of one class, sorted (ivs sorted by start). */
static size_t merged(int dev, int comm, Iv *out) {
    size_t n = 0;
    for (size_t i = 0; i < n_iv; i++) {
        if (ivs[i].dev != dev || ivs[i].comm != comm) continue;
        if (n && ivs[i].s <= out[n - 1].e) {
            if (ivs[i].e > out[n - 1].e) out[n - 1].e = ivs[i].e;
        } else out[n++] = ivs[i];
    }
    return n;
}

static int64_t length(const Iv *u, size_t n) {
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) t += u[i].e - u[i].s;
    return t;
}

static void print_devices(void) {
    qsort(ivs, n_iv, sizeof *ivs, by_start);
    Iv *a = malloc((n_iv + 1) * sizeof *a), *b = malloc((n_iv + 1) * sizeof *b);
    if (!a || !b) abort();
    bool first = true;
    for (int d = 0; d < MAX_DEV; d++) {
        size_t na = merged(d, 0, a), nb = merged(d, 1, b);
        if (!na && !nb) continue;
        int64_t ov = 0;
        for (size_t i = 0, j = 0; i < na && j < nb;) {
            int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s, e = a[i].e < b[j].e ? a[i].e : b[j].e;
            if (e > s) ov += e - s;
            if (a[i].e < b[j].e) i++;
            else j++;
        }
        int64_t comm = length(b, nb);
        printf("%s{\"device\": %d, \"compute_ns\": %lld, \"comm_ns\": %lld, \"overlap_ns\": %lld, \"overlap_ratio\": ",
               first ? "" : ", ", d, (long long)length(a, na), (long long)comm, (long long)ov);
        if (comm) printf("%.4f}", (double)ov / (double)comm);
        else printf("null}");
        first = false;
    }
    free(a);
    free(b);
}

static void json_name(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20 || c > 0x7e) printf("\\u%04x", c < 0x80 ? c : '?');
        else putchar(c);
    }
    putchar('"');
}

static void drain_all(void) {
    while (RingSet_drain(set, on_record, NULL, 0) > 0) {
    }
}

int main(int argc, char **argv) {
    const char *lib = NULL;
    double stop_after = -1;
    bool assume_driver = false;
    int a = 1;
    for (; a < argc && strcmp(argv[a], "--") != 0; a++) {
        if (!strcmp(argv[a], "-i") && a + 1 < argc) lib = argv[++a];
        else if (!strcmp(argv[a], "--stop-after") && a + 1 < argc) stop_after = atof(argv[++a]);
        else if (!strcmp(argv[a], "--assume-driver")) assume_driver = true;
        else break;
    }
    if (a >= argc || strcmp(argv[a], "--") != 0 || a + 1 >= argc) {
        fprintf(stderr, "usage: ovtrace-gpucheck [-i LIB] [--stop-after SEC] [--assume-driver] -- PROG ARGS\n");
        return 2;
    }
    RingSetConfig rc = {64, 1u << 18, 0, 0};
    set = RingSet_create_shared(&rc);
    if (!set) {
        perror("ovtrace-gpucheck: ring set");
        return 1;
    }
    LaunchConfig lc;
    LaunchConfig_default(&lc);
    lc.argv = &argv[a + 1];
    lc.inject = lib != NULL;
    lc.inject_lib = lib;
    lc.check_driver = !assume_driver;
    char err[512];
    Launch *l = Launch_start(&lc, set, err, sizeof err);
    if (!l) {
        fprintf(stderr, "ovtrace-gpucheck: %s\n", err);
        return 1;
    }
    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    bool stopped = false;
    RingStopState st = {0};
    uint64_t drained_at_ack = 0;
    int64_t ack_ns = 0;
    while (!Launch_poll(l)) {
        if (!RingSet_drain(set, on_record, NULL, 0)) usleep(500);
        if (stop_after >= 0 && !stopped && now_ns(CLOCK_MONOTONIC) - t0 >= (int64_t)(stop_after * 1e9)) {
            stopped = true;
            int64_t w0 = now_ns(CLOCK_MONOTONIC);
            RingSet_requestStop(set);
            for (;;) {
                RingSet_drain(set, on_record, NULL, 0);
                st = RingSet_stopState(set);
                if (st.acks >= st.collectors || Launch_poll(l) || now_ns(CLOCK_MONOTONIC) - w0 > 2000000000) break;
                usleep(1000);
            }
            drain_all();
            drained_at_ack = drained;
            ack_ns = now_ns(CLOCK_MONOTONIC) - w0;
            if (!Launch_poll(l)) {
                Launch_signal(l, SIGINT);
                if (!Launch_wait(l, 5000000000LL)) {
                    Launch_signal(l, SIGKILL);
                    Launch_wait(l, -1);
                }
            }
        }
    }
    drain_all();
    int rc_prog = Launch_exitCode(l);
    char how[128];
    Launch_describe(l, how, sizeof how);
    printf("GPUCHECK {\"program_exit\": %d, \"ended\": ", rc_prog);
    json_name(how);
    printf(", \"records\": %llu, \"ring_drops\": %llu, \"cupti_dropped\": %llu, \"bad_gpu_records\": %llu",
           (unsigned long long)drained, (unsigned long long)RingSet_drops(set), (unsigned long long)cupti_dropped,
           (unsigned long long)bad_gpu);
    printf(", \"kinds\": {\"kernel\": %llu, \"memcpy\": %llu, \"memset\": %llu, \"sync\": %llu, \"runtime\": %llu, "
           "\"driver\": %llu, \"nvtx\": %llu, \"counter\": %llu}",
           (unsigned long long)kinds[RING_KIND_KERNEL], (unsigned long long)kinds[RING_KIND_MEMCPY],
           (unsigned long long)kinds[RING_KIND_MEMSET], (unsigned long long)kinds[RING_KIND_SYNC],
           (unsigned long long)kinds[RING_KIND_RUNTIME], (unsigned long long)kinds[RING_KIND_DRIVER],
           (unsigned long long)(kinds[RING_KIND_NVTX_RANGE] + kinds[RING_KIND_NVTX_MARKER]),
           (unsigned long long)kinds[RING_KIND_COUNTER]);
    printf(", \"newest_end_before_now_s\": ");
    if (newest_end) printf("%.3f", (double)(now_ns(CLOCK_REALTIME) - newest_end) / 1e9);
    else printf("null");
    if (stopped)
        printf(", \"stop\": {\"collectors\": %u, \"acknowledged\": %u, \"wait_ms\": %.1f, \"events_sent\": %llu, "
               "\"drained_at_ack\": %llu, \"drained\": %llu}",
               st.collectors, st.acks, (double)ack_ns / 1e6, (unsigned long long)st.events_sent,
               (unsigned long long)drained_at_ack, (unsigned long long)drained);
    printf(", \"devices\": [");
    print_devices();
    printf("], \"kernels\": [");
    for (int k = 0; k < n_kerns; k++) {
        printf("%s{\"name\": ", k ? ", " : "");
        json_name(kerns[k].name);
        printf(", \"count\": %llu, \"mean_us\": %.2f}", (unsigned long long)kerns[k].n,
               (double)kerns[k].total_ns / 1e3 / (double)kerns[k].n);
    }
    printf("]}\n");
    Launch_free(l);
    RingSet_free(set);
    free(ivs);
    if (stopped && rc_prog == 128 + SIGINT) return 0; /* ended by the stop, as asked */
    return rc_prog < 0 ? 1 : rc_prog;
}
