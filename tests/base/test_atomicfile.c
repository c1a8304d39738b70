/* AtomicFile (base/atomicfile.c): a file replaced through a temporary file and a rename.
 * The replaced file's content and mode, nothing left beside it, a planted symlink never
 * followed, a target that is not a regular file refused, and the live list the CLI's
 * signal cleanup reads (the hook, AtomicFile_removeLive). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ovtrace/base/atomicfile.h"
#include "ovtrace/base/file.h"

static char g_dir[64];

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/ovtrace-atomic-XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *in_dir(const char *name) {
    static char p[4][256];
    static int k;
    char *s = p[k++ & 3];
    snprintf(s, sizeof p[0], "%s/%s", g_dir, name);
    return s;
}

static void put(const char *path, const char *text, mode_t mode) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_true(File_writeAll(fd, text, strlen(text), -1));
    close(fd);
    chmod(path, mode);
}

static char *slurp(const char *path) {
    static char buf[256];
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = '\0';
    return buf;
}

/* the names in g_dir other than . and .., joined by spaces */
static const char *listing(void) {
    static char out[1024];
    out[0] = '\0';
    DIR *d = opendir(g_dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        strncat(out, e->d_name, sizeof out - strlen(out) - 2);
        strcat(out, " ");
    }
    closedir(d);
    return out;
}

static void replace(const char *target, const char *text, mode_t mode, bool keep_mode) {
    AtomicFile f = ATOMICFILE_NONE;
    char err[512];
    assert_true(AtomicFile_open(&f, target, mode, keep_mode, err, sizeof err));
    assert_true(File_writeAll(f.fd, text, strlen(text), -1));
    assert_true(AtomicFile_closeFd(&f));
    assert_true(AtomicFile_rename(&f));
    AtomicFile_free(&f);
}

