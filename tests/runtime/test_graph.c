/*
 * test_graph.c - streams waiting on events, occupancy queries, and CUDA
 * graphs captured from a stream and replayed.
 *
 * The double records a capturing stream's launches instead of running
 * them, and replays them through its launch path at each graph launch, so
 * a captured vadd runs (and is counted) once per replay.
 */
#include "cuda_abi.h"
#include "rt_test.h"

static void test_stream_wait_event(void)
{
    pykrt_stream *s;
    pykrt_event *e;
    void *cu;
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
    ASSERT_OK(pykrt_event_create(t_ctx, &e));
    ASSERT_OK(pykrt_event_record(e, NULL));
    ASSERT_OK(pykrt_stream_wait_event(s, e));
    ASSERT_OK(pykrt_stream_handle(s, &cu));
    ASSERT(fake.waited_event(cu) != NULL);
    ASSERT_OK(pykrt_stream_wait_event(NULL, e));
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_stream_wait_event(s, NULL), "event is NULL");
    fake.fail_next("cuStreamWaitEvent", CUDA_ERROR_INVALID_HANDLE);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_stream_wait_event(s, e),
               "pykrt_stream_wait_event: cuStreamWaitEvent failed: CUDA_ERROR_INVALID_HANDLE");
    ASSERT_OK(pykrt_event_destroy(e));
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_stream_wait_event(s, e), "the event was destroyed");
    ASSERT_OK(pykrt_event_create(t_ctx, &e));
    ASSERT_OK(pykrt_stream_destroy(s));
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_stream_wait_event(s, e), "the stream was destroyed");
    ASSERT_OK(pykrt_event_destroy(e));
}

/* Another library's stream, wrapped: launches go to it, and the wrapper's
 * destruction leaves the stream to its owner. */
static void test_stream_wrap(void)
{
    pykrt_stream *owner, *w;
    void *cu, *back;
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &owner));
    ASSERT_OK(pykrt_stream_handle(owner, &cu));
    ASSERT_OK(pykrt_stream_wrap(t_ctx, cu, &w));
    ASSERT_OK(pykrt_stream_handle(w, &back));
    ASSERT(back == cu);
    pykrt_module *m;
    pykrt_kernel *k;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    ASSERT_OK(pykrt_kernel_get(m, "vadd", &k));
    pykrt_array x;
    int64_t n = 16;
    ASSERT_OK(pykrt_array_alloc(t_ctx, PYKRT_FLOAT32, 1, &n, &x));
    pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&x), pykrt_arg_array(&x)};
    pykrt_launch_config cfg = {{1, 1, 1}, {16, 1, 1}, 0, w};
    ASSERT_OK(pykrt_launch(k, &cfg, args, 3));
    fake_launch last;
    fake.last_launch(&last);
    ASSERT(last.stream == cu);
    fake.fail_next("cuStreamDestroy_v2", CUDA_ERROR_INVALID_HANDLE); /* never called for the wrapper */
    ASSERT_OK(pykrt_stream_destroy(w));
    ASSERT_OK(pykrt_stream_synchronize(owner));
    fake.fail_next("cuStreamDestroy_v2", CUDA_SUCCESS);
    ASSERT_OK(pykrt_stream_destroy(owner));
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_stream_wrap(t_ctx, NULL, &w), "custream is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_stream_wrap(t_ctx, cu, NULL), "out is NULL");
    ASSERT_OK(pykrt_array_free(t_ctx, &x));
    ASSERT_OK(pykrt_module_unload(m));
}

