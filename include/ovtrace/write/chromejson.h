/* Chrome Trace JSON events, the format Perfetto and chrome://tracing open, written
 * member by member into a buffer. The export, the recorder and the rank simulator write
 * their events through it, so a timestamp has one format: int64 ns as exact decimal
 * microseconds ("ts": 1700000000000000.125), never through a double.
 *
 * Two layouts:
 *   CHROMEJSON_COMPACT  {"ph":"X","name":"gemm",...}      an export. Its strings keep
 *       their bytes (only what JSON requires is escaped), as do the event objects it
 *       copies from its source.
 *   CHROMEJSON_SPACED   {"ph": "X", "name": "gemm", ...}  a recording. Its strings are
 *       terminal-safe (JsonOut_escape): names a live program reported.
 * The text goes to a sink each time the buffer fills (an export streams into its
 * compressor), or stays in the buffer, which grows, when there is no sink (a recording
 * compresses it frame by frame, the rank simulator writes it whole). */
#ifndef OVTRACE_CHROMEJSON_H
#define OVTRACE_CHROMEJSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum { CHROMEJSON_COMPACT, CHROMEJSON_SPACED } ChromeJsonStyle;

#define CHROMEJSON_DEPTH 4 /* the event, its args, and room for two more */

typedef struct {
    char *buf;
    size_t len, cap;
    bool (*sink)(void *ctx, const char *p, size_t n); /* NULL: the buffer grows */
    void *sink_ctx;
    ChromeJsonStyle style;
    bool any_event;                 /* an event was written: the next one starts with ",\n" */
    int depth;                      /* objects open in the current event */
    bool member[CHROMEJSON_DEPTH];  /* a member was written at that depth: the next gets a comma */
    bool failed;                    /* the sink refused, or ChromeJson_fail: nothing more is written */
    char err[512];                  /* why */
} ChromeJson;

void ChromeJson_init(ChromeJson *w, ChromeJsonStyle style, bool (*sink)(void *ctx, const char *p, size_t n),
                     void *sink_ctx);
void ChromeJson_free(ChromeJson *w);

/* Stops the output with a reason (the first one is kept). */
void ChromeJson_fail(ChromeJson *w, const char *why);

/* Hands the buffered text to the sink. False once the output failed. */
bool ChromeJson_flush(ChromeJson *w);

/* Without a sink the text so far is buf[0..len): empties it once the caller used it. */
void ChromeJson_clear(ChromeJson *w);

/* ---- text as it is ---- */

void ChromeJson_writeSlow(ChromeJson *w, const char *p, size_t n);
static inline void ChromeJson_write(ChromeJson *w, const char *p, size_t n) {
    if (n <= w->cap - w->len) {
        memcpy(w->buf + w->len, p, n);
        w->len += n;
        return;
    }
    ChromeJson_writeSlow(w, p, n);
}
void ChromeJson_puts(ChromeJson *w, const char *s);
void ChromeJson_printf(ChromeJson *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- values ---- */

void ChromeJson_u64(ChromeJson *w, uint64_t v);
void ChromeJson_i64(ChromeJson *w, int64_t v);
/* ns as microseconds with three decimals, exactly: -1500 -> -1.500 */
void ChromeJson_us(ChromeJson *w, int64_t ns);
/* A string literal, quotes included, escaped as the layout says. */
void ChromeJson_string(ChromeJson *w, const char *s);
void ChromeJson_stringN(ChromeJson *w, const char *s, size_t n);

/* ---- events ---- */

/* The separator before an event: "\n" before the first, ",\n" before the others. An
 * event copied as text follows it directly. */
void ChromeJson_nextEvent(ChromeJson *w);
/* The separator and the event's "{". */
void ChromeJson_beginEvent(ChromeJson *w);
/* A member's key in the open object, with the comma before it when needed. */
void ChromeJson_key(ChromeJson *w, const char *key);
/* The same with a string that needs escaping as the key (a counter's series). */
void ChromeJson_stringKey(ChromeJson *w, const char *s);
/* A member whose value is an object ("args"): its "{". */
void ChromeJson_beginObject(ChromeJson *w, const char *key);
/* The "}" of the innermost open object: args, then the event itself. */
void ChromeJson_end(ChromeJson *w);

void ChromeJson_strField(ChromeJson *w, const char *key, const char *s);
void ChromeJson_intField(ChromeJson *w, const char *key, int64_t v);
void ChromeJson_usField(ChromeJson *w, const char *key, int64_t ns);

#endif
