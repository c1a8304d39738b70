/* What the GPUs of this machine are (collector/gpu_info.c): read from the CUDA driver and
 * NVML, loaded at run time, so that a recording names the hardware it ran on. */
#ifndef OVTRACE_COLLECTOR_GPU_INFO_H
#define OVTRACE_COLLECTOR_GPU_INFO_H

#include <stdbool.h>
#include <stdint.h>

#define GPU_INFO_MAX_DEVICES 16

typedef struct {
    char name[256]; /* as the driver reports it: untrusted text, escape before printing */
    int sms;        /* multiprocessors */
    int cc_major, cc_minor;
    uint64_t memory_bytes;
} GpuInfoDevice;

typedef struct {
    char driver[64];  /* NVML's driver version ("580.159.04"); "" without NVML */
    int cuda_driver;  /* cuDriverGetVersion: 13000 = CUDA 13.0 */
    int n_devices;    /* visible devices (CUDA_VISIBLE_DEVICES applies), at most GPU_INFO_MAX_DEVICES */
    GpuInfoDevice dev[GPU_INFO_MAX_DEVICES];
} GpuInfo;

/* Fills gi from libcuda (NULL: "libcuda.so.1") and libnvml (NULL: "libnvidia-ml.so.1").
 * False when the driver cannot be loaded or initialised, or has no device. cuInit only:
 * no context is created, so no GPU memory is taken. */
bool GpuInfo_query(GpuInfo *gi, const char *libcuda, const char *libnvml);

#endif
