/* Launching a program that streams into a shared ring set (include/ovtrace/collector/launch.h). */
#include "ovtrace/collector/launch.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Install layout relative to the ovtrace binary; collector/CMakeLists.txt passes the
 * configured GNUInstallDirs paths (lib64, lib/<multiarch>, ...). */
#ifndef OVTRACE_REL_PKGLIBDIR
#define OVTRACE_REL_PKGLIBDIR "../lib/ovtrace"
#endif
#ifndef OVTRACE_REL_PKGLIBEXECDIR
#define OVTRACE_REL_PKGLIBEXECDIR "../libexec/ovtrace"
#endif

struct Launch {
    pid_t pid;
    RingSet *set;
    bool exited;
    int status; /* waitpid status */
    bool own_pgrp;
};

void LaunchConfig_default(LaunchConfig *c) {
    memset(c, 0, sizeof *c);
    c->check_driver = true;
}

bool Launch_cudaDriver(char *msg, size_t n) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h) {
        dlclose(h);
        if (n) msg[0] = 0;
        return true;
    }
    const char *e = dlerror();
    snprintf(msg, n,
             "no CUDA driver found (%s): this needs an NVIDIA GPU and its driver; try --simulate",
             e ? e : "libcuda.so.1 cannot be loaded");
    return false;
}

static bool is_exec(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

static bool is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool Launch_findHelper(const char *name, char *out, size_t n) {
    const char *env = getenv("OVTRACE_LIBDIR");
    if (env && *env) {
        snprintf(out, n, "%s/%s", env, name);
        if (is_file(out)) return true;
    }
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return false;
    exe[k] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return false;
    *slash = 0;
    /* the build tree keeps helpers next to the binary; an install puts them where
     * collector/CMakeLists.txt says (GNUInstallDirs, relative to the binary) */
    static const char *const REL[] = {"", "/" OVTRACE_REL_PKGLIBDIR, "/" OVTRACE_REL_PKGLIBEXECDIR};
    for (size_t i = 0; i < sizeof REL / sizeof REL[0]; i++) {
        snprintf(out, n, "%s%s/%s", exe, REL[i], name);
        if (is_file(out)) return true;
    }
    return false;
}

/* Resolves argv0 like execvp would, so that "not found" is reported before fork. */
static bool find_program(const char *argv0, char *out, size_t n) {
    if (strchr(argv0, '/')) {
        snprintf(out, n, "%s", argv0);
        return is_exec(out);
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t len = c ? (size_t)(c - path) : strlen(path);
        snprintf(out, n, "%.*s/%s", (int)len, len ? path : ".", argv0);
        if (is_exec(out)) return true;
        path += len + (c != NULL);
    }
    return false;
}

extern char **environ;

static bool env_is(const char *entry, const char *name) {
    size_t n = strlen(name);
    return !strncmp(entry, name, n) && entry[n] == '=';
}

static char *env_entry(const char *name, const char *value) {
    size_t n = strlen(name) + strlen(value) + 2;
    char *e = malloc(n);
    if (!e) abort();
    snprintf(e, n, "%s=%s", name, value);
    return e;
}

bool Launch_cuptiOf(const char *lib, char *out, size_t n) {
    if (!lib || !n) return false;
    out[0] = 0;
    /* the dynamic loader's own search (RUNPATH, LD_LIBRARY_PATH, its cache), as in the
     * program; the injection library has no constructor, so loading it runs nothing.
     * NODELETE: libcupti allocates as it loads, and unmapping it would orphan that. */
    void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) return false;
    Dl_info info;
    void *sym = dlsym(h, "cuptiGetVersion");
    if (sym && dladdr(sym, &info) && info.dli_fname && info.dli_fname[0] == '/' && is_file(info.dli_fname))
        snprintf(out, n, "%s", info.dli_fname);
    dlclose(h);
    return out[0] != 0;
}

const char *Launch_cuptiLibrary(const char *inject_lib, char *out, size_t n) {
#ifdef OVTRACE_CUPTI_LIBRARY
    if (is_file(OVTRACE_CUPTI_LIBRARY)) {
        snprintf(out, n, "%s", OVTRACE_CUPTI_LIBRARY);
        return out;
    }
#endif
    return Launch_cuptiOf(inject_lib, out, n) ? out : NULL;
}