static void test_occupancy(void)
{
    pykrt_module *m;
    pykrt_kernel *k;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    ASSERT_OK(pykrt_kernel_get(m, "vadd", &k));
    int blocks = -1, threads = -1, grid = -1;
    ASSERT_OK(pykrt_kernel_occupancy(k, 256, 0, &blocks));
    ASSERT_EQ(6, blocks); /* the double's 1536 threads per multiprocessor */
    ASSERT_OK(pykrt_kernel_occupancy(k, 32, 0, &blocks));
    ASSERT_EQ(32, blocks); /* at most 32 blocks per multiprocessor */
    ASSERT_OK(pykrt_kernel_occupancy(k, 256, (size_t)1 << 30, &blocks));
    ASSERT_EQ(0, blocks);
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_occupancy(k, 0, 0, &blocks),
               "pykrt_kernel_occupancy(vadd): a block of 0 threads; the kernel takes 1 to");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_occupancy(k, 100000, 0, &blocks), "100000 threads");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_occupancy(k, 256, 0, NULL), "is NULL");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_occupancy(NULL, 256, 0, &blocks), "kernel is NULL");
    fake.fail_next("cuOccupancyMaxActiveBlocksPerMultiprocessor", CUDA_ERROR_UNKNOWN);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_kernel_occupancy(k, 256, 0, &blocks),
               "cuOccupancyMaxActiveBlocksPerMultiprocessor failed: CUDA_ERROR_UNKNOWN");
    ASSERT_OK(pykrt_kernel_block_size(k, 0, &threads, &grid));
    ASSERT(threads > 0 && threads <= 1024 && threads % 32 == 0);
    ASSERT_OK(pykrt_kernel_occupancy(k, threads, 0, &blocks));
    ASSERT_EQ(blocks * 84, grid);
    ASSERT_OK(pykrt_kernel_block_size(k, 0, &threads, NULL));
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_kernel_block_size(k, 0, NULL, NULL), "is NULL");
    ASSERT_OK(pykrt_module_unload(m));
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_kernel_occupancy(k, 256, 0, &blocks), "the kernel was destroyed");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_kernel_block_size(k, 0, &threads, NULL), "the kernel was destroyed");
}

/* A vadd launched into a capture runs only at each replay. */
static void test_graph_replays(void)
{
    pykrt_module *m;
    pykrt_kernel *k;
    pykrt_stream *s;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    ASSERT_OK(pykrt_kernel_get(m, "vadd", &k));
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
    enum { N = 300 };
    float x[N], out[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i;
    int64_t n = N;
    pykrt_array dx, dout;
    ASSERT_OK(pykrt_array_alloc(t_ctx, PYKRT_FLOAT32, 1, &n, &dx));
    ASSERT_OK(pykrt_array_alloc(t_ctx, PYKRT_FLOAT32, 1, &n, &dout));
    ASSERT_OK(pykrt_array_copy_from_host(t_ctx, &dx, x, sizeof x));
    ASSERT_OK(pykrt_memset_d8(t_ctx, dout.data, 0, sizeof out));
    /* out = x + out: each replay adds x once more. */
    pykrt_arg args[3] = {pykrt_arg_array(&dx), pykrt_arg_array(&dout), pykrt_arg_array(&dout)};
    pykrt_launch_config cfg = {{(N + 127) / 128, 1, 1}, {128, 1, 1}, 0, s};
    long before = fake.launch_count(), graphs = fake.live_graphs();
    ASSERT_OK(pykrt_graph_begin(s, PYKRT_CAPTURE_THREAD_LOCAL));
    ASSERT_OK(pykrt_launch(k, &cfg, args, 3));
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_stream_synchronize(s), "the stream is capturing a graph");
    pykrt_graph *g = NULL;
    ASSERT_OK(pykrt_graph_end(s, &g));
    ASSERT_EQ(before, fake.launch_count());
    ASSERT_EQ(graphs + 1, fake.live_graphs());
    ASSERT_ERR(PYKRT_ERROR_IN_USE, pykrt_context_destroy(t_ctx), "1 graph");
    for (int r = 0; r < 3; r++)
        ASSERT_OK(pykrt_graph_launch(g, s));
    ASSERT_OK(pykrt_stream_synchronize(s));
    ASSERT_EQ(before + 3, fake.launch_count());
    ASSERT_OK(pykrt_array_copy_to_host(t_ctx, out, sizeof out, &dout));
    ASSERT_OK(pykrt_graph_destroy(g));
    ASSERT_EQ(graphs, fake.live_graphs());
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_graph_launch(g, s), "the graph was destroyed");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_graph_destroy(g), "the graph was destroyed");
    pykrt_array_free(t_ctx, &dx);
    pykrt_array_free(t_ctx, &dout);
    pykrt_stream_destroy(s);
    pykrt_module_unload(m);
    for (int i = 0; i < N; i++)
        ASSERT(out[i] == 3 * x[i]);
}

