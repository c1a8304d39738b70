/* ovtrace export: a filtered Chrome trace that Perfetto and chrome://tracing open
 * (docs/export.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/base/parse.h"
#include "ovtrace/write/export.h"
#include "ovtrace/base/termsafe.h"
#include "ovtrace/model/timeunits.h"

void help_export(FILE *out) {
    fprintf(out,
            "usage: ovtrace export IN... -o OUT [FILTERS] [OPTIONS]\n\n"
            "Writes the selected events as a Chrome trace (JSON object form) that Perfetto and\n"
            "chrome://tracing open. Events are copied byte-for-byte from the input (args and\n"
            "timestamps exactly as they were); metadata for the kept lanes, flows whose both ends\n"
            "are kept and the top-level keys (deviceProperties, distributedInfo, ...) come along.\n"
            "The filter is recorded in traceName and in a top-level \"ovtrace\" key.\n\n"
            "output:\n"
            "  -o, --output OUT  OUT.json, OUT.json.gz (gzip) or OUT.json.zst (zstd); '-' = stdout\n"
            "                    several ranks: one file per rank, OUT.rankN.json, unless --merge\n"
            "  --merge           several ranks into one file (pids become \"rank R pid P\")\n\n"
            "filters (all must match):\n"
            "  --range A:B       events intersecting [A, B), relative to the trace start, with units\n"
            "                    (ns, us, ms, s; bare numbers are us); '@' marks absolute times;\n"
            "                    either side may be empty, e.g. 10ms:  or  :2.5ms\n"
            "  --rank N          only rank N\n"
            "  --device N        only GPU device N (GPU lanes only)\n"
            "  --stream N        only stream N (GPU lanes only)\n"
            "  --name REGEX      only names matching the POSIX extended regex\n"
            "  --exclude REGEX   drop names matching the regex\n"
            "  --class LIST      compute, comm, memory, sync, cpu, annotation, other (comma list)\n"
            "  --min-dur DUR     only events lasting at least DUR (e.g. 5us; bare numbers are us)\n"
            "  --with-launches   also keep the CPU runtime/driver calls that launched kept GPU ops\n"
            "  --clip            with --range: cut slices that cross the range's ends to the range\n"
            "                    (their ts/dur rewritten), so `stats` of the output gives the same\n"
            "                    figures as `stats --range` of the input\n\n"
            "The output is written to a temporary file beside OUT and renamed when complete; a\n"
            "failed export leaves nothing behind. An input file is never overwritten. A symlink\n"
            "OUT replaces the file it points to (the link stays); OUT '-', a device (/dev/null)\n"
            "or a FIFO (e.g. >(zstd -o x.zst)) is written to directly; a terminal is refused\n"
            "(trace bytes are copied raw). Temporary files left by killed exports\n"
            "(.OUT.tmp-PID-*, their process gone) are removed.\n");
    InputOptions_help(out);
}

static bool parse_classes(const char *s, uint32_t *mask) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        int c = EventClass_parse(tok);
        if (c < 0) {
            cli_error("--class: unknown class '%s' (expected compute, comm, memory, sync, cpu, annotation or other, "
                      "comma-separated)",
                      tok);
            return false;
        }
        *mask |= 1u << c;
    }
    if (!*mask) {
        cli_error("--class needs at least one class (compute, comm, memory, sync, cpu, annotation, other)");
        return false;
    }
    return true;
}

/* The command line, quoted where needed, for the output's "ovtrace" key. */
static char *command_line(int argc, char **argv) {
    size_t cap = 64;
    for (int i = 0; i < argc; i++) cap += strlen(argv[i]) * 2 + 3;
    char *s = xmalloc(cap), *p = s;
    p += sprintf(p, "ovtrace");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool quote = !*a || strpbrk(a, " \t\"'\\$*?|&;<>()[]{}") != NULL;
        *p++ = ' ';
        if (quote) *p++ = '\'';
        for (; *a; a++) {
            if (*a == '\'' && quote) {
                memcpy(p, "'\\''", 4);
                p += 4;
            } else {
                *p++ = *a;
            }
        }
        if (quote) *p++ = '\'';
    }
    *p = '\0';
    return s;
}

enum { EX_OUTPUT = 100, EX_RANGE, EX_RANK, EX_DEVICE, EX_STREAM, EX_NAME, EX_EXCLUDE, EX_CLASS, EX_MIN_DUR,
       EX_LAUNCHES, EX_CLIP, EX_MERGE };

