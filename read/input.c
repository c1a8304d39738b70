#include "ovtrace/read/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "ovtrace/base/alloc.h"

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
    char err[160], warn[160];
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
    int ra_mode; /* Input_setReadAhead: -1 off, 0 auto, 1 on */
    bool stream;      /* a pipe, FIFO, socket, character device or stdin: read once, in order */
    bool failed;      /* err is set: reported once the bytes decoded before it are read */
    char warn[160];   /* e.g. trailing garbage after the last gzip member */
    uint64_t frame_start; /* zstd: compressed offset of the frame being decoded */
    const atomic_int *cancel; /* Input_openCancellable: the caller's cancel request */
    int window_log;             /* zstd: the largest window accepted, log2 */
};

void (*Input_mappedHook)(const char *path);
int Input_zstdWindowLogMax = 31;

const char *Input_compressionName(InputCompression c) {
    return c == COMP_GZIP ? "gzip" : c == COMP_ZSTD ? "zstd" : "plain";
}

/* read(2) of the input's fd. A stream is polled first, in 100 ms steps when a cancel
 * request can come, so a FIFO whose writer never comes or goes quiet never holds up a
 * cancelled load (-1, ECANCELED); without a writer yet, poll waits for one where a
 * read would return end of file. */
static ssize_t fd_read(Input *in, void *buf, size_t n) {
    for (;;) {
        if (in->stream) {
            if (in->cancel && *in->cancel) {
                errno = ECANCELED;
                return -1;
            }
            struct pollfd p = {.fd = in->fd, .events = POLLIN};
            int k = poll(&p, 1, in->cancel ? 100 : -1);
            if (k < 0 && errno != EINTR) return -1;
            if (k <= 0) continue;
        }
        ssize_t r = read(in->fd, buf, n);
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        return r;
    }
}

