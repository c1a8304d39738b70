/* The cell grid every TUI renderer draws into. A cell holds one Unicode code point
 * (written out as UTF-8), a colour role and attributes; the curses layer (crt.c)
 * maps roles to colour pairs for the terminal's capabilities, and the headless
 * mode prints the glyphs as text. Nothing here touches the terminal. */
#ifndef OVTRACE_TUI_GRID_H
#define OVTRACE_TUI_GRID_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"

#include "ovtrace/tui/terminal.h"

/* Colour roles. Class and band roles are contiguous so ROLE_CLASS + cls works. */
typedef enum {
    ROLE_DEFAULT,
    ROLE_DIM,
    ROLE_TITLE,
    ROLE_RULER,
    ROLE_RULER_LABEL,
    ROLE_CURSOR,
    ROLE_RANGE,
    ROLE_GROUP,
    ROLE_GROUP_SEL,
    ROLE_LABEL,
    ROLE_LABEL_SEL,
    ROLE_CLASS,                                  /* event fill, foreground = class colour */
    ROLE_CLASS_TEXT = ROLE_CLASS + CLASS__COUNT, /* name inside an event: background = class colour */
    ROLE_BAND = ROLE_CLASS_TEXT + CLASS__COUNT,  /* overlap band, foreground = state colour */
    ROLE_MATCH = ROLE_BAND + BAND__COUNT,        /* search match fill */
    ROLE_MATCH_TEXT,
    ROLE_SELECTED, /* selected event fill */
    ROLE_SELECTED_TEXT,
    ROLE_PANEL,
    ROLE_PANEL_TITLE,
    ROLE_PANEL_KEY,
    ROLE_STATUS,
    ROLE_STATUS_KEY,
    ROLE_PROMPT,
    ROLE_ERROR,
    ROLE_GOOD,
    ROLE_BAD,
    ROLE__COUNT
} Role;

enum { ATTR_BOLD = 1u << 0, ATTR_REVERSE = 1u << 1, ATTR_UNDERLINE = 1u << 2 };

typedef struct {
    uint32_t ch; /* Unicode code point, always one column wide */
    uint8_t role;
    uint8_t attr;
} Cell;

typedef struct {
    int w, h;
    Cell *cells;
} Grid;

typedef struct {
    int x, y, w, h;
} Rect;

void Grid_init(Grid *g, int w, int h);
void Grid_free(Grid *g);
/* Resize (contents cleared). */
void Grid_resize(Grid *g, int w, int h);
void Grid_clear(Grid *g);
static inline Cell *Grid_at(Grid *g, int x, int y) {
    return (x >= 0 && y >= 0 && x < g->w && y < g->h) ? &g->cells[(size_t)y * (size_t)g->w + (size_t)x] : NULL;
}
static inline const Cell *Grid_cat(const Grid *g, int x, int y) {
    return (x >= 0 && y >= 0 && x < g->w && y < g->h) ? &g->cells[(size_t)y * (size_t)g->w + (size_t)x] : NULL;
}
void Grid_put(Grid *g, int x, int y, uint32_t ch, int role, unsigned attr);
void Grid_fill(Grid *g, Rect r, uint32_t ch, int role, unsigned attr);
/* Writes UTF-8 text from (x, y), at most maxw columns; characters that are not one
 * column wide become '?'. With ascii, non-ASCII characters become '?'. Returns the
 * columns written. */
int Grid_text(Grid *g, int x, int y, int maxw, const char *utf8, int role, unsigned attr);
int Grid_textAscii(Grid *g, int x, int y, int maxw, const char *utf8, int role, unsigned attr, bool ascii);
/* printf into the grid (at most maxw columns). */
int Grid_printf(Grid *g, int x, int y, int maxw, int role, unsigned attr, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
void Grid_hline(Grid *g, int x, int y, int w, uint32_t ch, int role);
/* Row y as UTF-8 text (trailing blanks trimmed) into buf; returns buf. */
char *Grid_rowText(const Grid *g, int y, char *buf, size_t n);
/* Whole grid as text, one line per row. */
void Grid_dump(const Grid *g, FILE *out);
/* Finds needle (UTF-8) in the text of row y; returns its column or -1. */
int Grid_find(const Grid *g, int y, const char *needle);
/* Finds needle anywhere; returns the row (and column in *col) or -1. */
int Grid_findAny(const Grid *g, const char *needle, int *col);

/* UTF-8 helpers. Encode returns bytes written (<= 4). Decode returns the code point
 * and advances *s (invalid bytes decode as U+FFFD). */
int Utf8_encode(uint32_t cp, char out[4]);
uint32_t Utf8_decode(const char **s);
/* Number of code points (columns, assuming width 1). */
size_t Utf8_columns(const char *s);

#endif