/* environ without our variables, plus OVTRACE_SHM (and CUDA_INJECTION64_PATH, and
 * NVTX_INJECTION64_PATH unless the user set it). */
static char **build_env(const char *shm, const char *inject_lib, const char *nvtx_lib) {
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **e = calloc(n + 4, sizeof *e);
    if (!e) abort();
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (env_is(environ[i], RING_SHM_ENV) || (inject_lib && env_is(environ[i], "CUDA_INJECTION64_PATH"))) continue;
        if (env_is(environ[i], "NVTX_INJECTION64_PATH")) nvtx_lib = NULL; /* the user's choice stands */
        e[k] = strdup(environ[i]);
        if (!e[k]) abort();
        k++;
    }
    e[k++] = env_entry(RING_SHM_ENV, shm);
    if (inject_lib) e[k++] = env_entry("CUDA_INJECTION64_PATH", inject_lib);
    if (inject_lib && nvtx_lib) e[k++] = env_entry("NVTX_INJECTION64_PATH", nvtx_lib);
    e[k] = NULL;
    return e;
}

static void free_env(char **e) {
    for (char **p = e; *p; p++) free(*p);
    free(e);
}

Launch *Launch_start(const LaunchConfig *cfg, RingSet *set, char *err, size_t errlen) {
    if (!cfg || !cfg->argv || !cfg->argv[0]) {
        snprintf(err, errlen, "no program to run (usage: ... -- CMD ARGS)");
        return NULL;
    }
    if (!set || RingSet_fd(set) < 0) {
        snprintf(err, errlen, "internal error: the ring set must be shared (RingSet_create_shared)");
        return NULL;
    }
    if (cfg->check_driver && !Launch_cudaDriver(err, errlen)) return NULL;
    char lib[PATH_MAX];
    if (cfg->inject) {
        if (cfg->inject_lib) snprintf(lib, sizeof lib, "%s", cfg->inject_lib);
        else if (!Launch_findHelper(LAUNCH_INJECT_LIB, lib, sizeof lib)) {
            snprintf(err, errlen,
                     "%s not found next to the ovtrace binary or in %s beside it (it is built only when the CUDA "
                     "toolkit with CUPTI is found; set OVTRACE_LIBDIR to its directory)",
                     LAUNCH_INJECT_LIB, OVTRACE_REL_PKGLIBDIR);
            return NULL;
        }
        if (!is_file(lib)) {
            snprintf(err, errlen, "injection library %s not found", lib);
            return NULL;
        }
        if (lib[0] != '/') { /* the driver dlopens it from the program's cwd */
            char abs[PATH_MAX];
            if (realpath(lib, abs)) snprintf(lib, sizeof lib, "%s", abs);
        }
    }
    char prog[PATH_MAX];
    if (!find_program(cfg->argv[0], prog, sizeof prog)) {
        snprintf(err, errlen, "cannot run '%s': %s", cfg->argv[0],
                 strchr(cfg->argv[0], '/') ? "no such executable file" : "command not found in PATH");
        return NULL;
    }
    char shm[64];
    if (RingSet_export(set, shm, sizeof shm) != 0) {
        snprintf(err, errlen, "cannot export the ring set to the program");
        return NULL;
    }
    int out_fd = -1;
    if (cfg->output_path) {
        out_fd = open(cfg->output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out_fd < 0) {
            snprintf(err, errlen, "cannot open %s for the program's output: %s", cfg->output_path, strerror(errno));
            return NULL;
        }
    }
    /* exec failures after fork travel back through a close-on-exec pipe */
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        if (out_fd >= 0) close(out_fd);
        return NULL;
    }
    /* The environment is built before fork: only async-signal-safe calls may run in the
     * child of a multi-threaded parent. */
    char cupti[PATH_MAX];
    const char *nvtx = cfg->nvtx_lib;
    if (!nvtx && cfg->inject) nvtx = Launch_cuptiLibrary(lib, cupti, sizeof cupti);
    char **envp = build_env(shm, cfg->inject ? lib : NULL, nvtx);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        free_env(envp);
        close(pfd[0]);
        close(pfd[1]);
        if (out_fd >= 0) close(out_fd);
        return NULL;
    }
    if (pid == 0) {
        if (cfg->own_pgrp) setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (out_fd >= 0) {
            dup2(out_fd, 1);
            dup2(out_fd, 2);
        }
        execve(prog, cfg->argv, envp);
        int e = errno;
        if (write(pfd[1], &e, sizeof e) < 0) { /* nothing more to do */
        }
        _exit(127);
    }
    close(pfd[1]);
    free_env(envp);
    if (out_fd >= 0) close(out_fd);
    int child_errno = 0;
    ssize_t r;
    do r = read(pfd[0], &child_errno, sizeof child_errno);
    while (r < 0 && errno == EINTR);
    close(pfd[0]);
    if (r == (ssize_t)sizeof child_errno) {
        waitpid(pid, NULL, 0);
        snprintf(err, errlen, "cannot run '%s': %s", prog, strerror(child_errno));
        return NULL;
    }
    if (cfg->own_pgrp) setpgid(pid, pid); /* both sides, whichever runs first */
    Launch *l = calloc(1, sizeof *l);
    if (!l) abort();
    l->pid = pid;
    l->set = set;
    l->own_pgrp = cfg->own_pgrp;
    return l;
}

