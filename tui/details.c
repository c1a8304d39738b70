/* Details panel. */
#include "details.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/read/args.h"
#include "ovtrace/base/alloc.h"
#include "lanes_render.h"

void Details_init(DetailsCache *d) { *d = (DetailsCache){.idx = SIZE_MAX}; }

static void clear(DetailsCache *d) {
    for (size_t i = 0; i < d->n; i++) {
        free(d->keys[i]);
        free(d->vals[i]);
    }
    d->n = 0;
    d->idx = SIZE_MAX;
}

void Details_free(DetailsCache *d) {
    clear(d);
    free(d->keys);
    free(d->vals);
    Details_init(d);
}

static void add(DetailsCache *d, const char *k, const char *v) {
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 32;
        d->keys = xrealloc(d->keys, cap * sizeof *d->keys);
        d->vals = xrealloc(d->vals, cap * sizeof *d->vals);
        d->cap = cap;
    }
    d->keys[d->n] = xstrdup(k);
    d->vals[d->n] = xstrdup(v);
    d->n++;
}

void Details_add(DetailsCache *d, const char *key, const char *val) { add(d, key, val); }

int Details_formatPrecise(char *buf, size_t n, int64_t ns) {
    const char *sign = ns < 0 ? "-" : "";
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (a >= 1000000000u)
        return snprintf(buf, n, "%s%" PRIu64 ".%09" PRIu64 "s", sign, a / UINT64_C(1000000000), a % UINT64_C(1000000000));
    if (a >= 1000000u) return snprintf(buf, n, "%s%" PRIu64 ".%06" PRIu64 "ms", sign, a / UINT64_C(1000000), a % UINT64_C(1000000));
    if (a >= 1000u) return snprintf(buf, n, "%s%" PRIu64 ".%03" PRIu64 "us", sign, a / UINT64_C(1000), a % UINT64_C(1000));
    return snprintf(buf, n, "%s%" PRIu64 "ns", sign, a);
}

/* Lane description: "GPU 0 stream 7", "CPU pid 1166 tid 2571 (name)", with rank when
 * several sources are open. */
static void Details_laneName(const Trace *t, uint32_t lane, char *buf, size_t n) {
    const Lane *l = &t->lanes[lane];
    char rank[80];
    Lanes_rankLabel(t, l->source, rank, sizeof rank);
    const char *name = StrTab_get(t->strings, l->name);
    if (l->gpu)
        snprintf(buf, n, "%sGPU %" PRId64 " stream %" PRId64, rank, l->device, l->stream);
    else if (l->pid < 0 || l->tid < 0) /* string pid/tid keys: show the strings */
        snprintf(buf, n, "%sCPU \"%s\" thread \"%s\"", rank,
                 l->pid < 0 ? StrTab_get(t->strings, (uint32_t)(-1 - l->pid)) : "",
                 l->tid < 0 ? StrTab_get(t->strings, (uint32_t)(-1 - l->tid)) : name);
    else
        snprintf(buf, n, "%sCPU pid %" PRId64 " tid %" PRId64 "%s%s%s", rank, l->pid, l->tid, *name ? " (" : "",
                 name, *name ? ")" : "");
}

void Details_build(DetailsCache *d, const Trace *t, size_t idx) {
    if (d->idx == idx) return;
    clear(d);
    if (idx >= t->n_events) return;
    d->idx = idx;
    const TraceEvent *e = &t->events[idx];
    char buf[512], a[64], b[64];
    add(d, "name", Trace_name(t, e));
    if (e->kind == KIND_COUNTER) {
        snprintf(buf, sizeof buf, "%g", e->value);
        add(d, "value", buf);
    } else {
        Details_formatPrecise(a, sizeof a, e->dur);
        Details_formatPrecise(b, sizeof b, TraceEvent_end(e) - t->t_min);
        snprintf(buf, sizeof buf, "%s  (ends %s)", a, b);
        add(d, "duration", buf);
    }
    Details_formatPrecise(a, sizeof a, e->ts - t->t_min);
    snprintf(buf, sizeof buf, "%s  (@%" PRId64 "ns)", a, e->ts);
    add(d, "start", buf);
    snprintf(buf, sizeof buf, "%s (%s)", EventClass_name((EventClass)e->cls), EventKind_name((EventKind)e->kind));
    add(d, "class", buf);
    Details_laneName(t, e->lane, buf, sizeof buf);
    if (e->depth) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ", depth %u", (unsigned)e->depth);
    add(d, "lane", buf);
    if (e->corr) {
        snprintf(buf, sizeof buf, "%" PRIu32, e->corr);
        add(d, "corr", buf);
    }
    size_t p = Trace_partner(t, idx);
    if (p != SIZE_MAX) {
        const TraceEvent *pe = &t->events[p];
        char lane[160];
        Details_laneName(t, pe->lane, lane, sizeof lane);
        Details_formatPrecise(a, sizeof a, pe->ts - t->t_min);
        snprintf(buf, sizeof buf, "%s%.200s on %s at %s (c jumps)", EventKind_isLaunch((EventKind)pe->kind) ? "launched by " : "launches ",
                 Trace_name(t, pe), lane, a);
        add(d, "partner", buf);
    } else {
        /* a lazy load's GPU-first model has no CPU lanes yet: not "none" */
        add(d, "partner", t->gpu_only ? "loading (CPU lanes not loaded yet)" : "none");
    }
    char err[256];
    size_t len;
    char *raw = Args_fetchRaw(t, idx, &len, err, sizeof err);
    if (!raw) {
        add(d, "args", err);
        return;
    }
    /* from the text, not via cJSON's doubles: ids above 2^53 stay exact */
    if (!Details_addArgsJson(d, raw, len)) add(d, "args", "(unparsable JSON)");
    free(raw);
}