static mode_t mode_of(const char *path) {
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

/* New: the text, mode minus the umask, nothing else in the directory. Existing: the
 * text replaced, its mode kept (keep_mode) or set (the snapshot cache's 0600). */
static void replaces_whole(void **state) {
    (void)state;
    mode_t um = umask(022);
    const char *t = in_dir("out.json");
    replace(t, "new", 0666, true);
    assert_string_equal(slurp(t), "new");
    assert_int_equal(mode_of(t), 0644);
    assert_string_equal(listing(), "out.json ");
    chmod(t, 0600);
    replace(t, "second", 0666, true);
    assert_string_equal(slurp(t), "second");
    assert_int_equal(mode_of(t), 0600);
    chmod(t, 0640);
    replace(t, "third", 0600, false);
    assert_int_equal(mode_of(t), 0600);
    assert_string_equal(listing(), "out.json ");
    umask(um);
}

/* keep_mode keeps the group too: a file shared through its group stays shared (as
 * root, any group can be set; otherwise the test uses a supplementary group, if any). */
static void keeps_group(void **state) {
    (void)state;
    gid_t groups[64];
    int n = getgroups(64, groups);
    gid_t other = (gid_t)-1;
    if (geteuid() == 0) other = 12345;
    for (int i = 0; i < n && other == (gid_t)-1; i++)
        if (groups[i] != getegid()) other = groups[i];
    if (other == (gid_t)-1) skip();
    const char *t = in_dir("shared.json");
    put(t, "old", 0640);
    assert_int_equal(chown(t, (uid_t)-1, other), 0);
    chmod(t, 0660);
    replace(t, "new", 0666, true);
    struct stat st;
    assert_int_equal(stat(t, &st), 0);
    assert_int_equal(st.st_gid, other);
    assert_int_equal(st.st_mode & 0777, 0660);
    unlink(t);
}

/* Until the rename the old file is untouched; freed without a rename, the temporary
 * file goes and the old file stays as it was. */
static void abandoned(void **state) {
    (void)state;
    const char *t = in_dir("keep.json");
    put(t, "old", 0644);
    AtomicFile f = ATOMICFILE_NONE;
    char err[512];
    assert_true(AtomicFile_open(&f, t, 0666, true, err, sizeof err));
    assert_non_null(strstr(f.tmp, "/.keep.json.tmp-"));
    assert_true(File_writeAll(f.fd, "partial", 7, -1));
    assert_string_equal(slurp(t), "old");
    AtomicFile_free(&f);
    assert_string_equal(slurp(t), "old");
    assert_string_equal(listing(), "keep.json ");
    int fd0 = fcntl(0, F_GETFD);
    AtomicFile none = ATOMICFILE_NONE; /* nothing to do: no descriptor (0 or any) closed */
    AtomicFile_free(&none);
    assert_int_equal(fcntl(0, F_GETFD), fd0);
}

/* A symlink planted at the name a temporary file is created under is not followed:
 * whether it leads to a file or nowhere, the creation fails and nothing is written. */
static void planted_symlink(void **state) {
    (void)state;
    const char *victim = in_dir("victim"), *link = in_dir(".out.json.tmp-1-planted"), *dangling = in_dir("gone");
    put(victim, "precious", 0644);
    assert_int_equal(symlink(victim, link), 0);
    errno = 0;
    assert_int_equal(AtomicFile_createNew(link, 0644), -1);
    assert_int_equal(errno, EEXIST);
    assert_string_equal(slurp(victim), "precious");
    unlink(link);
    assert_int_equal(symlink(dangling, link), 0);
    assert_int_equal(AtomicFile_createNew(link, 0644), -1);
    assert_int_equal(access(dangling, F_OK), -1); /* not created through the link */
    unlink(link);
    /* an existing file there too */
    put(link, "someone's", 0644);
    assert_int_equal(AtomicFile_createNew(link, 0644), -1);
    assert_string_equal(slurp(link), "someone's");
}

/* A target that is a symlink, a FIFO or a directory is not replaced (the caller
 * resolves links and streams to devices and FIFOs: write/outpath.h). */
static void refuses_special_targets(void **state) {
    (void)state;
    const char *victim = in_dir("victim"), *link = in_dir("link.json"), *fifo = in_dir("fifo.json");
    put(victim, "precious", 0644);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    const char *targets[] = {link, fifo, g_dir};
    for (size_t i = 0; i < 3; i++) {
        AtomicFile f = ATOMICFILE_NONE;
        char err[512] = "";
        assert_false(AtomicFile_open(&f, targets[i], 0666, true, err, sizeof err));
        assert_non_null(strstr(err, "not a regular file"));
    }
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(slurp(victim), "precious");
    /* a missing directory: the message says so */
    AtomicFile f = ATOMICFILE_NONE;
    char err[512] = "";
    assert_false(AtomicFile_open(&f, in_dir("nodir/x.json"), 0666, true, err, sizeof err));
    assert_non_null(strstr(err, "cannot create"));
}

static int g_hook_calls[2];
static void hook(bool any_live) { g_hook_calls[any_live]++; }

/* The hook hears of the first temporary file and of the last one going; the library
 * itself leaves the signal dispositions alone; AtomicFile_removeLive removes what is
 * live (what the CLI's handler calls). */
static void live_list(void **state) {
    (void)state;
    struct sigaction before, during;
    sigaction(SIGTERM, NULL, &before);
    AtomicFile_onLive(hook);
    memset(g_hook_calls, 0, sizeof g_hook_calls);
    AtomicFile a = ATOMICFILE_NONE, b = ATOMICFILE_NONE;
    char err[512];
    assert_true(AtomicFile_open(&a, in_dir("a.json"), 0666, true, err, sizeof err));
    assert_int_equal(g_hook_calls[1], 1);
    assert_true(AtomicFile_open(&b, in_dir("b.json"), 0666, true, err, sizeof err));
    assert_int_equal(g_hook_calls[1], 1);
    sigaction(SIGTERM, NULL, &during);
    assert_ptr_equal(during.sa_handler, before.sa_handler);
    assert_int_equal(access(a.tmp, F_OK), 0);
    AtomicFile_removeLive();
    assert_int_equal(access(a.tmp, F_OK), -1);
    assert_int_equal(access(b.tmp, F_OK), -1);
    assert_true(AtomicFile_closeFd(&a));
    AtomicFile_free(&a);
    assert_int_equal(g_hook_calls[0], 0); /* b is still open */
    AtomicFile_free(&b);
    assert_int_equal(g_hook_calls[0], 1);
    /* renamed files are no longer live: removeLive leaves the result alone */
    replace(in_dir("c.json"), "c", 0666, true);
    assert_int_equal(g_hook_calls[1], 2);
    assert_int_equal(g_hook_calls[0], 2);
    AtomicFile_removeLive();
    assert_string_equal(slurp(in_dir("c.json")), "c");
    AtomicFile_onLive(NULL);
    assert_string_equal(listing(), "c.json ");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(replaces_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(keeps_group, setup, teardown),
        cmocka_unit_test_setup_teardown(abandoned, setup, teardown),
        cmocka_unit_test_setup_teardown(planted_symlink, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_special_targets, setup, teardown),
        cmocka_unit_test_setup_teardown(live_list, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
