/*
 * launch.c - checks launch arguments against the manifest, packs them as
 * its ptx_params list says, and launches.
 *
 * The launch path is hot (a loop may launch millions of times), so it does
 * no allocation and no lookup: module.c built, per kernel, one slot per PTX
 * parameter holding the source parameter's index and the byte offset of
 * the part within the caller's pykrt_arg (a scalar's value bytes) or
 * pykrt_array (data, shape[i], strides[i]). Packing is then one pointer per
 * PTX parameter into the caller's own memory, handed to cuLaunchKernel as
 * kernelParams; the driver copies the bytes, with each parameter's size
 * from the module, before it returns, so nothing needs to outlive the call.
 * A part narrower than its field (a 4-byte shape in some future ABI) reads
 * the field's low bytes, which on a little-endian host is the value.
 *
 * pykrt_launch checks first: the arguments against the kernel's source
 * parameters, each array's descriptor for itself (a data pointer with its
 * elements, an extent the address space holds), and the grid, block and
 * shared memory against the limits the module and the context cached.
 * pykrt_launch_unchecked skips that and only refuses what the host itself
 * would trip on: a destroyed kernel or stream, args NULL or too few, a
 * NULL descriptor. The module checked at load that the driver reads no
 * more parameters than the plan sets (ptx.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

static pykrt_status bad_launch(const pk_kernel *d, const char *what, const char *fmt, ...) PK_PRINTF(3, 4);

static pykrt_status bad_launch(const pk_kernel *d, const char *what, const char *fmt, ...)
{
    char problem[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    return pk_fail(PYKRT_ERROR_BAD_LAUNCH, "%s(%s): %s", what, d->name, problem);
}

/* ---- argument checks ---- */

static const char *kind_name(pykrt_kind kind)
{
    return kind == PYKRT_KIND_ARRAY    ? "an array"
           : kind == PYKRT_KIND_SCALAR ? "a scalar"
           : kind == PYKRT_KIND_TUPLE  ? "a tuple"
                                       : "an unset pykrt_arg";
}

/* A tuple's members: as many as the parameter's, each a scalar of its dtype. */
static pykrt_status check_tuple_arg(const pk_kernel *d, const char *what, size_t i, const pk_param *p, const pykrt_arg *a)
{
    if (!a->members || a->nmembers != p->nmembers)
        return bad_launch(d, what, "argument %zu (%s): expected a tuple of %zu members, got %zu%s", i,
                          p->name, p->nmembers, a->members ? a->nmembers : 0, a->members ? "" : " (members is NULL)");
    for (size_t j = 0; j < p->nmembers; j++) {
        const pykrt_arg *m = &a->members[j];
        if (m->kind != PYKRT_KIND_SCALAR || m->dtype != p->members[j].dtype)
            return bad_launch(d, what, "argument %zu (%s): member %zu: expected %s, got %s%s", i, p->name, j,
                              pykrt_dtype_name(p->members[j].dtype),
                              m->kind == PYKRT_KIND_SCALAR ? pykrt_dtype_name(m->dtype) : kind_name(m->kind), "");
    }
    return PYKRT_SUCCESS;
}

