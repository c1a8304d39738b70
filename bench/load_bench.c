/* Load throughput and memory: load_bench [--threads N] FILE [JSON_BYTES] prints one row:
 * file, size, events, load s, MB/s of JSON (JSON_BYTES: the decompressed size for
 * .gz/.zst input), peak RSS, anon RSS, B/event, model B/event.
 * load_bench --cache [--repeat N] [--perturb] FILE: the snapshot cache instead, in a
 * temp cache directory: JSON load (cache off), snapshot save, snapshot file size, reopen
 * through the cache (Load_files: snapshot load + classification); each load N times
 * (default 5), best and median. A tiled trace (gen_trace) repeats itself, which zstd
 * exploits far better than it could a real trace: --perturb adds 12 random low bits to
 * every ts, dur and src and 6 to every corr before saving, for a realistic size.
 * --threads N: parser threads (LoadOptions.threads; default 0, one per core). */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ovtrace/read/load.h"
#include "ovtrace/read/snapshot.h"

static long status_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) sscanf(line + strlen(key), "%ld", &v);
    if (f) fclose(f);
    return v;
}

/* Peak anonymous memory during the load: VmHWM also counts the mapped input's page
 * cache, which is not ours to keep, so sample RssAnon every millisecond. */
static atomic_long g_peak_anon;
static atomic_bool g_sampling;

static void *sample_anon(void *arg) {
    (void)arg;
    while (atomic_load(&g_sampling)) {
        long v = status_kb("RssAnon:");
        if (v > atomic_load(&g_peak_anon)) atomic_store(&g_peak_anon, v);
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
    return NULL;
}

static int g_threads;                /* --threads */
static char g_cache_dir[PATH_MAX]; /* bench_cache's temp cache directory */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static Trace *timed_load(const char *path, int cache, double *s, char *log, size_t loglen) {
    char err[512];
    const char *paths[] = {path};
    FILE *m = log ? fmemopen(log, loglen, "w") : NULL;
    LoadOptions o = {.threads = g_threads,
                     .cache = cache,
                     .cache_opt = {g_cache_dir, 0},
                     .cache_sync = true,
                     .cache_log = m};
    double a = now_s();
    Trace *t = Load_files(paths, 1, &o, err, sizeof err);
    *s = now_s() - a;
    if (m) fclose(m);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    return t;
}

static int bench_cache(const char *path, int repeat, bool perturb) {
    char dir[] = "/tmp/ovtrace-bench-cache-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    if (!Snapshot_cacheDir(dir, NULL, g_cache_dir, sizeof g_cache_dir)) return 1;
    double *js = calloc((size_t)repeat, sizeof *js), *cs = calloc((size_t)repeat, sizeof *cs);
    size_t n_events = 0;
    for (int i = 0; i < repeat; i++) Trace_free(timed_load(path, -1, &js[i], NULL, 0));
    /* save: timed on its own, synchronously */
    const char *paths[] = {path};
    char cp[PATH_MAX], err[512];
    double s_json;
    Trace *t = timed_load(path, -1, &s_json, NULL, 0);
    n_events = t->n_events;
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; perturb && i < t->n_events; i++) {
        TraceEvent *e = &t->events[i];
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        e->ts += (int64_t)(x % 4096);
        if (e->kind != KIND_COUNTER) e->dur += (int64_t)((x >> 12) % 4096);
        e->src += (x >> 24) % 4096;
        e->corr += (uint32_t)((x >> 36) % 64);
    }
    if (!Snapshot_cachePath(g_cache_dir, paths, 1, cp, sizeof cp)) return 1;
    double a = now_s();
    if (!Snapshot_save(t, paths, 1, NULL, cp, 0, err, sizeof err)) {
        fprintf(stderr, "save: %s\n", err);
        return 1;
    }
    double save = now_s() - a;
    Trace_free(t);
    struct stat st;
    stat(cp, &st);
    for (int i = 0; i < repeat; i++) {
        char log[1024] = "";
        Trace_free(timed_load(path, 1, &cs[i], log, sizeof log));
        if (!strstr(log, "hit")) {
            fprintf(stderr, "expected a cache hit: %s\n", log);
            return 1;
        }
    }
    qsort(js, (size_t)repeat, sizeof *js, cmp_d);
    qsort(cs, (size_t)repeat, sizeof *cs, cmp_d);
    struct stat in;
    stat(path, &in);
    printf("%s\t%.1f MB\t%zu events\tJSON %.3f / %.3f s\tcache %.3f / %.3f s\t%.0fx / %.0fx\tsnapshot %.1f MB\t"
           "save %.3f s\n",
           path, (double)in.st_size / 1e6, n_events, js[0], js[repeat / 2], cs[0], cs[repeat / 2], js[0] / cs[0],
           js[repeat / 2] / cs[repeat / 2], (double)st.st_size / 1e6, save);
    unlink(cp);
    rmdir(strcat(dir, "/ovtrace"));
    dir[strlen(dir) - strlen("/ovtrace")] = '\0';
    rmdir(dir);
    free(js);
    free(cs);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "--threads")) {
        char *end;
        long n = strtol(argv[2], &end, 10);
        if (*end || n < 0 || n > 64) {
            fprintf(stderr, "load_bench: --threads needs 0 (one per core) to 64, got '%s'\n", argv[2]);
            return 2;
        }
        g_threads = (int)n;
        argc -= 2;
        argv += 2;
    }
    if (argc >= 3 && !strcmp(argv[1], "--cache")) {
        int repeat = 5, i = 2;
        bool perturb = false;
        for (; i < argc - 1; i++) {
            if (!strcmp(argv[i], "--repeat")) repeat = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--perturb")) perturb = true;
            else break;
        }
        if (repeat < 1 || i != argc - 1) return 2;
        return bench_cache(argv[i], repeat, perturb);
    }
    if (argc < 2) {
        fprintf(stderr, "usage: load_bench [--threads N] FILE [JSON_BYTES] | load_bench [--threads N] --cache [--repeat N] "
                        "[--perturb] FILE\n");
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0) {
        perror(argv[1]);
        return 1;
    }
    long anon0 = status_kb("RssAnon:");
    atomic_store(&g_peak_anon, anon0);
    atomic_store(&g_sampling, true);
    pthread_t sampler;
    bool sampled = pthread_create(&sampler, NULL, sample_anon, NULL) == 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    char err[512];
    const char *paths[] = {argv[1]};
    LoadOptions o = {.threads = g_threads, .cache = -1};
    Trace *t = Load_files(paths, 1, &o, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    atomic_store(&g_sampling, false);
    if (sampled) pthread_join(sampler, NULL);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double json_mb = (argc > 2 ? atof(argv[2]) : (double)st.st_size) / 1e6;
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    long hwm = status_kb("VmHWM:"), anon = status_kb("RssAnon:");
    double n = (double)t->n_events;
    long peak = atomic_load(&g_peak_anon);
    printf("%s\t%.1f MB\t%zu events\t%.3f s\t%.0f MB/s\t%.2f Mev/s\tpeak RSS %.0f MB\tanon %.0f MB\t%.1f B/event "
           "(model %.1f B/event)\tpeak anon %.0f MB\t%.1f B/event at peak\tslices %zu\n",
           argv[1], (double)st.st_size / 1e6, t->n_events, s, json_mb / s, n / s / 1e6,
           (double)hwm / 1024, (double)anon / 1024, (double)(anon - anon0) * 1024 / n,
           (double)Trace_memoryBytes(t) / n, (double)(peak - anon0) / 1024, (double)(peak - anon0) * 1024 / n, t->diag.parallel_slices);
    Trace_free(t);
    return 0;
}
