/* The key table and its handlers. Handlers change the view state through the App
 * helpers and return what to redraw; nothing here draws or touches the terminal. */
#include "ovtrace/base/alloc.h"
#include "ovtrace/tui/keys.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ovtrace/tui/app.h"
#include "ovtrace/tui/lanes_render.h"
#include "feature.h"

/* ---- time ---- */

static unsigned k_pan(App *a, const TuiKey *k, int arg) {
    (void)k;
    int64_t t0 = a->v.t0, delta = (int64_t)((__int128)View_span(&a->v) * arg / 16);
    View_pan(&a->v, delta);
    /* the window cannot move (everything visible, or at an end): move the cursor alone */
    if (a->v.t0 == t0) View_moveCursor(&a->v, delta);
    a->v.follow = false;
    return REDRAW_VIEW;
}

/* < and >: the cursor alone, one plot column */
static unsigned k_cursor(App *a, const TuiKey *k, int arg) {
    (void)k;
    int64_t col = View_span(&a->v) / (a->v.cols > 0 ? a->v.cols : 1);
    View_moveCursor(&a->v, (col > 0 ? col : 1) * arg);
    return REDRAW_VIEW;
}

static unsigned k_zoom(App *a, const TuiKey *k, int arg) {
    (void)k;
    double f = arg > 0 ? arg / 100.0 : 100.0 / -arg;
    View_zoom(&a->v, f, a->v.cursor);
    return REDRAW_VIEW;
}

/* time under screen column x, or the cursor when x is outside the plot */
static int64_t time_at(const App *a, int x) {
    const Rect *p = &a->layout.plot;
    if (x < p->x || x >= p->x + p->w) return a->v.cursor;
    int64_t c0 = TraceIndex_colTime(a->v.t0, a->v.t1, p->w, x - p->x);
    int64_t c1 = TraceIndex_colTime(a->v.t0, a->v.t1, p->w, x - p->x + 1);
    return c0 + (c1 - c0) / 2;
}

static unsigned k_wheel(App *a, const TuiKey *k, int arg) {
    double f = arg > 0 ? 1.5 : 1 / 1.5;
    View_zoom(&a->v, f, time_at(a, k->x));
    return REDRAW_VIEW;
}

static unsigned k_fit_all(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    View_fitAll(&a->v);
    return REDRAW_VIEW;
}

static unsigned k_fit_sel(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (a->v.sel == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no event selected (./, pick one, / searches)");
        return REDRAW_VIEW;
    }
    const TraceEvent *e = &a->t->events[a->v.sel];
    View_fit(&a->v, e->ts, TraceEvent_end(e));
    a->v.cursor = e->ts;
    return REDRAW_VIEW;
}

static unsigned k_home_end(App *a, const TuiKey *k, int arg) {
    (void)k;
    if (arg < 0) View_home(&a->v);
    else View_end(&a->v);
    if (arg < 0) a->v.cursor = a->v.t0;
    else a->v.cursor = a->v.t1 - 1;
    /* . and , then step from the trace's start (end), not from the old selection */
    a->v.sel = SIZE_MAX;
    return REDRAW_VIEW;
}

/* ---- lines ---- */

static unsigned k_line(App *a, const TuiKey *k, int arg) {
    (void)k;
    size_t n = a->lines.n;
    if (!n) return REDRAW_NONE;
    long long line = (long long)a->v.line;
    long long page = a->v.rows > 1 ? a->v.rows - 1 : 1;
    if (arg == INT_MIN) line = 0;
    else if (arg == INT_MAX) line = (long long)n - 1;
    else if (arg == 1000) line += page;
    else if (arg == -1000) line -= page;
    else line += arg;
    if (line < 0) line = 0;
    if (line >= (long long)n) line = (long long)n - 1;
    App_selectLine(a, (size_t)line);
    return REDRAW_VIEW;
}

