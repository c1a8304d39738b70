/* The compressed-output writer (include/ovtrace/base/zwriter.h). */
#include "ovtrace/base/zwriter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "ovtrace/base/file.h"

ZComp ZComp_forPath(const char *path) {
    size_t n = strlen(path);
    if (n >= 3 && !strcmp(path + n - 3, ".gz")) return ZCOMP_GZIP;
    if (n >= 4 && !strcmp(path + n - 4, ".zst")) return ZCOMP_ZSTD;
    return ZCOMP_PLAIN;
}

bool ZSink_fd(void *fd, const void *p, size_t n) { return File_writeAll((int)(intptr_t)fd, p, n, -1); }

bool ZSink_buf(void *zbuf, const void *p, size_t n) {
    ZBuf *b = zbuf;
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->len < n) cap += cap / 2 + n;
        char *q = realloc(b->p, cap);
        if (!q) {
            errno = ENOMEM;
            return false;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return true;
}

static bool fail(ZWriter *w, const char *what, const char *detail) {
    if (!w->failed) snprintf(w->err, sizeof w->err, "%s: %s", what, detail);
    w->failed = true;
    return false;
}

static bool give(ZWriter *w, const void *p, size_t n) {
    if (n && !w->sink(w->ctx, p, n)) return fail(w, "write failed", strerror(errno));
    return true;
}

/* hands the compressed bytes on when the buffer is full, or all of them when `all` */
static bool drain(ZWriter *w, bool all) {
    if (w->olen < (all ? 1 : w->ocap)) return true;
    size_t n = w->olen;
    w->olen = 0;
    return give(w, w->obuf, n);
}

bool ZWriter_open(ZWriter *w, ZComp comp, ZSinkFn sink, void *ctx, char *err, size_t errlen) {
    memset(w, 0, sizeof *w);
    w->comp = comp;
    w->sink = sink;
    w->ctx = ctx;
    if (comp == ZCOMP_PLAIN) return true;
    w->ocap = comp == ZCOMP_ZSTD ? ZSTD_CStreamOutSize() : (size_t)1 << 17;
    w->obuf = malloc(w->ocap);
    if (comp == ZCOMP_GZIP) {
        w->gz = calloc(1, sizeof *w->gz);
        if (w->gz && deflateInit2(w->gz, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            free(w->gz);
            w->gz = NULL;
        }
    } else {
        w->zs = ZSTD_createCCtx();
        if (w->zs) {
            ZSTD_CCtx_setParameter(w->zs, ZSTD_c_compressionLevel, 3);
            ZSTD_CCtx_setParameter(w->zs, ZSTD_c_checksumFlag, 1);
        }
    }
    if (w->obuf && (w->gz || w->zs)) return true;
    w->failed = true;
    snprintf(w->err, sizeof w->err, "cannot start %s output", comp == ZCOMP_GZIP ? "gzip" : "zstd");
    snprintf(err, errlen, "%s", w->err);
    return false;
}

/* Runs deflate over the pending input with flush until it needs more input (Z_NO_FLUSH)
 * or the member is complete (Z_FINISH). */
static bool gz_run(ZWriter *w, int flush) {
    z_stream *z = w->gz;
    for (;;) {
        z->next_out = (Bytef *)w->obuf + w->olen;
        z->avail_out = (uInt)(w->ocap - w->olen);
        int rc = deflate(z, flush);
        w->olen = w->ocap - z->avail_out;
        if (rc == Z_STREAM_ERROR) return fail(w, "gzip compression failed", z->msg ? z->msg : "zlib error");
        if (!drain(w, false)) return false;
        if (flush == Z_FINISH ? rc == Z_STREAM_END : z->avail_in == 0 && w->olen < w->ocap) return true;
    }
}

static bool zs_run(ZWriter *w, const void *p, size_t n, ZSTD_EndDirective end) {
    ZSTD_inBuffer in = {p, n, 0};
    for (;;) {
        ZSTD_outBuffer ob = {w->obuf, w->ocap, w->olen};
        size_t r = ZSTD_compressStream2(w->zs, &ob, &in, end);
        w->olen = ob.pos;
        if (ZSTD_isError(r)) return fail(w, "zstd compression failed", ZSTD_getErrorName(r));
        if (!drain(w, false)) return false;
        if (end == ZSTD_e_end ? r == 0 : in.pos == in.size) return true;
    }
}

bool ZWriter_write(ZWriter *w, const void *p, size_t n) {
    if (w->failed) return false;
    if (!n) return true;
    w->in_frame = true;
    switch (w->comp) {
    case ZCOMP_PLAIN: return give(w, p, n);
    case ZCOMP_ZSTD: return zs_run(w, p, n, ZSTD_e_continue);
    case ZCOMP_GZIP:
        while (n) { /* deflate takes an unsigned count */
            uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
            w->gz->next_in = (Bytef *)p;
            w->gz->avail_in = k;
            if (!gz_run(w, Z_NO_FLUSH)) return false;
            p = (const char *)p + k;
            n -= k;
        }
        return true;
    }
    return true;
}

bool ZWriter_endFrame(ZWriter *w) {
    if (w->failed) return false;
    w->in_frame = false;
    if (w->comp == ZCOMP_ZSTD && !zs_run(w, NULL, 0, ZSTD_e_end)) return false;
    if (w->comp == ZCOMP_GZIP) {
        w->gz->next_in = NULL;
        w->gz->avail_in = 0;
        if (!gz_run(w, Z_FINISH)) return false;
        deflateReset(w->gz); /* the next write begins a new member, with its own header */
    }
    return drain(w, true);
}

bool ZWriter_frame(ZWriter *w, const void *p, size_t n) {
    if (w->failed) return false;
    if (w->comp != ZCOMP_ZSTD || w->in_frame || !n) return ZWriter_write(w, p, n) && ZWriter_endFrame(w);
    size_t cap = ZSTD_compressBound(n);
    char *o = malloc(cap);
    if (!o) return fail(w, "zstd compression failed", "out of memory");
    size_t r = ZSTD_compress2(w->zs, o, cap, p, n); /* the session's level and checksum */
    bool ok = ZSTD_isError(r) ? fail(w, "zstd compression failed", ZSTD_getErrorName(r)) : drain(w, true) && give(w, o, r);
    free(o);
    return ok;
}

void ZWriter_free(ZWriter *w) {
    if (w->gz) deflateEnd(w->gz);
    free(w->gz);
    ZSTD_freeCCtx(w->zs);
    free(w->obuf);
    w->gz = NULL;
    w->zs = NULL;
    w->obuf = NULL;
}
