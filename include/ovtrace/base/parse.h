/* Number parsing for option values and names. */
#ifndef OVTRACE_BASE_PARSE_H
#define OVTRACE_BASE_PARSE_H
#include <stdbool.h>
#include <stdint.h>

/* A whole string as a decimal integer (strtoll's syntax: leading blanks and a sign
 * allowed; out of range saturates). False for "" or trailing characters. */
bool Parse_i64(const char *s, int64_t *v);

/* A size in bytes, the one syntax of every size option (--max-token, serve --mem-cap):
 * digits, an optional fraction, an optional binary unit K, M, G or T (either case; 1024
 * based) with an optional "i", an optional "B": "1073741824", "64M", "1.5GiB", "512kB".
 * No sign or blanks; a fraction needs a unit and is rounded to whole bytes. False above 2^62 bytes. */
bool Parse_bytes(const char *s, uint64_t *v);

#endif
