/* Multi-file loading: expands directories, assigns ranks, finishes and classifies. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/clock.h"
#include "ovtrace/base/file.h"
#include "ovtrace/read/input.h"
#include "ovtrace/read/load.h"
#include "ovtrace/read/snapshot.h"
#include "ovtrace/base/termsafe.h"
#include "load_many.h"

/* Appends the trace files of dir, sorted by name. */
/* Why a directory entry named like a trace is not one to load, or NULL: only regular
 * files (through symlinks) are; a FIFO would hang the load, a subdirectory or a dangling
 * symlink would fail it. */
static const char *not_loadable(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return errno == ELOOP ? "a symlink loop" : errno == ENOENT ? "a dangling symlink" : strerror(errno);
    if (S_ISDIR(st.st_mode)) return "a directory";
    if (S_ISFIFO(st.st_mode)) return "a FIFO";
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    return NULL;
}

/* Appends dir's trace files to *out; entries that are not regular files are left out,
 * counted in *skipped with the first one described in skip_note. */
static bool expand_dir(const char *dir, char ***out, size_t *n, size_t *cap, size_t *skipped, char *skip_note,
                       size_t note_len, char *err, size_t errlen) {
    size_t k;
    char **found = Dir_traceFiles(dir, &k);
    if (!found) {
        snprintf(err, errlen, "%s: %s", dir, errno == ENOMEM ? "out of memory reading the directory" : "cannot open directory");
        return false;
    }
    GROW(*out, *cap, *n + k);
    size_t kept = 0;
    for (size_t i = 0; i < k; i++) {
        const char *why = not_loadable(found[i]);
        if (!why) {
            (*out)[*n + kept++] = found[i];
            continue;
        }
        if ((*skipped)++ == 0) snprintf(skip_note, note_len, "%s is %s", found[i], why);
        free(found[i]);
    }
    *n += kept;
    free(found);
    if (!kept) {
        snprintf(err, errlen, "%s: no *.json, *.json.gz, *.json.zst or *.sqlite files in directory%s", dir,
                 k ? " that are regular files" : "");
        return false;
    }
    return true;
}

/* ---------- snapshot cache ---------- */

typedef struct {
    FILE *log;
    const char *log_path;
} CacheLog;

static CacheLog cache_log(const LoadOptions *opt) {
    CacheLog l = {opt ? opt->cache_log : NULL, NULL};
    if (opt && opt->cache_log_path && *opt->cache_log_path) l.log_path = opt->cache_log_path;
    return l;
}

static void put_note(FILE *f, const char *msg) {
    TermSafe_fprintf(f, "ovtrace: cache: %s\n", msg); /* names files */
}

/* Appends to the log file: opened per note, so that a detached saver never flushes a
 * copy of the caller's buffer. */
static void note_file(void *ctx, const char *msg) {
    const CacheLog *l = ctx;
    FILE *f = l->log_path ? fopen(l->log_path, "a") : NULL;
    if (!f) return;
    put_note(f, msg);
    fclose(f);
}

static void note_msg(void *ctx, const char *msg) {
    const CacheLog *l = ctx;
    if (!l->log) {
        note_file(ctx, msg);
        return;
    }
    put_note(l->log, msg);
    fflush(l->log);
}

/* Hands a detached save's outcome pipe to s (closed when s is full: the saver's write
 * then fails quietly). */
static void saves_add(CacheSaves *s, int fd, FILE *log) {
    pthread_mutex_lock(&s->lock);
    if (s->n < CACHE_SAVES_MAX) {
        s->fd[s->n] = fd;
        s->log[s->n++] = log;
        fd = -1;
    }
    pthread_mutex_unlock(&s->lock);
    if (fd >= 0) close(fd);
}

/* One outcome line from fd until the deadline: true with it in buf, false when the
 * deadline passed first; an empty line when the saver ended without one. */
static bool read_outcome(int fd, double deadline, char *buf, size_t n) {
    size_t k = 0;
    for (;;) {
        double left = deadline - Clock_monotonicS();
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, left > 0 ? (int)(left * 1000) + 1 : 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        ssize_t got = read(fd, buf + k, n - 1 - k);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        k += (size_t)got;
        if (memchr(buf, '\n', k) || k == n - 1) break;
    }
    buf[k] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl) *nl = '\0';
    return true;
}

