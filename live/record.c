/* Recording: the store's events as Chrome Trace JSON (object form), the format
 * `ovtrace export` writes and Perfetto opens:
 *
 *   {"traceEvents": [ M metadata for lanes, X events, ac2g flow s/f pairs ... ],
 *    "displayTimeUnit": "ms", "traceName": ..., "ovtrace": {simulated, params, ring drops}}
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
 * followed: its target is the file written (outpath.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live_internal.h"
#include "ovtrace/base/file.h"
#include "ovtrace/base/zwriter.h"
#include "ovtrace/write/jsonout.h"
#include "ovtrace/write/outpath.h"

struct LiveRecorder {
    char *path, *tmp;
    int fd;
    ZWriter zw; /* one frame at a time into zbuf */
    ZBuf zbuf;
    bool renamed, began, any_event;
    bool stream; /* written in order, never truncated or renamed */
    off_t body_end;
    uint64_t cursor, lost, events, checkpoints;
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
        OutPath_cleanStale(r->path); /* temporary files of recordings killed by SIGKILL */
        size_t n = strlen(r->path) + 32;
        r->tmp = xmalloc(n);
        snprintf(r->tmp, n, "%s.tmp.%ld", r->path, (long)getpid());
        r->fd = open(r->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (r->fd < 0) snprintf(err, errlen, "%s: %s", r->tmp, strerror(errno));
    }
    if (r->fd < 0) {
        ZWriter_free(&r->zw);
        free(r->tmp);
        free(r->path);
        free(r);
        return NULL;
    }
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
    free(r->tmp);
    free(r->path);
    free(r);
}

void LiveRecorder_abort(LiveRecorder *r) {
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    if (!r->renamed) unlink(r->tmp);
    rec_free(r);
}

/* ---- frames ----------------------------------------------------------------------------- */

/* ---- JSON ------------------------------------------------------------------------------- */

static void put_us(FILE *f, int64_t ns) {
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

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

static void sep(LiveRecorder *r, FILE *f) {
    fputs(r->any_event ? ",\n" : "\n", f);
    r->any_event = true;
}

static void meta_event(LiveRecorder *r, FILE *f, const char *what, int64_t pid, int64_t tid, const char *key,
                       const char *str, int64_t num) {
    sep(r, f);
    fprintf(f, "{\"ph\": \"M\", \"name\": \"%s\", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"args\": {\"%s\": ",
            what, pid, tid, key);
    if (str) JsonOut_string(f, str);
    else fprintf(f, "%" PRId64, num);
    fputs("}}", f);
}

static bool pid_written(LiveRecorder *r, int64_t pid) {
    for (size_t i = 0; i < r->n_pids; i++)
        if (r->pids[i] == pid) return true;
    GROW(r->pids, r->cap_pids, r->n_pids + 1);
    r->pids[r->n_pids++] = pid;
    return false;
}

static void new_lanes(LiveRecorder *r, LiveStore *s, FILE *f) {
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
            meta_event(r, f, "process_name", l.pid, 0, "name", buf, 0);
            meta_event(r, f, "process_sort_index", l.pid, 0, "sort_index", NULL, l.gpu ? l.device : 1000000 + l.pid);
        }
        if (nm) {
            if (l.gpu) snprintf(buf, sizeof buf, "stream %" PRId64 " %s", l.stream, nm);
            else snprintf(buf, sizeof buf, "%s", nm);
            meta_event(r, f, "thread_name", l.pid, l.tid, "name", buf, 0);
        }
        free(nm);
    }
}

