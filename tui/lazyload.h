/* The lazy load's entry for other features (the public part is in ovtrace/tui/viewer.h). */
#ifndef OVTRACE_TUI_LAZYLOAD_H
#define OVTRACE_TUI_LAZYLOAD_H
#include <stdbool.h>

struct App;

/* Loads path in the background with LazyLoad_setOptions' options and swaps it in for the
 * App's model, which the lazy load then owns; what names it in the title ("rank 3's
 * trace loading 40%"). False when a load already ran or runs. */
bool LazyLoad_openFile(struct App *a, const char *path, const char *what);

#endif
