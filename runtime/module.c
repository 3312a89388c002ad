/*
 * module.c - loads modules from a manifest and its PTX or cubin; kernels and
 * constant memory.
 *
 * A load reads the manifest (manifest.c), picks the target that suits the
 * context's device, checks the image's digest against the manifest (a stale
 * PTX is refused, not launched with the wrong ABI), hands it to the driver
 * with an error-log buffer so a JIT failure reports ptxas's words, and
 * resolves every kernel at once, checking its ptx_params against the
 * entry's own parameters (ptx.c). Resolving early lets the launch path work
 * from a per-kernel plan built here: the driver's limits for the kernel,
 * and one slot per PTX parameter saying where in the caller's arguments its
 * bytes lie. After the load, a module is read-only except for each kernel's
 * dynamic shared memory limit (atomic, raised under the module's lock).
 * Files are read by file.c; the module and its kernels are handle.c's
 * objects, counted by their context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#define PK_JIT_LOG_BYTES 16384

static const char embedded_name[] = "(embedded manifest)";

/* ---- choosing a target ---- */

/* PTX runs on any device of its arch or newer (the driver JITs it); a cubin
 * only within its major version; sm_XXa only on that exact arch and sm_XXf
 * within its family (major version). */
static bool runs_on(const pk_target *t, const pykrt_device_info *dev)
{
    int cc = dev->cc_major * 10 + dev->cc_minor;
    if (t->variant == 'a')
        return t->sm == cc;
    if (t->cubin || t->variant == 'f')
        return t->sm / 10 == dev->cc_major && t->sm % 10 <= dev->cc_minor;
    return t->sm <= cc;
}

static const pykrt_image *find_image(const pk_target *t, const pykrt_image *images, size_t nimages)
{
    for (size_t i = 0; i < nimages; i++)
        if (images[i].file && strcmp(images[i].file, t->file) == 0)
            return &images[i];
    return NULL;
}

/* How well target t suits the device: -1 if it does not run there, else
 * more for a better one. A GPU takes the highest arch, and a cubin before
 * PTX of the same arch (no JIT); the host device the CPU's highest level
 * among its host targets. Neither runs the other's. */
static int suits(const pk_target *t, const pykrt_device_info *dev)
{
    if (t->host != dev->host)
        return -1;
    if (t->host)
        return pk_host_arch_rank(t->arch);
    return runs_on(t, dev) ? t->sm * 2 + t->cubin : -1;
}

/* The target that suits the device best, the first of equals. With
 * `images`, only targets given an image count. */
static const pk_target *choose(const pk_manifest *mf, const pykrt_device_info *dev, const pykrt_image *images,
                               size_t nimages)
{
    const pk_target *best = NULL;
    int best_score = -1;
    for (size_t i = 0; i < mf->ntargets; i++) {
        const pk_target *t = &mf->targets[i];
        int score = suits(t, dev);
        if (score > best_score && (!images || find_image(t, images, nimages))) {
            best = t;
            best_score = score;
        }
    }
    return best;
}

static const char *target_kind(const pk_target *t)
{
    return t->host ? "host" : t->cubin ? "cubin" : "ptx";
}

static pykrt_status no_target(const pk_manifest *mf, const pykrt_device_info *dev, const char *name, bool images)
{
    const char *among = images ? " among the images given" : "";
    if (dev->host)
        pk_fail(PYKRT_ERROR_NO_TARGET, "pykrt_module_load(%s): no target%s runs on the %s; the manifest has", name,
                among, dev->name);
    else
        pk_fail(PYKRT_ERROR_NO_TARGET, "pykrt_module_load(%s): no target%s runs on %s (sm_%d%d); the manifest has",
                name, among, dev->name, dev->cc_major, dev->cc_minor);
    bool host_targets = false;
    for (size_t i = 0; i < mf->ntargets; i++) {
        pk_append("%s %s (%s)", i ? "," : "", mf->targets[i].arch, target_kind(&mf->targets[i]));
        host_targets |= mf->targets[i].host;
    }
    if (dev->host && !host_targets)
        pk_append(": compile it with pykc --target host to run on the CPU");
    return PYKRT_ERROR_NO_TARGET;
}

