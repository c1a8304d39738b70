/* Number parsing (include/ovtrace/base/parse.h). */
#include "ovtrace/base/parse.h"

#include <stdlib.h>

bool Parse_i64(const char *s, int64_t *v) {
    char *end;
    if (!*s) return false;
    long long x = strtoll(s, &end, 10);
    if (*end) return false;
    *v = x;
    return true;
}
