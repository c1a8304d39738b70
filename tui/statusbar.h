/* Title line (files, visible range, zoom, cursor) and status bar (prompt, message or
 * key hints). */
#ifndef OVTRACE_TUI_STATUSBAR_H
#define OVTRACE_TUI_STATUSBAR_H
#include <stddef.h>

#include "grid.h"

struct App;

void Statusbar_title(const struct App *a, Grid *g, Rect r);
/* Live title: " " + meter, then title, cursor, view and zoom joined by sep,
 * each only while the line stays within w columns. Pure; tested. */
void Statusbar_compose(char *buf, size_t n, int w, const char *sep, const char *meter, const char *title,
                       const char *view, const char *cursor, const char *zoom);
void Statusbar_status(const struct App *a, Grid *g, Rect r);

#endif
