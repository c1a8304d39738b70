/* SIGBUS from a mapped input that shrank under us (another process truncated or
 * rewrote it while we read it): reads of a mapping run under a guard, and a fault
 * inside one jumps back to the guard instead of killing the process. Guards are per
 * thread, so the parallel loader's workers each have their own.
 *
 *     MapGuard g;
 *     MapGuard_arm(&g);
 *     if (sigsetjmp(g.env, 1)) { ...the file changed: report it... }
 *     else { ...read the mapping... }
 *     MapGuard_disarm(&g);
 *
 * Only objects outside the function that holds the guard (or volatile ones) may be
 * relied on after a fault: keep the guarded work in a callee. */
#ifndef OVTRACE_MAPGUARD_H
#define OVTRACE_MAPGUARD_H
#include <setjmp.h>

typedef struct MapGuard {
    sigjmp_buf env;
    struct MapGuard *prev;
} MapGuard;

/* Arms g for this thread; a SIGBUS jumps to g.env (set right after, by the caller)
 * and disarms it. */
void MapGuard_arm(MapGuard *g);
void MapGuard_disarm(MapGuard *g);

#endif
