/* ovtrace stats: the counter series section (issue 18): per series, the number of
 * samples in the selection and their min, max and mean. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ovtrace/counters.h"
#include "ovtrace/jsonout.h"
#include "stats_extra.h"

/* Series names come from the trace: printed with controls and non-ASCII as '?'. */
static void put_safe(FILE *out, const char *s, size_t max) {
    for (size_t i = 0; s[i] && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        fputc(c < 0x20 || c >= 0x7f ? '?' : c, out);
    }
}

static bool selected(const Trace *t, const CounterSeries *s, const OverlapFilter *f) {
    if (f->rank != OVERLAP_ANY_RANK && t->lanes[s->lane].rank != f->rank) return false;
    if (f->device != OVERLAP_ANY && s->device != f->device) return false;
    return true;
}

void StatsCounters_print(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f) {
    bool head = false;
    for (size_t i = 0; i < cs->n; i++) {
        const CounterSeries *s = &cs->s[i];
        CounterStats st;
        if (!selected(t, s, f)) continue;
        if (!head) {
            fprintf(out, "\ncounters (samples in the selection)\n%4s %8s %14s %14s %14s  %s\n", "rank", "samples",
                    "min", "max", "mean", "name");
            head = true;
        }
        char a[32] = "-", b[32] = "-", m[32] = "-";
        if (Counter_stats(t, s, f->t0, f->t1, &st)) {
            Counter_format(st.min, s->bytes, a, sizeof a);
            Counter_format(st.max, s->bytes, b, sizeof b);
            Counter_format(st.mean, s->bytes, m, sizeof m);
        }
        fprintf(out, "%4d %8zu %14s %14s %14s  ", t->lanes[s->lane].rank, st.n, a, b, m);
        put_safe(out, StrTab_get(t->strings, s->name), 100);
        fputc('\n', out);
    }
}

static void json_num(FILE *out, double v) {
    if (v != v || v > 1e300 || v < -1e300) fputs("null", out);
    else fprintf(out, "%.17g", v);
}

void StatsCounters_json(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f) {
    fputs(",\n  \"counters\": [", out);
    bool first = true;
    for (size_t i = 0; i < cs->n; i++) {
        const CounterSeries *s = &cs->s[i];
        if (!selected(t, s, f)) continue;
        CounterStats st;
        bool any = Counter_stats(t, s, f->t0, f->t1, &st);
        fprintf(out, "%s\n    {\"name\": ", first ? "" : ",");
        first = false;
        JsonOut_string(out, StrTab_get(t->strings, s->name));
        fprintf(out, ", \"rank\": %d, \"device\": ", t->lanes[s->lane].rank);
        if (s->device >= 0) fprintf(out, "%" PRId64, s->device);
        else fputs("null", out);
        fprintf(out, ", \"unit\": \"%s\", \"samples\": %zu, \"min\": ", s->bytes ? "bytes" : "value", st.n);
        if (any) json_num(out, st.min);
        else fputs("null", out);
        fputs(", \"max\": ", out);
        if (any) json_num(out, st.max);
        else fputs("null", out);
        fputs(", \"mean\": ", out);
        if (any) json_num(out, st.mean);
        else fputs("null", out);
        fputc('}', out);
    }
    fputs(first ? "]" : "\n  ]", out);
}
