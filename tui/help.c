/* Help screen, generated from the key table. */
#include "ovtrace/tui/help.h"

#include <stdio.h>
#include <string.h>

#include "ovtrace/tui/app.h"
#include "ovtrace/tui/band.h"

int Help_lines(const App *a, char lines[][160], int max) {
    (void)a;
    int n = 0;
#define ADD(...)                                                                                                       \
    do {                                                                                                               \
        if (n < max) snprintf(lines[n++], 160, __VA_ARGS__);                                                           \
    } while (0)
    ADD("ovtrace view: keys (Esc, q or ? closes this screen; j/k/PgUp/PgDn scroll)");
    ADD("%s", "");
    for (size_t i = 0; i < KEY_TABLE_N; i++) ADD("  %-22s %s", KEY_TABLE[i].names, KEY_TABLE[i].help);
    ADD("%s", "");
    ADD("In a prompt (/ search, e export): type, Backspace deletes, Ctrl-U clears, Enter accepts, Esc cancels.");
    ADD("The e prompt names the range and the name filter (the search); Tab: clipped slices / whole slices.");
    ADD("%s", "");
    ADD("Overlap band (one line per GPU device): each cell is the dominant state of its time slice:");
    ADD("  compute = compute kernels only; comm hidden = communication under compute;");
    ADD("  comm exposed = communication with no compute (the time overlap should remove);");
    ADD("  memory = copies/memsets only; idle = nothing. Without colour each state has its own glyph.");
    ADD("Events: full blocks are busy cells, partial blocks show where an event starts or ends inside");
    ADD("a cell, and bars of growing height show how full a cell holding several events is.");
    ADD("Group headers give the device's overlap ratio (hidden / all comm) for the visible range.");
    ADD("Range panel figures are those of: ovtrace stats --range A:B (shown in the panel).");
#undef ADD
    return n;
}

void Help_render(const App *a, Grid *g) {
    static char lines[128][160];
    int n = Help_lines(a, lines, 128);
    Grid_fill(g, (Rect){0, 0, g->w, g->h}, ' ', ROLE_PANEL, 0);
    int y = 0;
    for (int i = a->v.help_scroll; i < n && y < g->h - 1; i++, y++)
        Grid_textAscii(g, 1, y, g->w - 2, lines[i], i == 0 ? ROLE_PANEL_TITLE : ROLE_PANEL, i == 0 ? ATTR_BOLD : 0,
                       !a->gl->unicode);
    Band_legend(g, (Rect){0, g->h - 1, g->w, 1}, a->caps, a->gl);
}
