/* The view engine: the shared state, the model swap and a frame (app.h). */
#include "app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/termsafe.h"
#include "ovtrace/read/hardware.h"
#include "feature.h"

/* The GPUs the first source that names any was recorded on ("gpus" metadata), escaped
 * once here: the title shows them on every frame, and a live model can gain them. */
static void describe_hardware(App *a) {
    a->hw[0] = 0;
    char raw[256];
    for (size_t i = 0; i < a->t->n_sources; i++)
        if (Hardware_names(a->t->sources[i].meta_json, raw, sizeof raw)) {
            TermSafe_str(raw, a->hw, sizeof a->hw);
            return;
        }
}

App *App_new(Trace *t, Caps caps, const char *title) {
    App *a = xcalloc(1, sizeof *a);
    a->t = t;
    a->caps = caps;
    a->gl = Glyphs_get(caps.unicode);
    a->idx = TraceIndex_build(t);
    a->collapsed = xcalloc(t->n_groups, sizeof *a->collapsed);
    Lines_defaultCollapsed(t, a->collapsed);
    a->hidden = xcalloc(t->n_groups, sizeof *a->hidden);
    a->n_hidden = Lines_clutter(t, a->hidden);
    Features_init(a);
    App_rebuildLines(a);
    View_init(&a->v, t->t_min, t->t_max);
    snprintf(a->title, sizeof a->title, "%s", title ? title : "");
    describe_hardware(a);
    /* start on the first lane row of the first group (the first rank in the overview) */
    for (size_t i = 0; i < a->lines.n; i++)
        if (a->lines.v[i].kind == LINE_ROW) {
            a->v.line = i;
            break;
        }
    return a;
}

void App_free(App *a) {
    if (!a) return;
    TraceIndex_free(a->idx);
    Features_free(a);
    free(a->collapsed);
    free(a->hidden);
    Lines_free(&a->lines);
    Search_clear(&a->search);
    free(a->colbuf);
    free(a->bandbuf);
    free(a);
}

void App_rebuildLines(App *a) {
    Lines_buildFiltered(&a->lines, a->t, a->collapsed, a->show_all ? NULL : a->hidden);
    a->v.pinned = 0; /* the pin feature's lines op moves its lines to the front */
    Features_lines(a, &a->lines);
}

void App_setTrace(App *a, Trace *t) {
    size_t old_groups = a->t ? a->t->n_groups : 0;
    const Trace *old_t = a->t;
    a->t = t;
    TraceIndex_free(a->idx);
    a->idx = TraceIndex_build(t);
    bool *c = xcalloc(t->n_groups, sizeof *c);
    Lines_defaultCollapsed(t, c);
    for (size_t g = 0; g < old_groups && g < t->n_groups; g++) c[g] = a->collapsed[g];
    free(a->collapsed);
    a->collapsed = c;
    free(a->hidden);
    a->hidden = xcalloc(t->n_groups, sizeof *a->hidden);
    a->n_hidden = Lines_clutter(t, a->hidden);
    a->v.sel = SIZE_MAX; /* indexes change when a model is rebuilt */
    View_setExtent(&a->v, t->t_min, t->t_max);
    describe_hardware(a);
    Features_retrace(a, old_t); /* event indexes changed */
    App_rebuildLines(a);
    View_scrollToLine(&a->v, a->lines.n);
}

Trace *App_trace(const App *a) { return a->t; }

size_t App_lineAtRow(const App *a, int k) {
    if (k < 0) return SIZE_MAX;
    size_t p = a->v.pinned < a->lines.n ? a->v.pinned : a->lines.n;
    size_t line = (size_t)k < p ? (size_t)k : a->v.top + ((size_t)k - p);
    return line < a->lines.n ? line : SIZE_MAX;
}

int App_clampRange(const App *a, int64_t *t0, int64_t *t1) { return View_clampRange(a->t->t_min, a->t->t_max, t0, t1); }

void App_setWindow(App *a, int64_t t0, int64_t t1) {
    a->v.t0 = t0;
    a->v.t1 = t1 > t0 ? t1 : t0 + 1;
    a->v.cursor = t0;
}

static void say(App *a, int role, const char *fmt, va_list ap) {
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    a->msg_role = role;
    a->msg_seq++;
}

void App_message(App *a, int role, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say(a, role, fmt, ap);
    va_end(ap);
}

void App_notice(App *a, bool error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say(a, error ? ROLE_ERROR : ROLE_STATUS, fmt, ap);
    va_end(ap);
}

