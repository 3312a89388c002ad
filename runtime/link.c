/*
 * link.c - a module whose code calls code of other files: linked at load
 * through the driver's linker.
 *
 * pykc writes PTX, so what @cuda.jit(link=[...]) and cuda.declare_device
 * name, and CUDA's device runtime that kernels launching kernels call, are
 * linked when the module is loaded: the manifest lists the files (`link`,
 * beside it, each with its digest) and says whether the device runtime is
 * needed (`device_runtime`). Such a module is not given to
 * cuModuleLoadDataEx as it is: cuLinkCreate, cuLinkAddData for the
 * target's code and each file, cuLinkAddFile for libcudadevrt.a (found
 * where the CUDA toolkit is, at load time), cuLinkComplete, and the linked
 * cubin loaded; the linker's error log goes into the message on failure.
 */
#define _GNU_SOURCE /* secure_getenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime.h"

#define PK_LINK_LOG_BYTES 16384

static const CUjitInputType input_type[] = {
    [PK_LINK_PTX] = CU_JIT_INPUT_PTX,         [PK_LINK_CUBIN] = CU_JIT_INPUT_CUBIN,
    [PK_LINK_FATBIN] = CU_JIT_INPUT_FATBINARY, [PK_LINK_OBJECT] = CU_JIT_INPUT_OBJECT,
    [PK_LINK_LIBRARY] = CU_JIT_INPUT_LIBRARY,
};

/* One link in progress: the driver's state, its error log, and what the
 * message names. */
typedef struct linker {
    pykrt_module *m;
    CUlinkState state;
    char *log;
    char what[600];
    char devrt[4096]; /* the libcudadevrt.a linked, or "" */
} linker;

static pykrt_status link_fail(linker *l, CUresult res, const char *call, const char *input)
{
    pykrt_status st = pk_cuda_fail(res, call, "%s: linking %s (%s) with %s", l->what, l->m->target->file,
                                   l->m->target->arch, input);
    if (l->log && l->log[0]) {
        l->log[PK_LINK_LOG_BYTES - 1] = '\0';
        pk_append("\n%s", l->log);
        /* pykc's launches call CUDA 12's device runtime */
        if (l->devrt[0] && strstr(l->log, "__cudaCDP2"))
            pk_append("\n(launches from kernels need the device runtime of CUDA 12 or newer; %s is older)", l->devrt);
    }
    return st == PYKRT_ERROR_OUT_OF_MEMORY ? st : PYKRT_ERROR_MODULE_LOAD;
}

/* ---- where the files are ---- */

static const pykrt_image *image_named(const pk_link_source *src, const char *file)
{
    for (size_t i = 0; i < src->nimages; i++)
        if (src->images[i].file && strcmp(src->images[i].file, file) == 0)
            return &src->images[i];
    return NULL;
}

/* The bytes of link file `l`: read beside the manifest (*owned to free),
 * or one of the images given; checked against the manifest's digest. */
static pykrt_status link_bytes(linker *lk, const pk_link *l, const pk_link_source *src, const char **data,
                               size_t *size, char **owned)
{
    *owned = NULL;
    if (!src->manifest_path) {
        const pykrt_image *img = image_named(src, l->file);
        if (!img || !img->data)
            return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: the module links %s, which is not among the images given",
                           lk->what, l->file);
        *data = img->data;
        *size = img->size;
    } else {
        char *path = NULL;
        pykrt_status st = pk_image_path(src->manifest_path, l->file, src->any_path, lk->what, &path);
        if (st == PYKRT_SUCCESS)
            st = pk_read_file(path, PK_IMAGE_MAX_BYTES, PYKRT_ERROR_IO, lk->what, owned, size);
        free(path);
        if (st != PYKRT_SUCCESS)
            return st;
        *data = *owned;
    }
    if (pk_fnv1a64(*data, *size) != l->digest) {
        free(*owned);
        *owned = NULL;
        return pk_fail(PYKRT_ERROR_STALE, "%s does not match %s (which it links): recompile", l->file, lk->m->name);
    }
    return PYKRT_SUCCESS;
}

static pykrt_status add_link_file(linker *lk, const pk_link *l, const pk_link_source *src)
{
    const char *data = NULL;
    size_t size = 0;
    char *owned = NULL;
    pykrt_status st = link_bytes(lk, l, src, &data, &size, &owned);
    if (st != PYKRT_SUCCESS)
        return st;
    /* PTX is text to the linker, ended by a NUL, which pk_read_file puts
     * after the bytes; an image's is copied with one. */
    char *copy = NULL;
    if (l->kind == PK_LINK_PTX && !owned) {
        if (!(copy = malloc(size + 1)))
            return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", lk->what);
        memcpy(copy, data, size);
        copy[size] = '\0';
        data = copy;
    }
    CUresult res = pk_drv.cuLinkAddData(lk->state, input_type[l->kind], (void *)data, size, l->file, 0, NULL, NULL);
    free(copy);
    free(owned);
    return res ? link_fail(lk, res, "cuLinkAddData", l->file) : PYKRT_SUCCESS;
}

