/* The kernel table: aggregation per name, sorting, layout, and its keys. */
#include "kernel_table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/model/timeunits.h"
#include "app.h"
#include "crt.h"
#include "lanes_render.h"
#include "kname.h"
#include "feature.h"

static bool counts(const TraceEvent *e, bool all) {
    return all ? e->kind != KIND_COUNTER : e->kind == KIND_KERNEL;
}

static bool in_range(const TraceEvent *e, int64_t t0, int64_t t1) {
    int64_t end = TraceEvent_end(e);
    return e->ts < t1 && (end > t0 || (end == e->ts && e->ts >= t0));
}

void KTable_build(KTable *kt, const Trace *t, int64_t t0, int64_t t1, bool all) {
    KTable_free(kt);
    kt->t0 = t0;
    kt->t1 = t1;
    kt->all = all;
    size_t nn = StrTab_count(t->strings);
    uint32_t *slot = xcalloc(nn, sizeof *slot); /* row + 1 per name */
    size_t cap = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (!counts(e, all) || !in_range(e, t0, t1) || e->name >= nn) continue;
        int64_t d = e->dur > 0 ? e->dur : 0;
        if (!kt->whole) { /* the part inside the range */
            int64_t s0 = e->ts > t0 ? e->ts : t0, end = TraceEvent_end(e), s1 = end < t1 ? end : t1;
            d = s1 > s0 ? s1 - s0 : 0;
        }
        uint32_t s = slot[e->name];
        if (!s) {
            GROW(kt->rows, cap, kt->n + 1);
            kt->rows[kt->n] = (KtRow){e->name, (uint8_t)e->cls, 0, 0, INT64_MAX, INT64_MIN};
            s = slot[e->name] = (uint32_t)++kt->n;
        }
        KtRow *r = &kt->rows[s - 1];
        r->count++;
        r->total += d;
        if (d < r->min) r->min = d;
        if (d > r->max) r->max = d;
        kt->sum += d;
    }
    free(slot);
    KTable_sort(kt, t, KT_TOTAL, false);
}

static void drop_shown(KTable *kt) {
    for (size_t i = 0; kt->shown && i < kt->n; i++) free(kt->shown[i]);
    free(kt->shown);
    kt->shown = NULL;
}

void KTable_free(KTable *kt) {
    drop_shown(kt);
    free(kt->rows);
    KtCol s = kt->sort;
    bool asc = kt->asc, whole = kt->whole;
    memset(kt, 0, sizeof *kt);
    kt->sort = s;
    kt->asc = asc;
    kt->whole = whole;
}

static const Trace *sort_t; /* qsort has no context; the table is sorted on the UI thread only */
static KtCol sort_col;

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

/* the column alone */
static int col_cmp(const KtRow *a, const KtRow *b) {
    switch (sort_col) {
    case KT_COUNT: return a->count < b->count ? -1 : a->count > b->count;
    case KT_TOTAL:
    case KT_SHARE: return cmp_i64(a->total, b->total);
    case KT_MEAN: { /* a.total/a.count vs b.total/b.count without rounding */
        __int128 x = (__int128)a->total * (__int128)b->count, y = (__int128)b->total * (__int128)a->count;
        return x < y ? -1 : x > y;
    }
    case KT_MIN: return cmp_i64(a->min, b->min);
    case KT_MAX: return cmp_i64(a->max, b->max);
    case KT_CLASS: return a->cls < b->cls ? -1 : a->cls > b->cls;
    case KT_NAME: return strcmp(StrTab_get(sort_t->strings, a->name), StrTab_get(sort_t->strings, b->name));
    default: return 0;
    }
}

/* ties: by name id, ascending either way */
static int row_cmp(const void *pa, const void *pb) {
    const KtRow *a = pa, *b = pb;
    int c = col_cmp(a, b);
    return c ? c : a->name < b->name ? -1 : a->name > b->name;
}

static int row_cmp_desc(const void *pa, const void *pb) {
    const KtRow *a = pa, *b = pb;
    int c = col_cmp(b, a);
    return c ? c : a->name < b->name ? -1 : a->name > b->name;
}

void KTable_sort(KTable *kt, const Trace *t, KtCol col, bool asc) {
    drop_shown(kt); /* indexed by row */
    kt->sort = col;
    kt->asc = asc;
    sort_t = t;
    sort_col = col;
    if (kt->n > 1) qsort(kt->rows, kt->n, sizeof *kt->rows, asc ? row_cmp : row_cmp_desc);
}

