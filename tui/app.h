/* The view engine: the state every feature shares and a frame. Between frames the
 * features poll (a live source, the lazy load), keys go through keys.c, App_sync brings
 * the features' caches up to date and App_render composes a frame into a cell grid
 * (pure given the caches): the title, the ruler, the timeline (lanes_render.c), what
 * the features draw over it, the side panel, the legend and the status line. The loops
 * are in mainloop.c; App_new, the runs and the set-up the command line does are
 * declared in ovtrace/tui/viewer.h. */
#ifndef OVTRACE_TUI_APP_H
#define OVTRACE_TUI_APP_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ovtrace/tui/viewer.h"
#include "ovtrace/model/trace.h"
#include "grid.h"
#include "keys.h"
#include "layout.h"
#include "lines.h"
#include "prompt.h"
#include "search.h"
#include "tindex.h"
#include "theme.h"
#include "viewstate.h"

/* What every feature shares: the model and its index, the view state and the lines it
 * shows, the layout of the last frame, the glyphs, the active search, the prompt and
 * the status message. Each feature keeps the rest in its own state (feat). */
struct App {
    void **feat; /* per feature of the registry: its state (feature.h) */
    Trace *t;
    TraceIndex *idx;
    const TuiSource *src; /* a live source, or NULL */
    Caps caps;
    const Glyphs *gl;
    char title[128];
    char hw[128]; /* the GPUs the trace was recorded on, escaped for the title ("" if none) */
    ViewState v;
    Layout layout;   /* of the last frame (mouse, page sizes) */
    bool *collapsed; /* per group */
    /* groups left out of the lines (Lines_clutter) unless show_all (the v key) */
    bool *hidden;
    size_t n_hidden;
    bool show_all;
    bool runs_labelled; /* the groups' labels name their run and file (runs compared) */
    Lines lines;
    /* the active search: the timeline highlights it, the status line counts it, e
     * exports the names it matches */
    Search search;
    Prompt prompt;
    char msg[256];
    int msg_role;
    unsigned msg_seq; /* counts App_message calls: a key's handler said something (App_applyBinding) */
    bool quit;
    int exit_code;
    /* scratch for rendering */
    ColumnInfo *colbuf;
    int64_t *bandbuf;
    int scratch_cols;
};

/* Replaces the model (live mode); keeps the view where possible. */
void App_setTrace(App *a, Trace *t);
/* Routes a key: an open prompt first, then the features' key operations (later ones
 * first: the help screen, the open kernel table), else the key table (feature.h).
 * Returns what to redraw (REDRAW_*). */
unsigned App_key(App *a, const TuiKey *k);
/* Runs a binding's handler and applies its reaction to the status message; returns
 * the handler's result. */
unsigned App_applyBinding(App *a, const KeyBinding *b, const TuiKey *k);
/* Brings caches up to date with the view state (may read args from the trace file). */
void App_sync(App *a);
/* Renders a frame of g's size. Also records the layout (used by mouse handling). */
void App_render(App *a, Grid *g);
void App_message(App *a, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The line shown on timeline row k (0: the first below the ruler): the pinned lines,
 * then the scrolled ones from v.top; SIZE_MAX: none. */
size_t App_lineAtRow(const App *a, int k);

/* Selection helpers shared by key handlers. */
void App_selectEvent(App *a, size_t idx); /* expands its group, scrolls to it */
void App_selectLine(App *a, size_t line); /* picks the event at the cursor */
void App_rebuildLines(App *a);
size_t App_eventAt(const App *a, uint32_t row, int64_t ts, int64_t slack); /* nearest event, SIZE_MAX */

#endif