void CacheSaves_wait(CacheSaves *s, double timeout_s) {
    pthread_mutex_lock(&s->lock);
    double deadline = Clock_monotonicS() + timeout_s;
    for (size_t i = 0; i < s->n; i++) {
        char msg[1100];
        if (!read_outcome(s->fd[i], deadline, msg, sizeof msg))
            snprintf(msg, sizeof msg, "still saving after %.1f s in the detached process (not waited for further)",
                     timeout_s);
        else if (!msg[0]) snprintf(msg, sizeof msg, "not saved: the detached process ended without a word");
        put_note(s->log[i], msg);
        fflush(s->log[i]);
        close(s->fd[i]);
    }
    s->n = 0;
    pthread_mutex_unlock(&s->lock);
}

static void note(CacheLog *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(CacheLog *l, const char *fmt, ...) {
    if (!l->log && !l->log_path) return;
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    note_msg(l, msg);
}

/* -1 off, 0 auto, 1 on. No options: off (tests and other library callers never write
 * into the user's cache unless they ask). */
static int cache_mode(const LoadOptions *opt) {
    if (!opt) return -1;
    return opt->cache < 0 ? -1 : opt->cache > 0;
}

/* JSON bytes a file holds, about: compressed traces shrink 10-20x, count them 8x. */
static uint64_t json_estimate(const char *path, uint64_t size) {
    unsigned char m[4] = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, m, sizeof m) != (ssize_t)sizeof m) m[0] = 0;
        close(fd);
    }
    bool gz = m[0] == 0x1f && m[1] == 0x8b, zst = m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd;
    return gz || zst ? size * 8 : size;
}

/* FinishOptions.step: the same stages, told through LoadOptions.stage. */
static void finish_step(void *ctx, FinishStep step, size_t events, size_t lanes, size_t flow_points) {
    const LoadOptions *opt = ctx;
    opt->stage(opt->stage_ctx, (LoadStage)step, events, lanes, flow_points);
}

