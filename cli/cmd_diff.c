/* ovtrace diff: compare two runs (files, directories or rank sets), as a table or as
 * JSON (docs/diff-json.md). Each side is summarised and freed before the next loads. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/analysis/diff.h"
#include "ovtrace/read/collargs.h"
#include "ovtrace/write/jsonout.h"
#include "ovtrace/base/termsafe.h"
#include "ovtrace/model/timeunits.h"

void help_diff(FILE *out) {
    fprintf(out,
            "usage: ovtrace diff [OPTIONS] A B\n"
            "       ovtrace diff [OPTIONS] --a PATH... --b PATH...\n\n"
            "Compares two runs. A and B are each a trace file, a directory of traces, or a\n"
            "comma-separated list of files (one run's ranks: r0.json,r1.json). --a/--b take one\n"
            "path each and may repeat (for paths that contain commas).\n\n"
            "Prints, for each (rank, device) and in total, the overlap figures of A and B and\n"
            "B - A (window, busy, compute, comm, overlap, exposed comm, ratio: the figures of\n"
            "'ovtrace stats'); with two ranks or more, comm wait/transfer per device and in\n"
            "total (comm, wait, transfer, exposed, exposed wait, exposed transfer: the\n"
            "collectives figures of 'ovtrace stats'), else n/a (one rank); count and total\n"
            "time per kernel class and per kernel name, sorted by the absolute change; the\n"
            "kernels found in only one run; and, when the runs have iterations\n"
            "(ProfilerStep#N, or --step), time and overlap per step and their medians.\n\n"
            "options:\n"
            "  --json            machine-readable output (schema: docs/diff-json.md)\n"
            "  --group-names     group kernel names that differ only in template arguments,\n"
            "                    parameter lists, return type or mangling\n"
            "  --step REGEX      iterations are the events whose name matches REGEX (POSIX\n"
            "                    extended); step number = the last number in the name, else order\n"
            "  --top N           kernel rows to print (default 20, 0 for all; --json lists all)\n"
            "  --a PATH, --b PATH  add PATH to run A / run B\n");
    InputOptions_help(out);
}

/* Trace strings go to a terminal: at most maxw code points (a stray byte counts as one,
 * the rest as "..."), escaped by the shared terminal sanitiser as in `stats`. */
static void put_safe(FILE *out, const char *s, size_t maxw) {
    size_t n = strlen(s), i = 0;
    for (size_t w = 0; i < n && w < maxw; w++) {
        uint32_t cp;
        size_t k = TermSafe_decode((const unsigned char *)s + i, n - i, &cp);
        i += k ? k : 1;
    }
    char buf[512], *cut = i < sizeof buf ? buf : xmalloc(i + 1);
    memcpy(cut, s, i);
    cut[i] = '\0';
    TermSafe_fputs(cut, out, false);
    if (cut != buf) free(cut);
    if (i < n) fputs("...", out);
}

static const char *us(char *buf, int64_t ns) {
    Time_formatUs(buf, 32, ns);
    return buf;
}

/* "+1,234" / "-1,234" / "0" */
static const char *sus(char *buf, int64_t ns) {
    buf[0] = ns > 0 ? '+' : '-';
    Time_formatUs(buf + 1, 31, ns < 0 ? -ns : ns);
    return strcmp(buf + 1, "0") ? buf : buf + 1;
}

/* ---- table ---- */

static void print_files(FILE *out, const char *side, const DiffRun *r) {
    char span[32];
    Time_format(span, sizeof span, r->t_max - r->t_min);
    fprintf(out, "%s: %zu file%s, %zu events, span %s\n", side, r->n_files, r->n_files == 1 ? "" : "s", r->n_events,
            span);
    for (size_t i = 0; i < r->n_files; i++) {
        fprintf(out, "   rank %d  ", r->files[i].rank);
        put_safe(out, r->files[i].path, 200);
        fputc('\n', out);
    }
}

