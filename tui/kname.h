/* Kernel names that can be told apart in a column of a given width (the kernel table,
 * the range panel's top kernels). C++ kernel names share long prefixes
 * ("void cutlass::device_kernel<dpsk::...>(...)"); cutting them at the column's width
 * makes four different GEMMs read the same. Pure functions, no curses. */
#ifndef OVTRACE_TUI_KNAME_H
#define OVTRACE_TUI_KNAME_H
#include <stdbool.h>
#include <stddef.h>

/* The name without a leading "void " and its parameter list, and (drop_ns) without the
 * namespace qualifiers of every identifier, in template arguments too:
 * "void dpsk::ep::dispatch<false, 8>(int4*)" -> "dispatch<false, 8>". */
void KName_simplify(const char *name, bool drop_ns, char *out, size_t n);

/* Display forms of names[0..n) at most width columns each (out[i]: malloc'ed), as
 * distinct as the width allows: namespaces dropped unless two names then read the
 * same; a name still too wide keeps the template arguments in which it differs from
 * the names of the same template (those it shares become one ellipsis, … or ...); what
 * is still too wide is cut with an ellipsis. */
void KName_distinct(const char *const *names, size_t n, int width, bool unicode, char **out);

#endif
