/*
 * dtype.c - the element types: Numba's names and their sizes.
 *
 * One table, in the order of enum pykrt_dtype, serves the manifest reader
 * (names to dtypes), the launch checks and messages (dtypes to names) and
 * the array helpers (sizes).
 */
#include <string.h>

#include "runtime.h"

static const struct {
    const char *name;
    size_t size;
} dtypes[PYKRT_DTYPE_COUNT] = {
    /* ORDER DTYPE: as enum pykrt_dtype in pykrt.h. */
    [PYKRT_DTYPE_INVALID] = {"invalid", 0},
    [PYKRT_BOOL] = {"bool", 1},
    [PYKRT_INT8] = {"int8", 1},
    [PYKRT_INT16] = {"int16", 2},
    [PYKRT_INT32] = {"int32", 4},
    [PYKRT_INT64] = {"int64", 8},
    [PYKRT_UINT8] = {"uint8", 1},
    [PYKRT_UINT16] = {"uint16", 2},
    [PYKRT_UINT32] = {"uint32", 4},
    [PYKRT_UINT64] = {"uint64", 8},
    [PYKRT_FLOAT16] = {"float16", 2},
    [PYKRT_FLOAT32] = {"float32", 4},
    [PYKRT_FLOAT64] = {"float64", 8},
    [PYKRT_COMPLEX64] = {"complex64", 8},
    [PYKRT_COMPLEX128] = {"complex128", 16},
    [PYKRT_XOROSHIRO128P] = {"xoroshiro128p", 16},
};

size_t pykrt_dtype_size(pykrt_dtype dtype)
{
    return (unsigned)dtype < PYKRT_DTYPE_COUNT ? dtypes[dtype].size : 0;
}

const char *pykrt_dtype_name(pykrt_dtype dtype)
{
    return (unsigned)dtype < PYKRT_DTYPE_COUNT ? dtypes[dtype].name : "invalid";
}

pykrt_dtype pk_dtype_from_name(const char *name)
{
    for (int d = 1; d < PYKRT_DTYPE_COUNT; d++)
        if (strcmp(dtypes[d].name, name) == 0)
            return (pykrt_dtype)d;
    return PYKRT_DTYPE_INVALID;
}
