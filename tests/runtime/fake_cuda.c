/*
 * fake_cuda.c - a test double of the CUDA driver, built as libcuda.so.1.
 *
 * It exports the versioned entry points libpykrt looks up (runtime/
 * cuda_abi.h) and runs them on the CPU: device memory is host malloc (a
 * CUdeviceptr is the host address), copies are memcpy within a tracked
 * allocation (a copy out of bounds is CUDA_ERROR_INVALID_VALUE, as a bad
 * pointer would be on a GPU), events tick a fake clock of 0.5 ms per record.
 *
 * Modules are parsed from their PTX text: each .entry's parameter list
 * (type, .align, [n]) and each .const variable; an `.extern .func` that
 * the text does not define fails the load, as the JIT fails it. That makes the double an
 * independent judge of argument packing: a launch lays out the
 * kernelParams values at the offsets and sizes the PTX declares, as the
 * real driver does, and records them for the tests (fake_cuda_last_launch);
 * cuFuncGetParamInfo reports the same list. The linker (cuLink*) keeps
 * its inputs, fails on a PTX `.extern .func` that no input defines (a
 * cubin, object or library input may define anything), and makes a
 * module of its PTX inputs, or of its cubin.
 * A cubin is accepted and its kernels found by their .text.<name> section,
 * but not launched. The kernel `vadd` (and docs/tutorial.md's
 * `add_arrays_cuda`) also runs, on the CPU, so host programs can be
 * checked end to end.
 *
 * Controls: FAKE_CUDA_DEVICES (default 2; 0 makes cuInit fail with
 * CUDA_ERROR_NO_DEVICE), FAKE_CUDA_CC (default 86), and the fake_cuda_*
 * functions of fake_cuda.h. Built with -DFAKE_OMIT_LAUNCH it lacks
 * cuLaunchKernel, for the missing-entry-point test. One mutex guards the
 * state; the current context is per thread, as in the real driver.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_abi.h"
#include "fake_cuda.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 4

struct CUctx_st {
    int device;
    int retains;
};

typedef struct fparam {
    size_t size, align;
} fparam;

struct CUfunc_st {
    char name[128];
    int nparams; /* -1: unknown (cubin) */
    fparam params[FAKE_MAX_PARAMS];
    int max_threads;
    int dyn_limit;
    struct CUmod_st *module;
    struct CUfunc_st *next;
};

typedef struct global {
    char name[128];
    unsigned char *mem;
    size_t size;
    struct global *next;
} global;

struct CUmod_st {
    struct CUfunc_st *funcs;
    global *globals;
};

/* A launch recorded by a capture: the function, shape and parameter
 * bytes, replayed through the launch path by cuGraphLaunch. */
typedef struct recorded {
    struct CUfunc_st *f;
    unsigned dims[6];
    unsigned shared;
    int coop;
    unsigned char *bytes; /* the parameters, each at its offset */
    size_t offset[FAKE_MAX_PARAMS];
    struct recorded *next;
} recorded;

struct CUgraph_st {
    recorded *head, **tail;
};

struct CUgraphExec_st {
    struct CUgraph_st *graph; /* a copy of the launches, owned */
};

struct CUstream_st {
    unsigned flags;
    struct CUgraph_st *capture; /* non-NULL while capturing */
    bool invalidated;           /* a forbidden call ended the capture's validity */
    CUevent waited;             /* the last event waited on, for tests */
};

struct CUevent_st {
    double ms;
    bool recorded;
};

typedef struct alloc {
    unsigned char *base;
    size_t size;
    bool host, module;
    struct alloc *next;
} alloc;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bool initialized;
static int ndevices = 2;
static int cc = 86;
static struct CUctx_st primary[MAX_DEVICES];
static _Thread_local CUcontext current;
static alloc *allocs;
static char fail_symbol[64];
static CUresult fail_code;
static long launches;
static fake_launch last;
static unsigned char *last_image_data;
static size_t last_image_size;
static double clock_ms;
static struct CUfunc_st *all_funcs[256];
static int nall_funcs;
static bool param_info = true;

/* ---- plumbing ---- */

static CUresult injected(const char *symbol)
{
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&mu);
    if (fail_symbol[0] && strcmp(fail_symbol, symbol) == 0) {
        fail_symbol[0] = '\0';
        r = fail_code;
    }
    pthread_mutex_unlock(&mu);
    return r;
}

static CUresult enter(const char *symbol, bool need_ctx)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (need_ctx && !current)
        return CUDA_ERROR_INVALID_CONTEXT;
    return injected(symbol);
}

#define ENTER(sym)                                                                                               \
    do {                                                                                                         \
        CUresult r_ = enter(sym, false);                                                                         \
        if (r_)                                                                                                  \
            return r_;                                                                                           \
    } while (0)

#define ENTER_CTX(sym)                                                                                           \
    do {                                                                                                         \
        CUresult r_ = enter(sym, true);                                                                          \
        if (r_)                                                                                                  \
            return r_;                                                                                           \
    } while (0)

/* Whether [p, p+n) lies inside one tracked device allocation. Called locked. */
static bool in_device(CUdeviceptr p, size_t n)
{
    unsigned char *q = (unsigned char *)(uintptr_t)p;
    for (alloc *a = allocs; a; a = a->next)
        if (!a->host && q >= a->base && q <= a->base + a->size && n <= (size_t)(a->base + a->size - q))
            return true;
    return false;
}

static bool valid(CUdeviceptr p, size_t n)
{
    pthread_mutex_lock(&mu);
    bool ok = in_device(p, n);
    pthread_mutex_unlock(&mu);
    return ok;
}

static void track(unsigned char *base, size_t size, bool host, bool module)
{
    alloc *a = calloc(1, sizeof *a);
    a->base = base;
    a->size = size;
    a->host = host;
    a->module = module;
    pthread_mutex_lock(&mu);
    a->next = allocs;
    allocs = a;
    pthread_mutex_unlock(&mu);
}

