/* Splitting a merged export back into its ranks. The export rewrites every pid to
 * "rank R pid P" (or "rank R NAME" for a string pid) so that ranks sharing a device
 * number stay apart (GPU lanes with string pids are keyed by the pid too); this undoes
 * the rewrite, so a merged file reopens with the ranks, devices and figures of its
 * inputs. */
#include "load_merged.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cjsonlast.h"
#include "ovtrace/base/alloc.h"

void SourceMeta_apply(TraceSource *src, const cJSON *m) {
    const cJSON *di = Json_last(m, "distributedInfo");
    const cJSON *r = Json_last(di, "rank");
    if (cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble < 1e9) src->rank = (int32_t)r->valuedouble;
    const cJSON *ws = Json_last(di, "world_size");
    if (cJSON_IsNumber(ws) && ws->valuedouble > 0 && ws->valuedouble < 1e9) src->world_size = (int32_t)ws->valuedouble;
    const cJSON *du = Json_last(m, "displayTimeUnit");
    if (cJSON_IsString(du)) {
        free(src->display_time_unit);
        src->display_time_unit = xstrdup(du->valuestring);
    }
    const cJSON *tn = Json_last(m, "traceName");
    if (cJSON_IsString(tn)) {
        free(src->trace_name);
        src->trace_name = xstrdup(tn->valuestring);
    }
    /* baseTimeNanoseconds is not metadata: the loader applies it to the source's times
     * (load_chrome.c), exactly; a merged file's event text is relative to its own. */
}

/* "rank R rest": R (0..1e9) and the rest; false for any other text. */
static bool parse_rank_prefix(const char *s, int32_t *rank, const char **rest) {
    if (strncmp(s, "rank ", 5) || s[5] < '0' || s[5] > '9') return false;
    char *end;
    errno = 0;
    long r = strtol(s + 5, &end, 10);
    if (errno || r >= 1000000000 || *end != ' ') return false;
    *rank = (int32_t)r;
    *rest = end + 1;
    return true;
}

/* The original pid: "pid N" is the number N, anything else a string pid. */
static int64_t original_pid(Trace *t, const char *rest) {
    if (!strncmp(rest, "pid ", 4) && rest[4] >= '0' && rest[4] <= '9') {
        char *end;
        errno = 0;
        long long v = strtoll(rest + 4, &end, 10);
        if (!errno && !*end && v >= 0) return v;
    }
    return Trace_stringKey(t, rest, strlen(rest));
}

void LoadMerged_split(Trace *t, uint32_t source) {
    const char *meta = t->sources[source].meta_json;
    if (!meta) return;
    cJSON *m = cJSON_Parse(meta);
    const cJSON *ov = Json_last(m, "ovtrace");
    const cJSON *list = Json_last(ov, "sources");
    int n = cJSON_GetArraySize(list);
    if (!cJSON_IsTrue(Json_last(ov, "merged")) || !cJSON_IsArray(list) || n < 1 ||
        n > 100000) {
        cJSON_Delete(m);
        return;
    }
    /* one source per listed source; ranks as the export resolved them */
    int32_t *rank = xmalloc((size_t)n * sizeof *rank);
    uint32_t *src = xmalloc((size_t)n * sizeof *src);
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(list, i);
        const cJSON *r = Json_last(e, "rank");
        rank[i] = cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble < 1e9 ? (int32_t)r->valuedouble : -1;
        if (i == 0) {
            src[i] = source;
        } else {
            src[i] = Trace_addSource(t, t->sources[source].path);
            TraceSource *s = &t->sources[src[i]];
            s->compression = t->sources[source].compression;
            s->base_time_ns = t->sources[source].base_time_ns; /* the text of all ranks is relative to it */
            const cJSON *sm = Json_last(e, "meta");
            if (cJSON_IsObject(sm)) {
                s->meta_json = cJSON_PrintUnformatted(sm);
                SourceMeta_apply(s, sm);
            }
        }
        if (rank[i] >= 0) t->sources[src[i]].rank = rank[i];
    }
    /* every process the export renamed goes back to its rank's source */
    for (size_t i = 0; i < t->n_lanes; i++) {
        const Lane *l = &t->lanes[i];
        if (l->source != source || l->pid >= 0) continue;
        int64_t key = l->pid;
        /* a copy: interning the original name may move the string arena */
        char *name = xstrdup(StrTab_get(t->strings, (uint32_t)(-1 - key)));
        const char *rest;
        int32_t r;
        int k = 0;
        if (parse_rank_prefix(name, &r, &rest)) {
            while (k < n && rank[k] != r) k++;
            if (k < n) /* else a rank the file does not list: left as it is */
                Trace_moveProcess(t, source, key, src[k], original_pid(t, rest));
        }
        free(name);
    }
    free(rank);
    free(src);
    cJSON_Delete(m);
}
