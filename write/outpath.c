/* Output targets: stream to special files, follow symlinks
 * (include/ovtrace/write/outpath.h). */
#include "ovtrace/write/outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