static void print_fig_row(FILE *out, const char *label, const DeviceFigures *d) {
    char c[7][32];
    fprintf(out, "  %-13s", label);
    if (!d) {
        fprintf(out, " %10s\n", "absent");
        return;
    }
    fprintf(out, " %10s %10s %10s %10s %10s %10s", us(c[0], d->window), us(c[1], d->busy), us(c[2], d->compute),
            us(c[3], d->comm), us(c[4], d->overlap), us(c[5], d->exposed));
    if (d->has_comm) fprintf(out, " %8.4f\n", d->ratio);
    else fprintf(out, " %8s\n", "no comm");
}

static void print_delta_row(FILE *out, const DeviceFigures *a, const DeviceFigures *b) {
    if (!a || !b) return;
    char c[7][32];
    fprintf(out, "  %-13s %10s %10s %10s %10s %10s %10s", "  B - A", sus(c[0], b->window - a->window),
            sus(c[1], b->busy - a->busy), sus(c[2], b->compute - a->compute), sus(c[3], b->comm - a->comm),
            sus(c[4], b->overlap - a->overlap), sus(c[5], b->exposed - a->exposed));
    if (a->has_comm && b->has_comm) fprintf(out, " %+8.4f\n", b->ratio - a->ratio);
    else fprintf(out, " %8s\n", "-");
}

static void print_devices(FILE *out, const DiffReport *R) {
    fprintf(out, "\noverlap per device (us)\n  %-13s %10s %10s %10s %10s %10s %10s %8s\n", "", "window", "busy",
            "compute", "comm", "overlap", "exposed", "ratio");
    for (size_t i = 0; i < R->n_devices; i++) {
        const DiffDevice *d = &R->devices[i];
        fprintf(out, "rank %d device %" PRId64 "%s\n", d->rank, d->device,
                !d->a ? " (only in B)" : !d->b ? " (only in A)" : "");
        print_fig_row(out, "  A", d->a);
        print_fig_row(out, "  B", d->b);
        print_delta_row(out, d->a, d->b);
    }
    fprintf(out, "all devices\n");
    print_fig_row(out, "  A", &R->a->total);
    print_fig_row(out, "  B", &R->b->total);
    print_delta_row(out, &R->a->total, &R->b->total);
}

/* Comm wait/transfer (the collectives figures of `stats`), where the run has ranks. */
static void print_coll_row(FILE *out, const char *label, const DiffRun *r, bool present, const DiffColl *c) {
    char v[6][32];
    fprintf(out, "  %-13s", label);
    if (!present) fprintf(out, " %10s\n", "absent");
    else if (r->coll_ranks < 2) fprintf(out, " %s\n", "n/a (one rank)");
    else if (!c) fprintf(out, " %10s\n", "none");
    else
        fprintf(out, " %10s %10s %10s %10s %10s %10s\n", us(v[0], c->comm), us(v[1], c->wait), us(v[2], c->transfer),
                us(v[3], c->exposed), us(v[4], c->exposed_wait), us(v[5], c->exposed_transfer));
}

static void print_coll_delta(FILE *out, const DiffColl *a, const DiffColl *b) {
    if (!a || !b) return;
    char v[6][32];
    fprintf(out, "  %-13s %10s %10s %10s %10s %10s %10s\n", "  B - A", sus(v[0], b->comm - a->comm),
            sus(v[1], b->wait - a->wait), sus(v[2], b->transfer - a->transfer), sus(v[3], b->exposed - a->exposed),
            sus(v[4], b->exposed_wait - a->exposed_wait), sus(v[5], b->exposed_transfer - a->exposed_transfer));
}

static void print_coll(FILE *out, const DiffReport *R) {
    fprintf(out, "\ncomm wait/transfer per device (us; wait = before the last rank arrived, transfer = after)\n"
                 "  %-13s %10s %10s %10s %10s %10s %10s\n",
            "", "comm", "wait", "transfer", "exposed", "exp.wait", "exp.xfer");
    for (size_t i = 0; i < R->n_devices; i++) {
        const DiffDevice *d = &R->devices[i];
        fprintf(out, "rank %d device %" PRId64 "%s\n", d->rank, d->device,
                !d->a ? " (only in B)" : !d->b ? " (only in A)" : "");
        print_coll_row(out, "  A", R->a, d->a != NULL, d->coll_a);
        print_coll_row(out, "  B", R->b, d->b != NULL, d->coll_b);
        print_coll_delta(out, d->coll_a, d->coll_b);
    }
    fprintf(out, "all devices\n");
    const DiffColl *ta = R->a->coll_ranks >= 2 ? &R->a->coll_total : NULL;
    const DiffColl *tb = R->b->coll_ranks >= 2 ? &R->b->coll_total : NULL;
    print_coll_row(out, "  A", R->a, true, ta);
    print_coll_row(out, "  B", R->b, true, tb);
    print_coll_delta(out, ta, tb);
}

