/* The search keys: / (a regex over names, in the status line's prompt), n / N (the
 * next / previous match across lanes), Esc (clears the search, then the range). The
 * matching itself is search.c; the active search is shared (App.search). */
#include <stdio.h>
#include <stdlib.h>

#include "ovtrace/base/alloc.h"
#include "app.h"
#include "lanes_render.h"
#include "feature.h"

/* Rows on screen (of expanded groups): a new search starts with them. */
static bool *shown_rows(const App *a) {
    bool *shown = xcalloc(a->t->n_rows ? a->t->n_rows : 1, 1);
    for (size_t i = 0; i < a->lines.n; i++)
        if (a->lines.v[i].kind == LINE_ROW) shown[a->lines.v[i].row] = true;
    return shown;
}

/* The next (dir > 0) or previous match, from the selection, or from the cursor for a
 * new search (then among the rows on screen first). */
static void search_jump(App *a, int dir, bool from_cursor) {
    if (!a->search.active) {
        App_message(a, ROLE_ERROR, "no search (/ starts one)");
        return;
    }
    int64_t ts;
    uint32_t row;
    if (!from_cursor && a->v.sel != SIZE_MAX) {
        ts = a->t->events[a->v.sel].ts;
        row = Lines_rowOfEvent(a->t, a->v.sel);
    } else {
        ts = dir > 0 ? a->v.cursor - 1 : a->v.cursor;
        row = dir > 0 ? UINT32_MAX : 0;
    }
    bool wrapped;
    size_t m = SIZE_MAX;
    if (from_cursor) {
        bool *shown = shown_rows(a);
        m = Search_nextIn(&a->search, a->t, ts, row, dir, shown, &wrapped);
        free(shown);
    }
    if (m == SIZE_MAX) m = Search_next(&a->search, a->t, ts, row, dir, &wrapped);
    if (m == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no match for /%s", a->search.pattern);
        return;
    }
    App_selectEvent(a, m);
    char name[120];
    Lanes_shortName(Trace_name(a->t, &a->t->events[m]), name, sizeof name, a->gl->unicode);
    App_message(a, ROLE_GOOD, "%s%s  (%zu match%s, n/N: next/previous, Esc clears)", wrapped ? "search wrapped: " : "",
                name, a->search.total, a->search.total == 1 ? "" : "es");
}

/* Enter in the / prompt: the search, and its first match from the cursor. */
static void submit(App *a, const char *text) {
    if (!text[0]) {
        Search_clear(&a->search);
        return;
    }
    char err[256];
    if (!Search_set(&a->search, a->t, text, err, sizeof err)) {
        App_message(a, ROLE_ERROR, "%s", err);
        return;
    }
    search_jump(a, 1, true);
    if (a->t->gpu_only) { /* a lazy load: CPU ops are not searchable yet */
        char m[sizeof a->msg];
        snprintf(m, sizeof m, "%s", a->msg);
        App_message(a, ROLE_DIM, "%.180s (GPU lanes only: CPU lanes still loading)", m);
    }
}

static unsigned k_search_prompt(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    Prompt_open(&a->prompt, "/", "", submit, NULL);
    return REDRAW_VIEW;
}

static unsigned k_search_next(App *a, const TuiKey *k, int arg) {
    (void)k;
    search_jump(a, arg, false);
    return REDRAW_VIEW | KEEP_MSG;
}

static unsigned k_escape(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (a->search.active) {
        Search_clear(&a->search);
        App_message(a, ROLE_DIM, "search cleared");
    } else if (a->v.mark0 != VIEW_NO_MARK) {
        a->v.mark0 = a->v.mark1 = VIEW_NO_MARK;
        a->v.panel = PANEL_DETAILS;
        App_message(a, ROLE_DIM, "range cleared");
    } else {
        a->msg[0] = '\0';
    }
    return REDRAW_VIEW;
}

/* The new model is searched again for the same pattern. */
static void retrace(App *a, void *st, const Trace *old) {
    (void)st, (void)old;
    if (!a->search.active) return;
    char pat[256], err[256];
    snprintf(pat, sizeof pat, "%s", a->search.pattern);
    if (!Search_set(&a->search, a->t, pat, err, sizeof err)) Search_clear(&a->search);
}

static const KeyBinding SEARCH_KEYS[] = {
    {{'/'}, "/", "search names (regex; smart case)", k_search_prompt, 0},
    {{'n'}, "n", "next match across lanes", k_search_next, 1},
    {{'N'}, "N", "previous match", k_search_next, -1},
    {{TK_ESC}, "Esc", "clear the search (then the range)", k_escape, 0},
};

const Feature Search_feature = {
    .name = "search",
    FEATURE_KEYS(SEARCH_KEYS),
    .retrace = retrace,
};
