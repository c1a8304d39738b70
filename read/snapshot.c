/* Snapshot cache file (docs/cache.md):
 *
 *   "OVTSNAP1" u32 version u32 0x01020304          16 bytes
 *   column frames                                  one zstd frame each (checksummed)
 *   header frame                                   zstd: identity, counts, sources, diag, frame table
 *   u64 header offset, u64 header size,            32 bytes
 *   u32 header CRC-32, u32 0, "OVTSEND1"
 *
 * Events are cut into blocks of EV_BLOCK; each block holds one frame per field (ts and
 * src delta-coded, cls left out), so a block decodes on one thread into its own span of
 * the event array (no two threads write one cache line but at block edges). Lanes and
 * groups are packed field by field (no struct padding in the file); rows, flows,
 * flow_by_to, string lengths and the string arena decompress straight into their final
 * arrays. Every frame must carry zstd's content checksum and its exact size, and has a
 * CRC-32 of its compressed bytes (zstd's checksum covers the content, not the frame
 * header, where some bits change nothing decoded); every index is bounds-checked. So
 * a damaged or foreign file is a miss, never a model. */
#include "ovtrace/read/snapshot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/atomicfile.h"
#include "ovtrace/base/clock.h"
#include "ovtrace/base/file.h"
#include "ovtrace/base/hash.h"
#include "ovtrace/model/parfor.h"

#define SNAP_MAGIC "OVTSNAP1"
#define SNAP_END "OVTSEND1"
/* Bumped whenever the file format or what the loader puts in the model changes, so a
 * snapshot never serves a model this build would not load (2: counter values as the
 * nearest double, B/E paired per thread; 3: times of a source with baseTimeNanoseconds
 * are base + ts; 4: a truncated compressed input's compression and compressed end). */
#define SNAP_VERSION 4u
#define SNAP_ENDIAN 0x01020304u
#define SNAP_PREFIX 16
#define SNAP_TRAILER 32
#define EV_BLOCK (128u * 1024u) /* events per block: 5 MB of model, ~10 blocks per 1M events */
#define ZLEVEL 3
#define HEADER_MAX (256u << 20) /* sources' metadata included; more is not a header */

/* The model as this file stores it. Adding a field to these structs must add it to
 * the snapshot (and bump SNAP_VERSION): these asserts make sure someone looks. */
_Static_assert(sizeof(TraceEvent) == 40 && offsetof(TraceEvent, lane) == 32, "TraceEvent changed: update snapshot.c");
_Static_assert(sizeof(Row) == 24 && sizeof(Flow) == 16, "Row/Flow changed: update snapshot.c");
_Static_assert(sizeof(Lane) == 96 && offsetof(Lane, n_rows) == 92, "Lane changed: update snapshot.c");
_Static_assert(sizeof(Group) == 48 && offsetof(Group, n_lanes) == 44, "Group changed: update snapshot.c");
_Static_assert(sizeof(TraceSource) == 56 && offsetof(TraceSource, base_time_ns) == 48,
               "TraceSource changed: update snapshot.c");
_Static_assert(sizeof(TraceDiag) == 168 && offsetof(TraceDiag, truncated_comp_end) == 160,
               "TraceDiag changed: update snapshot.c");
#define EV_BITS_OFF 36 /* kind, cls, flags, depth: the one 32-bit unit after lane */

/* event fields, one frame each per block */
enum { F_TS, F_DUR, F_SRC, F_NAME, F_CORR, F_LANE, F_BITS, F__EV };
static const size_t EV_WIDTH[F__EV] = {8, 8, 8, 4, 4, 4, 4};
/* the other arrays, one frame each, after the blocks */
enum { A_LANES, A_ROWS, A_GROUPS, A_FLOWS, A_FLOW_BY_TO, A_STR_LENS, A_STR_BLOB, A__COUNT };
#define LANE_REC 81  /* packed Lane */
#define GROUP_REC 41 /* packed Group */

static uint32_t cls_mask(void) {
    TraceEvent e;
    memset(&e, 0, sizeof e);
    e.cls = 7;
    uint32_t m;
    memcpy(&m, (const char *)&e + EV_BITS_OFF, 4);
    return m;
}

/* ---------- identity: inputs and the build that wrote the file ---------- */

bool Snapshot_fileId(const char *path, SnapshotFileId *id) {
    struct stat st;
    if (stat(path, &st) != 0) return false;
    *id = (SnapshotFileId){(uint64_t)st.st_size, (uint64_t)st.st_ino, (uint64_t)st.st_dev,
                           (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
                           (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec};
    return true;
}

/* What changed, or NULL. */
static const char *file_id_diff(const SnapshotFileId *a, const SnapshotFileId *b) {
    if (a->size != b->size) return "size changed";
    if (a->mtime_ns != b->mtime_ns) return "modified (mtime changed)";
    if (a->ino != b->ino || a->dev != b->dev) return "replaced (inode changed)";
    if (a->ctime_ns != b->ctime_ns) return "changed (ctime changed)";
    return NULL;
}

typedef struct {
    uintptr_t addr;
    uint8_t id[64];
    size_t len;
    char file[PATH_MAX];
} BuildQuery;

static int find_build(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    BuildQuery *q = data;
    bool mine = false;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == PT_LOAD && q->addr >= lo && q->addr - lo < p->p_memsz) mine = true;
    }
    if (!mine) return 0;
    snprintf(q->file, sizeof q->file, "%s", info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe");
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_NOTE) continue;
        size_t al = p->p_align == 8 ? 8 : 4;
        const uint8_t *n = (const uint8_t *)(info->dlpi_addr + p->p_vaddr), *end = n + p->p_memsz;
        while ((size_t)(end - n) >= sizeof(ElfW(Nhdr))) {
            ElfW(Nhdr) h;
            memcpy(&h, n, sizeof h);
            size_t name_sz = (h.n_namesz + al - 1) & ~(al - 1), desc_sz = (h.n_descsz + al - 1) & ~(al - 1);
            const uint8_t *name = n + sizeof h, *desc = name + name_sz;
            if (name_sz > (size_t)(end - name) || desc_sz > (size_t)(end - desc)) break;
            if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                h.n_descsz <= sizeof q->id) {
                memcpy(q->id, desc, h.n_descsz);
                q->len = h.n_descsz;
                return 1;
            }
            n = desc + desc_sz;
        }
    }
    return 1;
}

/* The parser that made a model is part of its identity: a snapshot is only read by the
 * build that wrote it. The ELF build id of the object holding this code, else that
 * file's size and mtime. */
