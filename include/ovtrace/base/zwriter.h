/* The compressed-output writer: export, record and the rank simulator write gzip, zstd
 * or plain text, chosen by the output's name, through it.
 *
 * Bytes go in with ZWriter_write; compressed bytes come out through a sink (a file
 * descriptor, a memory buffer) in order. ZWriter_endFrame ends the zstd frame or gzip
 * member so that everything written so far is a complete stream; the next write begins
 * a new one, and decoders read the concatenation as one text (record appends a frame
 * per checkpoint). zstd is level 3 with a checksum per frame, gzip level 6. Where the
 * file goes (temporary file, rename, streaming) is the caller's: outpath.h. */
#ifndef OVTRACE_BASE_ZWRITER_H
#define OVTRACE_BASE_ZWRITER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { ZCOMP_PLAIN, ZCOMP_GZIP, ZCOMP_ZSTD } ZComp;

/* By the name: "*.gz" gzip, "*.zst" zstd, anything else plain. */
ZComp ZComp_forPath(const char *path);

/* Takes n compressed bytes; false (errno set) stops the writer. */
typedef bool (*ZSinkFn)(void *ctx, const void *p, size_t n);

/* Sinks: a file descriptor passed as (void *)(intptr_t)fd, written in order (File_writeAll);
 * a growing memory buffer. */
bool ZSink_fd(void *fd, const void *p, size_t n);
typedef struct {
    char *p;
    size_t len, cap;
} ZBuf;
bool ZSink_buf(void *zbuf, const void *p, size_t n);

typedef struct {
    ZComp comp;
    ZSinkFn sink;
    void *ctx;
    struct z_stream_s *gz;
    struct ZSTD_CCtx_s *zs;
    char *obuf; /* compressed bytes not yet given to the sink */
    size_t olen, ocap;
    bool in_frame; /* written to since the last ZWriter_endFrame */
    bool failed;
    char err[256]; /* why, once failed: "write failed: No space left on device" */
} ZWriter;

/* False with err set ("cannot start zstd output") when the compressor cannot start;
 * ZWriter_free is still to be called. */
bool ZWriter_open(ZWriter *w, ZComp comp, ZSinkFn sink, void *ctx, char *err, size_t errlen);
/* False once the writer failed (w->err says why); later calls do nothing. */
bool ZWriter_write(ZWriter *w, const void *p, size_t n);
bool ZWriter_endFrame(ZWriter *w);
/* ZWriter_write then ZWriter_endFrame, for a whole frame at hand: zstd compresses it in
 * one pass (streaming costs ~15% more on a 20 MB checkpoint). */
bool ZWriter_frame(ZWriter *w, const void *p, size_t n);
/* Frees the compressor; what a frame not ended holds is dropped. */
void ZWriter_free(ZWriter *w);

#endif
