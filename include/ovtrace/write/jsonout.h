/* Minimal JSON output helpers: exact int64 numbers (a double cannot hold epoch ns) and
 * correctly escaped strings. */
#ifndef OVTRACE_JSONOUT_H
#define OVTRACE_JSONOUT_H
#include <stdio.h>

/* Writes s as a JSON string literal (quotes included): always valid JSON; control,
 * C1 and bidi characters as \u escapes, bytes that are not UTF-8 as \ufffd. */
void JsonOut_string(FILE *out, const char *s);

#endif
