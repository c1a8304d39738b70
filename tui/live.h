/* A live session in the viewer (live.c). */
#ifndef OVTRACE_TUI_LIVE_H
#define OVTRACE_TUI_LIVE_H
#include <stdbool.h>

struct App;

/* The display is frozen and the source's whole buffer is still on its way. */
bool Live_allPending(const struct App *a);

#endif