/* ---- CUDA's device runtime ---- */

static bool is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* libcudadevrt.a: $PYKRT_CUDADEVRT, else in $CUDA_HOME/lib64, $CUDA_PATH/lib64,
 * /usr/local/cuda/lib64 or the distribution's library directory. */
static bool find_cudadevrt(char *path, size_t size)
{
    const char *named = secure_getenv("PYKRT_CUDADEVRT");
    if (named && *named) {
        snprintf(path, size, "%s", named);
        return is_regular(path);
    }
    const char *homes[] = {secure_getenv("CUDA_HOME"), secure_getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
        if (!homes[i] || !*homes[i])
            continue;
        snprintf(path, size, "%s/lib64/libcudadevrt.a", homes[i]);
        if (is_regular(path))
            return true;
    }
    snprintf(path, size, "/usr/lib/x86_64-linux-gnu/libcudadevrt.a");
    return is_regular(path);
}

static pykrt_status add_device_runtime(linker *lk)
{
    char *path = lk->devrt;
    if (!find_cudadevrt(path, sizeof lk->devrt)) {
        path[0] = '\0';
        return pk_fail(PYKRT_ERROR_MODULE_LOAD,
                       "%s: its kernels launch kernels, which needs CUDA's device runtime, libcudadevrt.a, and "
                       "it is in none of $PYKRT_CUDADEVRT, $CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64 "
                       "and /usr/lib/x86_64-linux-gnu: install the CUDA toolkit or name the file in PYKRT_CUDADEVRT",
                       lk->what);
    }
    CUresult res = pk_drv.cuLinkAddFile(lk->state, CU_JIT_INPUT_LIBRARY, path, 0, NULL, NULL);
    if (res == CUDA_SUCCESS)
        return PYKRT_SUCCESS;
    pykrt_status st = link_fail(lk, res, "cuLinkAddFile", path);
    lk->devrt[0] = '\0';
    return st;
}

/* ---- the link ---- */

static pykrt_status link_all(linker *lk, const char *image, size_t size, const pk_link_source *src)
{
    const pk_target *t = lk->m->target;
    CUresult res = pk_drv.cuLinkAddData(lk->state, t->cubin ? CU_JIT_INPUT_CUBIN : CU_JIT_INPUT_PTX, (void *)image, size,
                                        t->file, 0, NULL, NULL);
    if (res != CUDA_SUCCESS)
        return link_fail(lk, res, "cuLinkAddData", t->file);
    pykrt_status st = PYKRT_SUCCESS;
    for (size_t i = 0; i < lk->m->mf->nlinks && st == PYKRT_SUCCESS; i++)
        st = add_link_file(lk, &lk->m->mf->links[i], src);
    if (st == PYKRT_SUCCESS && lk->m->mf->device_runtime)
        st = add_device_runtime(lk);
    if (st != PYKRT_SUCCESS)
        return st;
    void *cubin = NULL;
    size_t cubin_size = 0;
    if ((res = pk_drv.cuLinkComplete(lk->state, &cubin, &cubin_size)) != CUDA_SUCCESS)
        return link_fail(lk, res, "cuLinkComplete", "what its manifest links");
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[2] = {lk->log, (void *)(uintptr_t)PK_LINK_LOG_BYTES};
    if ((res = pk_drv.cuModuleLoadDataEx(&lk->m->cu, cubin, lk->log ? 2 : 0, opts, values)) != CUDA_SUCCESS) {
        lk->m->cu = NULL;
        return link_fail(lk, res, "cuModuleLoadDataEx", "what its manifest links");
    }
    return PYKRT_SUCCESS;
}

bool pk_needs_link(const pk_manifest *mf)
{
    return mf->nlinks > 0 || mf->device_runtime;
}

pykrt_status pk_link_module(pykrt_module *m, const char *image, size_t size, const pk_link_source *src)
{
    linker lk = {m, NULL, NULL, "", ""};
    snprintf(lk.what, sizeof lk.what, "pykrt_module_load(%s)", m->name);
    if (!pk_drv.cuLinkCreate || !pk_drv.cuLinkAddData || !pk_drv.cuLinkAddFile || !pk_drv.cuLinkComplete ||
        !pk_drv.cuLinkDestroy)
        return pk_fail(PYKRT_ERROR_NO_DRIVER, "%s: the module links other code, and the driver lacks the linker "
                       "(cuLinkCreate_v2 and the rest)", lk.what);
    lk.log = calloc(PK_LINK_LOG_BYTES, 1);
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[2] = {lk.log, (void *)(uintptr_t)PK_LINK_LOG_BYTES};
    CUresult res = pk_drv.cuLinkCreate(lk.log ? 2 : 0, opts, values, &lk.state);
    pykrt_status st = res ? link_fail(&lk, res, "cuLinkCreate", "what its manifest links")
                          : link_all(&lk, image, size, src);
    if (lk.state)
        pk_drv.cuLinkDestroy(lk.state);
    free(lk.log);
    return st;
}