/* "(4, 3)": a shape or strides tuple for messages. */
static void tuple(char *buf, size_t size, const int64_t *v, int n)
{
    size_t used = (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (used < size)
        snprintf(buf + used, size - used, n == 1 ? ",)" : ")");
}

/* A record parameter takes an array of records of the same layout. */
static pykrt_status check_records(const pk_kernel *d, const char *what, size_t i, const pk_param *p, const pykrt_array *a)
{
    const pykrt_record *got = pk_array_record(a);
    if (got && pk_record_same(p->record, got, 0))
        return PYKRT_SUCCESS;
    char want[200], have[200];
    pk_record_describe(p->record, want, sizeof want);
    if (got)
        pk_record_describe(got, have, sizeof have);
    else
        snprintf(have, sizeof have, "%s", a->dtype == PYKRT_RECORD ? "records without a layout (record is NULL)"
                                                                   : pykrt_dtype_name(a->dtype));
    return bad_launch(d, what, "argument %zu (%s): expected records %s, got %s", i, p->name, want, have);
}

static pykrt_status check_array_arg(const pk_kernel *d, const char *what, size_t i, const pk_param *p, const pykrt_array *a)
{
    if (!a)
        return bad_launch(d, what, "argument %zu (%s): the array descriptor is NULL", i, p->name);
    if (p->dtype == PYKRT_RECORD && a->ndim == p->ndim) {
        pykrt_status st = check_records(d, what, i, p, a);
        if (st != PYKRT_SUCCESS)
            return st;
    } else if (a->dtype != p->dtype || a->ndim != p->ndim)
        return bad_launch(d, what, "argument %zu (%s): expected a %d-d %s array, got a %d-d %s array", i,
                          p->name, p->ndim, pykrt_dtype_name(p->dtype), a->ndim, pykrt_dtype_name(a->dtype));
    bool empty = false;
    for (int ax = 0; ax < a->ndim; ax++) {
        if (a->shape[ax] < 0)
            return bad_launch(d, what, "argument %zu (%s): shape[%d] is negative", i, p->name, ax);
        empty |= a->shape[ax] == 0;
    }
    if (!empty && !a->data)
        return bad_launch(d, what, "argument %zu (%s): the data pointer is 0, and the array has elements", i,
                          p->name);
    const char *extent = pk_extent_problem(a);
    if (extent || (p->layout != PYKRT_LAYOUT_A && !pk_is_contiguous(a, p->layout))) {
        char shape[160], strides[160];
        tuple(shape, sizeof shape, a->shape, a->ndim);
        tuple(strides, sizeof strides, a->strides, a->ndim);
        if (extent)
            return bad_launch(d, what, "argument %zu (%s): shape %s with strides %s %s", i, p->name, shape,
                              strides, extent);
        return bad_launch(d, what,
                          "argument %zu (%s): expected a %s-contiguous array, got shape %s with strides %s", i,
                          p->name, p->layout == PYKRT_LAYOUT_C ? "C" : "F", shape, strides);
    }
    return PYKRT_SUCCESS;
}

/* The arguments against the kernel's source parameters: pykrt_launch's
 * checks and pykrt_check_args's, one code for both so that a check made
 * offline says what the launch would. */
pykrt_status pk_check_args(const pk_kernel *d, const pykrt_arg *args, size_t nargs, const char *what)
{
    if (nargs != d->nparams)
        return bad_launch(d, what, "%zu argument%s given, the kernel takes %zu", nargs,
                          nargs == 1 ? "" : "s", d->nparams);
    for (size_t i = 0; i < nargs; i++) {
        const pk_param *p = &d->params[i];
        const pykrt_arg *a = &args[i];
        if (a->kind != p->kind)
            return bad_launch(d, what, "argument %zu (%s): expected %s, got %s", i, p->name,
                              kind_name(p->kind), kind_name(a->kind));
        if (p->kind == PYKRT_KIND_SCALAR && a->dtype != p->dtype)
            return bad_launch(d, what, "argument %zu (%s): expected %s, got %s", i, p->name,
                              pykrt_dtype_name(p->dtype), pykrt_dtype_name(a->dtype));
        pykrt_status st = p->kind == PYKRT_KIND_ARRAY   ? check_array_arg(d, what, i, p, a->array)
                          : p->kind == PYKRT_KIND_TUPLE ? check_tuple_arg(d, what, i, p, a)
                                                        : PYKRT_SUCCESS;
        if (st != PYKRT_SUCCESS)
            return st;
    }
    return PYKRT_SUCCESS;
}

/* ---- launch shape checks ---- */

void pk_normalize(const pykrt_launch_config *cfg, pk_shape *s)
{
    s->g[0] = cfg->grid.x;
    s->g[1] = cfg->grid.y ? cfg->grid.y : 1;
    s->g[2] = cfg->grid.z ? cfg->grid.z : 1;
    s->b[0] = cfg->block.x;
    s->b[1] = cfg->block.y ? cfg->block.y : 1;
    s->b[2] = cfg->block.z ? cfg->block.z : 1;
}

static pykrt_status check_dims(const pk_kernel *d, const pk_limits *lim, const pk_shape *s, const char *what)
{
    const pykrt_device_info *dev = lim->dev;
    static const char axis[] = "xyz";
    if (s->g[0] == 0 || s->b[0] == 0)
        return bad_launch(d, what, "%s.x is 0", s->g[0] == 0 ? "grid" : "block");
    for (int i = 0; i < 3; i++) {
        if (s->b[i] > (unsigned)dev->max_block_dim[i])
            return bad_launch(d, what, "block.%c is %u, more than %s %d", axis[i], s->b[i], lim->whose,
                              dev->max_block_dim[i]);
        if (s->g[i] > (unsigned)dev->max_grid_dim[i])
            return bad_launch(d, what, "grid.%c is %u, more than %s %d", axis[i], s->g[i], lim->whose,
                              dev->max_grid_dim[i]);
    }
    uint64_t threads = (uint64_t)s->b[0] * s->b[1] * s->b[2];
    if (threads > (uint64_t)lim->max_threads)
        return bad_launch(d, what, "a block of %llu threads (%ux%ux%u), more than the kernel's limit of %d",
                          (unsigned long long)threads, s->b[0], s->b[1], s->b[2], lim->max_threads);
    return PYKRT_SUCCESS;
}

/* Grid, block and shared memory against the limits: pykrt_launch's with
 * the device's and the loaded kernel's, pykrt_check_args's with those
 * every device has (pk_limits). */
pykrt_status pk_check_shape(const pk_kernel *d, const pk_limits *lim, const pykrt_launch_config *cfg,
                            const pk_shape *s, const char *what)
{
    pykrt_status st = check_dims(d, lim, s, what);
    if (st != PYKRT_SUCCESS)
        return st;
    if ((uint64_t)cfg->shared_bytes + lim->shared_static > lim->dev->max_shared_per_block_optin)
        return bad_launch(d, what, "%u bytes of dynamic shared memory and %llu static exceed %s limit of %zu",
                          cfg->shared_bytes, (unsigned long long)lim->shared_static, lim->whose,
                          lim->dev->max_shared_per_block_optin);
    return PYKRT_SUCCESS;
}

/* What only a loaded kernel can be checked for: the device's cooperative
 * launch support and the stream's context. */
static pykrt_status check_config(const pykrt_kernel *k, const pykrt_launch_config *cfg, const pk_shape *s)
{
    const pykrt_device_info *dev = &k->module->ctx->info;
    pk_limits lim = {dev, "the device's", k->max_threads, k->shared_static};
    pykrt_status st = pk_check_shape(k->desc, &lim, cfg, s, "pykrt_launch");
    if (st != PYKRT_SUCCESS)
        return st;
    if (k->desc->cooperative && !dev->cooperative_launch)
        return bad_launch(k->desc, "pykrt_launch", "the kernel needs a cooperative launch, which %s does not support",
                          dev->name);
    if (cfg->stream && cfg->stream->ctx != k->module->ctx)
        return bad_launch(k->desc, "pykrt_launch", "the stream belongs to another context than the kernel's module");
    return PYKRT_SUCCESS;
}

/* ---- the launch itself ---- */

static pykrt_status launch(pykrt_kernel *k, const pykrt_launch_config *cfg, const pk_shape *s, const pykrt_arg *args,
                           const char *what)
{
    const pk_kernel *d = k->desc;
    if (PK_UNLIKELY(cfg->shared_bytes > atomic_load_explicit(&k->dyn_limit, memory_order_acquire))) {
        pykrt_status st = pk_raise_dyn_limit(k, cfg->shared_bytes, what);
        if (st != PYKRT_SUCCESS)
            return st;
    }
    void *params[PK_MAX_PTX_PARAMS];
    for (size_t i = 0; i < d->nptx; i++) {
        const pk_slot *slot = &k->slots[i];
        const pykrt_arg *a = &args[slot->param];
        if (PK_UNLIKELY(slot->tuple)) {
            if (!a->members || slot->member >= a->nmembers)
                return bad_launch(k->desc, what, "argument %u (%s): a tuple without its member %u", slot->param,
                                  d->params[slot->param].name, slot->member);
            a = &a->members[slot->member];
        }
        const char *base = slot->array ? (const char *)a->array : (const char *)a;
        if (PK_UNLIKELY(!base))
            return bad_launch(k->desc, what, "argument %u (%s): the array descriptor is NULL", slot->param,
                              d->params[slot->param].name);
        params[i] = (void *)(uintptr_t)(base + slot->offset); /* the driver only reads them */
    }
    if (PK_UNLIKELY(k->unverified)) /* should the entry have more parameters, NULL beats stale pointers */
        memset(params + d->nptx, 0, sizeof params - d->nptx * sizeof params[0]);
    CUresult res = pk_bind(k->module->ctx);
    if (PK_UNLIKELY(res != CUDA_SUCCESS))
        return pk_cuda_fail(res, "cuCtxSetCurrent", "%s(%s)", what, d->name);
    CUstream stream = cfg->stream ? cfg->stream->cu : NULL;
    if (PK_UNLIKELY(d->reports && k->module->exception)) {
        pykrt_status st = pk_refuse_capture(stream, what, d->name);
        if (st != PYKRT_SUCCESS)
            return st;
        res = pk_drv.cuMemsetD8Async(k->module->exception, 0, 4, stream);
        if (res != CUDA_SUCCESS)
            return pk_cuda_fail(res, "cuMemsetD8Async", "%s(%s): clearing its exception record", what, d->name);
    }
    if (d->cooperative) {
        if (!pk_drv.cuLaunchCooperativeKernel)
            return pk_fail(PYKRT_ERROR_NO_DRIVER, "%s(%s): the driver lacks cuLaunchCooperativeKernel", what, d->name);
        res = pk_drv.cuLaunchCooperativeKernel(k->fn, s->g[0], s->g[1], s->g[2], s->b[0], s->b[1], s->b[2],
                                               cfg->shared_bytes, stream, params);
        if (PK_UNLIKELY(res))
            return pk_cuda_fail(res, "cuLaunchCooperativeKernel", "%s(%s)", what, d->name);
    } else {
        res = pk_drv.cuLaunchKernel(k->fn, s->g[0], s->g[1], s->g[2], s->b[0], s->b[1], s->b[2], cfg->shared_bytes,
                                    stream, params, NULL);
        if (PK_UNLIKELY(res))
            return pk_cuda_fail(res, "cuLaunchKernel", "%s(%s)", what, d->name);
    }
    return PK_UNLIKELY(d->reports && k->module->exception) ? pk_check_exception(k, stream, what) : PYKRT_SUCCESS;
}

/* A failed check as a diagnostic: the site, what failed, and the thread,
 * as one number of one number where the launch is one-dimensional. */
static pykrt_status report_check(const pykrt_kernel *k, const pk_exception *e, const int32_t *thread, const char *what)
{
    int64_t detail[3] = {0, 0, 0};
    CUresult res = k->module->exception_detail
                       ? pk_drv.cuMemcpyDtoH(detail, k->module->exception_detail, sizeof detail)
                       : CUDA_SUCCESS;
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuMemcpyDtoH", "%s(%s): reading its failed check", what, k->desc->name);
    char failed[160], who[96];
    if (e->kind == PK_EXC_BOUNDS)
        snprintf(failed, sizeof failed, "index %lld out of bounds for axis %lld with size %lld", (long long)detail[0],
                 (long long)detail[1], (long long)detail[2]);
    else
        snprintf(failed, sizeof failed, "integer division or modulo by zero");
    if (!thread[1] && !thread[2] && !thread[4] && !thread[5])
        snprintf(who, sizeof who, "thread %d of block %d", thread[0], thread[3]);
    else
        snprintf(who, sizeof who, "thread (%d, %d, %d) of block (%d, %d, %d)", thread[0], thread[1], thread[2],
                 thread[3], thread[4], thread[5]);
    return pk_fail(PYKRT_ERROR_KERNEL_EXCEPTION, "%s(%s): %s:%lld:%lld: error: %s (%s)", what, k->desc->name, e->file,
                   (long long)e->line, (long long)e->column, failed, who);
}

/* As numba-cuda reports a debug=True kernel's exception: the class, then
 * where it was raised, the thread (its indices z, y, x) and the message;
 * a failed check as a diagnostic (report_check). */
pykrt_status pk_check_exception(pykrt_kernel *k, CUstream stream, const char *what)
{
    const pk_kernel *d = k->desc;
    const pk_manifest *mf = k->module->mf;
    int32_t code = 0, thread[6];
    CUresult res = pk_drv.cuStreamSynchronize(stream);
    if (res == CUDA_SUCCESS)
        res = pk_drv.cuMemcpyDtoH(&code, k->module->exception, sizeof code);
    if (res == CUDA_SUCCESS && code)
        res = pk_drv.cuMemcpyDtoH(thread, k->module->exception_thread, sizeof thread);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuStreamSynchronize", "%s(%s): waiting for its exception record", what, d->name);
    if (!code)
        return PYKRT_SUCCESS;
    if (code < 0 || (size_t)code > mf->nexceptions)
        return pk_fail(PYKRT_ERROR_KERNEL_EXCEPTION, "%s(%s): a thread raised exception %d, which the manifest does "
                       "not list", what, d->name, code);
    const pk_exception *e = &mf->exceptions[code - 1];
    if (e->kind != PK_EXC_RAISE)
        return report_check(k, e, thread, what);
    return pk_fail(PYKRT_ERROR_KERNEL_EXCEPTION,
                   "%s(%s): %s: In function '%s', file %s, line %lld, tid=[%d, %d, %d] ctaid=[%d, %d, %d]%s%s", what,
                   d->name, e->type, e->function, e->file, (long long)e->line, thread[2], thread[1], thread[0],
                   thread[5], thread[4], thread[3], *e->message ? ": " : "", e->message);
}

/* The kernel to run for these arguments: k's copy for contiguous arrays
 * where every argument of an array parameter that the copy takes
 * C-contiguous is so, as Numba's dispatcher picks its contiguous
 * specialisation; else k. */
static pykrt_kernel *for_layouts(pykrt_kernel *k, const pykrt_arg *args)
{
    pykrt_kernel *c = k->contiguous;
    if (!c)
        return k;
    for (size_t i = 0; i < c->desc->nparams; i++) {
        const pykrt_arg *a = &args[i];
        if (c->desc->params[i].layout != k->desc->params[i].layout &&
            (a->kind != PYKRT_KIND_ARRAY || !a->array || !pk_is_contiguous(a->array, PYKRT_LAYOUT_C)))
            return k;
    }
    return c;
}

/* The checks both entry points make: what the host itself would trip on. */
static pykrt_status check_call(const pykrt_kernel *k, const pykrt_launch_config *cfg, const pykrt_arg *args,
                               size_t nargs, const char *what)
{
    if (PK_UNLIKELY(!k || !cfg))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", what, k ? "config" : "kernel");
    if (PK_UNLIKELY(!pk_alive(k, PK_KERNEL)))
        return pk_dead(what, PK_KERNEL);
    if (PK_UNLIKELY(cfg->stream && !pk_alive(cfg->stream, PK_STREAM)))
        return pk_dead(what, PK_STREAM);
    if (PK_UNLIKELY(!args && nargs))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s(%s): args is NULL, but nargs is %zu", what, k->desc->name,
                       nargs);
    if (PK_UNLIKELY(nargs < k->desc->nparams))
        return bad_launch(k->desc, what, "%zu argument%s given, the kernel takes %zu", nargs, nargs == 1 ? "" : "s",
                          k->desc->nparams);
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_launch(pykrt_kernel *kernel, const pykrt_launch_config *config, const pykrt_arg *args,
                          size_t nargs)
{
    pykrt_status st = check_call(kernel, config, args, nargs, "pykrt_launch");
    if (PK_UNLIKELY(st != PYKRT_SUCCESS))
        return st;
    pk_shape s;
    pk_normalize(config, &s);
    if (PK_UNLIKELY((st = pk_check_args(kernel->desc, args, nargs, "pykrt_launch")) != PYKRT_SUCCESS))
        return st;
    kernel = for_layouts(kernel, args);
    if (PK_UNLIKELY((st = check_config(kernel, config, &s)) != PYKRT_SUCCESS))
        return st;
    return launch(kernel, config, &s, args, "pykrt_launch");
}

pykrt_status pykrt_launch_unchecked(pykrt_kernel *kernel, const pykrt_launch_config *config, const pykrt_arg *args,
                                    size_t nargs)
{
    pykrt_status st = check_call(kernel, config, args, nargs, "pykrt_launch_unchecked");
    if (PK_UNLIKELY(st != PYKRT_SUCCESS))
        return st;
    pk_shape s;
    pk_normalize(config, &s);
    return launch(for_layouts(kernel, args), config, &s, args, "pykrt_launch_unchecked");
}

/* ---- occupancy ---- */

/* The checks of the occupancy queries: a live kernel, bound. */
static pykrt_status occupancy_enter(const pykrt_kernel *k, const void *out, const char *what)
{
    if (!k || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", what, k ? "the result pointer" : "kernel");
    if (!pk_alive(k, PK_KERNEL))
        return pk_dead(what, PK_KERNEL);
    CUresult res = pk_bind(k->module->ctx);
    return res ? pk_cuda_fail(res, "cuCtxSetCurrent", "%s(%s)", what, k->desc->name) : PYKRT_SUCCESS;
}

pykrt_status pykrt_kernel_occupancy(const pykrt_kernel *kernel, int block_threads, size_t dynamic_shared_bytes,
                                    int *blocks_per_sm)
{
    pykrt_status st = occupancy_enter(kernel, blocks_per_sm, "pykrt_kernel_occupancy");
    if (st != PYKRT_SUCCESS)
        return st;
    if (block_threads < 1 || block_threads > kernel->max_threads)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_kernel_occupancy(%s): a block of %d threads; the kernel "
                       "takes 1 to %d", kernel->desc->name, block_threads, kernel->max_threads);
    CUresult res = pk_drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, kernel->fn, block_threads,
                                                                      dynamic_shared_bytes);
    return res ? pk_cuda_fail(res, "cuOccupancyMaxActiveBlocksPerMultiprocessor", "pykrt_kernel_occupancy(%s)",
                              kernel->desc->name)
               : PYKRT_SUCCESS;
}

pykrt_status pykrt_kernel_block_size(const pykrt_kernel *kernel, size_t dynamic_shared_bytes, int *block_threads,
                                     int *min_grid_blocks)
{
    pykrt_status st = occupancy_enter(kernel, block_threads, "pykrt_kernel_block_size");
    if (st != PYKRT_SUCCESS)
        return st;
    int grid = 0;
    /* No callback: the dynamic shared memory is the same at every size. */
    CUresult res = pk_drv.cuOccupancyMaxPotentialBlockSize(&grid, block_threads, kernel->fn, NULL,
                                                           dynamic_shared_bytes, kernel->max_threads);
    if (res)
        return pk_cuda_fail(res, "cuOccupancyMaxPotentialBlockSize", "pykrt_kernel_block_size(%s)", kernel->desc->name);
    if (min_grid_blocks)
        *min_grid_blocks = grid;
    return PYKRT_SUCCESS;
}
