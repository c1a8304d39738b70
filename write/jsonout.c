#include "ovtrace/write/jsonout.h"

#include <string.h>

#include "ovtrace/base/termsafe.h"

/* Valid JSON whatever the bytes: controls, DEL, C1 and bidi controls as \u escapes (a
 * `jq .name` then prints them only if asked to), bytes that are not UTF-8 as U+FFFD.
 * What needs no escape goes out in runs. */
void JsonOut_escape(const char *s, size_t n, void (*put)(void *ctx, const char *p, size_t n), void *ctx) {
    put(ctx, "\"", 1);
    const unsigned char *p = (const unsigned char *)s, *run = p;
    while (n) {
        uint32_t cp;
        size_t len = TermSafe_decode(p, n, &cp);
        const char *esc = NULL;
        char u[8];
        if (!len) esc = "\\ufffd", len = 1;
        else if (cp == '"') esc = "\\\"";
        else if (cp == '\\') esc = "\\\\";
        else if (cp == '\n') esc = "\\n";
        else if (cp == '\r') esc = "\\r";
        else if (cp == '\t') esc = "\\t";
        else if (TermSafe_unsafe(cp)) {
            static const char HEX[] = "0123456789abcdef";
            u[0] = '\\', u[1] = 'u', u[2] = HEX[cp >> 12 & 15], u[3] = HEX[cp >> 8 & 15];
            u[4] = HEX[cp >> 4 & 15], u[5] = HEX[cp & 15], u[6] = '\0';
            esc = u;
        }
        p += len, n -= len;
        if (!esc) continue;
        put(ctx, (const char *)run, (size_t)(p - len - run));
        put(ctx, esc, strlen(esc));
        run = p;
    }
    put(ctx, (const char *)run, (size_t)(p - run));
    put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *p, size_t n) {
    if (n) fwrite(p, 1, n, (FILE *)ctx);
}

void JsonOut_string(FILE *out, const char *s) { JsonOut_escape(s, strlen(s), put_file, out); }
