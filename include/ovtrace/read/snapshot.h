/* Snapshot cache: the finished model of a set of trace files, saved as a columnar,
 * zstd-compressed file in a cache directory ($XDG_CACHE_HOME/ovtrace, resolved by the
 * caller: the library reads no environment), reopened many
 * times faster than parsing the JSON again. A snapshot is used only while it matches
 * its inputs exactly (absolute path, size, mtime, ctime, inode of every file) and was
 * written by the same build; anything else, a truncated or corrupt file included, is a
 * miss with a reason, never an error. Classification is not stored: it depends on the
 * rules of the run (Classify_trace runs after Snapshot_load). docs/cache.md. */
#ifndef OVTRACE_SNAPSHOT_H
#define OVTRACE_SNAPSHOT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

/* Automatic caching starts at this much JSON (compressed inputs count 8x their size):
 * smaller traces parse about as fast as a snapshot loads. */
#define SNAPSHOT_AUTO_MIN_BYTES (64ull << 20)
/* The cache directory's default size cap ($OVTRACE_CACHE_MAX_MB unset): 2048 MB. */
#define SNAPSHOT_DEFAULT_MAX_BYTES (2048ull << 20)

/* Where snapshots live and how much the directory may hold, resolved once by the
 * caller (the CLI: Snapshot_cacheDir from $XDG_CACHE_HOME/$HOME, $OVTRACE_CACHE_MAX_MB).
 * A zeroed struct is "no cache directory": nothing is looked up or saved. */
typedef struct {
    const char *dir;    /* NULL or "": no cache directory */
    uint64_t max_bytes; /* size cap: after a save the least recently used snapshots go
                           until the rest fit (0: SNAPSHOT_DEFAULT_MAX_BYTES) */
} CacheOptions;

/* What a snapshot must match of one input. */
typedef struct {
    uint64_t size, ino, dev;
    int64_t mtime_ns, ctime_ns;
} SnapshotFileId;

/* stat(path) into *id; false if it cannot be read. */
bool Snapshot_fileId(const char *path, SnapshotFileId *id);

/* The cache directory for these values of $XDG_CACHE_HOME and $HOME (either may be
 * NULL): xdg_cache_home/ovtrace if that is absolute, else home/.cache/ovtrace. False
 * when neither is usable. */
bool Snapshot_cacheDir(const char *xdg_cache_home, const char *home, char *out, size_t outlen);
/* The snapshot file for these inputs: dir + a hash of their absolute paths. False when
 * an input cannot be resolved or dir is NULL or empty. */
bool Snapshot_cachePath(const char *dir, const char *const *inputs, size_t n, char *out, size_t outlen);

/* Writes t, a finished trace whose sources are inputs[0..n) in order, to cache_path:
 * a temp file in the same directory (created if needed), fsync'd, then renamed over
 * cache_path. ids: the inputs as they were when loading began (NULL: as they are now);
 * if an input changed since, nothing is written. Then the directory is trimmed to
 * max_bytes (0: SNAPSHOT_DEFAULT_MAX_BYTES), least recently used first, cache_path kept.
 * False with a reason in err. */
bool Snapshot_save(const Trace *t, const char *const *inputs, size_t n, const SnapshotFileId *ids,
                   const char *cache_path, uint64_t max_bytes, char *err, size_t errlen);

/* The same, in a detached process (double fork, own session, nice 10, std streams on
 * /dev/null), so the caller goes on at once and a save outlives it. The process calls
 * note(ctx, msg) with its outcome (NULL: none); with outcome_fd, it also writes the
 * outcome as one line to a pipe whose read end (close-on-exec) goes to *outcome_fd (-1
 * when none could be made): the caller, not the process, reports it, so nothing is
 * written to the caller's stderr after the caller has returned. False (reason in err)
 * only if the process could not be started. */
bool Snapshot_saveDetached(const Trace *t, const char *const *inputs, size_t n, const SnapshotFileId *ids,
                           const char *cache_path, uint64_t max_bytes, void (*note)(void *ctx, const char *msg), void *ctx,
                           int *outcome_fd, char *err, size_t errlen);

/* The model saved in cache_path, if it is a snapshot of inputs[0..n) as they are now,
 * written by this build; its sources are named inputs[i]. Finished, not classified.
 * Columns decompress on up to `threads` threads (0: one). NULL with the reason in why
 * otherwise. */
Trace *Snapshot_load(const char *const *inputs, size_t n, const char *cache_path, int threads, char *why,
                     size_t whylen);

#endif