typedef struct {
    int64_t dur, ts;
    size_t idx;
} Inst;

static int inst_cmp(const void *pa, const void *pb) {
    const Inst *a = pa, *b = pb;
    if (a->dur != b->dur) return a->dur > b->dur ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

size_t KTable_instances(const Trace *t, uint32_t name, int64_t t0, int64_t t1, bool all, size_t **out) {
    size_t n = 0, cap = 0;
    Inst *v = NULL;
    for (size_t i = 0; i < t->n_events; i++) {
        const TraceEvent *e = &t->events[i];
        if (e->name != name || !counts(e, all) || !in_range(e, t0, t1)) continue;
        GROW(v, cap, n + 1);
        v[n++] = (Inst){e->dur > 0 ? e->dur : 0, e->ts, i};
    }
    if (n > 1) qsort(v, n, sizeof *v, inst_cmp);
    *out = xmalloc(n * sizeof **out);
    for (size_t i = 0; i < n; i++) (*out)[i] = v[i].idx;
    free(v);
    return n;
}

/* ---- layout ---- */

static const char *const HEAD[KT__COLS] = {"count", "total", "mean", "min", "max", "share", "class", "name"};
static const int WID[KT__COLS] = {8, 12, 11, 11, 11, 7, 9, 0};
enum { FIXED_W = 8 + 12 + 11 + 11 + 11 + 7 + 9 + 1, NAME_MIN_W = 30 };

/* The name column's forms for width w (KName_distinct over every row). */
static void names_for(KTable *kt, const Trace *t, int w, bool ascii) {
    if (kt->shown && kt->shown_w == w && kt->shown_ascii == ascii) return;
    drop_shown(kt);
    if (!kt->n) return;
    const char **names = xmalloc(kt->n * sizeof *names);
    for (size_t i = 0; i < kt->n; i++) names[i] = StrTab_get(t->strings, kt->rows[i].name);
    kt->shown = xcalloc(kt->n, sizeof *kt->shown);
    KName_distinct(names, kt->n, w, !ascii, kt->shown);
    free(names);
    kt->shown_w = w;
    kt->shown_ascii = ascii;
}

/* The title's parts in the order they read, each kept whole or left out; rank: which go
 * first when the width is short (0 the most needed). Hints go inside "  (...)". */
typedef struct {
    const char *text;
    int rank;
    bool hint;
} TitlePart;

/* Joins the parts that fit w columns, taken by rank: the first one always, a part that
 * does not fit is left out and the next ranks are still tried. */
static void join_parts(const TitlePart *p, size_t np, int w, char *buf, size_t n) {
    bool keep[16] = {0};
    int cols = 0;
    bool any_hint = false;
    for (int rank = 0; rank < 16; rank++)
        for (size_t i = 0; i < np && i < 16; i++) {
            if (p[i].rank != rank || !*p[i].text) continue;
            int c = (int)Utf8_columns(p[i].text) + (p[i].hint ? (any_hint ? 2 : 4) : 0); /* ", " or "  (" ")" */
            if (cols + c > w && rank > 0) continue;
            keep[i] = true;
            cols += c;
            any_hint |= p[i].hint;
        }
    size_t k = 0;
    bool open = false;
    buf[0] = 0;
    for (size_t i = 0; i < np && i < 16 && k < n; i++) {
        if (!keep[i]) continue;
        const char *pre = p[i].hint ? (open ? ", " : "  (") : "";
        int m = snprintf(buf + k, n - k, "%s%s", pre, p[i].text);
        if (m < 0) break;
        k += (size_t)m;
        open |= p[i].hint;
    }
    if (open && k + 1 < n) snprintf(buf + k, n - k, ")");
}

void KTable_title(const KTable *kt, const Trace *t, int w, char *buf, size_t n) {
    char a[48], b[48], head[160], counts[96];
    Time_format(a, sizeof a, kt->t0 - t->t_min);
    Time_format(b, sizeof b, kt->t1 - t->t_min);
    size_t events = 0;
    for (size_t i = 0; i < kt->n; i++) events += kt->rows[i].count;
    snprintf(head, sizeof head, " %s in %s..%s", kt->all ? "Events" : "Kernels", a, b);
    snprintf(counts, sizeof counts, ": %zu names, %zu events", kt->n, events);
    const TitlePart parts[] = {
        {head, 0, false},
        {counts, 5, false},
        /* a lazy load's GPU-first model: "all events" cannot include the CPU lanes yet */
        {kt->all && t->gpu_only ? " (GPU lanes only: CPU lanes loading)" : "", 1, false},
        {kt->whole ? ", " KTABLE_WHOLE_WORDS : ", " KTABLE_CLIPPED_WORDS, 2, false},
        {"1-8 sort", 4, true},
        {"w whole/clipped", 7, true},
        {"Enter slowest", 6, true},
        {kt->all ? "a kernels only" : "a all events", 8, true},
        {"</> scroll names", 9, true},
        {"y copy", 10, true},
        {"t/Esc close", 3, true},
    };
    join_parts(parts, sizeof parts / sizeof *parts, w, buf, n);
}

int KTable_render(Grid *g, Rect r, const Trace *t, KTable *kt, size_t sel, size_t top, bool ascii) {
    if (r.w <= 0 || r.h < 6) return 0;
    Grid_fill(g, r, ' ', ROLE_PANEL, 0);
    char buf[512];
    KTable_title(kt, t, r.w, buf, sizeof buf);
    Grid_text(g, r.x, r.y, r.w, buf, ROLE_PANEL_TITLE, ATTR_BOLD);
    /* min and max make room for the names where the table is narrow */
    bool narrow = r.w - FIXED_W < NAME_MIN_W;
    int name_w = r.w - FIXED_W + (narrow ? WID[KT_MIN] + WID[KT_MAX] : 0);
    if (name_w < 8) name_w = 8;
    names_for(kt, t, name_w, ascii);
    /* header: the sort column carries an arrow */
    int x = r.x;
    for (int c = 0; c < KT__COLS; c++) {
        if (narrow && (c == KT_MIN || c == KT_MAX)) continue;
        char h[32];
        const char *arrow = c == (int)kt->sort ? (kt->asc ? (ascii ? "^" : "\xe2\x96\xb2") : (ascii ? "v" : "\xe2\x96\xbc")) : "";
        snprintf(h, sizeof h, "%d %s%s", c + 1, HEAD[c], arrow);
        if (WID[c]) {
            int len = (int)Utf8_columns(h);
            Grid_fill(g, (Rect){x, r.y + 1, WID[c] - len > 0 ? WID[c] - len : 0, 1}, ' ', ROLE_PANEL_KEY, 0);
            x += WID[c] - len > 0 ? WID[c] - len : 0;
            x += Grid_textAscii(g, x, r.y + 1, r.x + r.w - x, h, ROLE_PANEL_KEY, ATTR_BOLD, ascii) + 1;
        } else {
            Grid_textAscii(g, x + 1, r.y + 1, r.x + r.w - x - 1, h, ROLE_PANEL_KEY, ATTR_BOLD, ascii);
        }
    }
    int name_lines = 3; /* the selected name, wrapped */
    int body = r.h - 2 - 1 - name_lines;
    if (body < 1) body = 1;
    int shown = 0;
    for (size_t i = top; i < kt->n && shown < body; i++, shown++) {
        const KtRow *row = &kt->rows[i];
        int y = r.y + 2 + shown;
        char c[KT__COLS][48];
        snprintf(c[KT_COUNT], 48, "%zu", row->count);
        Time_format(c[KT_TOTAL], 48, row->total);
        Time_format(c[KT_MEAN], 48, row->count ? row->total / (int64_t)row->count : 0);
        Time_format(c[KT_MIN], 48, row->min);
        Time_format(c[KT_MAX], 48, row->max);
        snprintf(c[KT_SHARE], 48, "%.1f%%", kt->sum > 0 ? 100.0 * (double)row->total / (double)kt->sum : 0.0);
        snprintf(c[KT_CLASS], 48, "%s", EventClass_name((EventClass)row->cls));
        char line[1024];
        int o = 0;
        for (int k = 0; k < KT_NAME; k++)
            if (!narrow || (k != KT_MIN && k != KT_MAX)) o += snprintf(line + o, sizeof line - (size_t)o, "%*s ", WID[k] - 1, c[k]);
        o += snprintf(line + o, sizeof line - (size_t)o, " ");
        if (kt->hscroll > 0) { /* the full name from hscroll columns on */
            const char *p = StrTab_get(t->strings, row->name);
            for (int k = 0; k < kt->hscroll && *p; k++) Utf8_decode(&p);
            snprintf(line + o, sizeof line - (size_t)o, "%s", p);
        } else {
            snprintf(line + o, sizeof line - (size_t)o, "%s", kt->shown[i]);
        }
        int role = i == sel ? ROLE_SELECTED_TEXT : ROLE_PANEL;
        if (i == sel) Grid_fill(g, (Rect){r.x, y, r.w, 1}, ' ', role, 0);
        Grid_textAscii(g, r.x, y, r.w, line, role, 0, ascii);
    }
    if (!kt->n) Grid_text(g, r.x + 1, r.y + 2, r.w - 1, "nothing in this range (a: all events)", ROLE_DIM, 0);
    /* the selected row's full name, wrapped over name_lines lines */
    int ny = r.y + r.h - name_lines - 1;
    Grid_hline(g, r.x, ny, r.w, ascii ? '-' : 0x2500, ROLE_DIM);
    if (sel < kt->n) {
        const char *s = StrTab_get(t->strings, kt->rows[sel].name);
        for (int k = 0; k < name_lines && *s; k++) {
            int n = 0;
            const char *p = s;
            while (*p && n < r.w - 1) {
                Utf8_decode(&p);
                n++;
            }
            char piece[2048];
            size_t len = (size_t)(p - s) < sizeof piece - 1 ? (size_t)(p - s) : sizeof piece - 1;
            memcpy(piece, s, len);
            piece[len] = '\0';
            if (k == name_lines - 1 && *p) { /* more than fits: end with an ellipsis */
                Grid_textAscii(g, r.x + 1, ny + 1 + k, r.w - 2, piece, ROLE_PANEL, 0, ascii);
                Grid_put(g, r.x + r.w - 1, ny + 1 + k, ascii ? '~' : 0x2026, ROLE_DIM, 0);
            } else {
                Grid_textAscii(g, r.x + 1, ny + 1 + k, r.w - 1, piece, ROLE_PANEL, 0, ascii);
            }
            s = p;
        }
    }
    return shown;
}

size_t KTable_osc52(const char *s, char *out, size_t n) {
    static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t len = strlen(s), need = 7 + (len + 2) / 3 * 4 + 1 + 1;
    if (need > n) return 0;
    size_t o = 0;
    memcpy(out, "\033]52;c;", 7);
    o = 7;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)s[i] << 16;
        if (i + 1 < len) v |= (uint32_t)(unsigned char)s[i + 1] << 8;
        if (i + 2 < len) v |= (unsigned char)s[i + 2];
        out[o++] = B64[v >> 18 & 63];
        out[o++] = B64[v >> 12 & 63];
        out[o++] = i + 1 < len ? B64[v >> 6 & 63] : '=';
        out[o++] = i + 2 < len ? B64[v & 63] : '=';
    }
    out[o++] = '\a';
    out[o] = '\0';
    return o;
}