/* ---- the driver's side ---- */

/* Loads the image with an error log where there is room for one. A host
 * target's size goes first, as pykrt's own option (opts[0]), which only
 * the host device reads: a GPU's driver is never given it. */
static pykrt_status jit(pykrt_module *m, const void *image, size_t size)
{
    char *log = calloc(PK_JIT_LOG_BYTES, 1);
    CUjit_option opts[3] = {PK_JIT_HOST_IMAGE_BYTES, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[3] = {(void *)(uintptr_t)size, log, (void *)(uintptr_t)PK_JIT_LOG_BYTES};
    unsigned skip = m->target->host ? 0 : 1, nopts = (log ? 3 : 1) - skip;
    CUresult res = pk_drv.cuModuleLoadDataEx(&m->cu, image, nopts, opts + skip, values + skip);
    if (res == CUDA_SUCCESS) {
        free(log);
        return PYKRT_SUCCESS;
    }
    pykrt_status st = pk_cuda_fail(res, "cuModuleLoadDataEx", "pykrt_module_load(%s): %s (%s)", m->name,
                                   m->target->file, m->target->arch);
    if (log && log[0]) {
        log[PK_JIT_LOG_BYTES - 1] = '\0';
        pk_append("\n%s", log);
    }
    free(log);
    m->cu = NULL;
    return st == PYKRT_ERROR_OUT_OF_MEMORY ? st : PYKRT_ERROR_MODULE_LOAD;
}

static uint32_t slot_offset(const pk_kernel *d, const pk_ptx_param *x)
{
    const pk_param *p = &d->params[x->param];
    if (p->kind == PYKRT_KIND_TUPLE)
        p = &p->members[x->member];
    switch (x->part) {
    case PK_PART_DATA:
        return (uint32_t)offsetof(pykrt_array, data);
    case PK_PART_SHAPE:
        return (uint32_t)(offsetof(pykrt_array, shape) + x->dim * sizeof(int64_t));
    case PK_PART_STRIDES:
        return (uint32_t)(offsetof(pykrt_array, strides) + x->dim * sizeof(int64_t));
    case PK_PART_IMAG:
        return (uint32_t)(offsetof(pykrt_arg, value) + pykrt_dtype_size(p->dtype) / 2);
    case PK_PART_VALUE:
    case PK_PART_REAL:
        break;
    }
    return (uint32_t)offsetof(pykrt_arg, value);
}

static pykrt_status kernel_attr(pykrt_kernel *k, CUfunction_attribute attr, int *value)
{
    CUresult res = pk_drv.cuFuncGetAttribute(value, attr, k->fn);
    return res ? pk_cuda_fail(res, "cuFuncGetAttribute", "pykrt_module_load(%s): kernel %s", k->module->name,
                              k->desc->name)
               : PYKRT_SUCCESS;
}

/* Resolves the kernel, checks its parameters against `image`'s entry and
 * builds its launch plan. */
static pykrt_status setup_kernel(pykrt_module *m, pykrt_kernel *k, const pk_kernel *d, const char *image,
                                 size_t size)
{
    k->module = m;
    k->desc = d;
    CUresult res = pk_drv.cuModuleGetFunction(&k->fn, m->cu, d->entry);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuModuleGetFunction", "pykrt_module_load(%s): kernel %s, entry %s", m->name,
                            d->name, d->entry);
    int max_threads = 0, shared = 0;
    pykrt_status st;
    if ((st = kernel_attr(k, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &max_threads)) != PYKRT_SUCCESS ||
        (st = kernel_attr(k, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &shared)) != PYKRT_SUCCESS ||
        (st = kernel_attr(k, CU_FUNC_ATTRIBUTE_NUM_REGS, &k->registers)) != PYKRT_SUCCESS ||
        (st = pk_check_entry(k, image, size)) != PYKRT_SUCCESS)
        return st;
    if (d->carveout >= 0 &&
        (res = pk_drv.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, (int)d->carveout)))
        return pk_cuda_fail(res, "cuFuncSetAttribute", "pykrt_module_load(%s): kernel %s's shared_memory_carveout %d",
                            m->name, d->name, (int)d->carveout);
    k->max_threads = d->max_threads > 0 && d->max_threads < max_threads ? (int)d->max_threads : max_threads;
    k->shared_static = shared > 0 ? (uint32_t)shared : 0;
    size_t dflt = m->ctx->info.max_shared_per_block;
    atomic_init(&k->dyn_limit, dflt > k->shared_static ? (uint32_t)(dflt - k->shared_static) : 0);

    if (d->nptx && !(k->slots = malloc(d->nptx * sizeof *k->slots)))
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "pykrt_module_load(%s): out of host memory", m->name);
    for (size_t i = 0; i < d->nptx; i++) {
        k->slots[i].param = d->ptx[i].param;
        k->slots[i].member = d->ptx[i].member;
        k->slots[i].array = d->params[d->ptx[i].param].kind == PYKRT_KIND_ARRAY;
        k->slots[i].tuple = d->params[d->ptx[i].param].kind == PYKRT_KIND_TUPLE;
        k->slots[i].offset = slot_offset(d, &d->ptx[i]);
    }
    return PYKRT_SUCCESS;
}

