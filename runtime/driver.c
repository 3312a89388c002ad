/*
 * driver.c - opens the CUDA driver; devices and contexts.
 *
 * libcuda.so.1 (or $PYKRT_LIBCUDA) is opened once per process, under
 * a lock, with dlopen(RTLD_NOW | RTLD_LOCAL): a program linked with
 * libpykrt therefore starts where no driver is installed, and every pykrt
 * call then returns PYKRT_ERROR_NO_DRIVER with a plain message. Each entry
 * point of PK_DRIVER_API (cuda_abi.h) is looked up by its versioned symbol
 * into pk_drv. The library is never closed: the function pointers live
 * as long as the process.
 *
 * $PYKRT_DEVICE=host, read by the same first call, fills pk_drv with the
 * host device's entry points instead (host.c) and the driver is never
 * opened; pk_host_select (PYKRT_DEVICE_HOST) does the same later, as long
 * as the CUDA driver has not loaded: a process runs on one or the other,
 * since a pykrt object holds the handles of the table it was made with.
 * The choice is made once under a lock; its status is published with
 * release order after pk_drv is filled, so a thread that reads success
 * reads the table it goes with.
 *
 * Contexts are the device's primary context (cuDevicePrimaryCtxRetain), the
 * one the CUDA runtime and Numba share, with the device's properties
 * queried once at creation for the launch checks. A context counts the
 * modules, streams, events and allocations made through it, and is not
 * destroyed while any is alive.
 */
#define _GNU_SOURCE /* secure_getenv */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

pk_driver pk_drv;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool decided;               /* load() ran */
static _Atomic pykrt_status load_status;  /* written under load_lock */
static atomic_bool on_host;
static char load_message[1024];           /* written before `decided` */

typedef struct entry {
    const char *symbol;
    const char *fallback;
    bool required;
    size_t offset;
} entry;

#define PK_ENTRY(member, sym, fallback, required, params) {sym, fallback, required, offsetof(pk_driver, member)},
static const entry entries[] = {PK_DRIVER_API(PK_ENTRY)};
#undef PK_ENTRY

/* PYKRT_LIBCUDA lets tests (and odd installs) name the driver library;
 * secure_getenv ignores it in setuid programs. */
static const char *driver_path(void)
{
    const char *path = secure_getenv("PYKRT_LIBCUDA");
    return path && *path ? path : "libcuda.so.1";
}

static bool resolve(void *lib, const char *path)
{
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const entry *e = &entries[i];
        void *fn = dlsym(lib, e->symbol);
        if (!fn && e->fallback)
            fn = dlsym(lib, e->fallback);
        if (!fn && e->required) {
            snprintf(load_message, sizeof load_message, "no CUDA driver: %s lacks %s", path, e->symbol);
            return false;
        }
        /* POSIX guarantees a data pointer from dlsym holds a function's
         * address; memcpy stores it without an object-to-function cast. */
        memcpy((char *)&pk_drv + e->offset, &fn, sizeof fn);
    }
    return true;
}

static void init_failed(CUresult res)
{
    const char *name = "?", *desc = "?";
    pk_drv.cuGetErrorName(res, &name);
    pk_drv.cuGetErrorString(res, &desc);
    bool no_device = res == CUDA_ERROR_NO_DEVICE;
    load_status = no_device ? PYKRT_ERROR_NO_DEVICE : PYKRT_ERROR_NO_DRIVER;
    snprintf(load_message, sizeof load_message, "%s: cuInit failed: %s: %s",
             no_device ? "no CUDA device" : "CUDA driver unusable", name ? name : "?", desc ? desc : "?");
}

static void load_cuda(void)
{
    const char *path = driver_path();
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        load_status = PYKRT_ERROR_NO_DRIVER;
        snprintf(load_message, sizeof load_message, "no CUDA driver: %s", why ? why : path);
        return;
    }
    if (!resolve(lib, path)) {
        memset(&pk_drv, 0, sizeof pk_drv);
        dlclose(lib);
        load_status = PYKRT_ERROR_NO_DRIVER;
        return;
    }
    CUresult res = pk_drv.cuInit(0);
    if (res != CUDA_SUCCESS)
        init_failed(res);
}

/* The host device's table into pk_drv (load_lock held); false, with the
 * reason in why, where $PYKRT_HOST_THREADS is wrong. */
static bool install_host(char *why, size_t size)
{
    if (!pk_host_install(&pk_drv, why, size))
        return false;
    atomic_store(&on_host, true);
    atomic_store_explicit(&load_status, PYKRT_SUCCESS, memory_order_release);
    return true;
}

/* The first call's choice: $PYKRT_DEVICE, then the driver. getenv, not
 * secure_getenv: it names no file to open. */
