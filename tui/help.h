/* The `?` screen: every binding of the key table, the mouse, the prompt keys and what
 * the colours and glyphs mean. The text is a pure function of the key table: its line
 * count and any one line come without rendering the rest. */
#ifndef OVTRACE_TUI_HELP_H
#define OVTRACE_TUI_HELP_H
#include <stdbool.h>
#include <stddef.h>

#include "grid.h"

struct App;

/* Number of lines of help text. */
int Help_count(const struct App *a);
/* Line i (0-based) into buf; false past the last line. */
bool Help_line(const struct App *a, int i, char *buf, size_t n);
/* Up to max lines of help text (for tests); returns the count. */
int Help_lines(const struct App *a, char lines[][160], int max);
/* The help screen is shown, from line Help_scroll. */
bool Help_shown(const struct App *a);
int Help_scroll(const struct App *a);

#endif
