/* The terminal loop (htop / uftrace style), one engine for the timeline (view and
 * live: App_runInteractive) and the loading screen (LoadJob_runScreen). Each turn
 * follows the terminal's size, brings the state up to date and renders a frame into
 * the cell grid, paints it, then waits for a key; every key already typed goes to the
 * key hook (for the timeline: the key table, tui/keys.c) before the next frame, and
 * the hook's result says what to redraw (REDRAW_FULL: repaint every cell). The
 * headless loop (App_runHeadless, also here) feeds scripted keys one per frame with
 * no terminal. */
#ifndef OVTRACE_TUI_MAINLOOP_H
#define OVTRACE_TUI_MAINLOOP_H
#include <stdbool.h>

#include "grid.h"
#include "keys.h"

typedef struct {
    void *ctx;
    bool (*done)(void *ctx); /* checked before each frame and each key */
    /* updates the state, renders g (its size is the terminal's); true: the whole screen
     * changed (a model swapped in), paint it all */
    bool (*frame)(void *ctx, Grid *g);
    void (*painted)(void *ctx, bool full);       /* after each paint (frame marks, start-up); optional */
    unsigned (*key)(void *ctx, const TuiKey *k); /* REDRAW_* bits */
    /* ms to wait for a key after a frame; negative: sleep that long without reading
     * keys (they stay typed) */
    int (*wait_ms)(void *ctx);
    int batch; /* keys handled between two frames, at most (>= 1) */
} Mainloop;

/* On an initialised terminal (Crt_init): turns until done() holds. */
void Mainloop_run(const Mainloop *m);

#endif
