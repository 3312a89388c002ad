/*
 * test_memory.c - device and pinned memory, copies and memset, streams and
 * events, array descriptors, dtypes, and the xoroshiro128p states (bit-exact
 * with numba-cuda's output in fixtures/xoroshiro128p.txt).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "cuda_abi.h"
#include "rt_test.h"
#include "runtime.h"

static void test_copies(void)
{
    unsigned char in[1024], out[1024];
    for (int i = 0; i < 1024; i++)
        in[i] = (unsigned char)(i * 7);
    pykrt_devptr a, b;
    ASSERT_OK(pykrt_mem_alloc(t_ctx, sizeof in, &a));
    ASSERT_OK(pykrt_mem_alloc(t_ctx, sizeof in, &b));
    ASSERT_OK(pykrt_memcpy_htod(t_ctx, a, in, sizeof in));
    ASSERT_OK(pykrt_memcpy_dtod(t_ctx, b, a, sizeof in));
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, out, b, sizeof out));
    ASSERT(memcmp(in, out, sizeof in) == 0);

    ASSERT_OK(pykrt_memset_d8(t_ctx, a, 0x5a, 16));
    ASSERT_OK(pykrt_memset_d32(t_ctx, a + 16, 0x01020304u, 4));
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, out, a, 32));
    ASSERT_EQ(0x5a, out[15]);
    uint32_t word;
    memcpy(&word, out + 28, 4);
    ASSERT_EQ(0x01020304, word);

    pykrt_stream *s;
    ASSERT_OK(pykrt_stream_create(t_ctx, PYKRT_STREAM_NON_BLOCKING, &s));
    ASSERT_OK(pykrt_memset_d8_async(t_ctx, b, 0, sizeof in, s));
    ASSERT_OK(pykrt_memcpy_htod_async(t_ctx, a, in, 512, s));
    ASSERT_OK(pykrt_memcpy_dtod_async(t_ctx, b, a, 512, NULL));
    ASSERT_OK(pykrt_memcpy_dtoh_async(t_ctx, out, b, sizeof out, s));
    ASSERT_OK(pykrt_stream_synchronize(s));
    ASSERT(memcmp(in, out, 512) == 0);
    ASSERT_EQ(0, out[600]);
    ASSERT_OK(pykrt_stream_destroy(s));
    ASSERT_OK(pykrt_mem_free(t_ctx, a));
    ASSERT_OK(pykrt_mem_free(t_ctx, b));
}

static void test_zero_bytes(void)
{
    pykrt_devptr p = 1;
    ASSERT_OK(pykrt_mem_alloc(t_ctx, 0, &p));
    ASSERT_EQ(0, p);
    ASSERT_OK(pykrt_memcpy_htod(t_ctx, 0, NULL, 0));
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, NULL, 0, 0));
    ASSERT_OK(pykrt_memset_d8(t_ctx, 0, 1, 0));
    ASSERT_OK(pykrt_mem_free(t_ctx, p));
}

static void test_memory_errors(void)
{
    pykrt_devptr p;
    fake.fail_next("cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY);
    ASSERT_ERR(PYKRT_ERROR_OUT_OF_MEMORY, pykrt_mem_alloc(t_ctx, 1 << 20, &p),
               "pykrt_mem_alloc(1048576 bytes): cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory");
    char buf[16] = {0};
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_memcpy_htod(t_ctx, 0x1234, buf, sizeof buf),
               "pykrt_memcpy_htod(16 bytes): cuMemcpyHtoD failed: CUDA_ERROR_INVALID_VALUE: invalid argument");
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_mem_free(t_ctx, 0x1234),
               "pykrt_mem_free: cuMemFree failed: CUDA_ERROR_INVALID_VALUE");
}

static void test_pinned(void)
{
    void *host = NULL;
    pykrt_devptr d;
    ASSERT_OK(pykrt_host_alloc(t_ctx, 4096, &host));
    ASSERT(host != NULL);
    memset(host, 3, 4096);
    ASSERT_OK(pykrt_mem_alloc(t_ctx, 4096, &d));
    ASSERT_OK(pykrt_memcpy_htod_async(t_ctx, d, host, 4096, NULL));
    ASSERT_OK(pykrt_context_synchronize(t_ctx));
    unsigned char back[4096];
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, back, d, sizeof back));
    ASSERT_EQ(3, back[4095]);
    ASSERT_OK(pykrt_mem_free(t_ctx, d));
    ASSERT_OK(pykrt_host_free(t_ctx, host));
}

static void test_stream_of_other_context(void)
{
    pykrt_context *other;
    pykrt_stream *s;
    pykrt_event *e;
    char buf[8] = {0};
    ASSERT_OK(pykrt_context_create(1, &other));
    ASSERT_OK(pykrt_stream_create(other, 0, &s));
    ASSERT_OK(pykrt_event_create(t_ctx, &e));
    pykrt_status copy = pykrt_memcpy_htod_async(t_ctx, 0, buf, sizeof buf, s);
    pykrt_status record = pykrt_event_record(e, s);
    pykrt_event_destroy(e);
    pykrt_stream_destroy(s);
    pykrt_context_destroy(other);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, copy);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, record);
    ASSERT_CONTAINS(pykrt_last_error(), "pykrt_event_record: the stream belongs to another context");
}

static void test_streams(void)
{
    pykrt_stream *s = NULL;
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_stream_create(t_ctx, 2, &s), "unknown flags 0x2");
    ASSERT_OK(pykrt_stream_create(t_ctx, PYKRT_STREAM_DEFAULT, &s));
    void *handle = NULL;
    ASSERT_OK(pykrt_stream_handle(s, &handle));
    ASSERT(handle != NULL);
    ASSERT_OK(pykrt_stream_synchronize(s));
    fake.fail_next("cuStreamSynchronize", CUDA_ERROR_UNKNOWN);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_stream_synchronize(s),
               "pykrt_stream_synchronize: cuStreamSynchronize failed: CUDA_ERROR_UNKNOWN: unknown error");
    ASSERT_OK(pykrt_stream_destroy(s));
}

static void test_events(void)
{
    pykrt_event *start, *end, *never;
    pykrt_stream *s;
    float ms = 0;
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
    ASSERT_OK(pykrt_event_create(t_ctx, &start));
    ASSERT_OK(pykrt_event_create(t_ctx, &end));
    ASSERT_OK(pykrt_event_create(t_ctx, &never));
    ASSERT_OK(pykrt_event_record(start, s));
    ASSERT_OK(pykrt_event_record(end, s));
    ASSERT_OK(pykrt_event_synchronize(end));
    ASSERT_OK(pykrt_event_elapsed(start, end, &ms));
    ASSERT(ms > 0.49f && ms < 0.51f);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_event_elapsed(start, never, &ms),
               "pykrt_event_elapsed: cuEventElapsedTime failed: CUDA_ERROR_INVALID_HANDLE");
    ASSERT_OK(pykrt_event_record(never, NULL));
    ASSERT_OK(pykrt_event_destroy(start));
    ASSERT_OK(pykrt_event_destroy(end));
    ASSERT_OK(pykrt_event_destroy(never));
    ASSERT_OK(pykrt_stream_destroy(s));
}

/* ---- arrays and dtypes ---- */

