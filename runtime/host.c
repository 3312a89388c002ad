/*
 * host.c - the host device: the CUDA driver's entry points over the CPU.
 *
 * When the process runs on the host (driver.c: $PYKRT_DEVICE=host or
 * PYKRT_DEVICE_HOST), pk_drv holds these instead of libcuda's, so every
 * pykrt function works unchanged on the CPU. Device memory is host memory
 * (a CUdeviceptr is the address), copies are memcpy, and launches run to
 * completion before cuLaunchKernel returns (host_sched.c): so every
 * stream is already in order and synchronized, synchronizing is nothing,
 * and an event records the time it is recorded at. Graphs, the linker and
 * the stream capture entry points stay NULL, as a driver that lacks them,
 * and pykrt reports PYKRT_ERROR_NOT_SUPPORTED for them.
 *
 * The device is ordinal 0, the only one, named after the CPU; its limits
 * are a GPU's (host.h) so that launches a GPU takes it takes too, with one
 * multiprocessor a worker thread.
 */
#define _GNU_SOURCE /* sched_getaffinity's CPU_COUNT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "host.h"

/* ---- errors ---- */

static const struct {
    CUresult code;
    const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "the host module cannot be loaded"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch (the host device runs at most 1024 at once)"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported on the host device"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static CUresult error_entry(CUresult error, const char **str, bool text)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error) {
            *str = text ? errors[i].text : errors[i].name;
            return CUDA_SUCCESS;
        }
    *str = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

static CUresult pkh_cuGetErrorName(CUresult error, const char **str)
{
    return error_entry(error, str, false);
}

static CUresult pkh_cuGetErrorString(CUresult error, const char **str)
{
    return error_entry(error, str, true);
}

/* ---- the device ---- */

static CUresult pkh_cuInit(unsigned int flags)
{
    (void)flags;
    return CUDA_SUCCESS;
}

/* No CUDA driver behind it: 0, which no driver reports. */
static CUresult pkh_cuDriverGetVersion(int *version)
{
    *version = 0;
    return CUDA_SUCCESS;
}

static CUresult pkh_cuDeviceGetCount(int *count)
{
    *count = 1;
    return CUDA_SUCCESS;
}

static CUresult pkh_cuDeviceGet(CUdevice *device, int ordinal)
{
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

/* The CPU's model as /proc/cpuinfo names it, else the machine (uname). */
static void cpu_model(char *out, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            const char *v = strchr(line, ':') + 1;
            v += strspn(v, " \t");
            snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
            fclose(f);
            return;
        }
    if (f)
        fclose(f);
    struct utsname u;
    snprintf(out, size, "%s", uname(&u) == 0 ? u.machine : "unknown");
}

/* The name says plainly that the CPU runs the kernels. */
static CUresult pkh_cuDeviceGetName(char *name, int len, CUdevice dev)
{
    if (dev != 0 || len <= 0)
        return dev != 0 ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_INVALID_VALUE;
    char model[200];
    cpu_model(model, sizeof model);
    snprintf(name, (size_t)len, "host CPU (%s)", model);
    return CUDA_SUCCESS;
}

static CUresult pkh_cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *bytes = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* The CPU's clock in kHz as /proc/cpuinfo says ("cpu MHz"); 0 if unknown. */
static int clock_khz(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    double mhz = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0 && strchr(line, ':')) {
            mhz = strtod(strchr(line, ':') + 1, NULL);
            break;
        }
    if (f)
        fclose(f);
    return mhz > 0 && mhz < 1e6 ? (int)(mhz * 1000) : 0;
}

static int attribute(CUdevice_attribute attrib)
{
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: /* a worker runs one block at a time */
        return PK_HOST_MAX_THREADS;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
        return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
        return 0x7fffffff;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
        return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        return PK_HOST_SHARED_DEFAULT;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
        return PK_HOST_SHARED_OPTIN;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
        return 64 << 10;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
        return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
        return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
        return clock_khz();
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        return pk_host_workers();
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: {
        long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        return l2 > 0 && l2 < 0x7fffffff ? (int)l2 : 0;
    }
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
        return 1;
    default: /* compute capability 0.0: no GPU arch */
        return 0;
    }
}

static CUresult pkh_cuDeviceGetAttribute(int *value, CUdevice_attribute attrib, CUdevice dev)
{
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *value = attribute(attrib);
    return CUDA_SUCCESS;
}

/* ---- the context: one, current or not per thread as in CUDA ---- */

static struct {
    int unused;
} host_context;

static _Thread_local CUcontext current;

static CUresult pkh_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    *ctx = (CUcontext)(void *)&host_context;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult pkh_cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult pkh_cuCtxGetCurrent(CUcontext *ctx)
{
    *ctx = current;
    return CUDA_SUCCESS;
}

static CUresult pkh_cuCtxSetCurrent(CUcontext ctx)
{
    current = ctx;
    return CUDA_SUCCESS;
}

