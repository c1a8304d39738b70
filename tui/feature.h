/* The viewer's features. The engine (app.c, keys.c, mainloop.c) knows no feature by
 * name: it walks the registry (features.c) and calls each feature's operations. A
 * feature lives in one file: its state, its keys and its operations. Adding one is
 * that file plus one line of the registry. */
#ifndef OVTRACE_TUI_FEATURE_H
#define OVTRACE_TUI_FEATURE_H
#include <stddef.h>

#include "ovtrace/tui/keys.h"

typedef struct Feature {
    const char *name;
    /* Its bindings of the key table; ? lists them in registry order. */
    const KeyBinding *keys;
    size_t n_keys;
} Feature;

/* Designated initialiser of a feature's key table. */
#define FEATURE_KEYS(table) .keys = (table), .n_keys = sizeof(table) / sizeof((table)[0])

/* The registry, in order (features.c). */
extern const Feature *const FEATURES[];
extern const size_t N_FEATURES;

#endif