/* Each kernel's copy for contiguous arrays, as the manifest pairs them. */
static void pair_contiguous_copies(pykrt_module *m)
{
    for (size_t i = 0; i < m->mf->nkernels; i++)
        if (m->mf->kernels[i].copy)
            m->kernels[i]->contiguous = m->kernels[m->mf->kernels[i].copy - m->mf->kernels];
}

static pykrt_status setup_kernels(pykrt_module *m, const char *image, size_t size)
{
    size_t n = m->mf->nkernels;
    if (n && !(m->kernels = calloc(n, sizeof *m->kernels)))
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "pykrt_module_load(%s): out of host memory", m->name);
    for (size_t i = 0; i < n; i++) {
        if (!(m->kernels[i] = pk_obj_new(PK_KERNEL)))
            return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "pykrt_module_load(%s): out of host memory", m->name);
        pykrt_status st = setup_kernel(m, m->kernels[i], &m->mf->kernels[i], image, size);
        if (st != PYKRT_SUCCESS)
            return st;
    }
    pair_contiguous_copies(m);
    return PYKRT_SUCCESS;
}

pykrt_status pk_raise_dyn_limit(pykrt_kernel *k, uint32_t bytes, const char *what)
{
    pykrt_module *m = k->module;
    pykrt_status st = PYKRT_SUCCESS;
    pthread_mutex_lock(&m->dyn_lock);
    if (atomic_load(&k->dyn_limit) < bytes) {
        CUresult res = pk_drv.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes);
        if (res == CUDA_SUCCESS)
            atomic_store(&k->dyn_limit, bytes);
        else
            st = pk_cuda_fail(res, "cuFuncSetAttribute", "%s(%s)", what, k->desc->name);
    }
    pthread_mutex_unlock(&m->dyn_lock);
    return st;
}

/* ---- load and unload ---- */

/* Destroys the module and its kernels whatever the driver says; returns
 * what it said. */
static CUresult destroy(pykrt_module *m)
{
    CUresult res = CUDA_SUCCESS;
    for (size_t i = 0; m->kernels && i < m->mf->nkernels; i++)
        if (m->kernels[i]) {
            free(m->kernels[i]->slots);
            pk_obj_release(m->kernels[i], PK_KERNEL);
        }
    free(m->kernels);
    if (m->cu && (res = pk_bind(m->ctx)) == CUDA_SUCCESS)
        res = pk_drv.cuModuleUnload(m->cu);
    pk_manifest_free(m->mf);
    pthread_mutex_destroy(&m->dyn_lock);
    if (m->name != embedded_name)
        free(m->name);
    pk_live_sub(m->ctx, PK_LIVE_MODULE);
    pk_obj_release(m, PK_MODULE);
    return res;
}

/* Makes the module shell: context bound and counted, name kept, manifest
 * parsed. */