static bool osc52_on;
void KTable_setOsc52(bool on) { osc52_on = on; }

/* ---- in the viewer ---- */

extern const Feature KTable_feature;

typedef struct {
    bool open;
    KTable kt;
    size_t sel, top;
    int rows_shown;
    /* walking the instances of one name by duration (after Enter) */
    bool walk;
    size_t *inst, n_inst, at;
    uint32_t walk_name;
} KTableState;

static void *kt_init(App *a) {
    (void)a;
    KTableState *s = xcalloc(1, sizeof *s);
    s->kt.sort = KT_TOTAL;
    return s;
}

static void kt_free(App *a, void *st) {
    (void)a;
    KTableState *s = st;
    KTable_free(&s->kt);
    free(s->inst);
    free(s);
}

static void range_of(const App *a, int64_t *t0, int64_t *t1) {
    if (View_rangeSet(&a->v)) View_range(&a->v, t0, t1);
    else *t0 = a->v.t0, *t1 = a->v.t1;
}

static void rebuild(App *a, KTableState *s, bool all) {
    int64_t t0, t1;
    range_of(a, &t0, &t1);
    KtCol col = s->kt.sort;
    bool asc = s->kt.asc;
    KTable_build(&s->kt, a->t, t0, t1, all);
    KTable_sort(&s->kt, a->t, col, asc);
    s->sel = s->top = 0;
}

