#include "ovtrace/write/jsonout.h"

#include <string.h>

#include "ovtrace/base/termsafe.h"

/* Valid JSON whatever the bytes: controls, DEL, C1 and bidi controls as \u escapes (a
 * `jq .name` then prints them only if asked to), bytes that are not UTF-8 as U+FFFD. */
void JsonOut_string(FILE *out, const char *s) {
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n) {
        uint32_t cp;
        size_t len = TermSafe_decode(p, n, &cp);
        if (!len) {
            fputs("\\ufffd", out);
            p++, n--;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (TermSafe_unsafe(cp)) fprintf(out, "\\u%04x", (unsigned)cp);
            else fwrite(p, 1, len, out);
        }
        p += len, n -= len;
    }
    fputc('"', out);
}
