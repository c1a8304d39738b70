/* What an ovtrace export says about itself: the range it was cut from. The viewer opens
 * a range export on that range. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/write/export.h"

/* "null" (open: keeps *v) or a decimal int64 at *pp; advances past it. */
static bool bound(const char **pp, int64_t *v) {
    const char *p = *pp;
    if (!strncmp(p, "null", 4)) {
        *pp = p + 4;
        return true;
    }
    char *end;
    errno = 0;
    long long x = strtoll(p, &end, 10);
    if (errno || end == p) return false;
    *v = x;
    *pp = end;
    return true;
}

bool Export_recordedRange(const Trace *t, int64_t *t0, int64_t *t1) {
    bool found = false;
    for (size_t i = 0; i < t->n_sources; i++) {
        const char *m = t->sources[i].meta_json;
        const char *ov = m ? strstr(m, "\"ovtrace\":{\"export\":") : NULL;
        const char *r = ov ? strstr(ov, ",\"range_ns\":[") : NULL;
        if (!r) return false; /* every source must be a range export */
        /* exact ns from the text: the values exceed a double's 2^53 */
        const char *p = r + strlen(",\"range_ns\":[");
        int64_t a = INT64_MIN, b = INT64_MAX;
        if (!bound(&p, &a) || *p++ != ',' || !bound(&p, &b) || *p != ']') return false;
        if (a == INT64_MIN && b == INT64_MAX) return false; /* not a range export */
        if (found && (a != *t0 || b != *t1)) return false; /* different ranges */
        *t0 = a, *t1 = b;
        found = true;
    }
    return found && (*t0 == INT64_MIN || *t1 == INT64_MAX || *t0 < *t1);
}
