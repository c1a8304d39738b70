/* Fuzz target: the loader on compressed input. The first byte picks the mode:
 *   0: gzip-wrap the rest (a valid stream around fuzzed JSON)
 *   1: zstd-wrap the rest
 *   2: gzip-wrap, then cut the compressed stream at a fuzzed length (a writer that died)
 *   3: zstd-wrap and cut likewise
 *   4: raw bytes after the gzip magic (a corrupt gzip stream)
 *   5: raw bytes after the zstd magic (a corrupt zstd stream)
 *   6: two concatenated gzip members (cat a.gz b.gz), the data split in two
 * The streaming decompression window, its truncation and error reporting, and the
 * same analyses as fuzz_load run on whatever loads. */
#include <zlib.h>
#include <zstd.h>

#include "fuzz_common.h"

static size_t gz_wrap(const uint8_t *in, size_t n, uint8_t *out, size_t cap, int level) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
    size_t len = cap - z.avail_out;
    deflateEnd(&z);
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int mode = data[0] % 7;
    const uint8_t *d = data + 1;
    size_t n = size - 1;
    size_t cut = 0;
    if ((mode == 2 || mode == 3) && n >= 2) { /* the cut point comes from two more bytes */
        cut = (size_t)d[0] | (size_t)d[1] << 8;
        d += 2;
        n -= 2;
    }
    size_t cap = 2 * n + ZSTD_compressBound(n) + 256;
    uint8_t *buf = malloc(cap);
    size_t len = 0;
    switch (mode) {
    case 0:
    case 2: len = gz_wrap(d, n, buf, cap, n & 1 ? 1 : 6); break;
    case 1:
    case 3: {
        size_t r = ZSTD_compress(buf, cap, d, n, 1);
        if (ZSTD_isError(r)) abort();
        len = r;
        break;
    }
    case 4:
        buf[0] = 0x1f, buf[1] = 0x8b;
        memcpy(buf + 2, d, n);
        len = n + 2;
        break;
    case 5:
        buf[0] = 0x28, buf[1] = 0xb5, buf[2] = 0x2f, buf[3] = 0xfd;
        memcpy(buf + 4, d, n);
        len = n + 4;
        break;
    case 6: {
        size_t half = n / 2;
        len = gz_wrap(d, half, buf, cap, 6);
        len += gz_wrap(d + half, n - half, buf + len, cap - len, 1);
        break;
    }
    }
    if ((mode == 2 || mode == 3) && len) len = cut % (len + 1);
    fz_load_bytes(buf, len);
    free(buf);
    return 0;
}
