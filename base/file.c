/* File and path helpers (include/ovtrace/base/file.h). */
#include "ovtrace/base/file.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool File_writeAll(int fd, const void *p, size_t n, int64_t at) {
    const char *c = p;
    while (n) {
        ssize_t w = at < 0 ? write(fd, c, n) : pwrite(fd, c, n, (off_t)at);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (w == 0) { /* not for regular files, but never spin */
            errno = EIO;
            return false;
        }
        c += w;
        n -= (size_t)w;
        if (at >= 0) at += w;
    }
    return true;
}

const char *Path_base(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *Path_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n ? n + 1 : 2);
    if (!d) return NULL;
    if (n) memcpy(d, path, n);
    else d[n++] = '.';
    d[n] = '\0';
    return d;
}

bool Path_isTrace(const char *name) {
    size_t l = strlen(name);
    static const char *ext[] = {".json", ".json.gz", ".json.zst", ".sqlite"}; /* .sqlite: Nsight Systems */
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t e = strlen(ext[i]);
        if (l > e && !strcmp(name + l - e, ext[i])) return true;
    }
    return false;
}

void Dir_freeList(char **list, size_t n) {
    for (size_t i = 0; list && i < n; i++) free(list[i]);
    free(list);
}

/* Natural order (strverscmp): rank2 before rank10, so a directory of rank files loads
 * in rank order, which keeps each rank's events in its own block for Trace_finish's
 * parallel permutation (and reads as people number them). */
static int cmp_str(const void *a, const void *b) { return strverscmp(*(char *const *)a, *(char *const *)b); }

char **Dir_traceFiles(const char *dir, size_t *n) {
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    size_t cap = 16, dlen = strlen(dir);
    const char *sep = dlen && dir[dlen - 1] == '/' ? "" : "/"; /* traces/ gives traces/r0.json */
    char **list = malloc(cap * sizeof *list);
    bool oom = !list;
    for (struct dirent *de; !oom && (de = readdir(d));) {
        if (de->d_name[0] == '.' || !Path_isTrace(de->d_name)) continue;
        if (*n == cap) {
            char **more = realloc(list, (cap *= 2) * sizeof *list);
            if (!(oom = !more)) list = more;
        }
        size_t len = dlen + strlen(de->d_name) + 2;
        if (!oom && !(oom = !(list[*n] = malloc(len))))
            snprintf(list[(*n)++], len, "%s%s%s", dir, sep, de->d_name);
    }
    closedir(d);
    if (oom) {
        Dir_freeList(list, *n);
        *n = 0;
        errno = ENOMEM;
        return NULL;
    }
    qsort(list, *n, sizeof *list, cmp_str);
    return list;
}