static size_t build_id(uint8_t out[64]) {
    BuildQuery q = {.addr = (uintptr_t)(void *)build_id};
    dl_iterate_phdr(find_build, &q);
    if (q.len) {
        memcpy(out, q.id, q.len);
        return q.len;
    }
    SnapshotFileId f = {0};
    Snapshot_fileId(q.file[0] ? q.file : "/proc/self/exe", &f);
    memcpy(out, &f.size, 8);
    memcpy(out + 8, &f.mtime_ns, 8);
    return 16;
}

/* ---------- cache location ---------- */

bool Snapshot_cacheDir(const char *x, const char *home, char *out, size_t outlen) {
    int r;
    if (x && x[0] == '/') r = snprintf(out, outlen, "%s/ovtrace", x); /* relative values are to be ignored (XDG spec) */
    else if (home && *home) r = snprintf(out, outlen, "%s/.cache/ovtrace", home);
    else return false;
    return r > 0 && (size_t)r < outlen;
}

bool Snapshot_cachePath(const char *dir, const char *const *inputs, size_t n, char *out, size_t outlen) {
    if (!dir || !*dir) return false;
    uint64_t h = HASH_FNV_INIT; /* FNV-1a over the absolute paths, each with its NUL */
    for (size_t i = 0; i < n; i++) {
        char abs[PATH_MAX];
        if (!realpath(inputs[i], abs)) return false;
        h = Hash_fnv1a(h, abs, strlen(abs) + 1);
    }
    int r = snprintf(out, outlen, "%s/%016" PRIx64 ".ovsnap", dir, h);
    return r > 0 && (size_t)r < outlen;
}

/* ---------- header (de)serialisation ---------- */

typedef struct {
    uint8_t *p;
    size_t n, cap;
} Buf;

static void b_put(Buf *b, const void *d, size_t n) {
    GROW(b->p, b->cap, b->n + n);
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void b_u8(Buf *b, uint8_t v) { b_put(b, &v, 1); }
static void b_u32(Buf *b, uint32_t v) { b_put(b, &v, 4); }
static void b_u64(Buf *b, uint64_t v) { b_put(b, &v, 8); }
static void b_str(Buf *b, const char *s) { /* NULL stays NULL */
    uint32_t len = s ? (uint32_t)strlen(s) : UINT32_MAX;
    b_u32(b, len);
    if (s) b_put(b, s, len);
}

typedef struct {
    const uint8_t *p, *end;
    bool ok;
} Rd;

static void r_get(Rd *r, void *d, size_t n) {
    if (!r->ok || (size_t)(r->end - r->p) < n) {
        r->ok = false;
        memset(d, 0, n);
        return;
    }
    memcpy(d, r->p, n);
    r->p += n;
}
static uint8_t r_u8(Rd *r) {
    uint8_t v;
    r_get(r, &v, 1);
    return v;
}
static uint32_t r_u32(Rd *r) {
    uint32_t v;
    r_get(r, &v, 4);
    return v;
}
static uint64_t r_u64(Rd *r) {
    uint64_t v;
    r_get(r, &v, 8);
    return v;
}
static char *r_str(Rd *r) {
    uint32_t len = r_u32(r);
    if (!r->ok || len == UINT32_MAX) return NULL;
    if ((size_t)(r->end - r->p) < len) {
        r->ok = false;
        return NULL;
    }
    char *s = xstrndup((const char *)r->p, len);
    r->p += len;
    return s;
}

/* A diag path is one of the sources' (stored by index, renamed with them) or itself. */
static void b_diag_path(Buf *b, const Trace *t, const char *p) {
    int32_t k = p ? -2 : -1;
    for (size_t i = 0; p && i < t->n_sources; i++)
        if (!strcmp(p, t->sources[i].path)) k = (int32_t)i;
    b_u32(b, (uint32_t)k);
    if (k == -2) b_str(b, p);
}
static char *r_diag_path(Rd *r, const char *const *inputs, size_t n) {
    int32_t k = (int32_t)r_u32(r);
    if (k == -2) return r_str(r);
    if (k >= 0 && (size_t)k < n) return xstrdup(inputs[k]);
    if (k != -1) r->ok = false;
    return NULL;
}

/* ---------- writing ---------- */

typedef struct {
    int fd;
    ZSTD_CCtx *cc;
    uint8_t *out;
    size_t out_cap;
    uint64_t pos;
    const char *fail;
    int err_no;
    uLong crc;        /* of the bytes written since the frame began */
    uint64_t *frames; /* offset, size, CRC-32 of each frame */
    size_t n_frames, cap_frames;
} Writer;

static void w_raw(Writer *w, const void *p, size_t n) {
    if (w->fail || !n) return;
    if (!File_writeAll(w->fd, p, n, -1)) {
        w->fail = "write";
        w->err_no = errno;
        return;
    }
    w->crc = crc32_z(w->crc, (const Bytef *)p, n);
    w->pos += n;
}

/* One frame holding exactly src[0..n). */
static void w_frame(Writer *w, const void *src, size_t n) {
    if (w->fail) return;
    uint64_t start = w->pos;
    w->crc = crc32_z(0, NULL, 0);
    ZSTD_CCtx_reset(w->cc, ZSTD_reset_session_only);
    ZSTD_CCtx_setPledgedSrcSize(w->cc, n);
    ZSTD_inBuffer in = {src, n, 0};
    for (size_t rem = 1; rem && !w->fail;) {
        ZSTD_outBuffer out = {w->out, w->out_cap, 0};
        rem = ZSTD_compressStream2(w->cc, &out, &in, ZSTD_e_end);
        if (ZSTD_isError(rem)) {
            w->fail = ZSTD_getErrorName(rem);
            return;
        }
        w_raw(w, w->out, out.pos);
    }
    GROW(w->frames, w->cap_frames, w->n_frames * 3 + 3);
    w->frames[w->n_frames * 3] = start;
    w->frames[w->n_frames * 3 + 1] = w->pos - start;
    w->frames[w->n_frames * 3 + 2] = w->crc;
    w->n_frames++;
}

/* Field f of events [i0, i0+n) as stored, into dst. */
static void ev_column(const Trace *t, int f, size_t i0, size_t n, uint8_t *dst, uint32_t clsmask) {
    const TraceEvent *e = t->events + i0;
    uint64_t prev = 0; /* deltas restart at each block, which decodes on its own */
    uint32_t prev32 = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t v;
        uint32_t u;
        switch (f) {
        case F_TS:
            v = (uint64_t)e[k].ts - prev; /* sorted within rows: small and positive */
            prev = (uint64_t)e[k].ts;
            memcpy(dst + 8 * k, &v, 8);
            break;
        case F_DUR: memcpy(dst + 8 * k, &e[k].dur, 8); break; /* or a counter's value: the bits */
        case F_SRC:
            v = e[k].src - prev;
            prev = e[k].src;
            memcpy(dst + 8 * k, &v, 8);
            break;
        case F_NAME: memcpy(dst + 4 * k, &e[k].name, 4); break;
        case F_CORR:
            u = e[k].corr - prev32;
            prev32 = e[k].corr;
            memcpy(dst + 4 * k, &u, 4);
            break;
        case F_LANE: memcpy(dst + 4 * k, &e[k].lane, 4); break;
        default:
            memcpy(&u, (const char *)&e[k] + EV_BITS_OFF, 4);
            u &= ~clsmask; /* classification is redone with the rules of each run */
            memcpy(dst + 4 * k, &u, 4);
        }
    }
}

