/* Strings from a trace or a file name on their way to a terminal (stats tables, error
 * and warning messages, the TUI). Traces are hostile input: a kernel named
 * "\e]52;c;...\a" would write the clipboard, "\e]0;...\a" set the window title,
 * "\e[2J" clear the screen, U+202E reverse the rest of the line. One rule for all:
 * - C0 controls, DEL and C1 controls (U+0080-009F, which some terminals obey as 8-bit
 *   ESC sequences) are unsafe, ESC included;
 * - so are the bidi embeddings, overrides and isolates U+202A-202E, U+2066-2069 and the
 *   marks U+200E, U+200F, U+061C;
 * - bytes that are not UTF-8 are escaped too (a non-UTF-8 terminal reads 0x9b as CSI).
 * Text output escapes them visibly ("\x1b", "\u202e"); the TUI's cell grid puts a '?'
 * in their cell (one cell per code point, so layout does not shift). */
#ifndef OVTRACE_TERMSAFE_H
#define OVTRACE_TERMSAFE_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Whether the code point must not reach a terminal as is (tab and newline included). */
bool TermSafe_unsafe(uint32_t cp);

/* Decodes one UTF-8 sequence strictly (no overlong forms, surrogates or values past
 * U+10FFFF) from s[0..n); returns its length, or 0 when s[0] does not start one. */
size_t TermSafe_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Escapes s into out (always NUL-terminated, cut at a whole escape when out is too
 * small) and returns out: for a printf argument. Newlines and tabs are escaped too. */
const char *TermSafe_str(const char *s, char *out, size_t cap);

/* Writes s escaped to f; keep_lines leaves '\n' and '\t' as they are (messages). */
void TermSafe_fputs(const char *s, FILE *f, bool keep_lines);

/* fprintf whose whole result is escaped, keeping newlines and tabs: for messages that
 * embed file names or names from a trace. */
void TermSafe_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void TermSafe_vfprintf(FILE *f, const char *fmt, va_list ap);

#endif