/* ---- keys ---- */

unsigned App_applyBinding(App *a, const KeyBinding *b, const TuiKey *k) {
    unsigned said = a->msg_seq;
    unsigned r = b->fn(a, k, b->arg);
    if (!(r & KEEP_MSG) && a->msg_seq == said) a->msg[0] = '\0'; /* an older message is stale now */
    return r;
}

unsigned App_key(App *a, const TuiKey *k) {
    if (k->code == TK_INTERRUPT) {
        a->quit = true;
        return REDRAW_NONE;
    }
    if (a->prompt.open && k->code != TK_RESIZE) return Prompt_key(a, &a->prompt, k);
    unsigned r;
    if (Features_key(a, k, &r)) return r; /* the help screen, the kernel table open, ... */
    const KeyBinding *b = Features_lookupKey(k->code);
    if (!b) {
        char nm[16];
        App_message(a, ROLE_DIM, "key %s is not bound (? lists the keys)", Keys_name(k->code, nm));
        return REDRAW_VIEW;
    }
    return App_applyBinding(a, b, k);
}

/* The engine's own keys: redraw, resize, quit (listed last by ?). */
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

static const KeyBinding SESSION_KEYS[] = {
    {{TK_CTRL_L}, "Ctrl-L", "redraw the screen", k_redraw, 0},
    {{TK_RESIZE}, "(resize)", "the layout follows the terminal (min 80x24)", k_redraw, 0},
    {{'q', 'Q'}, "q", "quit", k_quit, 0},
};

const Feature Session_feature = {.name = "session", FEATURE_KEYS(SESSION_KEYS)};

/* ---- selection ---- */

size_t App_eventAt(const App *a, uint32_t row, int64_t ts, int64_t slack) {
    const Trace *t = a->t;
    const Row *r = &t->rows[row];
    if (!r->count) return SIZE_MAX;
    size_t j = Row_lowerBound(t, r, ts);
    if (j < r->first + r->count && t->events[j].ts <= ts) return j;
    size_t best = SIZE_MAX;
    int64_t bd = slack < INT64_MAX ? slack + 1 : INT64_MAX; /* slack: up to a 2^63 ns view */
    if (j < r->first + r->count) {
        int64_t d = t->events[j].ts - ts;
        if (d <= slack) best = j, bd = d;
    }
    if (j > r->first) {
        int64_t d = ts - TraceEvent_end(&t->events[j - 1]);
        if (d <= slack && d < bd) best = j - 1;
    }
    return best;
}

void App_selectLine(App *a, size_t line) {
    if (line >= a->lines.n) return;
    a->v.line = line;
    View_scrollToLine(&a->v, a->lines.n);
    const Line *L = &a->lines.v[line];
    if (L->kind == LINE_ROW) {
        size_t e = App_eventAt(a, L->row, a->v.cursor, View_span(&a->v));
        if (e != SIZE_MAX) a->v.sel = e;
    } else {
        size_t e = Features_pick(a, L);
        if (e != SIZE_MAX) a->v.sel = e;
    }
}

void App_selectEvent(App *a, size_t idx) {
    if (idx >= a->t->n_events) return;
    const TraceEvent *e = &a->t->events[idx];
    uint32_t g = a->t->lanes[e->lane].group;
    if (a->collapsed[g] || (!a->show_all && a->hidden[g])) {
        a->collapsed[g] = false;
        if (!a->show_all && a->hidden[g]) a->hidden[g] = false, a->n_hidden--; /* a jump target is shown */
        App_rebuildLines(a);
    }
    size_t line = Lines_findRow(&a->lines, Lines_rowOfEvent(a->t, idx));
    if (line != SIZE_MAX) a->v.line = line;
    a->v.sel = idx;
    View_show(&a->v, e->ts);
    a->v.cursor = e->ts;
    if (a->v.cursor < a->v.t0) a->v.cursor = a->v.t0;
    a->v.follow = false;
    View_scrollToLine(&a->v, a->lines.n);
}

void App_setRange(App *a, int64_t t0, int64_t t1) {
    a->v.mark0 = t0;
    a->v.mark1 = t1;
    a->v.panel = PANEL_RANGE;
    a->v.panel_hidden = false;
}

void App_sync(App *a) {
    if (a->v.sel != SIZE_MAX && a->v.sel >= a->t->n_events) a->v.sel = SIZE_MAX;
    Features_sync(a);
}
