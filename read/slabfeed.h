/* Parallel parsing of compressed input in bounded memory.
 *
 * A plain file is mapped, so the parallel loader splits it at guessed element
 * boundaries. A .gz/.zst stream has no mapping: a reader thread decompresses it into
 * slabs (4 MB by default: they stay in cache between the decompressor and the parser)
 * and guesses, near the start of each, where an array element begins. Each slab also receives the next slab's first bytes up to that slab's guess,
 * so the slice [guess of slab k, guess of slab k+1) is contiguous in slab k. Worker
 * threads parse the slices in stream order; the main parser reads the stream through
 * SlabFeed_read and, at each element start, asks SlabFeed_take for a slice beginning
 * exactly there, as with mapped slices: landing on a guess proves it. A slice whose
 * guess the parser passed (it sat inside a string, or before the event array) is
 * dropped. At most a few slabs are alive at once, whatever the decompressed size. */
#ifndef OVTRACE_SLABFEED_H
#define OVTRACE_SLABFEED_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ovtrace/read/input.h"

typedef struct {
    const char *mem;   /* readable bytes [mem, mem + len); mem[0] is stream offset base */
    size_t len;
    uint64_t base;
    const char *start; /* the guessed first element */
    const char *stop;  /* the next slice's guessed first element, or NULL (the last slice) */
    atomic_int *abort; /* becomes non-zero when the main parser has passed the slice */
} SlabSlice;

/* Parses a slice on a worker thread; the result goes to whoever takes the slice. */
typedef void *(*SlabParseFn)(void *ctx, const SlabSlice *s);

typedef struct SlabFeed SlabFeed;

/* Starts the reader and `workers` worker threads on in (which must not be read by
 * anyone else until SlabFeed_stop). NULL if threads cannot be started. */
SlabFeed *SlabFeed_start(Input *in, int workers, size_t slab_bytes, SlabParseFn fn, void *ctx,
                         void (*free_result)(void *));
/* Up to n bytes of the stream at the feed position, from one slab at a time (short at a
 * slab's end, so the parser meets the next slice before reading it). Returns the count,
 * 0 at the end of the stream, -1 when the stream is corrupt there. */
ssize_t SlabFeed_read(SlabFeed *f, char *dst, size_t n);
/* The main parser is at an element starting at stream offset off (within what it has
 * read). Returns the parsed result of a slice beginning exactly there (waiting for it),
 * or NULL. Slices beginning before off are dropped. Cheap when no slice is near. */
void *SlabFeed_take(SlabFeed *f, uint64_t off);
/* Moves the feed position forward to off (past a taken slice). */
void SlabFeed_seek(SlabFeed *f, uint64_t off);
/* Compressed bytes consumed up to the slab being fed, for progress. */
uint64_t SlabFeed_compressedOffset(SlabFeed *f);
/* Stops and joins every thread, frees slabs and untaken results. NULL is fine. */
void SlabFeed_stop(SlabFeed *f);

#endif