static void load(void)
{
    const char *device = getenv("PYKRT_DEVICE");
    if (!device || !*device || strcmp(device, "cuda") == 0) {
        load_cuda();
    } else if (strcmp(device, "host") != 0) {
        load_status = PYKRT_ERROR_INVALID_ARGUMENT;
        snprintf(load_message, sizeof load_message, "PYKRT_DEVICE is '%.40s': it takes host (the CPU) or cuda (the "
                 "default)", device);
    } else if (!install_host(load_message, sizeof load_message)) {
        load_status = PYKRT_ERROR_INVALID_ARGUMENT;
    }
}

pykrt_status pk_driver_load(void)
{
    if (PK_UNLIKELY(!atomic_load_explicit(&decided, memory_order_acquire))) {
        pthread_mutex_lock(&load_lock);
        if (!atomic_load(&decided)) {
            load();
            atomic_store_explicit(&decided, true, memory_order_release);
        }
        pthread_mutex_unlock(&load_lock);
    }
    pykrt_status st = atomic_load_explicit(&load_status, memory_order_acquire);
    if (PK_UNLIKELY(st != PYKRT_SUCCESS))
        return pk_fail(st, "%s", load_message);
    return PYKRT_SUCCESS;
}

pykrt_status pk_host_select(const char *what)
{
    pthread_mutex_lock(&load_lock);
    pykrt_status st = PYKRT_SUCCESS;
    char why[256];
    if (atomic_load(&on_host)) {
        /* chosen already */
    } else if (atomic_load(&decided) && atomic_load(&load_status) == PYKRT_SUCCESS) {
        st = pk_fail(PYKRT_ERROR_NOT_SUPPORTED, "%s: this process runs on the CUDA driver already, and a process "
                     "runs either on it or on the host device: set PYKRT_DEVICE=host to run on the host from the "
                     "start", what);
    } else if (install_host(why, sizeof why)) {
        atomic_store_explicit(&decided, true, memory_order_release);
    } else {
        st = pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: %s", what, why);
    }
    pthread_mutex_unlock(&load_lock);
    return st;
}

bool pk_on_host(void)
{
    return atomic_load(&on_host);
}

static pykrt_status status_of(CUresult res)
{
    switch (res) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        return PYKRT_ERROR_OUT_OF_MEMORY;
    case CUDA_ERROR_NO_DEVICE:
        return PYKRT_ERROR_NO_DEVICE;
    default:
        return PYKRT_ERROR_CUDA;
    }
}

pykrt_status pk_cuda_fail(CUresult res, const char *call, const char *what_fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);

    const char *name = NULL, *desc = NULL;
    if (pk_drv.cuGetErrorName(res, &name) != CUDA_SUCCESS || !name)
        return pk_fail(status_of(res), "%s: %s failed: CUDA error %d", what, call, res);
    if (pk_drv.cuGetErrorString(res, &desc) != CUDA_SUCCESS || !desc)
        desc = "no description";
    return pk_fail(status_of(res), "%s: %s failed: %s: %s", what, call, name, desc);
}

CUresult pk_bind(const pykrt_context *ctx)
{
    CUcontext cur = NULL;
    if (pk_drv.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx->cu)
        return CUDA_SUCCESS;
    return pk_drv.cuCtxSetCurrent(ctx->cu);
}

pykrt_status pk_enter(const pykrt_context *ctx, const char *what)
{
    if (!ctx)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: context is NULL", what);
    if (!pk_alive(ctx, PK_CONTEXT))
        return pk_dead(what, PK_CONTEXT);
    CUresult res = pk_bind(ctx);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuCtxSetCurrent", "%s", what);
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_init(void)
{
    return pk_driver_load();
}

pykrt_status pykrt_driver_version(int *version)
{
    if (!version)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_driver_version: version is NULL");
    pykrt_status st = pk_driver_load();
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuDriverGetVersion(version);
    return res ? pk_cuda_fail(res, "cuDriverGetVersion", "pykrt_driver_version") : PYKRT_SUCCESS;
}

pykrt_status pykrt_device_count(int *count)
{
    if (!count)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_device_count: count is NULL");
    pykrt_status st = pk_driver_load();
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuDeviceGetCount(count);
    return res ? pk_cuda_fail(res, "cuDeviceGetCount", "pykrt_device_count") : PYKRT_SUCCESS;
}

/* ---- device properties ---- */

typedef enum { AT_INT, AT_SIZE, AT_BOOL } attr_type;

static const struct {
    CUdevice_attribute attr;
    size_t offset;
    attr_type type;
} attrs[] = {
#define INT_AT(a, field) {CU_DEVICE_ATTRIBUTE_##a, offsetof(pykrt_device_info, field), AT_INT}
    INT_AT(COMPUTE_CAPABILITY_MAJOR, cc_major),
    INT_AT(COMPUTE_CAPABILITY_MINOR, cc_minor),
    INT_AT(MULTIPROCESSOR_COUNT, sm_count),
    INT_AT(WARP_SIZE, warp_size),
    INT_AT(MAX_THREADS_PER_BLOCK, max_threads_per_block),
    INT_AT(MAX_BLOCK_DIM_X, max_block_dim[0]),
    INT_AT(MAX_BLOCK_DIM_Y, max_block_dim[1]),
    INT_AT(MAX_BLOCK_DIM_Z, max_block_dim[2]),
    INT_AT(MAX_GRID_DIM_X, max_grid_dim[0]),
    INT_AT(MAX_GRID_DIM_Y, max_grid_dim[1]),
    INT_AT(MAX_GRID_DIM_Z, max_grid_dim[2]),
    INT_AT(MAX_THREADS_PER_MULTIPROCESSOR, max_threads_per_sm),
    INT_AT(MAX_REGISTERS_PER_BLOCK, max_registers_per_block),
    INT_AT(CLOCK_RATE, clock_khz),
    INT_AT(L2_CACHE_SIZE, l2_cache_bytes),
#undef INT_AT
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, offsetof(pykrt_device_info, max_shared_per_block), AT_SIZE},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, offsetof(pykrt_device_info, max_shared_per_block_optin),
     AT_SIZE},
    {CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, offsetof(pykrt_device_info, total_constant_memory), AT_SIZE},
    {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, offsetof(pykrt_device_info, cooperative_launch), AT_BOOL},
};