static void test_array_init(void)
{
    pykrt_array a;
    int64_t shape[3] = {2, 3, 4};
    bool c, f;
    size_t n;
    ASSERT_OK(pykrt_array_init(&a, 0x1000, PYKRT_FLOAT64, 3, shape, PYKRT_LAYOUT_C));
    ASSERT_EQ(96, a.strides[0]);
    ASSERT_EQ(32, a.strides[1]);
    ASSERT_EQ(8, a.strides[2]);
    ASSERT_OK(pykrt_array_nbytes(&a, &n));
    ASSERT_EQ(192, n);
    ASSERT_OK(pykrt_array_is_contiguous(&a, PYKRT_LAYOUT_C, &c));
    ASSERT_OK(pykrt_array_is_contiguous(&a, PYKRT_LAYOUT_F, &f));
    ASSERT(c && !f);
    ASSERT_OK(pykrt_array_init(&a, 0x1000, PYKRT_FLOAT64, 3, shape, PYKRT_LAYOUT_F));
    ASSERT_EQ(8, a.strides[0]);
    ASSERT_EQ(16, a.strides[1]);
    ASSERT_EQ(48, a.strides[2]);
    ASSERT_OK(pykrt_array_is_contiguous(&a, PYKRT_LAYOUT_F, &f));
    ASSERT(f);
    ASSERT_OK(pykrt_array_1d(&a, 0x2000, PYKRT_COMPLEX64, 10));
    ASSERT_EQ(1, a.ndim);
    ASSERT_EQ(10, a.shape[0]);
    ASSERT_EQ(8, a.strides[0]);
}