Trace *Load_files(const char *const *paths, size_t n, const LoadOptions *opt, char *err, size_t errlen) {
    char **files = NULL;
    size_t n_files = 0, cap = 0, dir_skipped = 0;
    char skip_note[PATH_MAX + 64] = "";
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            ok = expand_dir(paths[i], &files, &n_files, &cap, &dir_skipped, skip_note, sizeof skip_note, err, errlen);
        } else {
            GROW(files, cap, n_files + 1);
            files[n_files++] = xstrdup(paths[i]);
        }
    }
    Trace *t = NULL;
    if (ok && n_files == 0) {
        snprintf(err, errlen, "no trace files given");
        ok = false;
    }
    if (ok && n_files == 1 && Load_isSummary(files[0])) { /* a run summary: its own model */
        t = Load_summaryFile(files[0], err, errlen);
        free(files[0]);
        free(files);
        return t;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = opt && opt->threads > 0 ? opt->threads : cores > 0 ? (int)cores : 1;
    /* The cache: inputs identified before parsing, so a file that changes while it is
     * parsed is never saved as what it is now. */
    CacheLog log = cache_log(opt);
    const char *const *fl = (const char *const *)files;
    SnapshotFileId *ids = NULL;
    char cpath[PATH_MAX] = "";
    bool cached = false;
    /* a partial model is never cached, nor one whose ranks count from another file */
    int mode = opt && (opt->gpu_only || opt->rank_base) ? -1 : cache_mode(opt);
    if (ok && mode >= 0) {
        ids = xcalloc(n_files, sizeof *ids);
        uint64_t json = 0;
        bool have = true;
        /* a pipe, FIFO or stdin is opened once, by the parser: peeking at it here would
         * take its first bytes (and a FIFO's writer) away; it has no identity to cache */
        /* an Nsight Systems export is a database SQLite reads directly: nothing to cache */
        for (size_t i = 0; have && i < n_files; i++)
            if ((have = Input_canReopen(files[i]) && !Load_isSqlite(files[i]) && Snapshot_fileId(files[i], &ids[i])))
                json += json_estimate(files[i], ids[i].size);
        if (!have) {
            cpath[0] = '\0'; /* the parser says what is wrong with the file */
        } else if (mode == 0 && json < SNAPSHOT_AUTO_MIN_BYTES) {
            note(&log, "off: %.1f MB of JSON (automatic from %llu MB; --cache forces it)", (double)json / 1e6,
                 SNAPSHOT_AUTO_MIN_BYTES >> 20);
        } else if (!Snapshot_cachePath(opt->cache_opt.dir, fl, n_files, cpath, sizeof cpath)) {
            cpath[0] = '\0';
            note(&log, "off: no cache directory ($XDG_CACHE_HOME or $HOME)");
        } else {
            char why[512];
            double t0 = Clock_monotonicS();
            t = Snapshot_load(fl, n_files, cpath, threads, why, sizeof why);
            if (t) {
                cached = true;
                note(&log, "hit %s (%.3f s)", cpath, Clock_monotonicS() - t0);
                for (size_t i = 0; opt && opt->progress && i < n_files; i++)
                    opt->progress(opt->progress_ctx, files[i], ids[i].size, ids[i].size, t->n_events);
            } else {
                note(&log, "miss: %s", why);
            }
        }
    }
    if (ok && !cached) {
        t = Trace_new();
        bool many = false; /* read a whole file per thread */
        if (LoadMany_wanted(fl, n_files, threads) && !LoadMany_read(t, fl, n_files, opt, threads, &many, err, errlen))
            ok = !many; /* no thread started: one by one below */
        for (size_t i = 0; !many && ok && i < n_files; i++)
            ok = Input_canReopen(files[i]) && Load_isSqlite(files[i]) ? Load_nsysFile(t, files[i], err, errlen)
                                                                       : Load_chromeFile(t, files[i], opt, err, errlen);
        if (ok && !Trace_finishWith(t, &(FinishOptions){.threads = threads,
                                                        .timing = opt ? opt->finish_timing : NULL,
                                                        .step = opt && opt->stage ? finish_step : NULL,
                                                        .step_ctx = (void *)opt,
                                                        .rank_base = opt ? opt->rank_base : 0,
                                                        .cancel = opt ? opt->cancel : NULL})) {
            snprintf(err, errlen, "%s: loading cancelled", files[0]); /* as the parser says */
            ok = false;
        }
        /* nothing passed over (every event on a GPU lane): the model is complete */
        if (ok) t->gpu_only = opt && opt->gpu_only && t->deferred > 0;
    }
    if (ok && cached && opt && opt->cancel && *opt->cancel) {
        snprintf(err, errlen, "%s: loading cancelled", files[0]);
        ok = false;
    }
    if (ok) {
        if (opt && opt->stage) opt->stage(opt->stage_ctx, LOAD_STAGE_CLASSIFY, t->n_events, t->n_lanes, t->n_flows);
        CommRules *def = opt && opt->rules ? NULL : CommRules_default();
        Classify_traceThreads(t, opt && opt->rules ? opt->rules : def, threads);
        CommRules_free(def);
        /* parser scratch and worker-thread arenas: give the memory back */
        malloc_trim(0);
    } else {
        Trace_free(t);
        t = NULL;
    }
    /* Saved after classification: the model is complete, so a detached saver shares
     * its pages with the caller untouched (classes are not stored). */
    if (t && !cached && cpath[0]) {
        char e[768];
        if (t->diag.truncated) {
            note(&log, "not saved: the trace is truncated (a profiler may still be writing it)");
        } else if (t->input_warning) {
            note(&log, "not saved: %s", t->input_warning);
        } else if (opt && opt->cache_sync) {
            if (opt->stage) opt->stage(opt->stage_ctx, LOAD_STAGE_SNAPSHOT, t->n_events, t->n_lanes, t->n_flows);
            double t0 = Clock_monotonicS();
            if (Snapshot_save(t, fl, n_files, ids, cpath, opt->cache_opt.max_bytes, e, sizeof e))
                note(&log, "saved %s (%.2f s)", cpath, Clock_monotonicS() - t0);
            else note(&log, "not saved: %s", e);
        } else {
            double t0 = Clock_monotonicS();
            /* the outcome: appended to the log file by the saver, or reported by the caller
             * (CacheSaves_wait), never written to the caller's stderr by the saver */
            int fd = -1;
            bool report = log.log && opt->cache_saves;
            if (Snapshot_saveDetached(t, fl, n_files, ids, cpath, opt->cache_opt.max_bytes,
                                      log.log_path ? note_file : NULL, &log, report ? &fd : NULL, e, sizeof e)) {
                note(&log, "saving in a detached process (started in %.1f ms)", (Clock_monotonicS() - t0) * 1e3);
                if (fd >= 0) saves_add(opt->cache_saves, fd, log.log);
            } else {
                note(&log, "not saved: %s", e);
            }
        }
    }
    free(ids);
    if (t && dir_skipped) {
        char w[sizeof skip_note + 96];
        snprintf(w, sizeof w, "skipped %zu directory entr%s (%s)", dir_skipped,
                 dir_skipped == 1 ? "y that is not a regular file" : "ies that are not regular files", skip_note);
        t->dir_warning = xstrdup(w);
    }
    for (size_t i = 0; i < n_files; i++) free(files[i]);
    free(files);
    return t;
}

