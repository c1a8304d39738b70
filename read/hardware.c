/* One line for the GPUs a recording names: read with cJSON from the kept metadata (a
 * few hundred bytes, off the hot path). */
#include "ovtrace/read/hardware.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cjsonlast.h"

/* Appends to out[*k..n) as snprintf would, never past n. */
static void put(char *out, size_t n, size_t *k, const char *fmt, ...) {
    if (*k >= n) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(out + *k, n - *k, fmt, ap);
    va_end(ap);
    if (w > 0) *k = *k + (size_t)w < n ? *k + (size_t)w : n - 1;
}

static const char *str(const cJSON *o, const char *key) {
    const cJSON *v = Json_last(o, key);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *key) {
    const cJSON *v = Json_last(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Same name, SMs, compute capability and memory. */
static bool same(const cJSON *a, const cJSON *b) {
    const char *na = str(a, "name"), *nb = str(b, "name");
    const char *ca = str(a, "compute_capability"), *cb = str(b, "compute_capability");
    return na && nb && !strcmp(na, nb) && num(a, "sms") == num(b, "sms") && (!ca == !cb) && (!ca || !strcmp(ca, cb)) &&
           num(a, "memory_mib") == num(b, "memory_mib");
}

static void device(char *out, size_t n, size_t *k, const cJSON *d, bool full) {
    const char *name = str(d, "name");
    put(out, n, k, "%s", name ? name : "unnamed GPU");
    if (!full) return;
    double sms = num(d, "sms"), mib = num(d, "memory_mib");
    const char *cc = str(d, "compute_capability");
    const char *sep = " (";
    if (sms > 0 && sms < 1e6) {
        put(out, n, k, "%s%.0f SMs", sep, sms);
        sep = ", ";
    }
    if (cc) {
        put(out, n, k, "%scompute %.16s", sep, cc);
        sep = ", ";
    }
    if (mib > 0 && mib < 1e12) {
        put(out, n, k, "%s%.1f GiB", sep, mib / 1024);
        sep = ", ";
    }
    if (sep[0] == ',') put(out, n, k, ")");
}

static bool describe(const char *meta_json, char *out, size_t n, bool full) {
    if (!n) return false;
    out[0] = 0;
    if (!meta_json) return false;
    cJSON *m = cJSON_Parse(meta_json);
    const cJSON *g = Json_last(Json_last(m, "ovtrace"), "gpus");
    const cJSON *devs = Json_last(g, "devices");
    size_t k = 0;
    /* one pass over the list, however long a hostile one is; runs of one kind at once */
    for (const cJSON *d = cJSON_IsArray(devs) ? devs->child : NULL; d && k + 1 < n;) {
        const cJSON *e = d->next;
        long run = 1;
        for (; e && same(d, e); e = e->next) run++;
        if (k) put(out, n, &k, "; ");
        if (run > 1) put(out, n, &k, "%ld x ", run);
        device(out, n, &k, d, full);
        d = e;
    }
    if (k && full) {
        const char *drv = str(g, "driver"), *cuda = str(g, "cuda_driver");
        if (drv) put(out, n, &k, ", driver %.64s", drv);
        if (cuda) put(out, n, &k, ", CUDA %.16s", cuda);
    }
    cJSON_Delete(m);
    return k > 0;
}

bool Hardware_describe(const char *meta_json, char *out, size_t n) { return describe(meta_json, out, n, true); }

bool Hardware_names(const char *meta_json, char *out, size_t n) { return describe(meta_json, out, n, false); }
