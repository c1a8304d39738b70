#include "util.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void grow_array(void **arr, size_t *cap, size_t need, size_t sz) {
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 16;
    while (c < need) c += c / 2 + 16; /* 1.5x: bounds slack for 10M-event arrays */
    *arr = xrealloc(*arr, c * sz);
    *cap = c;
}
