/* File and path helpers shared by the loaders, the writers and the TUI. Allocation
 * failures are returned (errno ENOMEM), never fatal: the caller owns the policy. */
#ifndef OVTRACE_BASE_FILE_H
#define OVTRACE_BASE_FILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes all n bytes, retrying short writes and EINTR: at offset `at` onward (pwrite),
 * or at the descriptor's position when at < 0 (pipes, devices). False with errno set. */
bool File_writeAll(int fd, const void *p, size_t n, int64_t at);

/* The last component of path (after its last '/'), or path itself. */
const char *Path_base(const char *path);

/* The directory holding path, malloc'd: "." without a '/', "/" for "/x". NULL when out of memory. */
char *Path_dir(const char *path);

/* A name the loaders take from a directory: *.json, *.json.gz, *.json.zst or *.sqlite
 * (an Nsight Systems export). */
bool Path_isTrace(const char *name);

/* The trace files of dir (Path_isTrace, not hidden) as "dir/NAME", sorted by name in
 * natural order (strverscmp: rank2 before rank10): a
 * malloc'd array of *n malloc'd strings (non-NULL even when *n is 0). NULL with errno set
 * when dir cannot be read or memory runs out. */
char **Dir_traceFiles(const char *dir, size_t *n);
void Dir_freeList(char **list, size_t n);

#endif
