/* Small helpers shared by the trace library: allocation that never returns NULL,
 * and growable arrays. */
#ifndef OVTRACE_UTIL_H
#define OVTRACE_UTIL_H
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static inline void *xmalloc_fail(size_t n) {
    fprintf(stderr, "ovtrace: out of memory allocating %zu bytes\n", n);
    exit(3);
}
static inline void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    return p ? p : xmalloc_fail(n);
}
static inline void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    return p ? p : xmalloc_fail(n * sz);
}
static inline void *xrealloc(void *q, size_t n) {
    void *p = realloc(q, n ? n : 1);
    return p ? p : xmalloc_fail(n);
}
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grow *arr (element size sz) so that it holds at least need elements. */
void grow_array(void **arr, size_t *cap, size_t need, size_t sz);
#define GROW(arr, cap, need) grow_array((void **)&(arr), &(cap), (need), sizeof *(arr))

#endif