/* NumPy's rule: length-1 dimensions' strides do not count; empty arrays
 * are contiguous; transposes and slices are not C-contiguous. */
static void test_contiguity_rules(void)
{
    pykrt_array a = {.data = 0, .dtype = PYKRT_FLOAT32, .ndim = 2, .shape = {1, 5}, .strides = {999, 4}};
    ASSERT(pk_is_contiguous(&a, PYKRT_LAYOUT_C) && pk_is_contiguous(&a, PYKRT_LAYOUT_F));
    pykrt_array empty = {.dtype = PYKRT_FLOAT32, .ndim = 2, .shape = {0, 5}, .strides = {7, 3}};
    ASSERT(pk_is_contiguous(&empty, PYKRT_LAYOUT_C) && pk_is_contiguous(&empty, PYKRT_LAYOUT_F));
    pykrt_array t = {.dtype = PYKRT_FLOAT64, .ndim = 2, .shape = {3, 2}, .strides = {8, 24}};
    ASSERT(!pk_is_contiguous(&t, PYKRT_LAYOUT_C) && pk_is_contiguous(&t, PYKRT_LAYOUT_F));
    pykrt_array sliced = {.dtype = PYKRT_FLOAT64, .ndim = 1, .shape = {4}, .strides = {16}};
    ASSERT(!pk_is_contiguous(&sliced, PYKRT_LAYOUT_C) && !pk_is_contiguous(&sliced, PYKRT_LAYOUT_F));
    pykrt_array reversed = {.dtype = PYKRT_INT8, .ndim = 1, .shape = {4}, .strides = {-1}};
    ASSERT(!pk_is_contiguous(&reversed, PYKRT_LAYOUT_C));
}

static void test_array_errors(void)
{
    pykrt_array a;
    int64_t shape[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, neg = -1, huge[2] = {INT64_MAX / 4, 4};
    size_t n;
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_array_init(&a, 0, PYKRT_INT8, 9, shape, PYKRT_LAYOUT_C),
               "ndim 9 outside 0..8");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_array_init(&a, 0, PYKRT_INT8, 1, &neg, PYKRT_LAYOUT_C),
               "shape[0] is negative");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_array_init(&a, 0, PYKRT_DTYPE_INVALID, 1, shape, PYKRT_LAYOUT_C),
               "invalid dtype 0");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_array_init(&a, 0, PYKRT_INT64, 2, huge, PYKRT_LAYOUT_C),
               "larger than 2^63 bytes");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_array_init(&a, 0, PYKRT_INT8, 1, shape, PYKRT_LAYOUT_A),
               "order must be PYKRT_LAYOUT_C or _F");
    pykrt_array zero;
    memset(&zero, 0, sizeof zero);
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_array_nbytes(&zero, &n), "invalid dtype");
    /* Describing memory to be allocated is fine; copying through a null
     * data pointer is not. */
    int64_t four = 4;
    float buf[4] = {0};
    ASSERT_OK(pykrt_array_init(&a, 0, PYKRT_FLOAT32, 1, &four, PYKRT_LAYOUT_C));
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_array_copy_from_host(t_ctx, &a, buf, sizeof buf),
               "pykrt_array_copy_from_host: the array's data pointer is 0");
}