static bool untrack(unsigned char *base, bool host)
{
    pthread_mutex_lock(&mu);
    alloc **pa = &allocs;
    while (*pa && !((*pa)->base == base && (*pa)->host == host && !(*pa)->module))
        pa = &(*pa)->next;
    alloc *a = *pa;
    if (a)
        *pa = a->next;
    pthread_mutex_unlock(&mu);
    free(a);
    return a != NULL;
}

/* ---- errors, init, devices ---- */

static const struct {
    CUresult code;
    const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
     "capture was not initiated in this stream"},
    {CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static CUresult error_text(CUresult code, const char **str, bool name)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == code) {
            *str = name ? errors[i].name : errors[i].text;
            return CUDA_SUCCESS;
        }
    *str = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuGetErrorName(CUresult code, const char **str)
{
    return error_text(code, str, true);
}

EXPORT CUresult cuGetErrorString(CUresult code, const char **str)
{
    return error_text(code, str, false);
}

EXPORT CUresult cuInit(unsigned int flags)
{
    const char *n = getenv("FAKE_CUDA_DEVICES"), *c = getenv("FAKE_CUDA_CC");
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (n)
        ndevices = atoi(n) < MAX_DEVICES ? atoi(n) : MAX_DEVICES;
    if (c)
        cc = atoi(c);
    if (ndevices <= 0)
        return CUDA_ERROR_NO_DEVICE;
    initialized = true;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *version)
{
    *version = 13000;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
    ENTER("cuDeviceGetCount");
    *count = ndevices;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    ENTER("cuDeviceGet");
    if (ordinal < 0 || ordinal >= ndevices)
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    ENTER("cuDeviceGetName");
    if (dev < 0 || dev >= ndevices || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "Fake CUDA Device %d", dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    ENTER("cuDeviceTotalMem_v2");
    *bytes = (size_t)8 << 30;
    return CUDA_SUCCESS;
}

static int optin_shared(void)
{
    return cc >= 90 ? 232448 : cc == 80 ? 166912 : cc >= 86 ? 101376 : 65536;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr, CUdevice dev)
{
    ENTER("cuDeviceGetAttribute");
    if (dev < 0 || dev >= ndevices)
        return CUDA_ERROR_INVALID_DEVICE;
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = cc / 10; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = cc % 10; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 84; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = 1536; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1500000; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 6 << 20; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 49152; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = optin_shared(); break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: *value = 1; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* ---- contexts ---- */

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    ENTER("cuDevicePrimaryCtxRetain");
    if (dev < 0 || dev >= ndevices)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&mu);
    primary[dev].device = dev;
    primary[dev].retains++;
    pthread_mutex_unlock(&mu);
    *ctx = &primary[dev];
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    ENTER("cuDevicePrimaryCtxRelease_v2");
    if (dev < 0 || dev >= ndevices)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&mu);
    CUresult r = primary[dev].retains > 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
    if (r == CUDA_SUCCESS)
        primary[dev].retains--;
    pthread_mutex_unlock(&mu);
    return r;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx)
{
    ENTER("cuCtxGetCurrent");
    *ctx = current;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    ENTER("cuCtxSetCurrent");
    current = ctx;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize(void)
{
    ENTER_CTX("cuCtxSynchronize");
    return CUDA_SUCCESS;
}

/* ---- modules: a small PTX reader ---- */

static size_t type_width(const char *t)
{
    if (t[0] != '.' || !strchr("busf", t[1]))
        return 0;
    int bits = atoi(t + 2);
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? (size_t)bits / 8 : 0;
}

/* One ".param [.align N] .type [.ptr ...] name[[n]]" of an entry. */
static bool read_param(const char *text, fparam *p)
{
    char tok[8][64];
    int n = sscanf(text, "%63s %63s %63s %63s %63s %63s %63s %63s", tok[0], tok[1], tok[2], tok[3], tok[4], tok[5],
                   tok[6], tok[7]);
    size_t align = 0, width = 0, count = 1;
    for (int i = 1; i < n && !width; i++) {
        if (strcmp(tok[i], ".align") == 0 && i + 1 < n)
            align = (size_t)atol(tok[++i]);
        else
            width = type_width(tok[i]);
    }
    const char *bracket = strchr(text, '[');
    if (bracket)
        count = (size_t)atol(bracket + 1);
    if (n < 2 || strcmp(tok[0], ".param") != 0 || !width || !count)
        return false;
    p->size = width * count;
    p->align = align ? align : width;
    return true;
}

static CUresult read_entry(struct CUmod_st *m, const char *at)
{
    struct CUfunc_st *f = calloc(1, sizeof *f);
    const char *name = at + strlen(".entry");
    while (isspace((unsigned char)*name))
        name++;
    size_t len = strcspn(name, " \t\r\n(");
    snprintf(f->name, sizeof f->name, "%.*s", (int)len, name);
    const char *open = strchr(name, '('), *brace = strchr(name, '{');
    const char *close = open ? strchr(open, ')') : NULL;
    f->module = m;
    f->next = m->funcs;
    m->funcs = f;
    f->max_threads = 1024;
    f->dyn_limit = 49152;
    const char *maxntid = strstr(name, ".maxntid");
    if (maxntid && (!brace || maxntid < brace))
        f->max_threads = atoi(maxntid + strlen(".maxntid"));
    if (!open || (brace && open > brace))
        return CUDA_SUCCESS; /* no parameters */
    if (!close)
        return CUDA_ERROR_INVALID_PTX;
    for (const char *p = open + 1; p < close && f->nparams < FAKE_MAX_PARAMS;) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        const char *end = comma ? comma : close;
        char one[256];
        snprintf(one, sizeof one, "%.*s", (int)(end - p), p);
        if (strspn(one, " \t\r\n") != strlen(one) && !read_param(one, &f->params[f->nparams++]))
            return CUDA_ERROR_INVALID_PTX;
        p = end + 1;
    }
    return CUDA_SUCCESS;
}

