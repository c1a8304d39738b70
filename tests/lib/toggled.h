/* One file loaded twice, with a loader fast path on and off (its set-disabled switch):
 * the same model field by field, or the same error. Include after <cmocka.h> and
 * testutil.h. */
#ifndef OVTRACE_TEST_TOGGLED_H
#define OVTRACE_TEST_TOGGLED_H
#include <stdbool.h>
#include <string.h>

#include "ovtrace/read/load.h"
#include "samemodel.h"

static inline Trace *load_toggled(const char *path, int threads, bool gpu_only, void (*set_disabled)(bool), bool on,
                                  char *err, size_t errlen) {
    set_disabled(!on);
    const char *paths[] = {path};
    LoadOptions o = {.cache = -1, .threads = threads, .gpu_only = gpu_only};
    Trace *t = Load_files(paths, 1, &o, err, errlen);
    set_disabled(false);
    return t;
}

/* The loads with the path on and off agree; a model holds more than a thousand events. */
static inline void assert_same_load_toggled(const char *path, int threads, bool gpu_only,
                                            void (*set_disabled)(bool)) {
    char e1[512] = "", e2[512] = "";
    Trace *a = load_toggled(path, threads, gpu_only, set_disabled, true, e1, sizeof e1);
    Trace *b = load_toggled(path, threads, gpu_only, set_disabled, false, e2, sizeof e2);
    if (!a || !b) {
        if (a || b || strcmp(e1, e2)) fail_msg("%s: errors differ: '%s' / '%s'", path, e1, e2);
        Trace_free(a);
        Trace_free(b);
        return;
    }
    assert_true(a->n_events > 1000);
    assert_int_equal(a->deferred, b->deferred);
    assert_same_model(a, b);
    Trace_free(a);
    Trace_free(b);
}

#endif