static void print_classes(FILE *out, const DiffReport *R) {
    char c[4][32];
    fprintf(out, "\nkernels per class (us)\n  %-9s %8s %8s %12s %12s %12s\n", "class", "count A", "count B", "total A",
            "total B", "B - A");
    for (int k = 0; k < CLASS__COUNT; k++) {
        const DiffClass *x = &R->a->classes[k], *y = &R->b->classes[k];
        if (!x->count && !y->count) continue;
        fprintf(out, "  %-9s %8zu %8zu %12s %12s %12s\n", EventClass_name((EventClass)k), x->count, y->count,
                us(c[0], x->total), us(c[1], y->total), sus(c[2], y->total - x->total));
    }
}

static void print_kernels(FILE *out, const DiffReport *R, size_t top, bool grouped) {
    char c[4][32];
    size_t n = top && top < R->n_kernels ? top : R->n_kernels;
    fprintf(out, "\nkernel%s by absolute change (us)\n  %8s %8s %12s %12s %12s  %-8s %s\n", grouped ? " groups" : "s",
            "count A", "count B", "total A", "total B", "B - A", "class", "name");
    for (size_t i = 0; i < n; i++) {
        const DiffKernelRow *k = &R->kernels[i];
        fprintf(out, "  %8zu %8zu %12s %12s %12s  %-8s ", k->count_a, k->count_b, us(c[0], k->total_a),
                us(c[1], k->total_b), sus(c[2], DiffKernelRow_delta(k)), EventClass_name(k->cls));
        put_safe(out, k->name, 100);
        fputs(!k->in_a ? "  [only in B]\n" : !k->in_b ? "  [only in A]\n" : "\n", out);
    }
    if (n < R->n_kernels) fprintf(out, "  ... %zu more (--top 0 lists all)\n", R->n_kernels - n);
    for (int side = 0; side < 2; side++) {
        size_t cnt = 0;
        for (size_t i = 0; i < R->n_kernels; i++) cnt += side ? !R->kernels[i].in_a : !R->kernels[i].in_b;
        fprintf(out, "\nkernel%s only in %c: %zu\n", grouped ? " groups" : "s", side ? 'B' : 'A', cnt);
        size_t shown = 0;
        for (size_t i = 0; i < R->n_kernels && cnt; i++) {
            const DiffKernelRow *k = &R->kernels[i];
            if (side ? k->in_a : k->in_b) continue;
            if (top && shown == top) {
                fprintf(out, "  ... %zu more\n", cnt - shown);
                break;
            }
            fprintf(out, "  %8zu x %12s us  ", side ? k->count_b : k->count_a, us(c[0], side ? k->total_b : k->total_a));
            put_safe(out, k->name, 100);
            fputc('\n', out);
            shown++;
        }
    }
}

static void print_step_side(FILE *out, const Step *s) {
    char c[4][32];
    if (!s) {
        fprintf(out, " %10s %10s %10s %8s", "-", "-", "-", "-");
        return;
    }
    fprintf(out, " %10s %10s %10s", us(c[0], s->gpu_end - s->gpu_start), us(c[1], s->fig.comm),
            us(c[2], s->fig.exposed));
    if (s->fig.has_comm) fprintf(out, " %8.4f", s->fig.ratio);
    else fprintf(out, " %8s", "-");
}

