/* The viewer's title from its inputs: the first input's base name, a
 * directory's own name (with a trailing '/', also when the path ends in a slash),
 * and "+N" for the other inputs. Pure. */
#ifndef OVTRACE_TUI_TITLE_H
#define OVTRACE_TUI_TITLE_H
#include <stdbool.h>
#include <stddef.h>

/* dirs[i]: paths[i] is a directory (may be NULL: none is). */
void Title_inputs(char *buf, size_t n, const char *const *paths, size_t n_paths, const bool *dirs);

#endif
