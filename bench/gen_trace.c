/* Generates large Kineto-shaped traces by tiling a real one: the event array is
 * repeated shifted in time (tiles) and its GPU events replicated across devices.
 *   gen_trace SRC OUT --mb N [--devices D]
 * Event objects are copied as text with "ts" (and the GPU "pid"/"device") rewritten,
 * so the output has exactly the source's shape: names, args, flows, metadata. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonscan.h"
#include "ovtrace/timeunits.h"

typedef struct {
    const char *p;
    size_t n;
    int64_t ts_ns;
    const char *ts_at, *ts_end; /* the number after "ts": */
    const char *pid_at, *pid_end, *dev_at, *dev_end;
    int gpu;
} Obj;

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
    int64_t tmin = INT64_MAX, tmax = INT64_MIN;
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
        o->ts_at = find_num(s, p, "\"ts\"", &o->ts_end);
        if (o->ts_at) {
            Time_parseMicros(o->ts_at, (size_t)(o->ts_end - o->ts_at), &o->ts_ns);
            if (o->ts_ns < tmin) tmin = o->ts_ns;
            if (o->ts_ns > tmax) tmax = o->ts_ns;
        }
        o->gpu = strstr(s, "\"cat\": \"kernel\"") && (size_t)(strstr(s, "\"cat\": \"kernel\"") - s) < o->n;
        const char *mc = strstr(s, "\"cat\": \"gpu_mem");
        if (mc && (size_t)(mc - s) < o->n) o->gpu = 1;
        if (o->gpu) {
            o->pid_at = find_num(s, p, "\"pid\"", &o->pid_end);
            o->dev_at = find_num(s, p, "\"device\"", &o->dev_end);
        }
    }
    int64_t span = tmax - tmin + 1000000; /* tiles 1 ms apart */
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
            if (!o->ts_at) { /* metadata: once */
                if (tile) continue;
                reps = 1;
            }
            for (int d = 0; d < reps; d++) {
                if (!first) fputs(",\n", out);
                first = 0;
                const char *q = o->p;
                /* copy with rewrites in source order: pid, device, ts */
                const char *cuts[3][2] = {{o->pid_at, o->pid_end}, {o->dev_at, o->dev_end}, {o->ts_at, o->ts_end}};
                for (int a = 0; a < 3; a++)
                    for (int b = a + 1; b < 3; b++)
                        if (cuts[b][0] && (!cuts[a][0] || cuts[b][0] < cuts[a][0])) {
                            const char *t0 = cuts[a][0], *t1 = cuts[a][1];
                            cuts[a][0] = cuts[b][0];
                            cuts[a][1] = cuts[b][1];
                            cuts[b][0] = t0;
                            cuts[b][1] = t1;
                        }
                for (int c = 0; c < 3; c++) {
                    if (!cuts[c][0]) continue;
                    fwrite(q, 1, (size_t)(cuts[c][0] - q), out);
                    if (cuts[c][0] == o->ts_at) {
                        int64_t ts = o->ts_ns + tile * span;
                        fprintf(out, "%" PRId64 ".%03d", ts / 1000, (int)(ts % 1000));
                    } else {
                        fprintf(out, "%d", d);
                    }
                    q = cuts[c][1];
                }
                fwrite(q, 1, (size_t)(o->p + o->n - q), out);
                bytes += o->n + 2;
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
