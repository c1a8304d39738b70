/* ovtrace stats --summary: the run's summary from its figures, bands and matched comm
 * kernels (ovtrace/write/summary.h), one process or an MPI run's rank 0. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/write/summary.h"
#include "stats_extra.h"

/* The first source of rank r (its trace), absolute so that the summary opens it from
 * anywhere (malloc'd), or NULL. */
static char *rank_path(const Trace *t, int32_t r) {
    for (size_t i = 0; i < t->n_sources; i++)
        if (t->sources[i].rank == r) {
            char *abs = realpath(t->sources[i].path, NULL);
            return abs ? abs : xstrdup(t->sources[i].path);
        }
    return NULL;
}

bool StatsSummary_write(const char *out, const Trace *t, const OverlapReport *R, const int64_t *bands,
                        const CollReport *C, int64_t t0, int64_t t1) {
    Summary s = {t0, t1, xcalloc(R->n_devices + 1, sizeof(SummaryRank)), 0};
    SummaryDevice *dev = xcalloc(R->n_devices + 1, sizeof *dev);
    for (size_t i = 0; i < R->n_devices; i++) { /* devices come grouped by rank */
        const DeviceFigures *d = &R->devices[i];
        if (!s.n_ranks || s.ranks[s.n_ranks - 1].rank != d->rank) {
            const CollRank *cr = C ? Coll_rank(C, d->rank) : NULL;
            s.ranks[s.n_ranks++] =
                (SummaryRank){d->rank, rank_path(t, d->rank), cr ? cr->arrived_last : 0, dev + i, 0, NULL, 0};
        }
        s.ranks[s.n_ranks - 1].n_dev++;
        dev[i] = (SummaryDevice){d, bands + i * (size_t)SUMMARY_COLUMNS * BAND__COUNT};
    }
    size_t *cap = xcalloc(s.n_ranks + 1, sizeof *cap);
    for (size_t i = 0; C && i < C->n_inst; i++) {
        const CollInstance *I = &C->inst[i];
        for (uint32_t j = 0; j < I->n; j++) {
            const CollMember *m = &C->members[I->first + j];
            size_t k = 0;
            while (k < s.n_ranks && s.ranks[k].rank != m->rank) k++;
            if (k == s.n_ranks) continue; /* a rank --rank or --device left out */
            SummaryRank *r = &s.ranks[k];
            GROW(r->comm, cap[k], r->n_comm + 1);
            r->comm[r->n_comm++] = (SummaryComm){Coll_nameStr(t, C, I->name), m->start, m->end, m->wait, m->transfer};
        }
    }
    char err[512];
    bool ok = Summary_write(out, &s, err, sizeof err);
    if (!ok) cli_error("--summary: %s", err);
    for (size_t k = 0; k < s.n_ranks; k++) {
        free(s.ranks[k].comm);
        free((char *)s.ranks[k].path);
    }
    free(cap);
    free(s.ranks);
    free(dev);
    return ok;
}
