/* ovtrace stats: the collectives section (docs/stats-json.md, "collectives"). Instances
 * count toward a --range when their last arrival falls in it; the device figures are
 * clipped to it, like the overlap table. */
#include "stats_coll.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/analysis/collectives.h"
#include "ovtrace/write/jsonout.h"
#include "ovtrace/model/timeunits.h"

typedef struct {
    CollReport *R;
    CollDeviceSplit *dev;
    size_t n_dev;
    CollArrivals A;      /* over the instances in the range, per CollReport.ranks */
    CollName *names;     /* per name over the instances in the range */
    size_t n_names;
} Summary;

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_count(const void *a, const void *b) {
    const CollName *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* The summary of a report and its device split (an MPI run computes both apart). */
static void summarize_from(Summary *S, CollReport *R, CollDeviceSplit *dev, size_t n_dev, const OverlapFilter *f) {
    memset(S, 0, sizeof *S);
    S->R = R;
    S->dev = dev;
    S->n_dev = n_dev;
    Coll_arrivals(R, f->t0, f->t1, &S->A);
    S->names = xcalloc(R->n_names + 1, sizeof *S->names);
    int64_t *skews = xmalloc((R->n_inst + 1) * sizeof *skews);
    for (size_t k = 0; k < R->n_names; k++) {
        size_t m = 0;
        for (size_t i = 0; i < R->n_inst; i++) {
            const CollInstance *I = &R->inst[i];
            if (I->name != R->names[k].name || I->last_start < f->t0 || I->last_start >= f->t1) continue;
            skews[m++] = I->skew;
        }
        if (!m) continue;
        qsort(skews, m, sizeof *skews, cmp_i64);
        S->names[S->n_names++] = (CollName){R->names[k].name, m, skews[(m - 1) / 2], skews[m - 1]};
    }
    free(skews);
    qsort(S->names, S->n_names, sizeof *S->names, cmp_count);
}

bool stats_coll_needsSplit(const CollReport *R, bool json) { return R->n_ranks >= 2 || json; }

/* json: split comm per device even with one rank (the JSON lists the devices; the table
 * prints "nothing to align" and needs no split, a sweep over every event). */
static void summarize(Summary *S, const Trace *t, const OverlapFilter *f, const CollOptions *co, bool json) {
    CollReport *R = Coll_analyze(t, co);
    CollDeviceSplit *dev = NULL;
    size_t n_dev = 0;
    if (stats_coll_needsSplit(R, json))
        dev = Coll_deviceSplit(t, R, f->t0, f->t1, f->rank == OVERLAP_ANY_RANK ? INT32_MIN : f->rank, &n_dev);
    summarize_from(S, R, dev, n_dev, f);
}

/* The summary's own parts (not the report and split it was made from). */
static void summary_parts_free(Summary *S) {
    CollArrivals_free(&S->A);
    free(S->names);
}

static void summary_free(Summary *S) {
    CollReport_free(S->R);
    free(S->dev);
    summary_parts_free(S);
}

static size_t rank_slot(const CollReport *R, int32_t rank) { return (size_t)(Coll_rank(R, rank) - R->ranks); }

/* A name from the trace, with control characters replaced (never raw to a terminal). */
static void put_name(FILE *out, const char *s, size_t max) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && n < max; p++, n++) {
        if (*p < 0x20 || *p == 0x7f) fputc('?', out);
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) { /* C1 controls */
            fputc('?', out);
            p++;
        } else fputc(*p, out);
    }
}

static void coll_table(FILE *out, const Trace *t, const OverlapFilter *f, const Summary *sum) {
    const Summary S = *sum;
    CollReport *R = S.R;
    fprintf(out, "\ncollectives across ranks\n");
    if (R->n_ranks < 2) {
        fprintf(out, "one rank: %zu comm kernels, nothing to align (give every rank's file to see waits)\n",
                R->comm_kernels);
        return;
    }
    fprintf(out, "%zu ranks, %zu comm kernels: %zu matched instances, %zu kernels unmatched, %zu mismatched\n",
            R->n_ranks, R->comm_kernels, S.A.n_inst, R->unmatched, R->mismatched);
    fprintf(out, "comm per device (us): wait = before the last rank arrived, transfer = after\n");
    fprintf(out, "%4s %4s %10s %10s %10s %10s %10s %10s %5s %10s %10s\n", "rank", "dev", "comm", "wait", "transfer",
            "exposed", "exp.wait", "exp.xfer", "last", "waited on", "clock off");
    char c[8][32];
    for (size_t i = 0; i < S.n_dev; i++) {
        const CollDeviceSplit *d = &S.dev[i];
        size_t ri = rank_slot(R, d->rank);
        Time_formatUs(c[0], 32, d->comm);
        Time_formatUs(c[1], 32, d->wait);
        Time_formatUs(c[2], 32, d->transfer);
        Time_formatUs(c[3], 32, d->exposed);
        Time_formatUs(c[4], 32, d->exposed_wait);
        Time_formatUs(c[5], 32, d->exposed_transfer);
        Time_formatUs(c[6], 32, S.A.waited_for[ri]);
        Time_formatUs(c[7], 32, R->ranks[ri].clock_offset);
        fprintf(out, "%4d %4" PRId64 " %10s %10s %10s %10s %10s %10s %5zu %10s %10s\n", d->rank, d->device, c[0], c[1],
                c[2], c[3], c[4], c[5], S.A.last[ri], c[6], c[7]);
    }
    char line[256];
    Coll_stragglerLine(R, &S.A, f->t0 != INT64_MIN || f->t1 != INT64_MAX, line, sizeof line);
    fprintf(out, "%s\n", line);
    if (S.n_names) {
        fprintf(out, "per collective (skew = last start - first start, us)\n%7s %12s %12s  %s\n", "count", "median skew",
                "max skew", "name");
        for (size_t k = 0; k < S.n_names; k++) {
            Time_formatUs(c[0], 32, S.names[k].median_skew);
            Time_formatUs(c[1], 32, S.names[k].max_skew);
            fprintf(out, "%7zu %12s %12s  ", S.names[k].count, c[0], c[1]);
            put_name(out, Coll_nameStr(t, R, S.names[k].name), 100);
            fputc('\n', out);
        }
    }
    if (R->n_inst) {
        char a[32], b[32];
        Coll_formatSpan(a, sizeof a, R->median_end_spread);
        Coll_formatSpan(b, sizeof b, R->max_end_spread);
        fprintf(out, "clock check: collective ends agree within %s (median), %s (max)\n", a, b);
    }
    if (R->unreliable) fprintf(out, "WARNING: alignment unreliable: %s\n", R->unreliable_why);
}

