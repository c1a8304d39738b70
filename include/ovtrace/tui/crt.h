/* The terminal: the only module that talks to curses. Sets the terminal up and always
 * restores it (normal exit, atexit, SIGINT/SIGTERM/SIGHUP, fatal signals), maps
 * curses keys and mouse events to TuiKey codes, and paints a cell grid, mapping
 * colour roles to pairs for 256 colours, 16/8 colours or none (NO_COLOR, TERM=vt100). */
#ifndef OVTRACE_TUI_CRT_H
#define OVTRACE_TUI_CRT_H
#include <stdbool.h>

#include "ovtrace/tui/grid.h"
#include "ovtrace/tui/keys.h"

typedef enum { COLOR_MODE_AUTO, COLOR_MODE_256, COLOR_MODE_16, COLOR_MODE_NONE } ColorMode;

/* What the environment allows, without touching the terminal: NO_COLOR and TERM
 * (vt100, dumb, ...) turn colour off; a non-UTF-8 locale or such a TERM means ASCII. */
Caps Crt_detectCaps(ColorMode mode, bool force_ascii);
/* Starts curses with caps from Crt_detectCaps, refined from the terminal's colour
 * count. False if the terminal cannot be opened (message printed). */
/* The largest screen the viewer sizes itself for: ncurses allocates per cell. */
#define CRT_MAX_ROWS 1000
#define CRT_MAX_COLS 2000
/* The size to force when $LINES/$COLUMNS (or, unset, the terminal's own size) exceed
 * CRT_MAX_ROWS x CRT_MAX_COLS: true with *rows, *cols clamped; false when all is in
 * bounds. Pure. */
bool Crt_clampSize(const char *lines, const char *cols, int tty_rows, int tty_cols, int *rows, int *ncols);
bool Crt_init(Caps *caps);
/* True between Crt_init and Crt_done (App_runInteractive then reuses the terminal). */
bool Crt_active(void);
/* Restores the terminal; safe to call more than once. */
void Crt_done(void);
void Crt_size(int *w, int *h);
/* Waits up to timeout_ms for a key (0: poll). False on timeout. TK_INTERRUPT is
 * returned once a termination signal arrived; *sig tells which. */
bool Crt_readKey(TuiKey *k, int timeout_ms);
int Crt_signal(void);
/* Paints the grid; full repaints everything (Ctrl-L, resize). */
void Crt_paint(const Grid *g, bool full);

#endif
