/* A stand-in for an injected CUDA program (launcher tests): attaches to the ring set of
 * OVTRACE_SHM like libovtrace_inject.so does, pushes records from two threads, prints
 * the injection variables and exits with the status asked for.
 *   fake_target push N STATUS   N records per thread, then exit(STATUS)
 *   fake_target sleep           wait to be signalled */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/ring/ring.h"

static RingSet *set;
static long n_per_thread;

static void *producer(void *arg) {
    long t = (long)arg;
    char name[32];
    snprintf(name, sizeof name, "fake kernel %ld", t);
    uint32_t id = NameTable_intern_cstr(RingSet_names(set), name);
    for (long i = 0; i < n_per_thread; i++) {
        RingRecord r;
        memset(&r, 0, sizeof r);
        r.kind = RING_KIND_KERNEL;
        r.ts_ns = 1000 + i;
        r.dur_ns = 1;
        r.device = 0;
        r.stream = 7 + t;
        r.arg = (uint64_t)i;
        r.spare = (uint32_t)t;
        r.name_id = id;
        r.pid = (uint32_t)getpid();
        while (!RingSet_push(set, &r)) usleep(100); /* the test wants no loss */
    }
    return NULL;
}

int main(int argc, char **argv) {
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    printf("CUDA_INJECTION64_PATH=%s\n", inj ? inj : "(unset)");
    printf("OVTRACE_SHM=%s\n", getenv("OVTRACE_SHM") ? "set" : "(unset)");
    const char *nvtx = getenv("NVTX_INJECTION64_PATH");
    printf("NVTX_INJECTION64_PATH=%s\n", nvtx ? nvtx : "(unset)");
    fflush(stdout);
    if (argc >= 2 && !strcmp(argv[1], "sleep")) {
        for (;;) pause();
    }
    if (argc < 4 || strcmp(argv[1], "push") != 0) {
        fprintf(stderr, "usage: fake_target push N STATUS | sleep\n");
        return 2;
    }
    set = RingSet_attach_env();
    if (!set) {
        fprintf(stderr, "fake_target: cannot attach to OVTRACE_SHM\n");
        return 99;
    }
    n_per_thread = atol(argv[2]);
    pthread_t th[2];
    for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, producer, (void *)t);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    return atoi(argv[3]);
}
