/* Title and status lines. */
#include "statusbar.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "ruler.h"
#include "feature.h"

/* Joins " " + the non-empty parts with sep, leaving out the later ones (the less
 * important) when the line would exceed w columns; the first part always stays. */
void Statusbar_compose(char *buf, size_t n, int w, const char *sep, const char *meter, const char *title,
                       const char *view, const char *cursor, const char *zoom) {
    const char *parts[] = {meter, title, cursor, view, zoom};
    size_t seplen = Utf8_columns(sep);
    size_t k = (size_t)snprintf(buf, n, " %s", meter);
    if (k >= n) return;
    size_t cols = Utf8_columns(buf);
    for (size_t i = 1; i < sizeof parts / sizeof parts[0]; i++) {
        if (!parts[i] || !*parts[i]) continue;
        size_t c = seplen + Utf8_columns(parts[i]);
        if (cols + c > (size_t)w) continue;
        int m = snprintf(buf + k, n - k, "%s%s", sep, parts[i]);
        if (m < 0 || (size_t)m >= n - k) break;
        k += (size_t)m;
        cols += c;
    }
}

void Statusbar_title(const App *a, Grid *g, Rect r) {
    const ViewState *v = &a->v;
    Grid_fill(g, r, ' ', ROLE_TITLE, 0);
    int64_t span = View_span(v);
    int64_t res = span / (a->layout.plot.w > 0 ? a->layout.plot.w : 80);
    if (res < 1) res = 1;
    char t0[48], t1[48], sp[48], cur[48];
    Ruler_format(t0, sizeof t0, v->t0 - v->min_t, res);
    Ruler_format(t1, sizeof t1, v->t1 - v->min_t, res);
    Ruler_format(sp, sizeof sp, span, res);
    Ruler_format(cur, sizeof cur, v->cursor - v->min_t, res);
    const char *sep = a->gl->unicode ? " \xe2\x94\x82 " : " | ";
    char buf[1024];
    /* the file and, for a recording on a GPU, which one */
    char title[300];
    snprintf(title, sizeof title, "%s%s%s", a->title, a->hw[0] ? " on " : "", a->hw);
    if (a->src) { /* live: the meter and its state first, so that 80 columns show them */
        char view[160], zoom[48], curs[64];
        snprintf(view, sizeof view, "view %s..%s (%s)", t0, t1, sp);
        snprintf(zoom, sizeof zoom, "zoom %.1fx", View_zoomLevel(v));
        snprintf(curs, sizeof curs, "cursor %s", cur);
        const char *d = a->src->describe ? a->src->describe(a->src->ctx) : "LIVE";
        char meter[320];
        snprintf(meter, sizeof meter, "%s%s%s", d ? d : "LIVE", v->frozen ? " FROZEN" : "", v->follow && !v->frozen ? " follow" : "");
        Statusbar_compose(buf, sizeof buf, r.w, sep, meter, title, view, curs, zoom);
        Grid_textAscii(g, r.x, r.y, r.w, buf, ROLE_TITLE, ATTR_BOLD, !a->gl->unicode);
        return;
    }
    /* a recording of the simulator says so on every screen; a lazy load, what is missing */
    char lz[256];
    const char *lazy = Features_title(a, lz, sizeof lz);
    const char *sim = a->t && a->t->simulated && !a->src ? " SIMULATED" : "";
    snprintf(buf, sizeof buf, " ovtrace  %s%s%s%s%sview %s..%s (%s)%szoom %.1fx%scursor %s", title, sim,
             lazy ? sep : "", lazy ? lazy : "", sep, t0, t1, sp, sep, View_zoomLevel(v), sep, cur);
    if (Utf8_columns(buf) > (size_t)r.w) { /* narrow: whole parts, the cursor before view and zoom (never "cursor 31m") */
        char head[512], view[160], zoom[48], curs[64];
        snprintf(head, sizeof head, "ovtrace  %s%s", title, sim);
        snprintf(view, sizeof view, "view %s..%s (%s)", t0, t1, sp);
        snprintf(zoom, sizeof zoom, "zoom %.1fx", View_zoomLevel(v));
        snprintf(curs, sizeof curs, "cursor %s", cur);
        Statusbar_compose(buf, sizeof buf, r.w, sep, head, lazy, view, curs, zoom);
    }
    Grid_textAscii(g, r.x, r.y, r.w, buf, ROLE_TITLE, ATTR_BOLD, !a->gl->unicode);
}

void Statusbar_status(const App *a, Grid *g, Rect r) {
    Grid_fill(g, r, ' ', ROLE_STATUS, 0);
    bool ascii = !a->gl->unicode;
    if (a->prompt.open) {
        int x = r.x;
        x += Grid_textAscii(g, x, r.y, r.w, a->prompt.label, ROLE_PROMPT, ATTR_BOLD, ascii);
        /* show the end of long input */
        size_t cols = Utf8_columns(a->prompt.buf);
        const char *p = a->prompt.buf;
        int room = r.x + r.w - x - 1;
        while (room > 0 && cols > (size_t)room) {
            Utf8_decode(&p);
            cols--;
        }
        x += Grid_textAscii(g, x, r.y, room, p, ROLE_PROMPT, 0, ascii);
        Grid_put(g, x, r.y, '_', ROLE_PROMPT, ATTR_BOLD);
        return;
    }
    int x = r.x;
    if (a->msg[0]) {
        Grid_textAscii(g, x, r.y, r.w, a->msg, a->msg_role, ATTR_BOLD, ascii);
        return;
    }
    static const char *hints[][2] = {
        {"?", "help"},    {"q", "quit"},  {"hl", "pan"},    {"+-", "zoom"},   {"jk", "lanes"}, {".,", "events"},
        {"/", "search"},  {"c", "launch"}, {"[]m", "range"}, {"f", "fit"},     {"0", "all"},   {"Enter", "fold"},
        {"e", "export"},
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        int need = (int)(strlen(hints[i][0]) + strlen(hints[i][1]) + 2);
        if (x + need > r.x + r.w) break;
        x += Grid_text(g, x, r.y, r.w, hints[i][0], ROLE_STATUS_KEY, ATTR_BOLD);
        x += Grid_text(g, x, r.y, r.w, ":", ROLE_STATUS, 0);
        x += Grid_text(g, x, r.y, r.w, hints[i][1], ROLE_STATUS, 0);
        x++;
    }
    if (a->search.active) {
        char buf[320];
        snprintf(buf, sizeof buf, " /%s: %zu match%s ", a->search.pattern, a->search.total,
                 a->search.total == 1 ? "" : "es");
        int len = (int)Utf8_columns(buf);
        if (x + len <= r.x + r.w) Grid_textAscii(g, r.x + r.w - len, r.y, len, buf, ROLE_MATCH_TEXT, 0, ascii);
    }
}