static unsigned k_group(App *a, const TuiKey *k, int arg) {
    (void)k;
    size_t n = a->lines.n;
    if (!n) return REDRAW_NONE;
    size_t i = a->v.line;
    for (size_t step = 0; step < n; step++) {
        i = arg > 0 ? (i + 1) % n : (i + n - 1) % n;
        if (a->lines.v[i].kind == LINE_GROUP) break;
    }
    App_selectLine(a, i);
    return REDRAW_VIEW;
}

static unsigned k_toggle(App *a, const TuiKey *k, int arg) {
    (void)arg;
    if (!a->lines.n) return REDRAW_NONE;
    unsigned r;
    if (Features_activate(a, k, &r)) return r; /* a rank of the overview; live: Space freezes */
    uint32_t g = a->lines.v[a->v.line].group;
    a->collapsed[g] = !a->collapsed[g];
    App_rebuildLines(a);
    a->v.line = Lines_findGroup(&a->lines, g);
    if (a->v.sel != SIZE_MAX && a->t->lanes[a->t->events[a->v.sel].lane].group == g && a->collapsed[g])
        a->v.sel = SIZE_MAX;
    View_scrollToLine(&a->v, a->lines.n);
    return REDRAW_VIEW;
}

/* v: show / hide the groups Lines_clutter leaves out */
static unsigned k_clutter(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (!a->n_hidden && !a->show_all) {
        App_message(a, ROLE_DIM, "no empty or annotation-only groups to show");
        return REDRAW_VIEW;
    }
    size_t line = a->lines.n ? a->v.line : 0;
    uint32_t keep = a->lines.n ? a->lines.v[line].group : 0;
    a->show_all = !a->show_all;
    App_rebuildLines(a);
    size_t at = Lines_findGroup(&a->lines, keep);
    a->v.line = at != SIZE_MAX ? at : 0;
    View_scrollToLine(&a->v, a->lines.n);
    App_message(a, ROLE_DIM, "%zu empty or annotation-only group%s %s (v %s)", a->n_hidden, a->n_hidden == 1 ? "" : "s",
                a->show_all ? "shown" : "hidden", a->show_all ? "hides them" : "shows them");
    return REDRAW_VIEW;
}

/* ---- events ---- */

static unsigned k_event(App *a, const TuiKey *k, int arg) {
    (void)k;
    if (!a->lines.n || a->lines.v[a->v.line].kind != LINE_ROW) {
        App_message(a, ROLE_ERROR, "select a lane first (j/k)");
        return REDRAW_VIEW;
    }
    uint32_t ri = a->lines.v[a->v.line].row;
    const Row *r = &a->t->rows[ri];
    if (!r->count) return REDRAW_NONE;
    size_t sel = a->v.sel, next;
    bool in_row = sel != SIZE_MAX && sel >= r->first && sel < r->first + r->count;
    if (arg > 0) {
        next = in_row ? sel + 1 : TraceIndex_firstStartAtOrAfter(a->t, r, a->v.cursor);
        if (next >= r->first + r->count) {
            App_message(a, ROLE_DIM, "last event of the lane");
            return REDRAW_VIEW;
        }
    } else {
        size_t j = in_row ? sel : TraceIndex_firstStartAtOrAfter(a->t, r, a->v.cursor);
        if (j == r->first) {
            App_message(a, ROLE_DIM, "first event of the lane");
            return REDRAW_VIEW;
        }
        next = j - 1;
    }
    App_selectEvent(a, next);
    return REDRAW_VIEW;
}

static unsigned k_partner(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (a->v.sel == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no event selected");
        return REDRAW_VIEW | KEEP_MSG;
    }
    size_t p = Trace_partner(a->t, a->v.sel);
    if (p == SIZE_MAX && a->t->gpu_only) {
        App_message(a, ROLE_DIM, "launch partner: CPU lanes still loading (see the title bar)");
        return REDRAW_VIEW;
    }
    if (p == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no launch partner (no ac2g flow or correlation id)");
        return REDRAW_VIEW | KEEP_MSG;
    }
    const TraceEvent *pe = &a->t->events[p];
    bool to_cpu = !a->t->lanes[pe->lane].gpu;
    App_selectEvent(a, p);
    char name[120];
    Lanes_shortName(Trace_name(a->t, pe), name, sizeof name, a->gl->unicode);
    App_message(a, ROLE_GOOD, "%s %s (c jumps back)", to_cpu ? "launched by" : "launches", name);
    return REDRAW_VIEW | KEEP_MSG;
}

