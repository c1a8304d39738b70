/* Recording: the store's events as Chrome Trace JSON (object form), the format
 * `ovtrace export` writes and Perfetto opens:
 *
 *   {"traceEvents": [ M metadata for lanes, X events, ac2g flow s/f pairs ... ],
 *    "displayTimeUnit": "ms", "baseTimeNanoseconds": B, "traceName": ...,
 *    "ovtrace": {simulated, params, ring drops}}
 *
 * Times are written relative to B, the whole second of the first event (as Kineto and
 * Proton do): an epoch-scale time in µs with a nanosecond fraction has 19 digits, more
 * than the double that browsers, Perfetto and Python read it into can hold, so
 * back-to-back kernels would seem to overlap by up to 0.25 µs there. Relative times of
 * a recording days long keep whole nanoseconds; ovtrace adds B back when loading.
 *
 * Crash safety with O(new events) per checkpoint: the file is a sequence of
 * independently compressed frames (zstd frames / gzip members / plain text, which
 * decoders concatenate): [header+events] [events] ... [trailer]. A checkpoint
 * truncates the old trailer, appends one frame with the new events, then writes a
 * fresh trailer ("]," + the top-level keys + "}"). After every checkpoint the file is
 * complete JSON; a kill in the middle of one leaves a truncated file that the loader
 * still reads (with a truncation warning) up to the last whole event. The file is
 * created under a temporary name and renamed into place at the first checkpoint, which
 * the session makes at once (no events yet), then again with the first few thousand
 * events as soon as there are any (LiveRecorder_checkpointSome, from the drain thread),
 * so that a kill -9 during the first full checkpoint, however many events a second
 * brings, leaves a file that loads.
 * "-", a character device or a FIFO cannot be truncated or renamed over: the frames are
 * streamed to it in order and the trailer is written once, at the end. A symlink is
 * followed: its target is the file written (outpath.h). The temporary file and its
 * rename are base/atomicfile.h's; the events are written by the Chrome-JSON writer
 * (chromejson.h, spaced layout). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live_internal.h"
#include "ovtrace/base/atomicfile.h"
#include "ovtrace/base/file.h"
#include "ovtrace/base/zwriter.h"
#include "ovtrace/write/chromejson.h"
#include "ovtrace/write/outpath.h"
#include "ovtrace/model/timeunits.h"

struct LiveRecorder {
    char *path;
    AtomicFile file; /* a regular file: its temporary file until the first checkpoint */
    int fd;          /* file.fd, or the stream's */
    ChromeJson json; /* the text of the frame being made */
    ZWriter zw;      /* one frame at a time into zbuf */
    ZBuf zbuf;
    bool renamed, began;
    bool stream; /* written in order, never truncated or renamed */
    off_t body_end;
    uint64_t cursor, lost, events, checkpoints;
    int64_t base_ns; /* baseTimeNanoseconds, fixed by the first event */
    bool has_base;
    /* caches */
    char **names;
    size_t cap_names;
    LiveLane *lanes;
    size_t n_lanes, cap_lanes;
    int64_t *pids; /* processes whose process_name is written */
    size_t n_pids, cap_pids;
    TraceEvent *batch;
};

LiveRecorder *LiveRecorder_open(const char *path, char *err, size_t errlen) {
    if (!path || !*path) {
        snprintf(err, errlen, "a recording needs a file path (-o FILE.json[.gz|.zst])");
        return NULL;
    }
    OutPath op;
    if (!OutPath_resolve(path, &op, err, errlen)) return NULL;
    LiveRecorder *r = xcalloc(1, sizeof *r);
    r->path = op.path;
    r->file = (AtomicFile)ATOMICFILE_NONE;
    if (!ZWriter_open(&r->zw, ZComp_forPath(path), ZSink_buf, &r->zbuf, err, errlen)) {
        ZWriter_free(&r->zw);
        free(r->path);
        free(r);
        return NULL;
    }
    if (op.stream) {
        r->stream = r->renamed = true; /* nothing to rename, nothing to remove */
        r->fd = OutPath_openStream(&op, err, errlen);
    } else {
        r->fd = AtomicFile_open(&r->file, r->path, 0644, true, err, errlen) ? r->file.fd : -1;
    }
    if (r->fd < 0) {
        ZWriter_free(&r->zw);
        free(r->path);
        free(r);
        return NULL;
    }
    ChromeJson_init(&r->json, CHROMEJSON_SPACED, NULL, NULL);
    r->batch = xmalloc(65536 * sizeof *r->batch);
    return r;
}

