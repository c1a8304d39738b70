/* A byte source for the loaders: plain files are memory-mapped; gzip and zstd are
 * recognised by their magic bytes (not the extension) and decompressed as a stream,
 * so memory stays bounded whatever the decompressed size. */
#ifndef OVTRACE_INPUT_H
#define OVTRACE_INPUT_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* COMP_SQLITE: not a compression but the format, an Nsight Systems SQLite export
 * (TraceSource.compression; read/load_nsys.c reads it, never through Input) */
typedef enum { COMP_NONE, COMP_GZIP, COMP_ZSTD, COMP_SQLITE } InputCompression;

typedef struct Input Input;

/* "-" is standard input. Regular files are mapped; anything else is streamed. */
Input *Input_open(const char *path, char *err, size_t errlen);
/* Input_open whose waits on a stream (a FIFO without a writer yet, a quiet pipe) end
 * within 100 ms of *cancel becoming non-zero: reads then fail with "cancelled". */
Input *Input_openCancellable(const char *path, const atomic_int *cancel, char *err, size_t errlen);
void Input_close(Input *in);
InputCompression Input_compression(const Input *in);
const char *Input_compressionName(InputCompression c);
uint64_t Input_fileSize(const Input *in);
/* Compressed bytes consumed so far (for progress on compressed input). */
uint64_t Input_fileOffset(const Input *in);
/* Plain files: the whole content, mapped. NULL for compressed input. */
const char *Input_map(const Input *in, size_t *len);
/* Reads up to n decompressed bytes. Returns the count, 0 at end of stream, -1 on a
 * corrupt stream (message in Input_error). */
ssize_t Input_read(Input *in, void *buf, size_t n);
/* Compressed input decompresses on a read-ahead thread where there is more than one
 * core; a caller that reads from its own thread turns that off before the first read. */
void Input_noReadAhead(Input *in);
/* -1 never read ahead, 1 always (even on one core), 0 where there are 2+ cores
 * (LoadOptions.read_ahead; tests compare both paths). Before the first read. */
void Input_setReadAhead(Input *in, int mode);
/* Plain regular files only: n bytes at off with pread (not the mapping, so a file that
 * shrank since gives a short count, never SIGBUS). -1 for other inputs. */
ssize_t Input_pread(const Input *in, void *buf, size_t n, uint64_t off);
/* A pipe, FIFO, character device or "-" (stdin): read once, in order, through
 * Input_read (Input_map is NULL even for plain text). */
bool Input_isStream(const Input *in);
/* Whether path can be opened again for the same bytes (a regular file, not "-"). */
bool Input_canReopen(const char *path);
/* True when a compressed stream ended before its end marker (a truncated file). */
bool Input_truncated(const Input *in);
const char *Input_error(const Input *in);
/* Something ignored that the user should hear about (trailing garbage after gzip
 * data), or "". Final once the stream has been read to its end. */
const char *Input_warning(const Input *in);

/* Largest zstd window accepted, log2 (default 31, zstd's maximum: `zstd --long=31`
 * frames load; the decoder reserves the window a frame asks for, 2 GB at most, and
 * touches it only as data arrives). The fuzz targets lower it (fuzz_common.h). */
extern int Input_zstdWindowLogMax;
/* Caps the zstd window at the smallest power of two >= bytes, but never below zstd's
 * own default limit (128 MiB: every frame written without --long loads) nor above
 * Input_zstdWindowLogMax. The decoder's memory grows to the window a frame asks for as
 * data arrives, so the loader ties it to --max-token; a frame that wants more fails
 * with a message saying what it needs. Call before the first read. */
void Input_setWindowMax(Input *in, uint64_t bytes);

/* Tests only: called with the path right after a plain file is mapped (a test
 * truncates it there to check that readers of the mapping survive). NULL: none. */
extern void (*Input_mappedHook)(const char *path);

#endif
