/* The kernel table (key t): per event name in the visible or marked range,
 * count, total, mean, min, max, share of time and class, sortable by any column; the
 * time of each event clipped to the range (as the range panel and `stats --range`
 * count it), or w: the events' whole durations (the title says which); Enter
 * jumps to the slowest instance and n/N then walk the instances by duration; y copies
 * the selected name to the clipboard with OSC 52 (off unless --osc52). The table's
 * contents and layout are pure functions, tested without curses. */
#ifndef OVTRACE_TUI_KERNEL_TABLE_H
#define OVTRACE_TUI_KERNEL_TABLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/analysis/overlap.h"
#include "ovtrace/model/trace.h"
#include "grid.h"

/* The title's words for the two ways of counting an event's time. */
#define KTABLE_CLIPPED_WORDS OVERLAP_CLIPPED_WORDS
#define KTABLE_WHOLE_WORDS "whole events' time"

typedef enum { KT_COUNT, KT_TOTAL, KT_MEAN, KT_MIN, KT_MAX, KT_SHARE, KT_CLASS, KT_NAME, KT__COLS } KtCol;

typedef struct {
    uint32_t name; /* StrTab id */
    uint8_t cls;   /* EventClass of its first instance */
    size_t count;
    int64_t total, min, max; /* durations of the instances that intersect the range: the
                                parts inside it, or whole (KTable.whole) */
} KtRow;

typedef struct {
    KtRow *rows;
    size_t n;
    int64_t sum; /* total over all rows: share = total / sum */
    int64_t t0, t1;
    bool all; /* every event name (not counters), else GPU kernels only */
    KtCol sort;
    bool asc;
    bool whole; /* the events' whole durations, else clipped to [t0, t1) (kept by
                   KTable_free, like the sort) */
    /* the names as the name column shows them (KName_distinct), for shown_w columns;
     * rebuilt when the rows, their order or the width change */
    char **shown;
    int shown_w;
    bool shown_ascii;
    int hscroll; /* > 0: the name column shows the full names from this column on */
} KTable;

/* Rows for the events intersecting [t0, t1) (kernels only unless all), their time
 * clipped to it unless kt->whole. Sorted by total, descending. */
void KTable_build(KTable *kt, const Trace *t, int64_t t0, int64_t t1, bool all);
void KTable_free(KTable *kt);
/* Sorts by col (ties: by name id); asc or descending. */
void KTable_sort(KTable *kt, const Trace *t, KtCol col, bool asc);
/* The instances of name intersecting [t0, t1), longest first (ties: by start); *out is
 * malloc'ed. Returns their number. */
size_t KTable_instances(const Trace *t, uint32_t name, int64_t t0, int64_t t1, bool all, size_t **out);
/* The title for w columns: "Kernels in A..B", the counts, how time is counted and the
 * key hints, each part whole; where w is short the less needed parts are left out
 * (the range, how time is counted and "t/Esc close" go last). */
void KTable_title(const KTable *kt, const Trace *t, int w, char *buf, size_t n);
/* Draws the table into r: a title, the header (sort column marked), rows from top with
 * sel highlighted, the selected row's full name wrapped below, and the keys. The name
 * column takes the rest of the width (min and max make room for it where r is
 * narrow), its names told apart by KName_distinct, or the full names scrolled by
 * kt->hscroll. Names go through the grid's sanitising text output. Returns the number
 * of table rows shown. */
int KTable_render(Grid *g, Rect r, const Trace *t, KTable *kt, size_t sel, size_t top, bool ascii);
/* OSC 52 "copy to clipboard" sequence for s (ESC ] 52 ; c ; base64 BEL) into out;
 * returns its length, or 0 when it does not fit. */
size_t KTable_osc52(const char *s, char *out, size_t n);

#endif
