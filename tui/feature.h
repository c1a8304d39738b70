/* The viewer's features. The engine (app.c, frame.c, mainloop.c, lanes_render.c) knows
 * no feature by name: it walks the registry (features.c) and calls each feature's
 * operations, as uftrace drives its windows through one table of operations. A feature
 * lives in one file: its state, its key table and its operations; adding one is that
 * file plus one line of the registry. Every operation is optional (NULL: nothing to do).
 *
 * Order: the registry's order is the ? screen's, and the order of poll, sync, activate,
 * lines (a later feature edits the lines after an earlier one) and section (each above
 * the ones before). Later features come first where one sits on top of another: key
 * (help, then the kernel table, take keys before the rest), cover and panel. */
#ifndef OVTRACE_TUI_FEATURE_H
#define OVTRACE_TUI_FEATURE_H
#include <stdbool.h>
#include <stddef.h>

#include "ovtrace/model/trace.h"
#include "ovtrace/tui/viewer.h"
#include "grid.h"
#include "keys.h"
#include "layout.h"
#include "lines.h"
#include "tindex.h"
#include "viewstate.h"

/* One timeline line to draw: its screen row, the labels column and the plot. */
typedef struct {
    const Line *line;
    int y;
    Rect labels, plot;
    bool selected;
} LineSlot;

typedef struct Feature {
    const char *name;
    /* Its bindings of the key table; ? lists them in registry order. */
    const KeyBinding *keys;
    size_t n_keys;

    /* ---- life ---- */
    /* Its state, made by App_new once the model is in (NULL: none); every operation
     * gets it back as st, a key handler through Feature_state. */
    void *(*init)(App *a);
    /* Frees st (last feature first); the model may be gone already. */
    void (*free)(App *a, void *st);
    /* The model was replaced (old: the previous one, still valid during the call):
     * event indexes are stale. The view has its new extent already; the lines are
     * built again after every feature's retrace. */
    void (*retrace)(App *a, void *st, const Trace *old);
    /* Between frames, before sync: may replace the model (App_setTrace); returns
     * POLL_* bits. */
    unsigned (*poll)(App *a, void *st);
    /* Brings its caches up to date with the view state before a frame (may do I/O). */
    void (*sync)(App *a, void *st);

    /* ---- keys ---- */
    /* Sees a key before the table: true when it took the key, *redraw set to what to
     * redraw (REDRAW_*). */
    bool (*key)(App *a, void *st, const TuiKey *k, unsigned *redraw);
    /* Enter or Space on the selected line (the engine folds a group otherwise): true
     * when it acted, *redraw set. */
    bool (*activate)(App *a, void *st, const TuiKey *k, unsigned *redraw);

    /* ---- the timeline ---- */
    /* Edits the timeline's lines after the engine built them. */
    void (*lines)(App *a, void *st, Lines *L);
    /* Draws a line it owns (label and plot): true when it did. */
    bool (*draw_line)(App *a, void *st, Grid *g, const LineSlot *ls);
    /* The event to select on a line it owns, at the cursor (SIZE_MAX: none). */
    size_t (*pick)(const App *a, const void *st, const Line *L);
    /* Marks a row of events after its names are drawn and before the selection. */
    void (*mark_row)(App *a, void *st, Grid *g, int y, Rect plot, uint32_t row, const ColumnInfo *cols);
    /* A glyph the legend should name (0: none); the first feature with one wins. */
    uint32_t (*legend)(const App *a, const void *st);
    /* What its lines show, for the legend in place of the event colours (NULL: none);
     * the first feature with one wins. */
    const char *(*legend_note)(const App *a, const void *st);

    /* ---- the screen ---- */
    /* A note for the title bar (NULL: none); the first feature with one wins. */
    const char *(*title)(const App *a, const void *st, char *buf, size_t n);
    /* Takes the whole screen (after the layout is known): true when it drew it. */
    bool (*cover)(App *a, void *st, Grid *g);
    /* Draws over the timeline (labels and plot), after it. */
    void (*render)(App *a, void *st, Grid *g, const Layout *L);
    /* Columns it needs at the right of the plot on every line (0: none), given the
     * plot's width; the widest wins (Layout_reserveRight) and is a->layout.values. */
    int (*plot_reserve)(const App *a, const void *st, int plot_w);
    /* Columns the side panel's content needs (0: any); the layout takes the widest. */
    int (*panel_width)(const App *a, const void *st);
    /* Draws the side panel (frame and content) when it has one to show: true when it
     * did (the runs compared cover the details and range panel). */
    bool (*panel)(App *a, void *st, Grid *g, Rect panel, bool at_right);
    /* A section at the bottom of the details or range panel (host) content rect c:
     * returns the lines it drew. */
    int (*section)(App *a, void *st, PanelMode host, Grid *g, Rect c);
} Feature;

/* What a poll says: the whole screen changed (repaint every cell); more data is on its
 * way (the loop comes back sooner). */
enum { POLL_REPAINT = 1, POLL_AGAIN = 2 };

/* Designated initialiser of a feature's key table. */
#define FEATURE_KEYS(table) .keys = (table), .n_keys = sizeof(table) / sizeof((table)[0])

/* The registry, in order (features.c). */
extern const Feature *const FEATURES[];
extern const size_t N_FEATURES;

/* The key table: every feature's bindings in registry order; the first binding of a
 * code (NULL: unbound). */
size_t Features_bindingCount(void);
const KeyBinding *Features_binding(size_t i);
const KeyBinding *Features_lookupKey(int code);

/* The state of feature f in a (what its init returned). */
void *Feature_state(const App *a, const Feature *f);

/* The engine's walks over the registry. */
void Features_init(App *a);
void Features_free(App *a);
void Features_retrace(App *a, const Trace *old);
/* POLL_* bits of all the features' polls. */
unsigned Features_poll(App *a);
void Features_sync(App *a);
bool Features_key(App *a, const TuiKey *k, unsigned *redraw);
bool Features_activate(App *a, const TuiKey *k, unsigned *redraw);
/* The widest plot_reserve of the features for a plot of plot_w columns. */
int Features_plotReserve(const App *a, int plot_w);
void Features_lines(App *a, Lines *L);
bool Features_drawLine(App *a, Grid *g, const LineSlot *ls);
size_t Features_pick(const App *a, const Line *L);
void Features_markRow(App *a, Grid *g, int y, Rect plot, uint32_t row, const ColumnInfo *cols);
uint32_t Features_legend(const App *a);
const char *Features_legendNote(const App *a);
const char *Features_title(const App *a, char *buf, size_t n);
bool Features_cover(App *a, Grid *g);
void Features_render(App *a, Grid *g, const Layout *L);
int Features_panelWidth(const App *a);
bool Features_panel(App *a, Grid *g, Rect panel, bool at_right);
/* The sections of the host panel at the bottom of c; returns the lines they took. */
int Features_sections(App *a, PanelMode host, Grid *g, Rect c);

#endif
