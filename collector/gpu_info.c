/* The GPUs of this machine, from the driver API and NVML loaded with dlopen: the launcher
 * links neither, and a machine without a GPU must still run every other subcommand. */
#include "ovtrace/collector/gpu_info.h"

#include <dlfcn.h>
#include <string.h>

/* The few driver API and NVML entry points used, by their ABI (cuda.h, nvml.h). */
typedef int (*CuInit)(unsigned);
typedef int (*CuDriverGetVersion)(int *);
typedef int (*CuDeviceGetCount)(int *);
typedef int (*CuDeviceGet)(int *, int);
typedef int (*CuDeviceGetName)(char *, int, int);
typedef int (*CuDeviceGetAttribute)(int *, int, int);
typedef int (*CuDeviceTotalMem)(size_t *, int);
typedef int (*NvmlInit)(void);
typedef int (*NvmlSystemGetDriverVersion)(char *, unsigned);
typedef int (*NvmlShutdown)(void);

enum { CU_ATTR_SM_COUNT = 16, CU_ATTR_CC_MAJOR = 75, CU_ATTR_CC_MINOR = 76 };

static void nvml_driver(GpuInfo *gi, const char *libnvml) {
    void *h = dlopen(libnvml ? libnvml : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    NvmlInit init;
    NvmlSystemGetDriverVersion ver;
    NvmlShutdown shut;
    *(void **)&init = dlsym(h, "nvmlInit_v2");
    *(void **)&ver = dlsym(h, "nvmlSystemGetDriverVersion");
    *(void **)&shut = dlsym(h, "nvmlShutdown");
    if (init && ver && init() == 0) {
        char v[sizeof gi->driver] = "";
        if (ver(v, sizeof v) == 0) {
            v[sizeof v - 1] = 0;
            memcpy(gi->driver, v, sizeof v);
        }
        if (shut) shut();
    }
    dlclose(h);
}

bool GpuInfo_query(GpuInfo *gi, const char *libcuda, const char *libnvml) {
    memset(gi, 0, sizeof *gi);
    void *h = dlopen(libcuda ? libcuda : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    CuInit init;
    CuDriverGetVersion version;
    CuDeviceGetCount count;
    CuDeviceGet get;
    CuDeviceGetName name;
    CuDeviceGetAttribute attr;
    CuDeviceTotalMem mem;
    *(void **)&init = dlsym(h, "cuInit");
    *(void **)&version = dlsym(h, "cuDriverGetVersion");
    *(void **)&count = dlsym(h, "cuDeviceGetCount");
    *(void **)&get = dlsym(h, "cuDeviceGet");
    *(void **)&name = dlsym(h, "cuDeviceGetName");
    *(void **)&attr = dlsym(h, "cuDeviceGetAttribute");
    *(void **)&mem = dlsym(h, "cuDeviceTotalMem_v2");
    if (!init || !count || !get) {
        dlclose(h);
        return false;
    }
    /* from here on the library stays loaded: a driver that ran cuInit may have started
     * threads of its own */
    int n = 0;
    if (init(0) != 0 || count(&n) != 0 || n <= 0) return false;
    if (version) version(&gi->cuda_driver);
    if (n > GPU_INFO_MAX_DEVICES) n = GPU_INFO_MAX_DEVICES;
    for (int i = 0; i < n; i++) {
        GpuInfoDevice *d = &gi->dev[gi->n_devices];
        int dev = 0;
        if (get(&dev, i) != 0) continue;
        if (!name || name(d->name, (int)sizeof d->name, dev) != 0) d->name[0] = 0;
        d->name[sizeof d->name - 1] = 0;
        if (attr) {
            attr(&d->sms, CU_ATTR_SM_COUNT, dev);
            attr(&d->cc_major, CU_ATTR_CC_MAJOR, dev);
            attr(&d->cc_minor, CU_ATTR_CC_MINOR, dev);
        }
        size_t bytes = 0;
        if (mem && mem(&bytes, dev) == 0) d->memory_bytes = bytes;
        gi->n_devices++;
    }
    nvml_driver(gi, libnvml);
    return gi->n_devices > 0;
}
