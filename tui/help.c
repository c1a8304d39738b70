/* Help screen, generated from the key table. */
#include "ovtrace/tui/help.h"

#include <stdio.h>
#include <string.h>

#include "ovtrace/tui/app.h"
#include "ovtrace/tui/band.h"
#include "feature.h"

/* The lines above the key table and below it; the table gives one line per binding. */
static const char *const HEAD[] = {
    "ovtrace view: keys (Esc, q or ? closes this screen; j/k/PgUp/PgDn scroll)",
    "",
};
static const char *const TAIL[] = {
    "",
    "In a prompt (/ search, e export): type, Backspace deletes, Ctrl-U clears, Enter accepts, Esc cancels.",
    "The e prompt names the range and the name filter (the search); Tab: clipped slices / whole slices.",
    "",
    "Overlap band (one line per GPU device): each cell is the dominant state of its time slice:",
    "  compute = compute kernels only; comm hidden = communication under compute;",
    "  comm exposed = communication with no compute (the time overlap should remove);",
    "  memory = copies/memsets only; idle = nothing. Without colour each state has its own glyph.",
    "Events: full blocks are busy cells, partial blocks show where an event starts or ends inside",
    "a cell, and bars of growing height show how full a cell holding several events is.",
    "Group headers give the device's overlap ratio (hidden / all comm) for the visible range.",
    "Range panel figures are those of: ovtrace stats --range A:B (shown in the panel).",
};
#define N_HEAD (int)(sizeof HEAD / sizeof HEAD[0])
#define N_TAIL (int)(sizeof TAIL / sizeof TAIL[0])

int Help_count(const App *a) {
    (void)a;
    return N_HEAD + (int)Keys_count() + N_TAIL;
}

bool Help_line(const App *a, int i, char *buf, size_t n) {
    if (i < 0 || i >= Help_count(a)) return false;
    int keys = (int)Keys_count();
    if (i < N_HEAD) {
        snprintf(buf, n, "%s", HEAD[i]);
    } else if ((i -= N_HEAD) < keys) {
        const KeyBinding *b = Keys_at((size_t)i);
        snprintf(buf, n, "  %-22s %s", b->names, b->help);
    } else {
        snprintf(buf, n, "%s", TAIL[i - keys]);
    }
    return true;
}

int Help_lines(const App *a, char lines[][160], int max) {
    int n = 0;
    while (n < max && Help_line(a, n, lines[n], sizeof lines[n])) n++;
    return n;
}

void Help_clampScroll(App *a) {
    int n = Help_count(a);
    if (a->v.help_scroll > n - 1) a->v.help_scroll = n > 0 ? n - 1 : 0;
}

void Help_render(const App *a, Grid *g) {
    Grid_fill(g, (Rect){0, 0, g->w, g->h}, ' ', ROLE_PANEL, 0);
    char line[160];
    int y = 0;
    for (int i = a->v.help_scroll; y < g->h - 1 && Help_line(a, i, line, sizeof line); i++, y++)
        Grid_textAscii(g, 1, y, g->w - 2, line, i == 0 ? ROLE_PANEL_TITLE : ROLE_PANEL, i == 0 ? ATTR_BOLD : 0,
                       !a->gl->unicode);
    Band_legend(g, (Rect){0, g->h - 1, g->w, 1}, a->caps, a->gl, Features_legend(a));
}
