#include <inttypes.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "ovtrace/base/clock.h"
#include "ovtrace/base/parse.h"
#include "ovtrace/model/timeunits.h"
#include "ovtrace/base/termsafe.h"
#include "ovtrace/read/collargs.h"

void cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("ovtrace: error: ", stderr);
    TermSafe_vfprintf(stderr, fmt, ap); /* messages name files and trace strings */
    fputc('\n', stderr);
    va_end(ap);
}

bool cli_filterValue(const char *opt, const char *v, int64_t max, int64_t *out) {
    if (Parse_i64(v, out) && *out >= 0 && *out <= max) return true;
    if (max == INT64_MAX) cli_error("%s needs a non-negative integer, got '%s'", opt, v); /* as diff --top says it */
    else cli_error("%s needs an integer in 0..%" PRId64 ", got '%s'", opt, max, v);
    return false;
}

RangeTexts cli_rangeTexts(const Trace *t, int64_t r0, int64_t r1) {
    RangeTexts x;
    Time_format(x.a0, sizeof x.a0, (r0 == INT64_MIN ? t->t_min : r0) - t->t_min);
    Time_format(x.a1, sizeof x.a1, (r1 == INT64_MAX ? t->t_max : r1) - t->t_min);
    Time_format(x.span, sizeof x.span, t->t_max - t->t_min);
    return x;
}

void cli_rangeOutside(const char *range, const Trace *t, int64_t r0, int64_t r1) {
    RangeTexts x = cli_rangeTexts(t, r0, r1);
    cli_error("--range %s: %s..%s lies outside the trace, which spans 0..%s", range, x.a0, x.a1, x.span);
}

/* The largest OVTRACE_CACHE_MAX_MB whose byte count fits 64 bits. */
#define CACHE_MAX_MB (INT64_MAX >> 20)

void InputOptions_init(InputOptions *o) {
    memset(o, 0, sizeof *o);
    o->rules = CommRules_default();
    char err[512];
    /* documented user-facing variables (README, Environment): read here, once */
    const char *env_rules = getenv("OVTRACE_RULES");
    if (!CommRules_loadUserConfig(o->rules, env_rules, getenv("XDG_CONFIG_HOME"), getenv("HOME"), err, sizeof err))
        /* a variable set long ago in a shell profile: name it, or the path alone puzzles */
        TermSafe_fprintf(stderr, "ovtrace: warning: %s%s\n", env_rules && *env_rules ? "OVTRACE_RULES: " : "", err);
    o->coll = CollOptions_default();
    o->coll.args = CollArgs_fetch; /* match by the group, name and Seq args the sources record */
    /* the snapshot cache (docs/cache.md): OVTRACE_CACHE=0 / 1 when no --cache/--no-cache */
    const char *c = getenv("OVTRACE_CACHE");
    o->env_cache = c && !strcmp(c, "0") ? -1 : c && !strcmp(c, "1") ? 1 : 0;
    /* mpirun (OpenMPI) sets it in every process it starts (docs/scaleout.md) */
    o->mpirun = getenv("OMPI_COMM_WORLD_SIZE") != NULL;
    if (!Snapshot_cacheDir(getenv("XDG_CACHE_HOME"), getenv("HOME"), o->cache_dir, sizeof o->cache_dir))
        o->cache_dir[0] = '\0';
    /* 0 MB keeps only the snapshot just written: a 1-byte cap (0 is the default cap) */
    const char *m = getenv("OVTRACE_CACHE_MAX_MB");
    int64_t mb;
    if (m && *m && Parse_i64(m, &mb) && mb >= 0 && mb <= CACHE_MAX_MB)
        o->cache_max_bytes = mb ? (uint64_t)mb << 20 : 1;
    else if (m && *m) /* "abc" or "2G" must not quietly become a 1-byte or 2 MB cap */
        TermSafe_fprintf(stderr, "ovtrace: warning: OVTRACE_CACHE_MAX_MB needs a whole number of MB in 0..%" PRId64
                         ", got '%s': the default cap applies\n", (int64_t)CACHE_MAX_MB, m);
}

