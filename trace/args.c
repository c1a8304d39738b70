#include "ovtrace/args.h"

#include <stdio.h>
#include <string.h>

#include "jsonscan.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/input.h"

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
        free(buf);
        snprintf(err, errlen, "%s: source changed since loading (no event object at byte %llu)", src->path,
                 (unsigned long long)e->src);
        return NULL;
    }
}
