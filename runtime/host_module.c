/*
 * host_module.c - the host device's modules: the shared objects that
 * `pykc --target host` writes, loaded from memory.
 *
 * cuModuleLoadDataEx gets the image's bytes (and, through pykrt's own
 * option PK_JIT_HOST_IMAGE_BYTES, their count), writes them to an
 * anonymous memory file (memfd_create) and dlopens it through
 * /proc/self/fd: no file is left on disk, and each load is a distinct
 * object with its own globals, as each CUDA module is (dlopen knows an
 * object by its name and its file, and both differ while it is loaded). RTLD_LOCAL keeps
 * one module's symbols from resolving another's. The module must say it
 * speaks this runtime's interface (pykrt_host_abi, host_abi.h) before
 * anything of it is used; what goes wrong is written to the caller's JIT
 * error log, which pykrt appends to its message as it does ptxas's.
 *
 * A kernel is its entry's symbol; a global (pykc_exception, a constant
 * array) its symbol's address, with the size the ELF symbol table gives.
 */
#define _GNU_SOURCE /* memfd_create, dladdr1 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host.h"

/* The caller's error log (CU_JIT_ERROR_LOG_BUFFER), if it gave one. */
typedef struct jit_log {
    char *buf;
    size_t size;
} jit_log;

static CUresult refuse(const jit_log *log, CUresult res, const char *fmt, ...) PK_PRINTF(3, 4);

static CUresult refuse(const jit_log *log, CUresult res, const char *fmt, ...)
{
    if (log->buf && log->size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(log->buf, log->size, fmt, ap);
        va_end(ap);
    }
    return res;
}

/* The options pykrt passes: the error log and the image's size. */
static bool read_options(unsigned nopts, const CUjit_option *opts, void **values, jit_log *log, size_t *bytes)
{
    bool sized = false;
    for (unsigned i = 0; i < nopts; i++) {
        uintptr_t v = (uintptr_t)values[i];
        if (opts[i] == CU_JIT_ERROR_LOG_BUFFER)
            log->buf = values[i];
        else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            log->size = v;
        else if (opts[i] == PK_JIT_HOST_IMAGE_BYTES)
            *bytes = v, sized = true;
    }
    return sized;
}

/* The image into an anonymous memory file; -1 with the log written on
 * failure. */
