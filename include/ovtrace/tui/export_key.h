/* The `e` key: export the marked range (else the visible range), slices cut to it, with
 * the active search as the name filter, through Export_run (include/ovtrace/write/export.h). */
#ifndef OVTRACE_TUI_EXPORT_KEY_H
#define OVTRACE_TUI_EXPORT_KEY_H
#include <stddef.h>

struct App;

/* Opens the file-name prompt with a default name. Slices are cut to the range unless
 * Tab turns it off; the prompt names what will be exported: the range, clipped or whole
 * events, and the active search that filters names. */
void ExportKey_start(struct App *a);
/* (Re)writes the prompt's label from the current settings. */
void ExportKey_label(struct App *a);
/* Runs the export to path; the result goes to the status bar. */
void ExportKey_submit(struct App *a, const char *path);

#endif