#define PUT(p, v) (memcpy((p), &(v), sizeof(v)), (p) += sizeof(v))
#define GET(p, v) (memcpy(&(v), (p), sizeof(v)), (p) += sizeof(v))

static void pack_lane(uint8_t *p, const Lane *l) {
    uint8_t gpu = l->gpu;
    uint64_t first = l->first, count = l->count;
    PUT(p, gpu), PUT(p, l->rank), PUT(p, l->source), PUT(p, l->pid), PUT(p, l->tid), PUT(p, l->device);
    PUT(p, l->stream), PUT(p, l->name), PUT(p, l->sort_index), PUT(p, l->group), PUT(p, first), PUT(p, count);
    PUT(p, l->first_row), PUT(p, l->n_rows);
}
static void unpack_lane(const uint8_t *p, Lane *l) {
    uint8_t gpu;
    uint64_t first, count;
    memset(l, 0, sizeof *l);
    GET(p, gpu), GET(p, l->rank), GET(p, l->source), GET(p, l->pid), GET(p, l->tid), GET(p, l->device);
    GET(p, l->stream), GET(p, l->name), GET(p, l->sort_index), GET(p, l->group), GET(p, first), GET(p, count);
    GET(p, l->first_row), GET(p, l->n_rows);
    l->gpu = gpu != 0;
    l->first = (size_t)first;
    l->count = (size_t)count;
}
static void pack_group(uint8_t *p, const Group *g) {
    uint8_t gpu = g->gpu;
    PUT(p, gpu), PUT(p, g->rank), PUT(p, g->source), PUT(p, g->id), PUT(p, g->name), PUT(p, g->label);
    PUT(p, g->sort_index), PUT(p, g->first_lane), PUT(p, g->n_lanes);
}
static void unpack_group(const uint8_t *p, Group *g) {
    uint8_t gpu;
    memset(g, 0, sizeof *g);
    GET(p, gpu), GET(p, g->rank), GET(p, g->source), GET(p, g->id), GET(p, g->name), GET(p, g->label);
    GET(p, g->sort_index), GET(p, g->first_lane), GET(p, g->n_lanes);
    g->gpu = gpu != 0;
}

static bool mkdirs(const char *dir) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1;; s++) {
        if (*s == '/' || !*s) {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0700) != 0 && errno != EEXIST) return false;
            *s = c;
            if (!c) break;
        }
    }
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether the cache directory can be trusted: ours and writable by us alone (else
 * another user could plant or swap snapshots). Fills why when not. */
static bool dir_trusted(const char *dir, char *why, size_t whylen) {
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(why, whylen, "%s: %s", dir, strerror(errno));
        return false;
    }
    if (st.st_uid != geteuid()) {
        snprintf(why, whylen, "%s: the cache directory is owned by uid %ld, not by this user (uid %ld): ignored", dir,
                 (long)st.st_uid, (long)geteuid());
        return false;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, whylen, "%s: the cache directory is writable by %s (mode %03o): ignored", dir,
                 st.st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st.st_mode & 0777));
        return false;
    }
    return true;
}

/* The cache directory stays under a size cap (CacheOptions.max_bytes: $OVTRACE_CACHE_MAX_MB):
 * the snapshots used least recently go first (a hit touches its file's mtime).
 * Snapshots of inputs that no longer exist (temp files) age out this way. */
typedef struct {
    char name[NAME_MAX + 1];
    int64_t mtime;
    uint64_t size;
} CacheEntry;

static int cmp_entry_age(const void *a, const void *b) {
    const CacheEntry *x = a, *y = b;
    return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

static void evict(const char *dir, const char *keep, uint64_t cap) {
    if (!cap) cap = SNAPSHOT_DEFAULT_MAX_BYTES;
    DIR *d = opendir(dir);
    if (!d) return;
    CacheEntry *e = NULL;
    size_t n = 0, cap_e = 0;
    uint64_t total = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t l = strlen(de->d_name);
        struct stat st;
        char p[PATH_MAX];
        if (l < 7 || strcmp(de->d_name + l - 7, ".ovsnap") ||
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name) >= (int)sizeof p || stat(p, &st) != 0)
            continue;
        GROW(e, cap_e, n + 1);
        snprintf(e[n].name, sizeof e[n].name, "%s", de->d_name);
        e[n].mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        e[n].size = (uint64_t)st.st_size;
        total += e[n++].size;
    }
    closedir(d);
    if (n) qsort(e, n, sizeof *e, cmp_entry_age);
    for (size_t i = 0; i < n && total > cap; i++) {
        if (!strcmp(e[i].name, keep)) continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", dir, e[i].name) < (int)sizeof p && unlink(p) == 0) total -= e[i].size;
    }
    free(e);
}

