/* The run summary's writer (ovtrace/write/summary.h, docs/summary.md). */
#include "ovtrace/write/summary.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/atomicfile.h"
#include "ovtrace/write/jsonout.h"
#include "ovtrace/write/outpath.h"

/* A device's band as hex: per column four bytes, the share of the column (0..255) in
 * compute, hidden comm, exposed comm and memory. */
static void put_band(FILE *out, const int64_t *band, int64_t t0, int64_t t1) {
    static const char HEX[] = "0123456789abcdef";
    static const int STATES[4] = {BAND_COMPUTE, BAND_HIDDEN, BAND_EXPOSED, BAND_MEMORY};
    fputc('"', out);
    for (int c = 0; c < SUMMARY_COLUMNS; c++) {
        int64_t a = t0 + (int64_t)((__int128)(t1 - t0) * c / SUMMARY_COLUMNS);
        int64_t b = t0 + (int64_t)((__int128)(t1 - t0) * (c + 1) / SUMMARY_COLUMNS);
        int64_t w = b > a ? b - a : 1;
        for (int k = 0; k < 4; k++) {
            int64_t v = band[c * BAND__COUNT + STATES[k]];
            int q = (int)(((__int128)v * 255 + w / 2) / w);
            if (q > 255) q = 255;
            if (q < 0) q = 0;
            fputc(HEX[q >> 4], out);
            fputc(HEX[q & 15], out);
        }
    }
    fputc('"', out);
}

/* The device's exposed comm over the whole run: its band's exposed ns (the figures are
 * cut to --range; the overview label is not). */
static int64_t run_exposed(const int64_t *band) {
    int64_t sum = 0;
    for (int c = 0; c < SUMMARY_COLUMNS; c++) sum += band[c * BAND__COUNT + BAND_EXPOSED];
    return sum;
}

static void put_device(FILE *out, const SummaryDevice *D, int64_t t0, int64_t t1) {
    const DeviceFigures *d = D->fig;
    fprintf(out,
            "{\"device\": %" PRId64 ", \"window_ns\": %" PRId64 ", \"busy_ns\": %" PRId64 ", \"idle_ns\": %" PRId64
            ", \"compute_ns\": %" PRId64 ", \"comm_ns\": %" PRId64 ", \"overlap_ns\": %" PRId64
            ", \"exposed_comm_ns\": %" PRId64 ", \"memory_ns\": %" PRId64 ", \"events\": %zu,"
            " \"run_exposed_comm_ns\": %" PRId64 ", \"band\": ",
            d->device, d->window, d->busy, d->idle, d->compute, d->comm, d->overlap, d->exposed, d->memory,
            d->n_events, run_exposed(D->band));
    put_band(out, D->band, t0, t1);
    fputc('}', out);
}

static void put_rank(FILE *out, const SummaryRank *r, int64_t t0, int64_t t1) {
    fprintf(out, "\n    {\"rank\": %d, \"path\": ", r->rank);
    JsonOut_string(out, r->path ? r->path : "");
    fprintf(out, ", \"arrived_last\": %zu, \"devices\": [", r->arrived_last);
    for (size_t i = 0; i < r->n_dev; i++) {
        fputs(i ? ",\n      " : "\n      ", out);
        put_device(out, &r->dev[i], t0, t1);
    }
    fputs(r->n_dev ? "],\n     \"comm\": [" : "], \"comm\": [", out);
    for (size_t i = 0; i < r->n_comm; i++) {
        const SummaryComm *c = &r->comm[i];
        fputs(i ? ", " : "", out);
        fputc('[', out);
        JsonOut_string(out, c->name);
        fprintf(out, ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "]", c->start, c->end, c->wait, c->transfer);
    }
    fputs("]}", out);
}

static void put_summary(FILE *out, const Summary *s) {
    fprintf(out,
            "{\"ovtrace_summary\": %d, \"t0_ns\": %" PRId64 ", \"t1_ns\": %" PRId64 ", \"columns\": %d,\n"
            " \"band_states\": [\"compute\", \"hidden_comm\", \"exposed_comm\", \"memory\"],\n"
            " \"comm_fields\": [\"name\", \"start_ns\", \"end_ns\", \"wait_ns\", \"transfer_ns\"],\n \"ranks\": [",
            SUMMARY_FORMAT, s->t0, s->t1, SUMMARY_COLUMNS);
    for (size_t i = 0; i < s->n_ranks; i++) {
        if (i) fputc(',', out);
        put_rank(out, &s->ranks[i], s->t0, s->t1);
    }
    fputs(s->n_ranks ? "\n ]\n}\n" : "]\n}\n", out);
}

bool Summary_write(const char *out_path, const Summary *s, char *err, size_t errlen) {
    OutPath op;
    if (!OutPath_resolve(out_path, &op, err, errlen)) return false;
    AtomicFile af = ATOMICFILE_NONE;
    int fd = -1;
    bool ok = true;
    if (op.stream) {
        fd = OutPath_openStream(&op, err, errlen);
        ok = fd >= 0;
    } else {
        ok = AtomicFile_open(&af, op.path, 0666, true, err, errlen);
        fd = ok ? dup(af.fd) : -1;
        if (ok && fd < 0) {
            snprintf(err, errlen, "%s: %s", out_path, strerror(errno));
            ok = false;
        }
    }
    FILE *f = ok ? fdopen(fd, "w") : NULL;
    if (ok && !f) {
        snprintf(err, errlen, "%s: %s", out_path, strerror(errno));
        close(fd);
        ok = false;
    }
    if (f) {
        put_summary(f, s);
        bool werr = ferror(f) != 0;
        if (fclose(f) != 0 || werr) {
            snprintf(err, errlen, "%s: write failed: %s", out_path, strerror(errno ? errno : EIO));
            ok = false;
        }
    }
    if (ok && !op.stream && (!AtomicFile_closeFd(&af) || !AtomicFile_rename(&af))) {
        snprintf(err, errlen, "%s: %s", out_path, strerror(errno));
        ok = false;
    }
    if (ok && !op.stream) AtomicFile_syncDir(&af);
    AtomicFile_free(&af);
    OutPath_free(&op);
    return ok;
}
