/* The time ruler. */
#include "ruler.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tindex.h"

int64_t Ruler_step(int64_t span, int cols, int min_gap) {
    if (span <= 0 || cols <= 0) return 1;
    static const int64_t M[3] = {1, 2, 5};
    for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10)
        for (int i = 0; i < 3; i++) {
            int64_t step = M[i] * p;
            /* columns between ticks = step * cols / span */
            if ((__int128)step * cols >= (__int128)span * min_gap) return step;
        }
    return span;
}

int Ruler_unit(int64_t res, int64_t *unit_ns, const char **name) {
    static const struct {
        int64_t ns;
        const char *name;
    } U[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
    if (res < 1) res = 1;
    size_t k = 3;
    for (size_t i = 0; i < 4; i++)
        if (res >= U[i].ns / 10) { /* res * 10 >= ns, without overflow */
            k = i;
            break;
        }
    *unit_ns = U[k].ns;
    *name = U[k].name;
    int dec = 0;
    for (int64_t q = U[k].ns; q > res && dec < 9; q /= 10) dec++;
    return dec;
}

int Ruler_format(char *buf, size_t n, int64_t rel, int64_t res) {
    int64_t u;
    const char *name;
    int dec = Ruler_unit(res, &u, &name);
    const char *sign = rel < 0 ? "-" : "";
    uint64_t a = rel < 0 ? (uint64_t)0 - (uint64_t)rel : (uint64_t)rel;
    uint64_t whole = a / (uint64_t)u, frac = a % (uint64_t)u;
    uint64_t div = (uint64_t)u;
    for (int i = 0; i < dec; i++) div /= 10;
    if (whole == 0 && (dec == 0 || frac / (div ? div : 1) == 0)) sign = ""; /* never "-0.0s" */
    if (dec == 0) return snprintf(buf, n, "%s%" PRIu64 "%s", sign, whole, name);
    return snprintf(buf, n, "%s%" PRIu64 ".%0*" PRIu64 "%s", sign, whole, dec, frac / (div ? div : 1), name);
}

void Ruler_render(Grid *g, Rect r, Rect left, const ViewState *v, const Glyphs *gl) {
    int64_t t0 = v->t0, t1 = v->t1, span = t1 - t0;
    if (r.w <= 0 || span <= 0) return;
    Grid_fill(g, (Rect){r.x, r.y, r.w, 2}, ' ', ROLE_RULER, 0);
    Grid_hline(g, r.x, r.y + 1, r.w, gl->hline, ROLE_RULER);
    int64_t step = Ruler_step(span, r.w, 14);
    int64_t origin = v->min_t;
    /* first tick at or after t0, on a multiple of step relative to the origin */
    int64_t rel0 = t0 - origin;
    int64_t k = rel0 >= 0 ? (rel0 + step - 1) / step : -((-rel0) / step);
    int64_t sub = step / 5 >= 1 && (__int128)(step / 5) * r.w >= (__int128)span * 3 ? step / 5 : 0;
    if (sub) {
        int64_t ks = rel0 >= 0 ? (rel0 + sub - 1) / sub : -((-rel0) / sub);
        for (int64_t tt = origin + ks * sub; tt < t1; tt += sub) {
            int c = TraceIndex_colOf(t0, t1, r.w, tt);
            if (c >= 0 && c < r.w) Grid_put(g, r.x + c, r.y + 1, gl->tick, ROLE_RULER, 0);
        }
    }
    int last_end = -1;
    for (int64_t tt = origin + k * step; tt < t1; tt += step) {
        int c = TraceIndex_colOf(t0, t1, r.w, tt);
        if (c < 0 || c >= r.w) continue;
        Grid_put(g, r.x + c, r.y + 1, gl->tick_major, ROLE_RULER, 0);
        char lab[48];
        Ruler_format(lab, sizeof lab, tt - origin, step);
        int len = (int)strlen(lab);
        if (c > last_end && c + len <= r.w) {
            Grid_text(g, r.x + c, r.y, len, lab, ROLE_RULER_LABEL, 0);
            last_end = c + len;
        }
    }
    /* range marks */
    if (v->mark0 != VIEW_NO_MARK) {
        int64_t a = v->mark0, b = v->mark1 != VIEW_NO_MARK ? v->mark1 : v->mark0;
        if (b < a) {
            int64_t x = a;
            a = b;
            b = x;
        }
        int ca = TraceIndex_colOf(t0, t1, r.w, a), cb = TraceIndex_colOf(t0, t1, r.w, b);
        for (int c = ca < 0 ? 0 : ca; c <= cb && c < r.w; c++) {
            Cell *cell = Grid_at(g, r.x + c, r.y + 1);
            if (cell) cell->role = ROLE_RANGE;
        }
        if (ca >= 0 && ca < r.w) Grid_put(g, r.x + ca, r.y + 1, '[', ROLE_RANGE, ATTR_BOLD);
        if (v->mark1 != VIEW_NO_MARK && cb >= 0 && cb < r.w) Grid_put(g, r.x + cb, r.y + 1, ']', ROLE_RANGE, ATTR_BOLD);
    }
    int cc = TraceIndex_colOf(t0, t1, r.w, v->cursor);
    if (cc >= 0 && cc < r.w) Grid_put(g, r.x + cc, r.y + 1, gl->cursor_mark, ROLE_CURSOR, ATTR_BOLD);
    /* left: unit and cursor time */
    if (left.w > 0) {
        int64_t u;
        const char *uname;
        Ruler_unit(step, &u, &uname);
        Grid_fill(g, (Rect){left.x, r.y, left.w, 2}, ' ', ROLE_RULER, 0);
        Grid_printf(g, left.x, r.y, left.w, ROLE_RULER, 0, "time (%s)", uname);
        char cur[48];
        int64_t res = span / r.w > 0 ? span / r.w : 1;
        Ruler_format(cur, sizeof cur, v->cursor - origin, res);
        Grid_put(g, left.x, r.y + 1, gl->cursor_mark, ROLE_CURSOR, ATTR_BOLD);
        Grid_text(g, left.x + 2, r.y + 1, left.w - 2, cur, ROLE_CURSOR, ATTR_BOLD);
    }
}