bool Snapshot_save(const Trace *t, const char *const *inputs, size_t n, const SnapshotFileId *ids,
                   const char *cache_path, uint64_t max_bytes, char *err, size_t errlen) {
    if (t->build) {
        snprintf(err, errlen, "the trace is not finished");
        return false;
    }
    if (t->n_sources != n || n == 0) {
        snprintf(err, errlen, "%zu sources for %zu inputs", t->n_sources, n);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(t->sources[i].path, inputs[i])) {
            snprintf(err, errlen, "source %zu is not %s", i, inputs[i]);
            return false;
        }
    char dir[PATH_MAX], base[NAME_MAX + 1];
    const char *slash = strrchr(cache_path, '/');
    if (!slash || slash == cache_path || (size_t)(slash - cache_path) >= sizeof dir ||
        strlen(slash + 1) > NAME_MAX - 24) { /* room for the temporary ".NAME.tmp-PID-XXXXXX" */
        snprintf(err, errlen, "%s: not a usable cache path", cache_path);
        return false;
    }
    memcpy(dir, cache_path, (size_t)(slash - cache_path));
    dir[slash - cache_path] = '\0';
    snprintf(base, sizeof base, "%s", slash + 1);

    /* identity of the inputs: as loading found them, and still so now */
    char **abs = xcalloc(n, sizeof *abs);
    SnapshotFileId *now = xcalloc(n, sizeof *now);
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        char a[PATH_MAX];
        const char *why = NULL;
        if (!realpath(inputs[i], a) || !Snapshot_fileId(inputs[i], &now[i])) why = strerror(errno);
        else if (ids && (why = file_id_diff(&ids[i], &now[i]))) why = "changed while it was loaded";
        if (why) {
            snprintf(err, errlen, "%s: %s", inputs[i], why);
            ok = false;
            break;
        }
        abs[i] = xstrdup(a);
    }
    char real_dir[PATH_MAX];
    if (ok && (!mkdirs(dir) || !realpath(dir, real_dir))) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        ok = false;
    }
    /* 0700, even when it existed with a looser mode (it holds models of the user's
     * traces, and a writable one could be fed snapshots); another user's is refused.
     * A cache directory that is a symlink points somewhere the user set up (a shared
     * 2775 directory, say): its mode is left alone, and dir_trusted decides. */
    struct stat dst, lst;
    bool linked = lstat(dir, &lst) == 0 && S_ISLNK(lst.st_mode);
    if (ok && !linked && stat(real_dir, &dst) == 0 && dst.st_uid == geteuid() && (dst.st_mode & 077))
        chmod(real_dir, 0700);
    if (ok && !dir_trusted(real_dir, err, errlen)) ok = false;
    /* never beside an input, never over one */
    struct stat cst;
    bool have_cache = ok && stat(cache_path, &cst) == 0;
    for (size_t i = 0; ok && i < n; i++) {
        const char *s = strrchr(abs[i], '/');
        size_t dl = (size_t)(s - abs[i]);
        if ((dl == strlen(real_dir) && !strncmp(abs[i], real_dir, dl)) || (dl == 0 && !strcmp(real_dir, "/"))) {
            snprintf(err, errlen, "%s: an input lives in the cache directory", inputs[i]);
            ok = false;
        } else if (have_cache && cst.st_ino == now[i].ino && cst.st_dev == now[i].dev) {
            snprintf(err, errlen, "%s: the cache path is an input", cache_path);
            ok = false;
        }
    }
    /* beside the snapshot, 0600 whatever an old one had; the temporary files of writers
     * that died (killed mid-save) are removed */
    AtomicFile file = ATOMICFILE_NONE;
    Writer w = {.fd = -1};
    ok = ok && AtomicFile_open(&file, cache_path, 0600, false, err, errlen);
    w.fd = file.fd;
    w.cc = ok ? ZSTD_createCCtx() : NULL;
    if (ok && !w.cc) {
        snprintf(err, errlen, "out of memory");
        AtomicFile_free(&file);
        ok = false;
    }
    if (!ok) {
        for (size_t i = 0; i < n; i++) free(abs[i]);
        free(abs);
        free(now);
        return false;
    }

    ZSTD_CCtx_setParameter(w.cc, ZSTD_c_compressionLevel, ZLEVEL);
    ZSTD_CCtx_setParameter(w.cc, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(w.cc, ZSTD_c_contentSizeFlag, 1);
    w.out_cap = ZSTD_CStreamOutSize();
    w.out = xmalloc(w.out_cap);
    uint8_t prefix[SNAP_PREFIX];
    uint32_t ver = SNAP_VERSION, endian = SNAP_ENDIAN;
    memcpy(prefix, SNAP_MAGIC, 8);
    memcpy(prefix + 8, &ver, 4);
    memcpy(prefix + 12, &endian, 4);
    w_raw(&w, prefix, sizeof prefix);

    /* events, block by block */
    uint32_t clsmask = cls_mask();
    uint8_t *col = xmalloc((size_t)EV_BLOCK * 8);
    for (size_t b0 = 0; b0 < t->n_events && !w.fail; b0 += EV_BLOCK) {
        size_t bn = t->n_events - b0 < EV_BLOCK ? t->n_events - b0 : EV_BLOCK;
        for (int f = 0; f < F__EV; f++) {
            ev_column(t, f, b0, bn, col, clsmask);
            w_frame(&w, col, bn * EV_WIDTH[f]);
        }
    }
    free(col);
    /* the other arrays */
    uint8_t *rec = xmalloc((t->n_lanes > t->n_groups ? t->n_lanes : t->n_groups) * LANE_REC + 1);
    for (size_t i = 0; i < t->n_lanes; i++) pack_lane(rec + i * LANE_REC, &t->lanes[i]);
    w_frame(&w, rec, t->n_lanes * LANE_REC);
    w_frame(&w, t->rows, t->n_rows * sizeof *t->rows);
    for (size_t i = 0; i < t->n_groups; i++) pack_group(rec + i * GROUP_REC, &t->groups[i]);
    w_frame(&w, rec, t->n_groups * GROUP_REC);
    free(rec);
    w_frame(&w, t->flows, t->n_flows * sizeof *t->flows);
    w_frame(&w, t->flow_by_to, t->n_flows * sizeof *t->flow_by_to);
    size_t n_str = StrTab_count(t->strings), arena_len;
    uint32_t *lens = xmalloc(n_str * sizeof *lens + 1);
    for (size_t i = 0; i < n_str; i++) lens[i] = (uint32_t)StrTab_len(t->strings, (uint32_t)i);
    w_frame(&w, lens, n_str * sizeof *lens);
    free(lens);
    const char *arena = StrTab_arena(t->strings, &arena_len);
    w_frame(&w, arena, arena_len);

    /* header */
    Buf h = {0};
    b_u32(&h, SNAP_ENDIAN);
    const uint32_t sizes[] = {sizeof(TraceEvent), sizeof(Lane),        sizeof(Row),      sizeof(Group),
                              sizeof(Flow),       sizeof(TraceSource), sizeof(TraceDiag), EV_BLOCK};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) b_u32(&h, sizes[i]);
    uint8_t bid[64];
    size_t bl = build_id(bid);
    b_u32(&h, (uint32_t)bl);
    b_put(&h, bid, bl);
    b_u32(&h, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        b_str(&h, abs[i]);
        b_u64(&h, now[i].size), b_u64(&h, now[i].ino), b_u64(&h, now[i].dev);
        b_u64(&h, (uint64_t)now[i].mtime_ns), b_u64(&h, (uint64_t)now[i].ctime_ns);
    }
    b_u64(&h, t->n_events), b_u64(&h, t->n_lanes), b_u64(&h, t->n_rows), b_u64(&h, t->n_groups);
    b_u64(&h, t->n_flows), b_u64(&h, n_str), b_u64(&h, arena_len);
    b_u64(&h, (uint64_t)t->t_min), b_u64(&h, (uint64_t)t->t_max), b_u8(&h, t->simulated);
    for (size_t i = 0; i < n; i++) {
        const TraceSource *s = &t->sources[i];
        b_u32(&h, (uint32_t)s->rank), b_u32(&h, (uint32_t)s->world_size), b_u32(&h, (uint32_t)s->compression);
        b_str(&h, s->display_time_unit), b_str(&h, s->trace_name), b_str(&h, s->meta_json);
        b_u64(&h, (uint64_t)s->base_time_ns);
    }
    const TraceDiag *d = &t->diag;
    b_u64(&h, d->skipped), b_u64(&h, d->ignored), b_u64(&h, d->parallel_slices), b_u64(&h, d->first_skip_offset);
    b_diag_path(&h, t, d->first_skip_path);
    b_put(&h, d->first_skip_reason, sizeof d->first_skip_reason);
    b_u8(&h, d->truncated);
    b_diag_path(&h, t, d->truncated_path);
    b_u64(&h, d->truncated_offset);
    b_u32(&h, (uint32_t)d->truncated_compression), b_u64(&h, d->truncated_comp_end);
    b_u64(&h, w.n_frames);
    b_put(&h, w.frames, w.n_frames * 3 * sizeof *w.frames);
    uint64_t h_off = w.pos;
    w_frame(&w, h.p, h.n);
    uint8_t trailer[SNAP_TRAILER] = {0};
    uint64_t h_size = w.pos - h_off;
    uint32_t h_crc = (uint32_t)w.crc;
    memcpy(trailer, &h_off, 8);
    memcpy(trailer + 8, &h_size, 8);
    memcpy(trailer + 16, &h_crc, 4);
    memcpy(trailer + 24, SNAP_END, 8);
    w_raw(&w, trailer, sizeof trailer);
    free(h.p);
    free(w.out);
    free(w.frames);
    ZSTD_freeCCtx(w.cc);
    for (size_t i = 0; i < n; i++) free(abs[i]);
    free(abs);
    free(now);

    if (!w.fail && fsync(w.fd) != 0) w.fail = "fsync", w.err_no = errno;
    if (!AtomicFile_closeFd(&file) && !w.fail) w.fail = "close", w.err_no = errno;
    if (!w.fail && !AtomicFile_rename(&file)) w.fail = "rename", w.err_no = errno;
    if (w.fail) {
        snprintf(err, errlen, "%s: %s%s%s", file.tmp, w.fail, w.err_no ? ": " : "", w.err_no ? strerror(w.err_no) : "");
        AtomicFile_free(&file); /* removes the temporary file */
        return false;
    }
    AtomicFile_free(&file);
    evict(dir, base, max_bytes);
    return true;
}

