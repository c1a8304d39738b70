/* The hardware a recording names (read/hardware.c): the "gpus" object that `ovtrace
 * record` writes under "ovtrace" for a real program (docs/live.md), as one line. */
#ifndef OVTRACE_READ_HARDWARE_H
#define OVTRACE_READ_HARDWARE_H

#include <stdbool.h>
#include <stddef.h>

/* From a source's metadata (TraceSource.meta_json): "NVIDIA H200 (132 SMs, compute 9.0,
 * 139.8 GiB), driver 580.159.04, CUDA 13.0"; several devices of one kind as "8 x ...",
 * different ones joined by "; ". The text is the trace's: escape it before printing.
 * False (out empty) when the metadata names no GPU. */
bool Hardware_describe(const char *meta_json, char *out, size_t n);
/* The GPUs' names alone, for a title: "NVIDIA H200", "8 x NVIDIA H100 80GB HBM3". */
bool Hardware_names(const char *meta_json, char *out, size_t n);

#endif
