/* One readable page between two unreadable ones, for tests that a scanner reads nothing
 * outside its bytes: data at the page's start or end is next to a page that faults. */
#ifndef OVTRACE_TEST_GUARDPAGE_H
#define OVTRACE_TEST_GUARDPAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    char *map;      /* the three pages */
    char *lo, *hi;  /* the readable page: [lo, hi) */
    size_t page;
} GuardPage;

/* false when the pages cannot be mapped or protected */
static inline bool GuardPage_map(GuardPage *g) {
    long pg = sysconf(_SC_PAGESIZE);
    *g = (GuardPage){NULL, NULL, NULL, pg > 0 ? (size_t)pg : 4096};
    g->map = mmap(NULL, g->page * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) return false;
    g->lo = g->map + g->page;
    g->hi = g->lo + g->page;
    return mprotect(g->map, g->page, PROT_NONE) == 0 && mprotect(g->hi, g->page, PROT_NONE) == 0;
}

static inline void GuardPage_unmap(GuardPage *g) { munmap(g->map, g->page * 3); }

#endif
