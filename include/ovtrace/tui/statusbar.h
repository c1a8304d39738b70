/* Title line (files, visible range, zoom, cursor) and status bar (prompt, message or
 * key hints). */
#ifndef OVTRACE_TUI_STATUSBAR_H
#define OVTRACE_TUI_STATUSBAR_H
#include "ovtrace/tui/grid.h"

struct App;

void Statusbar_title(const struct App *a, Grid *g, Rect r);
void Statusbar_status(const struct App *a, Grid *g, Rect r);

#endif
