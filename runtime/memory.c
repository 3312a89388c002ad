/*
 * memory.c - device and pinned host memory, copies, memset, and array
 * descriptors.
 *
 * Thin, checked wrappers over the driver's allocation, copy and memset
 * calls: each binds the context on the calling thread, refuses NULL buffers
 * and a stream of another context, treats zero bytes as nothing to do
 * (Numba allows empty arrays; the driver refuses a zero-byte cuMemAlloc),
 * and names itself and the size in its message.
 *
 * Array descriptors follow NumPy: shape in elements, strides in bytes,
 * contiguity by NumPy's rule (the strides of length-1 dimensions are
 * ignored, an empty array is contiguous), which is what Numba types an
 * array's layout by.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

/* ---- raw memory ---- */

pykrt_status pykrt_mem_alloc(pykrt_context *ctx, size_t bytes, pykrt_devptr *out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_mem_alloc: out is NULL");
    *out = 0;
    pykrt_status st = pk_enter(ctx, "pykrt_mem_alloc");
    if (st != PYKRT_SUCCESS || bytes == 0)
        return st;
    CUdeviceptr p = 0;
    CUresult res = pk_drv.cuMemAlloc(&p, bytes);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuMemAlloc", "pykrt_mem_alloc(%zu bytes)", bytes);
    pk_live_add(ctx, PK_LIVE_DEVICE_MEMORY);
    *out = p;
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_mem_free(pykrt_context *ctx, pykrt_devptr ptr)
{
    pykrt_status st = pk_enter(ctx, "pykrt_mem_free");
    if (st != PYKRT_SUCCESS || ptr == 0)
        return st;
    CUresult res = pk_drv.cuMemFree(ptr);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuMemFree", "pykrt_mem_free");
    pk_live_sub(ctx, PK_LIVE_DEVICE_MEMORY);
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_host_alloc(pykrt_context *ctx, size_t bytes, void **out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_host_alloc: out is NULL");
    *out = NULL;
    pykrt_status st = pk_enter(ctx, "pykrt_host_alloc");
    if (st != PYKRT_SUCCESS)
        return st;
    /* Portable: pinned for every context, as Numba's pinned arrays are. */
    CUresult res = pk_drv.cuMemHostAlloc(out, bytes ? bytes : 1, CU_MEMHOSTALLOC_PORTABLE);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuMemHostAlloc", "pykrt_host_alloc(%zu bytes)", bytes);
    pk_live_add(ctx, PK_LIVE_HOST_MEMORY);
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_host_free(pykrt_context *ctx, void *ptr)
{
    pykrt_status st = pk_enter(ctx, "pykrt_host_free");
    if (st != PYKRT_SUCCESS || !ptr)
        return st;
    CUresult res = pk_drv.cuMemFreeHost(ptr);
    if (res != CUDA_SUCCESS)
        return pk_cuda_fail(res, "cuMemFreeHost", "pykrt_host_free");
    pk_live_sub(ctx, PK_LIVE_HOST_MEMORY);
    return PYKRT_SUCCESS;
}

/* ---- copies ---- */

/* The prologue of a copy or memset: context bound, host buffer present
 * when there is something to copy, stream of the same context. */
static pykrt_status copy_enter(pykrt_context *ctx, const void *host, size_t bytes, const pykrt_stream *stream,
                               const char *what)
{
    if (bytes && !host)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: host pointer is NULL", what);
    if (stream && !pk_alive(stream, PK_STREAM))
        return pk_dead(what, PK_STREAM);
    if (stream && stream->ctx != ctx)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: the stream belongs to another context", what);
    return pk_enter(ctx, what);
}

static CUstream cu_stream(const pykrt_stream *s)
{
    return s ? s->cu : NULL;
}

static pykrt_status copied(CUresult res, const char *call, const char *what, size_t bytes)
{
    return res ? pk_cuda_fail(res, call, "%s(%zu bytes)", what, bytes) : PYKRT_SUCCESS;
}

pykrt_status pykrt_memcpy_htod(pykrt_context *ctx, pykrt_devptr dst, const void *src, size_t bytes)
{
    pykrt_status st = copy_enter(ctx, src, bytes, NULL, "pykrt_memcpy_htod");
    if (st != PYKRT_SUCCESS || bytes == 0)
        return st;
    return copied(pk_drv.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD", "pykrt_memcpy_htod", bytes);
}

pykrt_status pykrt_memcpy_dtoh(pykrt_context *ctx, void *dst, pykrt_devptr src, size_t bytes)
{
    pykrt_status st = copy_enter(ctx, dst, bytes, NULL, "pykrt_memcpy_dtoh");
    if (st != PYKRT_SUCCESS || bytes == 0)
        return st;
    return copied(pk_drv.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH", "pykrt_memcpy_dtoh", bytes);
}

pykrt_status pykrt_memcpy_dtod(pykrt_context *ctx, pykrt_devptr dst, pykrt_devptr src, size_t bytes)
{
    pykrt_status st = copy_enter(ctx, &dst, bytes, NULL, "pykrt_memcpy_dtod");
    if (st != PYKRT_SUCCESS || bytes == 0)
        return st;
    return copied(pk_drv.cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD", "pykrt_memcpy_dtod", bytes);
}

pykrt_status pykrt_memcpy_htod_async(pykrt_context *ctx, pykrt_devptr dst, const void *src, size_t bytes,
                                     pykrt_stream *stream)
{
    pykrt_status st = copy_enter(ctx, src, bytes, stream, "pykrt_memcpy_htod_async");
    if (st != PYKRT_SUCCESS || bytes == 0)
        return st;
    return copied(pk_drv.cuMemcpyHtoDAsync(dst, src, bytes, cu_stream(stream)), "cuMemcpyHtoDAsync",
                  "pykrt_memcpy_htod_async", bytes);
}

pykrt_status pykrt_memcpy_dtoh_async(pykrt_context *ctx, void *dst, pykrt_devptr src, size_t bytes,
                                     pykrt_stream *stream)
{
    pykrt_status st = copy_enter(ctx, dst, bytes, stream, "pykrt_memcpy_dtoh_async");
    if (st != PYKRT_SUCCESS || bytes == 0)
        return st;
    return copied(pk_drv.cuMemcpyDtoHAsync(dst, src, bytes, cu_stream(stream)), "cuMemcpyDtoHAsync",
                  "pykrt_memcpy_dtoh_async", bytes);
}

pykrt_status pykrt_memcpy_dtod_async(pykrt_context *ctx, pykrt_devptr dst, pykrt_devptr src, size_t bytes,
                                     pykrt_stream *stream)
{
    pykrt_status st = copy_enter(ctx, &dst, bytes, stream, "pykrt_memcpy_dtod_async");
    if (st != PYKRT_SUCCESS || bytes == 0)
        return st;
    return copied(pk_drv.cuMemcpyDtoDAsync(dst, src, bytes, cu_stream(stream)), "cuMemcpyDtoDAsync",
                  "pykrt_memcpy_dtod_async", bytes);
}

pykrt_status pykrt_memset_d8(pykrt_context *ctx, pykrt_devptr dst, uint8_t value, size_t count)
{
    pykrt_status st = copy_enter(ctx, &dst, count, NULL, "pykrt_memset_d8");
    if (st != PYKRT_SUCCESS || count == 0)
        return st;
    return copied(pk_drv.cuMemsetD8(dst, value, count), "cuMemsetD8", "pykrt_memset_d8", count);
}

pykrt_status pykrt_memset_d32(pykrt_context *ctx, pykrt_devptr dst, uint32_t value, size_t count)
{
    pykrt_status st = copy_enter(ctx, &dst, count, NULL, "pykrt_memset_d32");
    if (st != PYKRT_SUCCESS || count == 0)
        return st;
    return copied(pk_drv.cuMemsetD32(dst, value, count), "cuMemsetD32", "pykrt_memset_d32", count * 4);
}

pykrt_status pykrt_memset_d8_async(pykrt_context *ctx, pykrt_devptr dst, uint8_t value, size_t count,
                                   pykrt_stream *stream)
{
    pykrt_status st = copy_enter(ctx, &dst, count, stream, "pykrt_memset_d8_async");
    if (st != PYKRT_SUCCESS || count == 0)
        return st;
    return copied(pk_drv.cuMemsetD8Async(dst, value, count, cu_stream(stream)), "cuMemsetD8Async",
                  "pykrt_memset_d8_async", count);
}

/* ---- array descriptors ---- */

/* A descriptor fit to compute with: known dtype, ndim in range, shape not
 * negative, element count times item size within int64. */
static pykrt_status check_array(const pykrt_array *a, const char *what, uint64_t *nbytes)
{
    if (!a)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: array is NULL", what);
    uint64_t n = pk_itemsize(a);
    if (n == 0 && a->dtype == PYKRT_RECORD)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: a PYKRT_RECORD array needs its record's layout (%s)", what,
                       a->record ? "its size is 0" : "record is NULL");
    if (n == 0)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: invalid dtype %d", what, (int)a->dtype);
    if (a->ndim < 0 || a->ndim > PYKRT_MAX_NDIM)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: ndim %d outside 0..%d", what, a->ndim, PYKRT_MAX_NDIM);
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] < 0)
            return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: shape[%d] is negative", what, i);
        if (a->shape[i] && n > (uint64_t)INT64_MAX / (uint64_t)a->shape[i])
            return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: the array is larger than 2^63 bytes", what);
        n *= (uint64_t)a->shape[i];
    }
    if (nbytes)
        *nbytes = n;
    return PYKRT_SUCCESS;
}

/* a * b (a >= 0) and a + b within int64, or false; portable C. */
static bool mul_fits(int64_t a, int64_t b, int64_t *out)
{
    if (a > 0 && (b > 0 ? b > INT64_MAX / a : b < INT64_MIN / a))
        return false;
    *out = a * b;
    return true;
}

static bool add_fits(int64_t a, int64_t b, int64_t *out)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return false;
    *out = a + b;
    return true;
}

const char *pk_extent_problem(const pykrt_array *a)
{
    int64_t lo = 0, hi = (int64_t)pk_itemsize(a), step;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] == 0)
            return NULL; /* no elements: nothing is reached */
    for (int i = 0; i < a->ndim; i++) {
        int64_t *end = a->strides[i] < 0 ? &lo : &hi;
        if (!mul_fits(a->shape[i] - 1, a->strides[i], &step) || !add_fits(*end, step, end))
            return "spans more than 2^63 bytes";
    }
    if ((uint64_t)0 - (uint64_t)lo > a->data)
        return "reaches below address 0";
    if ((uint64_t)hi - 1 > UINT64_MAX - a->data)
        return "reaches past the end of the address space";
    return NULL;
}

