/* The details panel's args, read from the event's raw JSON text: numbers are shown as
 * written (an id above 2^53 survives exactly; cJSON would go through a double), nested
 * values with the whitespace outside strings removed, strings decoded. The text was
 * validated by the scanner that fetched it (Args_fetchRaw); every step here still stays
 * within [p, end) and gives up on anything unexpected. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/tui/details.h"

static const char *skip_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* p at '"': the position after the closing quote, or NULL. */
static const char *string_end(const char *p, const char *e) {
    for (p++; p < e; p++) {
        if (*p == '\\') p++;
        else if (*p == '"') return p + 1;
    }
    return NULL;
}

/* p at a value: the position after it, or NULL. Nesting is counted, not recursed. */
static const char *value_end(const char *p, const char *e) {
    if (p >= e) return NULL;
    if (*p == '"') return string_end(p, e);
    if (*p == '{' || *p == '[') {
        size_t depth = 0;
        while (p < e) {
            if (*p == '"') {
                p = string_end(p, e);
                if (!p) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') depth++;
            else if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return NULL;
    }
    const char *q = p;
    while (q < e && !strchr(",}] \t\r\n", *q)) q++;
    return q > p ? q : NULL;
}

/* A JSON string token decoded (malloc'd), or NULL. */
static char *decode_string(const char *p, const char *q) {
    cJSON *s = cJSON_ParseWithLength(p, (size_t)(q - p));
    char *out = NULL;
    if (cJSON_IsString(s) && s->valuestring) {
        size_t n = strlen(s->valuestring) + 1;
        out = malloc(n);
        if (out) memcpy(out, s->valuestring, n);
    }
    cJSON_Delete(s);
    return out;
}

/* A non-string value's text without the whitespace outside strings (malloc'd). */
static char *compact(const char *p, const char *q) {
    char *out = malloc((size_t)(q - p) + 1);
    if (!out) return NULL;
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

/* Calls fn for each member of the object at p; false when the text is not an object. */
typedef bool (*MemberFn)(void *ctx, const char *key, const char *kp, const char *kq, const char *vp, const char *vq);

static bool each_member(const char *p, const char *e, MemberFn fn, void *ctx) {
    p = skip_ws(p, e);
    if (p >= e || *p != '{') return false;
    p = skip_ws(p + 1, e);
    if (p < e && *p == '}') return true;
    while (p < e) {
        if (*p != '"') return false;
        const char *kq = string_end(p, e);
        if (!kq) return false;
        const char *kp = p;
        p = skip_ws(kq, e);
        if (p >= e || *p != ':') return false;
        const char *vp = skip_ws(p + 1, e);
        const char *vq = value_end(vp, e);
        if (!vq) return false;
        char *key = decode_string(kp, kq);
        bool go = fn(ctx, key ? key : "?", kp, kq, vp, vq);
        free(key);
        if (!go) return true;
        p = skip_ws(vq, e);
        if (p < e && *p == ',') {
            p = skip_ws(p + 1, e);
            continue;
        }
        return p < e && *p == '}';
    }
    return false;
}

typedef struct {
    const char *cat_p, *cat_q, *args_p, *args_q;
} Top;

static bool top_member(void *ctx, const char *key, const char *kp, const char *kq, const char *vp, const char *vq) {
    (void)kp;
    (void)kq;
    Top *t = ctx;
    if (!strcmp(key, "cat") && *vp == '"') t->cat_p = vp, t->cat_q = vq;
    if (!strcmp(key, "args")) t->args_p = vp, t->args_q = vq;
    return true;
}

static bool arg_member(void *ctx, const char *key, const char *kp, const char *kq, const char *vp, const char *vq) {
    (void)kp;
    (void)kq;
    char *v = value_text(vp, vq);
    Details_add(ctx, key, v ? v : "?");
    free(v);
    return true;
}

bool Details_addArgsJson(DetailsCache *d, const char *raw, size_t len) {
    const char *e = raw + len;
    Top top = {0};
    if (!each_member(raw, e, top_member, &top)) return false;
    if (top.cat_p) {
        char *c = decode_string(top.cat_p, top.cat_q);
        if (c) Details_add(d, "cat", c);
        free(c);
    }
    const char *a = top.args_p ? skip_ws(top.args_p, top.args_q) : NULL;
    if (!a || *a != '{') {
        Details_add(d, "args", "(none)");
        return true;
    }
    size_t before = d->n;
    if (!each_member(top.args_p, top.args_q, arg_member, d)) return false;
    if (d->n == before) Details_add(d, "args", "(none)");
    return true;
}
