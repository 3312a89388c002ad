/*
 * test_driver.c - driver loading, devices, contexts, and the error model
 * (status names, per-thread messages, CUDA error text, NULL arguments).
 */
#include <pthread.h>

#include "cuda_abi.h"
#include "rt_test.h"

static void test_init(void)
{
    ASSERT_OK(pykrt_init());
    ASSERT_OK(pykrt_init());
    int version = 0;
    ASSERT_OK(pykrt_driver_version(&version));
    ASSERT_EQ(13000, version);
}

static void test_device_count(void)
{
    int n = 0;
    ASSERT_OK(pykrt_device_count(&n));
    ASSERT_EQ(2, n);
}

static void test_device_query(void)
{
    pykrt_device_info info;
    ASSERT_OK(pykrt_device_query(1, &info));
    ASSERT_EQ(1, info.ordinal);
    ASSERT_STR("Fake CUDA Device 1", info.name);
    ASSERT_EQ(8, info.cc_major);
    ASSERT_EQ(6, info.cc_minor);
    ASSERT_EQ(84, info.sm_count);
    ASSERT_EQ(32, info.warp_size);
    ASSERT_EQ(1024, info.max_threads_per_block);
    ASSERT_EQ(64, info.max_block_dim[2]);
    ASSERT_EQ(2147483647, info.max_grid_dim[0]);
    ASSERT_EQ(65535, info.max_grid_dim[2]);
    ASSERT_EQ(49152, info.max_shared_per_block);
    ASSERT_EQ(101376, info.max_shared_per_block_optin);
    ASSERT_EQ(65536, info.total_constant_memory);
    ASSERT_EQ(8ll << 30, info.total_memory);
    ASSERT_EQ(1536, info.max_threads_per_sm);
    ASSERT(info.cooperative_launch);
}

static void test_device_query_bad_ordinal(void)
{
    pykrt_device_info info;
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_device_query(5, &info),
               "pykrt_device_query(5): no such device; there are 2");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_device_query(-1, &info), "no such device");
    pykrt_context *ctx = NULL;
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_context_create(2, &ctx), "pykrt_context_create(2): no such device");
    ASSERT(ctx == NULL);
}

static void test_context_lifetime(void)
{
    pykrt_context *ctx;
    int before = fake.retains(1);
    ASSERT_OK(pykrt_context_create(1, &ctx));
    ASSERT_EQ(before + 1, fake.retains(1));
    pykrt_device_info info;
    ASSERT_OK(pykrt_context_device(ctx, &info));
    ASSERT_EQ(1, info.ordinal);
    void *handle = NULL;
    ASSERT_OK(pykrt_context_handle(ctx, &handle));
    ASSERT(handle != NULL);
    ASSERT_OK(pykrt_context_synchronize(ctx));
    ASSERT_OK(pykrt_context_destroy(ctx));
    ASSERT_EQ(before, fake.retains(1));
    ASSERT_OK(pykrt_context_destroy(NULL));
}

static void test_context_retain_fails(void)
{
    pykrt_context *ctx = NULL;
    fake.fail_next("cuDevicePrimaryCtxRetain", CUDA_ERROR_OUT_OF_MEMORY);
    ASSERT_ERR(PYKRT_ERROR_OUT_OF_MEMORY, pykrt_context_create(0, &ctx),
               "pykrt_context_create(0): cuDevicePrimaryCtxRetain failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory");
    ASSERT(ctx == NULL);
}

static void test_synchronize_fails(void)
{
    fake.fail_next("cuCtxSynchronize", CUDA_ERROR_UNKNOWN);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_context_synchronize(t_ctx),
               "pykrt_context_synchronize: cuCtxSynchronize failed: CUDA_ERROR_UNKNOWN: unknown error");
}

static void test_unnamed_cuda_error(void)
{
    pykrt_devptr p;
    fake.fail_next("cuMemAlloc_v2", 12345);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_mem_alloc(t_ctx, 16, &p),
               "pykrt_mem_alloc(16 bytes): cuMemAlloc failed: CUDA error 12345");
}

