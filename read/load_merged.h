/* Reloading a merged export (`ovtrace export --merge`): one file holding several ranks. */
#ifndef OVTRACE_LOAD_MERGED_H
#define OVTRACE_LOAD_MERGED_H
#include <stdint.h>

#include <cjson/cJSON.h>

#include "ovtrace/model/trace.h"

/* rank, world size, time unit and trace name of a source from its top-level keys
 * (distributedInfo, displayTimeUnit, traceName). */
void SourceMeta_apply(TraceSource *s, const cJSON *top);

/* If source's top-level keys say it is a merged export ("ovtrace": {"merged": true,
 * "sources": [{"rank": R, "meta": {...}}, ...]}), splits it back into one source per
 * listed source: every process whose pid the export wrote as "rank R pid P" (or
 * "rank R NAME") moves to rank R's source with its original pid P (or string NAME),
 * and each source gets its own rank and top-level keys. The first listed source stays
 * `source`. Call after the file is parsed, before Trace_finish. */
void LoadMerged_split(Trace *t, uint32_t source);

#endif
