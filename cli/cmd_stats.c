/* ovtrace stats: the overlap figures, as a table or as JSON (docs/stats-json.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/base/parse.h"
#include "ovtrace/read/hardware.h"
#include "ovtrace/read/input.h"
#include "stats_coll.h"
#include "ovtrace/write/jsonout.h"
#include "ovtrace/analysis/overlap.h"
#include "ovtrace/base/termsafe.h"
#include "ovtrace/model/timeunits.h"
#include "stats_extra.h"
#include "ovtrace/scaleout/scaleout.h"

void help_stats(FILE *out) {
    fprintf(out,
            "usage: ovtrace stats [OPTIONS] FILE...\n\n"
            "Per rank and GPU device: compute, communication, their overlap, exposed communication,\n"
            "memory, busy and idle time (exact unions of intervals), busy time per stream, and the\n"
            "top kernels by total time. Across ranks: each collective matched on every rank, its\n"
            "comm split into wait (before the last rank arrived) and transfer, exposed comm split\n"
            "the same way, the rank that arrives last most often, and skew per collective.\n\n"
            "options:\n"
            "  --json            machine-readable output (schema: docs/stats-json.md)\n"
            "  --range A:B       only [A, B), relative to the trace start, with units\n"
            "                    (ns, us, ms, s; bare numbers are us); '@' marks absolute times;\n"
            "                    either side may be empty, e.g. 10ms:  or  :2.5ms\n"
            "  --rank N          only rank N\n"
            "  --device N        only GPU device N\n"
            "  --stream N        only stream N\n"
            "  --top N           top kernels to list (default 10, 0 for all)\n"
            "  --summary OUT     also write the run's summary to OUT: per rank its figures, overlap\n"
            "                    band, comm kernels and trace path; `ovtrace view OUT` opens it in\n"
            "                    the rank overview (docs/summary.md)\n\n"
            "Under mpirun the processes share the files; rank 0 prints (docs/scaleout.md).\n");
    InputOptions_help(out);
}

static void us(char *buf, size_t n, int64_t ns) { Time_formatUs(buf, n, ns); }

static void print_ratio(FILE *out, const DeviceFigures *d, int width) {
    if (d->has_comm) fprintf(out, "%*.4f", width, d->ratio);
    else fprintf(out, "%*s", width, "no comm");
}

/* The whole run's counts and extent (an MPI run's rank 0 holds only a skeleton model). */
typedef struct {
    size_t events, lanes;
    int64_t t_min, t_max;
    bool truncated;
    size_t skipped;
} StatsHead;

/* The value of a GPU lane's rank, device or stream (which: 0, 1, 2). */
static int64_t lane_key(const Lane *l, int which) { return which == 0 ? l->rank : which == 1 ? l->device : l->stream; }

/* An empty selection because --rank, --device or --stream names a value no GPU lane has
 * (a typo would otherwise read like an idle GPU): a note on stderr (not with -q) with the
 * values there are, the first few in order. */
static void selection_note(const Trace *t, const OverlapFilter *f) {
    static const char *const opt[] = {"--rank", "--device", "--stream"}, *const what[] = {"ranks", "devices", "streams"};
    int64_t want[] = {f->rank == OVERLAP_ANY_RANK ? OVERLAP_ANY : f->rank, f->device, f->stream};
    for (int w = 0; w < 3; w++) {
        if (want[w] == OVERLAP_ANY) continue;
        enum { SHOWN = 8 };
        int64_t v[SHOWN + 1];
        size_t n = 0;
        bool found = false, more = false;
        for (size_t i = 0; i < t->n_lanes && !found; i++) {
            if (!t->lanes[i].gpu) continue;
            int64_t k = lane_key(&t->lanes[i], w);
            found = k == want[w];
            size_t j = 0;
            while (j < n && v[j] < k) j++;
            if (j < n && v[j] == k) continue;
            if (n == SHOWN && j == n) { more = true; continue; }
            memmove(v + j + 1, v + j, (n - j) * sizeof *v);
            v[j] = k;
            if (n < SHOWN) n++;
            else more = true; /* the largest fell off */
        }
        if (found) continue;
        fprintf(stderr, "ovtrace: note: %s %" PRId64 " matches no GPU lane (", opt[w], want[w]);
        if (!n) fputs("the traces have none", stderr);
        else fprintf(stderr, "%s with GPU lanes:", what[w]);
        for (size_t j = 0; j < n; j++) fprintf(stderr, "%s %" PRId64, j ? "," : "", v[j]);
        fprintf(stderr, "%s)\n", more ? ", ..." : "");
    }
}

