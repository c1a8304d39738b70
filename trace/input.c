#include "ovtrace/input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "util.h"

#define IN_CHUNK (1u << 20)
/* Read-ahead: a thread decompresses into a few blocks while the parser works on the
 * previous ones, so a .zst loads at parser speed and a .gz at zlib speed, not at the
 * sum of both. Memory stays bounded: RA_BLOCKS x RA_BLOCK. */
#define RA_BLOCKS 4
#define RA_BLOCK (4u << 20)

typedef struct {
    unsigned char *data;
    size_t len, pos;
    uint64_t file_off; /* compressed bytes consumed once this block was complete */
    int end;           /* 0: more follows; 1: end of stream; -1: error after this block */
} Block;

typedef struct {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t can_fill, can_take;
    Block blk[RA_BLOCKS];
    size_t head, count; /* blocks [head, head + count) are filled */
    bool stop;
    /* published with the last block: what the consumer sees once it gets there */
    bool truncated;
    char err[160];
    /* consumer side only */
    int final; /* after the last block: 0 end, -1 error, 2 not yet */
    uint64_t off;
} ReadAhead;

struct Input {
    int fd;
    InputCompression comp;
    uint64_t size;
    const char *map; /* plain: whole file */
    size_t map_len;
    unsigned char *inbuf; /* compressed bytes read from fd */
    size_t in_len, in_pos;
    uint64_t file_off;
    bool file_eof, stream_end, truncated;
    z_stream z;
    ZSTD_DStream *zs;
    char err[160];
    ReadAhead *ra; /* compressed input on a machine with more than one core */
    bool ra_tried;
};

const char *Input_compressionName(InputCompression c) {
    return c == COMP_GZIP ? "gzip" : c == COMP_ZSTD ? "zstd" : "plain";
}

Input *Input_open(const char *path, char *err, size_t errlen) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", path, S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
        close(fd);
        return NULL;
    }
    Input *in = xcalloc(1, sizeof *in);
    in->fd = fd;
    in->size = (uint64_t)st.st_size;
    unsigned char magic[4] = {0};
    ssize_t m = pread(fd, magic, sizeof magic, 0);
    if (m >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        in->comp = COMP_GZIP;
        /* 15+32: auto-detect gzip header; concatenated members are handled in read */
        if (inflateInit2(&in->z, 15 + 32) != Z_OK) {
            snprintf(err, errlen, "%s: zlib init failed", path);
            Input_close(in);
            return NULL;
        }
    } else if (m == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd) {
        in->comp = COMP_ZSTD;
        in->zs = ZSTD_createDStream();
        ZSTD_initDStream(in->zs);
    } else {
        in->comp = COMP_NONE;
        if (in->size > 0) {
            void *p = mmap(NULL, in->size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p == MAP_FAILED) {
                snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
                Input_close(in);
                return NULL;
            }
            madvise(p, in->size, MADV_SEQUENTIAL);
            in->map = p;
            in->map_len = in->size;
        }
        return in;
    }
    in->inbuf = xmalloc(IN_CHUNK);
    return in;
}

static void ra_stop(Input *in);

void Input_close(Input *in) {
    if (!in) return;
    ra_stop(in);
    if (in->map) munmap((void *)in->map, in->map_len);
    if (in->comp == COMP_GZIP) inflateEnd(&in->z);
    if (in->zs) ZSTD_freeDStream(in->zs);
    free(in->inbuf);
    if (in->fd >= 0) close(in->fd);
    free(in);
}

InputCompression Input_compression(const Input *in) { return in->comp; }
uint64_t Input_fileSize(const Input *in) { return in->size; }
uint64_t Input_fileOffset(const Input *in) {
    if (in->comp == COMP_NONE) return 0;
    return in->ra ? in->ra->off : in->file_off;
}
/* With read-ahead, truncation and errors show once the consumer reaches them. */
bool Input_truncated(const Input *in) { return in->ra ? in->ra->final != 2 && in->ra->truncated : in->truncated; }
const char *Input_error(const Input *in) { return in->ra ? (in->ra->final == -1 ? in->ra->err : "") : in->err; }