static void test_array_alloc_and_copy(void)
{
    pykrt_array a;
    int64_t shape[2] = {3, 4};
    int32_t in[12], out[12];
    for (int i = 0; i < 12; i++)
        in[i] = i * i;
    ASSERT_OK(pykrt_array_alloc(t_ctx, PYKRT_INT32, 2, shape, &a));
    ASSERT(a.data != 0);
    ASSERT_EQ(16, a.strides[0]);
    ASSERT_OK(pykrt_array_copy_from_host(t_ctx, &a, in, sizeof in));
    ASSERT_OK(pykrt_array_copy_to_host(t_ctx, out, sizeof out, &a));
    ASSERT(memcmp(in, out, sizeof in) == 0);
    pykrt_status size = pykrt_array_copy_to_host(t_ctx, out, 40, &a);
    ASSERT_CONTAINS(pykrt_last_error(), "pykrt_array_copy_to_host: 40 bytes given, the array has 48");
    pykrt_array strided = a;
    strided.strides[1] = 8;
    pykrt_status gaps = pykrt_array_copy_from_host(t_ctx, &strided, in, sizeof in);
    ASSERT_OK(pykrt_array_free(t_ctx, &a));
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, size);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, gaps);
    ASSERT_EQ(0, a.data);
    ASSERT_EQ(PYKRT_DTYPE_INVALID, a.dtype);
}

static void test_dtypes(void)
{
    static const struct {
        pykrt_dtype d;
        const char *name;
        size_t size;
    } want[] = {
        {PYKRT_BOOL, "bool", 1},         {PYKRT_INT8, "int8", 1},           {PYKRT_INT16, "int16", 2},
        {PYKRT_INT32, "int32", 4},       {PYKRT_INT64, "int64", 8},         {PYKRT_UINT8, "uint8", 1},
        {PYKRT_UINT16, "uint16", 2},     {PYKRT_UINT32, "uint32", 4},       {PYKRT_UINT64, "uint64", 8},
        {PYKRT_FLOAT16, "float16", 2},   {PYKRT_FLOAT32, "float32", 4},     {PYKRT_FLOAT64, "float64", 8},
        {PYKRT_COMPLEX64, "complex64", 8}, {PYKRT_COMPLEX128, "complex128", 16},
        {PYKRT_XOROSHIRO128P, "xoroshiro128p", 16}, {PYKRT_RECORD, "record", 0}, {PYKRT_BFLOAT16, "bfloat16", 2},
    };
    ASSERT_EQ(PYKRT_DTYPE_COUNT - 1, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ASSERT_STR(want[i].name, pykrt_dtype_name(want[i].d));
        ASSERT_EQ(want[i].size, pykrt_dtype_size(want[i].d));
        ASSERT_EQ(want[i].d, pk_dtype_from_name(want[i].name));
    }
    ASSERT_STR("invalid", pykrt_dtype_name(PYKRT_DTYPE_COUNT));
    ASSERT_EQ(0, pykrt_dtype_size((pykrt_dtype)-1));
    ASSERT_EQ(PYKRT_DTYPE_INVALID, pk_dtype_from_name("float128"));
}

/* Arrays of records take their element size from their layout; a record
 * array without one is refused; fields are found by name. */
