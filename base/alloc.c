#include "ovtrace/base/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

_Noreturn void xalloc_fail(size_t n) {
    fprintf(stderr, "ovtrace: out of memory allocating %zu bytes\n", n);
    exit(3);
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

FILE *xopen_memstream(char **buf, size_t *len) {
    FILE *f = open_memstream(buf, len);
    if (!f) xalloc_fail(BUFSIZ); /* its first buffer */
    return f;
}

void grow_array(void **arr, size_t *cap, size_t need, size_t sz) {
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 16;
    while (c < need) c += c / 2 + 16; /* 1.5x: bounds slack for 10M-event arrays */
    *arr = xrealloc(*arr, c * sz);
    *cap = c;
}

void release_pages(const void *from, const void *to) {
    long p = sysconf(_SC_PAGESIZE);
    uintptr_t page = p > 0 ? (uintptr_t)p : 4096;
    uintptr_t a = ((uintptr_t)from + page - 1) & ~(page - 1), b = (uintptr_t)to & ~(page - 1);
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}