/* ".const .align 4 .b8 coeffs[64];", ".global .align 4 .u32 flag;" and
 * the like, at module scope. */
static void read_const(struct CUmod_st *m, const char *at)
{
    char line[256], *tok, *save = NULL;
    snprintf(line, sizeof line, "%.*s", (int)strcspn(at, ";\n"), at);
    size_t width = 0, count = 1;
    char name[128] = "";
    for (tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (!width && type_width(tok))
            width = type_width(tok);
        else if (width && !name[0]) {
            snprintf(name, sizeof name, "%.*s", (int)strcspn(tok, "[="), tok);
            if (strchr(tok, '['))
                count = (size_t)atol(strchr(tok, '[') + 1);
        }
    }
    if (!width || !name[0])
        return;
    global *g = calloc(1, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->size = width * count;
    g->mem = calloc(1, g->size);
    g->next = m->globals;
    m->globals = g;
    track(g->mem, g->size, false, true);
}

/* The name a PTX function's declaration gives after ".func", skipping a
 * return parameter list "(...)". */
static size_t func_name(const char *p, const char **name)
{
    p += strlen(".func");
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '(')
        p = strchr(p, ')') ? strchr(p, ')') + 1 : p;
    while (isspace((unsigned char)*p))
        p++;
    *name = p;
    return strcspn(p, " \t\r\n(;");
}

/* Whether PTX text defines function name[0..len) (a .func not .extern). */
static bool defined_in(const char *ptx, const char *name, size_t len)
{
    for (const char *p = strstr(ptx, ".func"); p; p = strstr(p + 1, ".func")) {
        const char *n;
        size_t k = func_name(p, &n);
        bool ext = p - ptx >= 8 && memcmp(p - 8, ".extern ", 8) == 0;
        if (!ext && k == len && memcmp(n, name, len) == 0)
            return true;
    }
    return false;
}

/* What the linker's image starts with: its externs are resolved. */
#define LINKED "// linked by fake_cuda\n"

static CUresult jit_error(void **log, const char *msg)
{
    size_t size = (size_t)(uintptr_t)log[1];
    if (log[0] && size)
        snprintf((char *)log[0], size, "%s", msg);
    return CUDA_ERROR_INVALID_PTX;
}

static CUresult read_ptx(struct CUmod_st *m, const char *ptx, void **log)
{
    const char *target = strstr(ptx, ".target");
    if (!strstr(ptx, ".version"))
        return jit_error(log,
                         "ptxas application ptx input, line 1; fatal   : Missing .version directive at start of file");
    if (target && atoi(target + strlen(".target sm_")) > cc)
        return jit_error(log,
                         "ptxas fatal   : SM version specified by .target is higher than default SM version assumed");
    for (const char *p = strncmp(ptx, LINKED, strlen(LINKED)) ? strstr(ptx, ".extern .func") : NULL; p;
         p = strstr(p + 1, ".extern .func")) {
        const char *name;
        size_t len = func_name(p + strlen(".extern "), &name);
        if (!defined_in(ptx, name, len)) {
            char msg[256];
            snprintf(msg, sizeof msg, "ptxas fatal   : Unresolved extern function '%.*s'", (int)len, name);
            return jit_error(log, msg);
        }
    }
    for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p + 1, ".entry")) {
        CUresult r = read_entry(m, p);
        if (r)
            return jit_error(log, "ptxas application ptx input: syntax error in .entry parameters");
    }
    for (const char *p = strstr(ptx, ".const "); p; p = strstr(p + 1, ".const "))
        read_const(m, p);
    for (const char *p = strstr(ptx, ".visible .global "); p; p = strstr(p + 1, ".visible .global "))
        read_const(m, p + strlen(".visible "));
    return CUDA_SUCCESS;
}

static void free_module(struct CUmod_st *m)
{
    for (struct CUfunc_st *f = m->funcs, *next; f; f = next) {
        next = f->next;
        pthread_mutex_lock(&mu);
        for (int i = 0; i < nall_funcs; i++)
            if (all_funcs[i] == f)
                all_funcs[i] = all_funcs[--nall_funcs];
        pthread_mutex_unlock(&mu);
        free(f);
    }
    for (global *g = m->globals, *next; g; g = next) {
        next = g->next;
        pthread_mutex_lock(&mu);
        for (alloc **pa = &allocs; *pa; pa = &(*pa)->next)
            if ((*pa)->base == g->mem) {
                alloc *a = *pa;
                *pa = a->next;
                free(a);
                break;
            }
        pthread_mutex_unlock(&mu);
        free(g->mem);
        free(g);
    }
    free(m);
}

static void remember_image(const void *image, size_t size)
{
    pthread_mutex_lock(&mu);
    free(last_image_data);
    last_image_data = malloc(size);
    memcpy(last_image_data, image, size);
    last_image_size = size;
    pthread_mutex_unlock(&mu);
}

/* An ELF64 file ends with its section or its program headers. */
static size_t elf_size(const unsigned char *elf)
{
    uint64_t shoff, phoff;
    uint16_t phentsize, phnum, shentsize, shnum;
    memcpy(&phoff, elf + 32, 8);
    memcpy(&shoff, elf + 40, 8);
    memcpy(&phentsize, elf + 54, 2);
    memcpy(&phnum, elf + 56, 2);
    memcpy(&shentsize, elf + 58, 2);
    memcpy(&shnum, elf + 60, 2);
    size_t sh = (size_t)shoff + (size_t)shentsize * shnum, ph = (size_t)phoff + (size_t)phentsize * phnum;
    return sh > ph ? sh : ph;
}

EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int nopts, CUjit_option *opts,
                                   void **values)
{
    ENTER_CTX("cuModuleLoadDataEx");
    if (!image)
        return CUDA_ERROR_INVALID_VALUE;
    void *log[2] = {NULL, NULL};
    for (unsigned i = 0; i < nopts; i++) {
        if (opts[i] == CU_JIT_ERROR_LOG_BUFFER)
            log[0] = values[i];
        else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            log[1] = values[i];
    }
    struct CUmod_st *m = calloc(1, sizeof *m);
    if (memcmp(image, "\x7f" "ELF", 4) == 0) {
        remember_image(image, elf_size(image));
    } else {
        remember_image(image, strlen(image));
        CUresult r = read_ptx(m, image, log);
        if (r) {
            free_module(m);
            return r;
        }
    }
    *module = m;
    return CUDA_SUCCESS;
}

/* Frees the module even when told to fail, so that the test of a failing
 * unload leaks nothing. */
EXPORT CUresult cuModuleUnload(CUmodule m)
{
    CUresult r = enter("cuModuleUnload", true);
    if (m)
        free_module(m);
    return r ? r : m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* A cubin's kernel has a section .text.<name>. */
static bool cubin_has(const char *name)
{
    char want[160];
    int n = snprintf(want, sizeof want, ".text.%s", name);
    pthread_mutex_lock(&mu);
    bool found = memmem(last_image_data, last_image_size, want, (size_t)n + 1) != NULL;
    pthread_mutex_unlock(&mu);
    return found;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *func, CUmodule m, const char *name)
{
    ENTER_CTX("cuModuleGetFunction");
    if (!m || !name)
        return CUDA_ERROR_INVALID_VALUE;
    for (struct CUfunc_st *f = m->funcs; f; f = f->next)
        if (strcmp(f->name, name) == 0) {
            *func = f;
            return CUDA_SUCCESS;
        }
    if (!m->funcs && !m->globals && cubin_has(name)) {
        struct CUfunc_st *f = calloc(1, sizeof *f);
        snprintf(f->name, sizeof f->name, "%s", name);
        f->nparams = -1;
        f->max_threads = 1024;
        f->dyn_limit = 49152;
        f->module = m;
    f->next = m->funcs;
        m->funcs = f;
        *func = f;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_FOUND;
}

/* ---- the linker: inputs kept; PTX externs resolved by name ---- */

typedef struct link_input {
    int type;
    char name[256];
    char *data; /* NUL-terminated past size */
    size_t size;
} link_input;

struct CUlinkState_st {
    link_input *inputs;
    int n;
    char *log;
    size_t log_size;
    char *out; /* what cuLinkComplete made, freed by cuLinkDestroy */
};

static int live_links;
static char last_link_text[4096];

static void link_log(CUlinkState l, const char *msg)
{
    if (l->log && l->log_size)
        snprintf(l->log, l->log_size, "%s", msg);
}

EXPORT CUresult cuLinkCreate_v2(unsigned int nopts, CUjit_option *opts, void **values, CUlinkState *state)
{
    ENTER_CTX("cuLinkCreate_v2");
    CUlinkState l = calloc(1, sizeof *l);
    for (unsigned i = 0; i < nopts; i++) {
        if (opts[i] == CU_JIT_ERROR_LOG_BUFFER)
            l->log = values[i];
        else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            l->log_size = (size_t)(uintptr_t)values[i];
    }
    pthread_mutex_lock(&mu);
    live_links++;
    pthread_mutex_unlock(&mu);
    *state = l;
    return CUDA_SUCCESS;
}

static CUresult add_input(CUlinkState l, int type, const void *data, size_t size, const char *name)
{
    if (!l || !data || type < CU_JIT_INPUT_CUBIN || type > CU_JIT_INPUT_LIBRARY)
        return CUDA_ERROR_INVALID_VALUE;
    if (type == CU_JIT_INPUT_PTX && !memmem(data, size, ".version", 8)) {
        link_log(l, "ptxas application ptx input, line 1; fatal   : Missing .version directive at start of file");
        return CUDA_ERROR_INVALID_PTX;
    }
    link_input *grown = realloc(l->inputs, sizeof *grown * (size_t)(l->n + 1));
    link_input *in = &grown[l->n++];
    l->inputs = grown;
    in->type = type;
    snprintf(in->name, sizeof in->name, "%s", name ? name : "");
    in->data = malloc(size + 1);
    memcpy(in->data, data, size);
    in->data[size] = '\0';
    in->size = size;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuLinkAddData_v2(CUlinkState l, CUjitInputType type, void *data, size_t size, const char *name,
                                 unsigned int nopts, CUjit_option *opts, void **values)
{
    ENTER_CTX("cuLinkAddData_v2");
    return add_input(l, type, data, size, name);
}

EXPORT CUresult cuLinkAddFile_v2(CUlinkState l, CUjitInputType type, const char *path, unsigned int nopts,
                                 CUjit_option *opts, void **values)
{
    ENTER_CTX("cuLinkAddFile_v2");
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f)
        return CUDA_ERROR_FILE_NOT_FOUND;
    size_t cap = 1 << 16, n = 0;
    char *data = malloc(cap);
    while ((n += fread(data + n, 1, cap - n, f)) == cap)
        data = realloc(data, cap *= 2);
    fclose(f);
    CUresult r = add_input(l, type, data, n, path);
    free(data);
    return r;
}

/* Whether some PTX input defines function name[0..len). */
static bool defines(CUlinkState l, const char *name, size_t len)
{
    for (int i = 0; i < l->n; i++) {
        if (l->inputs[i].type != CU_JIT_INPUT_PTX || defined_in(l->inputs[i].data, name, len))
            return true; /* a cubin, object or library may: the double cannot look */
    }
    return false;
}

/* Each PTX input's ".extern .func NAME" must be defined by an input. */
static CUresult resolve_externs(CUlinkState l)
{
    for (int i = 0; i < l->n; i++)
        for (const char *p = l->inputs[i].type == CU_JIT_INPUT_PTX ? strstr(l->inputs[i].data, ".extern .func") : NULL;
             p; p = strstr(p + 1, ".extern .func")) {
            const char *name;
            size_t len = func_name(p + strlen(".extern "), &name);
            if (!defines(l, name, len)) {
                char msg[512];
                snprintf(msg, sizeof msg, "error   : Undefined reference to '%.*s' in '%s'", (int)len, name,
                         l->inputs[i].name);
                link_log(l, msg);
                return CUDA_ERROR_INVALID_IMAGE;
            }
        }
    return CUDA_SUCCESS;
}

static void describe_link(CUlinkState l)
{
    static const char *const types[] = {"cubin", "ptx", "fatbin", "object", "library"};
    size_t at = 0;
    pthread_mutex_lock(&mu);
    last_link_text[0] = '\0';
    for (int i = 0; i < l->n && at < sizeof last_link_text; i++)
        at += (size_t)snprintf(last_link_text + at, sizeof last_link_text - at, "%s%s %s", i ? ", " : "",
                               types[l->inputs[i].type], l->inputs[i].name);
    pthread_mutex_unlock(&mu);
}

/* The linked image: the first cubin given, else the PTX inputs one after
 * another, which cuModuleLoadDataEx reads as one module. */
EXPORT CUresult cuLinkComplete(CUlinkState l, void **cubin, size_t *size)
{
    ENTER_CTX("cuLinkComplete");
    if (!l || !l->n)
        return CUDA_ERROR_INVALID_VALUE;
    describe_link(l);
    CUresult r = resolve_externs(l);
    if (r)
        return r;
    size_t total = 0;
    for (int i = 0; i < l->n; i++)
        if (l->inputs[i].type == CU_JIT_INPUT_CUBIN) {
            l->out = malloc(l->inputs[i].size);
            memcpy(l->out, l->inputs[i].data, l->inputs[i].size);
            *cubin = l->out;
            *size = l->inputs[i].size;
            return CUDA_SUCCESS;
        } else if (l->inputs[i].type == CU_JIT_INPUT_PTX) {
            total += l->inputs[i].size + 1;
        }
    total += strlen(LINKED);
    l->out = calloc(1, total + 1);
    memcpy(l->out, LINKED, strlen(LINKED));
    for (int i = 0, at = (int)strlen(LINKED); i < l->n; i++)
        if (l->inputs[i].type == CU_JIT_INPUT_PTX) {
            memcpy(l->out + at, l->inputs[i].data, l->inputs[i].size);
            at += (int)l->inputs[i].size;
            l->out[at++] = '\n';
        }
    *cubin = l->out;
    *size = total;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuLinkDestroy(CUlinkState l)
{
    ENTER_CTX("cuLinkDestroy");
    if (!l)
        return CUDA_ERROR_INVALID_HANDLE;
    for (int i = 0; i < l->n; i++)
        free(l->inputs[i].data);
    free(l->inputs);
    free(l->out);
    free(l);
    pthread_mutex_lock(&mu);
    live_links--;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *ptr, size_t *bytes, CUmodule m, const char *name)
{
    ENTER_CTX("cuModuleGetGlobal_v2");
    for (global *g = m ? m->globals : NULL; g; g = g->next)
        if (strcmp(g->name, name) == 0) {
            *ptr = (CUdeviceptr)(uintptr_t)g->mem;
            *bytes = g->size;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}

EXPORT CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attr, CUfunction f)
{
    ENTER_CTX("cuFuncGetAttribute");
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = f->max_threads; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = 0; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 32; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = f->dyn_limit; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr, int value)
{
    ENTER_CTX("cuFuncSetAttribute");
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 || value > optin_shared())
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&mu);
    f->dyn_limit = value;
    bool known = false;
    for (int i = 0; i < nall_funcs; i++)
        known |= all_funcs[i] == f;
    if (!known && nall_funcs < 256)
        all_funcs[nall_funcs++] = f;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

/* Answers from the PTX's parameter list; a cubin's kernels (parameters
 * unknown to the double) and a switched-off double say not supported. */
EXPORT CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size)
{
    ENTER_CTX("cuFuncGetParamInfo");
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&mu);
    bool on = param_info;
    pthread_mutex_unlock(&mu);
    if (!on || f->nparams < 0)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (index >= (size_t)f->nparams)
        return CUDA_ERROR_INVALID_VALUE;
    size_t off = 0;
    for (size_t i = 0; i <= index; i++) {
        off = (off + f->params[i].align - 1) / f->params[i].align * f->params[i].align;
        if (i < index)
            off += f->params[i].size;
    }
    *offset = off;
    if (size)
        *size = f->params[index].size;
    return CUDA_SUCCESS;
}

