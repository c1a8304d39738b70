/* Subcommands whose implementation lands with later issues say so plainly. */
#ifndef OVTRACE_PENDING_H
#define OVTRACE_PENDING_H
#include "cli.h"
static inline int cli_pending(const char *cmd, const char *what) {
    cli_error("'ovtrace %s' is not implemented yet (%s). Use 'ovtrace stats' for figures.", cmd, what);
    return 3;
}
#endif
