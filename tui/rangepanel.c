/* Range statistics panel. */
#include "rangepanel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/model/timeunits.h"
#include "ovtrace/base/alloc.h"
#include "kname.h"
#include "lanes_render.h"
#include "ruler.h"

/* The range as `ovtrace stats --range` takes it (exact ns, relative to the trace start). */
static void RangePanel_rangeArg(const Trace *t, int64_t a, int64_t b, char *buf, size_t n) {
    snprintf(buf, n, "%" PRId64 "ns:%" PRId64 "ns", a - t->t_min, b - t->t_min);
}

static const char *H[] = {"dev", "window", "busy", "idle", "compute", "comm", "overlap", "exposed", "memory", "ratio"};
enum { NC = 10 };

/* The device table's cells and column widths; returns the rows (at most 8). */
static size_t table(const Trace *t, const OverlapReport *R, char cell[8][NC][32], int wid[NC]) {
    size_t nd = R->n_devices < 8 ? R->n_devices : 8;
    for (int k = 0; k < NC; k++) wid[k] = (int)strlen(H[k]);
    for (size_t i = 0; i < nd; i++) {
        const DeviceFigures *d = &R->devices[i];
        uint32_t src = d->group < t->n_groups ? t->groups[d->group].source : 0;
        bool repeats = false; /* two inputs claim this rank: name the file */
        for (size_t s = 0; s < t->n_sources && !repeats; s++) repeats = s != src && t->sources[s].rank == d->rank;
        const char *path = repeats && src < t->n_sources && t->sources[src].path ? t->sources[src].path : NULL;
        const char *base = path ? strrchr(path, '/') : NULL;
        if (path) snprintf(cell[i][0], 32, "%.16s:%" PRId64, base ? base + 1 : path, d->device);
        else if (t->n_sources > 1) snprintf(cell[i][0], 32, "r%d:%" PRId64, d->rank, d->device);
        else snprintf(cell[i][0], 32, "%" PRId64, d->device);
        int64_t v[8] = {d->window, d->busy, d->idle, d->compute, d->comm, d->overlap, d->exposed, d->memory};
        for (int k = 0; k < 8; k++) Time_formatUs(cell[i][k + 1], 32, v[k]);
        if (d->has_comm) snprintf(cell[i][9], 32, "%.4f", d->ratio);
        else snprintf(cell[i][9], 32, "no comm");
        for (int k = 0; k < NC; k++)
            if ((int)strlen(cell[i][k]) > wid[k]) wid[k] = (int)strlen(cell[i][k]);
    }
    return nd;
}

/* The range ("0us..4464us (4464us)") and its command ("= ovtrace stats --range
 * 0ns:4464000ns"). */
static void range_lines(const Trace *t, int64_t a, int64_t b, char *range, char *cmd, size_t n) {
    char sa[48], sb[48], sd[48], arg[96];
    int64_t res = (b - a) / 1000 > 0 ? (b - a) / 1000 : 1;
    Ruler_format(sa, sizeof sa, a - t->t_min, res);
    Ruler_format(sb, sizeof sb, b - t->t_min, res);
    Ruler_format(sd, sizeof sd, b - a, res);
    RangePanel_rangeArg(t, a, b, arg, sizeof arg);
    snprintf(range, n, "%s..%s (%s)", sa, sb, sd);
    snprintf(cmd, n, "= ovtrace stats --range %s", arg);
}

int RangePanel_width(const Trace *t, const OverlapReport *R, int64_t a, int64_t b) {
    char range[160], cmd[160];
    range_lines(t, a, b, range, cmd, sizeof range);
    int w = (int)strlen(cmd); /* the command goes below the range when both do not fit */
    if (!R || R->n_devices == 0) return w;
    char cell[8][NC][32];
    int wid[NC], tw = 0;
    table(t, R, cell, wid);
    for (int k = 0; k < NC; k++) tw += wid[k] + 1;
    return tw + 4 > w ? tw + 4 : w; /* "(us)" */
}

void RangePanel_render(Grid *g, Rect r, const Trace *t, const OverlapReport *R, int64_t a, int64_t b,
                       const Glyphs *gl) {
    if (r.w <= 0 || r.h <= 0 || !R) return;
    int y = r.y;
    char range[160], cmd[160];
    range_lines(t, a, b, range, cmd, sizeof range);
    if ((int)(strlen(range) + 2 + strlen(cmd)) <= r.w) {
        Grid_printf(g, r.x, y++, r.w, ROLE_PANEL, 0, "%s  %s", range, cmd);
    } else {
        Grid_text(g, r.x, y++, r.w, range, ROLE_PANEL, 0);
        if (y < r.y + r.h) Grid_text(g, r.x, y++, r.w, cmd, ROLE_PANEL, 0);
    }
    if (R->n_devices == 0) {
        Grid_text(g, r.x, y, r.w, "no GPU activity in the range", ROLE_DIM, 0);
        return;
    }
    char cell[8][NC][32];
    int wid[NC];
    size_t nd = table(t, R, cell, wid);
    if (y < r.y + r.h) {
        int x = r.x;
        for (int k = 0; k < NC; k++) {
            char h[40];
            snprintf(h, sizeof h, "%*s", wid[k], H[k]);
            x += Grid_text(g, x, y, r.x + r.w - x, h, ROLE_PANEL_KEY, ATTR_BOLD) + 1;
        }
        Grid_text(g, x, y, r.x + r.w - x, "(us)", ROLE_DIM, 0);
        y++;
    }
    for (size_t i = 0; i < nd && y < r.y + r.h; i++, y++) {
        int x = r.x;
        for (int k = 0; k < NC; k++) {
            char c[40];
            snprintf(c, sizeof c, "%*s", wid[k], cell[i][k]);
            int role = ROLE_PANEL;
            if (k == 7 && R->devices[i].exposed > 0) role = ROLE_BAD;
            if (k == 9 && R->devices[i].has_comm) role = R->devices[i].ratio >= 0.9 ? ROLE_GOOD : ROLE_BAD;
            x += Grid_text(g, x, y, r.x + r.w - x, c, role, 0) + 1;
        }
    }
    if (y < r.y + r.h && R->n_kernels)
        Grid_text(g, r.x, y++, r.w, "  count   total us  class   top kernels (" OVERLAP_CLIPPED_WORDS ")", ROLE_PANEL_KEY,
                  ATTR_BOLD);
    /* the names told apart in the width left after the figures */
    char **names = R->n_kernels ? xcalloc(R->n_kernels, sizeof *names) : NULL;
    const char **full = R->n_kernels ? xcalloc(R->n_kernels, sizeof *full) : NULL;
    for (size_t i = 0; i < R->n_kernels; i++) full[i] = StrTab_get(t->strings, R->kernels[i].name);
    KName_distinct(full, R->n_kernels, r.w - 28, gl->unicode, names);
    for (size_t i = 0; i < R->n_kernels && y < r.y + r.h; i++, y++) {
        const KernelFigures *k = &R->kernels[i];
        char tot[32];
        Time_formatUs(tot, sizeof tot, k->total);
        Grid_printf(g, r.x, y, r.w, ROLE_PANEL, 0, "%7zu %10s  %-7s %s", k->count, tot, EventClass_name(k->cls), names[i]);
    }
    for (size_t i = 0; i < R->n_kernels; i++) free(names[i]);
    free(names);
    free(full);
}
