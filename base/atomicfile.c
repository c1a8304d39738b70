/* Files replaced whole through a temporary file and a rename
 * (include/ovtrace/base/atomicfile.h). */
#include "ovtrace/base/atomicfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/file.h"

/* ---- the live list ------------------------------------------------------------------- */

/* Read by AtomicFile_removeLive inside a signal handler, so plain stores of whole
 * pointers; a forked child inherits the list, hence each entry's owner. */
static char *volatile g_live[ATOMICFILE_MAX_LIVE];
static volatile pid_t g_owner[ATOMICFILE_MAX_LIVE];
static bool g_used[ATOMICFILE_MAX_LIVE]; /* reserved (the name is published once created) */
static size_t g_n_used;
static void (*g_hook)(bool any_live);
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

void AtomicFile_onLive(void (*hook)(bool any_live)) {
    pthread_mutex_lock(&g_lock);
    g_hook = hook;
    pthread_mutex_unlock(&g_lock);
}

/* A slot for a file about to be created, -1 when all are taken. The hook runs before
 * the file exists, so a signal can find no file of ours outside the list for longer
 * than its creation. */
static int live_reserve(void) {
    pthread_mutex_lock(&g_lock);
    int slot = -1;
    for (int i = 0; i < ATOMICFILE_MAX_LIVE && slot < 0; i++)
        if (!g_used[i]) slot = i;
    if (slot >= 0) {
        g_used[slot] = true;
        if (g_n_used++ == 0 && g_hook) g_hook(true);
    }
    pthread_mutex_unlock(&g_lock);
    return slot;
}

static void live_publish(int slot, char *tmp) {
    g_owner[slot] = getpid();
    g_live[slot] = tmp;
}

static void live_release(int slot) {
    if (slot < 0 || slot >= ATOMICFILE_MAX_LIVE) return;
    pthread_mutex_lock(&g_lock);
    if (g_used[slot]) {
        g_live[slot] = NULL;
        g_used[slot] = false;
        if (--g_n_used == 0 && g_hook) g_hook(false);
    }
    pthread_mutex_unlock(&g_lock);
}

void AtomicFile_removeLive(void) {
    pid_t me = getpid();
    for (size_t i = 0; i < ATOMICFILE_MAX_LIVE; i++) {
        char *p = g_live[i];
        if (p && g_owner[i] == me) unlink(p);
    }
}

/* ---- creating ------------------------------------------------------------------------ */

