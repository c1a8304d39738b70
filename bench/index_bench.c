/* The JSON walk alone, without the model: bench/index_bench FILE [ROUNDS [ONLY]].
 * For every element of the file's traceEvents array, splits the object into its
 * members (args one level deep) two ways, interleaved round by round, best of ROUNDS:
 *   member loop: the reference scanner (JsIndex_reference: Js_members, Js_value);
 *   two-stage:   stage 1 + stage 2 (JsIndex_object), at each vector level the CPU has;
 * and stage 1 alone over the whole file. Both walks give the same members (checked
 * here on every event); the loader does the same work plus its field dispatch. ONLY
 * (for counting instructions under cachegrind): "loop" runs the member loop alone, 1-3
 * the two-stage walk alone at that vector level. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ovtrace/read/jsonindex.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first element of the traceEvents array. */
static const char *first_event(const char *p, const char *end) {
    const char *k = memmem(p, (size_t)(end - p), "\"traceEvents\"", 13);
    if (!k) return NULL;
    const char *b = memchr(k, '[', (size_t)(end - k));
    return b ? Js_ws(b + 1, end) : NULL;
}

/* Walks every event; two_stage picks the walk. Returns members seen (0 on a mismatch
 * or an element the walk cannot take). */
static size_t walk_all(const char *p, const char *end, bool two_stage, size_t *objects) {
    JsCtx c = {.end = end};
    JsIndex ix = {0};
    JsMember m[64];
    size_t total = 0, n;
    *objects = 0;
    while (p < end && *p == '{') {
        const char *after = p;
        if (two_stage) {
            if (!JsIndex_object(&ix, &c, p, "args", 4, m, 64, &n, &after) &&
                JsIndex_reference(&c, &after, "args", 4, m, 64, &n) != JS_OK)
                break;
        } else if (JsIndex_reference(&c, &after, "args", 4, m, 64, &n) != JS_OK) {
            break;
        }
        total += n;
        ++*objects;
        p = Js_ws(after, end);
        if (p < end && *p == ',') p = Js_ws(p + 1, end);
    }
    Js_free(&c);
    JsIndex_free(&ix);
    return total;
}

static double stage1_all(const char *p, const char *end, size_t *positions) {
    JsIndex ix = {0};
    *positions = 0;
    double t0 = now();
    for (const char *q = p; q < end; q = ix.lim) {
        JsIndex_build(&ix, q, end);
        *positions += ix.n;
    }
    double t = now() - t0;
    JsIndex_free(&ix);
    return t;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: index_bench FILE [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    const char *only = argc > 3 ? argv[3] : NULL;
    if (only && strcmp(only, "loop")) { /* one level of the two-stage walk */
        int level = Js_setSimd(atoi(only));
        size_t objects, members = 0;
        int fd = open(argv[1], O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) return 1;
        const char *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        const char *ev = map == MAP_FAILED ? NULL : first_event(map, map + st.st_size);
        for (int r = 0; ev && r < rounds; r++) members = walk_all(ev, map + st.st_size, true, &objects);
        printf("two-stage at level %d: %zu members\n", level, members);
        return 0;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        perror(argv[1]);
        return 1;
    }
    size_t len = (size_t)st.st_size;
    const char *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) return 1;
    const char *end = map + len, *ev = first_event(map, end);
    if (!ev) {
        fprintf(stderr, "%s: no traceEvents array\n", argv[1]);
        return 1;
    }
    double mb = (double)(end - ev) / 1e6;
    int best_level = Js_setSimd(0);
    double t_ref = 1e9, t_two[4] = {1e9, 1e9, 1e9, 1e9}, t_s1[4] = {1e9, 1e9, 1e9, 1e9};
    size_t members_ref = 0, objects = 0, positions = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        members_ref = walk_all(ev, end, false, &objects);
        double t = now() - t0;
        if (t < t_ref) t_ref = t;
        if (only) continue; /* "loop": the member loop alone */
        for (int level = 1; level <= best_level; level++) {
            Js_setSimd(level);
            size_t o2;
            t0 = now();
            size_t members = walk_all(ev, end, true, &o2);
            t = now() - t0;
            if (members != members_ref || o2 != objects) {
                fprintf(stderr, "level %d: %zu members in %zu objects, the member loop %zu in %zu\n", level, members,
                        o2, members_ref, objects);
                return 1;
            }
            if (t < t_two[level]) t_two[level] = t;
            t = stage1_all(ev, end, &positions);
            if (t < t_s1[level]) t_s1[level] = t;
        }
        Js_setSimd(0);
    }
    static const char *const name[] = {"", "SSE2", "AVX2", "AVX-512"};
    printf("%s: %.1f MB of events, %zu objects, %zu members, %zu positions; best of %d\n", argv[1], mb, objects,
           members_ref, positions, rounds);
    printf("member loop (reference)      %.3f s  %5.0f MB/s\n", t_ref, mb / t_ref);
    for (int level = 1; !only && level <= best_level; level++) {
        printf("two-stage, %-8s          %.3f s  %5.0f MB/s  (%.2fx the member loop's time)\n", name[level],
               t_two[level], mb / t_two[level], t_two[level] / t_ref);
        printf("  of which stage 1 alone     %.3f s  %5.0f MB/s\n", t_s1[level], mb / t_s1[level]);
    }
    return 0;
}