const char *Input_map(const Input *in, size_t *len) {
    if (in->comp != COMP_NONE) return NULL;
    *len = in->map_len;
    return in->map;
}

static bool refill(Input *in) {
    if (in->in_pos < in->in_len) return true;
    if (in->file_eof) return false;
    ssize_t r;
    do r = read(in->fd, in->inbuf, IN_CHUNK);
    while (r < 0 && errno == EINTR);
    if (r <= 0) {
        in->file_eof = true;
        return false;
    }
    in->in_len = (size_t)r;
    in->in_pos = 0;
    in->file_off += (uint64_t)r;
    return true;
}

static ssize_t read_gzip(Input *in, unsigned char *out, size_t n) {
    size_t got = 0;
    while (got < n) {
        if (in->stream_end) {
            /* another gzip member may follow (cat a.gz b.gz) */
            if (!refill(in)) return (ssize_t)got;
            inflateReset(&in->z);
            in->stream_end = false;
        }
        if (!refill(in)) {
            in->truncated = true; /* input ended inside a member */
            return (ssize_t)got;
        }
        in->z.next_in = in->inbuf + in->in_pos;
        in->z.avail_in = (uInt)(in->in_len - in->in_pos);
        in->z.next_out = out + got;
        in->z.avail_out = (uInt)(n - got > (1u << 30) ? (1u << 30) : n - got);
        uInt before_out = in->z.avail_out;
        int rc = inflate(&in->z, Z_NO_FLUSH);
        in->in_pos = in->in_len - in->z.avail_in;
        got += before_out - in->z.avail_out;
        if (rc == Z_STREAM_END) {
            in->stream_end = true;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(in->err, sizeof in->err, "corrupt gzip stream near compressed byte %llu: %s",
                     (unsigned long long)(in->file_off - (in->in_len - in->in_pos)),
                     in->z.msg ? in->z.msg : "inflate error");
            return -1;
        }
    }
    return (ssize_t)got;
}

static ssize_t read_zstd(Input *in, unsigned char *out, size_t n) {
    ZSTD_outBuffer ob = {out, n, 0};
    while (ob.pos < ob.size) {
        if (!refill(in)) {
            /* a frame that never completed means the writer died mid-stream */
            if (!in->stream_end) in->truncated = true;
            break;
        }
        ZSTD_inBuffer ib = {in->inbuf, in->in_len, in->in_pos};
        size_t rc = ZSTD_decompressStream(in->zs, &ob, &ib);
        in->in_pos = ib.pos;
        if (ZSTD_isError(rc)) {
            snprintf(in->err, sizeof in->err, "corrupt zstd stream near compressed byte %llu: %s",
                     (unsigned long long)(in->file_off - (in->in_len - in->in_pos)), ZSTD_getErrorName(rc));
            return -1;
        }
        in->stream_end = rc == 0;
    }
    return (ssize_t)ob.pos;
}

static ssize_t read_stream(Input *in, unsigned char *buf, size_t n) {
    return in->comp == COMP_GZIP ? read_gzip(in, buf, n) : read_zstd(in, buf, n);
}

/* ---------- read-ahead ---------- */

static void *ra_main(void *arg) {
    Input *in = arg;
    ReadAhead *ra = in->ra;
    for (;;) {
        pthread_mutex_lock(&ra->mu);
        while (ra->count == RA_BLOCKS && !ra->stop) pthread_cond_wait(&ra->can_fill, &ra->mu);
        if (ra->stop) {
            pthread_mutex_unlock(&ra->mu);
            return NULL;
        }
        Block *b = &ra->blk[(ra->head + ra->count) % RA_BLOCKS];
        pthread_mutex_unlock(&ra->mu);
        ssize_t r = read_stream(in, b->data, RA_BLOCK); /* this slot is ours until published */
        pthread_mutex_lock(&ra->mu);
        b->len = r > 0 ? (size_t)r : 0;
        b->pos = 0;
        b->file_off = in->file_off - (in->in_len - in->in_pos);
        b->end = r < 0 ? -1 : (size_t)r < RA_BLOCK ? 1 : 0;
        if (b->end) {
            ra->truncated = in->truncated;
            memcpy(ra->err, in->err, sizeof ra->err);
        }
        ra->count++;
        pthread_cond_signal(&ra->can_take);
        bool last = b->end != 0;
        pthread_mutex_unlock(&ra->mu);
        if (last) return NULL;
    }
}