int AtomicFile_createNew(const char *path, mode_t mode) {
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

/* Six letters or digits, different on every call (as mkstemp's): the name cannot be
 * guessed ahead, and O_EXCL settles a collision. */
static void random_suffix(char out[7]) {
    static const char ALNUM[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static _Atomic uint64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40 ^
                 (counter++ + 1) * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uintptr_t)&ts;
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ULL, x ^= x >> 27, x *= 0x94D049BB133111EBULL, x ^= x >> 31;
    for (int i = 0; i < 6; i++, x /= 62) out[i] = ALNUM[x % 62];
    out[6] = '\0';
}

/* DIR/.NAME.tmp-PID- and room for the suffix; the suffix's place in *at */
static char *temp_name(const char *target, size_t *at) {
    const char *base = Path_base(target);
    size_t dlen = (size_t)(base - target), len = strlen(target) + 48;
    char *tmp = xmalloc(len);
    int n = snprintf(tmp, len, "%.*s.%s.tmp-%ld-", (int)dlen, target, base, (long)getpid());
    *at = (size_t)n;
    return tmp;
}

static int create_temp(char *tmp, size_t at, mode_t mode) {
    for (int tries = 0; tries < 100; tries++) {
        random_suffix(tmp + at);
        int fd = AtomicFile_createNew(tmp, mode);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

static bool refuse_target(const char *target, struct stat *st, bool *exists, char *err, size_t errlen) {
    *exists = lstat(target, st) == 0;
    if (!*exists || S_ISREG(st->st_mode)) return false;
    snprintf(err, errlen, "%s is not a regular file: refusing to replace it", target);
    return true;
}

bool AtomicFile_open(AtomicFile *f, const char *target, mode_t mode, bool keep_mode, char *err, size_t errlen) {
    f->target = NULL, f->tmp = NULL, f->fd = -1, f->slot = -1;
    struct stat st;
    bool exists;
    if (refuse_target(target, &st, &exists, err, errlen)) return false;
    AtomicFile_cleanStale(target); /* temporary files of writers killed by SIGKILL */
    int slot = live_reserve();
    if (slot < 0) {
        snprintf(err, errlen, "cannot create %s: %d temporary files are open", target, ATOMICFILE_MAX_LIVE);
        return false;
    }
    size_t at;
    char *tmp = temp_name(target, &at);
    int fd = create_temp(tmp, at, mode);
    if (fd < 0) {
        int e = errno;
        live_release(slot);
        snprintf(err, errlen, "cannot create %s in %s: %s", target,
                 Path_base(target) != target ? "its directory" : "the current directory", strerror(e));
        free(tmp);
        return false;
    }
    live_publish(slot, tmp);
    if (keep_mode && exists) { /* as it was: a private file stays private, a shared one shared */
        if (st.st_gid != getegid() && fchown(fd, (uid_t)-1, st.st_gid) != 0) {
            /* not a member of the file's group: the new file gets ours, and no group bits */
            st.st_mode &= ~(mode_t)070;
        }
        fchmod(fd, st.st_mode & 0777);
    }
    f->target = xstrdup(target);
    f->tmp = tmp;
    f->fd = fd;
    f->slot = slot;
    return true;
}

/* ---- finishing ----------------------------------------------------------------------- */

bool AtomicFile_closeFd(AtomicFile *f) {
    if (f->fd < 0) return true;
    int rc = close(f->fd);
    f->fd = -1;
    return rc == 0;
}

bool AtomicFile_rename(AtomicFile *f) {
    if (rename(f->tmp, f->target) != 0) return false;
    live_release(f->slot);
    f->slot = -1;
    free(f->tmp);
    f->tmp = NULL;
    return true;
}

void AtomicFile_syncDir(const AtomicFile *f) {
    char *dir = Path_dir(f->target);
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    free(dir);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

void AtomicFile_free(AtomicFile *f) {
    AtomicFile_closeFd(f);
    if (f->tmp) unlink(f->tmp);
    live_release(f->slot);
    f->slot = -1;
    free(f->tmp);
    free(f->target);
    f->tmp = f->target = NULL;
}

/* ---- stale temporary files ----------------------------------------------------------- */

/* "PID-XXXXXX" then the end: the pid, else 0 */
static long parse_pid(const char *s) {
    long pid = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9' && digits < 10) pid = pid * 10 + (*s++ - '0'), digits++;
    if (!digits || pid <= 0 || pid > INT_MAX || *s++ != '-') return 0;
    for (int i = 0; i < 6; i++, s++)
        if (!(*s >= '0' && *s <= '9') && !(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z')) return 0;
    return *s ? 0 : pid;
}

/* the PID of .BASE.tmp-PID-XXXXXX, else 0 */
static long stale_pid(const char *name, const char *base, size_t blen) {
    if (name[0] != '.' || strncmp(name + 1, base, blen) || strncmp(name + 1 + blen, ".tmp-", 5)) return 0;
    return parse_pid(name + 1 + blen + 5);
}

size_t AtomicFile_cleanStale(const char *path) {
    const char *base = Path_base(path);
    size_t blen = strlen(base);
    if (!blen) return 0;
    char *dir = Path_dir(path);
    DIR *d = dir ? opendir(dir) : NULL;
    free(dir);
    if (!d) return 0;
    size_t removed = 0;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = stale_pid(e->d_name, base, blen);
        if (!pid || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* running (or not ours to ask) */
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) continue;
        if (now - st.st_mtime < ATOMICFILE_STALE_SECONDS) continue; /* another host's or pid namespace's, busy */
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) removed++;
    }
    closedir(d);
    return removed;
}