/* --summary OUT naming one of the traces to read (stats --summary rank0.json rank*.json,
 * the output forgotten) would replace that trace: refused, as export refuses it. */
static bool summary_not_input(const char *out, const InputOptions *inp) {
    struct stat so;
    if (stat(out, &so) != 0 || !S_ISREG(so.st_mode)) return true; /* a new file, a device, a FIFO */
    size_t n = 0;
    char err[256];
    char **files = Load_expandPaths(inp->files, inp->n_files, &n, err, sizeof err);
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        struct stat si;
        if (stat(files[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            cli_error("--summary %s: refusing to overwrite input file %s (the same file)", out, files[i]);
            ok = false;
        }
    }
    for (size_t i = 0; i < n; i++) free(files[i]);
    free(files);
    return ok;
}

static StatsHead head_of(const Trace *t) {
    return (StatsHead){t->n_events, t->n_lanes, t->t_min, t->t_max, t->diag.truncated, t->diag.skipped};
}

static void print_table(FILE *out, const Trace *t, const StatsHead *h, const OverlapReport *R, int64_t t0, int64_t t1) {
    for (size_t i = 0; i < t->n_sources; i++) {
        const TraceSource *s = &t->sources[i];
        char safe[1024]; /* names from the trace and file names are escaped (termsafe.h) */
        fprintf(out, "file %s: rank %d", TermSafe_str(s->path, safe, sizeof safe), s->rank);
        if (s->world_size > 0) fprintf(out, " of %d", s->world_size);
        fprintf(out, ", %s\n",
                s->compression == COMP_GZIP   ? "gzip"
                : s->compression == COMP_ZSTD ? "zstd"
                : s->compression == COMP_SQLITE ? "Nsight Systems SQLite export"
                                                : "plain JSON");
        char hw[512];
        if (Hardware_describe(s->meta_json, hw, sizeof hw))
            fprintf(out, "  recorded on %s\n", TermSafe_str(hw, safe, sizeof safe));
    }
    char a[32], b[32], span[32];
    Time_format(span, sizeof span, h->t_max - h->t_min);
    fprintf(out, "%zu events, %zu lanes, trace span %s\n", h->events, h->lanes, span);
    if (t0 != INT64_MIN || t1 != INT64_MAX) {
        Time_format(a, sizeof a, t0 == INT64_MIN ? 0 : t0 - h->t_min);
        Time_format(b, sizeof b, t1 == INT64_MAX ? h->t_max - h->t_min : t1 - h->t_min);
        fprintf(out, "range %s .. %s (relative to trace start)\n", a, b);
    }
    if (R->n_devices == 0) {
        fprintf(out, "\nno GPU activity in the selection\n");
        return;
    }
    fprintf(out, "\noverlap per device (us)\n");
    fprintf(out, "%4s %4s %10s %10s %9s %10s %10s %10s %10s %9s %8s\n", "rank", "dev", "window", "busy", "idle",
            "compute", "comm", "overlap", "exposed", "memory", "ratio");
    char c[11][32];
    for (size_t i = 0; i <= R->n_devices; i++) {
        if (i == R->n_devices && R->n_devices < 2) break;
        const DeviceFigures *d = i < R->n_devices ? &R->devices[i] : &R->total;
        us(c[0], 32, d->window);
        us(c[1], 32, d->busy);
        us(c[2], 32, d->idle);
        us(c[3], 32, d->compute);
        us(c[4], 32, d->comm);
        us(c[5], 32, d->overlap);
        us(c[6], 32, d->exposed);
        us(c[7], 32, d->memory);
        if (i < R->n_devices) fprintf(out, "%4d %4" PRId64, d->rank, d->device);
        else fprintf(out, "%9s", "all");
        fprintf(out, " %10s %10s %9s %10s %10s %10s %10s %9s", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
        print_ratio(out, d, 9);
        fputc('\n', out);
    }
    for (size_t i = 0; i < R->n_devices; i++)
        if (!R->devices[i].has_comm)
            fprintf(out, "(rank %d device %" PRId64 ": no communication kernels; overlap ratio undefined)\n",
                    R->devices[i].rank, R->devices[i].device);
    fprintf(out, "\nbusy per stream (us)\n%4s %4s %8s %-20s %8s %10s\n", "rank", "dev", "stream", "name", "events",
            "busy");
    for (size_t i = 0; i < R->n_devices; i++) {
        const DeviceFigures *d = &R->devices[i];
        for (size_t k = 0; k < d->n_streams; k++) {
            const StreamFigures *s = &d->streams[k];
            /* a lane of CUPTI's syncs alone (stream -1: event and context syncs) holds no
             * GPU work; the host's waits show as its runtime calls */
            if (!s->n_events && !s->busy) continue;
            us(c[0], 32, s->busy);
            char safe[256];
            fprintf(out, "%4d %4" PRId64 " %8" PRId64 " %-20.20s %8zu %10s\n", d->rank, d->device, s->stream,
                    TermSafe_str(StrTab_get(t->strings, t->lanes[s->lane].name), safe, sizeof safe), s->n_events, c[0]);
        }
    }
    if (R->n_kernels) {
        bool ranged = t0 != INT64_MIN || t1 != INT64_MAX;
        fprintf(out, "\ntop kernels by total time%s\n%7s %11s %9s  %-8s %s\n", ranged ? " (" OVERLAP_CLIPPED_WORDS ")" : "",
                "count", "total us", "mean us", "class", "name");
        for (size_t i = 0; i < R->n_kernels; i++) {
            const KernelFigures *k = &R->kernels[i];
            us(c[0], 32, k->total);
            us(c[1], 32, k->total / (int64_t)k->count);
            char safe[512];
            fprintf(out, "%7zu %11s %9s  %-8s %.100s\n", k->count, c[0], c[1], EventClass_name(k->cls),
                    TermSafe_str(StrTab_get(t->strings, k->name), safe, sizeof safe));
        }
    }
}

/* The JSON object up to its top kernels (the sections after them follow). */
static void print_json_head(FILE *out, const Trace *t, const StatsHead *h, const OverlapReport *R, int64_t t0,
                            int64_t t1) {
    fprintf(out, "{\n  \"ovtrace_stats_version\": 1,\n  \"files\": [");
    for (size_t i = 0; i < t->n_sources; i++) {
        const TraceSource *s = &t->sources[i];
        fprintf(out, "%s\n    {\"path\": ", i ? "," : "");
        JsonOut_string(out, s->path);
        fprintf(out, ", \"rank\": %d, \"world_size\": %d, \"compression\": \"%s\"", s->rank, s->world_size,
                s->compression == COMP_GZIP     ? "gzip"
                : s->compression == COMP_ZSTD   ? "zstd"
                : s->compression == COMP_SQLITE ? "nsys-sqlite"
                                                : "none");
        char hw[512];
        if (Hardware_describe(s->meta_json, hw, sizeof hw)) {
            fputs(", \"hardware\": ", out);
            JsonOut_string(out, hw);
        }
        fputc('}', out);
    }
    fprintf(out,
            "\n  ],\n  \"events\": %zu,\n  \"trace_start_ns\": %" PRId64 ",\n  \"trace_end_ns\": %" PRId64
            ",\n  \"range\": {\"start_ns\": ",
            h->events, h->t_min, h->t_max);
    if (t0 == INT64_MIN) fputs("null", out);
    else fprintf(out, "%" PRId64, t0);
    fputs(", \"end_ns\": ", out);
    if (t1 == INT64_MAX) fputs("null", out);
    else fprintf(out, "%" PRId64, t1);
    fprintf(out, "},\n  \"warnings\": {\"truncated\": %s, \"skipped_events\": %zu},\n  \"devices\": [",
            h->truncated ? "true" : "false", h->skipped);
    for (size_t i = 0; i < R->n_devices; i++) {
        const DeviceFigures *d = &R->devices[i];
        fprintf(out, "%s\n    {\"rank\": %d, \"device\": %" PRId64 ", \"window_start_ns\": %" PRId64 ", ", i ? "," : "",
                d->rank, d->device, d->window_start);
        cli_jsonFigures(out, d);
        fputs(",\n     \"streams\": [", out);
        for (size_t k = 0; k < d->n_streams; k++) {
            const StreamFigures *s = &d->streams[k];
            fprintf(out, "%s{\"stream\": %" PRId64 ", \"name\": ", k ? ", " : "", s->stream);
            JsonOut_string(out, StrTab_get(t->strings, t->lanes[s->lane].name));
            fprintf(out, ", \"events\": %zu, \"busy_ns\": %" PRId64 "}", s->n_events, s->busy);
        }
        fputs("]}", out);
    }
    fputs("\n  ],\n  \"total\": {", out);
    cli_jsonFigures(out, &R->total);
    fputs("},\n  \"top_kernels\": [", out);
    for (size_t i = 0; i < R->n_kernels; i++) {
        const KernelFigures *k = &R->kernels[i];
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        JsonOut_string(out, StrTab_get(t->strings, k->name));
        fprintf(out, ", \"class\": \"%s\", \"count\": %zu, \"total_ns\": %" PRId64 ", \"mean_ns\": %" PRId64 "}",
                EventClass_name(k->cls), k->count, k->total, k->total / (int64_t)k->count);
    }
    fputs(R->n_kernels ? "\n  ]" : "]", out);
}

static void print_json(FILE *out, const Trace *t, const OverlapReport *R, int64_t t0, int64_t t1,
                       const CollOptions *co) {
    StatsHead h = head_of(t);
    print_json_head(out, t, &h, R, t0, t1);
    CounterSet *cs = CounterSet_build(t);
    StatsCounters_json(out, t, cs, &R->filter);
    StatsServe_json(out, t, cs, &R->filter);
    CounterSet_free(cs);
    stats_coll_json(out, t, &R->filter, co);
    fputs("\n}\n", out);
}

enum { ST_JSON = 100, ST_RANGE, ST_RANK, ST_DEVICE, ST_STREAM, ST_TOP, ST_SUMMARY };

static const OptSpec STATS_OPTIONS[] = {
    {"--json", 0, false, ST_JSON, NULL, false},     {"--range", 0, true, ST_RANGE, NULL, false},
    {"--rank", 0, true, ST_RANK, NULL, false},      {"--device", 0, true, ST_DEVICE, NULL, false},
    {"--stream", 0, true, ST_STREAM, NULL, false},  {"--top", 0, true, ST_TOP, NULL, false},
    {"--summary", 0, true, ST_SUMMARY, NULL, false}, {0},
};
const OptSpec *const STATS_TABLES[] = {STATS_OPTIONS, INPUT_OPTIONS, NULL};

typedef struct {
    InputOptions in;
    OverlapFilter f;
    const char *range;
    const char *summary;
    bool json;
} StatsArgs;

static int stats_opt(void *ctx, const OptSpec *s, const char *v) {
    StatsArgs *A = ctx;
    int64_t n;
    if (!s || s->id < ST_JSON) return InputOptions_apply(&A->in, s, v);
    if (s->id == ST_JSON) A->json = true;
    else if (s->id == ST_RANGE) A->range = v;
    else if (s->id == ST_SUMMARY) A->summary = v;
    else {
        /* a rank is 32 bits in the model: a larger value must not wrap onto another */
        if (!cli_filterValue(s->name, v, s->id == ST_RANK ? INT32_MAX : INT64_MAX, &n)) return 2;
        if (s->id == ST_RANK) A->f.rank = (int32_t)n;
        else if (s->id == ST_DEVICE) A->f.device = n;
        else if (s->id == ST_STREAM) A->f.stream = n;
        else A->f.top_n = n ? (size_t)n : SIZE_MAX; /* 0 lists all, as in diff */
    }
    return 0;
}

/* stats --summary from one process's model: the bands over the whole extent. */
static bool summary_one(const char *out, const Trace *t, const OverlapReport *R, const CollOptions *co) {
    const size_t nb = (size_t)SUMMARY_COLUMNS * BAND__COUNT;
    int64_t *bands = xcalloc(R->n_devices * nb + 1, sizeof *bands);
    for (size_t i = 0; i < R->n_devices; i++)
        Overlap_band(t, R->devices[i].group, t->t_min, t->t_max, SUMMARY_COLUMNS, bands + i * nb);
    CollReport *C = Coll_analyze(t, co);
    bool ok = StatsSummary_write(out, t, R, bands, C, t->t_min, t->t_max);
    CollReport_free(C);
    free(bands);
    return ok;
}

/* --range against t's extent into f; 0, or 2 (said on stderr when report). */
static int resolve_range(const char *range, const Trace *t, OverlapFilter *f, bool report) {
    if (!range) return 0;
    char err[256];
    if (!Time_parseRange(range, t->t_min, &f->t0, &f->t1, err, sizeof err)) {
        if (report) cli_error("--range: %s", err);
        return 2;
    }
    if (f->t1 <= t->t_min || f->t0 >= t->t_max) { /* as view says it: all-zero tables look like a broken trace */
        if (report) cli_rangeOutside(range, t, f->t0, f->t1);
        return 2;
    }
    return 0;
}

/* ---- under mpirun: the processes share the files (scaleout.h) ---- */

static int mpi_resolve(void *ctx, const Trace *t, OverlapFilter *f, bool report) {
    const StatsArgs *A = ctx;
    return resolve_range(A->range, t, f, report);
}

static void mpi_error(void *ctx, const char *msg) {
    (void)ctx;
    cli_error("%s", msg);
}

static void mpi_counter(void *ctx, FILE *out, const Trace *t, const CounterSeries *s, const OverlapFilter *f,
                        bool json) {
    (void)ctx;
    if (json) StatsCounters_entry(out, t, s, f);
    else StatsCounters_line(out, t, s, f);
}

/* Rank 0's output, the sections in the order one process prints them. */
static void mpi_print(const ScaleStats *S, bool json, bool quiet) {
    const OverlapFilter *f = &S->filter;
    StatsHead h = {S->events, S->lanes, S->t_min, S->t_max, S->truncated, S->skipped};
    if (S->R->n_devices == 0 && !quiet) selection_note(S->t, f);
    if (json) {
        print_json_head(stdout, S->t, &h, S->R, f->t0, f->t1);
        fputs(",\n  \"counters\": [", stdout);
        for (size_t i = 0; i < S->n_counters; i++) {
            fputs(i ? ",\n    " : "\n    ", stdout);
            fwrite(S->counters[i].text, 1, S->counters[i].len, stdout);
        }
        fputs(S->n_counters ? "\n  ]" : "]", stdout);
        StatsServe_jsonStats(stdout, S->serve_any ? &S->serve : NULL);
        stats_coll_jsonWith(stdout, S->t, f, S->coll, S->dev, S->n_dev);
        fputs("\n}\n", stdout);
        return;
    }
    print_table(stdout, S->t, &h, S->R, f->t0, f->t1);
    if (S->n_counters) StatsCounters_head(stdout);
    for (size_t i = 0; i < S->n_counters; i++) fwrite(S->counters[i].text, 1, S->counters[i].len, stdout);
    if (S->serve_any) StatsServe_printStats(stdout, &S->serve);
    if (S->R->n_devices) stats_coll_tableWith(stdout, S->t, f, S->coll, S->dev, S->n_dev);
}

static int stats_mpi(StatsArgs *A) {
    InputOptions *inp = &A->in;
    ScaleStatsIn in = {.paths = inp->files,
                       .n_paths = inp->n_files,
                       .load = InputOptions_loadOptions(inp),
                       .quiet = inp->quiet,
                       .filter = A->f,
                       .coll = inp->coll,
                       .json = A->json,
                       .summary = A->summary != NULL,
                       .resolve = mpi_resolve,
                       .error = mpi_error,
                       .counter = mpi_counter,
                       .ctx = A};
    ScaleStats *S = NULL;
    int rc = Scaleout_stats(&in, &S);
    if (S) mpi_print(S, A->json, inp->quiet);
    if (S && A->summary && !StatsSummary_write(A->summary, S->t, S->R, S->bands, S->coll, S->t_min, S->t_max)) rc = 1;
    ScaleStats_free(S);
    return rc;
}

int cmd_stats(int argc, char **argv) {
    StatsArgs A = {.f = OverlapFilter_all()};
    InputOptions_init(&A.in);
    InputOptions *const inp = &A.in;
    int rc = Cli_parseOptions("stats", argc, argv, STATS_TABLES, stats_opt, &A, NULL);
    if (rc) goto out;
    if (!InputOptions_needFiles(inp, "stats", "ovtrace stats [OPTIONS] FILE...")) {
        rc = 2;
        goto out;
    }
    if (A.summary && !summary_not_input(A.summary, inp)) { /* an output that cannot be written, as export says */
        rc = 1;
        goto out;
    }
    if (inp->mpirun) {
        rc = stats_mpi(&A);
        goto out;
    }
    OverlapFilter f = A.f;
    bool json = A.json;
    Trace *t = InputOptions_load(inp);
    if (!t) {
        rc = 1;
        goto out;
    }
    if (!cli_notSummary(t, "stats", inp->files[0])) {
        Trace_free(t);
        rc = 2;
        goto out;
    }
    rc = resolve_range(A.range, t, &f, true);
    if (rc) {
        Trace_free(t);
        goto out;
    }
    OverlapReport *R = Overlap_compute(t, &f);
    if (R->n_devices == 0 && !inp->quiet) selection_note(t, &f);
    if (json) print_json(stdout, t, R, f.t0, f.t1, &inp->coll);
    else {
        StatsHead h = head_of(t);
        print_table(stdout, t, &h, R, f.t0, f.t1);
        CounterSet *cs = CounterSet_build(t);
        StatsCounters_print(stdout, t, cs, &f);
        StatsServe_print(stdout, t, cs, &f);
        CounterSet_free(cs);
        if (R->n_devices) stats_coll_table(stdout, t, &f, &inp->coll);
    }
    rc = A.summary && !summary_one(A.summary, t, R, &inp->coll) ? 1 : 0;
    OverlapReport_free(R);
    Trace_free(t);
out:
    InputOptions_free(inp);
    return rc;
}