bool Snapshot_saveDetached(const Trace *t, const char *const *inputs, size_t n, const SnapshotFileId *ids,
                           const char *cache_path, uint64_t max_bytes, void (*note)(void *ctx, const char *msg), void *ctx,
                           int *outcome_fd, char *err, size_t errlen) {
    int p[2] = {-1, -1};
    if (outcome_fd) *outcome_fd = -1;
    if (outcome_fd && pipe2(p, O_CLOEXEC) != 0) p[0] = p[1] = -1; /* the outcome goes unreported */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        if (p[0] >= 0) {
            close(p[0]);
            close(p[1]);
        }
        return false;
    }
    if (pid == 0) {
        /* the middle process exits at once: the writer is adopted by init, so it never
         * lingers as the caller's zombie, and the caller waits for nothing */
        pid_t wpid = fork();
        if (wpid != 0) _exit(wpid < 0 ? 1 : 0);
        setsid(); /* no controlling terminal: the viewer's Ctrl-C and hangup do not reach it */
        sigset_t all;
        sigemptyset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL); /* the caller's handlers restore its terminal */
        signal(SIGPIPE, SIG_IGN); /* a caller that stopped waiting for the outcome */
        setpriority(PRIO_PROCESS, 0, 10); /* the viewer keeps the CPU */
        /* a caller read through a pipe ($(ovtrace stats ...)) must not wait for the save,
         * and the caller's stderr is not ours to write once the caller has returned: the
         * outcome goes through its own pipe, on stdout */
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(p[1] >= 0 ? p[1] : null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
            if (null > STDERR_FILENO) close(null);
        }
        /* nor must any other pipe or file of the caller's stay open for the save */
        close_range(STDERR_FILENO + 1, ~0u, 0);
        double a = Clock_monotonicS();
        char e[768], msg[1024];
        bool ok = Snapshot_save(t, inputs, n, ids, cache_path, max_bytes, e, sizeof e);
        double b = Clock_monotonicS();
        struct stat st;
        if (ok && stat(cache_path, &st) == 0)
            snprintf(msg, sizeof msg, "saved %s (%.1f MB, %.2f s, detached)", cache_path, (double)st.st_size / 1e6,
                     b - a);
        else snprintf(msg, sizeof msg, "not saved: %s", e);
        if (note) note(ctx, msg);
        if (p[1] >= 0 && null >= 0) {
            size_t len = strlen(msg);
            msg[len] = '\n';
            ssize_t w = write(STDOUT_FILENO, msg, len + 1);
            (void)w; /* nobody reads it any more */
        }
        _exit(ok ? 0 : 1);
    }
    if (p[1] >= 0) close(p[1]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno == EINTR) continue;
        if (errno == ECHILD) { /* reaped by someone else's SIGCHLD handler */
            st = 0;
            break;
        }
        break;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "cannot start the saving process");
        if (p[0] >= 0) close(p[0]);
        return false;
    }
    if (outcome_fd) *outcome_fd = p[0];
    return true;
}

/* ---------- reading ---------- */

