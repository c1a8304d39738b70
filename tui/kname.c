/* Kernel names told apart in a narrow column (kname.h). */
#include "kname.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "grid.h"

enum { KEEP_ALL = 1 << 20 };

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '~'; }

/* Drops all but the last `keep` qualifiers of the qualified name that starts at out[start]
 * and ends at out[*o] (sep: the offsets right after each "::"). */
static void trim_chain(char *out, size_t *o, size_t start, const size_t *sep, int nsep, int keep) {
    if (nsep <= keep) return;
    size_t from = sep[nsep - keep - 1];
    memmove(out + start, out + from, *o - from);
    *o -= from - start;
}

/* The simplified name keeping `keep` qualifiers of each identifier (KEEP_ALL: all). */
static void simplify_keep(const char *name, int keep, char *out, size_t n) {
    if (!n) return;
    const char *s = name;
    if (!strncmp(s, "void ", 5)) s += 5;
    size_t o = 0, start = 0, sep[32];
    int depth = 0, nsep = 0;
    bool in_chain = false;
    for (; *s && o + 1 < n; s++) {
        if (*s == '(' && depth == 0 && o > 0) break; /* the parameter list */
        if (s[0] == ':' && s[1] == ':') {
            if (!in_chain) start = o, in_chain = true;
            if (o + 3 >= n) break;
            out[o++] = ':', out[o++] = ':';
            s++;
            if (nsep < 32) sep[nsep++] = o;
            continue;
        }
        if (ident_char(*s)) {
            if (!in_chain) start = o, in_chain = true, nsep = 0;
        } else if (in_chain) {
            trim_chain(out, &o, start, sep, nsep, keep);
            in_chain = false, nsep = 0;
        }
        if (*s == '<') depth++;
        else if (*s == '>' && depth) depth--;
        out[o++] = *s;
    }
    if (in_chain) trim_chain(out, &o, start, sep, nsep, keep);
    out[o] = '\0';
}

void KName_simplify(const char *name, bool drop_ns, char *out, size_t n) {
    simplify_keep(name, drop_ns ? 0 : KEEP_ALL, out, n);
}

/* A form split at its first template: base, the top-level arguments, what follows. */
typedef struct {
    char text[1024];
    size_t base_len; /* up to '<' (the whole text: no template) */
    int nargs;
    const char *arg[64];
    size_t arg_len[64];
    const char *tail; /* after the closing '>' */
} Form;

static void split(Form *f) {
    char *lt = strchr(f->text, '<');
    f->nargs = 0;
    f->base_len = lt ? (size_t)(lt - f->text) : strlen(f->text);
    f->tail = f->text + strlen(f->text);
    if (!lt) return;
    const char *p = lt + 1, *a = p;
    int depth = 0;
    for (; *p; p++) {
        if (*p == '<') depth++;
        else if (*p == '>' && depth) depth--;
        else if ((*p == ',' || *p == '>') && depth == 0) {
            if (f->nargs < 64) {
                while (*a == ' ') a++;
                f->arg[f->nargs] = a;
                f->arg_len[f->nargs++] = (size_t)(p - a);
            }
            a = p + 1;
            if (*p == '>') {
                f->tail = p + 1;
                return;
            }
        }
    }
    f->nargs = 0; /* unbalanced: no template to abbreviate */
    f->base_len = strlen(f->text);
}

static bool same_template(const Form *a, const Form *b) {
    return a->nargs && a->nargs == b->nargs && a->base_len == b->base_len && !strncmp(a->text, b->text, a->base_len);
}

static bool same_arg(const Form *a, const Form *b, int j) {
    return a->arg_len[j] == b->arg_len[j] && !memcmp(a->arg[j], b->arg[j], a->arg_len[j]);
}

/* f with the arguments every other form of its template shares as one ellipsis each
 * run: "dispatch<false, …>" against "dispatch<true, …>". */
static void abbreviate(const Form *F, size_t n, size_t i, bool unicode, char *out, size_t cap) {
    const Form *f = &F[i];
    const char *ell = unicode ? "\xe2\x80\xa6" : "...";
    bool differ[64] = {false};
    for (size_t k = 0; k < n; k++)
        if (k != i && same_template(f, &F[k]))
            for (int j = 0; j < f->nargs; j++) differ[j] |= !same_arg(f, &F[k], j);
    size_t o = 0;
#define PUT(p, len)                                                                                                    \
    do {                                                                                                               \
        size_t l_ = (len);                                                                                             \
        if (o + l_ + 1 > cap) l_ = cap - o - 1;                                                                        \
        memcpy(out + o, (p), l_);                                                                                      \
        o += l_;                                                                                                       \
    } while (0)
    PUT(f->text, f->base_len);
    PUT("<", 1);
    bool ellipsis = false, first = true;
    for (int j = 0; j < f->nargs; j++) {
        if (!differ[j] && ellipsis) continue;
        if (!first) PUT(", ", 2);
        first = false;
        if (differ[j]) PUT(f->arg[j], f->arg_len[j]);
        else PUT(ell, strlen(ell));
        ellipsis = !differ[j];
    }
    PUT(">", 1);
    PUT(f->tail, strlen(f->tail));
#undef PUT
    out[o] = '\0';
}

