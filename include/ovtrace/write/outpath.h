/* Where an output file goes (`export -o`, `record -o`, the TUI's export key).
 *
 * A regular file is written to a temporary file beside it and renamed over it, so it
 * is never half-written (base/atomicfile.h). That must not happen to what is not a
 * regular file: "-", a character device (/dev/null, /dev/full, a terminal) or a FIFO
 * (`-o >(zstd ...)`) is written in place, in order ("streamed"); a symlink is followed,
 * and the file it leads to is the one replaced (temporary file beside the target, the
 * link kept). */
#ifndef OVTRACE_OUTPATH_H
#define OVTRACE_OUTPATH_H
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    bool stream; /* "-", a character device or a FIFO: open with OutPath_openStream */
    char *path;  /* the file to write: the given name, or where its symlinks lead */
} OutPath;

/* Resolves out. Refuses directories, block devices and sockets, and symlink loops. */
bool OutPath_resolve(const char *out, OutPath *p, char *err, size_t errlen);
void OutPath_free(OutPath *p);

/* For a stream: a descriptor to write to (stdout's, dup'd, for "-"); the caller closes
 * it. -1 with a message on failure. Opening a FIFO waits for its reader. */
int OutPath_openStream(const OutPath *p, char *err, size_t errlen);

#endif
