/* Private pieces shared by the live/ sources. */
#ifndef OVTRACE_LIVE_INTERNAL_H
#define OVTRACE_LIVE_INTERNAL_H
#include <stdio.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/clock.h"
#include "ovtrace/live/live.h"

typedef struct {
    bool gpu;
    int64_t device, stream; /* GPU lanes */
    int64_t pid, tid;       /* source keys: GPU lanes use pid = device, tid = stream (Kineto) */
    uint32_t name;          /* store name id of the lane's name, 0 = none */
} LiveLane;

/* Lane lane of the store (false if out of range). */
bool LiveStore_lane(LiveStore *s, uint32_t lane, LiveLane *out, char **name_dup);
size_t LiveStore_laneCount(LiveStore *s);
/* malloc'd copy of store name id (NULL if out of range). */
char *LiveStore_nameDup(LiveStore *s, uint32_t id);
/* The "ovtrace" metadata object (JSON text, malloc'd); extra (may be NULL) is spliced
 * in as more members, e.g. "\"complete\": true". */
char *LiveStore_metaJson(LiveStore *s, const char *extra);
bool LiveStore_isSimulated(const LiveStore *s);

#endif