/* Launches and copies are done when their call returns. */
static CUresult pkh_cuCtxSynchronize(void)
{
    return CUDA_SUCCESS;
}

/* ---- memory: a CUdeviceptr is the host address ---- */

/* CUDA's allocations are 256-byte aligned; code may count on it. */
static CUresult pkh_cuMemAlloc(CUdeviceptr *ptr, size_t bytes)
{
    void *p = NULL;
    if (bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (posix_memalign(&p, 256, bytes) != 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *ptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

static CUresult pkh_cuMemFree(CUdeviceptr ptr)
{
    free((void *)(uintptr_t)ptr);
    return CUDA_SUCCESS;
}

/* Nothing to pin: host memory is the device's. */
static CUresult pkh_cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    (void)flags;
    if (posix_memalign(ptr, 256, bytes ? bytes : 1) != 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    return CUDA_SUCCESS;
}

static CUresult pkh_cuMemFreeHost(void *ptr)
{
    free(ptr);
    return CUDA_SUCCESS;
}

static CUresult pkh_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return CUDA_SUCCESS;
}

static CUresult pkh_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return CUDA_SUCCESS;
}

/* memmove: a device-to-device copy may be within one allocation. */
static CUresult pkh_cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
    return CUDA_SUCCESS;
}

static CUresult pkh_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream)
{
    (void)stream;
    return pkh_cuMemcpyHtoD(dst, src, bytes);
}

static CUresult pkh_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
    (void)stream;
    return pkh_cuMemcpyDtoH(dst, src, bytes);
}

static CUresult pkh_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
    (void)stream;
    return pkh_cuMemcpyDtoD(dst, src, bytes);
}

static CUresult pkh_cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count)
{
    memset((void *)(uintptr_t)dst, value, count);
    return CUDA_SUCCESS;
}

static CUresult pkh_cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count)
{
    uint32_t *p = (uint32_t *)(uintptr_t)dst;
    for (size_t i = 0; i < count; i++)
        p[i] = value;
    return CUDA_SUCCESS;
}

static CUresult pkh_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream)
{
    (void)stream;
    return pkh_cuMemsetD8(dst, value, count);
}

/* ---- streams: distinct handles; their work is done when queued ---- */

struct CUstream_st {
    unsigned flags;
};