static void test_status_names(void)
{
    ASSERT_STR("PYKRT_SUCCESS", pykrt_status_name(PYKRT_SUCCESS));
    ASSERT_STR("PYKRT_ERROR_NO_DRIVER", pykrt_status_name(PYKRT_ERROR_NO_DRIVER));
    ASSERT_STR("PYKRT_ERROR_BAD_LAUNCH", pykrt_status_name(PYKRT_ERROR_BAD_LAUNCH));
    ASSERT_STR("PYKRT_ERROR_UNKNOWN_STATUS", pykrt_status_name((pykrt_status)99));
}

/* A thread alone in its context: it has none current, so pykrt must bind
 * one (the double refuses memory calls without one), and it starts with
 * an empty message that other threads' errors do not touch. */
static void *other_thread(void *arg)
{
    char *report = arg;
    pykrt_devptr p = 0;
    if (pykrt_last_error()[0] != '\0')
        snprintf(report, 256, "a new thread's message is \"%s\"", pykrt_last_error());
    else if (pykrt_mem_alloc(t_ctx, 64, &p) != PYKRT_SUCCESS || pykrt_mem_free(t_ctx, p) != PYKRT_SUCCESS)
        snprintf(report, 256, "alloc on another thread: %s", pykrt_last_error());
    else if (pykrt_kernel_get(NULL, "x", NULL) != PYKRT_ERROR_INVALID_ARGUMENT)
        snprintf(report, 256, "no error on the thread");
    else if (!strstr(pykrt_last_error(), "pykrt_kernel_get: module is NULL"))
        snprintf(report, 256, "thread's message is \"%s\"", pykrt_last_error());
    return NULL;
}

static void test_threads_and_messages(void)
{
    char report[256] = "";
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_device_query(7, NULL), "pykrt_device_query: out is NULL");
    pthread_t t;
    ASSERT_EQ(0, pthread_create(&t, NULL, other_thread, report));
    ASSERT_EQ(0, pthread_join(t, NULL));
    ASSERT_STR("", report);
    ASSERT_CONTAINS(pykrt_last_error(), "pykrt_device_query: out is NULL");
}

static void test_null_arguments(void)
{
    pykrt_module *m = NULL;
    pykrt_kernel *k = NULL;
    pykrt_stream *s = NULL;
    pykrt_devptr p = 0;
    float ms;
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_context_create(0, NULL), "out is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_device_count(NULL), "count is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_driver_version(NULL), "version is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_mem_alloc(NULL, 4, &p), "pykrt_mem_alloc: context is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_memcpy_htod(t_ctx, p, NULL, 4), "host pointer is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_module_load(t_ctx, NULL, &m), "manifest_path is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_module_load(NULL, t_path("vadd.yaml"), &m), "context is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_module_load_memory(t_ctx, NULL, 0, NULL, 0, &m), "manifest is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_get(NULL, "vadd", &k), "module is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_launch(NULL, NULL, NULL, 0), "kernel is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_launch_unchecked(NULL, NULL, NULL, 0), "kernel is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_stream_create(NULL, 0, &s), "context is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_stream_synchronize(NULL), "stream is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_event_elapsed(NULL, NULL, &ms), "start is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_array_init(NULL, 0, PYKRT_INT8, 1, NULL, PYKRT_LAYOUT_C),
               "out is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_constant_set(NULL, "c", &ms, 4), "module is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_random_states_host(NULL, 3, 1, 0), "states is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_describe(NULL, NULL), "kernel is NULL");
    ASSERT_OK(pykrt_module_unload(NULL));
    ASSERT_OK(pykrt_stream_destroy(NULL));
    ASSERT_OK(pykrt_event_destroy(NULL));
    ASSERT_OK(pykrt_mem_free(t_ctx, 0));
    ASSERT_OK(pykrt_host_free(t_ctx, NULL));
}

const t_case driver_tests[] = {
    T(test_init),
    T(test_device_count),
    T(test_device_query),
    T(test_device_query_bad_ordinal),
    T(test_context_lifetime),
    T(test_context_retain_fails),
    T(test_synchronize_fails),
    T(test_unnamed_cuda_error),
    T(test_status_names),
    T(test_threads_and_messages),
    T(test_null_arguments),
};
const size_t driver_ntests = sizeof driver_tests / sizeof driver_tests[0];
