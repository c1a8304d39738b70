/* Helpers private to the trace library. */
#ifndef OVTRACE_UTIL_H
#define OVTRACE_UTIL_H

/* glibc's regcomp copies a repeated sub-expression (x+ is xx*, x{m,n} is n copies), so
 * nested or stacked repetition ("a+++++++++++++++++++++", "((((a)+)+)+)...") costs
 * memory exponential in the pattern length (GBs from 30 bytes). Returns a reason to
 * refuse pat before compiling it, or NULL when its estimated size is reasonable. */
const char *regex_refuse(const char *pat);

#endif
