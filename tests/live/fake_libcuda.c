/* A stand-in for libcuda.so.1 and libnvidia-ml.so.1 (the few calls GpuInfo_query makes):
 * two devices, the second with a hostile name (an ESC sequence and a quote), so that the
 * recording's "gpus" metadata is tested without a GPU. */
#include <stddef.h>
#include <string.h>

int cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
int cuDriverGetVersion(int *v) {
    *v = 13000;
    return 0;
}
int cuDeviceGetCount(int *n) {
    *n = 2;
    return 0;
}
int cuDeviceGet(int *dev, int ordinal) {
    *dev = ordinal;
    return ordinal < 2 ? 0 : 101;
}
int cuDeviceGetName(char *name, int len, int dev) {
    const char *s = dev == 0 ? "NVIDIA H200" : "evil\x1b[2J\"gpu";
    if (len <= 0) return 1;
    strncpy(name, s, (size_t)len - 1);
    name[len - 1] = 0;
    return 0;
}
int cuDeviceGetAttribute(int *v, int attr, int dev) {
    switch (attr) {
    case 16: *v = dev == 0 ? 132 : 7; return 0; /* multiprocessors */
    case 75: *v = 9; return 0;                  /* compute capability */
    case 76: *v = 0; return 0;
    default: return 1;
    }
}
int cuDeviceTotalMem_v2(size_t *bytes, int dev) {
    *bytes = dev == 0 ? (size_t)143771 << 20 : (size_t)1 << 30;
    return 0;
}
int nvmlInit_v2(void) { return 0; }
int nvmlSystemGetDriverVersion(char *v, unsigned len) {
    if (len < 11) return 7;
    strcpy(v, "580.159.04");
    return 0;
}
int nvmlShutdown(void) { return 0; }
