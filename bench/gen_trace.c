/* Generates large Kineto-shaped traces by tiling a real one: the event array is
 * repeated shifted in time (tiles) and its GPU events replicated across devices.
 *   gen_trace SRC OUT --mb N [--devices D]
 * Event objects are copied as text with "ts" (and the GPU "pid"/"device") rewritten,
 * so the output has exactly the source's shape: names, args, flows, metadata. Flow
 * ids, correlation and External ids are offset per tile, as in one long profile: a
 * tiled copy that reused them would chain every tile's flows into one. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/read/jsonscan.h"
#include "ovtrace/model/timeunits.h"

enum { CUT_TS, CUT_PID, CUT_DEV, CUT_ID, CUT_CORR, CUT_EXT, N_CUTS };
static const char *const cut_keys[N_CUTS] = {"\"ts\"", "\"pid\"", "\"device\"", "\"id\"", "\"correlation\"",
                                             "\"External id\""};

typedef struct {
    const char *at, *end; /* the number after the key */
    int kind;
    int64_t id; /* its value (id kinds) */
} Cut;

/* The integer in [p, end) (ids in the source are plain integers). Not strtoll: the
 * source is one NUL-terminated string, and ASan's strtoll checks all of it per call. */
static int64_t parse_id(const char *p, const char *end) {
    bool neg = p < end && *p == '-';
    int64_t v = 0;
    for (p += neg; p < end && *p >= '0' && *p <= '9'; p++) v = v * 10 + (*p - '0');
    return neg ? -v : v;
}

typedef struct {
    const char *p;
    size_t n;
    int64_t ts_ns;
    Cut cuts[N_CUTS]; /* in text order */
    int n_cuts;
    int gpu;
} Obj;

static int cmp_cut(const void *a, const void *b) {
    const Cut *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

static const char *find_num(const char *p, const char *end, const char *key, const char **num_end) {
    size_t kl = strlen(key);
    for (const char *q = p; q + kl < end; q++) {
        if (memcmp(q, key, kl)) continue;
        const char *v = q + kl;
        while (v < end && (*v == ' ' || *v == ':')) v++;
        const char *e = v;
        while (e < end && (strchr("0123456789.-+eE", *e))) e++;
        if (e == v) return NULL;
        *num_end = e;
        return v;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: gen_trace SRC OUT --mb N [--devices D]\n");
        return 2;
    }
    double mb = 500;
    int devices = 1;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc) mb = atof(argv[++i]);
        else if (!strcmp(argv[i], "--devices") && i + 1 < argc) devices = atoi(argv[++i]);
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc((size_t)len + 1);
    if (fread(src, 1, (size_t)len, f) != (size_t)len) return 1;
    fclose(f);
    const char *te = strstr(src, "\"traceEvents\"");
    if (!te) return 1;
    const char *p = strchr(te, '[') + 1, *end = src + len;
    JsCtx js = {0};
    js.end = end;
    Obj *objs = NULL;
    size_t n = 0, cap = 0;
    int64_t tmin = INT64_MAX, tmax = INT64_MIN, max_id = 0;
    for (;;) {
        p = Js_ws(p, end);
        if (*p == ']') break;
        if (*p == ',') p = Js_ws(p + 1, end);
        Tok t;
        const char *s = p;
        if (Js_value(&js, &p, &t) != JS_OK) return 1;
        if (n == cap) objs = realloc(objs, (cap = cap ? cap * 2 : 1024) * sizeof *objs);
        Obj *o = &objs[n++];
        memset(o, 0, sizeof *o);
        o->p = s;
        o->n = (size_t)(p - s);
        /* memmem within the object: strstr would scan the rest of the file for every
         * object (quadratic; minutes under ASan, whose strstr checks the whole string) */
        o->gpu = memmem(s, o->n, "\"cat\": \"kernel\"", 15) || memmem(s, o->n, "\"cat\": \"gpu_mem", 15);
        for (int k = 0; k < N_CUTS; k++) {
            if ((k == CUT_PID || k == CUT_DEV) && !o->gpu) continue;
            Cut *c = &o->cuts[o->n_cuts];
            c->at = find_num(s, p, cut_keys[k], &c->end);
            if (!c->at) continue;
            c->kind = k;
            o->n_cuts++;
            if (k == CUT_TS) {
                Time_parseMicros(c->at, (size_t)(c->end - c->at), &o->ts_ns);
                if (o->ts_ns < tmin) tmin = o->ts_ns;
                if (o->ts_ns > tmax) tmax = o->ts_ns;
            } else if (k >= CUT_ID) {
                int64_t v = c->id = parse_id(c->at, c->end);
                if (v > max_id) max_id = v;
            }
        }
        qsort(o->cuts, (size_t)o->n_cuts, sizeof *o->cuts, cmp_cut);
    }
    int64_t span = tmax - tmin + 1000000; /* tiles 1 ms apart */
    int64_t id_stride = 1;
    while (id_stride <= max_id) id_stride <<= 1;
    /* header: everything before the array, e.g. deviceProperties, distributedInfo */
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    setvbuf(out, NULL, _IOFBF, 1 << 20);
    fwrite(src, 1, (size_t)(strchr(te, '[') + 1 - src), out);
    fputc('\n', out);
    uint64_t bytes = 0, events = 0, limit = (uint64_t)(mb * 1e6);
    int first = 1;
    for (int64_t tile = 0; bytes < limit; tile++) {
        for (size_t i = 0; i < n && bytes < limit; i++) {
            const Obj *o = &objs[i];
            int reps = o->gpu ? devices : 1;
            if (!o->n_cuts || o->cuts[0].kind != CUT_TS) { /* metadata (no ts): once */
                int has_ts = 0;
                for (int c = 0; c < o->n_cuts; c++) has_ts |= o->cuts[c].kind == CUT_TS;
                if (!has_ts) {
                    if (tile) continue;
                    reps = 1;
                }
            }
            for (int d = 0; d < reps; d++) {
                if (!first) fputs(",\n", out);
                first = 0;
                const char *q = o->p;
                for (int c = 0; c < o->n_cuts; c++) {
                    const Cut *k = &o->cuts[c];
                    bytes += fwrite(q, 1, (size_t)(k->at - q), out);
                    if (k->kind == CUT_TS) {
                        int64_t ts = o->ts_ns + tile * span;
                        bytes += (uint64_t)fprintf(out, "%" PRId64 ".%03d", ts / 1000, (int)(ts % 1000));
                    } else if (k->kind == CUT_PID || k->kind == CUT_DEV) {
                        bytes += (uint64_t)fprintf(out, "%d", d);
                    } else {
                        bytes += (uint64_t)fprintf(out, "%" PRId64, k->id + tile * id_stride);
                    }
                    q = k->end;
                }
                bytes += fwrite(q, 1, (size_t)(o->p + o->n - q), out) + 2;
                events++;
            }
        }
    }
    fputs("\n]}\n", out);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    fprintf(stderr, "gen_trace: %s: %.1f MB, %" PRIu64 " events\n", argv[2], (double)bytes / 1e6, events);
    free(objs);
    free(src);
    Js_free(&js);
    return 0;
}
