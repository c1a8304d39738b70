/* Launching a program whose GPU events feed the live pipeline (collector/launch.c).
 * Pure C, always built: no CUDA needed to compile or to test it.
 *
 * The caller owns a cross-process ring set (RingSet_create_shared) and its consumer
 * (a LiveStore draining it). Launch_start exports the set as OVTRACE_SHM, sets
 *   CUDA_INJECTION64_PATH = libovtrace_inject.so   (cfg.inject: `-- CMD`)
 *   NVTX_INJECTION64_PATH = libcupti               (cfg.inject, unless already set: NVTX
 *                                                   ranges reach CUPTI only through it)
 * and fork/execs the program. The caller drains the set while Launch_poll says the
 * program runs; once it returns true the program has exited after its final flush, so
 * one more drain gets everything, and the session ends.
 *
 *   `ovtrace live|record -- CMD ARGS`:
 *       cfg.argv = CMD ARGS, cfg.inject = true
 *   `ovtrace live|record --workload moe [workload options]`:
 *       cfg.argv = Launch_workloadArgv(...) = {"<dir>/ovtrace-workload", "--collect", options...}
 *       cfg.inject = false (the workload runs the CUPTI collector in-process)
 * Both refuse, when no CUDA driver can be loaded, with the message of
 * Launch_cudaDriverMissing ("no CUDA driver found ...; try --simulate"). */
#ifndef OVTRACE_LAUNCH_H
#define OVTRACE_LAUNCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ovtrace/ring/ring.h"

#define LAUNCH_INJECT_LIB "libovtrace_inject.so"
#define LAUNCH_WORKLOAD_BIN "ovtrace-workload"

typedef struct {
    char *const *argv;       /* program and arguments (argv[0] searched in PATH); NULL-terminated */
    bool inject;             /* set CUDA_INJECTION64_PATH to the injection library */
    const char *inject_lib;  /* NULL: Launch_findHelper(LAUNCH_INJECT_LIB) */
    bool check_driver;       /* refuse when libcuda.so.1 cannot be loaded (default true) */
    const char *output_path; /* the program's stdout and stderr go to this file (NULL: inherited;
                                a full-screen TUI wants a file) */
    bool own_pgrp;           /* run in a new process group (Ctrl-C in a raw-mode TUI is a key) */
    const char *nvtx_lib;    /* with inject: NVTX_INJECTION64_PATH for the program unless its
                                environment has one (NULL: Launch_cuptiLibrary) */
} LaunchConfig;

void LaunchConfig_default(LaunchConfig *c);

typedef struct Launch Launch;

/* set must be shared (RingSet_create_shared / _named). NULL with a message in err:
 * no driver, no injection library, program not found / not executable (checked before
 * fork, so the message is precise), fork failure. */
Launch *Launch_start(const LaunchConfig *cfg, RingSet *set, char *err, size_t errlen);
/* Non-blocking: true once the program has exited (and is reaped; its rings are then
 * released with RingSet_reap, after the caller's next drain the data is all there). */
bool Launch_poll(Launch *l);
/* Waits up to timeout_ns (< 0: forever) for the exit. True if it exited. */
bool Launch_wait(Launch *l, int64_t timeout_ns);
/* Sends sig to the program (its process group with own_pgrp). */
void Launch_signal(Launch *l, int sig);
/* Exit status as a shell reports it (128 + signal); -1 while running. */
int Launch_exitCode(const Launch *l);
/* Describes how the program ended ("exited with status 0", "killed by signal 9 (Killed)"). */
const char *Launch_describe(const Launch *l, char *buf, size_t n);
/* Stops a program still running (SIGTERM, then SIGKILL after 3 s) and frees. */
void Launch_free(Launch *l);

/* Finds a helper installed beside the ovtrace binary: $OVTRACE_LIBDIR/name, then the
 * directory of /proc/self/exe (the build tree), then the install's lib/ovtrace and
 * libexec/ovtrace relative to it (GNUInstallDirs, as configured). */
bool Launch_findHelper(const char *name, char *out, size_t n);
/* The libcupti for an injected program's NVTX_INJECTION64_PATH, in out: the one the
 * injection library was built against (a path fixed at configure time) if that file
 * exists, else the one inject_lib loads where it runs (a build carried to another machine
 * finds its CUPTI elsewhere). NULL if neither: no NVTX ranges then. The injection library
 * must not set the variable itself: it runs inside cuInit, where a setenv can race with the
 * program's other threads reading the environment. */
const char *Launch_cuptiLibrary(const char *inject_lib, char *out, size_t n);
/* Whether the shared library lib loads a libcupti; its path in out if so. */
bool Launch_cuptiOf(const char *lib, char *out, size_t n);
/* Whether libcuda.so.1 loads. If not, msg gets the user-facing error:
 * "no CUDA driver found (libcuda.so.1: ...): this needs an NVIDIA GPU and its driver;
 *  try --simulate". */
bool Launch_cudaDriver(char *msg, size_t n);
/* argv for the built-in workload: {path, "--collect" (if collect), args[0..nargs)} in a
 * malloc'd NULL-terminated array (free with Launch_freeArgv). NULL (err) if
 * ovtrace-workload is not installed (built only with the CUDA toolkit). */
char **Launch_workloadArgv(bool collect, char *const *args, size_t nargs, char *err, size_t errlen);
void Launch_freeArgv(char **argv);

#endif