/* ---- other ---- */

static unsigned k_quit(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    a->quit = true;
    return REDRAW_NONE;
}

static unsigned k_redraw(App *a, const TuiKey *k, int arg) {
    (void)a;
    (void)k;
    (void)arg;
    return REDRAW_FULL;
}

static unsigned k_click(App *a, const TuiKey *k, int arg) {
    (void)arg;
    const Layout *L = &a->layout;
    if (L->too_small) return REDRAW_NONE;
    int y0 = L->plot.y;
    if (k->y >= L->ruler.y && k->y < L->ruler.y + L->ruler.h && k->x >= L->plot.x) {
        a->v.cursor = time_at(a, k->x);
        return REDRAW_VIEW;
    }
    if (k->y < y0 || k->y >= y0 + L->plot.h || k->x >= L->plot.x + L->plot.w) return REDRAW_NONE;
    size_t line = a->v.top + (size_t)(k->y - y0);
    if (line >= a->lines.n) return REDRAW_NONE;
    const Line *ln = &a->lines.v[line];
    if (ln->kind == LINE_GROUP) {
        a->v.line = line;
        return k_toggle(a, k, 0);
    }
    if (k->x >= L->plot.x) a->v.cursor = time_at(a, k->x);
    a->v.line = line;
    View_scrollToLine(&a->v, a->lines.n);
    if (ln->kind == LINE_ROW && k->x >= L->plot.x) {
        int64_t col = View_span(&a->v) / (L->plot.w > 0 ? L->plot.w : 1);
        size_t e = App_eventAt(a, ln->row, a->v.cursor, col + 1);
        a->v.sel = e;
        if (e == SIZE_MAX) App_message(a, ROLE_DIM, "no event there");
    } else {
        App_selectLine(a, line);
    }
    return REDRAW_VIEW;
}

static unsigned k_resize(App *a, const TuiKey *k, int arg) {
    (void)a;
    (void)k;
    (void)arg;
    return REDRAW_FULL;
}

/* ---- the engine's tables (the other features' are in their files) ---- */