static void test_graph_checks(void)
{
    pykrt_stream *s;
    pykrt_graph *g = (pykrt_graph *)&g;
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_graph_begin(NULL, PYKRT_CAPTURE_GLOBAL),
               "the default stream cannot be captured");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_graph_begin(s, (pykrt_capture_mode)7), "unknown capture mode 7");
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_graph_end(s, NULL), "out is NULL");
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_graph_end(s, &g), "cuStreamEndCapture failed: CUDA_ERROR_STREAM_CAPTURE_UNMATCHED");
    ASSERT(g == NULL);
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_graph_launch(NULL, s), "graph is NULL");
    ASSERT_OK(pykrt_graph_destroy(NULL));
    fake.fail_next("cuStreamBeginCapture_v2", CUDA_ERROR_NOT_SUPPORTED);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_graph_begin(s, PYKRT_CAPTURE_GLOBAL), "cuStreamBeginCapture failed");
    /* A failed instantiation leaves no graph behind. */
    long graphs = fake.live_graphs();
    ASSERT_OK(pykrt_graph_begin(s, PYKRT_CAPTURE_GLOBAL));
    fake.fail_next("cuGraphInstantiateWithFlags", CUDA_ERROR_UNKNOWN);
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_graph_end(s, &g), "cuGraphInstantiateWithFlags failed");
    ASSERT(g == NULL);
    ASSERT_EQ(graphs, fake.live_graphs());
    /* An empty capture is a graph that does nothing. */
    ASSERT_OK(pykrt_graph_begin(s, PYKRT_CAPTURE_RELAXED));
    ASSERT_OK(pykrt_graph_end(s, &g));
    ASSERT_OK(pykrt_graph_launch(g, NULL));
    pykrt_stream *dead;
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &dead));
    ASSERT_OK(pykrt_stream_destroy(dead));
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_graph_launch(g, dead), "the stream was destroyed");
    ASSERT_ERR(PYKRT_ERROR_INVALID_HANDLE, pykrt_graph_begin(dead, PYKRT_CAPTURE_GLOBAL), "the stream was destroyed");
    ASSERT_OK(pykrt_graph_destroy(g));
    pykrt_stream_destroy(s);
}

/* A debug=True kernel waits for its stream after each launch: refused
 * while the stream, or (for the default stream) any stream, captures;
 * the capture stays valid. */
static void test_graph_refuses_debug_kernels(void)
{
    pykrt_module *m;
    pykrt_kernel *checked, *unchecked;
    pykrt_stream *s;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("raises.yaml"), &m));
    ASSERT_OK(pykrt_kernel_get(m, "checked", &checked));
    ASSERT_OK(pykrt_kernel_get(m, "unchecked", &unchecked));
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
    pykrt_array a = {.data = 0x1000, .dtype = PYKRT_INT64, .ndim = 1, .shape = {64}, .strides = {8}};
    pykrt_arg args[1] = {pykrt_arg_array(&a)};
    pykrt_launch_config cfg = {{2, 1, 1}, {32, 1, 1}, 0, s}, on_default = {{2, 1, 1}, {32, 1, 1}, 0, NULL};
    ASSERT_OK(pykrt_graph_begin(s, PYKRT_CAPTURE_GLOBAL));
    ASSERT_ERR(PYKRT_ERROR_BAD_LAUNCH, pykrt_launch(checked, &cfg, args, 1),
               "pykrt_launch(checked): the stream is capturing a graph, and a kernel compiled with debug=True");
    ASSERT_ERR(PYKRT_ERROR_BAD_LAUNCH, pykrt_launch_unchecked(checked, &cfg, args, 1), "capturing a graph");
    ASSERT_ERR(PYKRT_ERROR_BAD_LAUNCH, pykrt_launch(checked, &on_default, args, 1), "capturing a graph");
    ASSERT_OK(pykrt_launch(unchecked, &cfg, args, 1));
    pykrt_graph *g;
    ASSERT_OK(pykrt_graph_end(s, &g));
    long before = fake.launch_count();
    ASSERT_OK(pykrt_graph_launch(g, s));
    ASSERT_EQ(before + 1, fake.launch_count());
    ASSERT_OK(pykrt_launch(checked, &cfg, args, 1)); /* after the capture, as before */
    ASSERT_OK(pykrt_graph_destroy(g));
    pykrt_stream_destroy(s);
    pykrt_module_unload(m);
}

const t_case graph_tests[] = {
    T(test_stream_wait_event), T(test_stream_wrap), T(test_occupancy), T(test_graph_replays), T(test_graph_checks),
    T(test_graph_refuses_debug_kernels),
};
const size_t graph_ntests = sizeof graph_tests / sizeof graph_tests[0];