static void test_record_descriptors(void)
{
    static const pykrt_field fields[] = {{.name = "x", .dtype = PYKRT_FLOAT32, .offset = 0},
                                         {.name = "v", .dtype = PYKRT_INT16, .offset = 4, .ndim = 1, .shape = {3}}};
    static const pykrt_record rec = {10, 1, 2, fields};
    pykrt_array a;
    size_t nbytes;
    ASSERT_OK(pykrt_array_init_record(&a, 0x1000, &rec, 2, (int64_t[]){3, 4}, PYKRT_LAYOUT_F));
    ASSERT_EQ(PYKRT_RECORD, a.dtype);
    ASSERT_EQ(10, a.strides[0]);
    ASSERT_EQ(30, a.strides[1]);
    ASSERT_OK(pykrt_array_nbytes(&a, &nbytes));
    ASSERT_EQ(120, nbytes);
    ASSERT_OK(pykrt_array_alloc_record(t_ctx, &rec, 1, (int64_t[]){5}, &a));
    ASSERT_EQ(10, a.strides[0]);
    ASSERT_OK(pykrt_array_free(t_ctx, &a));
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_array_init(&a, 0, PYKRT_RECORD, 1, (int64_t[]){5}, PYKRT_LAYOUT_C),
               "pykrt_array_init: a PYKRT_RECORD array needs its record's layout (record is NULL)");
    const pykrt_field *f;
    ASSERT_OK(pykrt_record_field(&rec, "v", &f));
    ASSERT_EQ(4, f->offset);
    ASSERT_ERR(PYKRT_ERROR_NOT_FOUND, pykrt_record_field(&rec, "w", &f), "the record has no field 'w'");
    ASSERT_OK(pykrt_record_field(pykrt_xoroshiro128p_record(), "s1", &f));
    ASSERT_EQ(8, f->offset);
    ASSERT_EQ(16, pykrt_xoroshiro128p_record()->size);
}

/* ---- random states ---- */

static void test_random_bit_exact(void)
{
    FILE *f = fopen(t_path("xoroshiro128p.txt"), "r");
    ASSERT(f != NULL);
    char line[256];
    int cases = 0, bad = 0;
    pykrt_xoroshiro128p states[64];
    size_t n = 0, next = 0;
    while (fgets(line, sizeof line, f) && !bad) {
        unsigned long long a, b, c;
        if (line[0] == '#')
            continue;
        if (sscanf(line, "case %llu %llu %llu", &a, &b, &c) == 3) {
            n = (size_t)a;
            next = 0;
            cases++;
            bad = n > 64 || pykrt_random_states_host(states, n, b, c) != PYKRT_SUCCESS;
        } else if (sscanf(line, "%llx %llx", &a, &b) == 2) {
            bad = next >= n || states[next].s0 != a || states[next].s1 != b;
            if (bad)
                printf("state %zu of case %d: got %016" PRIx64 " %016" PRIx64 ", numba has %s", next, cases,
                       states[next].s0, states[next].s1, line);
            next++;
        }
    }
    fclose(f);
    ASSERT_EQ(0, bad);
    ASSERT_EQ(7, cases);
}

static void test_random_device(void)
{
    pykrt_array a;
    pykrt_stream *s;
    pykrt_xoroshiro128p host[100], back[100];
    ASSERT_OK(pykrt_random_states_host(host, 100, 1234, 2));
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
    ASSERT_OK(pykrt_random_states_create(t_ctx, 100, 1234, 2, s, &a));
    ASSERT_EQ(PYKRT_XOROSHIRO128P, a.dtype);
    ASSERT_EQ(1, a.ndim);
    ASSERT_EQ(100, a.shape[0]);
    ASSERT_EQ(16, a.strides[0]);
    ASSERT_OK(pykrt_array_copy_to_host(t_ctx, back, sizeof back, &a));
    ASSERT(memcmp(host, back, sizeof host) == 0);
    ASSERT_OK(pykrt_array_free(t_ctx, &a));
    ASSERT_OK(pykrt_random_states_create(t_ctx, 0, 1, 0, NULL, &a));
    ASSERT_EQ(0, a.data);
    ASSERT_OK(pykrt_stream_destroy(s));
    fake.fail_next("cuMemcpyHtoDAsync_v2", CUDA_ERROR_UNKNOWN);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_random_states_create(t_ctx, 4, 1, 0, NULL, &a), "cuMemcpyHtoDAsync failed");
}

const t_case memory_tests[] = {
    T(test_copies),
    T(test_zero_bytes),
    T(test_memory_errors),
    T(test_pinned),
    T(test_stream_of_other_context),
    T(test_streams),
    T(test_events),
    T(test_array_init),
    T(test_record_descriptors),
    T(test_contiguity_rules),
    T(test_array_errors),
    T(test_array_alloc_and_copy),
    T(test_dtypes),
    T(test_random_bit_exact),
    T(test_random_device),
};
const size_t memory_ntests = sizeof memory_tests / sizeof memory_tests[0];
