/* view A B --align start|step (cli/view_compare.c). */
#ifndef OVTRACE_CLI_VIEW_COMPARE_H
#define OVTRACE_CLI_VIEW_COMPARE_H
#include "cli.h"
#include "ovtrace/tui/viewer.h"

/* Loads the two runs named by in->files[0] and [1] (each a file, a directory or a
 * comma-separated list), aligns them (ALIGN_START for "start", ALIGN_STEP for "step")
 * and opens the viewer on them with the compare keys; NULL after printing an error. */
App *ViewCompare_open(InputOptions *in, const char *align, const char *step, Caps caps);

#endif