static pykrt_status begin(pykrt_context *ctx, const char *name, const char *text, size_t len, pykrt_module **out)
{
    pykrt_status st = pk_enter(ctx, "pykrt_module_load");
    if (st != PYKRT_SUCCESS)
        return st;
    pykrt_module *m = pk_obj_new(PK_MODULE);
    char *copy = name == embedded_name ? (char *)embedded_name : strdup(name);
    if (!m || !copy) {
        if (m)
            pk_obj_release(m, PK_MODULE);
        if (copy != embedded_name)
            free(copy);
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "pykrt_module_load(%s): out of host memory", name);
    }
    pk_live_add(ctx, PK_LIVE_MODULE);
    m->ctx = ctx;
    m->name = copy;
    pthread_mutex_init(&m->dyn_lock, NULL);
    if ((st = pk_manifest_parse(text, len, name, &m->mf)) != PYKRT_SUCCESS) {
        destroy(m);
        return st;
    }
    *out = m;
    return PYKRT_SUCCESS;
}

/* Where debug=True kernels leave what they raise (pykc's pykc_exception
 * and pykc_exception_thread), when the module has any. */
static pykrt_status find_exception_record(pykrt_module *m)
{
    if (!m->mf->nexceptions)
        return PYKRT_SUCCESS;
    size_t bytes[2] = {0, 0};
    CUresult res = pk_drv.cuModuleGetGlobal(&m->exception, &bytes[0], m->cu, "pykc_exception");
    if (res == CUDA_SUCCESS)
        res = pk_drv.cuModuleGetGlobal(&m->exception_thread, &bytes[1], m->cu, "pykc_exception_thread");
    if (res != CUDA_SUCCESS || bytes[0] != 4 || bytes[1] != 24) {
        m->exception = m->exception_thread = 0;
        return pk_fail(PYKRT_ERROR_MANIFEST, "%s lists exceptions, but its code has no pykc_exception record: recompile",
                       m->name);
    }
    bool checks = false;
    for (size_t i = 0; i < m->mf->nexceptions; i++)
        checks = checks || m->mf->exceptions[i].kind != PK_EXC_RAISE;
    if (checks && (pk_drv.cuModuleGetGlobal(&m->exception_detail, &bytes[0], m->cu, "pykc_exception_detail") !=
                       CUDA_SUCCESS ||
                   bytes[0] != 24)) {
        m->exception = m->exception_thread = m->exception_detail = 0;
        return pk_fail(PYKRT_ERROR_MANIFEST, "%s lists failed checks, but its code has no pykc_exception_detail "
                       "record: recompile", m->name);
    }
    return PYKRT_SUCCESS;
}

/* Checks the digest, loads the image (linked with what the manifest
 * links, found through src), resolves the kernels. `image` is
 * NUL-terminated past `size` (PTX is text for the driver). */
static pykrt_status finish(pykrt_module *m, const char *image, size_t size, const char *image_name,
                           const pk_link_source *src)
{
    if (pk_fnv1a64(image, size) != m->target->digest)
        return pk_fail(PYKRT_ERROR_STALE, "%s does not match %s: recompile", image_name, m->name);
    if (m->target->host && pk_needs_link(m->mf))
        return pk_fail(PYKRT_ERROR_NOT_SUPPORTED, "pykrt_module_load(%s): the module links other code (link, "
                       "device_runtime), which the host device cannot", m->name);
    pykrt_status st = pk_needs_link(m->mf) ? pk_link_module(m, image, size, src) : jit(m, image, size);
    if (st == PYKRT_SUCCESS)
        st = setup_kernels(m, image, size);
    return st == PYKRT_SUCCESS ? find_exception_record(m) : st;
}