static void ra_start(Input *in) {
    in->ra_tried = true;
    const char *env = getenv("OVTRACE_READ_AHEAD");
    if (env ? !strcmp(env, "0") : sysconf(_SC_NPROCESSORS_ONLN) < 2) return;
    ReadAhead *ra = xcalloc(1, sizeof *ra);
    for (int i = 0; i < RA_BLOCKS; i++) ra->blk[i].data = xmalloc(RA_BLOCK);
    pthread_mutex_init(&ra->mu, NULL);
    pthread_cond_init(&ra->can_fill, NULL);
    pthread_cond_init(&ra->can_take, NULL);
    ra->final = 2;
    in->ra = ra;
    if (pthread_create(&ra->th, NULL, ra_main, in) != 0) { /* read synchronously instead */
        in->ra = NULL;
        for (int i = 0; i < RA_BLOCKS; i++) free(ra->blk[i].data);
        free(ra);
    }
}

static void ra_stop(Input *in) {
    ReadAhead *ra = in->ra;
    if (!ra) return;
    pthread_mutex_lock(&ra->mu);
    ra->stop = true;
    pthread_cond_signal(&ra->can_fill);
    pthread_mutex_unlock(&ra->mu);
    pthread_join(ra->th, NULL);
    pthread_mutex_destroy(&ra->mu);
    pthread_cond_destroy(&ra->can_fill);
    pthread_cond_destroy(&ra->can_take);
    for (int i = 0; i < RA_BLOCKS; i++) free(ra->blk[i].data);
    free(ra);
    in->ra = NULL;
}

static ssize_t ra_read(ReadAhead *ra, unsigned char *out, size_t n) {
    size_t got = 0;
    while (got < n && ra->final == 2) {
        pthread_mutex_lock(&ra->mu);
        while (ra->count == 0) pthread_cond_wait(&ra->can_take, &ra->mu);
        Block *b = &ra->blk[ra->head];
        pthread_mutex_unlock(&ra->mu);
        size_t k = b->len - b->pos < n - got ? b->len - b->pos : n - got;
        memcpy(out + got, b->data + b->pos, k);
        b->pos += k;
        got += k;
        ra->off = b->file_off;
        if (b->pos == b->len) { /* hand the block back */
            int end = b->end;
            pthread_mutex_lock(&ra->mu);
            ra->head = (ra->head + 1) % RA_BLOCKS;
            ra->count--;
            pthread_cond_signal(&ra->can_fill);
            pthread_mutex_unlock(&ra->mu);
            if (end) ra->final = end < 0 ? -1 : 0;
        }
    }
    if (got == 0 && ra->final == -1) return -1;
    return (ssize_t)got;
}

void Input_noReadAhead(Input *in) { in->ra_tried = true; }

ssize_t Input_read(Input *in, void *buf, size_t n) {
    if (in->comp != COMP_NONE) {
        if (!in->ra_tried) ra_start(in);
        return in->ra ? ra_read(in->ra, buf, n) : read_stream(in, buf, n);
    }
    /* plain input is read from the mapping by callers; support read for uniformity */
    size_t left = in->map_len - in->in_pos;
    size_t k = n < left ? n : left;
    if (k) memcpy(buf, in->map + in->in_pos, k);
    in->in_pos += k;
    return (ssize_t)k;
}
