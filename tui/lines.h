/* The vertical list the timeline shows: per group a header line, for GPU devices an
 * overlap band line, then one line per row (sub-row) of each lane unless the group
 * is collapsed. Pure function of the model and the collapsed flags. */
#ifndef OVTRACE_TUI_LINES_H
#define OVTRACE_TUI_LINES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

typedef enum {
    LINE_GROUP,
    LINE_BAND,
    LINE_ROW,
    LINE_COUNTER
} LineKind; /* LINE_COUNTER: row = series (counter_lane.h) */

typedef struct {
    uint8_t kind; /* LineKind */
    uint32_t group;
    uint32_t lane; /* LINE_ROW */
    uint32_t row;  /* LINE_ROW: index into t->rows */
} Line;

typedef struct {
    Line *v;
    size_t n, cap;
} Lines;

void Lines_free(Lines *L);
/* Appends one line (growing the array; out of memory exits). */
void Lines_push(Lines *L, Line l);
/* Line index of the group header / of a row; SIZE_MAX if not shown. */
size_t Lines_findGroup(const Lines *L, uint32_t group);
size_t Lines_findRow(const Lines *L, uint32_t row);
/* Row index holding event idx (the lane's row at the event's depth). */
uint32_t Lines_rowOfEvent(const Trace *t, size_t idx);
/* The lines of the model's groups, leaving out the groups with hidden[g] set (NULL: none). */
void Lines_buildFiltered(Lines *L, const Trace *t, const bool *collapsed, const bool *hidden);
/* Clutter: CPU groups with no events or only annotations and instants
 * (Kineto's "Traces", "" and "Spans" per rank). Sets hidden[g] for those; returns how
 * many. GPU groups are never clutter; when every group would be, none is. */
size_t Lines_clutter(const Trace *t, bool *hidden);
/* Default collapsed flags: CPU groups collapsed, GPU groups expanded. */
void Lines_defaultCollapsed(const Trace *t, bool *collapsed);

#endif
