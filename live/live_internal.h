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

/* A GPU lane without a stream holds CUPTI's event and context synchronizations (stream
 * -1): long bars that repeat the host's cudaEventSynchronize / cudaDeviceSynchronize.
 * It is labelled for what it holds and sorted after the device's streams (past any
 * 32-bit stream id), so the work is what the group shows first. */
#define LIVE_NOSTREAM_LABEL "syncs (no stream)"
#define LIVE_NOSTREAM_SORT ((int64_t)1 << 32)
static inline bool LiveLane_noStream(const LiveLane *l) { return l->gpu && l->stream < 0; }

/* The thread_name of lane l into buf: "stream 7 mb0 compute" for a named stream, a
 * thread's own name, LIVE_NOSTREAM_LABEL (with its name, if any) for a lane without a
 * stream. False: the lane keeps the model's default label ("stream 7", "thread 9").
 * name: the lane's name in the store, or NULL. */
bool LiveLane_label(const LiveLane *l, const char *name, char *buf, size_t n);

#endif
