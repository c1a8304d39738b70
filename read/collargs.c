#include "ovtrace/read/collargs.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cjsonlast.h"
#include "ovtrace/read/jsonscan.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/read/input.h"

typedef struct {
    uint32_t source;
    uint64_t off;
    size_t i; /* into events/out */
} Req;

static int cmp_req(const void *a, const void *b) {
    const Req *x = a, *y = b;
    if (x->source != y->source) return x->source < y->source ? -1 : 1;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Length of the JSON value at p (an object), 0 if incomplete or invalid. */
static size_t object_len(const char *p, size_t n, bool *more) {
    JsCtx js = {0};
    js.end = p + n;
    const char *q = p;
    Tok tok;
    JsStatus st = n ? Js_value(&js, &q, &tok) : JS_MORE;
    Js_free(&js);
    *more = st == JS_MORE;
    return st == JS_OK && tok.type == TOK_OBJECT ? tok.n : 0;
}

/* Fills a from one event object; true if it held any of the keys. */
static bool parse_args(const char *obj, size_t n, CollArgs *a, StrTab *st) {
    /* cheap test first: most comm kernels (DeepEP) carry none of these; a key may also
     * be spelled with \u escapes (cJSON reads "S\u0065q" as Seq, so must we) */
    if (!memmem(obj, n, "\"Process Group Name\"", 20) && !memmem(obj, n, "\"Collective name\"", 17) &&
        !memmem(obj, n, "\"Seq\"", 5) && !memmem(obj, n, "\\u", 2))
        return false;
    cJSON *root = cJSON_ParseWithLength(obj, n);
    const cJSON *args = root ? Json_last(root, "args") : NULL;
    bool any = false;
    if (cJSON_IsObject(args)) {
        const cJSON *g = Json_last(args, "Process Group Name");
        const cJSON *c = Json_last(args, "Collective name");
        const cJSON *s = Json_last(args, "Seq");
        if (cJSON_IsString(g)) a->group = StrTab_intern(st, g->valuestring, strlen(g->valuestring));
        else if (cJSON_IsNumber(g)) { /* some writers store the name as a number */
            char b[32];
            int k = snprintf(b, sizeof b, "%.0f", g->valuedouble);
            a->group = StrTab_intern(st, b, (size_t)k);
        }
        if (cJSON_IsString(c)) a->coll = StrTab_intern(st, c->valuestring, strlen(c->valuestring));
        if (cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble < 9e15) a->seq = (int64_t)s->valuedouble;
        else if (cJSON_IsString(s)) {
            char *end;
            long long v = strtoll(s->valuestring, &end, 10);
            if (end != s->valuestring && !*end && v >= 0) a->seq = v;
        }
        any = a->group != COLLARGS_NONE || a->coll != COLLARGS_NONE || a->seq >= 0;
    }
    cJSON_Delete(root);
    return any;
}

/* A forward-only window over a compressed stream. */
typedef struct {
    Input *in;
    char *buf;
    size_t len, cap;
    uint64_t off; /* stream offset of buf[0] */
    bool eof;
} Window;

/* Makes [off, off + need) available if the stream has it; returns a pointer to off and
 * the bytes available from there. */
static const char *window_at(Window *w, uint64_t off, size_t need, size_t *avail) {
    if (off > w->off + w->len) { /* skip forward */
        w->off += w->len;
        w->len = 0;
        char skip[1 << 16];
        while (w->off < off && !w->eof) {
            uint64_t k = off - w->off < sizeof skip ? off - w->off : sizeof skip;
            ssize_t r = Input_read(w->in, skip, (size_t)k);
            if (r <= 0) w->eof = true;
            else w->off += (uint64_t)r;
        }
        if (w->off < off) {
            *avail = 0;
            return w->buf;
        }
    } else if (off > w->off) { /* drop the consumed front */
        size_t drop = (size_t)(off - w->off);
        memmove(w->buf, w->buf + drop, w->len - drop);
        w->len -= drop;
        w->off = off;
    }
    while (w->len < need && !w->eof) {
        GROW(w->buf, w->cap, need > 65536 ? need : 65536);
        ssize_t r = Input_read(w->in, w->buf + w->len, w->cap - w->len);
        if (r <= 0) w->eof = true;
        else w->len += (size_t)r;
    }
    *avail = w->len;
    return w->buf;
}

/* Reads requests q[0..m) (sorted by offset, one source) into out; returns objects read
 * and sets *found when one held any of the keys. */
static size_t read_sorted(Input *in, const Req *q, size_t m, CollArgs *out, StrTab *st, bool *found) {
    size_t map_len = 0, read = 0;
    const char *map = Input_map(in, &map_len);
    Window w = {in, NULL, 0, 0, 0, false};
    for (size_t k = 0; k < m; k++) {
        const char *p;
        size_t avail, need = 4096, len = 0;
        for (;;) {
            if (map) {
                avail = q[k].off < map_len ? map_len - (size_t)q[k].off : 0;
                p = map + (q[k].off < map_len ? q[k].off : 0);
            } else {
                p = window_at(&w, q[k].off, need, &avail);
            }
            bool more;
            len = object_len(p, avail, &more);
            if (len || !more || map || w.eof || need >= (1u << 30)) break;
            need *= 4; /* an object longer than the window: read more */
        }
        if (!len) continue;
        read++;
        if (parse_args(p, len, &out[q[k].i], st)) *found = true;
    }
    free(w.buf);
    return read;
}

size_t CollArgs_fetch(void *ctx, const Trace *t, const uint32_t *events, size_t n, CollArgs *out, StrTab *st) {
    (void)ctx;
    /* requests grouped by source (counting sort), in the callers' order within one */
    size_t ns = t->n_sources;
    size_t *cnt = xcalloc(ns + 1, sizeof *cnt);
    for (size_t i = 0; i < n; i++) {
        out[i] = (CollArgs){COLLARGS_NONE, COLLARGS_NONE, -1};
        const TraceEvent *e = &t->events[events[i]];
        if (e->src != TRACE_NO_SRC) cnt[t->lanes[e->lane].source + 1]++;
    }
    for (size_t s = 0; s < ns; s++) cnt[s + 1] += cnt[s];
    size_t m = cnt[ns];
    Req *q = xmalloc((m + 1) * sizeof *q);
    {
        size_t *fill = xmalloc((ns + 1) * sizeof *fill);
        memcpy(fill, cnt, (ns + 1) * sizeof *fill);
        for (size_t i = 0; i < n; i++) {
            const TraceEvent *e = &t->events[events[i]];
            if (e->src == TRACE_NO_SRC) continue;
            uint32_t s = t->lanes[e->lane].source;
            q[fill[s]++] = (Req){s, e->src, i};
        }
        free(fill);
    }
    size_t read = 0;
    for (size_t s = 0; s < ns; s++) {
        Req *a = q + cnt[s];
        size_t k = cnt[s + 1] - cnt[s];
        if (!k) continue;
        char err[256];
        /* probe: the first few kernels; a source without the keys (DeepEP kernels) is not
         * read further, and its requests are never sorted */
        size_t np = k < COLLARGS_PROBE ? k : COLLARGS_PROBE;
        qsort(a, np, sizeof *a, cmp_req);
        Input *in = Input_open(t->sources[s].path, err, sizeof err);
        if (!in) continue;
        bool found = false;
        read += read_sorted(in, a, np, out, st, &found);
        Input_close(in);
        if (!found || np == k) continue;
        qsort(a + np, k - np, sizeof *a, cmp_req); /* the rest, from the start of the stream */
        in = Input_open(t->sources[s].path, err, sizeof err);
        if (!in) continue;
        read += read_sorted(in, a + np, k - np, out, st, &found);
        Input_close(in);
    }
    free(q);
    free(cnt);
    return read;
}
