#include "ovtrace/read/args.h"

#include <stdio.h>
#include <string.h>

#include "ovtrace/read/jsonscan.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/read/input.h"

/* Reads decompressed bytes [off, off+n) of the source; returns bytes read. */
static size_t read_at(Input *in, uint64_t off, char *buf, size_t n) {
    if (Input_compression(in) == COMP_NONE) { /* pread: a file that shrank gives less, never SIGBUS */
        ssize_t r = Input_pread(in, buf, n, off);
        return r > 0 ? (size_t)r : 0;
    }
    char skip[1 << 16];
    while (off > 0) { /* compressed streams cannot seek: decompress and discard */
        ssize_t r = Input_read(in, skip, off < sizeof skip ? (size_t)off : sizeof skip);
        if (r <= 0) return 0;
        off -= (uint64_t)r;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = Input_read(in, buf + got, n - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

char *Args_fetchRaw(const Trace *t, size_t idx, size_t *len, char *err, size_t errlen) {
    if (idx >= t->n_events) {
        snprintf(err, errlen, "no such event");
        return NULL;
    }
    const TraceEvent *e = &t->events[idx];
    if (e->src == TRACE_NO_SRC) {
        snprintf(err, errlen, "event has no source text (synthesized)");
        return NULL;
    }
    const TraceSource *src = &t->sources[t->lanes[e->lane].source];
    if (!Input_canReopen(src->path)) { /* a pipe or stdin was read once; opening a FIFO again would block */
        snprintf(err, errlen, "%s: not a regular file (a pipe or stdin): its text cannot be read again", src->path);
        return NULL;
    }
    size_t cap = 4096;
    char *buf = NULL;
    for (;;) { /* grow until the whole object fits (2 MB names exist) */
        buf = xrealloc(buf, cap + 1);
        Input *in = Input_open(src->path, err, errlen);
        if (!in) {
            free(buf);
            return NULL;
        }
        size_t got = read_at(in, e->src, buf, cap);
        JsCtx js = {0};
        js.end = buf + got;
        const char *p = buf;
        Tok tok;
        JsStatus st = got ? Js_value(&js, &p, &tok) : JS_ERR;
        Js_free(&js);
        if (st == JS_OK && tok.type == TOK_OBJECT) {
            Input_close(in);
            *len = tok.n;
            buf[tok.n] = '\0';
            return buf;
        }
        if (st == JS_MORE && got == cap && cap < (1u << 30)) {
            Input_close(in); /* reopened at the top: compressed streams cannot seek back */
            cap *= 4;
            continue;
        }
        Input_close(in);
        /* the same convention as the loader's errors: the byte and what was expected */
        uint64_t at = e->src;
        const char *what = "an event object ('{')";
        if (st == JS_ERR && got) at += (uint64_t)(js.err_at - buf), what = js.expected;
        else if (st == JS_MORE) at += got, what = "the rest of the event's object (the file ends early)";
        free(buf);
        snprintf(err, errlen, "%s: source changed since loading: byte %llu: expected %s", src->path,
                 (unsigned long long)at, what);
        return NULL;
    }
}

typedef struct {
    ArgsMemberFn fn;
    void *ctx;
    char *key;
    size_t key_cap;
} MembersCtx;

static JsStatus args_member(JsCtx *c, void *ctx, const Tok *key, const char **pp) {
    MembersCtx *m = ctx;
    const char *vp = Js_ws(*pp, c->end);
    Tok v;
    JsStatus st = Js_value(c, pp, &v);
    if (st != JS_OK) return st;
    GROW(m->key, m->key_cap, (size_t)key->n + 1);
    Js_decode(key, m->key);
    m->fn(m->ctx, m->key, vp, *pp);
    return JS_OK;
}

bool Args_members(const char *obj, size_t len, ArgsMemberFn fn, void *ctx, char *err, size_t errlen) {
    JsCtx js = {0};
    js.end = obj + len;
    const char *p = Js_ws(obj, js.end);
    MembersCtx m = {fn, ctx, NULL, 0};
    JsStatus st = p < js.end && *p == '{' ? Js_members(&js, &p, args_member, &m) : Js_fail(&js, p, "'{'");
    st = Js_complete(&js, st);
    if (st == JS_OK && (p = Js_ws(p, js.end)) < js.end) st = Js_fail(&js, p, "the end of the object");
    if (st != JS_OK) snprintf(err, errlen, "byte %zu: expected %s", (size_t)(js.err_at - obj), js.expected);
    free(m.key);
    Js_free(&js);
    return st == JS_OK;
}