void stats_coll_table(FILE *out, const Trace *t, const OverlapFilter *f, const CollOptions *co) {
    Summary S;
    summarize(&S, t, f, co, false);
    coll_table(out, t, f, &S);
    summary_free(&S);
}

void stats_coll_tableWith(FILE *out, const Trace *t, const OverlapFilter *f, CollReport *R, CollDeviceSplit *dev,
                          size_t n_dev) {
    Summary S;
    summarize_from(&S, R, dev, n_dev, f);
    coll_table(out, t, f, &S);
    summary_parts_free(&S);
}

static void coll_json(FILE *out, const Trace *t, const Summary *sum) {
    const Summary S = *sum;
    CollReport *R = S.R;
    fprintf(out,
            ",\n  \"collectives\": {\n    \"ranks\": %zu, \"comm_kernels\": %zu, \"instances\": %zu, \"unmatched\": %zu,"
            " \"mismatched\": %zu, \"args_read\": %zu,\n",
            R->n_ranks, R->comm_kernels, S.A.n_inst, R->unmatched, R->mismatched, R->args_read);
    fprintf(out,
            "    \"clock\": {\"median_end_spread_ns\": %" PRId64 ", \"max_end_spread_ns\": %" PRId64
            ", \"max_clock_offset_ns\": %" PRId64 ", \"negative_transfers\": %zu, \"reliable\": %s, \"warning\": ",
            R->median_end_spread, R->max_end_spread, R->max_clock_offset, R->negative_transfers,
            R->unreliable ? "false" : "true");
    if (R->unreliable) JsonOut_string(out, R->unreliable_why);
    else fputs("null", out);
    fputs("},\n    \"devices\": [", out);
    for (size_t i = 0; i < S.n_dev; i++) {
        const CollDeviceSplit *d = &S.dev[i];
        size_t ri = rank_slot(R, d->rank);
        fprintf(out,
                "%s\n      {\"rank\": %d, \"device\": %" PRId64 ", \"comm_ns\": %" PRId64 ", \"wait_ns\": %" PRId64
                ", \"transfer_ns\": %" PRId64 ", \"exposed_comm_ns\": %" PRId64 ", \"exposed_wait_ns\": %" PRId64
                ", \"exposed_transfer_ns\": %" PRId64 ", \"arrived_last\": %zu, \"others_waited_ns\": %" PRId64
                ", \"clock_offset_ns\": %" PRId64 "}",
                i ? "," : "", d->rank, d->device, d->comm, d->wait, d->transfer, d->exposed, d->exposed_wait,
                d->exposed_transfer, S.A.last[ri], S.A.waited_for[ri], R->ranks[ri].clock_offset);
    }
    fputs(S.n_dev ? "\n    ],\n    \"straggler\": " : "],\n    \"straggler\": ", out);
    if (S.A.straggler >= 0)
        fprintf(out, "{\"rank\": %d, \"arrived_last\": %zu, \"of\": %zu, \"others_waited_ns\": %" PRId64 "}",
                R->ranks[S.A.straggler].rank, S.A.last[S.A.straggler], S.A.n_inst, S.A.waited_for[S.A.straggler]);
    else fputs("null", out);
    fputs(",\n    \"per_name\": [", out);
    for (size_t k = 0; k < S.n_names; k++) {
        fprintf(out, "%s\n      {\"name\": ", k ? "," : "");
        JsonOut_string(out, Coll_nameStr(t, R, S.names[k].name));
        fprintf(out, ", \"count\": %zu, \"median_skew_ns\": %" PRId64 ", \"max_skew_ns\": %" PRId64 "}",
                S.names[k].count, S.names[k].median_skew, S.names[k].max_skew);
    }
    fputs(S.n_names ? "\n    ]\n  }" : "]\n  }", out);
}

void stats_coll_json(FILE *out, const Trace *t, const OverlapFilter *f, const CollOptions *co) {
    Summary S;
    summarize(&S, t, f, co, true);
    coll_json(out, t, &S);
    summary_free(&S);
}

void stats_coll_jsonWith(FILE *out, const Trace *t, const OverlapFilter *f, CollReport *R, CollDeviceSplit *dev,
                         size_t n_dev) {
    Summary S;
    summarize_from(&S, R, dev, n_dev, f);
    coll_json(out, t, &S);
    summary_parts_free(&S);
}
