/* The details panel's args, read from the event's raw JSON text: numbers are shown as
 * written (an id above 2^53 survives exactly; cJSON would go through a double), nested
 * values with the whitespace outside strings removed, strings decoded. The text was
 * walked by the loader's member loop (Args_members), so keys read as they do there:
 * escapes decoded, the last of two equal keys counts. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/read/args.h"
#include "ovtrace/base/alloc.h"
#include "details.h"

/* p at '"': the position after the closing quote, or NULL. */
static const char *string_end(const char *p, const char *e) {
    for (p++; p < e; p++) {
        if (*p == '\\') p++;
        else if (*p == '"') return p + 1;
    }
    return NULL;
}

/* A JSON string token decoded (malloc'd), or NULL. */
static char *decode_string(const char *p, const char *q) {
    cJSON *s = cJSON_ParseWithLength(p, (size_t)(q - p));
    char *out = NULL;
    if (cJSON_IsString(s) && s->valuestring) {
        size_t n = strlen(s->valuestring) + 1;
        out = xmalloc(n);
        memcpy(out, s->valuestring, n);
    }
    cJSON_Delete(s);
    return out;
}

/* A non-string value's text without the whitespace outside strings (malloc'd). */
static char *compact(const char *p, const char *q) {
    char *out = xmalloc((size_t)(q - p) + 1);
    size_t k = 0;
    while (p < q) {
        if (*p == '"') {
            const char *s = string_end(p, q);
            if (!s) s = q;
            memcpy(out + k, p, (size_t)(s - p));
            k += (size_t)(s - p);
            p = s;
            continue;
        }
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') out[k++] = *p;
        p++;
    }
    out[k] = '\0';
    return out;
}

static char *value_text(const char *p, const char *q) { return *p == '"' ? decode_string(p, q) : compact(p, q); }

typedef struct {
    const char *cat_p, *cat_q, *args_p, *args_q;
} Top;

/* The last of two equal keys counts, as in the loader (and JSON.parse) */
static void top_member(void *ctx, const char *key, const char *vp, const char *vq) {
    Top *t = ctx;
    if (!strcmp(key, "cat")) t->cat_p = vp, t->cat_q = vq;
    if (!strcmp(key, "args")) t->args_p = vp, t->args_q = vq;
}

typedef struct {
    DetailsCache *d;
    size_t first; /* the first args field */
} ArgsCtx;

/* Args with up to this many members are checked for equal keys (a linear look each);
 * a hostile event with more lists every member as written. */
#define ARGS_DEDUP_MAX 256

static void arg_member(void *ctx, const char *key, const char *vp, const char *vq) {
    ArgsCtx *a = ctx;
    char *v = value_text(vp, vq);
    if (a->d->n - a->first <= ARGS_DEDUP_MAX)
        for (size_t i = a->first; i < a->d->n; i++)
            if (!strcmp(a->d->keys[i], key)) { /* the last value counts, in the first one's place */
                free(a->d->vals[i]);
                a->d->vals[i] = xstrdup(v ? v : "?");
                free(v);
                return;
            }
    Details_add(a->d, key, v ? v : "?");
    free(v);
}

bool Details_addArgsJson(DetailsCache *d, const char *raw, size_t len) {
    char err[128];
    Top top = {0};
    if (!Args_members(raw, len, top_member, &top, err, sizeof err)) return false;
    if (top.cat_p && *top.cat_p == '"') {
        char *c = decode_string(top.cat_p, top.cat_q);
        if (c) Details_add(d, "cat", c);
        free(c);
    }
    if (!top.args_p || *top.args_p != '{') {
        Details_add(d, "args", "(none)");
        return true;
    }
    size_t before = d->n;
    ArgsCtx ac = {d, before};
    if (!Args_members(top.args_p, (size_t)(top.args_q - top.args_p), arg_member, &ac, err, sizeof err)) return false;
    if (d->n == before) Details_add(d, "args", "(none)");
    return true;
}