static const KeyBinding NAV_KEYS[] = {
    {{TK_LEFT, 'h', 'a'}, "Left h a", "pan left", k_pan, -2},
    {{TK_RIGHT, 'l', 'd'}, "Right l d", "pan right", k_pan, 2},
    {{TK_SLEFT, 'H', 'A'}, "S-Left H A", "pan left, large step", k_pan, -8},
    {{TK_SRIGHT, 'L', 'D'}, "S-Right L D", "pan right, large step", k_pan, 8},
    {{'+', '=', 'w'}, "+ = w", "zoom in (around the cursor)", k_zoom, 200},
    {{'-', 's'}, "- s", "zoom out", k_zoom, -200},
    {{'W', '*'}, "W *", "zoom in, large step", k_zoom, 800},
    {{'S', '_'}, "S _", "zoom out, large step", k_zoom, -800},
    {{TK_WHEEL_UP}, "wheel up", "zoom in at the mouse", k_wheel, 1},
    {{TK_WHEEL_DOWN}, "wheel down", "zoom out at the mouse", k_wheel, -1},
    {{'0', 'z'}, "0 z", "fit everything", k_fit_all, 0},
    {{'f'}, "f", "fit the selected event", k_fit_sel, 0},
    {{TK_HOME}, "Home", "go to the start of the trace", k_home_end, -1},
    {{TK_END}, "End", "go to the end of the trace", k_home_end, 1},
    {{'<'}, "<", "move the cursor one column left (Left/h do too when the view cannot pan)", k_cursor, -1},
    {{'>'}, ">", "move the cursor one column right", k_cursor, 1},
    {{TK_UP, 'k'}, "Up k", "previous lane", k_line, -1},
    {{TK_DOWN, 'j'}, "Down j", "next lane", k_line, 1},
    {{TK_SUP, 'K'}, "S-Up K", "5 lanes up", k_line, -5},
    {{TK_SDOWN, 'J'}, "S-Down J", "5 lanes down", k_line, 5},
    {{TK_PGUP}, "PgUp", "page up", k_line, -1000},
    {{TK_PGDN}, "PgDn", "page down", k_line, 1000},
    {{'g'}, "g", "first lane", k_line, INT_MIN},
    {{'G'}, "G", "last lane", k_line, INT_MAX},
    {{TK_TAB}, "Tab", "next group (device / process)", k_group, 1},
    {{TK_BTAB}, "S-Tab", "previous group", k_group, -1},
    {{'v'}, "v", "show / hide empty and annotation-only CPU groups (hidden at start)", k_clutter, 0},
    {{TK_ENTER, ' '}, "Enter Space", "collapse / expand the group (live: Space on a lane freezes)", k_toggle, 0},
    {{'.'}, ".", "next event on the lane", k_event, 1},
    {{','}, ",", "previous event on the lane", k_event, -1},
    {{TK_CLICK}, "click", "select the event (or fold a group header)", k_click, 0},
};
const Feature Nav_feature = {.name = "navigation", FEATURE_KEYS(NAV_KEYS)};

static const KeyBinding PARTNER_KEYS[] = {
    {{'c'}, "c", "GPU op <-> the CPU runtime call that launched it", k_partner, 0},
};
const Feature Partner_feature = {.name = "launch partner", FEATURE_KEYS(PARTNER_KEYS)};

static const KeyBinding SESSION_KEYS[] = {
    {{TK_CTRL_L}, "Ctrl-L", "redraw the screen", k_redraw, 0},
    {{TK_RESIZE}, "(resize)", "the layout follows the terminal (min 80x24)", k_resize, 0},
    {{'q', 'Q'}, "q", "quit", k_quit, 0},
};
const Feature Session_feature = {.name = "session", FEATURE_KEYS(SESSION_KEYS)};

size_t Keys_count(void) {
    size_t n = 0;
    for (size_t f = 0; f < N_FEATURES; f++) n += FEATURES[f]->n_keys;
    return n;
}

const KeyBinding *Keys_at(size_t i) {
    for (size_t f = 0; f < N_FEATURES; f++) {
        if (i < FEATURES[f]->n_keys) return &FEATURES[f]->keys[i];
        i -= FEATURES[f]->n_keys;
    }
    return NULL;
}

const KeyBinding *Keys_lookup(int code) {
    for (size_t f = 0; f < N_FEATURES; f++)
        for (size_t i = 0; i < FEATURES[f]->n_keys; i++)
            for (int j = 0; j < 6 && FEATURES[f]->keys[i].keys[j]; j++)
                if (FEATURES[f]->keys[i].keys[j] == code) return &FEATURES[f]->keys[i];
    return NULL;
}

unsigned Keys_dispatch(App *a, const TuiKey *k) {
    if (k->code == TK_INTERRUPT) {
        a->quit = true;
        return REDRAW_NONE;
    }
    if (a->prompt.open && k->code != TK_RESIZE) return Prompt_key(a, &a->prompt, k);
    unsigned r;
    if (Features_key(a, k, &r)) return r; /* the help screen, the kernel table open, ... */
    const KeyBinding *b = Keys_lookup(k->code);
    if (!b) {
        char nm[16];
        App_message(a, ROLE_DIM, "key %s is not bound (? lists the keys)", Keys_name(k->code, nm));
        return REDRAW_VIEW;
    }
    return Keys_apply(a, b, k);
}