/* The model was replaced (live mode): the walk ends (event indexes changed); an open
 * table follows the new model, on the same name if it is there. */
static void kt_retrace(App *a, void *st, const Trace *old) {
    KTableState *s = st;
    free(s->inst);
    s->inst = NULL;
    s->n_inst = s->at = 0;
    s->walk = false;
    if (!s->open) return;
    char keep[512] = "";
    if (old && s->sel < s->kt.n) snprintf(keep, sizeof keep, "%s", StrTab_get(old->strings, s->kt.rows[s->sel].name));
    rebuild(a, s, s->kt.all);
    for (size_t i = 0; *keep && i < s->kt.n; i++)
        if (!strcmp(StrTab_get(a->t->strings, s->kt.rows[i].name), keep)) s->sel = i;
}

static unsigned k_open(App *a, const TuiKey *k, int arg) {
    (void)k, (void)arg;
    KTableState *s = Feature_state(a, &KTable_feature);
    s->open = true;
    s->walk = false;
    rebuild(a, s, s->kt.all);
    return REDRAW_VIEW;
}

static void show_instance(App *a, const KTableState *s) {
    size_t idx = s->inst[s->at];
    const TraceEvent *e = &a->t->events[idx];
    App_selectEvent(a, idx);
    if (TraceEvent_end(e) > e->ts && (e->ts < a->v.t0 || TraceEvent_end(e) > a->v.t1)) View_fit(&a->v, e->ts, TraceEvent_end(e));
    char d[48], name[96];
    Time_format(d, sizeof d, e->dur > 0 ? e->dur : 0);
    Lanes_shortName(Trace_name(a->t, e), name, sizeof name, a->gl->unicode);
    App_message(a, ROLE_STATUS, "instance %zu/%zu by duration: %s  %s  (n/N: shorter/longer, Esc ends)", s->at + 1,
                s->n_inst, d, name);
}

