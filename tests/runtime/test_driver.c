/*
 * test_driver.c - driver loading, devices, contexts, and the error model
 * (status names, per-thread messages, CUDA error text, NULL arguments).
 */
#include <pthread.h>

#include "cuda_abi.h"
#include "rt_test.h"
#include "runtime.h"

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

/* A process on the CUDA driver cannot switch to the host device: its
 * objects hold the driver's handles. */
static void test_host_refused_on_cuda(void)
{
    pykrt_context *ctx = (pykrt_context *)1;
    pykrt_device_info info;
    ASSERT_ERR(PYKRT_ERROR_NOT_SUPPORTED, pykrt_context_create(PYKRT_DEVICE_HOST, &ctx),
               "pykrt_context_create(PYKRT_DEVICE_HOST): this process runs on the CUDA driver already, and a "
               "process runs either on it or on the host device: set PYKRT_DEVICE=host");
    ASSERT(ctx == NULL);
    ASSERT_ERR(PYKRT_ERROR_NOT_SUPPORTED, pykrt_device_query(PYKRT_DEVICE_HOST, &info), "pykrt_device_query");
    ASSERT_OK(pykrt_device_query(0, &info));
    ASSERT(!info.host);
}

static void test_status_names(void)
{
    ASSERT_STR("PYKRT_ERROR_NOT_SUPPORTED", pykrt_status_name(PYKRT_ERROR_NOT_SUPPORTED));
    ASSERT_STR("PYKRT_SUCCESS", pykrt_status_name(PYKRT_SUCCESS));
    ASSERT_STR("PYKRT_ERROR_NO_DRIVER", pykrt_status_name(PYKRT_ERROR_NO_DRIVER));
    ASSERT_STR("PYKRT_ERROR_BAD_LAUNCH", pykrt_status_name(PYKRT_ERROR_BAD_LAUNCH));
    ASSERT_STR("PYKRT_ERROR_INVALID_HANDLE", pykrt_status_name(PYKRT_ERROR_INVALID_HANDLE));
    ASSERT_STR("PYKRT_ERROR_IN_USE", pykrt_status_name(PYKRT_ERROR_IN_USE));
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

/* ---- lifetimes ---- */

/* A context with objects alive is not destroyed: their next use would
 * reach freed memory. The message lists what is alive; the context stays
 * usable until they are gone. */
static void test_context_destroy_in_use(void)
{
    pykrt_context *ctx;
    pykrt_module *m = NULL;
    pykrt_stream *s = NULL;
    pykrt_event *e = NULL, *e2 = NULL;
    pykrt_devptr d = 0;
    void *host = NULL;
    int before = fake.retains(1);
    ASSERT_OK(pykrt_context_create(1, &ctx));
    pykrt_status st = pykrt_module_load(ctx, t_path("vadd.yaml"), &m);
    if (st == PYKRT_SUCCESS)
        st = pykrt_stream_create(ctx, 0, &s);
    if (st == PYKRT_SUCCESS)
        st = pykrt_event_create(ctx, &e);
    if (st == PYKRT_SUCCESS)
        st = pykrt_event_create(ctx, &e2);
    if (st == PYKRT_SUCCESS)
        st = pykrt_mem_alloc(ctx, 256, &d);
    if (st == PYKRT_SUCCESS)
        st = pykrt_host_alloc(ctx, 64, &host);
    ASSERT_OK(st);
    pykrt_status all = pykrt_context_destroy(ctx);
    char all_msg[512];
    snprintf(all_msg, sizeof all_msg, "%s", pykrt_last_error());
    pykrt_kernel *k = NULL;
    pykrt_array x = {.data = d, .dtype = PYKRT_FLOAT32, .ndim = 1, .shape = {64}, .strides = {4}};
    pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&x), pykrt_arg_array(&x)};
    pykrt_launch_config cfg = {{1, 1, 1}, {64, 1, 1}, 0, s};
    pykrt_status still = pykrt_kernel_get(m, "vadd", &k);
    if (still == PYKRT_SUCCESS)
        still = pykrt_launch(k, &cfg, args, 3);
    pykrt_module_unload(m);
    pykrt_stream_destroy(s);
    pykrt_event_destroy(e);
    pykrt_host_free(ctx, host);
    pykrt_status some = pykrt_context_destroy(ctx);
    char some_msg[512];
    snprintf(some_msg, sizeof some_msg, "%s", pykrt_last_error());
    pykrt_event_destroy(e2);
    pykrt_mem_free(ctx, d);
    pykrt_status none = pykrt_context_destroy(ctx);
    ASSERT_EQ(PYKRT_ERROR_IN_USE, all);
    ASSERT_STR("pykrt_context_destroy(1): the context still has 1 module, 1 stream, 2 events, 1 device allocation and "
               "1 pinned host allocation; destroy or free them first",
               all_msg);
    ASSERT_OK(still);
    ASSERT_EQ(PYKRT_ERROR_IN_USE, some);
    ASSERT_STR("pykrt_context_destroy(1): the context still has 1 event and 1 device allocation; destroy or free "
               "them first",
               some_msg);
    ASSERT_OK(none);
    ASSERT_EQ(before, fake.retains(1));
}