static void store_attr(pykrt_device_info *info, size_t i, int value)
{
    char *field = (char *)info + attrs[i].offset;
    if (attrs[i].type == AT_INT) {
        memcpy(field, &value, sizeof value);
    } else if (attrs[i].type == AT_SIZE) {
        size_t v = value > 0 ? (size_t)value : 0;
        memcpy(field, &v, sizeof v);
    } else {
        bool v = value != 0;
        memcpy(field, &v, sizeof v);
    }
}

static pykrt_status query(int ordinal, CUdevice *dev, pykrt_device_info *info, const char *what)
{
    int count = 0;
    CUresult res = pk_drv.cuDeviceGetCount(&count);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuDeviceGetCount", "%s(%d)", what, ordinal);
    if (count == 0)
        return pk_fail(PYKRT_ERROR_NO_DEVICE, "%s(%d): no CUDA device", what, ordinal);
    if (ordinal < 0 || ordinal >= count)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s(%d): no such device; there are %d", what, ordinal, count);
    if ((res = pk_drv.cuDeviceGet(dev, ordinal)) != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuDeviceGet", "%s(%d)", what, ordinal);

    memset(info, 0, sizeof *info);
    info->ordinal = ordinal;
    if ((res = pk_drv.cuDeviceGetName(info->name, (int)sizeof info->name, *dev)) != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuDeviceGetName", "%s(%d)", what, ordinal);
    info->name[sizeof info->name - 1] = '\0';
    if ((res = pk_drv.cuDeviceTotalMem(&info->total_memory, *dev)) != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuDeviceTotalMem", "%s(%d)", what, ordinal);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        int value = 0;
        if ((res = pk_drv.cuDeviceGetAttribute(&value, attrs[i].attr, *dev)) != CUDA_SUCCESS)
            return pk_cuda_fail(res, "cuDeviceGetAttribute", "%s(%d)", what, ordinal);
        store_attr(info, i, value);
    }
    info->host = pk_on_host();
    return PYKRT_SUCCESS;
}

/* The driver for `*ordinal`: PYKRT_DEVICE_HOST chooses the host device,
 * ordinal 0 of its driver. */
static pykrt_status open_device(int *ordinal, const char *what)
{
    if (*ordinal != PYKRT_DEVICE_HOST)
        return pk_driver_load();
    *ordinal = 0;
    return pk_host_select(what);
}

pykrt_status pykrt_device_query(int ordinal, pykrt_device_info *out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_device_query: out is NULL");
    pykrt_status st = open_device(&ordinal, "pykrt_device_query(PYKRT_DEVICE_HOST)");
    if (st != PYKRT_SUCCESS)
        return st;
    CUdevice dev;
    return query(ordinal, &dev, out, "pykrt_device_query");
}

/* ---- contexts ---- */

pykrt_status pykrt_context_create(int ordinal, pykrt_context **out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_context_create: out is NULL");
    *out = NULL;
    pykrt_status st = open_device(&ordinal, "pykrt_context_create(PYKRT_DEVICE_HOST)");
    if (st != PYKRT_SUCCESS)
        return st;
    pykrt_context *ctx = pk_obj_new(PK_CONTEXT);
    if (!ctx)
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "pykrt_context_create(%d): out of host memory", ordinal);
    for (int i = 0; i < PK_LIVE_KINDS; i++)
        atomic_init(&ctx->live[i], 0);
    if ((st = query(ordinal, &ctx->dev, &ctx->info, "pykrt_context_create")) != PYKRT_SUCCESS) {
        pk_obj_release(ctx, PK_CONTEXT);
        return st;
    }
    CUresult res = pk_drv.cuDevicePrimaryCtxRetain(&ctx->cu, ctx->dev);
    if (res != CUDA_SUCCESS) {
        pk_obj_release(ctx, PK_CONTEXT);
        return pk_cuda_fail(res, "cuDevicePrimaryCtxRetain", "pykrt_context_create(%d)", ordinal);
    }
    if ((res = pk_drv.cuCtxSetCurrent(ctx->cu)) != CUDA_SUCCESS) {
        pk_drv.cuDevicePrimaryCtxRelease(ctx->dev);
        pk_obj_release(ctx, PK_CONTEXT);
        return pk_cuda_fail(res, "cuCtxSetCurrent", "pykrt_context_create(%d)", ordinal);
    }
    *out = ctx;
    return PYKRT_SUCCESS;
}

void pk_live_add(pykrt_context *ctx, pk_live what)
{
    atomic_fetch_add(&ctx->live[what], 1);
}

void pk_live_sub(pykrt_context *ctx, pk_live what)
{
    long n = atomic_load(&ctx->live[what]);
    while (n > 0 && !atomic_compare_exchange_weak(&ctx->live[what], &n, n - 1))
        ;
}

/* Refuses to destroy a context through which objects still live: their
 * next use would reach the freed context (a module's kernels launch on
 * it, a stream binds it). The message lists them. */
static pykrt_status check_unused(const pykrt_context *ctx)
{
    /* ORDER LIVE: as enum pk_live. */
    static const char *const names[PK_LIVE_KINDS][2] = {
        {"module", "modules"},
        {"stream", "streams"},
        {"event", "events"},
        {"device allocation", "device allocations"},
        {"pinned host allocation", "pinned host allocations"},
        {"graph", "graphs"},
    };
    long n[PK_LIVE_KINDS];
    int kinds = 0, listed = 0;
    for (int i = 0; i < PK_LIVE_KINDS; i++)
        kinds += (n[i] = atomic_load(&ctx->live[i])) > 0;
    if (kinds == 0)
        return PYKRT_SUCCESS;
    pk_fail(PYKRT_ERROR_IN_USE, "pykrt_context_destroy(%d): the context still has", ctx->info.ordinal);
    for (int i = 0; i < PK_LIVE_KINDS; i++)
        if (n[i] > 0)
            pk_append("%s %ld %s", listed++ == 0 ? "" : listed == kinds ? " and" : ",", n[i], names[i][n[i] != 1]);
    pk_append("; destroy or free them first");
    return PYKRT_ERROR_IN_USE;
}

pykrt_status pykrt_context_destroy(pykrt_context *ctx)
{
    if (!ctx)
        return PYKRT_SUCCESS;
    if (!pk_alive(ctx, PK_CONTEXT))
        return pk_dead("pykrt_context_destroy", PK_CONTEXT);
    pykrt_status st = check_unused(ctx);
    if (st != PYKRT_SUCCESS)
        return st;
    /* Leave no thread-current pointer to a context that may go away. */
    CUcontext cur = NULL;
    if (pk_drv.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx->cu)
        pk_drv.cuCtxSetCurrent(NULL);
    CUresult res = pk_drv.cuDevicePrimaryCtxRelease(ctx->dev);
    int ordinal = ctx->info.ordinal;
    pk_obj_release(ctx, PK_CONTEXT);
    return res ? pk_cuda_fail(res, "cuDevicePrimaryCtxRelease", "pykrt_context_destroy(%d)", ordinal)
               : PYKRT_SUCCESS;
}

pykrt_status pykrt_context_device(const pykrt_context *ctx, pykrt_device_info *out)
{
    if (!ctx || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_context_device: %s is NULL", ctx ? "out" : "context");
    if (!pk_alive(ctx, PK_CONTEXT))
        return pk_dead("pykrt_context_device", PK_CONTEXT);
    *out = ctx->info;
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_context_synchronize(pykrt_context *ctx)
{
    pykrt_status st = pk_enter(ctx, "pykrt_context_synchronize");
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuCtxSynchronize();
    return res ? pk_cuda_fail(res, "cuCtxSynchronize", "pykrt_context_synchronize") : PYKRT_SUCCESS;
}

pykrt_status pykrt_context_handle(const pykrt_context *ctx, void **cucontext)
{
    if (!ctx || !cucontext)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_context_handle: %s is NULL",
                       ctx ? "cucontext" : "context");
    if (!pk_alive(ctx, PK_CONTEXT))
        return pk_dead("pykrt_context_handle", PK_CONTEXT);
    *cucontext = ctx->cu;
    return PYKRT_SUCCESS;
}
