/* SQL functions: arg(id, key) reads one argument of an event from its source (args
 * are never held in the model), median(x) and percentile(x, p) for the questions
 * traces raise ("kernels slower than twice their median"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/read/args.h"
#include "ovtrace/read/jsonscan.h"
#include "query_internal.h"

/* ---------- arg(id, key) ---------- */

typedef struct {
    const char *want;
    const char *vp, *vq; /* the last member named want (as the loader and JSON.parse read it) */
} FindCtx;

static void find_member(void *ctx, const char *key, const char *vp, const char *vq) {
    FindCtx *f = ctx;
    if (!strcmp(key, f->want)) f->vp = vp, f->vq = vq;
}

/* The member `key` of the JSON object [p, q): its value's text, or false. */
static bool member(const char *p, const char *q, const char *key, const char **vp, const char **vq) {
    FindCtx f = {key, NULL, NULL};
    char err[128];
    if (!Args_members(p, (size_t)(q - p), find_member, &f, err, sizeof err) || !f.vp) return false;
    *vp = f.vp;
    *vq = f.vq;
    return true;
}

/* A JSON value as an SQL value: strings decoded, integers exact, true/false 1/0, null
 * NULL, objects and arrays as their JSON text (json_extract reads them). */
static void result_json(sqlite3_context *ctx, const char *p, const char *q) {
    size_t n = (size_t)(q - p);
    if (*p == '"') {
        JsCtx js = {0};
        js.end = q;
        const char *at = p;
        Tok t;
        if (Js_string(&js, &at, &t) != JS_OK) {
            Js_free(&js);
            sqlite3_result_text(ctx, p, (int)n, SQLITE_TRANSIENT);
            return;
        }
        Js_free(&js);
        char *s = xmalloc((size_t)t.n + 1);
        size_t len = Js_decode(&t, s);
        sqlite3_result_text(ctx, s, (int)len, free);
    } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
        char buf[64];
        if (n >= sizeof buf) n = sizeof buf - 1;
        memcpy(buf, p, n);
        buf[n] = '\0';
        char *end;
        errno = 0;
        long long v = strtoll(buf, &end, 10);
        if (!*end && !errno) sqlite3_result_int64(ctx, v);
        else sqlite3_result_double(ctx, strtod(buf, NULL));
    } else if (*p == 't') {
        sqlite3_result_int(ctx, 1);
    } else if (*p == 'f') {
        sqlite3_result_int(ctx, 0);
    } else if (*p == 'n') {
        sqlite3_result_null(ctx);
    } else {
        sqlite3_result_text(ctx, p, (int)n, SQLITE_TRANSIENT);
    }
}

static void fn_arg(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    QueryDb *q = sqlite3_user_data(ctx);
    const char *key = (const char *)sqlite3_value_text(argv[1]);
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || !key) {
        sqlite3_result_null(ctx);
        return;
    }
    sqlite3_int64 id = sqlite3_value_int64(argv[0]);
    if (id < 0 || (uint64_t)id >= q->t->n_events) {
        sqlite3_result_null(ctx);
        return;
    }
    if (q->t->events[id].src == TRACE_NO_SRC) { /* synthesized: no text, no args */
        sqlite3_result_null(ctx);
        return;
    }
    if (q->arg_event != (size_t)id) {
        free(q->arg_raw);
        q->arg_event = SIZE_MAX;
        char err[512];
        q->arg_raw = Args_fetchRaw(q->t, (size_t)id, &q->arg_len, err, sizeof err);
        if (!q->arg_raw) {
            char *msg = sqlite3_mprintf("arg(): %s", err);
            sqlite3_result_error(ctx, msg, -1);
            sqlite3_free(msg);
            return;
        }
        q->arg_event = (size_t)id;
    }
    const char *ap, *aq, *vp, *vq;
    const char *obj = q->arg_raw, *end = q->arg_raw + q->arg_len;
    if (!member(obj, end, "args", &ap, &aq) || *ap != '{' || !member(ap, aq, key, &vp, &vq)) {
        sqlite3_result_null(ctx);
        return;
    }
    result_json(ctx, vp, vq);
}

/* ---------- median(x), percentile(x, p) ---------- */

typedef struct {
    double *v;
    size_t n, cap;
    double p; /* 0 .. 100 */
    bool bad_p;
} Pct;

static void pct_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    Pct *a = sqlite3_aggregate_context(ctx, sizeof *a);
    if (!a) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    int type = sqlite3_value_type(argv[0]);
    if (type == SQLITE_NULL) return;
    if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
        sqlite3_result_error(ctx, "median()/percentile(): the value is not a number", -1);
        return;
    }
    if (argc == 2) {
        a->p = sqlite3_value_double(argv[1]);
        int pt = sqlite3_value_type(argv[1]);
        if ((pt != SQLITE_INTEGER && pt != SQLITE_FLOAT) || !(a->p >= 0 && a->p <= 100)) {
            sqlite3_result_error(ctx, "percentile(): p must be a number from 0 to 100", -1);
            return;
        }
    } else {
        a->p = 50;
    }
    GROW(a->v, a->cap, a->n + 1);
    a->v[a->n++] = sqlite3_value_double(argv[0]);
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Linear interpolation between the two nearest ranks (p = 50: the median; of an even
 * count, the mean of the middle two). */
static void pct_final(sqlite3_context *ctx) {
    Pct *a = sqlite3_aggregate_context(ctx, 0);
    if (!a || !a->n) {
        sqlite3_result_null(ctx);
        if (a) free(a->v);
        return;
    }
    qsort(a->v, a->n, sizeof *a->v, cmp_double);
    double at = a->p / 100.0 * (double)(a->n - 1);
    size_t i = (size_t)at;
    double frac = at - (double)i;
    double v = a->v[i];
    if (i + 1 < a->n && frac > 0) v += (a->v[i + 1] - v) * frac;
    sqlite3_result_double(ctx, v);
    free(a->v);
}

int Query_registerFunctions(QueryDb *q) {
    int flags = SQLITE_UTF8;
    int rc = sqlite3_create_function_v2(q->db, "arg", 2, flags, q, fn_arg, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(q->db, "median", 1, flags | SQLITE_DETERMINISTIC, NULL, NULL, pct_step,
                                        pct_final, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(q->db, "percentile", 2, flags | SQLITE_DETERMINISTIC, NULL, NULL, pct_step,
                                        pct_final, NULL);
    return rc;
}