static int write_image(const void *image, size_t bytes, const jit_log *log)
{
    int fd = memfd_create("pykrt-host-module", MFD_CLOEXEC);
    if (fd < 0) {
        refuse(log, 0, "memfd_create: %s", strerror(errno));
        return -1;
    }
    for (size_t done = 0; done < bytes;) {
        ssize_t n = write(fd, (const char *)image + done, bytes - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            refuse(log, 0, "writing the image to memory: %s", n < 0 ? strerror(errno) : "no progress");
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    return fd;
}

static void fd_path(int fd, char *path, size_t size)
{
    snprintf(path, size, "/proc/self/fd/%d", fd);
}

/* dlopens the image as m->lib, through its memory file m->fd. dlopen
 * takes a name it has loaded for the object loaded under it, so the file
 * stays open while the module is loaded: no other load gets its number. */
static bool open_image(pk_host_module *m, const void *image, size_t bytes, const jit_log *log)
{
    if ((m->fd = write_image(image, bytes, log)) < 0)
        return false;
    char path[64];
    fd_path(m->fd, path, sizeof path);
    if ((m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        return true;
    const char *why = dlerror();
    refuse(log, 0, "dlopen: %s", why ? why : "failed");
    close(m->fd);
    return false;
}

/* Unloads the shared object. One that stays loaded (marked not to be
 * unloaded) keeps its file open, and so its name from later loads. */
static void close_image(pk_host_module *m)
{
    char path[64];
    fd_path(m->fd, path, sizeof path);
    dlclose(m->lib);
    void *still = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (still)
        dlclose(still);
    else
        close(m->fd);
}

/* dlsym of a function, stored without an object-to-function cast. */
static bool find_fn(void *lib, const char *name, void *fn_ptr)
{
    void *sym = dlsym(lib, name);
    memcpy(fn_ptr, &sym, sizeof sym);
    return sym != NULL;
}

/* The interface version and functions of host_abi.h. */
static CUresult bind_abi(pk_host_module *m, const jit_log *log)
{
    const uint32_t *abi = dlsym(m->lib, "pykrt_host_abi");
    if (!abi)
        return refuse(log, CUDA_ERROR_INVALID_IMAGE,
                      "the shared object has no pykrt_host_abi: it is not a module of pykc --target host");
    if (*abi != PYKRT_HOST_ABI_VERSION)
        return refuse(log, CUDA_ERROR_INVALID_IMAGE,
                      "the module speaks host interface version %u, this libpykrt version %u: compile it with the "
                      "pykc that goes with this libpykrt", *abi, PYKRT_HOST_ABI_VERSION);
    static const char *const names[] = {"pykrt_host_enter", "pykrt_host_resume", "pykrt_host_destroy"};
    void *slots[] = {&m->enter, &m->resume, &m->destroy};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!find_fn(m->lib, names[i], slots[i]))
            return refuse(log, CUDA_ERROR_INVALID_IMAGE, "the module lacks %s", names[i]);
    return CUDA_SUCCESS;
}

/* Every ELF file begins so; the rest dlopen checks. */
static bool is_elf(const void *image, size_t bytes)
{
    return bytes >= 4 && memcmp(image, "\177ELF", 4) == 0;
}

CUresult pkh_cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int nopts, CUjit_option *opts,
                                void **values)
{
    jit_log log = {NULL, 0};
    size_t bytes = 0;
    if (!read_options(nopts, opts, values, &log, &bytes))
        return refuse(&log, CUDA_ERROR_INVALID_VALUE, "the image's size was not given");
    if (!is_elf(image, bytes))
        return refuse(&log, CUDA_ERROR_INVALID_IMAGE,
                      "not an ELF shared object (pykc --target host writes one; PTX and cubins run on GPUs)");
    pk_host_module *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (!open_image(m, image, bytes, &log)) {
        free(m);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    CUresult res = bind_abi(m, &log);
    if (res != CUDA_SUCCESS) {
        close_image(m);
        free(m);
        return res;
    }
    pthread_mutex_init(&m->lock, NULL);
    *module = (CUmodule)(void *)m;
    return CUDA_SUCCESS;
}

CUresult pkh_cuModuleUnload(CUmodule module)
{
    pk_host_module *m = (pk_host_module *)(void *)module;
    for (pk_host_func *f = m->funcs, *next; f; f = next) {
        next = f->next;
        free(f);
    }
    pthread_mutex_destroy(&m->lock);
    close_image(m);
    free(m);
    return CUDA_SUCCESS;
}

CUresult pkh_cuModuleGetFunction(CUfunction *func, CUmodule module, const char *name)
{
    pk_host_module *m = (pk_host_module *)(void *)module;
    pk_host_func *f = calloc(1, sizeof *f);
    if (!f)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (!find_fn(m->lib, name, &f->entry)) {
        free(f);
        return CUDA_ERROR_NOT_FOUND;
    }
    size_t len = strlen(name);
    char *block = malloc(len + 7);
    if (!block) {
        free(f);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(block, name, len);
    memcpy(block + len, ".block", 7);
    find_fn(m->lib, block, &f->block); /* optional: NULL where the kernel waits */
    free(block);
    f->module = m;
    atomic_init(&f->dyn_limit, PK_HOST_SHARED_DEFAULT);
    pthread_mutex_lock(&m->lock);
    f->next = m->funcs;
    m->funcs = f;
    pthread_mutex_unlock(&m->lock);
    *func = (CUfunction)(void *)f;
    return CUDA_SUCCESS;
}

/* The size of the symbol at `addr`, from the module's dynamic symbol
 * table; 0 if the table has no symbol that starts there. */
static size_t symbol_size(const void *addr)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || info.dli_saddr != addr)
        return 0;
    return (size_t)sym->st_size;
}

CUresult pkh_cuModuleGetGlobal(CUdeviceptr *ptr, size_t *bytes, CUmodule module, const char *name)
{
    pk_host_module *m = (pk_host_module *)(void *)module;
    void *addr = dlsym(m->lib, name);
    if (!addr)
        return CUDA_ERROR_NOT_FOUND;
    if (ptr)
        *ptr = (CUdeviceptr)(uintptr_t)addr;
    if (bytes)
        *bytes = symbol_size(addr);
    return CUDA_SUCCESS;
}

/* Static shared memory and registers are the module's business (its
 * thread-local storage and the CPU's): the runtime knows neither, 0. */
CUresult pkh_cuFuncGetAttribute(int *value, CUfunction_attribute attrib, CUfunction func)
{
    const pk_host_func *f = (const pk_host_func *)(void *)func;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *value = PK_HOST_MAX_THREADS;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *value = 0;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = (int)atomic_load(&f->dyn_limit);
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* The carveout means nothing on a CPU, and is taken as CUDA takes it. */
CUresult pkh_cuFuncSetAttribute(CUfunction func, CUfunction_attribute attrib, int value)
{
    pk_host_func *f = (pk_host_func *)(void *)func;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (value < 0 || (unsigned)value > PK_HOST_SHARED_OPTIN)
            return CUDA_ERROR_INVALID_VALUE;
        atomic_store(&f->dyn_limit, (unsigned)value);
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        return value >= -1 && value <= 100 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}
