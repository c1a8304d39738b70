/* A file replaced whole: written under a temporary name beside it and renamed over it,
 * so that a reader finds the old file or the new one, never a part. Every writer of a
 * file uses it: export, record, the rank simulator and the snapshot cache.
 *
 * The temporary file is DIR/.NAME.tmp-PID-XXXXXX (NAME the target's name, PID ours,
 * six random letters or digits), created with O_EXCL | O_NOFOLLOW: never an existing
 * file, nor where a planted symlink points. A later writer to the same target removes
 * one that a process killed by SIGKILL left behind (AtomicFile_cleanStale).
 *
 * The library installs no signal handler. The live temporary files are kept in a list
 * that AtomicFile_removeLive, which is async-signal-safe, removes; the program that owns
 * the process's signals is told when the first appears and the last goes
 * (AtomicFile_onLive) and installs its handlers for that time (cli/signals.c). */
#ifndef OVTRACE_BASE_ATOMICFILE_H
#define OVTRACE_BASE_ATOMICFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct {
    char *target; /* the file replaced */
    char *tmp;    /* the temporary file while it exists; NULL once renamed or removed */
    int fd;       /* open for writing; -1 once closed */
    int slot;     /* its entry in the list AtomicFile_removeLive reads; -1 when none */
} AtomicFile;

/* An AtomicFile that holds nothing: AtomicFile_free does nothing with it. */
#define ATOMICFILE_NONE {NULL, NULL, -1, -1}

/* At most this many temporary files live at once in a process. */
#define ATOMICFILE_MAX_LIVE 4096

/* Creates the temporary file beside target after removing stale ones (cleanStale).
 * target is the file to replace as resolved by the caller (symlinks followed, a
 * device or FIFO written in place: write/outpath.h); when it exists it must be a
 * regular file. The new file gets target's permissions when keep_mode and target
 * exists, else mode minus the umask. False with a message ("cannot create ..."). */
bool AtomicFile_open(AtomicFile *f, const char *target, mode_t mode, bool keep_mode, char *err, size_t errlen);

/* Closes the descriptor (the temporary file stays until renamed or freed). False with
 * errno set when close reports an error (a delayed write failed). */
bool AtomicFile_closeFd(AtomicFile *f);

/* Renames the temporary file over target; the descriptor stays open, and writes to it
 * now change target. False with errno set (the temporary file stays, for _free). */
bool AtomicFile_rename(AtomicFile *f);

/* Makes the rename durable: fsyncs target's directory. */
void AtomicFile_syncDir(const AtomicFile *f);

/* Closes the descriptor if open, removes the temporary file unless it was renamed,
 * frees the names. Does nothing on ATOMICFILE_NONE or an AtomicFile already freed. */
void AtomicFile_free(AtomicFile *f);

/* Removes the temporary files beside path that a process which no longer exists left
 * behind (killed by SIGKILL, or a crash): DIR/.NAME.tmp-PID-XXXXXX whose PID is not a
 * running process, a regular file owned by this user, untouched for
 * ATOMICFILE_STALE_SECONDS (a fresh one may be another host's, on a shared directory).
 * Returns how many were removed. */
#define ATOMICFILE_STALE_SECONDS 60
size_t AtomicFile_cleanStale(const char *path);

/* hook(true) when the process's first temporary file is about to be created, hook(false)
 * when its last one is renamed or removed. One hook per process; NULL for none. */
void AtomicFile_onLive(void (*hook)(bool any_live));

/* Removes this process's live temporary files. Async-signal-safe: for a handler of a
 * signal that ends the process. */
void AtomicFile_removeLive(void);

/* Opens path for writing as a new file: O_CREAT | O_EXCL | O_NOFOLLOW, so an existing
 * file or symlink there (dangling or not) fails with EEXIST and is left as it was.
 * The descriptor, or -1 with errno set. */
int AtomicFile_createNew(const char *path, mode_t mode);

#endif