Rect Panel_frame(Grid *g, Rect r, bool at_right, const char *title, const Glyphs *gl) {
    Grid_fill(g, r, ' ', ROLE_PANEL, 0);
    if (at_right) {
        for (int y = r.y; y < r.y + r.h; y++) Grid_put(g, r.x, y, gl->vline, ROLE_DIM, 0);
        Grid_printf(g, r.x + 2, r.y, r.w - 3, ROLE_PANEL_TITLE, ATTR_BOLD, "%s", title);
        return (Rect){r.x + 2, r.y + 1, r.w - 3, r.h - 1};
    }
    Grid_hline(g, r.x, r.y, r.w, gl->hline, ROLE_DIM);
    Grid_printf(g, r.x + 2, r.y, r.w - 4, ROLE_PANEL_TITLE, ATTR_BOLD, " %s ", title);
    return (Rect){r.x + 1, r.y + 1, r.w - 2, r.h - 1};
}

/* The units a quantity's number is written with ("115.8 ms", "3.2 us", "12.5%", "4 MB",
 * "1.00x"): the space between the number and its unit is no break point. */
static const char *const UNITS[] = {"ns", "us", "\xc2\xb5s", "ms", "s", "min", "h", "%", "x", "B", "KB", "kB",
                                    "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "B/s", "KB/s", "MB/s", "GB/s"};

/* Whether s begins with a unit that ends there (at the end, a blank or punctuation). */
static bool unit_at(const char *s) {
    for (size_t i = 0; i < sizeof UNITS / sizeof *UNITS; i++) {
        size_t n = strlen(UNITS[i]);
        if (strncmp(s, UNITS[i], n)) continue;
        unsigned char c = (unsigned char)s[n];
        if (!c || c == ' ' || c == ',' || c == ';' || c == '.' || c == ')' || c == ':' || c == '/') return true;
    }
    return false;
}

/* How many code points of s to put on a line of w columns: all that fit, ending after a
 * space, a comma or "::" when one lies in the line's second half, so that a number, a
 * time or a template argument is never split over two lines (a word longer than half the
 * line still is). A number and its unit are one word: the space between them is kept. */
static int line_break(const char *s, int w) {
    const char *p = s;
    int n = 0, brk = 0;
    while (*p && n < w) {
        const char *q = p;
        uint32_t c = Utf8_decode(&q);
        n++;
        bool glued = c == ' ' && p > s && p[-1] >= '0' && p[-1] <= '9' && unit_at(q);
        if ((c == ' ' && !glued) || c == ',' || (c == ':' && *q != ':' && p > s && p[-1] == ':')) brk = n;
        p = q;
    }
    if (!*p || brk == 0 || brk < w / 2) return n;
    return brk;
}

/* Writes text wrapped into [x, x+w) from line *y, at word boundaries (line_break);
 * returns false when out of room. */
static bool wrap(Grid *g, Rect r, int x, int *y, const char *s, int role, bool ascii) {
    int w = r.x + r.w - x;
    if (w <= 0) return false;
    const char *p = s;
    char line[1024];
    do {
        if (*y >= r.y + r.h) return false;
        int n = line_break(p, w < 256 ? w : 256);
        const char *q = p;
        for (int i = 0; i < n; i++) Utf8_decode(&q);
        size_t len = (size_t)(q - p) < sizeof line - 1 ? (size_t)(q - p) : sizeof line - 1;
        memcpy(line, p, len);
        line[len] = 0;
        Grid_textAscii(g, x, *y, w, line, role, 0, ascii);
        (*y)++;
        p = q;
        while (*p == ' ') p++; /* a line never starts with the space it broke at */
    } while (*p);
    return true;
}

int Details_wrapText(Grid *g, Rect r, int y, const char *s, int role) {
    if (r.w <= 0) return 0;
    int lines = 0;
    const char *p = s;
    while (*p) {
        int n = line_break(p, r.w < 256 ? r.w : 256);
        const char *q = p;
        for (int i = 0; i < n; i++) Utf8_decode(&q);
        if (g && y + lines < r.y + r.h) {
            char line[1024];
            size_t len = (size_t)(q - p) < sizeof line - 1 ? (size_t)(q - p) : sizeof line - 1;
            memcpy(line, p, len);
            line[len] = 0;
            Grid_text(g, r.x, y + lines, r.w, line, role, 0);
        }
        lines++;
        p = q;
        while (*p == ' ') p++;
    }
    return lines;
}

/* Key column width: the longest key fits, up to a third of the panel; a longer key
 * goes on a line of its own with its value below (keys are never cut). */
static int key_width(const DetailsCache *d, int w) {
    int kw = 9, cap = w / 3 > 9 ? w / 3 : 9;
    for (size_t i = 0; i < d->n; i++) {
        int c = (int)Utf8_columns(d->keys[i]) + 1;
        if (c > kw) kw = c > cap ? cap : c;
    }
    return kw;
}

int Details_width(const DetailsCache *d) {
    if (d->idx == SIZE_MAX) return 0;
    int kw = 9, vw = 0;
    for (size_t i = 0; i < d->n; i++) {
        int k = (int)Utf8_columns(d->keys[i]) + 1, v = (int)Utf8_columns(d->vals[i]);
        if (k > kw) kw = k > DETAILS_KEY_MAX ? DETAILS_KEY_MAX : k;
        if (v > vw) vw = v;
    }
    return kw + (vw < DETAILS_VALUE_MIN ? vw : DETAILS_VALUE_MIN);
}

int Details_renderScroll(Grid *g, Rect r, const DetailsCache *d, const Glyphs *gl, bool ascii, int scroll) {
    (void)gl;
    if (r.w <= 0 || r.h <= 0) return 0;
    if (d->idx == SIZE_MAX) {
        Grid_text(g, r.x, r.y, r.w, "No event selected: j/k pick a lane, ./, step events, click one, / searches.",
                  ROLE_DIM, 0);
        return 1;
    }
    int kw = key_width(d, r.w);
    /* lay everything out on a tall scratch grid, then copy the visible lines */
    size_t need = 1;
    int vw = r.w - kw > 1 ? r.w - kw : 1;
    for (size_t i = 0; i < d->n; i++)
        need += 2 + Utf8_columns(d->keys[i]) / (size_t)r.w + Utf8_columns(d->vals[i]) / (size_t)(vw > 4 ? vw / 2 - 1 : 1); /* a wrapped line holds half its width at least */
    if (need > 20000) need = 20000; /* a 2 MB name is cut, not laid out */
    Grid tall;
    Grid_init(&tall, r.w, (int)need);
    Grid_fill(&tall, (Rect){0, 0, r.w, (int)need}, ' ', ROLE_PANEL, 0);
    Rect tr = {0, 0, r.w, (int)need};
    int y = 0;
    for (size_t i = 0; i < d->n && y < tr.h; i++) {
        int vx = kw;
        if ((int)Utf8_columns(d->keys[i]) > kw - 1) { /* the whole key, value below */
            if (!wrap(&tall, tr, 0, &y, d->keys[i], ROLE_PANEL_KEY, ascii)) break;
            vx = 2;
        } else {
            Grid_textAscii(&tall, 0, y, kw - 1, d->keys[i], ROLE_PANEL_KEY, 0, ascii);
        }
        if (!wrap(&tall, tr, vx, &y, d->vals[i], i == 0 ? ROLE_PANEL_TITLE : ROLE_PANEL, ascii)) break;
    }
    int total = y;
    if (scroll > total - r.h) scroll = total - r.h;
    if (scroll < 0) scroll = 0;
    for (int k = 0; k < r.h && scroll + k < total; k++)
        for (int x = 0; x < r.w; x++) {
            const Cell *c = Grid_cat(&tall, x, scroll + k);
            Cell *o = Grid_at(g, r.x + x, r.y + k);
            if (c && o) *o = *c;
        }
    Grid_free(&tall);
    if (total - scroll > r.h) {
        Grid_fill(g, (Rect){r.x, r.y + r.h - 1, r.w, 1}, ' ', ROLE_PANEL, 0);
        Grid_printf(g, r.x, r.y + r.h - 1, r.w, ROLE_DIM, 0, "... %d more lines (} scrolls down, { up)",
                    total - scroll - (r.h - 1));
    }
    return total;
}