static void print_steps(FILE *out, const DiffReport *R, const char *regex) {
    if (!R->n_steps) {
        fprintf(out, "\nno iterations found (%s)\n", regex ? "--step matched nothing" : "no ProfilerStep#N annotations");
        return;
    }
    char c[4][32];
    fprintf(out, "\nsteps (%s; time = GPU window, us)\n  %-8s %10s %10s %10s %8s |%10s %10s %10s %8s | %10s %10s\n",
            regex ? "--step" : "ProfilerStep#N", "step", "time A", "comm A", "exposed A", "ratio A", "time B", "comm B",
            "exposed B", "ratio B", "time B-A", "exp. B-A");
    for (size_t i = 0; i < R->n_steps; i++) {
        const DiffStepRow *s = &R->steps[i];
        fprintf(out, "  %-8" PRId64, s->key);
        print_step_side(out, s->a);
        fputs(" |", out);
        print_step_side(out, s->b);
        if (s->a && s->b)
            fprintf(out, " | %10s %10s\n", sus(c[0], (s->b->gpu_end - s->b->gpu_start) - (s->a->gpu_end - s->a->gpu_start)),
                    sus(c[1], s->b->fig.exposed - s->a->fig.exposed));
        else fprintf(out, " | %10s %10s\n", "-", "-");
    }
    const StepList *A = &R->a->steps, *B = &R->b->steps;
    fprintf(out, "  %-8s", "median");
    for (int side = 0; side < 2; side++) {
        const StepList *S = side ? B : A;
        if (!S->n) {
            fprintf(out, " %10s %10s %10s %8s", "-", "-", "-", "-");
        } else {
            double r = Steps_medianRatio(S);
            fprintf(out, " %10s %10s %10s", us(c[0], Steps_medianTime(S)),
                    us(c[1], Steps_medianField(S, offsetof(DeviceFigures, comm))),
                    us(c[2], Steps_medianField(S, offsetof(DeviceFigures, exposed))));
            if (r >= 0) fprintf(out, " %8.4f", r);
            else fprintf(out, " %8s", "-");
        }
        if (!side) fputs(" |", out);
    }
    if (A->n && B->n)
        fprintf(out, " | %10s %10s\n", sus(c[0], Steps_medianTime(B) - Steps_medianTime(A)),
                sus(c[1], Steps_medianField(B, offsetof(DeviceFigures, exposed)) -
                              Steps_medianField(A, offsetof(DeviceFigures, exposed))));
    else fputc('\n', out);
}

/* ---- JSON ---- */

static void json_fig(FILE *out, const DeviceFigures *d) {
    if (!d) {
        fputs("null", out);
        return;
    }
    fputc('{', out);
    cli_jsonFigures(out, d); /* the members of `stats --json`'s device objects */
    fputc('}', out);
}

static void json_delta(FILE *out, const DeviceFigures *a, const DeviceFigures *b) {
    if (!a || !b) {
        fputs("null", out);
        return;
    }
    fprintf(out,
            "{\"window_ns\": %" PRId64 ", \"busy_ns\": %" PRId64 ", \"idle_ns\": %" PRId64 ", \"compute_ns\": %" PRId64
            ", \"comm_ns\": %" PRId64 ", \"overlap_ns\": %" PRId64 ", \"exposed_comm_ns\": %" PRId64
            ", \"memory_ns\": %" PRId64 ", \"events\": %" PRId64 ", \"overlap_ratio\": ",
            b->window - a->window, b->busy - a->busy, b->idle - a->idle, b->compute - a->compute, b->comm - a->comm,
            b->overlap - a->overlap, b->exposed - a->exposed, b->memory - a->memory,
            (int64_t)b->n_events - (int64_t)a->n_events);
    if (a->has_comm && b->has_comm) fprintf(out, "%.6f}", b->ratio - a->ratio);
    else fputs("null}", out);
}

static void json_coll(FILE *out, const DiffColl *c) {
    if (!c) {
        fputs("null", out);
        return;
    }
    fprintf(out,
            "{\"comm_ns\": %" PRId64 ", \"wait_ns\": %" PRId64 ", \"transfer_ns\": %" PRId64
            ", \"exposed_comm_ns\": %" PRId64 ", \"exposed_wait_ns\": %" PRId64 ", \"exposed_transfer_ns\": %" PRId64 "}",
            c->comm, c->wait, c->transfer, c->exposed, c->exposed_wait, c->exposed_transfer);
}

