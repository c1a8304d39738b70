/* The terminal as the command line sets it up for the viewer (tui/crt.c). */
#ifndef OVTRACE_TUI_TERMINAL_H
#define OVTRACE_TUI_TERMINAL_H
#include <stdbool.h>

/* What the output can show: Unicode glyphs (else ASCII) and colours (256, 16/8, 0). */
typedef struct {
    bool unicode;
    int colors;
} Caps;

typedef enum { COLOR_MODE_AUTO, COLOR_MODE_256, COLOR_MODE_16, COLOR_MODE_NONE } ColorMode;

/* What the environment allows, without touching the terminal: NO_COLOR and TERM
 * (vt100, dumb, ...) turn colour off; a non-UTF-8 locale or such a TERM means ASCII. */
Caps Crt_detectCaps(ColorMode mode, bool force_ascii);
/* Starts curses with caps from Crt_detectCaps, refined from the terminal's colour
 * count. False if the terminal cannot be opened (message printed). */
bool Crt_init(Caps *caps);
/* Restores the terminal; safe to call more than once. */
void Crt_done(void);

#endif