static void copy_name(App *a, const KTableState *s) {
    if (s->sel >= s->kt.n) return;
    if (!osc52_on) {
        App_message(a, ROLE_ERROR, "copying is off: start ovtrace view with --osc52 (or OVTRACE_OSC52=1)");
        return;
    }
    const char *name = StrTab_get(a->t->strings, s->kt.rows[s->sel].name);
    size_t n = strlen(name) * 4 / 3 + 16;
    char *seq = xmalloc(n);
    size_t len = KTable_osc52(name, seq, n);
    bool sent = false;
    if (len && Crt_active()) {
        /* straight to the terminal, between two frames: curses does not track it */
        sent = write(STDOUT_FILENO, seq, len) == (ssize_t)len;
    }
    free(seq);
    App_message(a, sent ? ROLE_GOOD : ROLE_ERROR, sent ? "name copied (OSC 52)" : "no terminal to copy to");
}

/* The table closed, after Enter: n/N walk the instances; Esc or / end the walk and go
 * on as usual. */
static bool walk_key(App *a, KTableState *s, const TuiKey *k, unsigned *redraw) {
    if (k->code == 'n' || k->code == 'N') {
        if (k->code == 'n' && s->at + 1 < s->n_inst) s->at++;
        else if (k->code == 'N' && s->at > 0) s->at--;
        show_instance(a, s);
        *redraw = REDRAW_VIEW;
        return true;
    }
    if (k->code == TK_ESC || k->code == '/') s->walk = false;
    return false;
}

/* Enter: the selected name's instances, longest first; the table closes on the first. */
static void start_walk(App *a, KTableState *s) {
    if (s->sel >= s->kt.n) return;
    free(s->inst);
    s->walk_name = s->kt.rows[s->sel].name;
    s->n_inst = KTable_instances(a->t, s->walk_name, s->kt.t0, s->kt.t1, s->kt.all, &s->inst);
    s->at = 0;
    s->open = false;
    if (s->n_inst) {
        s->walk = true;
        show_instance(a, s);
    }
}

/* 1-8: sort by that column; the same column again reverses, a new one starts
 * descending (names ascending); the selection stays on its name. */
static void sort_key(App *a, KTableState *s, KtCol c) {
    size_t n = s->kt.n;
    bool asc = c == s->kt.sort ? !s->kt.asc : c == KT_NAME || c == KT_CLASS;
    uint32_t keep = s->sel < n ? s->kt.rows[s->sel].name : 0;
    KTable_sort(&s->kt, a->t, c, asc);
    for (size_t i = 0; i < n; i++)
        if (s->kt.rows[i].name == keep) s->sel = i;
}

