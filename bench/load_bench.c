/* Load throughput and memory: load_bench FILE [JSON_BYTES] prints one row:
 * file, size, events, load s, MB/s of JSON (JSON_BYTES: the decompressed size for
 * .gz/.zst input), peak RSS, anon RSS, B/event, model B/event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ovtrace/load.h"

static long status_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) sscanf(line + strlen(key), "%ld", &v);
    if (f) fclose(f);
    return v;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: load_bench FILE\n");
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0) {
        perror(argv[1]);
        return 1;
    }
    long anon0 = status_kb("RssAnon:");
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    char err[512];
    const char *paths[] = {argv[1]};
    LoadOptions o = {.threads = getenv("OVTRACE_THREADS") ? atoi(getenv("OVTRACE_THREADS")) : 0};
    Trace *t = Load_files(paths, 1, &o, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double json_mb = (argc > 2 ? atof(argv[2]) : (double)st.st_size) / 1e6;
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    long hwm = status_kb("VmHWM:"), anon = status_kb("RssAnon:");
    double n = (double)t->n_events;
    printf("%s\t%.1f MB\t%zu events\t%.3f s\t%.0f MB/s\t%.2f Mev/s\tpeak RSS %.0f MB\tanon %.0f MB\t%.1f B/event "
           "(model %.1f B/event)\n",
           argv[1], (double)st.st_size / 1e6, t->n_events, s, json_mb / s, n / s / 1e6,
           (double)hwm / 1024, (double)anon / 1024, (double)(anon - anon0) * 1024 / n,
           (double)Trace_memoryBytes(t) / n);
    Trace_free(t);
    return 0;
}