typedef struct {
    const uint8_t *file; /* the whole file */
    const uint64_t *frames;
    size_t n_blocks;
    Trace *t;
    uint8_t *lane_rec, *group_rec;
    uint32_t *str_lens;
    char *str_blob;
    size_t n_strings, blob_len;
    uint32_t clsmask;
    _Atomic int failed;
    char why[160];
} Reader;

static void fail(Reader *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(Reader *R, const char *fmt, ...) {
    if (atomic_exchange(&R->failed, 1)) return; /* the first reason is kept */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R->why, sizeof R->why, fmt, ap);
    va_end(ap);
}

/* Frame k into dst[0..raw): exactly one frame, with checksum and content size raw. */
static bool frame_into(Reader *R, ZSTD_DCtx *dc, size_t k, void *dst, size_t raw) {
    const uint8_t *src = R->file + R->frames[3 * k];
    size_t cs = (size_t)R->frames[3 * k + 1];
    if (crc32_z(0, src, cs) != R->frames[3 * k + 2]) {
        fail(R, "frame %zu is damaged (CRC)", k);
        return false;
    }
    /* byte 4 is the frame header descriptor; bit 2: content checksum present */
    if (cs < 6 || ZSTD_getFrameContentSize(src, cs) != raw || !(src[4] & 0x04) ||
        ZSTD_findFrameCompressedSize(src, cs) != cs) {
        fail(R, "frame %zu is damaged", k);
        return false;
    }
    size_t r = ZSTD_decompressDCtx(dc, dst, raw ? raw : 1, src, cs);
    if (ZSTD_isError(r) || r != raw) {
        fail(R, "frame %zu: %s", k, ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong size");
        return false;
    }
    return true;
}

/* A block decodes on one thread into its own span of the event array, one frame and
 * one loop per field: a frame (<= 1 MB) stays in cache while it is spread out, which
 * measured faster than decoding all seven first and writing each event whole. */
static void decode_block(Reader *R, ZSTD_DCtx *dc, size_t b, ParScratch *s) {
    Trace *t = R->t;
    size_t i0 = b * EV_BLOCK, n = t->n_events - i0 < EV_BLOCK ? t->n_events - i0 : EV_BLOCK;
    if (s->cap_a < (size_t)EV_BLOCK * 8) {
        free(s->a);
        s->cap_a = (s->a = malloc((size_t)EV_BLOCK * 8)) ? (size_t)EV_BLOCK * 8 : 0;
        if (!s->a) {
            fail(R, "out of memory");
            return;
        }
    }
    const uint8_t *col = s->a;
    TraceEvent *e = t->events + i0;
    uint32_t n_str = (uint32_t)R->n_strings, n_lanes = (uint32_t)t->n_lanes, clsmask = R->clsmask;
    for (int f = 0; f < F__EV; f++) {
        if (!frame_into(R, dc, b * F__EV + (size_t)f, s->a, n * EV_WIDTH[f])) return;
        uint64_t acc = 0, v;
        uint32_t acc32 = 0, u, bad = 0;
        switch (f) {
        case F_TS:
            for (size_t k = 0; k < n; k++) {
                memcpy(&v, col + 8 * k, 8);
                e[k].ts = (int64_t)(acc += v);
            }
            break;
        case F_DUR:
            for (size_t k = 0; k < n; k++) memcpy(&e[k].dur, col + 8 * k, 8);
            break;
        case F_SRC:
            for (size_t k = 0; k < n; k++) {
                memcpy(&v, col + 8 * k, 8);
                e[k].src = acc += v;
            }
            break;
        case F_NAME:
            for (size_t k = 0; k < n; k++) {
                memcpy(&u, col + 4 * k, 4);
                e[k].name = u;
                bad |= u >= n_str;
            }
            break;
        case F_CORR:
            for (size_t k = 0; k < n; k++) {
                memcpy(&u, col + 4 * k, 4);
                e[k].corr = acc32 += u;
            }
            break;
        case F_LANE:
            for (size_t k = 0; k < n; k++) {
                memcpy(&u, col + 4 * k, 4);
                e[k].lane = u;
                bad |= u >= n_lanes;
            }
            break;
        default:
            for (size_t k = 0; k < n; k++) {
                memcpy(&u, col + 4 * k, 4);
                bad |= u & clsmask; /* classes are never stored */
                memcpy((char *)&e[k] + EV_BITS_OFF, &u, 4);
                bad |= e[k].kind >= KIND__COUNT;
            }
        }
        if (bad) {
            fail(R, "events %zu..%zu hold out-of-range values", i0, i0 + n);
            return;
        }
    }
}

static void decode_item(void *ctx, uint32_t item, ParScratch *s) {
    Reader *R = ctx;
    if (atomic_load(&R->failed)) return;
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!dc) {
        fail(R, "out of memory");
        return;
    }
    Trace *t = R->t;
    if (item < R->n_blocks) {
        decode_block(R, dc, item, s);
    } else {
        size_t k = R->n_blocks * F__EV + (item - R->n_blocks);
        switch (item - R->n_blocks) {
        case A_LANES: frame_into(R, dc, k, R->lane_rec, t->n_lanes * LANE_REC); break;
        case A_ROWS: frame_into(R, dc, k, t->rows, t->n_rows * sizeof *t->rows); break;
        case A_GROUPS: frame_into(R, dc, k, R->group_rec, t->n_groups * GROUP_REC); break;
        case A_FLOWS: frame_into(R, dc, k, t->flows, t->n_flows * sizeof *t->flows); break;
        case A_FLOW_BY_TO: frame_into(R, dc, k, t->flow_by_to, t->n_flows * sizeof *t->flow_by_to); break;
        case A_STR_LENS: frame_into(R, dc, k, R->str_lens, R->n_strings * sizeof *R->str_lens); break;
        default: frame_into(R, dc, k, R->str_blob, R->blob_len);
        }
    }
    ZSTD_freeDCtx(dc);
}