static const OptSpec EXPORT_OPTIONS[] = {
    {"--output", 'o', true, EX_OUTPUT, NULL, false},  {"--range", 0, true, EX_RANGE, NULL, false},
    {"--rank", 0, true, EX_RANK, NULL, false},        {"--device", 0, true, EX_DEVICE, NULL, false},
    {"--stream", 0, true, EX_STREAM, NULL, false},    {"--name", 0, true, EX_NAME, NULL, false},
    {"--exclude", 0, true, EX_EXCLUDE, NULL, false},  {"--class", 0, true, EX_CLASS, NULL, false},
    {"--min-dur", 0, true, EX_MIN_DUR, NULL, false},  {"--with-launches", 0, false, EX_LAUNCHES, NULL, false},
    {"--clip", 0, false, EX_CLIP, NULL, false},       {"--merge", 0, false, EX_MERGE, NULL, false},
    {0},
};
const OptSpec *const EXPORT_TABLES[] = {EXPORT_OPTIONS, INPUT_OPTIONS, NULL};

typedef struct {
    InputOptions in;
    ExportFilter f;
    const char *out, *range;
} ExportArgs;

static int export_opt(void *ctx, const OptSpec *s, const char *v) {
    ExportArgs *A = ctx;
    ExportFilter *f = &A->f;
    int64_t n;
    if (!s || s->id < EX_OUTPUT) return InputOptions_apply(&A->in, s, v);
    switch (s->id) {
    case EX_OUTPUT: A->out = v; break;
    case EX_RANGE: A->range = v; break;
    case EX_RANK:
    case EX_DEVICE:
    case EX_STREAM:
        if (!cli_filterValue(s->name, v, s->id == EX_RANK ? INT32_MAX : INT64_MAX, &n)) return 2;
        if (s->id == EX_RANK) f->rank = (int32_t)n;
        else if (s->id == EX_DEVICE) f->device = n;
        else f->stream = n;
        break;
    case EX_NAME: f->name_re = v; break;
    case EX_EXCLUDE: f->exclude_re = v; break;
    case EX_CLASS: return parse_classes(v, &f->class_mask) ? 0 : 2;
    case EX_MIN_DUR: {
        char err[256];
        if (!Time_parseDuration(v, 1000, &f->min_dur, err, sizeof err) || f->min_dur < 0) {
            cli_error("--min-dur: %s", f->min_dur < 0 ? "the duration must not be negative" : err);
            return 2;
        }
        break;
    }
    case EX_LAUNCHES: f->with_launches = true; break;
    case EX_CLIP: f->clip = true; break;
    case EX_MERGE: f->merge = true; break;
    }
    return 0;
}

int cmd_export(int argc, char **argv) {
    ExportArgs A = {.f = ExportFilter_all()};
    InputOptions_init(&A.in);
    InputOptions *const inp = &A.in;
    char *cmdline = NULL;
    int rc = Cli_parseOptions("export", argc, argv, EXPORT_TABLES, export_opt, &A, NULL);
    if (rc) goto done;
    rc = 2;
    ExportFilter f = A.f;
    const char *out = A.out, *range = A.range;
    if (!out) {
        cli_error("export needs an output file: -o OUT (OUT.json, OUT.json.gz, OUT.json.zst, or - for stdout)");
        goto done;
    }
    if (!InputOptions_needFiles(inp, "export", "ovtrace export IN... -o OUT")) goto done;
    if (f.clip && !range) {
        cli_error("--clip needs --range A:B (the range to cut slices to)");
        goto done;
    }
    Trace *t = InputOptions_load(inp);
    if (!t) {
        rc = 1;
        goto done;
    }
    if (!cli_notSummary(t, "export", inp->files[0])) {
        Trace_free(t);
        goto done;
    }
    if (range) {
        char err[256];
        if (!Time_parseRange(range, t->t_min, &f.t0, &f.t1, err, sizeof err)) {
            cli_error("--range: %s", err);
            Trace_free(t);
            goto done;
        }
        if (f.t1 <= t->t_min || f.t0 >= t->t_max) { /* as stats and view: not an empty file */
            cli_rangeOutside(range, t, f.t0, f.t1);
            Trace_free(t);
            goto done;
        }
    }
    cmdline = command_line(argc, argv);
    f.description = cmdline;
    ExportResult res;
    char err[1024];
    if (!Export_run(t, &f, out, &res, err, sizeof err)) {
        cli_error("export: %s", err);
        Trace_free(t);
        rc = 1;
        goto done;
    }
    FILE *msg = res.streamed ? stderr : stdout; /* stdout may be where the trace went */
    if (res.files_written > 1)
        TermSafe_fprintf(msg, "wrote %zu events to %zu files (%s, ...)\n", res.events_written, res.files_written,
                res.first_path);
    else
        TermSafe_fprintf(msg, "wrote %zu events to %s\n", res.events_written, strcmp(out, "-") ? res.first_path : "stdout");
    Trace_free(t);
    rc = 0;
done:
    free(cmdline);
    InputOptions_free(inp);
    return rc;
}
