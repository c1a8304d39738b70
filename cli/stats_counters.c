/* ovtrace stats: the counter series section: per series, the number of
 * samples in the selection and their min, max and mean. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ovtrace/analysis/counters.h"
#include "ovtrace/write/jsonout.h"
#include "ovtrace/analysis/serve_stats.h"
#include "stats_extra.h"

/* Series names come from the trace: printed with controls and non-ASCII as '?'. */
static void put_safe(FILE *out, const char *s, size_t max) {
    for (size_t i = 0; s[i] && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        fputc(c < 0x20 || c >= 0x7f ? '?' : c, out);
    }
}

bool StatsCounters_selected(const Trace *t, const CounterSeries *s, const OverlapFilter *f) {
    if (f->rank != OVERLAP_ANY_RANK && t->lanes[s->lane].rank != f->rank) return false;
    if (f->device != OVERLAP_ANY && s->device != f->device) return false;
    return true;
}

void StatsCounters_head(FILE *out) {
    fprintf(out, "\ncounters (samples in the selection)\n%4s %8s %14s %14s %14s  %s\n", "rank", "samples", "min", "max",
            "mean", "name");
}

void StatsCounters_line(FILE *out, const Trace *t, const CounterSeries *s, const OverlapFilter *f) {
    CounterStats st;
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

void StatsCounters_print(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f) {
    bool head = false;
    for (size_t i = 0; i < cs->n; i++) {
        const CounterSeries *s = &cs->s[i];
        if (!StatsCounters_selected(t, s, f)) continue;
        if (!head) StatsCounters_head(out);
        head = true;
        StatsCounters_line(out, t, s, f);
    }
}

static void json_num(FILE *out, double v) {
    if (v != v || v > 1e300 || v < -1e300) fputs("null", out);
    else fprintf(out, "%.17g", v);
}

void StatsCounters_entry(FILE *out, const Trace *t, const CounterSeries *s, const OverlapFilter *f) {
    CounterStats st;
    bool any = Counter_stats(t, s, f->t0, f->t1, &st);
    fputs("{\"name\": ", out);
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

void StatsCounters_json(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f) {
    fputs(",\n  \"counters\": [", out);
    bool first = true;
    for (size_t i = 0; i < cs->n; i++) {
        const CounterSeries *s = &cs->s[i];
        if (!StatsCounters_selected(t, s, f)) continue;
        fputs(first ? "\n    " : ",\n    ", out);
        first = false;
        StatsCounters_entry(out, t, s, f);
    }
    fputs(first ? "]" : "\n  ]", out);
}

/* ---- serving figures (serve_stats.h) ---- */

void StatsServe_print(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f) {
    ServeStats s;
    if (ServeStats_compute(t, cs, f->t0, f->t1, &s)) StatsServe_printStats(out, &s);
}

void StatsServe_printStats(FILE *out, const ServeStats *sp) {
    const ServeStats s = *sp;
    char mm[32], ma[32];
    Counter_format(s.memory_max, true, mm, sizeof mm);
    Counter_format(s.memory_mean, true, ma, sizeof ma);
    fprintf(out, "\nserving (%zu steps over %.3f ms, %zu requests done)\n", s.steps, (double)s.window_ns / 1e6,
            s.requests);
    fprintf(out, "  throughput    %.1f tokens/s (%.0f tokens)\n", s.throughput, s.tokens);
    fprintf(out, "  batch         mean %.2f, max %.0f requests; queue mean %.1f\n", s.mean_batch, s.max_batch,
            s.mean_queue);
    if (s.requests)
        fprintf(out, "  latency       p50 %.3f ms, p99 %.3f ms, mean %.3f ms, max %.3f ms\n",
                (double)s.latency_p50_ns / 1e6, (double)s.latency_p99_ns / 1e6, s.latency_mean_ns / 1e6,
                (double)s.latency_max_ns / 1e6);
    else fprintf(out, "  latency       no request finished in the selection\n");
    fprintf(out, "  memory in use max %s, mean %s\n", mm, ma);
}

void StatsServe_json(FILE *out, const Trace *t, const CounterSet *cs, const OverlapFilter *f) {
    ServeStats s;
    bool any = ServeStats_compute(t, cs, f->t0, f->t1, &s);
    StatsServe_jsonStats(out, any ? &s : NULL);
}

void StatsServe_jsonStats(FILE *out, const ServeStats *sp) {
    fputs(",\n  \"serving\": ", out);
    if (!sp) {
        fputs("null", out);
        return;
    }
    const ServeStats s = *sp;
    fprintf(out,
            "{\"steps\": %zu, \"window_ns\": %" PRId64 ", \"tokens\": %.0f, \"throughput_tokens_per_s\": %.3f, "
            "\"mean_batch\": %.4f, \"max_batch\": %.0f, \"mean_queue\": %.4f, \"requests\": %zu, ",
            s.steps, s.window_ns, s.tokens, s.throughput, s.mean_batch, s.max_batch, s.mean_queue, s.requests);
    if (s.requests)
        fprintf(out,
                "\"latency_p50_ns\": %" PRId64 ", \"latency_p99_ns\": %" PRId64 ", \"latency_mean_ns\": %.0f, "
                "\"latency_max_ns\": %" PRId64 ", ",
                s.latency_p50_ns, s.latency_p99_ns, s.latency_mean_ns, s.latency_max_ns);
    else fputs("\"latency_p50_ns\": null, \"latency_p99_ns\": null, \"latency_mean_ns\": null, \"latency_max_ns\": null, ", out);
    fprintf(out, "\"memory_max_bytes\": %.0f, \"memory_mean_bytes\": %.0f}", s.memory_max, s.memory_mean);
}
