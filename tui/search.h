/* Regex search over event names (POSIX ERE, smart case: case-insensitive unless the
 * pattern has an upper-case letter). Each distinct name is matched once; the matches
 * of each row are kept as a sorted list so the renderer can highlight a column and
 * n/N can find the next match across all rows in O(rows x log matches). */
#ifndef OVTRACE_TUI_SEARCH_H
#define OVTRACE_TUI_SEARCH_H
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

typedef struct {
    bool active;
    char pattern[256];
    regex_t re;
    uint8_t *name_match; /* per StrTab id */
    size_t n_names;
    uint32_t **row_matches; /* per row: offsets (event - row.first) of matching events */
    size_t *row_n;
    size_t n_rows;
    size_t total;
} Search;

bool Search_set(Search *s, const Trace *t, const char *pattern, char *err, size_t errlen);
void Search_clear(Search *s);
static inline bool Search_matches(const Search *s, const TraceEvent *e) {
    return s->active && e->name < s->n_names && s->name_match[e->name];
}
/* Whether a match lies among events [j0, j1) of row `row`. */
bool Search_anyIn(const Search *s, const Trace *t, uint32_t row, size_t j0, size_t j1);
/* Next (dir > 0) or previous match after the position (ts, row) in (start, row) order;
 * wraps around (then *wrapped is set). SIZE_MAX when there is no match. */
size_t Search_next(const Search *s, const Trace *t, int64_t ts, uint32_t row, int dir, bool *wrapped);
/* Same, only over rows with rows_ok[row] set (NULL: all rows). */
size_t Search_nextIn(const Search *s, const Trace *t, int64_t ts, uint32_t row, int dir, const bool *rows_ok,
                     bool *wrapped);

#endif