uint64_t LiveRecorder_events(const LiveRecorder *r) { return r->events; }

static void rec_free(LiveRecorder *r) {
    for (size_t i = 0; i < r->cap_names; i++) free(r->names[i]);
    free(r->names);
    free(r->lanes);
    free(r->pids);
    free(r->batch);
    ZWriter_free(&r->zw);
    free(r->zbuf.p);
    ChromeJson_free(&r->json);
    AtomicFile_free(&r->file); /* removes the temporary file unless it was renamed */
    free(r->path);
    free(r);
}

/* False with errno when close reports a failed write. */
static bool close_fd(LiveRecorder *r) {
    bool ok = r->stream ? close(r->fd) == 0 : AtomicFile_closeFd(&r->file);
    r->fd = -1;
    return ok;
}

void LiveRecorder_abort(LiveRecorder *r) {
    if (!r) return;
    if (r->fd >= 0) close_fd(r);
    rec_free(r);
}

/* ---- JSON ------------------------------------------------------------------------------- */

static const char *name_of(LiveRecorder *r, LiveStore *s, uint32_t id) {
    if (id >= r->cap_names) {
        size_t old = r->cap_names;
        GROW(r->names, r->cap_names, (size_t)id + 1);
        memset(r->names + old, 0, (r->cap_names - old) * sizeof *r->names);
    }
    if (!r->names[id]) {
        r->names[id] = LiveStore_nameDup(s, id);
        if (!r->names[id]) r->names[id] = xstrdup("");
    }
    return r->names[id];
}

/* {"ph": "M", "name": what, "pid": .., "tid": .., "args": {key: str or num}} */
static void meta_event(LiveRecorder *r, const char *what, int64_t pid, int64_t tid, const char *key, const char *str,
                       int64_t num) {
    ChromeJson *w = &r->json;
    ChromeJson_beginEvent(w);
    ChromeJson_strField(w, "ph", "M");
    ChromeJson_strField(w, "name", what);
    ChromeJson_intField(w, "pid", pid);
    ChromeJson_intField(w, "tid", tid);
    ChromeJson_beginObject(w, "args");
    if (str) ChromeJson_strField(w, key, str);
    else ChromeJson_intField(w, key, num);
    ChromeJson_end(w);
    ChromeJson_end(w);
}

static bool pid_written(LiveRecorder *r, int64_t pid) {
    for (size_t i = 0; i < r->n_pids; i++)
        if (r->pids[i] == pid) return true;
    GROW(r->pids, r->cap_pids, r->n_pids + 1);
    r->pids[r->n_pids++] = pid;
    return false;
}

static void new_lanes(LiveRecorder *r, LiveStore *s) {
    size_t n = LiveStore_laneCount(s);
    bool sim = LiveStore_isSimulated(s);
    char buf[160];
    for (size_t i = r->n_lanes; i < n; i++) {
        LiveLane l;
        char *nm = NULL;
        if (!LiveStore_lane(s, (uint32_t)i, &l, &nm)) break;
        GROW(r->lanes, r->cap_lanes, i + 1);
        r->lanes[i] = l;
        r->n_lanes = i + 1;
        if (!pid_written(r, l.pid)) {
            if (l.gpu) snprintf(buf, sizeof buf, "GPU %" PRId64 "%s", l.device, sim ? " (SIMULATED)" : "");
            else snprintf(buf, sizeof buf, "host %" PRId64 "%s", l.pid, sim ? " (SIMULATED)" : "");
            meta_event(r, "process_name", l.pid, 0, "name", buf, 0);
            meta_event(r, "process_sort_index", l.pid, 0, "sort_index", NULL, l.gpu ? l.device : 1000000 + l.pid);
        }
        if (LiveLane_label(&l, nm, buf, sizeof buf)) meta_event(r, "thread_name", l.pid, l.tid, "name", buf, 0);
        if (LiveLane_noStream(&l)) meta_event(r, "thread_sort_index", l.pid, l.tid, "sort_index", NULL, LIVE_NOSTREAM_SORT);
        free(nm);
    }
}

/* "pid", "tid" and "ts" (relative to the recording's base) of an event on lane l */
static void where(const LiveRecorder *r, ChromeJson *w, const LiveLane *l, int64_t ts) {
    ChromeJson_intField(w, "pid", l->pid);
    ChromeJson_intField(w, "tid", l->tid);
    ChromeJson_usField(w, "ts", ts - r->base_ns);
}