static pykrt_status load_file(pykrt_module *m, const char *path, unsigned flags)
{
    if (!(m->target = choose(m->mf, &m->ctx->info, NULL, 0)))
        return no_target(m->mf, &m->ctx->info, m->name, false);
    char *ipath = NULL, *image = NULL;
    size_t size = 0;
    char what[600];
    snprintf(what, sizeof what, "pykrt_module_load(%s)", m->name);
    pykrt_status st = pk_image_path(path, m->target->file, flags & PYKRT_LOAD_ANY_PATH, what, &ipath);
    if (st == PYKRT_SUCCESS)
        st = pk_read_file(ipath, PK_IMAGE_MAX_BYTES, PYKRT_ERROR_IO, what, &image, &size);
    pk_link_source src = {path, flags & PYKRT_LOAD_ANY_PATH, NULL, 0};
    if (st == PYKRT_SUCCESS)
        st = finish(m, image, size, ipath, &src);
    free(image);
    free(ipath);
    return st;
}

pykrt_status pykrt_module_load_ex(pykrt_context *ctx, const char *manifest_path, unsigned flags, pykrt_module **out)
{
    if (!manifest_path || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_module_load: %s is NULL",
                       manifest_path ? "out" : "manifest_path");
    *out = NULL;
    if (flags & ~PYKRT_LOAD_ANY_PATH)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_module_load(%s): unknown flags 0x%x", manifest_path,
                       flags);
    char *text = NULL;
    size_t len = 0;
    char what[600];
    snprintf(what, sizeof what, "pykrt_module_load(%s)", manifest_path);
    pykrt_status st = pk_read_file(manifest_path, PK_MANIFEST_MAX_BYTES, PYKRT_ERROR_MANIFEST, what, &text, &len);
    pykrt_module *m = NULL;
    if (st == PYKRT_SUCCESS)
        st = begin(ctx, manifest_path, text, len, &m);
    free(text);
    if (st == PYKRT_SUCCESS && (st = load_file(m, manifest_path, flags)) != PYKRT_SUCCESS)
        destroy(m);
    if (st == PYKRT_SUCCESS)
        *out = m;
    return st;
}

pykrt_status pykrt_module_load(pykrt_context *ctx, const char *manifest_path, pykrt_module **out)
{
    return pykrt_module_load_ex(ctx, manifest_path, PYKRT_LOAD_DEFAULT, out);
}

static pykrt_status load_image(pykrt_module *m, const pykrt_image *images, size_t nimages)
{
    if (!(m->target = choose(m->mf, &m->ctx->info, images, nimages)))
        return no_target(m->mf, &m->ctx->info, m->name, true);
    const pykrt_image *img = find_image(m->target, images, nimages);
    if (!img->data)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_module_load_memory: image %s has no data", img->file);
    if (img->size > PK_IMAGE_MAX_BYTES) /* before size + 1 below can wrap */
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT,
                       "pykrt_module_load_memory: image %s is %zu bytes, larger than the limit of %zu bytes",
                       img->file, img->size, PK_IMAGE_MAX_BYTES);
    char *copy = malloc(img->size + 1);
    if (!copy)
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "pykrt_module_load(%s): out of host memory", m->name);
    memcpy(copy, img->data, img->size);
    copy[img->size] = '\0';
    pk_link_source src = {NULL, false, images, nimages};
    pykrt_status st = finish(m, copy, img->size, img->file, &src);
    free(copy);
    return st;
}

pykrt_status pykrt_module_load_memory(pykrt_context *ctx, const char *manifest, size_t manifest_len,
                                      const pykrt_image *images, size_t nimages, pykrt_module **out)
{
    if (!manifest || !out || (!images && nimages))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_module_load_memory: %s is NULL",
                       !manifest ? "manifest" : !out ? "out" : "images");
    *out = NULL;
    pykrt_module *m = NULL;
    pykrt_status st = begin(ctx, embedded_name, manifest, manifest_len, &m);
    if (st == PYKRT_SUCCESS && (st = load_image(m, images, nimages)) != PYKRT_SUCCESS)
        destroy(m);
    if (st == PYKRT_SUCCESS)
        *out = m;
    return st;
}

pykrt_status pykrt_module_unload(pykrt_module *module)
{
    if (!module)
        return PYKRT_SUCCESS;
    if (!pk_alive(module, PK_MODULE))
        return pk_dead("pykrt_module_unload", PK_MODULE);
    char name[512];
    snprintf(name, sizeof name, "%s", module->name);
    CUresult res = destroy(module);
    return res ? pk_cuda_fail(res, "cuModuleUnload", "pykrt_module_unload(%s)", name) : PYKRT_SUCCESS;
}

