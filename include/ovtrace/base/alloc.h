/* Allocation with one out-of-memory policy: these never return NULL; when memory runs
 * out they print "ovtrace: out of memory allocating N bytes" and exit with status 3
 * (no layer recovers from it, and exit rather than abort keeps core files out of the
 * user's directory). GROW: growable arrays; xopen_memstream: an in-memory FILE under the
 * same policy. */
#ifndef OVTRACE_BASE_ALLOC_H
#define OVTRACE_BASE_ALLOC_H
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn void xalloc_fail(size_t n);

static inline void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) xalloc_fail(n);
    return p;
}
static inline void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) xalloc_fail(n * sz);
    return p;
}
static inline void *xrealloc(void *q, size_t n) {
    void *p = realloc(q, n ? n : 1);
    if (!p) xalloc_fail(n);
    return p;
}
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* open_memstream(3); fails only when memory runs out */
FILE *xopen_memstream(char **buf, size_t *len);

/* Gives the pages wholly inside [from, to) back to the kernel (MADV_DONTNEED), for
 * memory that will not be read again: in a heap array they would read as zeros, in a
 * read-only file mapping they come back from the page cache. */
void release_pages(const void *from, const void *to);

/* Grow *arr (element size sz) so that it holds at least need elements. */
void grow_array(void **arr, size_t *cap, size_t need, size_t sz);
/* The same, the call made only when the array is full: appends in the parser's per-event
 * loop cost a compare, not a call. arr, cap and need are evaluated more than once. */
#define GROW(arr, cap, need) \
    ((size_t)(need) > (cap) ? grow_array((void **)&(arr), &(cap), (need), sizeof *(arr)) : (void)0)

#endif
