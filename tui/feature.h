/* The viewer's features. The engine (app.c, keys.c, mainloop.c) knows no feature by
 * name: it walks the registry (features.c) and calls each feature's operations, as
 * uftrace drives its windows through one table of operations. A feature lives in one
 * file: its state, its keys and its operations; adding one is that file plus one line
 * of the registry. Every operation is optional (NULL: nothing to do). */
#ifndef OVTRACE_TUI_FEATURE_H
#define OVTRACE_TUI_FEATURE_H
#include <stdbool.h>
#include <stddef.h>

#include "ovtrace/tui/app.h"
#include "ovtrace/tui/keys.h"

typedef struct Feature {
    const char *name;
    /* Its bindings of the key table; ? lists them in registry order. */
    const KeyBinding *keys;
    size_t n_keys;
    /* Its state, made by App_new once the model is in (NULL: none); every operation
     * gets it back as st, a key handler through Feature_state. */
    void *(*init)(App *a);
    /* Frees st (registry order, last first); the model may be gone already. */
    void (*free)(App *a, void *st);
    /* The model was replaced (old: the previous one, still valid during the call):
     * event indexes are stale. The view has its new extent already. */
    void (*retrace)(App *a, void *st, const Trace *old);
    /* Brings its caches up to date with the view state before a frame (may do I/O). */
    void (*sync)(App *a, void *st);
    /* Sees a key before the table, later features first (help, then the kernel table,
     * sit on top): true when it took the key, *redraw set to what to redraw. */
    bool (*key)(App *a, void *st, const TuiKey *k, unsigned *redraw);
    /* Draws over the timeline (labels and plot), after it. */
    void (*render)(App *a, void *st, Grid *g, const Layout *L);
    /* Draws the side panel (frame and content) when it has one to show, later features
     * first: true when it did (the runs compared cover the details and range panel). */
    bool (*panel)(App *a, void *st, Grid *g, Rect panel, bool at_right);
} Feature;

/* Designated initialiser of a feature's key table. */
#define FEATURE_KEYS(table) .keys = (table), .n_keys = sizeof(table) / sizeof((table)[0])

/* The registry, in order (features.c). */
extern const Feature *const FEATURES[];
extern const size_t N_FEATURES;

/* The state of feature f in a (what its init returned). */
void *Feature_state(const App *a, const Feature *f);

/* The engine's walks over the registry. */
void Features_init(App *a);
void Features_free(App *a);
void Features_retrace(App *a, const Trace *old);
void Features_sync(App *a);
bool Features_key(App *a, const TuiKey *k, unsigned *redraw);
void Features_render(App *a, Grid *g, const Layout *L);
bool Features_panel(App *a, Grid *g, Rect panel, bool at_right);

#endif