static CUresult pkh_cuStreamCreate(CUstream *stream, unsigned int flags)
{
    if (!(*stream = malloc(sizeof **stream)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    (*stream)->flags = flags;
    return CUDA_SUCCESS;
}

static CUresult pkh_cuStreamDestroy(CUstream stream)
{
    free(stream);
    return CUDA_SUCCESS;
}

static CUresult pkh_cuStreamSynchronize(CUstream stream)
{
    (void)stream;
    return CUDA_SUCCESS;
}

/* The work before the event's record is done already. */
static CUresult pkh_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags)
{
    (void)stream, (void)event, (void)flags;
    return CUDA_SUCCESS;
}

/* ---- events: the monotonic clock when recorded ---- */

struct CUevent_st {
    struct timespec at;
    bool recorded;
};

static CUresult pkh_cuEventCreate(CUevent *event, unsigned int flags)
{
    (void)flags;
    if (!(*event = calloc(1, sizeof **event)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    return CUDA_SUCCESS;
}

static CUresult pkh_cuEventDestroy(CUevent event)
{
    free(event);
    return CUDA_SUCCESS;
}

static CUresult pkh_cuEventRecord(CUevent event, CUstream stream)
{
    (void)stream;
    clock_gettime(CLOCK_MONOTONIC, &event->at);
    event->recorded = true;
    return CUDA_SUCCESS;
}

static CUresult pkh_cuEventSynchronize(CUevent event)
{
    (void)event;
    return CUDA_SUCCESS;
}

/* As CUDA: an event never recorded has no time to subtract. */
static CUresult pkh_cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    if (!start->recorded || !end->recorded)
        return CUDA_ERROR_INVALID_HANDLE;
    double s = (double)(end->at.tv_sec - start->at.tv_sec);
    double ns = (double)(end->at.tv_nsec - start->at.tv_nsec);
    *ms = (float)(s * 1e3 + ns / 1e6);
    return CUDA_SUCCESS;
}

/* ---- host target archs ---- */

#if defined(__x86_64__)
/* The x86-64 psABI's levels, by the features the C compiler can ask the
 * CPU for (it also asks whether the OS saves AVX state). */
static bool x86_level(int level)
{
    __builtin_cpu_init();
    bool v2 = __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("sse3") &&
              __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1") &&
              __builtin_cpu_supports("sse4.2");
    bool v3 = v2 && __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
              __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma");
    bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
              __builtin_cpu_supports("avx512vl");
    return level <= 1 || (level == 2 && v2) || (level == 3 && v3) || (level == 4 && v4);
}
#define PK_X86 1
#else
static bool x86_level(int level)
{
    (void)level;
    return false;
}
#define PK_X86 0
#endif

int pk_host_arch_rank(const char *arch)
{
    static const struct {
        const char *name;
        int level; /* x86-64's; 0: another machine */
    } archs[] = {{"x86-64", 1}, {"x86-64-v2", 2}, {"x86-64-v3", 3}, {"x86-64-v4", 4}, {"aarch64", 0}};
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
        if (strcmp(arch, archs[i].name) != 0)
            continue;
        if (archs[i].level)
            return PK_X86 && x86_level(archs[i].level) ? archs[i].level : -1;
#if defined(__aarch64__)
        return 1;
#else
        return -1;
#endif
    }
    return -1;
}

/* ---- the table ---- */

static const pk_driver host_driver = {
    .cuGetErrorName = pkh_cuGetErrorName,
    .cuGetErrorString = pkh_cuGetErrorString,
    .cuInit = pkh_cuInit,
    .cuDriverGetVersion = pkh_cuDriverGetVersion,
    .cuDeviceGet = pkh_cuDeviceGet,
    .cuDeviceGetCount = pkh_cuDeviceGetCount,
    .cuDeviceGetName = pkh_cuDeviceGetName,
    .cuDeviceGetAttribute = pkh_cuDeviceGetAttribute,
    .cuDeviceTotalMem = pkh_cuDeviceTotalMem,
    .cuDevicePrimaryCtxRetain = pkh_cuDevicePrimaryCtxRetain,
    .cuDevicePrimaryCtxRelease = pkh_cuDevicePrimaryCtxRelease,
    .cuCtxGetCurrent = pkh_cuCtxGetCurrent,
    .cuCtxSetCurrent = pkh_cuCtxSetCurrent,
    .cuCtxSynchronize = pkh_cuCtxSynchronize,
    .cuModuleLoadDataEx = pkh_cuModuleLoadDataEx,
    .cuModuleUnload = pkh_cuModuleUnload,
    .cuModuleGetFunction = pkh_cuModuleGetFunction,
    .cuModuleGetGlobal = pkh_cuModuleGetGlobal,
    .cuFuncGetAttribute = pkh_cuFuncGetAttribute,
    .cuFuncSetAttribute = pkh_cuFuncSetAttribute,
    .cuMemAlloc = pkh_cuMemAlloc,
    .cuMemFree = pkh_cuMemFree,
    .cuMemHostAlloc = pkh_cuMemHostAlloc,
    .cuMemFreeHost = pkh_cuMemFreeHost,
    .cuMemcpyHtoD = pkh_cuMemcpyHtoD,
    .cuMemcpyDtoH = pkh_cuMemcpyDtoH,
    .cuMemcpyDtoD = pkh_cuMemcpyDtoD,
    .cuMemcpyHtoDAsync = pkh_cuMemcpyHtoDAsync,
    .cuMemcpyDtoHAsync = pkh_cuMemcpyDtoHAsync,
    .cuMemcpyDtoDAsync = pkh_cuMemcpyDtoDAsync,
    .cuMemsetD8 = pkh_cuMemsetD8,
    .cuMemsetD32 = pkh_cuMemsetD32,
    .cuMemsetD8Async = pkh_cuMemsetD8Async,
    .cuStreamCreate = pkh_cuStreamCreate,
    .cuStreamDestroy = pkh_cuStreamDestroy,
    .cuStreamSynchronize = pkh_cuStreamSynchronize,
    .cuStreamWaitEvent = pkh_cuStreamWaitEvent,
    .cuOccupancyMaxActiveBlocksPerMultiprocessor = pkh_cuOccupancyMaxActiveBlocksPerMultiprocessor,
    .cuOccupancyMaxPotentialBlockSize = pkh_cuOccupancyMaxPotentialBlockSize,
    .cuEventCreate = pkh_cuEventCreate,
    .cuEventDestroy = pkh_cuEventDestroy,
    .cuEventRecord = pkh_cuEventRecord,
    .cuEventSynchronize = pkh_cuEventSynchronize,
    .cuEventElapsedTime = pkh_cuEventElapsedTime,
    .cuLaunchKernel = pkh_cuLaunchKernel,
    .cuLaunchCooperativeKernel = pkh_cuLaunchCooperativeKernel,
};

/* The name of a required entry point the table lacks (a bug of this file,
 * caught by every test on the host), or NULL. */
static const char *missing_entry(const pk_driver *d)
{
#define PK_HOST_REQUIRED(member, sym, fallback, required, params)                                              \
    if ((required) && !d->member)                                                                                \
        return sym;
    PK_DRIVER_API(PK_HOST_REQUIRED)
#undef PK_HOST_REQUIRED
    return NULL;
}

bool pk_host_install(pk_driver *d, char *why, size_t size)
{
    const char *missing = missing_entry(&host_driver);
    if (missing) {
        snprintf(why, size, "the host device lacks %s", missing);
        return false;
    }
    if (!pk_host_sched_init(why, size))
        return false;
    *d = host_driver;
    return true;
}