static void json_coll3(FILE *out, const DiffColl *a, const DiffColl *b) {
    fputs(", \"collectives\": {\"a\": ", out);
    json_coll(out, a);
    fputs(", \"b\": ", out);
    json_coll(out, b);
    fputs(", \"delta\": ", out);
    if (a && b) {
        DiffColl d = {0, 0, b->comm - a->comm, b->wait - a->wait, b->transfer - a->transfer, b->exposed - a->exposed,
                      b->exposed_wait - a->exposed_wait, b->exposed_transfer - a->exposed_transfer};
        json_coll(out, &d);
    } else {
        fputs("null", out);
    }
    fputc('}', out);
}

static void json_run(FILE *out, const DiffRun *r) {
    fputs("{\"files\": [", out);
    for (size_t i = 0; i < r->n_files; i++) {
        fprintf(out, "%s{\"path\": ", i ? ", " : "");
        JsonOut_string(out, r->files[i].path);
        fprintf(out, ", \"rank\": %d}", r->files[i].rank);
    }
    fprintf(out, "], \"events\": %zu, \"trace_start_ns\": %" PRId64 ", \"trace_end_ns\": %" PRId64 ", \"ranks\": %zu}",
            r->n_events, r->t_min, r->t_max, r->coll_ranks);
}

static void json_step(FILE *out, const Step *s) {
    if (!s) {
        fputs("null", out);
        return;
    }
    fprintf(out,
            "{\"marks\": %zu, \"cpu_start_ns\": %" PRId64 ", \"cpu_end_ns\": %" PRId64 ", \"gpu_start_ns\": %" PRId64
            ", \"gpu_end_ns\": %" PRId64 ", \"time_ns\": %" PRId64 ", \"gpu_window_from\": \"%s\", \"figures\": ",
            s->n_marks, s->cpu_start, s->cpu_end, s->gpu_start, s->gpu_end, s->gpu_end - s->gpu_start,
            s->gpu_from_launches ? "launches" : "annotation");
    json_fig(out, &s->fig);
    fputc('}', out);
}

static void json_median(FILE *out, const StepList *S) {
    if (!S->n) {
        fputs("null", out);
        return;
    }
    fprintf(out,
            "{\"steps\": %zu, \"time_ns\": %" PRId64 ", \"compute_ns\": %" PRId64 ", \"comm_ns\": %" PRId64
            ", \"overlap_ns\": %" PRId64 ", \"exposed_comm_ns\": %" PRId64 ", \"overlap_ratio\": ",
            S->n, Steps_medianTime(S), Steps_medianField(S, offsetof(DeviceFigures, compute)),
            Steps_medianField(S, offsetof(DeviceFigures, comm)), Steps_medianField(S, offsetof(DeviceFigures, overlap)),
            Steps_medianField(S, offsetof(DeviceFigures, exposed)));
    double r = Steps_medianRatio(S);
    if (r >= 0) fprintf(out, "%.6f}", r);
    else fputs("null}", out);
}