/* ---- memory ---- */

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes)
{
    ENTER_CTX("cuMemAlloc_v2");
    if (bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned char *p = malloc(bytes);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memset(p, 0xa5, bytes); /* uninitialised device memory is not zero */
    track(p, bytes, false, false);
    *ptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr)
{
    ENTER_CTX("cuMemFree_v2");
    unsigned char *p = (unsigned char *)(uintptr_t)ptr;
    if (!untrack(p, false))
        return CUDA_ERROR_INVALID_VALUE;
    free(p);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    ENTER_CTX("cuMemHostAlloc");
    if (bytes == 0 || flags > 7)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned char *p = malloc(bytes);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    track(p, bytes, true, false);
    *ptr = p;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemFreeHost(void *ptr)
{
    ENTER_CTX("cuMemFreeHost");
    if (!untrack(ptr, true))
        return CUDA_ERROR_INVALID_VALUE;
    free(ptr);
    return CUDA_SUCCESS;
}

static CUresult htod(CUdeviceptr dst, const void *src, size_t n)
{
    if (!src || !valid(dst, n))
        return CUDA_ERROR_INVALID_VALUE;
    memcpy((void *)(uintptr_t)dst, src, n);
    return CUDA_SUCCESS;
}

static CUresult dtoh(void *dst, CUdeviceptr src, size_t n)
{
    if (!dst || !valid(src, n))
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

static CUresult dtod(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    if (!valid(dst, n) || !valid(src, n))
        return CUDA_ERROR_INVALID_VALUE;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
    ENTER_CTX("cuMemcpyHtoD_v2");
    return htod(dst, src, n);
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    ENTER_CTX("cuMemcpyDtoH_v2");
    return dtoh(dst, src, n);
}

EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    ENTER_CTX("cuMemcpyDtoD_v2");
    return dtod(dst, src, n);
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    ENTER_CTX("cuMemcpyHtoDAsync_v2");
    return htod(dst, src, n);
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    ENTER_CTX("cuMemcpyDtoHAsync_v2");
    return dtoh(dst, src, n);
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    ENTER_CTX("cuMemcpyDtoDAsync_v2");
    return dtod(dst, src, n);
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t n)
{
    ENTER_CTX("cuMemsetD8_v2");
    if (!valid(dst, n))
        return CUDA_ERROR_INVALID_VALUE;
    memset((void *)(uintptr_t)dst, value, n);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, CUstream s)
{
    ENTER_CTX("cuMemsetD8Async");
    if (!valid(dst, n))
        return CUDA_ERROR_INVALID_VALUE;
    memset((void *)(uintptr_t)dst, value, n);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t n)
{
    ENTER_CTX("cuMemsetD32_v2");
    if (dst % 4 || n > SIZE_MAX / 4 || !valid(dst, n * 4))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n; i++)
        memcpy((unsigned char *)(uintptr_t)dst + 4 * i, &value, 4);
    return CUDA_SUCCESS;
}

/* ---- streams and events ---- */

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
    ENTER_CTX("cuStreamCreate");
    if (flags > 1)
        return CUDA_ERROR_INVALID_VALUE;
    *s = calloc(1, sizeof **s);
    (*s)->flags = flags;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream s)
{
    ENTER_CTX("cuStreamDestroy_v2");
    if (!s)
        return CUDA_ERROR_INVALID_HANDLE;
    free(s);
    return CUDA_SUCCESS;
}

