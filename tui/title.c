/* The viewer's title from its input paths. */
#include "ovtrace/tui/title.h"

#include <stdio.h>
#include <string.h>

void Title_inputs(char *buf, size_t n, const char *const *paths, size_t n_paths, const bool *dirs) {
    if (!n) return;
    buf[0] = '\0';
    if (!n_paths || !paths[0]) return;
    const char *p = paths[0];
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/') len--; /* "traces/" names "traces" */
    size_t b = len;
    while (b > 0 && p[b - 1] != '/') b--;
    if (b == len) b = 0; /* "/" alone */
    int k = snprintf(buf, n, "%.*s%s", (int)(len - b), p + b, dirs && dirs[0] && p[len - 1] != '/' ? "/" : "");
    if (k < 0 || (size_t)k >= n) return;
    if (n_paths > 1) snprintf(buf + k, n - (size_t)k, " +%zu", n_paths - 1);
}
