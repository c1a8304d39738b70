/* Fast object skip for the GPU-first load (jsonpeek.h). */
#include "jsonpeek.h"

#include <string.h>

/* Just after the closing quote of the string starting at p ('"'), or NULL when it does
 * not end before `end`. *esc tells whether it holds a backslash. */
static const char *skip_string(const char *p, const char *end, bool *esc) {
    const char *s = ++p;
    for (;;) {
        const char *q = memchr(p, '"', (size_t)(end - p));
        if (!q) return NULL;
        /* an odd run of backslashes before the quote escapes it */
        const char *b = q;
        while (b > s && b[-1] == '\\') b--;
        if (((q - b) & 1) == 0) {
            *esc = memchr(s, '\\', (size_t)(q - s)) != NULL;
            return q + 1;
        }
        p = q + 1;
    }
}

static bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

JsPeekStatus JsPeek_object(const char *p, const char *end, JsPeek *out, const char **obj_end) {
    memset(out, 0, sizeof *out);
    if (p >= end || *p != '{') return JSPEEK_BAD;
    size_t depth = 0;
    /* top level: expecting a key next (after '{' or ','), and the key just read */
    bool want_key = false;
    const char *key = NULL;
    size_t key_n = 0;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            bool esc;
            const char *q = skip_string(p, end, &esc);
            if (!q) return JSPEEK_MORE;
            if (depth == 1 && want_key) {
                if (esc) out->esc = true; /* an escaped key may spell "ph" or "cat" */
                key = esc ? NULL : p + 1;
                key_n = (size_t)(q - p - 2);
                want_key = false;
            } else if (depth == 1 && key) { /* a top-level string value */
                const char *v = p + 1;
                size_t vn = (size_t)(q - p - 2);
                if (key_n == 2 && !memcmp(key, "ph", 2)) {
                    out->esc |= esc || out->ph;
                    out->ph = v, out->ph_n = vn;
                } else if (key_n == 3 && !memcmp(key, "cat", 3)) {
                    out->esc |= esc || out->cat;
                    out->cat = v, out->cat_n = vn;
                }
                key = NULL;
            }
            p = q;
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
            if (depth == 1) want_key = true;
            if (depth == 2) key = NULL; /* a container value: not a string */
        } else if (c == '}' || c == ']') {
            if (depth == 0) return JSPEEK_BAD;
            if (--depth == 0) {
                *obj_end = p + 1;
                return JSPEEK_OK;
            }
        } else if (depth == 1) {
            if (c == ',') want_key = true, key = NULL;
            else if (c != ':' && !is_ws(c)) key = NULL; /* a number or literal value */
        }
        p++;
    }
    return JSPEEK_MORE;
}
