/*
 * dtype.c - the element types: Numba's names and their sizes, and the
 * layouts of records (structured dtypes).
 *
 * One table, in the order of enum pykrt_dtype, serves the manifest reader
 * (names to dtypes), the launch checks and messages (dtypes to names) and
 * the array helpers (sizes). A record's size is its layout's, so the array
 * helpers ask pk_itemsize, which knows both.
 */
#include <stdio.h>
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
    [PYKRT_RECORD] = {"record", 0},
    [PYKRT_BFLOAT16] = {"bfloat16", 2},
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

/* ---- records ---- */

static const pykrt_field xoroshiro128p_fields[] = {
    {.name = "s0", .dtype = PYKRT_UINT64, .offset = 0},
    {.name = "s1", .dtype = PYKRT_UINT64, .offset = 8},
};
static const pykrt_record xoroshiro128p = {16, 8, 2, xoroshiro128p_fields};

const pykrt_record *pykrt_xoroshiro128p_record(void)
{
    return &xoroshiro128p;
}

pykrt_status pykrt_record_field(const pykrt_record *record, const char *name, const pykrt_field **out)
{
    if (!record || !name || !out)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_record_field: %s is NULL",
                       !record ? "record" : !name ? "name" : "out");
    for (size_t i = 0; i < record->nfields; i++)
        if (strcmp(record->fields[i].name, name) == 0) {
            *out = &record->fields[i];
            return PYKRT_SUCCESS;
        }
    return pk_fail(PYKRT_ERROR_NOT_FOUND, "pykrt_record_field: the record has no field '%s'", name);
}

const pykrt_record *pk_array_record(const pykrt_array *a)
{
    return a->dtype == PYKRT_RECORD ? a->record : a->dtype == PYKRT_XOROSHIRO128P ? &xoroshiro128p : NULL;
}

size_t pk_itemsize(const pykrt_array *a)
{
    if (a->dtype == PYKRT_RECORD)
        return a->record ? a->record->size : 0;
    return pykrt_dtype_size(a->dtype);
}

static bool same_field(const pykrt_field *a, const pykrt_field *b, int depth)
{
    if (strcmp(a->name, b->name) != 0 || a->dtype != b->dtype || a->offset != b->offset || a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim && d < PYKRT_MAX_NDIM; d++)
        if (a->shape[d] != b->shape[d])
            return false;
    return a->dtype != PYKRT_RECORD || (a->record && b->record && pk_record_same(a->record, b->record, depth + 1));
}

/* Alignment only says how the layout came about: it is not compared. */
bool pk_record_same(const pykrt_record *a, const pykrt_record *b, int depth)
{
    if (a == b)
        return true;
    if (depth > PK_RECORD_DEPTH || a->size != b->size || a->nfields != b->nfields)
        return false;
    for (size_t i = 0; i < a->nfields; i++)
        if (!same_field(&a->fields[i], &b->fields[i], depth))
            return false;
    return true;
}

/* "{x: float32 at 0, y: int32 at 4; 8 bytes}", cut to fit out. */
void pk_record_describe(const pykrt_record *r, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "{");
    for (size_t i = 0; i < r->nfields && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s: %s%s at %zu", i ? ", " : "", r->fields[i].name,
                                 pykrt_dtype_name(r->fields[i].dtype), r->fields[i].ndim ? " array" : "",
                                 r->fields[i].offset);
    if (used < size)
        snprintf(out + used, size - used, "; %zu bytes}", r->size);
}