unsigned Keys_apply(App *a, const KeyBinding *b, const TuiKey *k) {
    unsigned said = a->msg_seq;
    unsigned r = b->fn(a, k, b->arg);
    if (!(r & KEEP_MSG) && a->msg_seq == said) a->msg[0] = '\0'; /* an older message is stale now */
    return r;
}

/* ---- key names and scripts ---- */

static const struct {
    const char *name;
    int code;
} NAMES[] = {
    {"Left", TK_LEFT},     {"Right", TK_RIGHT},   {"Up", TK_UP},       {"Down", TK_DOWN},   {"S-Left", TK_SLEFT},
    {"S-Right", TK_SRIGHT}, {"S-Up", TK_SUP},     {"S-Down", TK_SDOWN}, {"PgUp", TK_PGUP},   {"PgDn", TK_PGDN},
    {"Home", TK_HOME},     {"End", TK_END},       {"Tab", TK_TAB},     {"S-Tab", TK_BTAB},  {"Enter", TK_ENTER},
    {"Esc", TK_ESC},       {"Space", ' '},        {"BS", TK_BACKSPACE}, {"Del", TK_DELETE}, {"F1", TK_F1},
    {"lt", '<'},           {"gt", '>'},           {"Resize", TK_RESIZE}, {"Click", TK_CLICK},
    {"WheelUp", TK_WHEEL_UP}, {"WheelDown", TK_WHEEL_DOWN},
};

const char *Keys_name(int code, char buf[16]) {
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (NAMES[i].code == code) return NAMES[i].name;
    if (code > 0 && code < 27) snprintf(buf, 16, "C-%c", 'a' + code - 1);
    else if (code >= 0x20 && code < 0x7f) snprintf(buf, 16, "%c", code);
    else snprintf(buf, 16, "#%x", (unsigned)code);
    return buf;
}

bool Keys_parseScript(const char *s, TuiKey **out, size_t *n, char *err, size_t errlen) {
    size_t cap = strlen(s) + 1, cnt = 0;
    TuiKey *v = xcalloc(cap, sizeof *v);
    while (*s) {
        if (*s == '<') {
            const char *e = strchr(s, '>');
            if (e && e > s + 1) {
                char name[64];
                size_t len = (size_t)(e - s - 1);
                if (len < sizeof name) {
                    memcpy(name, s + 1, len);
                    name[len] = '\0';
                    TuiKey k = {0, 0, 0};
                    char *colon = strchr(name, ':');
                    if (colon) *colon = '\0';
                    if (!strncmp(name, "C-", 2) && strlen(name) == 3 && name[2] >= 'a' && name[2] <= 'z') {
                        k.code = name[2] - 'a' + 1;
                    } else {
                        for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
                            if (!strcmp(name, NAMES[i].name)) k.code = NAMES[i].code;
                    }
                    if (k.code) {
                        if (colon) {
                            int x, y;
                            char sep;
                            if (sscanf(colon + 1, "%d%c%d", &x, &sep, &y) != 3 || (sep != ',' && sep != 'x')) {
                                snprintf(err, errlen, "bad key <%s:%s>: expected <%s:X,Y>", name, colon + 1, name);
                                free(v);
                                return false;
                            }
                            k.x = x;
                            k.y = y;
                        } else if (k.code == TK_CLICK || k.code == TK_WHEEL_UP || k.code == TK_WHEEL_DOWN ||
                                   k.code == TK_RESIZE) {
                            snprintf(err, errlen, "key <%s> needs a position: <%s:X,Y>", name, name);
                            free(v);
                            return false;
                        }
                        v[cnt++] = k;
                        s = e + 1;
                        continue;
                    }
                    snprintf(err, errlen, "unknown key <%s> (see 'ovtrace view --help')", name);
                    free(v);
                    return false;
                }
            }
        }
        uint32_t cp = Utf8_decode(&s);
        v[cnt++] = (TuiKey){(int)(cp == '\n' ? TK_ENTER : cp), 0, 0};
    }
    *out = v;
    *n = cnt;
    return true;
}
