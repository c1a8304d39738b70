/* ovtrace export: a filtered Chrome trace that Perfetto and chrome://tracing open
 * (docs/export.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ovtrace/base/parse.h"
#include "ovtrace/export.h"
#include "ovtrace/termsafe.h"
#include "ovtrace/timeunits.h"

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
    char *s = malloc(cap), *p = s;
    if (!s) return NULL;
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

int cmd_export(int argc, char **argv) {
    InputOptions in;
    InputOptions_init(&in);
    ExportFilter f = ExportFilter_all();
    const char *out = NULL, *range = NULL, *min_dur = NULL;
    char *cmdline = NULL;
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int64_t n;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!(out = cli_value(argc, argv, &i))) goto done;
        } else if (!strcmp(a, "--range")) {
            if (!(range = cli_value(argc, argv, &i))) goto done;
        } else if (!strcmp(a, "--rank") || !strcmp(a, "--device") || !strcmp(a, "--stream")) {
            if (!(v = cli_value(argc, argv, &i))) goto done;
            if (!Parse_i64(v, &n) || n < 0 || (a[2] == 'r' && n > INT32_MAX)) {
                cli_error("%s needs a non-negative integer, got '%s'", a, v);
                goto done;
            }
            if (a[2] == 'r') f.rank = (int32_t)n;
            else if (a[2] == 'd') f.device = n;
            else f.stream = n;
        } else if (!strcmp(a, "--name")) {
            if (!(f.name_re = cli_value(argc, argv, &i))) goto done;
        } else if (!strcmp(a, "--exclude")) {
            if (!(f.exclude_re = cli_value(argc, argv, &i))) goto done;
        } else if (!strcmp(a, "--class")) {
            if (!(v = cli_value(argc, argv, &i)) || !parse_classes(v, &f.class_mask)) goto done;
        } else if (!strcmp(a, "--min-dur")) {
            if (!(min_dur = cli_value(argc, argv, &i))) goto done;
            char err[256];
            if (!Time_parseDuration(min_dur, 1000, &f.min_dur, err, sizeof err) || f.min_dur < 0) {
                cli_error("--min-dur: %s", f.min_dur < 0 ? "the duration must not be negative" : err);
                goto done;
            }
        } else if (!strcmp(a, "--with-launches")) {
            f.with_launches = true;
        } else if (!strcmp(a, "--clip")) {
            f.clip = true;
        } else if (!strcmp(a, "--merge")) {
            f.merge = true;
        } else {
            int r = InputOptions_parse(&in, argc, argv, &i);
            if (r < 0) goto done;
            if (r == 0) {
                cli_error("unknown option '%s' for export (see 'ovtrace export --help')", a);
                goto done;
            }
        }
    }
    if (!out) {
        cli_error("export needs an output file: -o OUT (OUT.json, OUT.json.gz, OUT.json.zst, or - for stdout)");
        goto done;
    }
    if (in.n_files == 0) {
        cli_error("export needs at least one input trace (ovtrace export IN... -o OUT)");
        goto done;
    }
    if (f.clip && !range) {
        cli_error("--clip needs --range A:B (the range to cut slices to)");
        goto done;
    }
    Trace *t = InputOptions_load(&in);
    if (!t) {
        rc = 1;
        goto done;
    }
    if (range) {
        char err[256];
        if (!Time_parseRange(range, t->t_min, &f.t0, &f.t1, err, sizeof err)) {
            cli_error("--range: %s", err);
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
    InputOptions_free(&in);
    return rc;
}