static void print_json(FILE *out, const DiffReport *R, bool grouped, const char *regex) {
    fprintf(out, "{\n  \"ovtrace_diff_version\": 1,\n  \"group_names\": %s,\n  \"a\": ", grouped ? "true" : "false");
    json_run(out, R->a);
    fputs(",\n  \"b\": ", out);
    json_run(out, R->b);
    fputs(",\n  \"devices\": [", out);
    for (size_t i = 0; i < R->n_devices; i++) {
        const DiffDevice *d = &R->devices[i];
        fprintf(out, "%s\n    {\"rank\": %d, \"device\": %" PRId64 ", \"a\": ", i ? "," : "", d->rank, d->device);
        json_fig(out, d->a);
        fputs(", \"b\": ", out);
        json_fig(out, d->b);
        fputs(", \"delta\": ", out);
        json_delta(out, d->a, d->b);
        json_coll3(out, d->coll_a, d->coll_b);
        fputc('}', out);
    }
    fputs("\n  ],\n  \"total\": {\"a\": ", out);
    json_fig(out, &R->a->total);
    fputs(", \"b\": ", out);
    json_fig(out, &R->b->total);
    fputs(", \"delta\": ", out);
    json_delta(out, &R->a->total, &R->b->total);
    json_coll3(out, R->a->coll_ranks >= 2 ? &R->a->coll_total : NULL, R->b->coll_ranks >= 2 ? &R->b->coll_total : NULL);
    fputs("},\n  \"classes\": [", out);
    int first = 1;
    for (int k = 0; k < CLASS__COUNT; k++) {
        const DiffClass *x = &R->a->classes[k], *y = &R->b->classes[k];
        if (!x->count && !y->count) continue;
        fprintf(out,
                "%s\n    {\"class\": \"%s\", \"count_a\": %zu, \"count_b\": %zu, \"total_a_ns\": %" PRId64
                ", \"total_b_ns\": %" PRId64 ", \"delta_ns\": %" PRId64 "}",
                first ? "" : ",", EventClass_name((EventClass)k), x->count, y->count, x->total, y->total,
                y->total - x->total);
        first = 0;
    }
    fputs("\n  ],\n  \"kernels\": [", out);
    for (size_t i = 0; i < R->n_kernels; i++) {
        const DiffKernelRow *k = &R->kernels[i];
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        JsonOut_string(out, k->name);
        fprintf(out,
                ", \"class\": \"%s\", \"in_a\": %s, \"in_b\": %s, \"count_a\": %zu, \"count_b\": %zu, \"total_a_ns\": %" PRId64
                ", \"total_b_ns\": %" PRId64 ", \"delta_ns\": %" PRId64 "}",
                EventClass_name(k->cls), k->in_a ? "true" : "false", k->in_b ? "true" : "false", k->count_a, k->count_b,
                k->total_a, k->total_b, DiffKernelRow_delta(k));
    }
    for (int side = 0; side < 2; side++) {
        fprintf(out, "\n  ],\n  \"only_in_%c\": [", side ? 'b' : 'a');
        first = 1;
        for (size_t i = 0; i < R->n_kernels; i++) {
            const DiffKernelRow *k = &R->kernels[i];
            if (side ? k->in_a : k->in_b) continue;
            fputs(first ? "\n    " : ",\n    ", out);
            JsonOut_string(out, k->name);
            first = 0;
        }
    }
    fprintf(out, "\n  ],\n  \"steps\": {\"source\": \"%s\", \"regex\": ", regex ? "regex" : "ProfilerStep");
    if (regex) JsonOut_string(out, regex);
    else fputs("null", out);
    fputs(", \"rows\": [", out);
    for (size_t i = 0; i < R->n_steps; i++) {
        const DiffStepRow *s = &R->steps[i];
        fprintf(out, "%s\n    {\"step\": %" PRId64 ", \"a\": ", i ? "," : "", s->key);
        json_step(out, s->a);
        fputs(", \"b\": ", out);
        json_step(out, s->b);
        fputc('}', out);
    }
    fputs("\n  ], \"median\": {\"a\": ", out);
    json_median(out, &R->a->steps);
    fputs(", \"b\": ", out);
    json_median(out, &R->b->steps);
    fputs("}}\n}\n", out);
}

/* ---- inputs ---- */

typedef struct {
    const char *paths[256];
    size_t n;
} Side;

static bool side_add(Side *s, const char *p, const char *which) {
    if (!*p) {
        cli_error("empty path in run %s", which);
        return false;
    }
    if (s->n == sizeof s->paths / sizeof s->paths[0]) {
        cli_error("too many files in run %s", which);
        return false;
    }
    s->paths[s->n++] = p;
    return true;
}

/* Splits "a,b,c" in place (spec is a private copy). */
static bool side_split(Side *s, char *spec, const char *which) {
    for (char *p = spec;;) {
        char *c = strchr(p, ',');
        if (c) *c = '\0';
        if (!side_add(s, p, which)) return false;
        if (!c) return true;
        p = c + 1;
    }
}

/* NULL on error, *rc its exit status. */
static DiffRun *load_side(InputOptions *in, const Side *s, const DiffOptions *o, int *rc) {
    in->n_files = s->n;
    for (size_t i = 0; i < s->n; i++) in->files[i] = s->paths[i];
    *rc = 1;
    Trace *t = InputOptions_load(in);
    if (!t) return NULL;
    if (!cli_notSummary(t, "diff", s->paths[0])) {
        Trace_free(t);
        *rc = 2;
        return NULL;
    }
    char err[512];
    DiffRun *r = DiffRun_summarize(t, o, err, sizeof err);
    Trace_free(t);
    if (!r) cli_error("%s", err);
    return r;
}