/* Every entry point that takes a handle refuses a destroyed one with
 * PYKRT_ERROR_INVALID_HANDLE; none reads freed memory (the SAN=1 build
 * would report it). */
static void test_destroyed_handles(void)
{
    pykrt_context *ctx;
    pykrt_stream *s;
    pykrt_event *e, *live;
    pykrt_module *m;
    pykrt_kernel *k = NULL;
    pykrt_devptr p;
    float ms, f = 0;
    void *handle;
    pykrt_kernel_info ki;
    pykrt_module_info mi;
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
    ASSERT_OK(pykrt_stream_destroy(s));
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_stream_destroy(s),
               "pykrt_stream_destroy: the stream was destroyed, or is not a stream");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_stream_synchronize(s), "pykrt_stream_synchronize: the stream was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_stream_handle(s, &handle), "pykrt_stream_handle: the stream was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_memcpy_htod_async(t_ctx, 0, &f, 4, s), "the stream was destroyed");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_memset_d8_async(t_ctx, 0, 0, 4, s), "the stream was destroyed");

    ASSERT_OK(pykrt_event_create(t_ctx, &e));
    ASSERT_OK(pykrt_event_create(t_ctx, &live));
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_event_record(live, s), "pykrt_event_record: the stream was");
    ASSERT_OK(pykrt_event_destroy(e));
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_event_destroy(e), "pykrt_event_destroy: the event was destroyed");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_event_record(e, NULL), "pykrt_event_record: the event was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_event_synchronize(e), "pykrt_event_synchronize: the event was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_event_elapsed(live, e, &ms), "pykrt_event_elapsed: the event was");
    ASSERT_OK(pykrt_event_destroy(live));

    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    ASSERT_OK(pykrt_kernel_get(m, "vadd", &k));
    ASSERT_OK(pykrt_module_unload(m));
    pykrt_launch_config cfg = {{1, 1, 1}, {1, 1, 1}, 0, NULL};
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_module_unload(m),
               "pykrt_module_unload: the module was destroyed, or is not a module");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_kernel_get(m, "vadd", &k), "pykrt_kernel_get: the module was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_kernel_at(m, 0, &k), "pykrt_kernel_at: the module was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_module_describe(m, &mi), "pykrt_module_describe: the module was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_constant_set(m, "c", &f, 4), "pykrt_constant_set: the module was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_kernel_describe(k, &ki),
               "pykrt_kernel_describe: the kernel was destroyed, or is not a kernel");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_kernel_handle(k, &handle), "pykrt_kernel_handle: the kernel was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_launch(k, &cfg, NULL, 0), "pykrt_launch: the kernel was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_launch_unchecked(k, &cfg, NULL, 0),
               "pykrt_launch_unchecked: the kernel was");

    ASSERT_OK(pykrt_context_create(1, &ctx));
    ASSERT_OK(pykrt_context_destroy(ctx));
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_context_destroy(ctx),
               "pykrt_context_destroy: the context was destroyed, or is not a context");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_mem_alloc(ctx, 4, &p), "pykrt_mem_alloc: the context was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_stream_create(ctx, 0, &s), "pykrt_stream_create: the context was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_module_load(ctx, t_path("vadd.yaml"), &m),
               "pykrt_module_load: the context was");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_context_handle(ctx, &handle), "pykrt_context_handle: the context");
}

/* A launch's stream is checked too, on both paths. */
static void test_destroyed_stream_in_launch(void)
{
    pykrt_module *m;
    pykrt_kernel *k;
    pykrt_stream *s;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("abi.yaml"), &m));
    pykrt_status st = pykrt_kernel_get(m, "noargs", &k);
    if (st == PYKRT_SUCCESS)
        st = pykrt_stream_create(t_ctx, 0, &s);
    if (st == PYKRT_SUCCESS)
        st = pykrt_stream_destroy(s);
    pykrt_launch_config cfg = {{1, 1, 1}, {1, 1, 1}, 0, s};
    pykrt_status checked = st == PYKRT_SUCCESS ? pykrt_launch(k, &cfg, NULL, 0) : st;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    pykrt_status unchecked = st == PYKRT_SUCCESS ? pykrt_launch_unchecked(k, &cfg, NULL, 0) : st;
    pykrt_module_unload(m);
    ASSERT_EQ(PYKRT_ERROR_INVALID_HANDLE, checked);
    ASSERT_STR("pykrt_launch: the stream was destroyed, or is not a stream", msg);
    ASSERT_EQ(PYKRT_ERROR_INVALID_HANDLE, unchecked);
}

/* Destroyed objects' memory is reused after a quarantine, so a loop of
 * creates and destroys holds a bounded number of them. */
static void test_handle_memory_bounded(void)
{
    for (int i = 0; i < 1000; i++) {
        pykrt_stream *s;
        ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
        ASSERT_OK(pykrt_stream_destroy(s));
    }
    ASSERT(pk_pool_count(PK_STREAM) <= 65);
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
    T(test_host_refused_on_cuda),
    T(test_status_names),
    T(test_threads_and_messages),
    T(test_null_arguments),
    T(test_context_destroy_in_use),
    T(test_destroyed_handles),
    T(test_destroyed_stream_in_launch),
    T(test_handle_memory_bounded),
};
const size_t driver_ntests = sizeof driver_tests / sizeof driver_tests[0];
