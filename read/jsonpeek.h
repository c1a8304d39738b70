/* A fast look at one JSON object without building it: its end and the raw text of two
 * top-level string members. The GPU-first load (LoadOptions.gpu_only) uses it to pass
 * over CPU events at close to memory speed. */
#ifndef OVTRACE_JSONPEEK_H
#define OVTRACE_JSONPEEK_H
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *ph, *cat; /* string contents (no quotes), NULL when absent or not a plain string */
    size_t ph_n, cat_n;
    bool esc; /* "ph" or "cat" holds an escape, or appears twice: parse it properly */
} JsPeek;

typedef enum { JSPEEK_OK, JSPEEK_MORE, JSPEEK_BAD } JsPeekStatus;

/* p is at '{'. Scans strings and braces only (no number or literal validation) to the
 * matching '}' and sets *end just after it. JSPEEK_MORE: the object does not end
 * before `end`; JSPEEK_BAD: something the caller should hand to the validating parser
 * (it reports the error with its offset). */
JsPeekStatus JsPeek_object(const char *p, const char *end, JsPeek *out, const char **obj_end);

#endif