static bool read_at(int fd, void *buf, size_t n, uint64_t off) {
    char *p = buf;
    while (n) {
        ssize_t k = pread(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return true;
}

/* Cross-references of the arrays, so no index in the model points outside it. */
static const char *check_model(const Trace *t, size_t n_str) {
    size_t ne = t->n_events;
    for (size_t i = 0; i < t->n_lanes; i++) {
        const Lane *l = &t->lanes[i];
        if (l->source >= t->n_sources || l->group >= t->n_groups || l->name >= n_str || l->first > ne ||
            l->count > ne - l->first || l->first_row > t->n_rows || l->n_rows > t->n_rows - l->first_row)
            return "a lane points outside the model";
    }
    for (size_t i = 0; i < t->n_rows; i++) {
        const Row *r = &t->rows[i];
        if (r->lane >= t->n_lanes || r->first > ne || r->count > ne - r->first) return "a row points outside the model";
    }
    for (size_t i = 0; i < t->n_groups; i++) {
        const Group *g = &t->groups[i];
        if (g->source >= t->n_sources || g->name >= n_str || g->label >= n_str || g->first_lane > t->n_lanes ||
            g->n_lanes > t->n_lanes - g->first_lane)
            return "a group points outside the model";
    }
    for (size_t i = 0; i < t->n_flows; i++) {
        const Flow *f = &t->flows[i];
        if (f->from >= ne || f->to >= ne || f->cat >= n_str || t->flow_by_to[i] >= t->n_flows)
            return "a flow points outside the model";
    }
    return NULL;
}

#define MISS(...)                                                                                                     \
    do {                                                                                                              \
        snprintf(why, whylen, __VA_ARGS__);                                                                           \
        goto out;                                                                                                     \
    } while (0)

Trace *Snapshot_load(const char *const *inputs, size_t n, const char *cache_path, int threads, char *why,
                     size_t whylen) {
    Trace *t = NULL;
    uint8_t *file = NULL, *hdr = NULL;
    uint64_t *frames = NULL;
    Reader R = {0};
    atomic_init(&R.failed, 0);
    bool ok = false;
    int fd = open(cache_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW); /* a planted symlink is not ours */
    if (fd < 0 && errno == ELOOP) MISS("%s: a symlink, not a snapshot written here: ignored", cache_path);
    if (fd < 0) MISS("%s: %s", cache_path, errno == ENOENT ? "no snapshot yet" : strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) MISS("%s: not a regular file", cache_path);
    /* trusted only when this user wrote it and nobody else can have changed it since */
    if (st.st_uid != geteuid())
        MISS("%s: owned by uid %ld, not by this user (uid %ld): ignored", cache_path, (long)st.st_uid,
             (long)geteuid());
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        MISS("%s: writable by %s (mode %03o): ignored", cache_path, st.st_mode & S_IWOTH ? "others" : "its group",
             (unsigned)(st.st_mode & 0777));
    {
        char dir[PATH_MAX];
        const char *slash = strrchr(cache_path, '/');
        int dl = slash ? (int)(slash - cache_path) : 1;
        snprintf(dir, sizeof dir, "%.*s", dl ? dl : 1, slash ? cache_path : ".");
        if (!dir_trusted(dir, why, whylen)) goto out;
    }
    uint64_t fsize = (uint64_t)st.st_size;
    uint8_t pre[SNAP_PREFIX], tr[SNAP_TRAILER];
    if (fsize < SNAP_PREFIX + SNAP_TRAILER || !read_at(fd, pre, sizeof pre, 0) ||
        !read_at(fd, tr, sizeof tr, fsize - SNAP_TRAILER))
        MISS("%s: truncated", cache_path);
    uint32_t ver, endian;
    memcpy(&ver, pre + 8, 4);
    memcpy(&endian, pre + 12, 4);
    if (memcmp(pre, SNAP_MAGIC, 8)) MISS("%s: not a snapshot", cache_path);
    if (ver != SNAP_VERSION || endian != SNAP_ENDIAN)
        MISS("%s: snapshot format %u, this build reads %u", cache_path, ver, SNAP_VERSION);
    uint64_t h_off, h_size;
    uint32_t h_crc, zero;
    memcpy(&h_off, tr, 8);
    memcpy(&h_size, tr + 8, 8);
    memcpy(&h_crc, tr + 16, 4);
    memcpy(&zero, tr + 20, 4);
    if (memcmp(tr + 24, SNAP_END, 8) || zero || h_off < SNAP_PREFIX || h_size > HEADER_MAX ||
        h_off + h_size != fsize - SNAP_TRAILER)
        MISS("%s: truncated or damaged (trailer)", cache_path);
    /* the whole file at once: the header first, the columns are what follows from it */
    file = malloc(fsize);
    if (!file) MISS("%s: out of memory", cache_path);
    if (!read_at(fd, file + h_off, h_size, h_off)) MISS("%s: read error", cache_path);
    const uint8_t *hs = file + h_off;
    if (crc32_z(0, hs, h_size) != h_crc) MISS("%s: damaged header (CRC)", cache_path);
    unsigned long long h_raw = ZSTD_getFrameContentSize(hs, h_size);
    if (h_raw == ZSTD_CONTENTSIZE_UNKNOWN || h_raw == ZSTD_CONTENTSIZE_ERROR || h_raw > HEADER_MAX || h_size < 6 ||
        !(hs[4] & 0x04))
        MISS("%s: damaged header", cache_path);
    hdr = malloc(h_raw ? h_raw : 1);
    if (!hdr) MISS("%s: out of memory", cache_path);
    size_t got = ZSTD_decompress(hdr, h_raw, hs, h_size);
    if (ZSTD_isError(got) || got != h_raw) MISS("%s: damaged header", cache_path);

    Rd r = {hdr, hdr + h_raw, true};
    const uint32_t sizes[] = {SNAP_ENDIAN,  sizeof(TraceEvent),  sizeof(Lane),      sizeof(Row),     sizeof(Group),
                              sizeof(Flow), sizeof(TraceSource), sizeof(TraceDiag), EV_BLOCK};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (r_u32(&r) != sizes[i]) MISS("%s: written for another model layout", cache_path);
    uint8_t bid[64], fbid[64];
    size_t bl = build_id(bid);
    uint32_t fbl = r_u32(&r);
    if (fbl > sizeof fbid) r.ok = false;
    r_get(&r, fbid, r.ok ? fbl : 0);
    if (!r.ok) MISS("%s: damaged header", cache_path);
    if (fbl != bl || memcmp(bid, fbid, bl)) MISS("%s: written by another build of ovtrace", cache_path);
    if (r_u32(&r) != n) MISS("%s: other inputs", cache_path);
    for (size_t i = 0; i < n; i++) {
        char *fa = r_str(&r), a[PATH_MAX];
        SnapshotFileId was, cur;
        was.size = r_u64(&r), was.ino = r_u64(&r), was.dev = r_u64(&r);
        was.mtime_ns = (int64_t)r_u64(&r), was.ctime_ns = (int64_t)r_u64(&r);
        bool same = r.ok && fa && realpath(inputs[i], a) && !strcmp(a, fa);
        free(fa);
        if (!r.ok) MISS("%s: damaged header", cache_path);
        if (!same) MISS("%s: other inputs", cache_path);
        if (!Snapshot_fileId(inputs[i], &cur)) MISS("%s: %s", inputs[i], strerror(errno));
        const char *d = file_id_diff(&was, &cur);
        if (d) MISS("%s: %s since the snapshot", inputs[i], d);
    }

    /* the inputs are those the snapshot was made of: build the model */
    t = xcalloc(1, sizeof *t);
    uint64_t ne = r_u64(&r), nl = r_u64(&r), nr = r_u64(&r), ng = r_u64(&r), nf = r_u64(&r);
    uint64_t ns = r_u64(&r), blob = r_u64(&r);
    /* indexes are 32-bit (Flow, lane ids); with file-size bounds no count can overflow a size */
    if (!r.ok || ne > UINT32_MAX || nl > UINT32_MAX || nr > UINT32_MAX || ng > UINT32_MAX || nf > UINT32_MAX ||
        ns > UINT32_MAX || ns == 0 || blob > UINT32_MAX)
        MISS("%s: damaged header", cache_path);
    t->t_min = (int64_t)r_u64(&r);
    t->t_max = (int64_t)r_u64(&r);
    t->simulated = r_u8(&r) != 0;
    t->sources = xcalloc(n, sizeof *t->sources);
    t->n_sources = n;
    for (size_t i = 0; i < n; i++) {
        TraceSource *s = &t->sources[i];
        s->path = xstrdup(inputs[i]);
        s->rank = (int32_t)r_u32(&r), s->world_size = (int32_t)r_u32(&r), s->compression = (int)r_u32(&r);
        s->display_time_unit = r_str(&r), s->trace_name = r_str(&r), s->meta_json = r_str(&r);
        s->base_time_ns = (int64_t)r_u64(&r);
    }
    TraceDiag *dg = &t->diag;
    dg->skipped = r_u64(&r), dg->ignored = r_u64(&r), dg->parallel_slices = r_u64(&r);
    dg->first_skip_offset = r_u64(&r);
    dg->first_skip_path = r_diag_path(&r, inputs, n);
    r_get(&r, dg->first_skip_reason, sizeof dg->first_skip_reason);
    dg->first_skip_reason[sizeof dg->first_skip_reason - 1] = '\0';
    dg->truncated = r_u8(&r) != 0;
    dg->truncated_path = r_diag_path(&r, inputs, n);
    dg->truncated_offset = r_u64(&r);
    dg->truncated_compression = (int)r_u32(&r);
    dg->truncated_comp_end = r_u64(&r);
    uint64_t n_frames = r_u64(&r);
    R.n_blocks = (ne + EV_BLOCK - 1) / EV_BLOCK;
    if (!r.ok || n_frames != R.n_blocks * F__EV + A__COUNT || (size_t)(r.end - r.p) != n_frames * 24)
        MISS("%s: damaged header", cache_path);
    frames = xmalloc(n_frames * 24);
    r_get(&r, frames, n_frames * 24);
    for (size_t k = 0; k < n_frames; k++) /* frames lie between the prefix and the header */
        if (frames[3 * k] < SNAP_PREFIX || frames[3 * k] > h_off || frames[3 * k + 1] > h_off - frames[3 * k])
            MISS("%s: damaged frame table", cache_path);
    if (!read_at(fd, file + SNAP_PREFIX, h_off - SNAP_PREFIX, SNAP_PREFIX)) MISS("%s: read error", cache_path);

    t->n_events = t->cap_events = ne;
    t->n_lanes = nl, t->n_rows = nr, t->n_groups = ng, t->n_flows = nf;
    t->events = malloc(ne ? ne * sizeof *t->events : 1);
    if (t->events && ne * sizeof *t->events >= (4u << 20)) { /* huge pages: 512x fewer first-touch faults */
        uintptr_t lo = ((uintptr_t)t->events + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
        uintptr_t hi = ((uintptr_t)t->events + ne * sizeof *t->events) & ~(uintptr_t)((2u << 20) - 1);
        if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
    t->lanes = calloc(nl ? nl : 1, sizeof *t->lanes);
    t->rows = malloc(nr ? nr * sizeof *t->rows : 1);
    t->groups = calloc(ng ? ng : 1, sizeof *t->groups);
    t->flows = malloc(nf ? nf * sizeof *t->flows : 1);
    t->flow_by_to = malloc(nf ? nf * sizeof *t->flow_by_to : 1);
    R.lane_rec = malloc(nl * LANE_REC + 1);
    R.group_rec = malloc(ng * GROUP_REC + 1);
    R.str_lens = malloc(ns * sizeof *R.str_lens);
    R.str_blob = malloc(blob + 1);
    if (!t->events || !t->lanes || !t->groups || !t->rows || !t->flows || !t->flow_by_to || !R.lane_rec ||
        !R.group_rec || !R.str_lens || !R.str_blob)
        MISS("%s: out of memory", cache_path);
    R.file = file;
    R.frames = frames;
    R.t = t;
    R.n_strings = ns;
    R.blob_len = blob;
    R.clsmask = cls_mask();
    /* event blocks first (the bulk), then the other arrays */
    size_t n_items = R.n_blocks + A__COUNT;
    uint32_t *order = xmalloc(n_items * sizeof *order);
    for (size_t i = 0; i < n_items; i++) order[i] = (uint32_t)i;
    ParFor_run(order, n_items, threads > 0 ? threads : 1, decode_item, &R);
    free(order);
    if (atomic_load(&R.failed)) MISS("%s: %s", cache_path, R.why);
    for (size_t i = 0; i < nl; i++) unpack_lane(R.lane_rec + i * LANE_REC, &t->lanes[i]);
    for (size_t i = 0; i < ng; i++) unpack_group(R.group_rec + i * GROUP_REC, &t->groups[i]);
    t->strings = StrTab_adopt(R.str_blob, blob, R.str_lens, ns);
    if (!t->strings) MISS("%s: damaged string table", cache_path);
    R.str_blob = NULL; /* owned by the table now */
    const char *bad = check_model(t, ns);
    if (bad) MISS("%s: %s", cache_path, bad);
    ok = true;
    futimens(fd, NULL); /* recently used: eviction takes it last (fails harmlessly read-only) */
out:
    if (fd >= 0) close(fd);
    free(file);
    free(hdr);
    free(frames);
    free(R.lane_rec);
    free(R.group_rec);
    free(R.str_lens);
    free(R.str_blob);
    if (!ok && t) {
        Trace_free(t);
        t = NULL;
    }
    return t;
}
