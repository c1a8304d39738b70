/* The terminal: the only module that talks to curses. Sets the terminal up and always
 * restores it (normal exit, atexit, SIGINT/SIGTERM/SIGHUP, fatal signals), maps
 * curses keys and mouse events to TuiKey codes, and paints a cell grid, mapping
 * colour roles to pairs for 256 colours, 16/8 colours or none (NO_COLOR, TERM=vt100). */
#ifndef OVTRACE_TUI_CRT_H
#define OVTRACE_TUI_CRT_H
#include <stdbool.h>

#include "grid.h"
#include "keys.h"
#include "ovtrace/tui/terminal.h"

/* Crt_detectCaps, Crt_init, Crt_done: ovtrace/tui/terminal.h. */
/* The largest screen the viewer sizes itself for: ncurses allocates per cell. */
#define CRT_MAX_ROWS 1000
#define CRT_MAX_COLS 2000
/* The size to force when $LINES/$COLUMNS (or, unset, the terminal's own size) exceed
 * CRT_MAX_ROWS x CRT_MAX_COLS: true with *rows, *cols clamped; false when all is in
 * bounds. Pure. */
bool Crt_clampSize(const char *lines, const char *cols, int tty_rows, int tty_cols, int *rows, int *ncols);
/* True between Crt_init and Crt_done (App_runInteractive then reuses the terminal). */
bool Crt_active(void);
void Crt_size(int *w, int *h);
/* Waits up to timeout_ms for a key (0: poll). False on timeout. TK_INTERRUPT is
 * returned once a termination signal arrived; *sig tells which. */
bool Crt_readKey(TuiKey *k, int timeout_ms);
int Crt_signal(void);
/* Paints the grid; full repaints everything (Ctrl-L, resize). */
void Crt_paint(const Grid *g, bool full);

#endif
