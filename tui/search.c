/* Name search. */
#include "search.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/regex.h"
#include "app.h"
#include "lanes_render.h"
#include "feature.h"

void Search_clear(Search *s) {
    if (s->active) regfree(&s->re);
    for (size_t i = 0; i < s->n_rows; i++) free(s->row_matches ? s->row_matches[i] : NULL);
    free(s->row_matches);
    free(s->row_n);
    free(s->name_match);
    *s = (Search){0};
}

bool Search_set(Search *s, const Trace *t, const char *pattern, char *err, size_t errlen) {
    regex_t re;
    int flags = REG_EXTENDED | REG_NOSUB;
    bool upper = false;
    for (const char *p = pattern; *p; p++) upper |= isupper((unsigned char)*p) != 0;
    if (!upper) flags |= REG_ICASE;
    /* a typed pattern such as "a+++++++++++++++++++++" would make glibc's regcomp
     * build an exponential automaton (GBs, seconds): refuse it as a bad regex */
    if (!Regex_compile(&re, pattern, flags, "bad regex", err, errlen)) return false;
    Search_clear(s);
    s->re = re;
    s->active = true;
    snprintf(s->pattern, sizeof s->pattern, "%s", pattern);
    s->n_names = StrTab_count(t->strings);
    s->name_match = xcalloc(s->n_names, 1);
    for (size_t i = 1; i < s->n_names; i++)
        s->name_match[i] = regexec(&re, StrTab_get(t->strings, (uint32_t)i), 0, NULL, 0) == 0;
    s->n_rows = t->n_rows;
    s->row_matches = xcalloc(t->n_rows, sizeof *s->row_matches);
    s->row_n = xcalloc(t->n_rows, sizeof *s->row_n);
    for (size_t ri = 0; ri < t->n_rows; ri++) {
        const Row *r = &t->rows[ri];
        size_t n = 0;
        for (size_t i = r->first; i < r->first + r->count; i++) n += s->name_match[t->events[i].name];
        if (!n) continue;
        s->row_matches[ri] = xcalloc(n, sizeof(uint32_t));
        size_t k = 0;
        for (size_t i = r->first; i < r->first + r->count; i++)
            if (s->name_match[t->events[i].name]) s->row_matches[ri][k++] = (uint32_t)(i - r->first);
        s->row_n[ri] = n;
        s->total += n;
    }
    return true;
}

/* first k with off[k] >= x */
static size_t lb(const uint32_t *off, size_t n, uint32_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (off[mid] >= x) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

bool Search_anyIn(const Search *s, const Trace *t, uint32_t row, size_t j0, size_t j1) {
    if (!s->active || row >= s->n_rows || !s->row_n[row] || j1 <= j0) return false;
    const Row *r = &t->rows[row];
    size_t k = lb(s->row_matches[row], s->row_n[row], (uint32_t)(j0 - r->first));
    return k < s->row_n[row] && s->row_matches[row][k] < j1 - r->first;
}

/* first match in row with ts > x (strict) or >= x */
static size_t first_after(const Search *s, const Trace *t, uint32_t row, int64_t x, bool strict) {
    const Row *r = &t->rows[row];
    const uint32_t *off = s->row_matches[row];
    size_t lo = 0, hi = s->row_n[row];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t ts = t->events[r->first + off[mid]].ts;
        if (strict ? ts > x : ts >= x) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

size_t Search_next(const Search *s, const Trace *t, int64_t ts, uint32_t row, int dir, bool *wrapped) {
    return Search_nextIn(s, t, ts, row, dir, NULL, wrapped);
}

size_t Search_nextIn(const Search *s, const Trace *t, int64_t ts, uint32_t row, int dir, const bool *rows_ok,
                     bool *wrapped) {
    if (wrapped) *wrapped = false;
    if (!s->active || !s->total) return SIZE_MAX;
    size_t best = SIZE_MAX;
    int64_t bts = 0;
    uint32_t brow = 0;
    for (int pass = 0; pass < 2 && best == SIZE_MAX; pass++) {
        /* pass 1 wraps: search from the other end */
        int64_t x = pass ? (dir > 0 ? INT64_MIN : INT64_MAX) : ts;
        uint32_t xr = pass ? (dir > 0 ? 0 : UINT32_MAX) : row;
        for (uint32_t ri = 0; ri < s->n_rows; ri++) {
            size_t n = s->row_n[ri];
            if (!n || (rows_ok && !rows_ok[ri])) continue;
            const Row *r = &t->rows[ri];
            size_t k;
            if (dir > 0) {
                /* (ets, ri) > (x, xr) */
                bool allow_equal = pass ? true : ri > xr;
                k = first_after(s, t, ri, x, !allow_equal);
                if (k >= n) continue;
            } else {
                bool allow_equal = pass ? true : ri < xr;
                k = first_after(s, t, ri, x, allow_equal); /* first with ts > x (or >= x) */
                if (k == 0) continue;
                k--;
            }
            size_t idx = r->first + s->row_matches[ri][k];
            int64_t ets = t->events[idx].ts;
            bool better = best == SIZE_MAX ||
                          (dir > 0 ? (ets < bts || (ets == bts && ri < brow)) : (ets > bts || (ets == bts && ri > brow)));
            if (better) {
                best = idx;
                bts = ets;
                brow = ri;
            }
        }
        if (best != SIZE_MAX && pass && wrapped) *wrapped = true;
    }
    return best;
}

/* ---- in the viewer: / n N Esc ---- */

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
