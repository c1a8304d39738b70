/* The `?` screen: every binding of the key table, the mouse, the prompt keys and what
 * the colours and glyphs mean. */
#ifndef OVTRACE_TUI_HELP_H
#define OVTRACE_TUI_HELP_H
#include "ovtrace/tui/grid.h"

struct App;

/* Lines of help text (for the screen and for tests); returns the count. */
int Help_lines(const struct App *a, char lines[][160], int max);
void Help_render(const struct App *a, Grid *g);

#endif
