/* Many trace files read at once, a whole file per thread, merged in the order given
 * (load_many.c): for a directory of rank files, where cutting each file into slices
 * leaves a core idle at every file's end and costs a merge per slice. */
#ifndef OVTRACE_READ_LOAD_MANY_H
#define OVTRACE_READ_LOAD_MANY_H
#include <stdbool.h>
#include <stddef.h>

#include "ovtrace/read/load.h"

/* Whether n files (paths) are best read a whole file per thread, on `threads` threads:
 * at least two files per thread (and a multiple of the threads, or four per thread or
 * more), each a Chrome trace file that can be opened again (not a pipe, not an Nsight
 * Systems database), none larger than a thread's share. */
bool LoadMany_wanted(const char *const *paths, size_t n, int threads);

/* Reads paths[0..n) into t as Load_chromeFile would one after another (the same
 * model, sources, skips and warnings), parsing on `threads` threads; opt's progress
 * and observe callbacks are called on this thread, in file order. False with err (the
 * first failing file's error, as the one-by-one read gives it) on failure, t then
 * holding the files before it. *started: false when no thread could be started (t
 * untouched: read the files one by one). */
bool LoadMany_read(Trace *t, const char *const *paths, size_t n, const LoadOptions *opt, int threads, bool *started,
                   char *err, size_t errlen);

#endif
