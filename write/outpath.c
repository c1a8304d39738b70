/* Output targets: stream to special files, follow symlinks, clean stale temporary
 * files (include/ovtrace/write/outpath.h). */
#include "ovtrace/write/outpath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/file.h"

enum { MAX_LINKS = 40 }; /* as the kernel's ELOOP limit */

/* target read from the symlink `link`, relative to the link's directory */
static char *link_target(const char *link, const char *target) {
    const char *slash = strrchr(link, '/');
    if (target[0] == '/' || !slash) return xstrdup(target);
    size_t d = (size_t)(slash - link) + 1, n = strlen(target);
    char *r = xmalloc(d + n + 1);
    memcpy(r, link, d);
    memcpy(r + d, target, n + 1);
    return r;
}

static bool refuse_type(const char *out, mode_t m, char *err, size_t errlen) {
    if (S_ISDIR(m)) snprintf(err, errlen, "%s is a directory (expected an output file name)", out);
    else if (S_ISBLK(m)) snprintf(err, errlen, "%s is a block device: refusing to write a trace over it", out);
    else if (!S_ISREG(m) && !S_ISCHR(m) && !S_ISFIFO(m)) snprintf(err, errlen, "%s is not a file, device or FIFO", out);
    else return false;
    return true;
}

bool OutPath_resolve(const char *out, OutPath *p, char *err, size_t errlen) {
    p->stream = false;
    p->path = NULL;
    if (!strcmp(out, "-")) {
        p->stream = true;
        p->path = xstrdup(out);
        return true;
    }
    struct stat st;
    if (stat(out, &st) == 0) { /* exists (symlinks followed) */
        if (refuse_type(out, st.st_mode, err, errlen)) return false;
        if (!S_ISREG(st.st_mode)) { /* a device or FIFO: opened by the given name, which
                                      also works for /dev/stdout -> /proc/self/fd/1 -> pipe:[N] */
            p->stream = true;
            p->path = xstrdup(out);
            return true;
        }
        char *real = realpath(out, NULL);
        if (!real) {
            snprintf(err, errlen, "%s: %s", out, strerror(errno));
            return false;
        }
        p->path = real;
        return true;
    }
    /* does not exist: a new file, or a dangling symlink whose target is created */
    char *cur = xstrdup(out);
    for (int hops = 0;; hops++) {
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) break;
        if (hops == MAX_LINKS) {
            snprintf(err, errlen, "%s: %s", out, strerror(ELOOP));
            free(cur);
            return false;
        }
        char buf[PATH_MAX];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) {
            snprintf(err, errlen, "%s: %s", cur, strerror(errno));
            free(cur);
            return false;
        }
        buf[n] = '\0';
        char *next = link_target(cur, buf);
        free(cur);
        cur = next;
    }
    p->path = cur;
    return true;
}

void OutPath_free(OutPath *p) {
    free(p->path);
    p->path = NULL;
}

int OutPath_openStream(const OutPath *p, char *err, size_t errlen) {
    int fd = !strcmp(p->path, "-") ? fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
                                   : open(p->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) snprintf(err, errlen, "cannot open %s: %s", !strcmp(p->path, "-") ? "stdout" : p->path, strerror(errno));
    return fd;
}

/* "PID" then end, or "PID-XXXXXX" (mkstemp's six) then end: the pid, else 0 */
static long parse_pid(const char *s, bool mkstemp_suffix) {
    long pid = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9' && digits < 10) pid = pid * 10 + (*s++ - '0'), digits++;
    if (!digits || pid <= 0 || pid > INT_MAX) return 0;
    if (mkstemp_suffix) {
        if (*s++ != '-') return 0;
        for (int i = 0; i < 6; i++, s++)
            if (!(*s >= '0' && *s <= '9') && !(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z')) return 0;
    }
    return *s ? 0 : pid;
}

static long stale_pid(const char *name, const char *base, size_t blen) {
    if (name[0] == '.' && !strncmp(name + 1, base, blen) && !strncmp(name + 1 + blen, ".tmp-", 5))
        return parse_pid(name + 1 + blen + 5, true); /* export */
    if (!strncmp(name, base, blen) && !strncmp(name + blen, ".tmp.", 5))
        return parse_pid(name + blen + 5, false); /* record */
    return 0;
}

size_t OutPath_cleanStale(const char *path) {
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
        if (now - st.st_mtime < OUTPATH_STALE_SECONDS) continue; /* another host's or pid namespace's, busy */
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) removed++;
    }
    closedir(d);
    return removed;
}
