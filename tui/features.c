/* The registry of the viewer's features (feature.h) and the engine's walks over it. */
#include "feature.h"

#include <stdlib.h>

#include "ovtrace/base/alloc.h"
#include "app.h"

/* One line per feature: F(X) stands for X_feature, defined in the feature's file. The
 * order is the ? screen's (feature.h says where else it matters). Nav: time, lanes,
 * events and the mouse (navigate.c); CounterLane before Overview, whose lines replace
 * the timeline's, and before CollView, whose panel sections go above its figures;
 * Pin after them: it moves the lines they made; Session: redraw, resize, quit (app.c). */
#define FEATURE_LIST(F)                                                                                                \
    F(Nav)                                                                                                             \
    F(CounterLane)                                                                                                     \
    F(Search)                                                                                                          \
    F(Partner)                                                                                                         \
    F(CollView)                                                                                                        \
    F(Overview)                                                                                                        \
    F(Pin)                                                                                                             \
    F(Panel)                                                                                                           \
    F(ExportKey)                                                                                                       \
    F(Compare)                                                                                                         \
    F(Live)                                                                                                            \
    F(KTable)                                                                                                          \
    F(Sql)                                                                                                             \
    F(LazyLoad)                                                                                                        \
    F(Help)                                                                                                            \
    F(Session)

#define DECLARE(X) extern const Feature X##_feature;
#define ENTRY(X)   &X##_feature,
FEATURE_LIST(DECLARE)
const Feature *const FEATURES[] = {FEATURE_LIST(ENTRY)};
const size_t N_FEATURES = sizeof FEATURES / sizeof FEATURES[0];

size_t Features_bindingCount(void) {
    size_t n = 0;
    for (size_t f = 0; f < N_FEATURES; f++) n += FEATURES[f]->n_keys;
    return n;
}

const KeyBinding *Features_binding(size_t i) {
    for (size_t f = 0; f < N_FEATURES; f++) {
        if (i < FEATURES[f]->n_keys) return &FEATURES[f]->keys[i];
        i -= FEATURES[f]->n_keys;
    }
    return NULL;
}

const KeyBinding *Features_lookupKey(int code) {
    for (size_t f = 0; f < N_FEATURES; f++)
        for (size_t i = 0; i < FEATURES[f]->n_keys; i++)
            for (int j = 0; j < 6 && FEATURES[f]->keys[i].keys[j]; j++)
                if (FEATURES[f]->keys[i].keys[j] == code) return &FEATURES[f]->keys[i];
    return NULL;
}

void *Feature_state(const App *a, const Feature *f) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i] == f) return a->feat[i];
    return NULL;
}

void Features_init(App *a) {
    a->feat = xcalloc(N_FEATURES, sizeof *a->feat);
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->init) a->feat[i] = FEATURES[i]->init(a);
}

void Features_free(App *a) {
    if (!a->feat) return;
    for (size_t i = N_FEATURES; i-- > 0;)
        if (FEATURES[i]->free) FEATURES[i]->free(a, a->feat[i]);
    free(a->feat);
    a->feat = NULL;
}

void Features_retrace(App *a, const Trace *old) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->retrace) FEATURES[i]->retrace(a, a->feat[i], old);
}

bool Features_key(App *a, const TuiKey *k, unsigned *redraw) {
    for (size_t i = N_FEATURES; i-- > 0;)
        if (FEATURES[i]->key && FEATURES[i]->key(a, a->feat[i], k, redraw)) return true;
    return false;
}

bool Features_cover(App *a, Grid *g) {
    for (size_t i = N_FEATURES; i-- > 0;)
        if (FEATURES[i]->cover && FEATURES[i]->cover(a, a->feat[i], g)) return true;
    return false;
}

void Features_render(App *a, Grid *g, const Layout *L) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->render) FEATURES[i]->render(a, a->feat[i], g, L);
}

unsigned Features_poll(App *a) {
    unsigned r = 0;
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->poll) r |= FEATURES[i]->poll(a, a->feat[i]);
    return r;
}

void Features_sync(App *a) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->sync) FEATURES[i]->sync(a, a->feat[i]);
}

int Features_plotReserve(const App *a, int plot_w) {
    int w = 0;
    for (size_t i = 0; i < N_FEATURES; i++) {
        int need = FEATURES[i]->plot_reserve ? FEATURES[i]->plot_reserve(a, a->feat[i], plot_w) : 0;
        if (need > w) w = need;
    }
    return w;
}

int Features_panelWidth(const App *a) {
    int w = 0;
    for (size_t i = 0; i < N_FEATURES; i++) {
        int need = FEATURES[i]->panel_width ? FEATURES[i]->panel_width(a, a->feat[i]) : 0;
        if (need > w) w = need;
    }
    return w;
}

bool Features_panel(App *a, Grid *g, Rect panel, bool at_right) {
    for (size_t i = N_FEATURES; i-- > 0;)
        if (FEATURES[i]->panel && FEATURES[i]->panel(a, a->feat[i], g, panel, at_right)) return true;
    return false;
}

bool Features_activate(App *a, const TuiKey *k, unsigned *redraw) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->activate && FEATURES[i]->activate(a, a->feat[i], k, redraw)) return true;
    return false;
}

void Features_lines(App *a, Lines *L) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->lines) FEATURES[i]->lines(a, a->feat[i], L);
}

bool Features_drawLine(App *a, Grid *g, const LineSlot *ls) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->draw_line && FEATURES[i]->draw_line(a, a->feat[i], g, ls)) return true;
    return false;
}

size_t Features_pick(const App *a, const Line *L) {
    for (size_t i = 0; i < N_FEATURES; i++) {
        size_t e = FEATURES[i]->pick ? FEATURES[i]->pick(a, a->feat[i], L) : SIZE_MAX;
        if (e != SIZE_MAX) return e;
    }
    return SIZE_MAX;
}

void Features_markRow(App *a, Grid *g, int y, Rect plot, uint32_t row, const ColumnInfo *cols) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->mark_row) FEATURES[i]->mark_row(a, a->feat[i], g, y, plot, row, cols);
}

uint32_t Features_legend(const App *a) {
    for (size_t i = 0; i < N_FEATURES; i++) {
        uint32_t glyph = FEATURES[i]->legend ? FEATURES[i]->legend(a, a->feat[i]) : 0;
        if (glyph) return glyph;
    }
    return 0;
}

const char *Features_legendNote(const App *a) {
    for (size_t i = 0; i < N_FEATURES; i++) {
        const char *note = FEATURES[i]->legend_note ? FEATURES[i]->legend_note(a, a->feat[i]) : NULL;
        if (note) return note;
    }
    return NULL;
}

const char *Features_title(const App *a, char *buf, size_t n) {
    for (size_t i = 0; i < N_FEATURES; i++) {
        const char *note = FEATURES[i]->title ? FEATURES[i]->title(a, a->feat[i], buf, n) : NULL;
        if (note) return note;
    }
    return NULL;
}

int Features_sections(App *a, PanelMode host, Grid *g, Rect c) {
    int used = 0;
    for (size_t i = 0; i < N_FEATURES; i++) {
        if (!FEATURES[i]->section) continue;
        used += FEATURES[i]->section(a, a->feat[i], host, g, (Rect){c.x, c.y, c.w, c.h - used});
    }
    return used;
}
