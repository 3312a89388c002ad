/*
 * offline.c - a manifest without a driver: opened, its kernels found and
 * launches checked against them with no context and no module, so host
 * code can be validated where no GPU (or no libcuda.so.1) exists.
 *
 * The checks are launch.c's (pk_check_args, pk_check_shape); only the
 * limits differ: with no device to ask, a launch shape is held to what
 * every device of compute capability 3.0 and above allows, so a shape
 * refused here is refused by a launch on any GPU (one accepted here may
 * still exceed a smaller device's shared memory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

struct pykrt_kernel_spec {
    const pk_kernel *desc;
};

struct pykrt_manifest {
    char *name; /* the path, for messages */
    pk_manifest *mf;
    pykrt_kernel_spec *kernels; /* mf->nkernels of them */
};

/* Every device's limits: the CUDA programming guide's per-compute-
 * capability table, its smallest block and grid bounds and its largest
 * opt-in shared memory (227 KiB). */
static const pykrt_device_info every_device = {
    .max_threads_per_block = 1024,
    .max_block_dim = {1024, 1024, 64},
    .max_grid_dim = {2147483647, 65535, 65535},
    .max_shared_per_block_optin = 227 * 1024,
};

pykrt_status pykrt_manifest_open(const char *path, pykrt_manifest **out)
{
    if (!path || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_manifest_open: %s is NULL", path ? "out" : "path");
    *out = NULL;
    char what[600], *text = NULL;
    size_t len = 0;
    snprintf(what, sizeof what, "pykrt_manifest_open(%s)", path);
    pykrt_status st = pk_read_file(path, PK_MANIFEST_MAX_BYTES, PYKRT_ERROR_MANIFEST, what, &text, &len);
    pykrt_manifest *m = calloc(1, sizeof *m);
    if (st == PYKRT_SUCCESS && (!m || !(m->name = strdup(path))))
        st = pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    if (st == PYKRT_SUCCESS)
        st = pk_manifest_parse(text, len, path, &m->mf);
    free(text);
    if (st == PYKRT_SUCCESS && m->mf->nkernels && !(m->kernels = calloc(m->mf->nkernels, sizeof *m->kernels)))
        st = pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    if (st != PYKRT_SUCCESS) {
        pykrt_manifest_close(m);
        return st;
    }
    for (size_t i = 0; i < m->mf->nkernels; i++)
        m->kernels[i].desc = &m->mf->kernels[i];
    *out = m;
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_manifest_close(pykrt_manifest *manifest)
{
    if (!manifest)
        return PYKRT_SUCCESS;
    if (manifest->mf)
        pk_manifest_free(manifest->mf);
    free(manifest->kernels);
    free(manifest->name);
    free(manifest);
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_manifest_kernel(const pykrt_manifest *manifest, const char *name, const pykrt_kernel_spec **out)
{
    if (!manifest || !name || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_manifest_kernel: %s is NULL",
                       !manifest ? "manifest" : !name ? "name" : "out");
    const pk_manifest *mf = manifest->mf;
    for (size_t i = 0; i < mf->nkernels; i++)
        if (strcmp(mf->kernels[i].name, name) == 0) {
            *out = &manifest->kernels[i];
            return PYKRT_SUCCESS;
        }
    *out = NULL;
    pk_fail(PYKRT_ERROR_NOT_FOUND, "pykrt_manifest_kernel(%s): no kernel '%s'; the manifest has", manifest->name,
            name);
    for (size_t i = 0; i < mf->nkernels; i++)
        pk_append("%s %s", i ? "," : "", mf->kernels[i].name);
    if (mf->nkernels == 0)
        pk_append(" none");
    return PYKRT_ERROR_NOT_FOUND;
}

pykrt_status pykrt_manifest_kernel_at(const pykrt_manifest *manifest, size_t index, const pykrt_kernel_spec **out)
{
    if (!manifest || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_manifest_kernel_at: %s is NULL",
                       manifest ? "out" : "manifest");
    if (index >= manifest->mf->nkernels)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_manifest_kernel_at(%s): index %zu, but there are %zu kernels",
                       manifest->name, index, manifest->mf->nkernels);
    *out = &manifest->kernels[index];
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_check_args(const pykrt_kernel_spec *kernel, const pykrt_launch_config *config,
                              const pykrt_arg *args, size_t nargs)
{
    static const char what[] = "pykrt_check_args";
    if (!kernel)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: kernel is NULL", what);
    const pk_kernel *d = kernel->desc;
    if (!args && nargs)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s(%s): args is NULL, but nargs is %zu", what, d->name, nargs);
    pykrt_status st = pk_check_args(d, args, nargs, what);
    if (st != PYKRT_SUCCESS || !config)
        return st;
    int max_threads = every_device.max_threads_per_block;
    pk_limits lim = {&every_device, "every device's", d->max_threads > 0 && d->max_threads < max_threads
                                                         ? (int)d->max_threads : max_threads, d->shared_static};
    pk_shape s;
    pk_normalize(config, &s);
    return pk_check_shape(d, &lim, config, &s, what);
}
