/* The Chrome Trace JSON event writer (include/ovtrace/write/chromejson.h). */
#include "ovtrace/write/chromejson.h"

#include <stdarg.h>
#include <stdio.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/write/jsonout.h"

void ChromeJson_init(ChromeJson *w, ChromeJsonStyle style, bool (*sink)(void *ctx, const char *p, size_t n),
                     void *sink_ctx) {
    memset(w, 0, sizeof *w);
    w->style = style;
    w->sink = sink;
    w->sink_ctx = sink_ctx;
    w->cap = sink ? 1u << 20 : 1u << 16;
    w->buf = xmalloc(w->cap);
}

void ChromeJson_free(ChromeJson *w) {
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

void ChromeJson_fail(ChromeJson *w, const char *why) {
    if (w->failed) return;
    w->failed = true;
    snprintf(w->err, sizeof w->err, "%s", why);
}

static void to_sink(ChromeJson *w, const char *p, size_t n) {
    if (w->failed || n == 0) return;
    if (!w->sink(w->sink_ctx, p, n)) ChromeJson_fail(w, "write failed"); /* unless the sink said why */
}

bool ChromeJson_flush(ChromeJson *w) {
    if (w->sink) {
        to_sink(w, w->buf, w->len);
        w->len = 0;
    }
    return !w->failed;
}

void ChromeJson_clear(ChromeJson *w) { w->len = 0; }

void ChromeJson_writeSlow(ChromeJson *w, const char *p, size_t n) {
    if (!w->sink) { /* in memory: room for it */
        GROW(w->buf, w->cap, w->len + n);
    } else {
        ChromeJson_flush(w);
        if (n >= w->cap) {
            to_sink(w, p, n);
            return;
        }
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

void ChromeJson_puts(ChromeJson *w, const char *s) { ChromeJson_write(w, s, strlen(s)); }

void ChromeJson_printf(ChromeJson *w, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        ChromeJson_write(w, tmp, (size_t)n);
        return;
    }
    char *big = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ChromeJson_write(w, big, (size_t)n);
    free(big);
}

/* ---- values ---- */

void ChromeJson_u64(ChromeJson *w, uint64_t v) {
    char tmp[24], *q = tmp + sizeof tmp;
    do *--q = (char)('0' + v % 10);
    while (v /= 10);
    ChromeJson_write(w, q, (size_t)(tmp + sizeof tmp - q));
}

void ChromeJson_i64(ChromeJson *w, int64_t v) {
    if (v < 0) ChromeJson_write(w, "-", 1);
    ChromeJson_u64(w, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

void ChromeJson_us(ChromeJson *w, int64_t ns) {
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns; /* INT64_MIN too */
    unsigned frac = (unsigned)(a % 1000);
    char f[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10)};
    if (ns < 0) ChromeJson_write(w, "-", 1);
    ChromeJson_u64(w, a / 1000);
    ChromeJson_write(w, f, 4);
}

/* Escapes only what JSON requires: the bytes stay those of the source. */
static void string_as_is(ChromeJson *w, const char *s, size_t n) {
    static const char HEX[] = "0123456789abcdef";
    ChromeJson_write(w, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        ChromeJson_write(w, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': ChromeJson_write(w, "\\\"", 2); break;
        case '\\': ChromeJson_write(w, "\\\\", 2); break;
        case '\n': ChromeJson_write(w, "\\n", 2); break;
        case '\r': ChromeJson_write(w, "\\r", 2); break;
        case '\t': ChromeJson_write(w, "\\t", 2); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', HEX[c >> 4], HEX[c & 15]};
            ChromeJson_write(w, u, 6);
        }
        }
    }
    ChromeJson_write(w, s + run, n - run);
    ChromeJson_write(w, "\"", 1);
}

static void put_piece(void *ctx, const char *p, size_t n) { ChromeJson_write(ctx, p, n); }

void ChromeJson_stringN(ChromeJson *w, const char *s, size_t n) {
    if (w->style == CHROMEJSON_SPACED) JsonOut_escape(s, n, put_piece, w);
    else string_as_is(w, s, n);
}

void ChromeJson_string(ChromeJson *w, const char *s) { ChromeJson_stringN(w, s, strlen(s)); }

/* ---- events ---- */

void ChromeJson_nextEvent(ChromeJson *w) {
    if (w->any_event) ChromeJson_write(w, ",\n", 2);
    else ChromeJson_write(w, "\n", 1);
    w->any_event = true;
}

void ChromeJson_beginEvent(ChromeJson *w) {
    ChromeJson_nextEvent(w);
    ChromeJson_write(w, "{", 1);
    w->depth = 1;
    w->member[1] = false;
}

/* the comma before a member (none before the first of an object) */
static void member_sep(ChromeJson *w) {
    bool spaced = w->style == CHROMEJSON_SPACED;
    if (w->member[w->depth]) ChromeJson_write(w, ", ", spaced ? 2 : 1);
    w->member[w->depth] = true;
}

static void key_end(ChromeJson *w) { ChromeJson_write(w, ": ", w->style == CHROMEJSON_SPACED ? 2 : 1); }

void ChromeJson_key(ChromeJson *w, const char *key) {
    member_sep(w);
    ChromeJson_write(w, "\"", 1);
    ChromeJson_puts(w, key);
    ChromeJson_write(w, "\"", 1);
    key_end(w);
}

void ChromeJson_stringKey(ChromeJson *w, const char *s) {
    member_sep(w);
    ChromeJson_string(w, s);
    key_end(w);
}

void ChromeJson_beginObject(ChromeJson *w, const char *key) {
    ChromeJson_key(w, key);
    ChromeJson_write(w, "{", 1);
    if (w->depth < CHROMEJSON_DEPTH - 1) w->depth++;
    w->member[w->depth] = false;
}

void ChromeJson_end(ChromeJson *w) {
    ChromeJson_write(w, "}", 1);
    if (w->depth > 0) w->depth--;
}

void ChromeJson_strField(ChromeJson *w, const char *key, const char *s) {
    ChromeJson_key(w, key);
    ChromeJson_string(w, s);
}

void ChromeJson_intField(ChromeJson *w, const char *key, int64_t v) {
    ChromeJson_key(w, key);
    ChromeJson_i64(w, v);
}

void ChromeJson_usField(ChromeJson *w, const char *key, int64_t ns) {
    ChromeJson_key(w, key);
    ChromeJson_us(w, ns);
}
