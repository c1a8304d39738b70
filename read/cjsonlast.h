/* Of two equal keys in a JSON object the last counts, as in JSON.parse, browsers and
 * Perfetto; cJSON_GetObjectItemCaseSensitive returns the first, so every cJSON lookup
 * of a trace's members goes through Json_last. */
#ifndef OVTRACE_CJSONLAST_H
#define OVTRACE_CJSONLAST_H
#include <string.h>

#include <cjson/cJSON.h>

/* The last member of obj named key (case-sensitive), or NULL (also when obj is not an
 * object). */
static inline const cJSON *Json_last(const cJSON *obj, const char *key) {
    if (!cJSON_IsObject(obj)) return NULL;
    const cJSON *found = NULL;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && !strcmp(c->string, key)) found = c;
    return found;
}

#endif
