/* The cell grid: the only thing renderers write to. */
#include "grid.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/termsafe.h"

/* Whether a code point takes exactly one column (no locale needed): combining marks,
 * zero-width and East Asian wide characters do not. */
static bool single_width(uint32_t cp) {
    if (cp >= 0x300 && cp <= 0x36f) return false;
    if (cp >= 0x200b && cp <= 0x200f) return false;
    if (cp >= 0x1100 && cp <= 0x115f) return false;
    if (cp >= 0x2e80 && cp <= 0xa4cf) return false;
    if (cp >= 0xac00 && cp <= 0xd7a3) return false;
    if (cp >= 0xf900 && cp <= 0xfaff) return false;
    if (cp >= 0xfe00 && cp <= 0xfe4f) return false;
    if (cp >= 0xff00 && cp <= 0xff60) return false;
    if (cp >= 0xffe0 && cp <= 0xffe6) return false;
    if (cp >= 0x1f000) return false;
    if (cp == 0xfffd) return true;
    return true;
}

void Grid_init(Grid *g, int w, int h) {
    g->w = g->h = 0;
    g->cells = NULL;
    Grid_resize(g, w, h);
}

void Grid_free(Grid *g) {
    free(g->cells);
    g->cells = NULL;
    g->w = g->h = 0;
}

void Grid_resize(Grid *g, int w, int h) {
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    if (w != g->w || h != g->h) {
        g->cells = xrealloc(g->cells, (size_t)w * (size_t)h * sizeof *g->cells);
        g->w = w;
        g->h = h;
    }
    Grid_clear(g);
}

void Grid_clear(Grid *g) {
    size_t n = (size_t)g->w * (size_t)g->h;
    for (size_t i = 0; i < n; i++) g->cells[i] = (Cell){' ', ROLE_DEFAULT, 0};
}

void Grid_put(Grid *g, int x, int y, uint32_t ch, int role, unsigned attr) {
    Cell *c = Grid_at(g, x, y);
    if (c) *c = (Cell){ch, (uint8_t)role, (uint8_t)attr};
}

void Grid_fill(Grid *g, Rect r, uint32_t ch, int role, unsigned attr) {
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++) Grid_put(g, x, y, ch, role, attr);
}

void Grid_hline(Grid *g, int x, int y, int w, uint32_t ch, int role) {
    for (int i = 0; i < w; i++) Grid_put(g, x + i, y, ch, role, 0);
}

int Grid_textAscii(Grid *g, int x, int y, int maxw, const char *s, int role, unsigned attr, bool ascii) {
    int n = 0;
    if (!s) return 0;
    while (*s && n < maxw) {
        uint32_t cp = Utf8_decode(&s);
        if (cp == '\t' || cp == '\n' || cp == '\r') cp = ' ';
        if (TermSafe_unsafe(cp)) cp = '?'; /* C0/C1, ESC, bidi controls: termsafe.h */
        if (cp >= 0x80) {
            if (ascii) cp = '?';
            else if (!single_width(cp)) cp = '?';
        }
        Grid_put(g, x + n, y, cp, role, attr);
        n++;
    }
    return n;
}

int Grid_text(Grid *g, int x, int y, int maxw, const char *s, int role, unsigned attr) {
    return Grid_textAscii(g, x, y, maxw, s, role, attr, false);
}

int Grid_printf(Grid *g, int x, int y, int maxw, int role, unsigned attr, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return Grid_text(g, x, y, maxw, buf, role, attr);
}

int Utf8_encode(uint32_t cp, char out[4]) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

uint32_t Utf8_decode(const char **sp) {
    const unsigned char *s = (const unsigned char *)*sp;
    uint32_t cp;
    int n;
    if (s[0] < 0x80) {
        *sp += 1;
        return s[0];
    } else if ((s[0] & 0xe0) == 0xc0) {
        cp = s[0] & 0x1f;
        n = 1;
    } else if ((s[0] & 0xf0) == 0xe0) {
        cp = s[0] & 0x0f;
        n = 2;
    } else if ((s[0] & 0xf8) == 0xf0) {
        cp = s[0] & 0x07;
        n = 3;
    } else {
        *sp += 1;
        return 0xfffd;
    }
    for (int i = 1; i <= n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            *sp += i;
            return 0xfffd;
        }
        cp = cp << 6 | (s[i] & 0x3f);
    }
    *sp += n + 1;
    return cp;
}

size_t Utf8_columns(const char *s) {
    size_t n = 0;
    while (*s) {
        Utf8_decode(&s);
        n++;
    }
    return n;
}

char *Grid_rowText(const Grid *g, int y, char *buf, size_t n) {
    size_t o = 0;
    size_t last = 0; /* length after the last non-blank */
    if (n == 0) return buf;
    for (int x = 0; x < g->w; x++) {
        const Cell *c = Grid_cat(g, x, y);
        char tmp[4];
        int k = Utf8_encode(c ? c->ch : ' ', tmp);
        if (o + (size_t)k + 1 > n) break;
        memcpy(buf + o, tmp, (size_t)k);
        o += (size_t)k;
        if (!(k == 1 && tmp[0] == ' ')) last = o;
    }
    buf[last] = '\0';
    return buf;
}

void Grid_dump(const Grid *g, FILE *out) {
    size_t n = (size_t)g->w * 4 + 1;
    char *buf = xmalloc(n);
    for (int y = 0; y < g->h; y++) {
        fputs(Grid_rowText(g, y, buf, n), out);
        fputc('\n', out);
    }
    free(buf);
}

int Grid_find(const Grid *g, int y, const char *needle) {
    size_t n = (size_t)g->w * 4 + 1;
    char *buf = xmalloc(n);
    Grid_rowText(g, y, buf, n);
    char *p = strstr(buf, needle);
    int col = -1;
    if (p) {
        *p = '\0';
        col = (int)Utf8_columns(buf);
    }
    free(buf);
    return col;
}

int Grid_findAny(const Grid *g, const char *needle, int *col) {
    for (int y = 0; y < g->h; y++) {
        int c = Grid_find(g, y, needle);
        if (c >= 0) {
            if (col) *col = c;
            return y;
        }
    }
    return -1;
}
