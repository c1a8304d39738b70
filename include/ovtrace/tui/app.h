/* The viewer application: model + index + view state + caches. The main loop polls
 * an optional live source, routes keys through the key table, refreshes caches
 * (App_sync: details args, range report) and renders a frame into a cell grid
 * (App_render, pure given the caches). The interactive loop paints the grid with
 * crt.c; the headless loop (--frames/--keys/--dump) prints it (both: tui/mainloop.c). */
#ifndef OVTRACE_TUI_APP_H
#define OVTRACE_TUI_APP_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"
#include "ovtrace/tui/details.h"
#include "ovtrace/tui/grid.h"
#include "ovtrace/tui/keys.h"
#include "ovtrace/tui/layout.h"
#include "ovtrace/tui/lines.h"
#include "ovtrace/tui/prompt.h"
#include "ovtrace/tui/search.h"
#include "ovtrace/tui/tindex.h"
#include "ovtrace/tui/theme.h"
#include "ovtrace/tui/viewstate.h"

/* A model that grows (live mode). poll() is called between frames: it may
 * append data and return a new finished model in *t (the old one stays owned by the
 * source until the next poll); it returns true when *t changed. set_frozen tells the
 * source the user froze the display (it may keep collecting). describe() gives a short
 * state text for the title bar ("LIVE 12k ev/s"). All optional but poll. */
typedef struct {
    bool (*poll)(void *ctx, Trace **t);
    void (*set_frozen)(void *ctx, bool frozen);
    const char *(*describe)(void *ctx);
    void *ctx;
    /* Saves the whole current buffer to path (the E key; live mode); msg gets the
     * result shown in the status bar. Optional. */
    bool (*save)(void *ctx, const char *path, char *msg, size_t msglen);
    /* The whole retained buffer as one model, for a frozen display, so that everything
     * retained can be browsed (the followed snapshots are capped). Called when
     * the display freezes and then between frames while frozen until it returns true:
     * a source may build it in the background (set_frozen(false) drops it). Same
     * ownership as poll. Optional. */
    bool (*snapshot_all)(void *ctx, Trace **t);
} TuiSource;

typedef struct App {
    void **feat; /* per feature of the registry: its state (tui/feature.h) */
    Trace *t;
    TraceIndex *idx;
    Caps caps;
    const Glyphs *gl;
    ViewState v;
    bool *collapsed; /* per group */
    Lines lines;
    Search search;
    Prompt prompt;
    char msg[256];
    int msg_role;
    unsigned msg_seq; /* counts App_message calls: a key's handler said something (Keys_apply) */
    Layout layout;
    bool quit;
    int exit_code;
    const TuiSource *src;
    char title[128];
    /* groups left out of the lines (Lines_clutter) unless show_all (the v key) */
    bool *hidden;
    size_t n_hidden;
    bool show_all;
    /* scratch for rendering */
    ColumnInfo *colbuf;
    int64_t *bandbuf;
    int scratch_cols;
    bool runs_labelled; /* the groups' labels name their run and file (runs compared, compare.c) */
} App;

App *App_new(Trace *t, Caps caps, const char *title);
void App_free(App *a);
/* Replaces the model (live mode); keeps the view where possible. */
void App_setTrace(App *a, Trace *t);
unsigned App_key(App *a, const TuiKey *k);
/* Brings caches up to date with the view state (may read args from the trace file). */
void App_sync(App *a);
/* Renders a frame of g's size. Also records the layout (used by mouse handling). */
void App_render(App *a, Grid *g);
void App_message(App *a, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Selection helpers shared by key handlers. */
void App_selectEvent(App *a, size_t idx);      /* expands its group, scrolls to it */
void App_selectLine(App *a, size_t line);      /* picks the event at the cursor */
void App_rebuildLines(App *a);
size_t App_eventAt(const App *a, uint32_t row, int64_t ts, int64_t slack); /* nearest event, SIZE_MAX */
void App_setRange(App *a, int64_t t0, int64_t t1);

/* Runs on the terminal until q; returns the exit status. */
int App_runInteractive(App *a, const TuiSource *src);
/* Renders max(frames, nkeys + 1) frames of w x h, feeding one key per frame; dumps
 * the last grid to out when dump is set. Returns the exit status. */
int App_runHeadless(App *a, const TuiSource *src, const TuiKey *keys, size_t nkeys, int frames, int w, int h,
                    bool dump, FILE *out);

#endif
