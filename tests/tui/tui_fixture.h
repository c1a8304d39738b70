/* Hand-built traces and helpers for the TUI unit tests. */
#ifndef OVTRACE_TEST_TUI_FIXTURE_H
#define OVTRACE_TEST_TUI_FIXTURE_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ovtrace/model/trace.h"
#include "app.h"
#include "grid.h"

typedef struct {
    Trace *t;
    uint32_t src;
} Fix;

static inline Fix Fix_new(void) {
    Fix f;
    f.t = Trace_new();
    f.src = Trace_addSource(f.t, "hand-built");
    return f;
}

static inline size_t Fix_add(Fix *f, uint32_t lane, int64_t ts, int64_t dur, const char *name, EventKind k,
                             EventClass c) {
    TraceEvent e;
    memset(&e, 0, sizeof e);
    e.ts = ts;
    e.dur = dur;
    e.src = TRACE_NO_SRC;
    e.name = StrTab_intern(f->t->strings, name, strlen(name));
    e.lane = lane;
    e.kind = k;
    e.cls = c;
    return Trace_append(f->t, &e);
}

static inline uint32_t Fix_gpu(Fix *f, int64_t dev, int64_t stream) {
    return Trace_gpuLane(f->t, f->src, dev, stream, dev, stream);
}

static inline uint32_t Fix_cpu(Fix *f, int64_t pid, int64_t tid) { return Trace_cpuLane(f->t, f->src, pid, tid); }

/* Grid text of row y */
static inline const char *row_text(const Grid *g, int y) {
    static char buf[4096];
    return Grid_rowText(g, y, buf, sizeof buf);
}

/* The line index (in app lines) of a given row index, and its screen y */
static inline int screen_y_of_row(App *a, uint32_t row) {
    size_t line = Lines_findRow(&a->lines, row);
    if (line == SIZE_MAX || line < a->v.top) return -1;
    return a->layout.plot.y + (int)(line - a->v.top);
}

static inline int screen_y_of_band(App *a, uint32_t group) {
    for (size_t i = 0; i < a->lines.n; i++)
        if (a->lines.v[i].kind == LINE_BAND && a->lines.v[i].group == group)
            return i < a->v.top ? -1 : a->layout.plot.y + (int)(i - a->v.top);
    return -1;
}

#endif