void InputOptions_free(InputOptions *o) { CommRules_free(o->rules); }

void InputOptions_help(FILE *out) {
    fprintf(out,
            "input options:\n"
            "  --comm REGEX          also count kernels whose name matches as communication\n"
            "  --not-comm REGEX      never count kernels whose name matches as communication\n"
            "  --comm-stream REGEX   count every kernel on matching stream ids as communication\n"
            "  --rules FILE          read rules ('comm RE', 'not-comm RE', 'comm-stream RE' per line)\n"
            "                        (also read: $OVTRACE_RULES or ~/.config/ovtrace/rules)\n"
            "                        built in: NCCL/RCCL, DeepEP dispatch/combine, symmetric-memory\n"
            "                        and custom all-reduce (multimem_*, one/two_shot_*all_reduce*,\n"
            "                        cross_device_reduce_*stage, one/twoShotAllReduce, Lamport), P2P copies\n"
            "  --threads N           threads for parsing and the wait/transfer split, up to 64\n"
            "                        (default 0: one per core; 1: single)\n"
            "  -q, --quiet           no progress bar or warnings\n"
            "  --cache, --no-cache   reopen from / save a snapshot of the model in $XDG_CACHE_HOME/ovtrace\n"
            "                        (default: for 64 MB of JSON or more; OVTRACE_CACHE=0 turns it off)\n"
            "  -v, --verbose         say whether the snapshot cache was used, and why not\n"
            "  --max-token SIZE      largest single event or top-level value a compressed or piped\n"
            "                        input may hold in memory (default 256M; K, M, G, T, e.g. 1.5GiB)\n"
            "FILE may be plain JSON, .gz or .zst (detected by content), an Nsight Systems\n"
            "export (nsys export --type sqlite), a directory of traces,\n"
            "or a pipe, FIFO or - (standard input; read once, not cached);\n"
            "several files become one model with lanes grouped by rank.\n");
    Cli_helpValues(out);
}

/* The detached snapshot saves this process started with notes on (-v): their outcome is
 * reported before the process exits (cli_waitCacheSaves), not by the savers. */
static CacheSaves g_saves = CACHE_SAVES_INIT;
static double g_save_wait_s = CLI_CACHE_SAVE_WAIT_S;

void cli_waitCacheSaves(void) { CacheSaves_wait(&g_saves, g_save_wait_s); }

enum {
    IN_COMM = 1, IN_NOT_COMM, IN_COMM_STREAM, IN_RULES, IN_THREADS, IN_MAX_TOKEN, IN_CACHE, IN_NO_CACHE, IN_VERBOSE,
    IN_QUIET, IN_PARALLEL_MIN, IN_SLAB_BYTES, IN_FINISH_TIMING, IN_COLL_TIMING, IN_SAVE_WAIT
};

const OptSpec INPUT_OPTIONS[] = {
    {"--comm", 0, true, IN_COMM, NULL, false},
    {"--not-comm", 0, true, IN_NOT_COMM, NULL, false},
    {"--comm-stream", 0, true, IN_COMM_STREAM, NULL, false},
    {"--rules", 0, true, IN_RULES, NULL, false},
    {"--threads", 0, true, IN_THREADS, NULL, false},
    {"--max-token", 0, true, IN_MAX_TOKEN, NULL, false},
    {"--cache", 0, false, IN_CACHE, NULL, false},
    {"--no-cache", 0, false, IN_NO_CACHE, NULL, false},
    {"--verbose", 'v', false, IN_VERBOSE, NULL, false},
    {"--quiet", 'q', false, IN_QUIET, NULL, false},
    /* test and benchmark hooks (docs/testing.md): slices and slabs on small files, to
     * compare parallel and single-threaded loads */
    {"--debug-parallel-min-bytes", 0, true, IN_PARALLEL_MIN, NULL, true},
    {"--debug-slab-bytes", 0, true, IN_SLAB_BYTES, NULL, true},
    /* benchmark timing logs on stderr: each step of Trace_finish / Coll_analyze */
    {"--debug-finish-timing", 0, false, IN_FINISH_TIMING, NULL, true},
    {"--debug-coll-timing", 0, false, IN_COLL_TIMING, NULL, true},
    /* how long -v waits for a detached save's outcome, in ms (tests: 0) */
    {"--debug-cache-wait-ms", 0, true, IN_SAVE_WAIT, NULL, true},
    {0},
};