pykrt_status pykrt_module_describe(const pykrt_module *module, pykrt_module_info *out)
{
    if (!module || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_module_describe: %s is NULL", module ? "out" : "module");
    if (!pk_alive(module, PK_MODULE))
        return pk_dead("pykrt_module_describe", PK_MODULE);
    out->manifest = module->name;
    out->compiler = module->mf->compiler;
    out->arch = module->target->arch;
    out->file = module->target->file;
    out->cubin = module->target->cubin;
    out->nkernels = module->mf->nkernels;
    out->nconstants = module->mf->nconstants;
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_module_bind(pykrt_module *module, const char *digest, pykrt_kernel **kernels, size_t nkernels)
{
    if (!module || !digest || (!kernels && nkernels))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_module_bind: %s is NULL",
                       !module ? "module" : !digest ? "digest" : "kernels");
    if (!pk_alive(module, PK_MODULE))
        return pk_dead("pykrt_module_bind", PK_MODULE);
    uint64_t want, have = pk_interface_digest(module->mf);
    if (!pk_parse_digest(digest, &want))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT,
                       "pykrt_module_bind(%s): digest '%.40s' is not fnv1a64: and 16 lowercase hex digits", module->name,
                       digest);
    if (want != have)
        return pk_fail(PYKRT_ERROR_STALE,
                       "pykrt_module_bind(%s): its kernels (interface fnv1a64:%016llx) are not the ones the header "
                       "was generated for (%s): generate the header and the module from the same source",
                       module->name, (unsigned long long)have, digest);
    if (kernels && nkernels != module->mf->nkernels)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_module_bind(%s): room for %zu kernels, the module has %zu",
                       module->name, nkernels, module->mf->nkernels);
    for (size_t i = 0; kernels && i < nkernels; i++)
        kernels[i] = module->kernels[i];
    return PYKRT_SUCCESS;
}

/* ---- kernels ---- */

pykrt_status pykrt_kernel_get(pykrt_module *module, const char *name, pykrt_kernel **out)
{
    if (!module || !name || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_get: %s is NULL",
                       !module ? "module" : !name ? "name" : "out");
    if (!pk_alive(module, PK_MODULE))
        return pk_dead("pykrt_kernel_get", PK_MODULE);
    for (size_t i = 0; i < module->mf->nkernels; i++)
        if (strcmp(module->mf->kernels[i].name, name) == 0 && !module->mf->kernels[i].is_copy) {
            *out = module->kernels[i];
            return PYKRT_SUCCESS;
        }
    *out = NULL;
    pk_fail(PYKRT_ERROR_NOT_FOUND, "pykrt_kernel_get(%s): no kernel '%s'; the manifest has", module->name, name);
    for (size_t i = 0; i < module->mf->nkernels; i++)
        pk_append("%s %s", i ? "," : "", module->mf->kernels[i].name);
    if (module->mf->nkernels == 0)
        pk_append(" none");
    return PYKRT_ERROR_NOT_FOUND;
}

/* How well a kernel's parameters take the arguments, as pykrt_launch checks
 * them (kind, dtype, ndim, layout): -1 if they do not, else the number of
 * arrays whose layout parameter is C or F, which a better fit has more of. */
static int fit(const pk_kernel *d, const pykrt_arg *args, size_t nargs)
{
    if (nargs != d->nparams)
        return -1;
    int exact = 0;
    for (size_t i = 0; i < nargs; i++) {
        const pk_param *p = &d->params[i];
        const pykrt_arg *a = &args[i];
        if (a->kind != p->kind)
            return -1;
        if (p->kind == PYKRT_KIND_SCALAR) {
            if (a->dtype != p->dtype)
                return -1;
            continue;
        }
        if (!a->array || a->array->dtype != p->dtype || a->array->ndim != p->ndim)
            return -1;
        if (p->layout != PYKRT_LAYOUT_A) {
            if (!pk_is_contiguous(a->array, p->layout))
                return -1;
            exact++;
        }
    }
    return exact;
}

