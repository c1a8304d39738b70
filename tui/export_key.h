/* The `e` key: export the marked range (else the visible range), slices cut to it, with
 * the active search as the name filter, through Export_run (ovtrace/write/export.h). The
 * file-name prompt names what will be exported: the range, clipped or whole slices (Tab
 * toggles) and the search that filters names. */
#ifndef OVTRACE_TUI_EXPORT_KEY_H
#define OVTRACE_TUI_EXPORT_KEY_H
#include <stddef.h>

struct App;

/* The default file name, e.g. "trace-10.0ms-20.0ms.json.gz". */
void ExportKey_defaultName(const struct App *a, char *buf, size_t n);

#endif