/* Reads up to n bytes (a pipe may return them a few at a time); -1 on error. */
static ssize_t read_full(Input *in, unsigned char *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = fd_read(in, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return got ? (ssize_t)got : -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* zstd frames, and skippable frames (0x184D2A50..5F, little-endian), which the
 * decoder skips: a file may begin with one. */
static bool zstd_magic(const unsigned char *m) {
    return (m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) ||
           ((m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18);
}

bool Input_canReopen(const char *path) {
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* "-" is standard input; a FIFO is opened once (a second open would wait for a writer
 * that is gone), without waiting for its writer (O_NONBLOCK, cleared at once: the
 * reads wait instead, where a cancel request reaches them). */
static int open_fd(const char *path) {
    if (!strcmp(path, "-")) return fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

Input *Input_open(const char *path, char *err, size_t errlen) { return Input_openCancellable(path, NULL, err, errlen); }

Input *Input_openCancellable(const char *path, const atomic_int *cancel, char *err, size_t errlen) {
    int fd = open_fd(path);
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
    in->cancel = cancel;
    /* only regular files are mapped: anything else is read as a stream, once */
    in->stream = !S_ISREG(st.st_mode);
    in->size = in->stream ? 0 : (uint64_t)st.st_size;
    unsigned char magic[4] = {0};
    ssize_t m;
    if (in->stream) { /* the magic stays in inbuf: the stream cannot be read again */
        in->inbuf = xmalloc(IN_CHUNK);
        m = read_full(in, in->inbuf, sizeof magic);
        if (m < 0) {
            snprintf(err, errlen, "%s: %s", path, errno == ECANCELED ? "cancelled" : strerror(errno));
            Input_close(in);
            return NULL;
        }
        memcpy(magic, in->inbuf, (size_t)m);
        in->in_len = (size_t)m;
        in->file_off = (uint64_t)m;
    } else {
        m = pread(fd, magic, sizeof magic, 0);
    }
    if (m >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        in->comp = COMP_GZIP;
        /* 15+32: auto-detect gzip header; concatenated members are handled in read */
        if (inflateInit2(&in->z, 15 + 32) != Z_OK) {
            snprintf(err, errlen, "%s: zlib init failed", path);
            Input_close(in);
            return NULL;
        }
    } else if (m == 4 && zstd_magic(magic)) {
        in->comp = COMP_ZSTD;
        in->zs = ZSTD_createDStream();
        ZSTD_initDStream(in->zs);
        /* frames written with --long (up to 2 GB windows) load here; a loader lowers
         * the limit to its --max-token before the first read */
        Input_setWindowMax(in, UINT64_MAX);
    } else {
        in->comp = COMP_NONE;
        if (in->stream) return in; /* plain text read through Input_read */
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
            if (Input_mappedHook) Input_mappedHook(path);
        }
        return in;
    }
    if (!in->inbuf) in->inbuf = xmalloc(IN_CHUNK);
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
const char *Input_warning(const Input *in) { return in->ra ? (in->ra->final != 2 ? in->ra->warn : "") : in->warn; }
bool Input_isStream(const Input *in) { return in->stream; }

ssize_t Input_pread(const Input *in, void *buf, size_t n, uint64_t off) {
    if (in->comp != COMP_NONE || in->stream) return -1;
    size_t got = 0;
    while (got < n) { /* read, not the mapping: the file may have shrunk since */
        ssize_t r = pread(in->fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

const char *Input_map(const Input *in, size_t *len) {
    if (in->comp != COMP_NONE) return NULL;
    *len = in->map_len;
    return in->map;
}

static bool refill(Input *in) {
    if (in->in_pos < in->in_len) return true;
    if (in->file_eof) return false;
    ssize_t r;
    r = fd_read(in, in->inbuf, IN_CHUNK);
    if (r <= 0) {
        in->file_eof = true;
        return false;
    }
    in->in_len = (size_t)r;
    in->in_pos = 0;
    in->file_off += (uint64_t)r;
    return true;
}

/* At least k bytes buffered from in_pos if the file has them; returns how many are. */
static size_t buffered(Input *in, size_t k) {
    size_t have = in->in_len - in->in_pos;
    if (have >= k || in->file_eof) return have;
    memmove(in->inbuf, in->inbuf + in->in_pos, have);
    in->in_pos = 0;
    in->in_len = have;
    while (in->in_len < k) {
        ssize_t r = fd_read(in, in->inbuf + in->in_len, IN_CHUNK - in->in_len);
        if (r <= 0) {
            in->file_eof = true;
            break;
        }
        in->in_len += (size_t)r;
        in->file_off += (uint64_t)r;
    }
    return in->in_len - in->in_pos;
}

static uint64_t comp_pos(const Input *in) { return in->file_off - (in->in_len - in->in_pos); }

static ssize_t read_gzip(Input *in, unsigned char *out, size_t n) {
    size_t got = 0;
    while (got < n && !in->failed) {
        if (in->stream_end) {
            if (!refill(in)) return (ssize_t)got;
            /* another gzip member may follow (cat a.gz b.gz); anything else is garbage,
             * which gzip -d ignores with a warning: so do we */
            if (buffered(in, 2) < 2 || in->inbuf[in->in_pos] != 0x1f || in->inbuf[in->in_pos + 1] != 0x8b) {
                snprintf(in->warn, sizeof in->warn, "trailing garbage after the gzip data ignored (from compressed byte %llu)",
                         (unsigned long long)comp_pos(in));
                in->in_pos = in->in_len;
                in->file_eof = true;
                return (ssize_t)got;
            }
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
                     (unsigned long long)comp_pos(in), in->z.msg ? in->z.msg : "inflate error");
            in->failed = true; /* the bytes decoded before it are returned first */
        }
    }
    return got == 0 && in->failed ? -1 : (ssize_t)got;
}

static ssize_t read_zstd(Input *in, unsigned char *out, size_t n) {
    ZSTD_outBuffer ob = {out, n, 0};
    while (ob.pos < ob.size && !in->failed) {
        if (!refill(in)) {
            /* a frame that never completed means the writer died mid-stream */
            if (!in->stream_end) in->truncated = true;
            break;
        }
        ZSTD_inBuffer ib = {in->inbuf, in->in_len, in->in_pos};
        size_t rc = ZSTD_decompressStream(in->zs, &ob, &ib);
        in->in_pos = ib.pos;
        if (ZSTD_isError(rc) && ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge) {
            snprintf(in->err, sizeof in->err,
                     "zstd frame at compressed byte %llu needs a window over %llu MiB, more than --max-token allows "
                     "(raise --max-token to load it)",
                     (unsigned long long)in->frame_start, (unsigned long long)(UINT64_C(1) << in->window_log) >> 20);
            in->failed = true;
            break;
        }
        if (ZSTD_isError(rc)) {
            /* the decoder does not say how far into its input it got: name the frame */
            snprintf(in->err, sizeof in->err, "corrupt zstd stream (frame at compressed byte %llu): %s",
                     (unsigned long long)in->frame_start, ZSTD_getErrorName(rc));
            in->failed = true; /* the bytes decoded before it are returned first */
            break;
        }
        in->stream_end = rc == 0;
        if (rc == 0) in->frame_start = comp_pos(in);
    }
    return ob.pos == 0 && in->failed ? -1 : (ssize_t)ob.pos;
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
        b->end = r < 0 || in->failed ? -1 : (size_t)r < RA_BLOCK ? 1 : 0;
        if (b->end) {
            ra->truncated = in->truncated;
            memcpy(ra->err, in->err, sizeof ra->err);
            memcpy(ra->warn, in->warn, sizeof ra->warn);
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
    if (in->ra_mode ? in->ra_mode < 0 : sysconf(_SC_NPROCESSORS_ONLN) < 2) return;
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

/* The decoder's own default limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT, in zstd's unstable
 * API): frames written without --long never ask for more. */
#define ZSTD_DEFAULT_WINDOW_LOG 27

void Input_setWindowMax(Input *in, uint64_t bytes) {
    if (in->comp != COMP_ZSTD) return;
    int lim = sizeof(size_t) == 4 && Input_zstdWindowLogMax > 30 ? 30 : Input_zstdWindowLogMax;
    int log = ZSTD_DEFAULT_WINDOW_LOG < lim ? ZSTD_DEFAULT_WINDOW_LOG : lim;
    while (log < lim && (UINT64_C(1) << log) < bytes) log++;
    in->window_log = log;
    ZSTD_DCtx_setParameter(in->zs, ZSTD_d_windowLogMax, log);
}

void Input_noReadAhead(Input *in) { in->ra_tried = true; }

void Input_setReadAhead(Input *in, int mode) { in->ra_mode = mode; }

ssize_t Input_read(Input *in, void *buf, size_t n) {
    if (in->comp != COMP_NONE) {
        if (!in->ra_tried) ra_start(in);
        return in->ra ? ra_read(in->ra, buf, n) : read_stream(in, buf, n);
    }
    if (in->stream) { /* plain text from a pipe: what Input_open read first, then the fd */
        size_t got = 0;
        if (in->in_pos < in->in_len) {
            got = in->in_len - in->in_pos < n ? in->in_len - in->in_pos : n;
            memcpy(buf, in->inbuf + in->in_pos, got);
            in->in_pos += got;
        }
        while (got < n && !in->file_eof && !in->failed) {
            ssize_t r = fd_read(in, (char *)buf + got, n - got);
            if (r < 0) {
                snprintf(in->err, sizeof in->err, "read error at byte %llu: %s", (unsigned long long)in->file_off,
                         strerror(errno));
                in->failed = true;
            } else if (r == 0) {
                in->file_eof = true;
            } else {
                got += (size_t)r;
                in->file_off += (uint64_t)r;
                break; /* one read per call: a pipe gives what it has */
            }
        }
        return got == 0 && in->failed ? -1 : (ssize_t)got;
    }
    /* plain input is read from the mapping by callers; support read for uniformity */
    size_t left = in->map_len - in->in_pos;
    size_t k = n < left ? n : left;
    if (k) memcpy(buf, in->map + in->in_pos, k);
    in->in_pos += k;
    return (ssize_t)k;
}
