/* Regular expressions compiled one way: every pattern a user gives (rules files,
 * --include/--exclude, --step, the TUI's search) passes the same size check before
 * glibc's regcomp, and a failure reads "LABEL 'PATTERN': reason". */
#ifndef OVTRACE_BASE_REGEX_H
#define OVTRACE_BASE_REGEX_H
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* regcomp(re, pat, cflags) unless pat is refused first: glibc's regcomp copies a
 * repeated sub-expression (x+ is xx*, x{m,n} is n copies), so nested or stacked
 * repetition ("a+++++++++++++++++++++", "((((a)+)+)+)...") costs memory exponential in
 * the pattern length (GBs from 30 bytes). On failure re needs no regfree and err holds
 * "LABEL 'PAT': why" (the refusal or regerror's text). */
bool Regex_compile(regex_t *re, const char *pat, int cflags, const char *label, char *err, size_t errlen);

#endif