/* s cut to width columns, ending in an ellipsis when it was longer. */
static char *fit(const char *s, int width, bool unicode) {
    if (width < 1) width = 1;
    if ((int)Utf8_columns(s) <= width) return xstrdup(s);
    const char *ell = unicode ? "\xe2\x80\xa6" : "~";
    int keep = width - 1;
    const char *p = s;
    for (int i = 0; i < keep && *p; i++) Utf8_decode(&p);
    size_t len = (size_t)(p - s);
    char *r = xmalloc(len + 4);
    memcpy(r, s, len);
    strcpy(r + len, ell);
    return r;
}

/* Two forms that read the same once cut: each from its template's name on, the
 * arguments' common start with the other one as an ellipsis
 * ("device_kernel<…m_grouped_fp8…" against "device_kernel<…fp8_ptp128c…"). */
static char *past_common(const Form *f, const Form *g, int width, bool unicode) {
    size_t cp = 0;
    while (f->text[cp] && f->text[cp] == g->text[cp]) cp++;
    if (!f->nargs || cp <= f->base_len) return NULL;
    size_t b = f->base_len;
    while (b > 0 && f->text[b - 1] != ':' && f->text[b - 1] != ' ') b--; /* the template's own name */
    char buf[1200];
    snprintf(buf, sizeof buf, "%.*s<%s%s", (int)(f->base_len - b), f->text + b, unicode ? "\xe2\x80\xa6" : "...",
             f->text + cp);
    return fit(buf, width, unicode);
}

static const char *const *sort_strs;
static int str_cmp(const void *pa, const void *pb) {
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = strcmp(sort_strs[a], sort_strs[b]);
    return c ? c : (a > b) - (a < b);
}

/* Outputs that read the same for different forms get past_common's form. */
static void split_clashes(const Form *F, size_t n, int width, bool unicode, char **out, size_t *ord) {
    for (size_t i = 0; i < n; i++) ord[i] = i;
    sort_strs = (const char *const *)out;
    qsort(ord, n, sizeof *ord, str_cmp);
    for (size_t k = 0; k + 1 < n; k++) {
        size_t a = ord[k], b = ord[k + 1];
        if (strcmp(out[a], out[b]) || !strcmp(F[a].text, F[b].text)) continue;
        char *x = past_common(&F[a], &F[b], width, unicode), *y = past_common(&F[b], &F[a], width, unicode);
        if (x && y && strcmp(x, y)) {
            free(out[a]), free(out[b]);
            out[a] = x, out[b] = y;
        } else {
            free(x), free(y);
        }
    }
}

static const Form *sort_forms;
static int form_cmp(const void *pa, const void *pb) {
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = strcmp(sort_forms[a].text, sort_forms[b].text);
    return c ? c : (a > b) - (a < b);
}

void KName_distinct(const char *const *names, size_t n, int width, bool unicode, char **out) {
    if (!n) return;
    Form *F = xcalloc(n, sizeof *F);
    int *keep = xcalloc(n, sizeof *keep);
    size_t *ord = xmalloc(n * sizeof *ord);
    /* fewest qualifiers that keep different names apart (qsort on the forms: O(n log n)) */
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < n; i++) simplify_keep(names[i], keep[i], F[i].text, sizeof F[i].text), ord[i] = i;
        sort_forms = F;
        qsort(ord, n, sizeof *ord, form_cmp);
        bool clash = false;
        for (size_t k = 0; k + 1 < n; k++) {
            size_t a = ord[k], b = ord[k + 1];
            if (strcmp(F[a].text, F[b].text) || !strcmp(names[a], names[b])) continue;
            clash = true;
            keep[a] = keep[b] = round == 2 ? KEEP_ALL : keep[a] + 1;
        }
        if (!clash) break;
    }
    for (size_t i = 0; i < n; i++) split(&F[i]);
    for (size_t i = 0; i < n; i++) {
        if ((int)Utf8_columns(F[i].text) <= width || !F[i].nargs) {
            out[i] = fit(F[i].text, width, unicode);
            continue;
        }
        char ab[1024];
        abbreviate(F, n, i, unicode, ab, sizeof ab);
        out[i] = fit(ab, width, unicode);
    }
    split_clashes(F, n, width, unicode, out, ord);
    free(ord);
    free(keep);
    free(F);
}