/* Streams capturing now: the legacy default stream may not wait for one. */
static int ncapturing;

EXPORT CUresult cuStreamSynchronize(CUstream s)
{
    ENTER_CTX("cuStreamSynchronize");
    if (s && s->capture) {
        s->invalidated = true; /* as the driver does */
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags)
{
    ENTER_CTX("cuStreamWaitEvent");
    if (!e || flags != 0)
        return e ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE;
    if (s)
        s->waited = e;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
    ENTER_CTX("cuEventCreate");
    *e = calloc(1, sizeof **e);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
    ENTER_CTX("cuEventDestroy_v2");
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    free(e);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
    ENTER_CTX("cuEventRecord");
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&mu);
    clock_ms += 0.5;
    e->ms = clock_ms;
    e->recorded = true;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventSynchronize(CUevent e)
{
    ENTER_CTX("cuEventSynchronize");
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end)
{
    ENTER_CTX("cuEventElapsedTime_v2");
    if (!start || !end || !start->recorded || !end->recorded)
        return CUDA_ERROR_INVALID_HANDLE;
    *ms = (float)(end->ms - start->ms);
    return CUDA_SUCCESS;
}

/* ---- launches ---- */

/* The CPU version of fixtures/vadd.cu, reading its arguments from the
 * recorded parameters: out[i] = x[i] + y[i] for each thread's i < n. */
static void run_vadd(const fake_launch *l)
{
    int64_t v[9];
    for (int i = 0; i < 9; i++)
        memcpy(&v[i], l->bytes + l->offset[i], 8);
    int64_t threads = (int64_t)l->grid[0] * l->block[0];
    int64_t n = v[7] < threads ? v[7] : threads;
    if (n <= 0 || !valid((CUdeviceptr)v[0], (size_t)((n - 1) * v[2] + 4)) ||
        !valid((CUdeviceptr)v[3], (size_t)((n - 1) * v[5] + 4)) || !valid((CUdeviceptr)v[6], (size_t)((n - 1) * v[8] + 4)))
        return;
    for (int64_t i = 0; i < n; i++) {
        float a, b, c;
        memcpy(&a, (char *)(uintptr_t)v[0] + i * v[2], 4);
        memcpy(&b, (char *)(uintptr_t)v[3] + i * v[5], 4);
        c = a + b;
        memcpy((char *)(uintptr_t)v[6] + i * v[8], &c, 4);
    }
}

/* The kernels run_vadd computes: vadd (fixtures/vadd.cu, samples/vadd.pyk)
 * and docs/tutorial.md's add_arrays_cuda, the same addition under the
 * name Numba's tutorial gives it; and pykc's copies of them for contiguous
 * arrays, NAME__ and 8 hexadecimal digits. */
static const char *const vadd_names[] = {"vadd", "add_arrays_cuda"};

static bool is_vadd(const char *name)
{
    for (size_t i = 0; i < sizeof vadd_names / sizeof vadd_names[0]; i++) {
        size_t n = strlen(vadd_names[i]);
        if (strncmp(name, vadd_names[i], n) == 0 &&
            (!name[n] || (!strncmp(name + n, "__", 2) && strlen(name + n + 2) == 8 &&
                          strspn(name + n + 2, "0123456789abcdef") == 8)))
            return true;
    }
    return false;
}

/* fake_cuda_raise_next: what the next launch's thread raises, written
 * where pykc's debug=True kernels write it. */
static int raise_code;
static int raise_thread[6];
static long long raise_detail[3];
static int raise_has_detail;

static void write_global(struct CUmod_st *m, const char *name, const void *bytes, size_t n)
{
    for (global *g = m ? m->globals : NULL; g; g = g->next)
        if (strcmp(g->name, name) == 0 && g->size >= n)
            memcpy(g->mem, bytes, n);
}

static void raise_in(struct CUmod_st *m)
{
    pthread_mutex_lock(&mu);
    int code = raise_code, thread[6], has_detail = raise_has_detail;
    long long detail[3];
    memcpy(thread, raise_thread, sizeof thread);
    memcpy(detail, raise_detail, sizeof detail);
    raise_code = 0;
    pthread_mutex_unlock(&mu);
    if (!code)
        return;
    write_global(m, "pykc_exception", &code, sizeof code);
    write_global(m, "pykc_exception_thread", thread, sizeof thread);
    if (has_detail)
        write_global(m, "pykc_exception_detail", detail, sizeof detail);
}

/* Appends a launch to a graph, its parameters copied as laid out in l. */
static CUresult record(struct CUgraph_st *g, CUfunction f, const unsigned dims[6], unsigned shared, int coop,
                       const fake_launch *l)
{
    recorded *r = calloc(1, sizeof *r);
    size_t end = l->nparams ? l->offset[l->nparams - 1] + l->size[l->nparams - 1] : 0;
    r->bytes = malloc(end ? end : 1);
    if (!r->bytes) {
        free(r);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    r->f = f;
    memcpy(r->dims, dims, sizeof r->dims);
    r->shared = shared;
    r->coop = coop;
    memcpy(r->bytes, l->bytes, end);
    memcpy(r->offset, l->offset, sizeof r->offset);
    *g->tail = r;
    g->tail = &r->next;
    return CUDA_SUCCESS;
}

static CUresult launch(CUfunction f, const unsigned dims[6], unsigned shared, CUstream s, void **params, int coop)
{
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    for (int i = 0; i < 6; i++)
        if (dims[i] == 0)
            return CUDA_ERROR_INVALID_VALUE;
    if ((uint64_t)dims[3] * dims[4] * dims[5] > (uint64_t)f->max_threads || (int)shared > f->dyn_limit)
        return CUDA_ERROR_INVALID_VALUE;
    if (f->nparams < 0)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (f->nparams > 0 && !params)
        return CUDA_ERROR_INVALID_VALUE;
    fake_launch l;
    memset(&l, 0, sizeof l);
    snprintf(l.entry, sizeof l.entry, "%s", f->name);
    memcpy(l.grid, dims, sizeof l.grid);
    memcpy(l.block, dims + 3, sizeof l.block);
    l.shared = shared;
    l.stream = s;
    l.cooperative = coop;
    l.nparams = f->nparams;
    size_t off = 0;
    for (int i = 0; i < f->nparams; i++) {
        off = (off + f->params[i].align - 1) / f->params[i].align * f->params[i].align;
        if (off + f->params[i].size > FAKE_PARAM_BYTES)
            return CUDA_ERROR_INVALID_VALUE;
        l.offset[i] = off;
        l.size[i] = f->params[i].size;
        memcpy(l.bytes + off, params[i], f->params[i].size);
        off += f->params[i].size;
    }
    if (s && s->capture)
        return record(s->capture, f, dims, shared, coop, &l);
    pthread_mutex_lock(&mu);
    launches++;
    last = l;
    pthread_mutex_unlock(&mu);
    if (f->nparams == 9 && is_vadd(f->name))
        run_vadd(&l);
    raise_in(f->module);
    return CUDA_SUCCESS;
}

#ifndef FAKE_OMIT_LAUNCH
EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared, CUstream s, void **params, void **extra)
{
    ENTER_CTX("cuLaunchKernel");
    if (extra)
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned dims[6] = {gx, gy, gz, bx, by, bz};
    return launch(f, dims, shared, s, params, 0);
}
#endif

EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                          unsigned by, unsigned bz, unsigned shared, CUstream s, void **params)
{
    ENTER_CTX("cuLaunchCooperativeKernel");
    const unsigned dims[6] = {gx, gy, gz, bx, by, bz};
    return launch(f, dims, shared, s, params, 1);
}

