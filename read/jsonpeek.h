/* A fast look at one JSON object without building it: its end, the raw text of the
 * top-level members the GPU-first load decides by (ph, cat) and those that place the
 * event in time (ts, dur, pid, tid); of two equal keys the last counts, as in the
 * loader. The GPU-first load (LoadOptions.gpu_only) uses it to pass over CPU events at
 * close to memory speed. */
#ifndef OVTRACE_JSONPEEK_H
#define OVTRACE_JSONPEEK_H
#include <stdbool.h>
#include <stddef.h>

#include "ovtrace/read/jsonindex.h"

typedef struct {
    const char *ph, *cat; /* string contents (no quotes), NULL when absent or not a plain string */
    size_t ph_n, cat_n;
    /* the raw text of "ts" and "dur" when not a string or container (a number, or a
     * literal the loader rejects), NULL when absent; ts_bad/dur_bad: a string or a
     * container, which the loader rejects too */
    const char *ts, *dur;
    size_t ts_n, dur_n;
    bool ts_bad, dur_bad;
    bool id_bad; /* "pid" or "tid" is neither a number nor a string */
    bool esc;    /* a key, "ph" or "cat" holds an escape: parse it properly */
} JsPeek;

typedef enum { JSPEEK_OK, JSPEEK_MORE, JSPEEK_BAD } JsPeekStatus;

/* p is at '{'. Finds the matching '}' from the quotes, brackets and commas alone (no
 * number or literal validation; nested containers are passed whole) and sets *end just
 * after it.
 * JSPEEK_MORE: the object does not end before `end`; JSPEEK_BAD: something the caller
 * should hand to the validating parser (it reports the error with its offset). */
JsPeekStatus JsPeek_object(const char *p, const char *end, JsPeek *out, const char **obj_end);

/* What JsPeek_object gives for an object already split into members m[0..n) (as
 * JsIndex_reference or a known shape splits it: raw keys in the text, so a two-byte
 * key is followed by its closing quote), read through the same member slots. A key
 * with an escape counts as no member of interest, as JsPeek_object takes it. */
void JsPeek_members(const JsMember *m, size_t n, JsPeek *out);

/* The block scan's instruction set: 0 or 1 SSE2 (the default), 2 AVX2 (lowered to SSE2
 * where the CPU lacks it). Returns the level in use. Tests run every level. */
int JsPeek_setSimd(int level);
/* The highest level the CPU has. */
int JsPeek_simdMost(void);

#endif
