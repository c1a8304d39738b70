/* The details panel of the selected event: full name (wrapped), class, lane, start,
 * duration, correlation partner and every arg of the trace's JSON object. The args
 * are fetched from the source file once per selection (Details_build, I/O) and the
 * panel renders from that cache (Details_renderScroll, pure). */
#ifndef OVTRACE_TUI_DETAILS_H
#define OVTRACE_TUI_DETAILS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"
#include "grid.h"
#include "theme.h"

typedef struct {
    size_t idx; /* event the cache holds, SIZE_MAX = none */
    size_t n, cap;
    char **keys, **vals;
} DetailsCache;

void Details_init(DetailsCache *d);
void Details_free(DetailsCache *d);
/* Fills the cache for event idx (no-op if it already holds it). */
void Details_build(DetailsCache *d, const Trace *t, size_t idx);
/* Precise time: "12.345678ms", "546.123us", "812ns". */
int Details_formatPrecise(char *buf, size_t n, int64_t ns);
/* The columns the panel's content wants: the key column and values up to
 * DETAILS_VALUE_MIN columns on one line (longer values wrap at word boundaries). */
#define DETAILS_KEY_MAX   24
#define DETAILS_VALUE_MIN 56
int Details_width(const DetailsCache *d);
/* Draws the cached fields from line `scroll` of the panel's content (clamped); keys are
 * shown whole (a long one on its own line). Returns the content's line count. */
int Details_renderScroll(Grid *g, Rect r, const DetailsCache *d, const Glyphs *gl, bool ascii, int scroll);
/* Appends a field. */
void Details_add(DetailsCache *d, const char *key, const char *val);
/* Appends "cat" and every member of "args" of an event's JSON object text, values as
 * written (numbers exact, strings decoded, nested values compacted); false when the
 * text is not an object (tui/details_args.c). */
bool Details_addArgsJson(DetailsCache *d, const char *raw, size_t len);
/* Writes s from line y of r wrapped at word boundaries, as the details panel wraps its
 * values (the lines below r are left out; g NULL: only counts); returns the lines it
 * takes. */
int Details_wrapText(Grid *g, Rect r, int y, const char *s, int role);
/* Draws a panel frame with a title; returns the content rect. */
Rect Panel_frame(Grid *g, Rect r, bool at_right, const char *title, const Glyphs *gl);

#endif