/* ---- graphs: a capture records launches, a graph launch replays them ---- */

static struct CUgraph_st *graph_new(void)
{
    struct CUgraph_st *g = calloc(1, sizeof *g);
    g->tail = &g->head;
    return g;
}

static void graph_free(struct CUgraph_st *g)
{
    while (g && g->head) {
        recorded *r = g->head;
        g->head = r->next;
        free(r->bytes);
        free(r);
    }
    free(g);
}

static long live_graphs;

EXPORT CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode)
{
    ENTER_CTX("cuStreamBeginCapture_v2");
    if (!s) /* the legacy default stream cannot capture */
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    if (s->capture)
        return CUDA_ERROR_INVALID_VALUE;
    s->capture = graph_new();
    s->invalidated = false;
    pthread_mutex_lock(&mu);
    ncapturing++;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamEndCapture(CUstream s, CUgraph *graph)
{
    ENTER_CTX("cuStreamEndCapture");
    if (!s || !s->capture)
        return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    struct CUgraph_st *g = s->capture;
    s->capture = NULL;
    pthread_mutex_lock(&mu);
    ncapturing--;
    pthread_mutex_unlock(&mu);
    *graph = NULL;
    if (s->invalidated) {
        graph_free(g);
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    *graph = g;
    pthread_mutex_lock(&mu);
    live_graphs++;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status)
{
    ENTER_CTX("cuStreamIsCapturing");
    pthread_mutex_lock(&mu);
    int n = ncapturing;
    pthread_mutex_unlock(&mu);
    if (!s && n > 0) /* only blocking streams count in the driver; every one here */
        return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    *status = !s || !s->capture ? CU_STREAM_CAPTURE_STATUS_NONE
              : s->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                               : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    ENTER_CTX("cuGraphInstantiateWithFlags");
    if (!graph || flags)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUgraph_st *copy = graph_new();
    for (recorded *r = graph->head; r; r = r->next) {
        recorded *c = malloc(sizeof *c);
        size_t n = r->f->nparams > 0 ? r->offset[r->f->nparams - 1] + r->f->params[r->f->nparams - 1].size : 1;
        *c = *r;
        c->bytes = malloc(n);
        memcpy(c->bytes, r->bytes, n);
        c->next = NULL;
        *copy->tail = c;
        copy->tail = &c->next;
    }
    *exec = calloc(1, sizeof **exec);
    (*exec)->graph = copy;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphLaunch(CUgraphExec exec, CUstream s)
{
    ENTER_CTX("cuGraphLaunch");
    if (!exec)
        return CUDA_ERROR_INVALID_HANDLE;
    for (recorded *r = exec->graph->head; r; r = r->next) {
        void *params[FAKE_MAX_PARAMS];
        for (int i = 0; i < r->f->nparams; i++)
            params[i] = r->bytes + r->offset[i];
        CUresult res = launch(r->f, r->dims, r->shared, s, params, r->coop);
        if (res)
            return res;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphExecDestroy(CUgraphExec exec)
{
    ENTER_CTX("cuGraphExecDestroy");
    if (!exec)
        return CUDA_ERROR_INVALID_HANDLE;
    graph_free(exec->graph);
    free(exec);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphDestroy(CUgraph graph)
{
    ENTER_CTX("cuGraphDestroy");
    if (!graph)
        return CUDA_ERROR_INVALID_HANDLE;
    graph_free(graph);
    pthread_mutex_lock(&mu);
    live_graphs--;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

/* ---- occupancy: the threads and shared memory of one multiprocessor ---- */

/* Blocks of `block` threads and `shared` bytes resident on one SM: the
 * fake's 1536 threads (48 warps), 32 blocks and optin_shared() bytes per
 * multiprocessor, as cuDeviceGetAttribute reports them. */
static int blocks_per_sm(CUfunction f, int block, size_t shared)
{
    if (block <= 0 || block > f->max_threads || shared > (size_t)optin_shared())
        return 0;
    int warps = (block + 31) / 32, by_threads = 48 / warps;
    int by_shared = shared ? (int)((size_t)optin_shared() / shared) : 32;
    int n = by_threads < by_shared ? by_threads : by_shared;
    return n < 32 ? n : 32;
}

EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int block, size_t shared)
{
    ENTER_CTX("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!blocks || block <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    *blocks = blocks_per_sm(f, block, shared);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, CUfunction f,
                                                 CUoccupancyB2DSize shared_of_block, size_t shared, int limit)
{
    ENTER_CTX("cuOccupancyMaxPotentialBlockSize");
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!min_grid || !block_size)
        return CUDA_ERROR_INVALID_VALUE;
    int top = limit > 0 && limit < f->max_threads ? limit : f->max_threads, best = 0, best_threads = 0;
    for (int b = 32; b <= top; b += 32) {
        size_t sh = shared_of_block ? shared_of_block(b) : shared;
        int threads = blocks_per_sm(f, b, sh) * b;
        if (threads > best_threads) {
            best_threads = threads;
            best = b;
        }
    }
    *block_size = best;
    *min_grid = best ? best_threads / best * 84 : 0; /* the fake's 84 multiprocessors */
    return CUDA_SUCCESS;
}

/* ---- test controls ---- */

EXPORT void fake_cuda_set_cc(int major, int minor)
{
    pthread_mutex_lock(&mu);
    cc = major * 10 + minor;
    pthread_mutex_unlock(&mu);
}

EXPORT void fake_cuda_fail_next(const char *symbol, int code)
{
    pthread_mutex_lock(&mu);
    snprintf(fail_symbol, sizeof fail_symbol, "%s", symbol);
    fail_code = code;
    pthread_mutex_unlock(&mu);
}

EXPORT long fake_cuda_launch_count(void)
{
    pthread_mutex_lock(&mu);
    long n = launches;
    pthread_mutex_unlock(&mu);
    return n;
}

EXPORT void fake_cuda_last_launch(fake_launch *out)
{
    pthread_mutex_lock(&mu);
    *out = last;
    pthread_mutex_unlock(&mu);
}

EXPORT long fake_cuda_live_allocations(void)
{
    long n = 0;
    pthread_mutex_lock(&mu);
    for (alloc *a = allocs; a; a = a->next)
        n += !a->module;
    pthread_mutex_unlock(&mu);
    return n;
}

EXPORT int fake_cuda_dyn_shared_limit(const char *entry)
{
    int limit = -1;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nall_funcs; i++)
        if (strcmp(all_funcs[i]->name, entry) == 0)
            limit = all_funcs[i]->dyn_limit;
    pthread_mutex_unlock(&mu);
    return limit;
}

EXPORT size_t fake_cuda_last_image(const void **data)
{
    pthread_mutex_lock(&mu);
    *data = last_image_data;
    size_t n = last_image_size;
    pthread_mutex_unlock(&mu);
    return n;
}

EXPORT void fake_cuda_raise_next(int code, const int thread[6], const long long detail[3])
{
    pthread_mutex_lock(&mu);
    raise_code = code;
    memcpy(raise_thread, thread, sizeof raise_thread);
    raise_has_detail = detail != NULL;
    if (detail)
        memcpy(raise_detail, detail, sizeof raise_detail);
    pthread_mutex_unlock(&mu);
}

EXPORT void fake_cuda_set_param_info(int on)
{
    pthread_mutex_lock(&mu);
    param_info = on != 0;
    pthread_mutex_unlock(&mu);
}

EXPORT int fake_cuda_live_links(void)
{
    pthread_mutex_lock(&mu);
    int n = live_links;
    pthread_mutex_unlock(&mu);
    return n;
}

EXPORT void fake_cuda_last_link(char *out, size_t size)
{
    pthread_mutex_lock(&mu);
    snprintf(out, size, "%s", last_link_text);
    pthread_mutex_unlock(&mu);
}

EXPORT int fake_cuda_retains(int dev)
{
    pthread_mutex_lock(&mu);
    int n = dev >= 0 && dev < MAX_DEVICES ? primary[dev].retains : -1;
    pthread_mutex_unlock(&mu);
    return n;
}

EXPORT long fake_cuda_live_graphs(void)
{
    pthread_mutex_lock(&mu);
    long n = live_graphs;
    pthread_mutex_unlock(&mu);
    return n;
}

EXPORT void *fake_cuda_waited_event(void *stream)
{
    return stream ? ((CUstream)stream)->waited : NULL;
}