char **Load_expandPaths(const char *const *paths, size_t n, size_t *n_out, char *err, size_t errlen) {
    char **files = NULL;
    size_t n_files = 0, cap = 0, skipped = 0;
    char note[PATH_MAX + 64] = "";
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            ok = expand_dir(paths[i], &files, &n_files, &cap, &skipped, note, sizeof note, err, errlen);
        } else {
            GROW(files, cap, n_files + 1);
            files[n_files++] = xstrdup(paths[i]);
        }
    }
    if (ok && !n_files) {
        snprintf(err, errlen, "no trace files given");
        ok = false;
    }
    if (!ok) {
        for (size_t i = 0; i < n_files; i++) free(files[i]);
        free(files);
        return NULL;
    }
    *n_out = n_files;
    return files;
}

/* After a byte offset in the file at path: a compressed file's offsets count its decompressed JSON. */
static const char *offset_words(const Trace *t, const char *path) {
    for (size_t i = 0; path && i < t->n_sources; i++)
        if (!strcmp(t->sources[i].path, path))
            return t->sources[i].compression == COMP_GZIP || t->sources[i].compression == COMP_ZSTD
                       ? " of the decompressed JSON"
                       : "";
    return "";
}

void Load_printWarnings(const Trace *t, FILE *out, const char *prefix) {
    const TraceDiag *d = &t->diag;
    if (d->truncated && d->truncated_compression != COMP_NONE)
        TermSafe_fprintf(out,
                "%swarning: %s: trace is truncated at byte %" PRIu64 " of the decompressed JSON (its %s data ends"
                " at compressed byte %" PRIu64 "; the profiler may have died mid-write); loaded everything before it\n",
                prefix, d->truncated_path, d->truncated_offset,
                Input_compressionName((InputCompression)d->truncated_compression), d->truncated_comp_end);
    else if (d->truncated)
        TermSafe_fprintf(out,
                "%swarning: %s: trace is truncated at byte %" PRIu64
                " (the profiler may have died mid-write); loaded everything before it\n",
                prefix, d->truncated_path, d->truncated_offset);
    if (t->input_warning) TermSafe_fprintf(out, "%swarning: %s\n", prefix, t->input_warning);
    if (t->dir_warning) TermSafe_fprintf(out, "%swarning: %s\n", prefix, t->dir_warning);
    if (d->skipped)
        TermSafe_fprintf(out, "%swarning: skipped %zu event%s with bad values; first in %s at byte %" PRIu64 "%s: %s\n",
                prefix, d->skipped, d->skipped == 1 ? "" : "s", d->first_skip_path, d->first_skip_offset,
                offset_words(t, d->first_skip_path), d->first_skip_reason);
    if (d->ignored)
        TermSafe_fprintf(out, "%snote: ignored %zu event%s of phases ovtrace does not model (async b/e, samples, objects)\n",
                prefix, d->ignored, d->ignored == 1 ? "" : "s");
}

char *Load_warningsText(const Trace *t) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = xopen_memstream(&text, &len);
    Load_printWarnings(t, m, "");
    fclose(m);
    if (len) return text;
    free(text);
    return NULL;
}