bool Launch_poll(Launch *l) {
    if (l->exited) return true;
    int st;
    pid_t r;
    do r = waitpid(l->pid, &st, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == l->pid || (r < 0 && errno == ECHILD)) {
        l->exited = true;
        l->status = r == l->pid ? st : 0;
        RingSet_reap(l->set); /* rings of threads that never ran their exit handlers */
    }
    return l->exited;
}

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool Launch_wait(Launch *l, int64_t timeout_ns) {
    int64_t end = timeout_ns < 0 ? INT64_MAX : mono_ns() + timeout_ns;
    while (!Launch_poll(l)) {
        if (mono_ns() >= end) return false;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return true;
}

void Launch_signal(Launch *l, int sig) {
    if (l->exited) return;
    kill(l->own_pgrp ? -l->pid : l->pid, sig);
}

int Launch_exitCode(const Launch *l) {
    if (!l->exited) return -1;
    if (WIFEXITED(l->status)) return WEXITSTATUS(l->status);
    if (WIFSIGNALED(l->status)) return 128 + WTERMSIG(l->status);
    return 1;
}


const char *Launch_describe(const Launch *l, char *buf, size_t n) {
    if (!l->exited) snprintf(buf, n, "still running (pid %d)", (int)l->pid);
    else if (WIFEXITED(l->status)) snprintf(buf, n, "exited with status %d", WEXITSTATUS(l->status));
    else if (WIFSIGNALED(l->status))
        snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(l->status), strsignal(WTERMSIG(l->status)));
    else snprintf(buf, n, "ended (status 0x%x)", l->status);
    return buf;
}

void Launch_free(Launch *l) {
    if (!l) return;
    if (!Launch_poll(l)) {
        Launch_signal(l, SIGTERM);
        if (!Launch_wait(l, 3000000000LL)) {
            Launch_signal(l, SIGKILL);
            Launch_wait(l, -1);
        }
    }
    free(l);
}

char **Launch_workloadArgv(bool collect, char *const *args, size_t nargs, char *err, size_t errlen) {
    char path[PATH_MAX];
    if (!Launch_findHelper(LAUNCH_WORKLOAD_BIN, path, sizeof path) || !is_exec(path)) {
        snprintf(err, errlen,
                 "%s not found next to the ovtrace binary: the CUDA workload is built only when the CUDA toolkit is "
                 "found; try --simulate",
                 LAUNCH_WORKLOAD_BIN);
        return NULL;
    }
    char **v = calloc(nargs + 3, sizeof *v);
    if (!v) abort();
    size_t k = 0;
    v[k++] = strdup(path);
    if (collect) v[k++] = strdup("--collect");
    for (size_t i = 0; i < nargs; i++) v[k++] = strdup(args[i]);
    v[k] = NULL;
    for (size_t i = 0; i < k; i++)
        if (!v[i]) abort();
    return v;
}

void Launch_freeArgv(char **argv) {
    if (!argv) return;
    for (char **p = argv; *p; p++) free(*p);
    free(argv);
}