bool pk_is_contiguous(const pykrt_array *a, pykrt_layout order)
{
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] == 0)
            return true;
    uint64_t expect = pk_itemsize(a);
    for (int j = 0; j < a->ndim; j++) {
        int i = order == PYKRT_LAYOUT_C ? a->ndim - 1 - j : j;
        if (a->shape[i] == 1)
            continue;
        if (a->strides[i] < 0 || (uint64_t)a->strides[i] != expect)
            return false;
        expect *= (uint64_t)a->shape[i]; /* unsigned: an absurd shape wraps and fails the next check */
    }
    return true;
}

/* A contiguous descriptor of `order`; `what` names the caller. */
static pykrt_status init_array(pykrt_array *out, pykrt_devptr data, pykrt_dtype dtype, const pykrt_record *record,
                               int ndim, const int64_t *shape, pykrt_layout order, const char *what)
{
    if (!out || (!shape && ndim > 0))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", what, out ? "shape" : "out");
    if (order != PYKRT_LAYOUT_C && order != PYKRT_LAYOUT_F)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: order must be PYKRT_LAYOUT_C or _F", what);
    pykrt_array a;
    memset(&a, 0, sizeof a);
    a.data = data;
    a.dtype = dtype;
    a.record = record;
    a.ndim = ndim;
    for (int i = 0; i < ndim && i < PYKRT_MAX_NDIM; i++)
        a.shape[i] = shape[i];
    pykrt_status st = check_array(&a, what, NULL);
    if (st != PYKRT_SUCCESS)
        return st;
    int64_t stride = (int64_t)pk_itemsize(&a);
    for (int j = 0; j < ndim; j++) {
        int i = order == PYKRT_LAYOUT_C ? ndim - 1 - j : j;
        a.strides[i] = stride;
        stride *= a.shape[i] ? a.shape[i] : 1; /* within int64: check_array bounded the product */
    }
    *out = a;
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_array_init(pykrt_array *out, pykrt_devptr data, pykrt_dtype dtype, int ndim, const int64_t *shape,
                              pykrt_layout order)
{
    return init_array(out, data, dtype, NULL, ndim, shape, order, "pykrt_array_init");
}

pykrt_status pykrt_array_init_record(pykrt_array *out, pykrt_devptr data, const pykrt_record *record, int ndim,
                                     const int64_t *shape, pykrt_layout order)
{
    return init_array(out, data, PYKRT_RECORD, record, ndim, shape, order, "pykrt_array_init_record");
}

pykrt_status pykrt_array_1d(pykrt_array *out, pykrt_devptr data, pykrt_dtype dtype, int64_t n)
{
    return pykrt_array_init(out, data, dtype, 1, &n, PYKRT_LAYOUT_C);
}

static pykrt_status alloc_array(pykrt_context *ctx, pykrt_dtype dtype, const pykrt_record *record, int ndim,
                                const int64_t *shape, pykrt_array *out, const char *what)
{
    pykrt_array a;
    uint64_t nbytes = 0;
    pykrt_status st = init_array(&a, 0, dtype, record, ndim, shape, PYKRT_LAYOUT_C, what);
    if (st == PYKRT_SUCCESS && (st = check_array(&a, what, &nbytes)) == PYKRT_SUCCESS && nbytes > SIZE_MAX)
        st = pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: too large for this host", what);
    if (st == PYKRT_SUCCESS)
        st = pykrt_mem_alloc(ctx, (size_t)nbytes, &a.data);
    if (st == PYKRT_SUCCESS)
        *out = a;
    return st;
}

pykrt_status pykrt_array_alloc(pykrt_context *ctx, pykrt_dtype dtype, int ndim, const int64_t *shape,
                               pykrt_array *out)
{
    return alloc_array(ctx, dtype, NULL, ndim, shape, out, "pykrt_array_alloc");
}

pykrt_status pykrt_array_alloc_record(pykrt_context *ctx, const pykrt_record *record, int ndim, const int64_t *shape,
                                      pykrt_array *out)
{
    return alloc_array(ctx, PYKRT_RECORD, record, ndim, shape, out, "pykrt_array_alloc_record");
}

pykrt_status pykrt_array_free(pykrt_context *ctx, pykrt_array *array)
{
    if (!array)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_array_free: array is NULL");
    pykrt_status st = pykrt_mem_free(ctx, array->data);
    if (st == PYKRT_SUCCESS)
        memset(array, 0, sizeof *array);
    return st;
}

pykrt_status pykrt_array_nbytes(const pykrt_array *array, size_t *out)
{
    uint64_t n = 0;
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_array_nbytes: out is NULL");
    pykrt_status st = check_array(array, "pykrt_array_nbytes", &n);
    if (st == PYKRT_SUCCESS && n > SIZE_MAX)
        st = pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_array_nbytes: too large for this host");
    if (st == PYKRT_SUCCESS)
        *out = (size_t)n;
    return st;
}

pykrt_status pykrt_array_is_contiguous(const pykrt_array *array, pykrt_layout order, bool *out)
{
    if (!out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_array_is_contiguous: out is NULL");
    if (order != PYKRT_LAYOUT_C && order != PYKRT_LAYOUT_F)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_array_is_contiguous: order must be C or F");
    pykrt_status st = check_array(array, "pykrt_array_is_contiguous", NULL);
    if (st == PYKRT_SUCCESS)
        *out = pk_is_contiguous(array, order);
    return st;
}

/* A whole-array copy needs one contiguous block of exactly `bytes`. */
static pykrt_status check_copy(const pykrt_array *a, size_t bytes, const char *what)
{
    uint64_t n = 0;
    pykrt_status st = check_array(a, what, &n);
    if (st != PYKRT_SUCCESS)
        return st;
    if (!pk_is_contiguous(a, PYKRT_LAYOUT_C) && !pk_is_contiguous(a, PYKRT_LAYOUT_F))
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: the array is not contiguous", what);
    if (n && !a->data)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: the array's data pointer is 0", what);
    if (n != bytes)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "%s: %zu bytes given, the array has %llu", what, bytes,
                       (unsigned long long)n);
    return PYKRT_SUCCESS;
}

pykrt_status pykrt_array_copy_from_host(pykrt_context *ctx, const pykrt_array *dst, const void *src, size_t bytes)
{
    pykrt_status st = check_copy(dst, bytes, "pykrt_array_copy_from_host");
    return st == PYKRT_SUCCESS ? pykrt_memcpy_htod(ctx, dst->data, src, bytes) : st;
}

pykrt_status pykrt_array_copy_to_host(pykrt_context *ctx, void *dst, size_t bytes, const pykrt_array *src)
{
    pykrt_status st = check_copy(src, bytes, "pykrt_array_copy_to_host");
    return st == PYKRT_SUCCESS ? pykrt_memcpy_dtoh(ctx, dst, src->data, bytes) : st;
}