/* A hook's byte count: 1 .. 2^40. */
static bool debug_bytes(const char *opt, const char *v, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end || errno || v[0] == '-' || n == 0 || n > (1ULL << 40)) {
        cli_error("%s needs a byte count from 1, got '%s'", opt, v);
        return false;
    }
    *out = n;
    return true;
}

int InputOptions_apply(InputOptions *o, const OptSpec *s, const char *v) {
    char err[512];
    if (!s) {
        if (o->n_files == sizeof o->files / sizeof o->files[0]) {
            cli_error("too many input files");
            return 2;
        }
        o->files[o->n_files++] = v;
        return 0;
    }
    switch (s->id) {
    case IN_COMM:
    case IN_NOT_COMM:
    case IN_COMM_STREAM: {
        char line[1024];
        snprintf(line, sizeof line, "%s %s", s->name + 2, v);
        if (!CommRules_addLine(o->rules, line, err, sizeof err)) {
            cli_error("%s", err);
            return 2;
        }
        return 0;
    }
    case IN_RULES:
        if (!CommRules_loadFile(o->rules, v, err, sizeof err)) {
            cli_error("%s", err);
            return 2;
        }
        return 0;
    case IN_THREADS: {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || n < 0 || n > 64) {
            cli_error("--threads needs a number from 0 (one per core) to 64, got '%s'", v);
            return 2;
        }
        o->threads = (int)n;
        o->coll.threads = (int)n;
        return 0;
    }
    case IN_MAX_TOKEN: {
        uint64_t n;
        if (!Parse_bytes(v, &n) || n == 0) {
            cli_error("--max-token needs a size in bytes (e.g. 1073741824, 64M, 1.5GiB), got '%s'", v);
            return 2;
        }
        o->max_token = n;
        return 0;
    }
    case IN_CACHE: o->cache = 1; return 0;
    case IN_NO_CACHE: o->cache = -1; return 0;
    case IN_VERBOSE: o->verbose = true; return 0;
    case IN_QUIET: o->quiet = true; return 0;
    case IN_PARALLEL_MIN: return debug_bytes(s->name, v, &o->min_parallel_bytes) ? 0 : 2;
    case IN_FINISH_TIMING: o->finish_timing = true; return 0;
    case IN_COLL_TIMING: o->coll.timing = stderr; return 0;
    case IN_SAVE_WAIT: {
        char *end;
        long ms = strtol(v, &end, 10);
        if (end == v || *end || ms < 0 || ms > 600000) {
            cli_error("%s needs milliseconds from 0 to 600000, got '%s'", s->name, v);
            return 2;
        }
        g_save_wait_s = (double)ms / 1e3;
        return 0;
    }
    case IN_SLAB_BYTES: {
        uint64_t n;
        if (!debug_bytes(s->name, v, &n)) return 2;
        o->slab_bytes = (size_t)n;
        return 0;
    }
    }
    return 0;
}

