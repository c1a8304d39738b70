/* Cross-process RingSets: the owner (the viewer/consumer) creates the mapping and passes
 * it to the profiled process through OVTRACE_SHM; the injected library attaches and
 * produces. memfd is preferred: no name to leak or collide, it dies with its last fd,
 * and seals stop the peer from shrinking it under the consumer (which would SIGBUS). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ring_layout.h"

static RingSet *map_fresh(int fd, const RingShmHeader *lay) {
    void *base =
        mmap(NULL, lay->total_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        return NULL;
    ringset_format(base, lay);
    RingSet *set = ringset_wrap(base, lay->total_size, fd, true);
    if (!set)
        munmap(base, lay->total_size);
    return set;
}

RingSet *RingSet_create_shared(const RingSetConfig *cfg) {
    RingShmHeader lay;
    if (!ringset_layout(cfg, NULL, &lay)) {
        errno = EINVAL;
        return NULL;
    }
    int fd = memfd_create("ovtrace-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return NULL;
    if (ftruncate(fd, (off_t)lay.total_size) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        goto fail;
    RingSet *set = map_fresh(fd, &lay);
    if (set)
        return set;
fail:;
    int e = errno;
    close(fd);
    errno = e;
    return NULL;
}

RingSet *RingSet_create_named(const RingSetConfig *cfg, const char *name) {
    RingShmHeader lay;
    if (!name || name[0] != '/' || !ringset_layout(cfg, NULL, &lay)) {
        errno = EINVAL;
        return NULL;
    }
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    RingSet *set = NULL;
    char *copy = strdup(name);
    if (copy && ftruncate(fd, (off_t)lay.total_size) == 0)
        set = map_fresh(fd, &lay);
    if (set) {
        set->shm_name = copy;
        return set;
    }
    int e = errno;
    free(copy);
    close(fd);
    shm_unlink(name);
    errno = e;
    return NULL;
}

int RingSet_export(RingSet *set, char *buf, size_t n) {
    int w;
    if (set->shm_name) {
        w = snprintf(buf, n, "%s", set->shm_name);
    } else {
        if (set->fd < 0) {
            errno = EINVAL; /* RingSet_new: private to this process tree */
            return -1;
        }
        /* The profiled program is exec()ed after fork: the fd must survive exec. */
        int fl = fcntl(set->fd, F_GETFD);
        if (fl < 0 || fcntl(set->fd, F_SETFD, fl & ~FD_CLOEXEC) < 0)
            return -1;
        w = snprintf(buf, n, "fd:%d", set->fd);
    }
    if (w < 0 || (size_t)w >= n) {
        errno = ENOSPC;
        return -1;
    }
    return 0;
}

static int parse_fd(const char *s) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > INT_MAX)
        return -1;
    return (int)v;
}

RingSet *RingSet_attach(const char *spec) {
    if (!spec || !*spec) {
        errno = EINVAL;
        return NULL;
    }
    int fd;
    if (spec[0] == '/') {
        fd = shm_open(spec, O_RDWR | O_CLOEXEC, 0);
    } else {
        int n = parse_fd(strncmp(spec, "fd:", 3) == 0 ? spec + 3 : spec);
        if (n < 0) {
            errno = EINVAL;
            return NULL;
        }
        /* Our own descriptor, so RingSet_free can close it without touching the
         * caller's (and it stops leaking into the profiled program's own children). */
        fd = fcntl(n, F_DUPFD_CLOEXEC, 0);
    }
    if (fd < 0)
        return NULL;
    struct stat st;
    void *base = MAP_FAILED;
    if (fstat(fd, &st) != 0)
        goto fail;
    if ((size_t)st.st_size < sizeof(RingShmHeader)) {
        errno = EINVAL;
        goto fail;
    }
    base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        goto fail;
    RingSet *set = ringset_wrap(base, (size_t)st.st_size, fd, false);
    if (!set)
        goto fail;
    atomic_fetch_add_explicit(&set->hdr->attaches, 1, memory_order_relaxed);
    return set;
fail:;
    int e = errno;
    if (base != MAP_FAILED)
        munmap(base, (size_t)st.st_size);
    close(fd);
    errno = e;
    return NULL;
}

RingSet *RingSet_attach_env(void) {
    const char *v = getenv(RING_SHM_ENV);
    if (!v) {
        errno = ENOENT;
        return NULL;
    }
    return RingSet_attach(v);
}