enum { DF_JSON = 100, DF_GROUP, DF_STEP, DF_A, DF_B, DF_TOP };

static const OptSpec DIFF_OPTIONS[] = {
    {"--json", 0, false, DF_JSON, NULL, false}, {"--group-names", 0, false, DF_GROUP, NULL, false},
    {"--step", 0, true, DF_STEP, NULL, false},  {"--a", 0, true, DF_A, NULL, false},
    {"--b", 0, true, DF_B, NULL, false},        {"--top", 0, true, DF_TOP, NULL, false},
    {0},
};
const OptSpec *const DIFF_TABLES[] = {DIFF_OPTIONS, INPUT_OPTIONS, NULL};

typedef struct {
    InputOptions in;
    DiffOptions o;
    bool json;
    size_t top;
    Side A, B;
} DiffArgs;

static int diff_opt(void *ctx, const OptSpec *s, const char *v) {
    DiffArgs *D = ctx;
    if (!s || s->id < DF_JSON) return InputOptions_apply(&D->in, s, v);
    if (s->id == DF_JSON) D->json = true;
    else if (s->id == DF_GROUP) D->o.group_names = true;
    else if (s->id == DF_STEP) D->o.step_regex = v;
    else if (s->id == DF_A || s->id == DF_B) {
        if (!side_add(s->id == DF_A ? &D->A : &D->B, v, s->id == DF_A ? "A" : "B")) return 2;
    } else {
        char *end;
        long long n = strtoll(v, &end, 10);
        if (!*v || *end || n < 0) {
            cli_error("--top needs a non-negative integer, got '%s'", v);
            return 2;
        }
        D->top = (size_t)n;
    }
    return 0;
}

int cmd_diff(int argc, char **argv) {
    DiffArgs D;
    memset(&D, 0, sizeof D);
    D.o = DiffOptions_default();
    D.o.coll.args = CollArgs_fetch; /* the group, name and Seq args, as `stats` matches by */
    D.top = 20;
    InputOptions_init(&D.in);
    char *specs[2] = {NULL, NULL};
    DiffRun *ra = NULL, *rb = NULL;
    int rc = Cli_parseOptions("diff", argc, argv, DIFF_TABLES, diff_opt, &D, NULL);
    if (rc) goto out;
    rc = 2;
    InputOptions *in = &D.in;
    DiffOptions o = D.o;
    bool json = D.json;
    size_t top = D.top;
    Side A = D.A, B = D.B;
    /* positional arguments landed in in->files: two run specs, unless --a/--b gave them */
    if (A.n || B.n) {
        if (in->n_files || !A.n || !B.n) {
            cli_error("with --a/--b, give both runs that way and no other paths");
            goto out;
        }
    } else {
        if (in->n_files != 2) {
            cli_error("diff needs two runs, A and B, got %zu (see 'ovtrace diff --help')", in->n_files);
            goto out;
        }
        for (int s = 0; s < 2; s++) {
            specs[s] = xstrdup(in->files[s]);
            if (!side_split(s ? &B : &A, specs[s], s ? "B" : "A")) goto out;
        }
    }
    if (!(ra = load_side(in, &A, &o, &rc)) || !(rb = load_side(in, &B, &o, &rc))) goto out;
    DiffReport *R = Diff_compare(ra, rb);
    if (json) {
        print_json(stdout, R, o.group_names, o.step_regex);
    } else {
        print_files(stdout, "A", ra);
        print_files(stdout, "B", rb);
        print_devices(stdout, R);
        print_coll(stdout, R);
        print_classes(stdout, R);
        print_kernels(stdout, R, top, o.group_names);
        print_steps(stdout, R, o.step_regex);
    }
    DiffReport_free(R);
    rc = 0;
out:
    DiffRun_free(ra);
    DiffRun_free(rb);
    free(specs[0]);
    free(specs[1]);
    InputOptions_free(&D.in);
    return rc;
}