enum { HSCROLL_STEP = 8 }; /* columns a name scroll moves */

static void move_key(App *a, KTableState *s, const TuiKey *k) {
    size_t n = s->kt.n;
    int page = s->rows_shown > 1 ? s->rows_shown : 10;
    switch (k->code) {
    case TK_DOWN:
    case 'j': if (s->sel + 1 < n) s->sel++; break;
    case TK_UP:
    case 'k': if (s->sel > 0) s->sel--; break;
    case TK_PGDN: s->sel = s->sel + (size_t)page < n ? s->sel + (size_t)page : (n ? n - 1 : 0); break;
    case TK_PGUP: s->sel = s->sel > (size_t)page ? s->sel - (size_t)page : 0; break;
    case 'g':
    case TK_HOME: s->sel = 0; break;
    case 'G':
    case TK_END: s->sel = n ? n - 1 : 0; break;
    case 'a': rebuild(a, s, !s->kt.all); break;
    case 'w': { /* whole events / clipped to the range; the selection stays on its name */
        uint32_t keep = s->sel < n ? s->kt.rows[s->sel].name : 0;
        s->kt.whole = !s->kt.whole;
        rebuild(a, s, s->kt.all);
        for (size_t i = 0; i < s->kt.n; i++)
            if (s->kt.rows[i].name == keep) s->sel = i;
        break;
    }
    case '<':
    case 'h':
    case TK_LEFT: s->kt.hscroll = s->kt.hscroll > HSCROLL_STEP ? s->kt.hscroll - HSCROLL_STEP : 0; break;
    case '>':
    case 'l':
    case TK_RIGHT: s->kt.hscroll += HSCROLL_STEP; break;
    case 'y': copy_name(a, s); break;
    default:
        if (k->code >= '1' && k->code < '1' + KT__COLS) {
            sort_key(a, s, (KtCol)(k->code - '1'));
        } else {
            char nm[16];
            App_message(a, ROLE_DIM, "key %s: not a kernel table key (t or Esc closes it)", Keys_name(k->code, nm));
        }
        break;
    }
    if (s->sel < s->top) s->top = s->sel;
    if (s->rows_shown > 0 && s->sel >= s->top + (size_t)s->rows_shown) s->top = s->sel - (size_t)s->rows_shown + 1;
}

/* The open table takes every key but resize and interrupts; after Enter, n/N walk. */
static bool kt_key(App *a, void *st, const TuiKey *k, unsigned *redraw) {
    KTableState *s = st;
    if (!s->open) return s->walk && walk_key(a, s, k, redraw);
    if (k->code == TK_RESIZE || k->code == TK_INTERRUPT) return false;
    *redraw = REDRAW_VIEW;
    if (k->code == TK_ESC || k->code == 't' || k->code == 'q') s->open = false;
    else if (k->code == TK_ENTER) start_walk(a, s);
    else move_key(a, s, k);
    return true;
}

/* The open table over the lanes and the panel: every column for the names. */
static void kt_render(App *a, void *st, Grid *g, const Layout *L) {
    KTableState *s = st;
    if (!s->open) return;
    Rect r = {0, L->labels.y, L->title.w, L->legend.y - L->labels.y};
    /* keep the selection visible for the height we get */
    int body = r.h - 6 > 0 ? r.h - 6 : 1;
    if (s->sel >= s->top + (size_t)body) s->top = s->sel - (size_t)body + 1;
    s->rows_shown = KTable_render(g, r, a->t, &s->kt, s->sel, s->top, !a->gl->unicode);
}

/* The open table takes the panel's place too. */
static bool kt_panel(App *a, void *st, Grid *g, Rect panel, bool at_right) {
    (void)a, (void)g, (void)panel, (void)at_right;
    return ((KTableState *)st)->open;
}

static const KeyBinding KTABLE_KEYS[] = {
    {{'t'}, "t", "kernel table of the marked (or visible) range, time clipped to it: w whole events, 1-8 sort, Enter slowest (then n/N), a all events, < > scroll names, y copy",
     k_open, 0},
};

const Feature KTable_feature = {
    .name = "kernel table",
    FEATURE_KEYS(KTABLE_KEYS),
    .init = kt_init,
    .free = kt_free,
    .retrace = kt_retrace,
    .key = kt_key,
    .render = kt_render,
    .panel = kt_panel,
};
