/* Number parsing for option values and names. */
#ifndef OVTRACE_BASE_PARSE_H
#define OVTRACE_BASE_PARSE_H
#include <stdbool.h>
#include <stdint.h>

/* A whole string as a decimal integer (strtoll's syntax: leading blanks and a sign
 * allowed; out of range saturates). False for "" or trailing characters. */
bool Parse_i64(const char *s, int64_t *v);

#endif
