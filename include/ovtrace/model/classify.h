/* Event classes. Compute vs. communication is decided by rules (regexes on kernel
 * name and stream) so that DeepEP kernels, which HTA counts as compute, are comm. */
#ifndef OVTRACE_CLASSIFY_H
#define OVTRACE_CLASSIFY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovtrace/model/trace.h"

typedef struct CommRules CommRules;

/* Built-in rules: NCCL/RCCL (nccl*, ncclKernel*, ncclDevKernel*, rccl*), DeepEP
 * (dpsk::ep:: and deep_ep:: dispatch, combine, notify_dispatch, cached_notify,
 * notify_combine, low-latency variants), peer-to-peer memcpy. */
CommRules *CommRules_default(void);
CommRules *CommRules_empty(void);
void CommRules_free(CommRules *r);
/* Rule lines: "comm NAME-REGEX", "not-comm NAME-REGEX" (wins over comm), "comm-stream
 * STREAM-REGEX" (matched against the decimal stream id). Returns false + message. */
bool CommRules_addLine(CommRules *r, const char *line, char *err, size_t errlen);
bool CommRules_loadFile(CommRules *r, const char *path, char *err, size_t errlen);
/* rules_file if set (the CLI passes $OVTRACE_RULES), else xdg/ovtrace/rules (the CLI
 * passes $XDG_CONFIG_HOME), else home/.config/ovtrace/rules, if it exists. The library
 * reads no environment: the CLI hands these over. */
bool CommRules_loadUserConfig(CommRules *r, const char *rules_file, const char *xdg, const char *home, char *err,
                              size_t errlen);
bool CommRules_nameIsComm(const CommRules *r, const char *name);
bool CommRules_streamIsComm(const CommRules *r, int64_t stream);

/* Class for an event of kind k (name used for kernels). */
EventClass Classify_event(const CommRules *r, EventKind k, unsigned flags, const char *name, int64_t stream);
/* (Re)classify every event of a finished trace; each name and lane is matched once. */
void Classify_trace(Trace *t, const CommRules *r);
/* The same over chunks of the events on up to `threads` threads (at most 8; from half a
 * million events): a name may then be matched once per thread, with the same answer. */
void Classify_traceThreads(Trace *t, const CommRules *r, int threads);

#endif