/* " float32[::1]" for an error's list of what a kernel takes. */
static void append_param(const pk_param *p, size_t i)
{
    pk_append("%s%s", i ? ", " : "", pykrt_dtype_name(p->dtype));
    if (p->kind != PYKRT_KIND_ARRAY)
        return;
    pk_append("[");
    for (int d = 0; d < p->ndim; d++) {
        bool unit = (p->layout == PYKRT_LAYOUT_C && d == p->ndim - 1) || (p->layout == PYKRT_LAYOUT_F && d == 0);
        pk_append("%s%s", d ? ", " : "", unit ? "::1" : ":");
    }
    pk_append("]");
}

pykrt_status pykrt_kernel_get_for_args(pykrt_module *module, const char *name, const pykrt_arg *args, size_t nargs,
                                       pykrt_kernel **out)
{
    if (!module || !name || !out || (!args && nargs))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_get_for_args: %s is NULL",
                       !module ? "module" : !name ? "name" : !out ? "out" : "args");
    if (!pk_alive(module, PK_MODULE))
        return pk_dead("pykrt_kernel_get_for_args", PK_MODULE);
    const pk_manifest *mf = module->mf;
    int best = -1;
    size_t found = 0, named = 0;
    for (size_t i = 0; i < mf->nkernels; i++) {
        if (strcmp(mf->kernels[i].name, name) != 0 || mf->kernels[i].is_copy)
            continue; /* a copy is launched through its kernel */
        named++;
        int f = fit(&mf->kernels[i], args, nargs);
        if (f > best) {
            best = f;
            found = i;
        }
    }
    *out = NULL;
    if (best >= 0) {
        *out = module->kernels[found];
        return PYKRT_SUCCESS;
    }
    if (!named)
        return pykrt_kernel_get(module, name, out);
    pk_fail(PYKRT_ERROR_NOT_FOUND, "pykrt_kernel_get_for_args(%s): no kernel '%s' takes these %zu arguments; it has",
            module->name, name, nargs);
    for (size_t i = 0, k = 0; i < mf->nkernels; i++) {
        if (strcmp(mf->kernels[i].name, name) != 0 || mf->kernels[i].is_copy)
            continue;
        pk_append("%s %s(", k++ ? "," : "", name);
        for (size_t j = 0; j < mf->kernels[i].nparams; j++)
            append_param(&mf->kernels[i].params[j], j);
        pk_append(")");
    }
    return PYKRT_ERROR_NOT_FOUND;
}