static void progress_bar(void *ctx, const char *path, uint64_t done, uint64_t total, size_t events) {
    (void)ctx;
    if (!total) return;
    /* rate and ETA per file, from the first report of that file */
    static char cur_path[512];
    static double t0;
    double now = Clock_monotonicS();
    if (strncmp(cur_path, path, sizeof cur_path - 1)) {
        snprintf(cur_path, sizeof cur_path, "%s", path);
        t0 = now;
    }
    double el = now - t0;
    int pct = (int)(done * 100 / total);
    if (pct > 100) pct = 100;
    char bar[21];
    int fill = pct * 20 / 100;
    for (int i = 0; i < 20; i++) bar[i] = i < fill ? '#' : '.';
    bar[20] = '\0';
    char rate[48] = "";
    if (el >= 0.2 && done > 0) {
        double r = (double)done / el, eta = done < total ? (double)(total - done) / r : 0;
        snprintf(rate, sizeof rate, "  %.0f MB/s  ETA %.1fs", r / 1e6, eta);
    }
    const char *base = strrchr(path, '/');
    char line[256], safe[160];
    TermSafe_str(base ? base + 1 : path, safe, sizeof safe);
    snprintf(line, sizeof line, "loading %.32s [%s] %3d%%  %.1f/%.1f MB%s  %zu events", safe, bar,
             pct, (double)done / 1e6, (double)total / 1e6, rate, events);
    /* one line: never wrap, or the next \r would not clear it */
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && ws.ws_col < sizeof line)
        line[ws.ws_col - 1] = '\0';
    fprintf(stderr, "\r\033[K%s", line);
}

LoadOptions InputOptions_loadOptions(const InputOptions *o) {
    LoadOptions lo = {.rules = o->rules, .threads = o->threads, .cache = o->cache ? o->cache : o->env_cache,
                      .cache_opt = {o->cache_dir[0] ? o->cache_dir : NULL, o->cache_max_bytes},
                      .cache_log = o->verbose ? stderr : NULL, .cache_saves = &g_saves, .max_token = o->max_token,
                      .min_parallel_bytes = o->min_parallel_bytes, .slab_bytes = o->slab_bytes,
                      .finish_timing = o->finish_timing ? stderr : NULL};
    /* OVTRACE_CACHE_DEBUG (docs/cache.md): the cache notes on stderr (1), or appended
     * to a file (an absolute path; the viewer uses no stderr while it runs; a detached
     * save's outcome is appended to it also with -v) */
    const char *d = getenv("OVTRACE_CACHE_DEBUG");
    if (d && d[0] == '/') lo.cache_log_path = d;
    else if (!lo.cache_log && d && *d && strcmp(d, "0")) lo.cache_log = stderr;
    return lo;
}

bool cli_notSummary(const Trace *t, const char *cmd, const char *path) {
    if (!t->summary) return true;
    cli_error("%s is a run summary: `ovtrace view %s` opens it; %s reads the traces it names", path, path, cmd);
    return false;
}

bool InputOptions_needFiles(const InputOptions *o, const char *cmd, const char *usage) {
    if (o->n_files) return true;
    cli_error("%s needs at least one input trace (%s; see 'ovtrace %s --help')", cmd, usage, cmd);
    return false;
}

Trace *InputOptions_load(InputOptions *o) {
    if (o->n_files == 0) {
        cli_error("no trace file given");
        return NULL;
    }
    LoadOptions lo = InputOptions_loadOptions(o);
    bool tty = !o->quiet && isatty(STDERR_FILENO);
    if (tty) lo.progress = progress_bar;
    char err[1024];
    Trace *t = Load_files(o->files, o->n_files, &lo, err, sizeof err);
    if (tty) fprintf(stderr, "\r\033[K");
    if (!t) {
        cli_error("%s", err);
        return NULL;
    }
    if (!o->quiet) Load_printWarnings(t, stderr, "ovtrace: ");
    return t;
}

void cli_jsonFigures(FILE *out, const DeviceFigures *d) {
    fprintf(out,
            "\"window_ns\": %" PRId64 ", \"busy_ns\": %" PRId64 ", \"idle_ns\": %" PRId64 ", \"compute_ns\": %" PRId64
            ", \"comm_ns\": %" PRId64 ", \"overlap_ns\": %" PRId64 ", \"exposed_comm_ns\": %" PRId64
            ", \"memory_ns\": %" PRId64 ", \"events\": %zu, \"overlap_ratio\": ",
            d->window, d->busy, d->idle, d->compute, d->comm, d->overlap, d->exposed, d->memory, d->n_events);
    if (d->has_comm) fprintf(out, "%.6f", d->ratio);
    else fputs("null", out);
}
