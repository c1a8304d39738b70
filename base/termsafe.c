/* Terminal-safe text (include/ovtrace/base/termsafe.h). */
#include "ovtrace/base/termsafe.h"

#include <stdlib.h>
#include <string.h>

bool TermSafe_unsafe(uint32_t cp) {
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return true; /* C0, DEL, C1 */
    if (cp >= 0x202a && cp <= 0x202e) return true;            /* LRE RLE PDF LRO RLO */
    if (cp >= 0x2066 && cp <= 0x2069) return true;            /* LRI RLI FSI PDI */
    return cp == 0x200e || cp == 0x200f || cp == 0x061c;      /* LRM RLM ALM */
}

size_t TermSafe_decode(const unsigned char *s, size_t n, uint32_t *cp) {
    if (!n) return 0;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t len;
    uint32_t c, min;
    if ((s[0] & 0xe0) == 0xc0) len = 2, c = s[0] & 0x1f, min = 0x80;
    else if ((s[0] & 0xf0) == 0xe0) len = 3, c = s[0] & 0x0f, min = 0x800;
    else if ((s[0] & 0xf8) == 0xf0) len = 4, c = s[0] & 0x07, min = 0x10000;
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
    *cp = c;
    return len;
}

/* The escape for one unit: e[] gets it, returns its length; 0 when the unit is safe. */
static size_t escape_unit(const unsigned char *s, size_t n, bool keep_lines, size_t *used, char e[12]) {
    uint32_t cp;
    size_t len = TermSafe_decode(s, n, &cp);
    if (!len) { /* not UTF-8: the byte itself, visibly */
        *used = 1;
        return (size_t)snprintf(e, 12, "\\x%02x", s[0]);
    }
    *used = len;
    if (!TermSafe_unsafe(cp) || (keep_lines && (cp == '\n' || cp == '\t'))) return 0;
    if (cp == '\n') return (size_t)snprintf(e, 12, "\\n");
    if (cp == '\t') return (size_t)snprintf(e, 12, "\\t");
    if (cp == '\r') return (size_t)snprintf(e, 12, "\\r");
    if (cp < 0x80) return (size_t)snprintf(e, 12, "\\x%02x", (unsigned)cp);
    return (size_t)snprintf(e, 12, "\\u%04x", (unsigned)cp);
}

const char *TermSafe_str(const char *s, char *out, size_t cap) {
    if (!cap) return out;
    size_t o = 0, n = s ? strlen(s) : 0;
    const unsigned char *p = (const unsigned char *)s;
    while (n) {
        char e[12];
        size_t used, el = escape_unit(p, n, false, &used, e);
        const char *src = el ? e : (const char *)p;
        size_t sl = el ? el : used;
        if (o + sl >= cap) break;
        memcpy(out + o, src, sl);
        o += sl;
        p += used;
        n -= used;
    }
    out[o] = '\0';
    return out;
}

void TermSafe_fputs(const char *s, FILE *f, bool keep_lines) {
    size_t n = strlen(s);
    const unsigned char *p = (const unsigned char *)s, *run = p;
    while (n) {
        char e[12];
        size_t used, el = escape_unit(p, n, keep_lines, &used, e);
        if (el) {
            fwrite(run, 1, (size_t)(p - run), f);
            fwrite(e, 1, el, f);
            run = p + used;
        }
        p += used;
        n -= used;
    }
    fwrite(run, 1, (size_t)(p - run), f);
}

void TermSafe_vfprintf(FILE *f, const char *fmt, va_list ap) {
    char small[1024];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof small) {
        TermSafe_fputs(small, f, true);
    } else {
        char *big = malloc((size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, fmt, ap2);
            TermSafe_fputs(big, f, true);
            free(big);
        }
    }
    va_end(ap2);
}

void TermSafe_fprintf(FILE *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    TermSafe_vfprintf(f, fmt, ap);
    va_end(ap);
}