pykrt_status pykrt_kernel_at(pykrt_module *module, size_t index, pykrt_kernel **out)
{
    if (!module || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_at: %s is NULL", module ? "out" : "module");
    if (!pk_alive(module, PK_MODULE))
        return pk_dead("pykrt_kernel_at", PK_MODULE);
    if (index >= module->mf->nkernels)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_at(%s): index %zu, but there are %zu kernels",
                       module->name, index, module->mf->nkernels);
    *out = module->kernels[index];
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_kernel_describe(const pykrt_kernel *kernel, pykrt_kernel_info *out)
{
    if (!kernel || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_describe: %s is NULL", kernel ? "out" : "kernel");
    if (!pk_alive(kernel, PK_KERNEL))
        return pk_dead("pykrt_kernel_describe", PK_KERNEL);
    const pk_kernel *d = kernel->desc;
    out->name = d->name;
    out->entry = d->entry;
    out->nparams = d->nparams;
    out->nptx_params = d->nptx;
    out->shared_static = kernel->shared_static;
    out->shared_dynamic = d->shared_dynamic;
    out->cooperative = d->cooperative;
    out->max_threads = kernel->max_threads;
    out->registers = kernel->registers;
    out->contiguous_copy = d->is_copy;
    return PYKRT_SUCCESS;
}

static void describe_param(const pk_param *p, pykrt_param_info *out)
{
    out->name = p->name;
    out->kind = p->kind;
    out->dtype = p->dtype;
    out->ndim = p->ndim;
    out->layout = p->kind == PYKRT_KIND_ARRAY ? p->layout : PYKRT_LAYOUT_A;
    out->access = p->access;
    out->record = p->record;
    out->nmembers = p->nmembers;
}

pykrt_status pykrt_kernel_param(const pykrt_kernel *kernel, size_t index, pykrt_param_info *out)
{
    if (!kernel || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_param: %s is NULL", kernel ? "out" : "kernel");
    if (!pk_alive(kernel, PK_KERNEL))
        return pk_dead("pykrt_kernel_param", PK_KERNEL);
    const pk_kernel *d = kernel->desc;
    if (index >= d->nparams)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_param(%s): index %zu, but it has %zu parameters",
                       d->name, index, d->nparams);
    describe_param(&d->params[index], out);
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_kernel_param_member(const pykrt_kernel *kernel, size_t index, size_t member, pykrt_param_info *out)
{
    if (!kernel || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_param_member: %s is NULL", kernel ? "out" : "kernel");
    if (!pk_alive(kernel, PK_KERNEL))
        return pk_dead("pykrt_kernel_param_member", PK_KERNEL);
    const pk_kernel *d = kernel->desc;
    if (index >= d->nparams || d->params[index].kind != PYKRT_KIND_TUPLE)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_param_member(%s): parameter %zu is not a tuple",
                       d->name, index);
    if (member >= d->params[index].nmembers)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_param_member(%s): member %zu, but %s has %zu",
                       d->name, member, d->params[index].name, d->params[index].nmembers);
    describe_param(&d->params[index].members[member], out);
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_kernel_handle(const pykrt_kernel *kernel, void **cufunction)
{
    if (!kernel || !cufunction)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_handle: %s is NULL",
                       kernel ? "cufunction" : "kernel");
    if (!pk_alive(kernel, PK_KERNEL))
        return pk_dead("pykrt_kernel_handle", PK_KERNEL);
    *cufunction = kernel->fn;
    return PYKRT_SUCCESS;
}

/* ---- constant memory ---- */

/* Finds the symbol, binds the context and checks the size. */
static pykrt_status constant(pykrt_module *m, const char *name, const void *buf, size_t bytes, const char *what,
                             CUdeviceptr *ptr)
{
    if (!m || !name || !buf)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", what, !m ? "module" : !name ? "name" : "buffer");
    if (!pk_alive(m, PK_MODULE))
        return pk_dead(what, PK_MODULE);
    size_t i = 0;
    while (i < m->mf->nconstants && strcmp(m->mf->constants[i].name, name) != 0)
        i++;
    if (i == m->mf->nconstants)
        return pk_fail(PYKRT_ERROR_NOT_FOUND, "%s(%s): no constant '%s' in the manifest", what, m->name, name);
    CUresult res = pk_bind(m->ctx);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuCtxSetCurrent", "%s(%s)", what, name);
    size_t size = 0;
    if ((res = pk_drv.cuModuleGetGlobal(ptr, &size, m->cu, name)) != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuModuleGetGlobal", "%s(%s)", what, name);
    if (bytes != size)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s(%s): %zu bytes given, the symbol has %zu", what, name, bytes,
                       size);
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_constant_set(pykrt_module *module, const char *name, const void *src, size_t bytes)
{
    CUdeviceptr ptr;
    pykrt_status st = constant(module, name, src, bytes, "pykrt_constant_set", &ptr);
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuMemcpyHtoD(ptr, src, bytes);
    return res ? pk_cuda_fail(res, "cuMemcpyHtoD", "pykrt_constant_set(%s)", name) : PYKRT_SUCCESS;
}

pykrt_status pykrt_constant_get(pykrt_module *module, const char *name, void *dst, size_t bytes)
{
    CUdeviceptr ptr;
    pykrt_status st = constant(module, name, dst, bytes, "pykrt_constant_get", &ptr);
    if (st != PYKRT_SUCCESS)
        return st;
    CUresult res = pk_drv.cuMemcpyDtoH(dst, ptr, bytes);
    return res ? pk_cuda_fail(res, "cuMemcpyDtoH", "pykrt_constant_get(%s)", name) : PYKRT_SUCCESS;
}