static void write_counter(LiveRecorder *r, const LiveLane *l, const TraceEvent *e, const char *name) {
    ChromeJson *w = &r->json;
    ChromeJson_beginEvent(w);
    ChromeJson_strField(w, "ph", "C");
    ChromeJson_strField(w, "name", name);
    where(r, w, l, e->ts);
    ChromeJson_beginObject(w, "args");
    ChromeJson_stringKey(w, name);
    ChromeJson_printf(w, "%.3f", e->value);
    ChromeJson_end(w);
    ChromeJson_end(w);
}

static void write_slice(LiveRecorder *r, const LiveLane *l, const TraceEvent *e, const char *name) {
    ChromeJson *w = &r->json;
    EventKind k = (EventKind)e->kind;
    ChromeJson_beginEvent(w);
    if (k == KIND_INSTANT) {
        ChromeJson_strField(w, "ph", "i");
        ChromeJson_strField(w, "s", "t");
        ChromeJson_strField(w, "cat", "instant");
    } else { /* KIND_OTHER: the collector's own overhead (RING_KIND_OVERHEAD) */
        ChromeJson_strField(w, "ph", "X");
        ChromeJson_strField(w, "cat", k == KIND_OTHER ? "overhead" : EventKind_category(k));
    }
    ChromeJson_strField(w, "name", name);
    where(r, w, l, e->ts);
    if (k != KIND_INSTANT) ChromeJson_usField(w, "dur", e->dur);
    ChromeJson_beginObject(w, "args");
    if (EventKind_isGpu(k)) {
        ChromeJson_intField(w, "device", l->device);
        ChromeJson_intField(w, "stream", l->stream);
    }
    if (e->corr) ChromeJson_intField(w, "correlation", e->corr);
    ChromeJson_end(w);
    ChromeJson_end(w);
}

/* The ac2g flow end of a launch (s) or of the GPU work it launched (f). */
static void write_flow(LiveRecorder *r, const LiveLane *l, const TraceEvent *e, bool start) {
    ChromeJson *w = &r->json;
    ChromeJson_beginEvent(w);
    ChromeJson_strField(w, "ph", start ? "s" : "f");
    ChromeJson_intField(w, "id", e->corr);
    where(r, w, l, e->ts);
    ChromeJson_strField(w, "cat", "ac2g");
    ChromeJson_strField(w, "name", "ac2g");
    if (!start) ChromeJson_strField(w, "bp", "e");
    ChromeJson_end(w);
}

static void write_event(LiveRecorder *r, LiveStore *s, const TraceEvent *e) {
    if (e->lane >= r->n_lanes) new_lanes(r, s);
    if (e->lane >= r->n_lanes) return; /* cannot happen: lanes are never removed */
    const LiveLane *l = &r->lanes[e->lane];
    EventKind k = (EventKind)e->kind;
    const char *name = name_of(r, s, e->name);
    if (!r->has_base) { /* the whole second at or before the first event */
        r->base_ns = Time_floorSecond(e->ts);
        r->has_base = true;
    }
    if (k == KIND_COUNTER) {
        write_counter(r, l, e, name);
        return;
    }
    write_slice(r, l, e, name);
    if (!e->corr) return;
    if (EventKind_isLaunch(k)) write_flow(r, l, e, true);
    else if (EventKind_isGpuWork(k)) write_flow(r, l, e, false);
}

/* Compresses text and writes it at `at`. The first write of a checkpoint (*cut false)
 * drops the old trailer just before: only once the frame is ready, so a kill leaves a
 * header-only file (no events to load) for no longer than two system calls. */
static bool put_frame(LiveRecorder *r, const char *text, size_t n, off_t at, bool *cut, size_t *written, char *err,
                      size_t errlen) {
    r->zbuf.len = 0;
    if (!ZWriter_frame(&r->zw, text, n)) {
        snprintf(err, errlen, "%s: compression failed", r->path);
        return false;
    }
    if (!*cut && !r->stream && ftruncate(r->fd, r->body_end) != 0) { /* a kill now leaves a truncated, loadable file */
        snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
        return false;
    }
    *cut = true;
    size_t flen = r->zbuf.len;
    if (!File_writeAll(r->fd, r->zbuf.p, flen, r->stream ? -1 : (int64_t)at)) {
        snprintf(err, errlen, "%s: %s", r->renamed ? r->path : r->file.tmp, strerror(errno));
        return false;
    }
    *written = flen;
    return true;
}

