/* Filtered export to Chrome Trace JSON (object form) that Perfetto and
 * chrome://tracing open. Kept events are copied byte-for-byte from the source, so
 * args and timestamps stay exactly as they were. Used by `ovtrace export` and the
 * TUI's `e` key. */
#ifndef OVTRACE_EXPORT_H
#define OVTRACE_EXPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

typedef struct {
    int64_t t0, t1;         /* absolute ns; events intersecting [t0, t1) are kept; INT64_MIN/MAX = open */
    int32_t rank;           /* INT32_MIN = any */
    int64_t device, stream; /* INT64_MIN = any (GPU lanes only when set) */
    const char *name_re;    /* POSIX ERE over names, NULL = all */
    const char *exclude_re; /* POSIX ERE over names, NULL = none */
    uint32_t class_mask;    /* bit (1u << EventClass); 0 = all */
    int64_t min_dur;        /* ns */
    bool with_launches;     /* also keep the CPU runtime calls that launched kept GPU ops */
    bool clip;              /* cut kept slices to [t0, t1) (their "ts"/"dur" rewritten), so the
                               output's figures are those of the range */
    bool merge;             /* several ranks into one file (else one file per rank) */
    const char *description; /* recorded in the output's "ovtrace" key, e.g. the command line */
} ExportFilter;

ExportFilter ExportFilter_all(void);

typedef struct {
    size_t events_written; /* trace events (not counting metadata and flow events) */
    size_t files_written;
    bool streamed; /* written in place to "-", a device or a FIFO (no file was replaced) */
    char first_path[4096];
} ExportResult;

/* Writes the selection to out_path ("-" = stdout); the compression follows the
 * extension (.json, .json.gz, .json.zst). Writes a temporary file in the target
 * directory and renames it, so a failure leaves nothing behind; refuses to overwrite
 * any input file. A symlink's target is the file replaced (the link stays); "-", a
 * character device or a FIFO is written in place (include/ovtrace/write/outpath.h). Stale
 * temporary files of killed exports beside the target are removed first. With several ranks and !merge, out_path gets a ".rankN" suffix
 * before the extension. Returns false with a message. */
bool Export_run(const Trace *t, const ExportFilter *f, const char *out_path, ExportResult *res, char *err,
                size_t errlen);

/* The file of one rank: ".rankN" before the extension ("t.json.zst" -> "t.rank3.json.zst");
 * export without --merge and `record --ranks` name their files so. Caller frees. */
char *Export_rankPath(const char *path, int32_t rank);

/* The range an ovtrace export was cut from ("ovtrace": {"range_ns": [t0, t1]}; open
 * ends give INT64_MIN / INT64_MAX), when every source of t is such an export of the same
 * range. The viewer opens on it. */
bool Export_recordedRange(const Trace *t, int64_t *t0, int64_t *t1);

#endif
