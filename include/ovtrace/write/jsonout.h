/* Minimal JSON output helpers: exact int64 numbers (a double cannot hold epoch ns) and
 * correctly escaped strings. */
#ifndef OVTRACE_JSONOUT_H
#define OVTRACE_JSONOUT_H
#include <stddef.h>
#include <stdio.h>

/* Writes s as a JSON string literal (quotes included): always valid JSON; control,
 * C1 and bidi characters as \u escapes, bytes that are not UTF-8 as \ufffd. */
void JsonOut_string(FILE *out, const char *s);

/* The same literal for n bytes at s, handed to put in pieces. */
void JsonOut_escape(const char *s, size_t n, void (*put)(void *ctx, const char *p, size_t n), void *ctx);

#endif
