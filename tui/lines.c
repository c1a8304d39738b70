/* The list of lines the timeline scrolls through. */
#include "lines.h"

#include <stdio.h>
#include <stdlib.h>

#include "ovtrace/base/alloc.h"

void Lines_push(Lines *L, Line l) {
    GROW(L->v, L->cap, L->n + 1);
    L->v[L->n++] = l;
}

void Lines_buildFiltered(Lines *L, const Trace *t, const bool *collapsed, const bool *hidden) {
    L->n = 0;
    for (uint32_t g = 0; g < t->n_groups; g++) {
        const Group *G = &t->groups[g];
        if (hidden && hidden[g]) continue;
        Lines_push(L, (Line){LINE_GROUP, g, 0, 0});
        if (G->gpu) Lines_push(L, (Line){LINE_BAND, g, 0, 0});
        if (collapsed && collapsed[g]) continue;
        for (uint32_t li = G->first_lane; li < G->first_lane + G->n_lanes; li++) {
            const Lane *l = &t->lanes[li];
            for (uint32_t k = 0; k < l->n_rows; k++) Lines_push(L, (Line){LINE_ROW, g, li, l->first_row + k});
        }
    }
}

void Lines_free(Lines *L) {
    free(L->v);
    L->v = NULL;
    L->n = L->cap = 0;
}

size_t Lines_findGroup(const Lines *L, uint32_t group) {
    for (size_t i = 0; i < L->n; i++)
        if (L->v[i].kind == LINE_GROUP && L->v[i].group == group) return i;
    return SIZE_MAX;
}

size_t Lines_findRow(const Lines *L, uint32_t row) {
    for (size_t i = 0; i < L->n; i++)
        if (L->v[i].kind == LINE_ROW && L->v[i].row == row) return i;
    return SIZE_MAX;
}

uint32_t Lines_rowOfEvent(const Trace *t, size_t idx) {
    const TraceEvent *e = &t->events[idx];
    const Lane *l = &t->lanes[e->lane];
    uint32_t d = e->depth < l->n_rows ? e->depth : l->n_rows - 1;
    return l->first_row + d;
}

/* CPU groups start folded under the GPU streams they launch onto; a trace without GPU
 * groups has nothing else to show, so its CPU groups start open. */
void Lines_defaultCollapsed(const Trace *t, bool *collapsed) {
    bool any_gpu = false;
    for (uint32_t g = 0; g < t->n_groups; g++) any_gpu |= t->groups[g].gpu;
    for (uint32_t g = 0; g < t->n_groups; g++) collapsed[g] = any_gpu && !t->groups[g].gpu;
}

size_t Lines_clutter(const Trace *t, bool *hidden) {
    size_t n = 0;
    for (uint32_t g = 0; g < t->n_groups; g++) {
        const Group *G = &t->groups[g];
        bool clutter = !G->gpu;
        for (uint32_t li = G->first_lane; clutter && li < G->first_lane + G->n_lanes; li++) {
            const Lane *l = &t->lanes[li];
            for (size_t i = l->first; i < l->first + l->count; i++) {
                unsigned k = t->events[i].kind;
                if (k != KIND_ANNOTATION && k != KIND_INSTANT) {
                    clutter = false;
                    break;
                }
            }
        }
        hidden[g] = clutter;
        n += clutter;
    }
    if (n && n == t->n_groups) { /* nothing but clutter: then it is the content */
        for (uint32_t g = 0; g < t->n_groups; g++) hidden[g] = false;
        n = 0;
    }
    return n;
}
