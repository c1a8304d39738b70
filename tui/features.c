/* The registry of the viewer's features (feature.h). Its order is the order of the ?
 * screen; the operations say where else it matters. */
#include "feature.h"

#include <stdlib.h>

#include "ovtrace/base/alloc.h"

/* One line per feature: F(X) stands for X_feature, defined in the feature's file.
 * Nav: time, lanes, events and the mouse (keys.c); Session: redraw, resize, quit. */
#define FEATURE_LIST(F)                                                                                                \
    F(Nav)                                                                                                             \
    F(Search)                                                                                                          \
    F(Partner)                                                                                                         \
    F(CollView)                                                                                                        \
    F(Overview)                                                                                                        \
    F(Panel)                                                                                                           \
    F(ExportKey)                                                                                                       \
    F(Compare)                                                                                                         \
    F(Live)                                                                                                            \
    F(KTable)                                                                                                          \
    F(Help)                                                                                                            \
    F(Session)

#define DECLARE(X) extern const Feature X##_feature;
#define ENTRY(X)   &X##_feature,
FEATURE_LIST(DECLARE)
const Feature *const FEATURES[] = {FEATURE_LIST(ENTRY)};
const size_t N_FEATURES = sizeof FEATURES / sizeof FEATURES[0];

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

void Features_render(App *a, Grid *g, const Layout *L) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->render) FEATURES[i]->render(a, a->feat[i], g, L);
}

void Features_sync(App *a) {
    for (size_t i = 0; i < N_FEATURES; i++)
        if (FEATURES[i]->sync) FEATURES[i]->sync(a, a->feat[i]);
}

bool Features_panel(App *a, Grid *g, Rect panel, bool at_right) {
    for (size_t i = N_FEATURES; i-- > 0;)
        if (FEATURES[i]->panel && FEATURES[i]->panel(a, a->feat[i], g, panel, at_right)) return true;
    return false;
}
