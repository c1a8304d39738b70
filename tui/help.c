/* Help screen, generated from the key table. */
#include "help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "app.h"
#include "band.h"
#include "feature.h"

typedef struct {
    bool shown;
    int scroll; /* first line shown */
} HelpState;

extern const Feature Help_feature;

static HelpState *state(const App *a) { return Feature_state(a, &Help_feature); }

bool Help_shown(const App *a) { return state(a)->shown; }
int Help_scroll(const App *a) { return state(a)->scroll; }

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
    "Rank overview (O): a line per device, labelled like r7 1.6ms L5:",
    "  r7 the rank, 1.6ms its device's exposed comm over the whole trace,",
    "  L5 the collectives at which the rank arrived last (the others waited for it);",
    "  * after it: the rank's CPU lanes are still loading.",
};
#define N_HEAD (int)(sizeof HEAD / sizeof HEAD[0])
#define N_TAIL (int)(sizeof TAIL / sizeof TAIL[0])

int Help_count(const App *a) {
    (void)a;
    return N_HEAD + (int)Features_bindingCount() + N_TAIL;
}

bool Help_line(const App *a, int i, char *buf, size_t n) {
    if (i < 0 || i >= Help_count(a)) return false;
    int keys = (int)Features_bindingCount();
    if (i < N_HEAD) {
        snprintf(buf, n, "%s", HEAD[i]);
    } else if ((i -= N_HEAD) < keys) {
        const KeyBinding *b = Features_binding((size_t)i);
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

/* Keeps the scroll on a line of the text (the last one at most). */
static void clamp_scroll(const App *a, HelpState *s) {
    int n = Help_count(a);
    if (s->scroll > n - 1) s->scroll = n > 0 ? n - 1 : 0;
}

/* The whole screen, from the scroll line, with the legend at the bottom. */
static bool help_cover(App *a, void *st, Grid *g) {
    const HelpState *s = st;
    if (!s->shown) return false;
    Grid_fill(g, (Rect){0, 0, g->w, g->h}, ' ', ROLE_PANEL, 0);
    char line[160];
    int y = 0;
    for (int i = s->scroll; y < g->h - 1 && Help_line(a, i, line, sizeof line); i++, y++)
        Grid_textAscii(g, 1, y, g->w - 2, line, i == 0 ? ROLE_PANEL_TITLE : ROLE_PANEL, i == 0 ? ATTR_BOLD : 0,
                       !a->gl->unicode);
    Band_legend(g, (Rect){0, g->h - 1, g->w, 1}, a->caps, a->gl, Features_legend(a), Features_legendNote(a));
    return true;
}

/* The keys of the help screen: close, scroll. */
static unsigned help_key(HelpState *s, const TuiKey *k) {
    switch (k->code) {
    case TK_ESC:
    case 'q':
    case '?':
    case TK_F1: s->shown = false; return REDRAW_VIEW;
    case 'j':
    case TK_DOWN: s->scroll++; return REDRAW_VIEW;
    case 'k':
    case TK_UP:
        if (s->scroll > 0) s->scroll--;
        return REDRAW_VIEW;
    case TK_PGDN:
    case ' ': s->scroll += 10; return REDRAW_VIEW;
    case TK_PGUP: s->scroll = s->scroll > 10 ? s->scroll - 10 : 0; return REDRAW_VIEW;
    case 'g':
    case TK_HOME: s->scroll = 0; return REDRAW_VIEW;
    case TK_CTRL_L:
    case TK_RESIZE: return REDRAW_FULL;
    default: return REDRAW_NONE;
    }
}

/* While shown, the help screen takes every key. */
static bool help_takes(App *a, void *st, const TuiKey *k, unsigned *redraw) {
    HelpState *s = st;
    if (!s->shown) return false;
    *redraw = help_key(s, k);
    if (s->shown) clamp_scroll(a, s);
    return true;
}

static unsigned k_help(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    HelpState *s = state(a);
    s->shown = !s->shown;
    s->scroll = 0;
    return REDRAW_VIEW;
}

static void *help_init(App *a) {
    (void)a;
    return xcalloc(1, sizeof(HelpState));
}

static void help_free(App *a, void *st) {
    (void)a;
    free(st);
}

static const KeyBinding HELP_KEYS[] = {
    {{'?', TK_F1}, "? F1", "this help", k_help, 0},
};

const Feature Help_feature = {
    .name = "help",
    FEATURE_KEYS(HELP_KEYS),
    .init = help_init,
    .free = help_free,
    .key = help_takes,
    .cover = help_cover,
};
