/* Overlap band and legend. */
#include "band.h"

#include <string.h>

BandState Band_pick(const int64_t ns[BAND__COUNT]) {
    int64_t total = 0;
    for (int s = 0; s < BAND__COUNT; s++) total += ns[s];
    if (total <= 0) return BAND_IDLE;
    if (ns[BAND_IDLE] * 8 >= total * 7) return BAND_IDLE;
    /* ties go to the state that matters most for overlap */
    static const BandState prio[] = {BAND_EXPOSED, BAND_HIDDEN, BAND_COMPUTE, BAND_MEMORY};
    BandState best = BAND_IDLE;
    int64_t bv = 0;
    for (size_t i = 0; i < 4; i++)
        if (ns[prio[i]] > bv) {
            bv = ns[prio[i]];
            best = prio[i];
        }
    return best;
}

void Band_renderRow(Grid *g, int x, int y, int w, const int64_t *ns, Caps caps, const Glyphs *gl) {
    for (int c = 0; c < w; c++) {
        const int64_t *col = ns + (size_t)c * BAND__COUNT;
        BandState st = Band_pick(col);
        uint32_t ch;
        if (caps.colors == 0) {
            ch = gl->band_mono[st];
        } else if (st == BAND_IDLE) {
            ch = gl->band_color[BAND_IDLE];
        } else if (gl->unicode) {
            int64_t total = 0;
            for (int s = 0; s < BAND__COUNT; s++) total += col[s];
            int64_t busy = total - col[BAND_IDLE];
            int k = total > 0 ? (int)((busy * 8 + total - 1) / total) : 8;
            if (k < 1) k = 1;
            if (k > 8) k = 8;
            ch = gl->lower[k];
        } else {
            ch = gl->band_color[st];
        }
        Grid_put(g, x + c, y, ch, ROLE_BAND + (int)st, 0);
    }
}

void Band_legend(Grid *g, Rect r, Caps caps, const Glyphs *gl, uint32_t wait_glyph, const char *note) {
    Grid_fill(g, r, ' ', ROLE_DEFAULT, 0);
    int x = r.x, end = r.x + r.w;
    x += Grid_text(g, x, r.y, end - x, "band:", ROLE_DIM, 0);
    static const BandState order[] = {BAND_COMPUTE, BAND_HIDDEN, BAND_EXPOSED, BAND_MEMORY, BAND_IDLE};
    for (size_t i = 0; i < 5 && x < end; i++) {
        BandState s = order[i];
        uint32_t ch = caps.colors == 0 ? gl->band_mono[s] : s == BAND_IDLE ? gl->band_color[s] : gl->legend_swatch;
        x++;
        if (caps.colors == 0 && ch == ' ') {
            x += Grid_text(g, x, r.y, end - x, "blank", ROLE_DIM, 0);
        } else {
            Grid_put(g, x, r.y, ch, ROLE_BAND + (int)s, 0);
            x++;
        }
        x++;
        x += Grid_text(g, x, r.y, end - x, BandState_label(s), ROLE_DEFAULT, 0);
    }
    if (wait_glyph && x + 13 <= end) { /* in the dim role, as the timeline draws it */
        x += 2;
        Grid_put(g, x++, r.y, wait_glyph, ROLE_DIM, 0);
        x++;
        x += Grid_text(g, x, r.y, end - x, "coll wait", ROLE_DEFAULT, 0);
    }
    if (note) {
        if (x + 2 + (int)strlen(note) <= end) Grid_text(g, x + 2, r.y, end - x - 2, note, ROLE_DIM, 0);
        return;
    }
    if (caps.colors == 0 || x + 20 >= end) return;
    x += 2;
    x += Grid_text(g, x, r.y, end - x, "events:", ROLE_DIM, 0);
    static const EventClass cls[] = {CLASS_COMPUTE, CLASS_COMM, CLASS_MEMORY, CLASS_SYNC, CLASS_CPU, CLASS_ANNOTATION};
    for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
        const char *name = EventClass_name(cls[i]);
        if (x + 3 + (int)strlen(name) > end) break;
        x++;
        Grid_put(g, x++, r.y, gl->legend_swatch, ROLE_CLASS + (int)cls[i], 0);
        x++;
        x += Grid_text(g, x, r.y, end - x, name, ROLE_DEFAULT, 0);
    }
}