/* The text made so far as one frame at the body's end; the text is then emptied. */
static bool put_body(LiveRecorder *r, bool *cut, char *err, size_t errlen) {
    ChromeJson *w = &r->json;
    if (!w->len) return true;
    size_t n;
    bool ok = put_frame(r, w->buf, w->len, r->body_end, cut, &n, err, errlen);
    if (ok) r->body_end += (off_t)n;
    ChromeJson_clear(w);
    return ok;
}

/* max_events: write at most that many of the new events (0: all). */
static bool checkpoint(LiveRecorder *r, LiveStore *s, bool complete, size_t max_events, char *err, size_t errlen) {
    /* 1. body: header (first time), new lanes, new events */
    ChromeJson *w = &r->json;
    if (!r->began) {
        ChromeJson_puts(w, "{\"traceEvents\": [");
        r->began = true;
    }
    new_lanes(r, s);
    bool cut = false; /* the old trailer is dropped (by the first put_frame) */
    size_t left = max_events ? max_events : SIZE_MAX;
    for (;;) { /* big bodies go out as several frames to bound memory */
        /* until the file holds events, a small first frame: it is on disk in ~1 ms */
        size_t batch = r->events ? 65536 : 4096, want = left < batch ? left : batch;
        size_t n = LiveStore_read(s, &r->cursor, r->batch, want, &r->lost);
        left -= n;
        for (size_t i = 0; i < n; i++) write_event(r, s, &r->batch[i]);
        r->events += n;
        if (!put_body(r, &cut, err, errlen)) return false;
        if (n < want || left == 0) break;
    }
    /* 2. trailer (a stream gets it once, at the end) */
    r->checkpoints++;
    if (r->stream && !complete) return true;
    char extra[256];
    snprintf(extra, sizeof extra,
             "\"recording\": {\"events\": %" PRIu64 ", \"lost_to_retention\": %" PRIu64
             ", \"checkpoints\": %" PRIu64 ", \"complete\": %s}",
             r->events, r->lost, r->checkpoints, complete ? "true" : "false");
    char *meta = LiveStore_metaJson(s, extra);
    ChromeJson_puts(w, "\n],\n\"displayTimeUnit\": \"ms\",\n");
    if (r->has_base) ChromeJson_printf(w, "\"baseTimeNanoseconds\": %" PRId64 ",\n", r->base_ns);
    ChromeJson_printf(w, "\"traceName\": \"%s\",\n\"ovtrace\": ",
                      LiveStore_isSimulated(s) ? "ovtrace record (SIMULATED)" : "ovtrace record");
    ChromeJson_puts(w, meta);
    ChromeJson_puts(w, "\n}\n");
    free(meta);
    size_t n;
    bool ok = put_frame(r, w->buf, w->len, r->body_end, &cut, &n, err, errlen);
    ChromeJson_clear(w);
    if (!ok) return false;
    if (!r->stream && ftruncate(r->fd, r->body_end + (off_t)n) != 0) {
        snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
        return false;
    }
    if (!r->renamed) {
        if (!AtomicFile_rename(&r->file)) {
            snprintf(err, errlen, "cannot rename %s to %s: %s", r->file.tmp, r->path, strerror(errno));
            return false;
        }
        r->renamed = true;
    }
    return true;
}

bool LiveRecorder_checkpoint(LiveRecorder *r, LiveStore *s, char *err, size_t errlen) {
    return checkpoint(r, s, false, 0, err, errlen);
}

bool LiveRecorder_checkpointSome(LiveRecorder *r, LiveStore *s, size_t max_events, char *err, size_t errlen) {
    return checkpoint(r, s, false, max_events ? max_events : 1, err, errlen);
}

bool LiveRecorder_close(LiveRecorder *r, LiveStore *s, char *err, size_t errlen) {
    bool ok = checkpoint(r, s, true, 0, err, errlen);
    if (ok && !r->stream && fsync(r->fd) != 0) {
        snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
        ok = false;
    }
    if (!close_fd(r) && ok) {
        snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
        ok = false;
    }
    rec_free(r); /* a temporary file not renamed is removed */
    return ok;
}

bool LiveStore_save(LiveStore *s, const char *path, char *err, size_t errlen) {
    LiveRecorder *r = LiveRecorder_open(path, err, errlen);
    if (!r) return false;
    return LiveRecorder_close(r, s, err, errlen);
}