static void write_event(LiveRecorder *r, LiveStore *s, FILE *f, const TraceEvent *e) {
    if (e->lane >= r->n_lanes) new_lanes(r, s, f);
    if (e->lane >= r->n_lanes) return; /* cannot happen: lanes are never removed */
    const LiveLane *l = &r->lanes[e->lane];
    EventKind k = (EventKind)e->kind;
    bool gpu = EventKind_isGpu(k);
    const char *name = name_of(r, s, e->name);
    sep(r, f);
    if (k == KIND_COUNTER) {
        fputs("{\"ph\": \"C\", \"name\": ", f);
        JsonOut_string(f, name);
        fprintf(f, ", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": ", l->pid, l->tid);
        put_us(f, e->ts);
        fputs(", \"args\": {", f);
        JsonOut_string(f, name);
        fprintf(f, ": %.3f}}", e->value);
        return;
    }
    if (k == KIND_INSTANT) fputs("{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"instant\", \"name\": ", f);
    else /* KIND_OTHER: the collector's own overhead (RING_KIND_OVERHEAD) */
        fprintf(f, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": ", k == KIND_OTHER ? "overhead" : EventKind_category(k));
    JsonOut_string(f, name);
    fprintf(f, ", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": ", l->pid, l->tid);
    put_us(f, e->ts);
    if (k != KIND_INSTANT) {
        fputs(", \"dur\": ", f);
        put_us(f, e->dur);
    }
    fputs(", \"args\": {", f);
    bool comma = false;
    if (gpu) {
        fprintf(f, "\"device\": %" PRId64 ", \"stream\": %" PRId64, l->device, l->stream);
        comma = true;
    }
    if (e->corr) {
        fprintf(f, "%s\"correlation\": %" PRIu32, comma ? ", " : "", e->corr);
        comma = true;
    }
    fputs("}}", f);
    if (!e->corr) return;
    if (EventKind_isLaunch((EventKind)k)) {
        sep(r, f);
        fprintf(f,
                "{\"ph\": \"s\", \"id\": %" PRIu32 ", \"pid\": %" PRId64 ", \"tid\": %" PRId64
                ", \"ts\": ",
                e->corr, l->pid, l->tid);
        put_us(f, e->ts);
        fputs(", \"cat\": \"ac2g\", \"name\": \"ac2g\"}", f);
    } else if (EventKind_isGpuWork(k)) {
        sep(r, f);
        fprintf(f,
                "{\"ph\": \"f\", \"id\": %" PRIu32 ", \"pid\": %" PRId64 ", \"tid\": %" PRId64
                ", \"ts\": ",
                e->corr, l->pid, l->tid);
        put_us(f, e->ts);
        fputs(", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}", f);
    }
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
        snprintf(err, errlen, "%s: %s", r->renamed ? r->path : r->tmp, strerror(errno));
        return false;
    }
    *written = flen;
    return true;
}

/* max_events: write at most that many of the new events (0: all). */
static bool checkpoint(LiveRecorder *r, LiveStore *s, bool complete, size_t max_events, char *err, size_t errlen) {
    /* 1. body: header (first time), new lanes, new events */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = xopen_memstream(&buf, &len);
    if (!r->began) {
        fputs("{\"traceEvents\": [", f);
        r->began = true;
    }
    new_lanes(r, s, f);
    bool cut = false; /* the old trailer is dropped (by the first put_frame) */
    size_t left = max_events ? max_events : SIZE_MAX;
    for (;;) {
        /* until the file holds events, a small first frame: it is on disk in ~1 ms */
        size_t batch = r->events ? 65536 : 4096, want = left < batch ? left : batch;
        size_t n = LiveStore_read(s, &r->cursor, r->batch, want, &r->lost);
        left -= n;
        for (size_t i = 0; i < n; i++) write_event(r, s, f, &r->batch[i]);
        r->events += n;
        fclose(f);
        if (len) {
            size_t w;
            bool ok = put_frame(r, buf, len, r->body_end, &cut, &w, err, errlen);
            if (ok) r->body_end += (off_t)w;
            free(buf);
            if (!ok) return false;
        } else {
            free(buf);
        }
        if (n < want || left == 0) break;
        /* big bodies go out as several frames to bound memory */
        f = xopen_memstream(&buf, &len);
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
    f = xopen_memstream(&buf, &len);
    fprintf(f, "\n],\n\"displayTimeUnit\": \"ms\",\n\"traceName\": \"%s\",\n\"ovtrace\": %s\n}\n",
            LiveStore_isSimulated(s) ? "ovtrace record (SIMULATED)" : "ovtrace record", meta);
    fclose(f);
    free(meta);
    size_t w;
    bool ok = put_frame(r, buf, len, r->body_end, &cut, &w, err, errlen);
    free(buf);
    if (!ok) return false;
    if (!r->stream && ftruncate(r->fd, r->body_end + (off_t)w) != 0) {
        snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
        return false;
    }
    if (!r->renamed) {
        if (rename(r->tmp, r->path) != 0) {
            snprintf(err, errlen, "cannot rename %s to %s: %s", r->tmp, r->path, strerror(errno));
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
    if (close(r->fd) != 0 && ok) {
        snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
        ok = false;
    }
    r->fd = -1;
    if (!r->renamed) unlink(r->tmp);
    rec_free(r);
    return ok;
}

bool LiveStore_save(LiveStore *s, const char *path, char *err, size_t errlen) {
    LiveRecorder *r = LiveRecorder_open(path, err, errlen);
    if (!r) return false;
    return LiveRecorder_close(r, s, err, errlen);
}
