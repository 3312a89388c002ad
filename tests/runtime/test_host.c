/*
 * test_host.c - the host device, through the public API, with the
 * hand-written module of host_kernels.c standing in for pykc's output.
 *
 * Usage: host_tests MODE MODULES FIXTURES COUNTS, MODULES the directory of
 * hostmod*.so. One process runs on the CUDA driver or on the host device,
 * never both, so run.sh runs this once per way of choosing it:
 *   env        $PYKRT_DEVICE=host: the host is device 0 from the start
 *   fallback   no driver ($PYKRT_LIBCUDA names none) or no device: the
 *              program falls back to PYKRT_DEVICE_HOST
 *   badenv     $PYKRT_DEVICE is neither host nor cuda
 *   badthreads $PYKRT_DEVICE=host with a $PYKRT_HOST_THREADS that is no count
 * The first two then run every test below on the host context. Writes
 * "passed failed" to COUNTS.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "host.h"
#include "rt_test.h"

const char *t_fixtures;
pykrt_context *t_ctx;
fake_hooks fake;

static const char *modules; /* the directory of hostmod*.so */

/* ---- the module and its manifest ---- */

/* An array parameter's three PTX-level parts. */
#define ARRAY_ITEMS(p)                                                                                             \
    "{type: u64, size: 8, align: 8, param: " #p ", part: data}, "                                                 \
    "{type: u64, size: 8, align: 8, param: " #p ", part: \"shape[0]\"}, "                                         \
    "{type: u64, size: 8, align: 8, param: " #p ", part: \"strides[0]\"}"
#define ARRAY_PARTS(p) "[" ARRAY_ITEMS(p) "]"

#define ARRAY_PARAM(name, dtype)                                                                                   \
    "{name: " name ", kind: array, dtype: " dtype ", ndim: 1, layout: C, access: readwrite}"

static const char kernels_yaml[] =
    "kernels:\n"
    "  - {name: ids, entry: ids, params: [" ARRAY_PARAM("out", "int32") "], ptx_params: " ARRAY_PARTS(0) "}\n"
    "  - name: barrier\n"
    "    entry: barrier\n"
    "    params: [" ARRAY_PARAM("out", "int32") ", " ARRAY_PARAM("votes", "int32") "]\n"
    "    ptx_params: [" ARRAY_ITEMS(0) ", " ARRAY_ITEMS(1) "]\n"
    "    shared_dynamic: true\n"
    "  - name: warp\n"
    "    entry: warp\n"
    "    params: [" ARRAY_PARAM("vals", "int64") ", " ARRAY_PARAM("out", "int64") "]\n"
    "    ptx_params: [" ARRAY_ITEMS(0) ", " ARRAY_ITEMS(1) "]\n"
    "  - name: spin\n"
    "    entry: spin\n"
    "    params: [{name: ms, kind: scalar, dtype: int32}]\n"
    "    ptx_params: [{type: u32, size: 4, align: 4, param: 0, part: value}]\n"
    "  - {name: count, entry: count, params: [" ARRAY_PARAM("counter", "int64") "], ptx_params: " ARRAY_PARTS(0)
    "}\n"
    "  - {name: raises, entry: raises, debug: true, params: [" ARRAY_PARAM("a", "int64") "], ptx_params: "
    ARRAY_PARTS(0) "}\n"
    "constants:\n"
    "  - {name: host_errors, dtype: uint32, shape: [1], size: 4}\n"
    "  - {name: coeffs, dtype: float32, shape: [4], size: 16}\n"
    "exceptions:\n"
    "  - {code: 1, type: ValueError, message: negative, function: raises, file: host.pyk, line: 3}\n";

#if defined(__aarch64__)
#define BASE_ARCH "aarch64"
#else
#define BASE_ARCH "x86-64"
#endif

/* MODULES/name, read whole; NULL if it cannot be. */
static char *module_bytes(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", modules, name);
    return t_read(path, len);
}

/* A manifest of `kernels` whose targets are `targets`, each "%s" in them
 * (four at most) standing for the digest of `image`. */
static char *manifest(const char *targets, const void *image, size_t len, const char *kernels)
{
    char digest[32], tbuf[2048];
    snprintf(digest, sizeof digest, "fnv1a64:%016llx", (unsigned long long)pk_fnv1a64(image, len));
    snprintf(tbuf, sizeof tbuf, targets, digest, digest, digest, digest);
    size_t size = strlen(tbuf) + strlen(kernels) + 256;
    char *text = malloc(size);
    if (text)
        snprintf(text, size, "format: 1\ncompiler: host_kernels.c\ntargets:\n%s%s", tbuf, kernels);
    return text;
}

#define ONE_TARGET "  - {arch: " BASE_ARCH ", kind: host, file: hostmod.so, digest: \"%s\"}\n"

/* Loads MODULES/so_name from memory, under a manifest of `targets`. */
static pykrt_status load_as(const char *so_name, const char *targets, const char *kernels, pykrt_module **out)
{
    size_t len = 0;
    char *image = module_bytes(so_name, &len);
    char *text = image ? manifest(targets, image, len, kernels ? kernels : kernels_yaml) : NULL;
    if (!text) {
        free(image);
        return pk_fail(PYKRT_ERROR_IO, "the test cannot read %s/%s", modules, so_name);
    }
    pykrt_image img = {"hostmod.so", image, len};
    pykrt_status st = pykrt_module_load_memory(t_ctx, text, strlen(text), &img, 1, out);
    free(text);
    free(image);
    return st;
}

static pykrt_status load(pykrt_module **out)
{
    return load_as("hostmod.so", ONE_TARGET, NULL, out);
}

/* The module's count of interface faults it saw (host_kernels.c HE_*). */
static uint32_t module_errors(pykrt_module *m)
{
    uint32_t e = 0xdead;
    pykrt_constant_get(m, "host_errors", &e, sizeof e);
    return e;
}

/* A device array of n elements of `dtype`, from `host` if not NULL. */
static pykrt_status device_array(pykrt_dtype dtype, int64_t n, const void *host, pykrt_array *a)
{
    pykrt_status st = pykrt_array_alloc(t_ctx, dtype, 1, &n, a);
    size_t bytes = (size_t)n * pykrt_dtype_size(dtype);
    if (st == PYKRT_SUCCESS && host)
        st = pykrt_memcpy_htod(t_ctx, a->data, host, bytes);
    else if (st == PYKRT_SUCCESS)
        st = pykrt_memset_d8(t_ctx, a->data, 0, bytes);
    return st;
}

/* Launches kernel `name` of m with one or two arrays. */
static pykrt_status launch2(pykrt_module *m, const char *name, pykrt_launch_config cfg, pykrt_array *a,
                            pykrt_array *b)
{
    pykrt_kernel *k;
    pykrt_status st = pykrt_kernel_get(m, name, &k);
    pykrt_arg args[2] = {pykrt_arg_array(a), b ? pykrt_arg_array(b) : pykrt_arg_int32(0)};
    return st == PYKRT_SUCCESS ? pykrt_launch(k, &cfg, args, b ? 2 : 1) : st;
}

/* ---- the device ---- */

static void test_device(void)
{
    pykrt_device_info info;
    int n = -1, version = -1;
    ASSERT_OK(pykrt_device_count(&n));
    ASSERT_EQ(1, n);
    ASSERT_OK(pykrt_driver_version(&version));
    ASSERT_EQ(0, version);
    ASSERT_OK(pykrt_context_device(t_ctx, &info));
    ASSERT(info.host);
    ASSERT(strncmp(info.name, "host CPU (", 10) == 0);
    ASSERT_EQ(0, info.cc_major);
    ASSERT_EQ(32, info.warp_size);
    ASSERT_EQ(1024, info.max_threads_per_block);
    ASSERT_EQ(64, info.max_block_dim[2]);
    ASSERT_EQ(0x7fffffff, info.max_grid_dim[0]);
    ASSERT_EQ(48 << 10, info.max_shared_per_block);
    ASSERT_EQ(227 << 10, info.max_shared_per_block_optin);
    ASSERT(info.cooperative_launch);
    ASSERT(info.total_memory > 0);
    const char *threads = getenv("PYKRT_HOST_THREADS");
    ASSERT_EQ(threads ? atoi(threads) : pk_host_workers(), info.sm_count);
    ASSERT(info.sm_count >= 1);
    pykrt_device_info again;
    ASSERT_OK(pykrt_device_query(PYKRT_DEVICE_HOST, &again));
    ASSERT_STR(info.name, again.name);
    ASSERT_OK(pykrt_device_query(0, &again));
    ASSERT(again.host);
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_device_query(1, &again), "no such device; there are 1");
}

/* ---- memory ---- */

static void test_memory(void)
{
    pykrt_devptr a = 0, b = 0;
    ASSERT_OK(pykrt_mem_alloc(t_ctx, 1000, &a));
    ASSERT_OK(pykrt_mem_alloc(t_ctx, 1000, &b));
    ASSERT(a != 0 && a % 256 == 0 && b % 256 == 0);
    uint32_t in[250], out[250];
    for (int i = 0; i < 250; i++)
        in[i] = (uint32_t)i * 7u;
    ASSERT_OK(pykrt_memcpy_htod(t_ctx, a, in, sizeof in));
    ASSERT_OK(pykrt_memcpy_dtod(t_ctx, b, a, sizeof in));
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, out, b, sizeof out));
    ASSERT(memcmp(in, out, sizeof in) == 0);
    ASSERT_OK(pykrt_memset_d32(t_ctx, a, 0xabcdef01u, 250));
    ASSERT_OK(pykrt_memset_d8(t_ctx, a, 0x11, 4));
    ASSERT_OK(pykrt_memcpy_dtoh_async(t_ctx, out, a, sizeof out, NULL));
    ASSERT_EQ(0x11111111u, out[0]);
    ASSERT_EQ(0xabcdef01u, out[249]);
    void *pinned = NULL;
    ASSERT_OK(pykrt_host_alloc(t_ctx, 64, &pinned));
    ASSERT_OK(pykrt_memset_d8_async(t_ctx, b, 0x5a, 64, NULL));
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, pinned, b, 64));
    ASSERT_EQ(0x5a, ((unsigned char *)pinned)[63]);
    ASSERT_OK(pykrt_host_free(t_ctx, pinned));
    ASSERT_OK(pykrt_mem_free(t_ctx, a));
    ASSERT_OK(pykrt_mem_free(t_ctx, b));
}

/* ---- launches ---- */

static void test_module_describe(void)
{
    pykrt_module *m;
    ASSERT_OK(load(&m));
    pykrt_module_info info;
    ASSERT_OK(pykrt_module_describe(m, &info));
    ASSERT_STR(BASE_ARCH, info.arch);
    ASSERT_STR("hostmod.so", info.file);
    ASSERT(!info.cubin);
    ASSERT_EQ(6, info.nkernels);
    pykrt_kernel *k;
    pykrt_kernel_info ki;
    ASSERT_OK(pykrt_kernel_get(m, "barrier", &k));
    ASSERT_OK(pykrt_kernel_describe(k, &ki));
    ASSERT_EQ(1024, ki.max_threads);
    ASSERT_EQ(0, ki.shared_static);
    ASSERT_OK(pykrt_module_unload(m));
}

/* Each thread of a 3x2x2 grid of 4x3x2 blocks writes its indices. */
static void test_ids(void)
{
    enum { GX = 3, GY = 2, GZ = 2, BX = 4, BY = 3, BZ = 2, N = GX * GY * GZ * BX * BY * BZ };
    pykrt_module *m;
    ASSERT_OK(load(&m));
    pykrt_array out;
    ASSERT_OK(device_array(PYKRT_INT32, N * 8, NULL, &out));
    pykrt_launch_config cfg = {{GX, GY, GZ}, {BX, BY, BZ}, 0, NULL};
    ASSERT_OK(launch2(m, "ids", cfg, &out, NULL));
    static int32_t got[N * 8];
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, got, out.data, sizeof got));
    for (int g = 0; g < N; g++) {
        int block = g / (BX * BY * BZ), t = g % (BX * BY * BZ);
        int want[8] = {t % BX, t / BX % BY, t / (BX * BY), block % GX, block / GX % GY, block / (GX * GY),
                       BX * BY * BZ, GX * GY * GZ};
        for (int i = 0; i < 8; i++)
            ASSERT_EQ(want[i], got[g * 8 + i]);
    }
    ASSERT_EQ(0, module_errors(m));
    ASSERT_OK(pykrt_array_free(t_ctx, &out));
    ASSERT_OK(pykrt_module_unload(m));
}

/* Barriers order a block's shared memory writes before its reads, count
 * the votes cast at them, and do not wait for threads that finished. */
static void check_barrier(int blocks, int threads)
{
    pykrt_module *m;
    ASSERT_OK(load(&m));
    pykrt_array out, votes;
    int total = blocks * threads, n = threads - 2;
    ASSERT_OK(device_array(PYKRT_INT32, total, NULL, &out));
    ASSERT_OK(device_array(PYKRT_INT32, blocks * 6, NULL, &votes));
    pykrt_launch_config cfg = {{(uint32_t)blocks, 1, 1}, {(uint32_t)threads, 1, 1}, (uint32_t)threads * 4, NULL};
    ASSERT_OK(launch2(m, "barrier", cfg, &out, &votes));
    int32_t *got = malloc((size_t)total * 4), v[6 * 64];
    ASSERT(got && blocks <= 64);
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, got, out.data, (size_t)total * 4));
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, v, votes.data, (size_t)blocks * 24));
    int thirds = (n + 2) / 3;
    for (int b = 0; b < blocks; b++) {
        for (int i = 0; i < n; i++)
            ASSERT_EQ((i + 1) % n * 10 + b, got[b * threads + i]);
        int want[6] = {thirds, n == 1, 1, n, 1, 1};
        for (int i = 0; i < 6; i++)
            ASSERT_EQ(want[i], v[b * 6 + i]);
    }
    free(got);
    ASSERT_EQ(0, module_errors(m));
    ASSERT_OK(pykrt_array_free(t_ctx, &out));
    ASSERT_OK(pykrt_array_free(t_ctx, &votes));
    ASSERT_OK(pykrt_module_unload(m));
}

static void test_barrier(void)
{
    check_barrier(5, 70);
}

static void test_barrier_full_block(void)
{
    check_barrier(3, 1024);
}

/* What host_kernels.c's warp kernel should write for thread g, from the
 * values of its warp (-1: a lane that finished at once). */
static void warp_expect(const int64_t *vals, int lanes, int lane, int64_t want[7])
{
    uint32_t live = 0, set = 0, same = 0, first_same = 0;
    int first = -1;
    for (int i = 0; i < lanes; i++)
        if (vals[i] != -1) {
            live |= 1u << i;
            first = first < 0 ? i : first;
        }
    for (int i = 0; i < lanes; i++) {
        if (!(live >> i & 1))
            continue;
        set |= (uint32_t)(vals[i] != 0) << i;
        same |= (uint32_t)(vals[i] == vals[lane]) << i;
        first_same |= (uint32_t)(vals[i] == vals[first]) << i;
    }
    want[0] = set == live, want[1] = set != 0, want[2] = set == 0 || set == live;
    want[3] = set, want[4] = same, want[5] = first_same == live ? live : 0;
    want[6] = (lane ^ 1) < lanes && vals[lane ^ 1] != -1 ? vals[lane ^ 1] : 0;
}

/* A warp exchange and every vote, over two blocks of 40 threads: a full
 * warp and one of 8 lanes, some lanes finished before the exchange. */
static void test_warp(void)
{
    enum { B = 2, T = 40, N = B * T };
    int64_t vals[N];
    for (int i = 0; i < N; i++)
        vals[i] = i % 7 == 3 ? -1 : i % 5 == 0 ? 0 : i % 4;
    for (int i = T + 32; i < N; i++) /* the second block's short warp: all equal, nonzero */
        vals[i] = 9;
    pykrt_module *m;
    ASSERT_OK(load(&m));
    pykrt_array dv, dout;
    ASSERT_OK(device_array(PYKRT_INT64, N, vals, &dv));
    ASSERT_OK(device_array(PYKRT_INT64, N * 7, NULL, &dout));
    ASSERT_OK(launch2(m, "warp", (pykrt_launch_config){{B, 1, 1}, {T, 1, 1}, 0, NULL}, &dv, &dout));
    static int64_t got[N * 7];
    ASSERT_OK(pykrt_memcpy_dtoh(t_ctx, got, dout.data, sizeof got));
    for (int g = 0; g < N; g++) {
        if (vals[g] == -1)
            continue;
        int t = g % T, warp0 = g - t + t / 32 * 32, lanes = T - t / 32 * 32 < 32 ? T - t / 32 * 32 : 32;
        int64_t want[7];
        warp_expect(vals + warp0, lanes, t % 32, want);
        for (int i = 0; i < 7; i++)
            ASSERT_EQ(want[i], got[g * 7 + i]);
    }
    ASSERT_EQ(0, module_errors(m));
    ASSERT_OK(pykrt_array_free(t_ctx, &dv));
    ASSERT_OK(pykrt_array_free(t_ctx, &dout));
    ASSERT_OK(pykrt_module_unload(m));
}

/* Many blocks over the workers, all adding to one counter. */
static pykrt_status count_launch(pykrt_module *m, uint32_t blocks, uint32_t threads, int64_t *total)
{
    pykrt_array c;
    int64_t zero = 0;
    pykrt_status st = device_array(PYKRT_INT64, 1, &zero, &c);
    if (st == PYKRT_SUCCESS)
        st = launch2(m, "count", (pykrt_launch_config){{blocks, 1, 1}, {threads, 1, 1}, 0, NULL}, &c, NULL);
    if (st == PYKRT_SUCCESS)
        st = pykrt_memcpy_dtoh(t_ctx, total, c.data, sizeof *total);
    pykrt_array_free(t_ctx, &c);
    return st;
}

static void test_many_blocks(void)
{
    pykrt_module *m;
    int64_t total = 0;
    ASSERT_OK(load(&m));
    ASSERT_OK(count_launch(m, 2000, 64, &total));
    ASSERT_EQ(2000 * 64, total);
    ASSERT_OK(count_launch(m, 1, 1, &total));
    ASSERT_EQ(1, total);
    ASSERT_OK(pykrt_module_unload(m));
}

typedef struct launcher {
    pykrt_module *m;
    int64_t total;
    pykrt_status st;
} launcher;

static void *launch_from_thread(void *arg)
{
    launcher *l = arg;
    for (int i = 0; i < 20 && l->st == PYKRT_SUCCESS; i++) {
        int64_t total = 0;
        l->st = count_launch(l->m, 97, 33, &total);
        l->total += total;
    }
    return NULL;
}

/* Launches from several threads at once share the pool. */
static void test_threads_launch(void)
{
    enum { N = 4 };
    pykrt_module *m;
    ASSERT_OK(load(&m));
    pthread_t t[N];
    launcher l[N];
    for (int i = 0; i < N; i++) {
        l[i] = (launcher){m, 0, PYKRT_SUCCESS};
        ASSERT(pthread_create(&t[i], NULL, launch_from_thread, &l[i]) == 0);
    }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < N; i++) {
        ASSERT_EQ(PYKRT_SUCCESS, l[i].st);
        ASSERT_EQ(20 * 97 * 33, l[i].total);
    }
    ASSERT_OK(pykrt_module_unload(m));
}

/* Events time a launch; streams take launches and copies. */
static void test_events_and_streams(void)
{
    pykrt_module *m;
    pykrt_kernel *spin;
    pykrt_stream *s;
    pykrt_event *e0, *e1;
    ASSERT_OK(load(&m));
    ASSERT_OK(pykrt_kernel_get(m, "spin", &spin));
    ASSERT_OK(pykrt_stream_create(t_ctx, PYKRT_STREAM_NON_BLOCKING, &s));
    ASSERT_OK(pykrt_event_create(t_ctx, &e0));
    ASSERT_OK(pykrt_event_create(t_ctx, &e1));
    float ms = -1;
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_event_elapsed(e0, e1, &ms), "CUDA_ERROR_INVALID_HANDLE");
    pykrt_arg arg = pykrt_arg_int32(30);
    ASSERT_OK(pykrt_event_record(e0, s));
    ASSERT_OK(pykrt_launch(spin, &(pykrt_launch_config){{4, 1, 1}, {8, 1, 1}, 0, s}, &arg, 1));
    ASSERT_OK(pykrt_event_record(e1, s));
    ASSERT_OK(pykrt_stream_wait_event(NULL, e1));
    ASSERT_OK(pykrt_event_synchronize(e1));
    ASSERT_OK(pykrt_stream_synchronize(s));
    ASSERT_OK(pykrt_context_synchronize(t_ctx));
    ASSERT_OK(pykrt_event_elapsed(e0, e1, &ms));
    ASSERT(ms >= 29.0f && ms < 60000.0f);
    ASSERT_OK(pykrt_event_destroy(e0));
    ASSERT_OK(pykrt_event_destroy(e1));
    ASSERT_OK(pykrt_stream_destroy(s));
    ASSERT_OK(pykrt_module_unload(m));
}

/* Constants are the module's globals, sized from its symbol table. */
static void test_constants(void)
{
    pykrt_module *m;
    ASSERT_OK(load(&m));
    float c[4] = {0}, five[4] = {5, 6, 7, 8};
    ASSERT_OK(pykrt_constant_get(m, "coeffs", c, sizeof c));
    ASSERT(c[0] == 1 && c[3] == 4);
    ASSERT_OK(pykrt_constant_set(m, "coeffs", five, sizeof five));
    ASSERT_OK(pykrt_constant_get(m, "coeffs", c, sizeof c));
    ASSERT(c[0] == 5 && c[3] == 8);
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_constant_get(m, "coeffs", c, 8), "the symbol has 16");
    /* Each load is its own copy of the module's globals. */
    pykrt_module *other;
    ASSERT_OK(load(&other));
    ASSERT_OK(pykrt_constant_get(other, "coeffs", c, sizeof c));
    ASSERT(c[0] == 1);
    ASSERT_OK(pykrt_module_unload(other));
    ASSERT_OK(pykrt_module_unload(m));
}

/* A debug=True kernel's exception record works as on a GPU: cleared
 * before the launch, read after it. */
static void test_exception(void)
{
    pykrt_module *m;
    ASSERT_OK(load(&m));
    int64_t a[16] = {0};
    pykrt_array da;
    ASSERT_OK(device_array(PYKRT_INT64, 16, a, &da));
    pykrt_launch_config cfg = {{2, 1, 1}, {8, 1, 1}, 0, NULL};
    ASSERT_OK(launch2(m, "raises", cfg, &da, NULL));
    a[10] = -1;
    ASSERT_OK(pykrt_memcpy_htod(t_ctx, da.data, a, sizeof a));
    ASSERT_ERR(PYKRT_ERROR_KERNEL_EXCEPTION, launch2(m, "raises", cfg, &da, NULL),
               "pykrt_launch(raises): ValueError: In function 'raises', file host.pyk, line 3, tid=[0, 0, 2] "
               "ctaid=[0, 0, 1]: negative");
    a[10] = 0;
    ASSERT_OK(pykrt_memcpy_htod(t_ctx, da.data, a, sizeof a));
    ASSERT_OK(launch2(m, "raises", cfg, &da, NULL));
    ASSERT_OK(pykrt_array_free(t_ctx, &da));
    ASSERT_OK(pykrt_module_unload(m));
}

static void test_occupancy(void)
{
    pykrt_module *m;
    pykrt_kernel *k;
    ASSERT_OK(load(&m));
    ASSERT_OK(pykrt_kernel_get(m, "ids", &k));
    int blocks = -1, size = -1, grid = -1;
    ASSERT_OK(pykrt_kernel_occupancy(k, 256, 0, &blocks));
    ASSERT_EQ(1, blocks);
    ASSERT_OK(pykrt_kernel_occupancy(k, 256, 100 << 10, &blocks));
    ASSERT_EQ(0, blocks);
    ASSERT_OK(pykrt_kernel_block_size(k, 0, &size, &grid));
    ASSERT_EQ(1024, size);
    ASSERT_EQ(pk_host_workers(), grid);
    ASSERT_OK(pykrt_module_unload(m));
}

/* More dynamic shared memory than the default raises the kernel's limit,
 * up to the device's. */
static void test_large_shared(void)
{
    pykrt_module *m;
    ASSERT_OK(load(&m));
    pykrt_array out, votes;
    ASSERT_OK(device_array(PYKRT_INT32, 64, NULL, &out));
    ASSERT_OK(device_array(PYKRT_INT32, 6, NULL, &votes));
    ASSERT_OK(launch2(m, "barrier", (pykrt_launch_config){{1, 1, 1}, {64, 1, 1}, 200 << 10, NULL}, &out, &votes));
    ASSERT_ERR(PYKRT_ERROR_BAD_LAUNCH,
               launch2(m, "barrier", (pykrt_launch_config){{1, 1, 1}, {64, 1, 1}, 228 << 10, NULL}, &out, &votes),
               "exceed the device's limit of 232448");
    ASSERT_ERR(PYKRT_ERROR_BAD_LAUNCH,
               launch2(m, "ids", (pykrt_launch_config){{1, 1, 1}, {1024, 2, 1}, 0, NULL}, &out, NULL),
               "a block of 2048 threads");
    ASSERT_OK(pykrt_array_free(t_ctx, &out));
    ASSERT_OK(pykrt_array_free(t_ctx, &votes));
    ASSERT_OK(pykrt_module_unload(m));
}

/* The module loads from files too, found beside its manifest. */
static void test_load_file(void)
{
    char dir[64], path[256];
    size_t len = 0;
    char *image = module_bytes("hostmod.so", &len);
    char *text = image ? manifest(ONE_TARGET, image, len, kernels_yaml) : NULL;
    ASSERT(text && t_mkdtemp(dir) == 0);
    ASSERT(t_write(dir, "hostmod.so", image, len) == 0 && t_write(dir, "k.yaml", text, strlen(text)) == 0);
    free(image);
    free(text);
    pykrt_module *m;
    pykrt_status st = pykrt_module_load(t_ctx, t_join(path, sizeof path, dir, "k.yaml"), &m);
    t_rmdir(dir);
    ASSERT_OK(st);
    int64_t total = 0;
    ASSERT_OK(count_launch(m, 3, 5, &total));
    ASSERT_EQ(15, total);
    ASSERT_OK(pykrt_module_unload(m));
}

/* ---- choosing a target ---- */

/* The host device takes the CPU's highest level of its host targets, and
 * neither a GPU's target nor a CPU it does not know. */
static void test_target_choice(void)
{
    pykrt_module *m;
#if defined(__x86_64__)
    static const char targets[] = "  - {arch: sm_75, kind: ptx, file: k.ptx, digest: \"%s\"}\n"
                                  "  - {arch: x86-64, kind: host, file: hostmod.so, digest: \"%s\"}\n"
                                  "  - {arch: x86-64-v2, kind: host, file: hostmod.so, digest: \"%s\"}\n"
                                  "  - {arch: riscv64, kind: host, file: hostmod.so, digest: \"%s\"}\n";
    pykrt_module_info info;
    ASSERT_OK(load_as("hostmod.so", targets, NULL, &m));
    ASSERT_OK(pykrt_module_describe(m, &info));
    ASSERT_STR(__builtin_cpu_supports("sse4.2") ? "x86-64-v2" : "x86-64", info.arch);
    ASSERT_OK(pykrt_module_unload(m));
#endif
    ASSERT_ERR(PYKRT_ERROR_NO_TARGET,
               load_as("hostmod.so", "  - {arch: riscv64, kind: host, file: hostmod.so, digest: \"%s\"}\n", NULL,
                       &m),
               "no target among the images given runs on the host CPU (");
    ASSERT_CONTAINS(pykrt_last_error(), "; the manifest has riscv64 (host)");
    pykrt_module *vadd;
    ASSERT_ERR(PYKRT_ERROR_NO_TARGET, pykrt_module_load(t_ctx, t_path("vadd.yaml"), &vadd),
               "the manifest has sm_75 (ptx): compile it with pykc --target host to run on the CPU");
}

/* ---- what the host device refuses ---- */

static void test_bad_images(void)
{
    pykrt_module *m;
    ASSERT_ERR(PYKRT_ERROR_MODULE_LOAD, load_as("garbage.so", ONE_TARGET, NULL, &m),
               "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_IMAGE");
    ASSERT_CONTAINS(pykrt_last_error(), "\nnot an ELF shared object (pykc --target host writes one");
    ASSERT_ERR(PYKRT_ERROR_MODULE_LOAD, load_as("truncated.so", ONE_TARGET, NULL, &m), "\ndlopen: ");
    ASSERT_ERR(PYKRT_ERROR_MODULE_LOAD, load_as("hostmod_abi2.so", ONE_TARGET, NULL, &m),
               "\nthe module speaks host interface version 2, this libpykrt version 1: compile it with the pykc "
               "that goes with this libpykrt");
    ASSERT_ERR(PYKRT_ERROR_MODULE_LOAD, load_as("hostmod_noresume.so", ONE_TARGET, NULL, &m),
               "\nthe module lacks pykrt_host_resume");
    ASSERT_ERR(PYKRT_ERROR_MODULE_LOAD, load_as("hostmod_noabi.so", ONE_TARGET, NULL, &m),
               "\nthe shared object has no pykrt_host_abi: it is not a module of pykc --target host");
    ASSERT(m == NULL);
}

static void test_missing_entry(void)
{
    static const char kernels[] = "kernels:\n  - {name: gone, entry: nope, params: [], ptx_params: []}\n";
    pykrt_module *m;
    ASSERT_ERR(PYKRT_ERROR_CUDA, load_as("hostmod.so", ONE_TARGET, kernels, &m),
               "pykrt_module_load((embedded manifest)): kernel gone, entry nope: cuModuleGetFunction failed: "
               "CUDA_ERROR_NOT_FOUND");
    char text[sizeof kernels_yaml + 256];
    snprintf(text, sizeof text, "format: 1\ntargets:\n  - {arch: " BASE_ARCH ", kind: host, file: hostmod.so, "
                                "digest: \"fnv1a64:0000000000000000\"}\n%s", kernels_yaml);
    size_t len = 0;
    char *image = module_bytes("hostmod.so", &len);
    pykrt_image img = {"hostmod.so", image, len};
    pykrt_status st = pykrt_module_load_memory(t_ctx, text, strlen(text), &img, 1, &m);
    free(image);
    ASSERT_ERR(PYKRT_ERROR_STALE, st, "hostmod.so does not match (embedded manifest): recompile");
}

static void test_not_supported(void)
{
    pykrt_stream *s;
    ASSERT_OK(pykrt_stream_create(t_ctx, 0, &s));
    ASSERT_ERR(PYKRT_ERROR_NOT_SUPPORTED, pykrt_graph_begin(s, PYKRT_CAPTURE_GLOBAL),
               "pykrt_graph_begin: the host device has no graphs");
    ASSERT_OK(pykrt_stream_destroy(s));
    static const char coop[] = "kernels:\n  - {name: ids, entry: ids, cooperative: true, params: ["
                               ARRAY_PARAM("out", "int32") "], ptx_params: " ARRAY_PARTS(0) "}\n";
    pykrt_module *m;
    pykrt_kernel *k;
    ASSERT_OK(load_as("hostmod.so", ONE_TARGET, coop, &m));
    ASSERT_OK(pykrt_kernel_get(m, "ids", &k));
    pykrt_array out;
    ASSERT_OK(device_array(PYKRT_INT32, 8 * 8, NULL, &out));
    pykrt_arg arg = pykrt_arg_array(&out);
    /* a cooperative launch runs, each block on a thread of its own, up to
     * 1024 blocks at once: 2 blocks of 4 threads, 8 values a thread */
    pykrt_launch_config cfg = {{2, 1, 1}, {4, 1, 1}, 0, NULL};
    ASSERT_OK(pykrt_launch(k, &cfg, &arg, 1));
    const int32_t *ids_out = (const int32_t *)(uintptr_t)out.data;
    ASSERT_EQ(1, ids_out[7 * 8 + 3]); /* thread 7 is in block 1 */
    ASSERT_EQ(2, ids_out[7 * 8 + 7]);
    pykrt_launch_config huge = {{1025, 1, 1}, {1, 1, 1}, 0, NULL};
    ASSERT_ERR(PYKRT_ERROR_CUDA, pykrt_launch_unchecked(k, &huge, &arg, 1),
               "cuLaunchCooperativeKernel failed: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE");
    ASSERT_OK(pykrt_array_free(t_ctx, &out));
    ASSERT_OK(pykrt_module_unload(m));
    char linked[sizeof kernels_yaml + 128];
    snprintf(linked, sizeof linked, "link:\n  - {file: dev.ptx, kind: ptx, digest: \"fnv1a64:0000000000000000\"}\n%s",
             kernels_yaml);
    ASSERT_ERR(PYKRT_ERROR_NOT_SUPPORTED, load_as("hostmod.so", ONE_TARGET, linked, &m),
               "the module links other code (link, device_runtime), which the host device cannot");
}

/* ---- the vote function itself ---- */

static void test_warp_vote(void)
{
    int64_t s[32] = {0};
    for (int i = 0; i < 32; i++)
        s[i] = i < 16 ? 5 : 0;
    ASSERT_EQ(0x0000ffffu, pk_host_warp_vote(PYKRT_HOST_VOTE_BALLOT, s, 0, ~0u, ~0u));
    ASSERT_EQ(0x000000f0u, pk_host_warp_vote(PYKRT_HOST_VOTE_BALLOT, s, 0, 0xf0f0f0f0u, 0x00ffffffu) & 0xffu);
    ASSERT_EQ(0, pk_host_warp_vote(PYKRT_HOST_VOTE_ALL, s, 0, ~0u, ~0u));
    ASSERT_EQ(1, pk_host_warp_vote(PYKRT_HOST_VOTE_ALL, s, 0, ~0u, 0xffffu));     /* dead lanes do not vote */
    ASSERT_EQ(1, pk_host_warp_vote(PYKRT_HOST_VOTE_ALL, s, 0, 0, ~0u));           /* nobody: vacuously all */
    ASSERT_EQ(1, pk_host_warp_vote(PYKRT_HOST_VOTE_ANY, s, 31, ~0u, ~0u));
    ASSERT_EQ(0, pk_host_warp_vote(PYKRT_HOST_VOTE_ANY, s, 31, 0xffff0000u, ~0u));
    ASSERT_EQ(0, pk_host_warp_vote(PYKRT_HOST_VOTE_EQ, s, 0, ~0u, ~0u));
    ASSERT_EQ(1, pk_host_warp_vote(PYKRT_HOST_VOTE_EQ, s, 0, 0xffff0000u, ~0u));
    ASSERT_EQ(0xffff0000u, pk_host_warp_vote(PYKRT_HOST_VOTE_MATCH_ANY, s, 20, ~0u, ~0u));
    ASSERT_EQ(0x0000fff0u, pk_host_warp_vote(PYKRT_HOST_VOTE_MATCH_ANY, s, 3, ~0u, 0xfffffff0u));
    ASSERT_EQ(0, pk_host_warp_vote(PYKRT_HOST_VOTE_MATCH_ALL, s, 0, ~0u, ~0u));
    ASSERT_EQ(0x00ff00u, pk_host_warp_vote(PYKRT_HOST_VOTE_MATCH_ALL, s, 9, 0x00ff00u, ~0u));
    s[7] = -3;
    ASSERT_EQ(0x80u, pk_host_warp_vote(PYKRT_HOST_VOTE_MATCH_ANY, s, 7, ~0u, ~0u));
    ASSERT_EQ(0, pk_host_warp_vote(99, s, 0, ~0u, ~0u));
}

static const t_case host_tests[] = {
    T(test_device),
    T(test_memory),
    T(test_module_describe),
    T(test_ids),
    T(test_barrier),
    T(test_barrier_full_block),
    T(test_warp),
    T(test_many_blocks),
    T(test_threads_launch),
    T(test_events_and_streams),
    T(test_constants),
    T(test_exception),
    T(test_occupancy),
    T(test_large_shared),
    T(test_load_file),
    T(test_target_choice),
    T(test_bad_images),
    T(test_missing_entry),
    T(test_not_supported),
    T(test_warp_vote),
};

/* ---- the ways of choosing the host ---- */

/* $PYKRT_DEVICE=host: the host is the one device from the first call. */
static pykrt_status choose_by_env(void)
{
    pykrt_status st = pykrt_init();
    return st == PYKRT_SUCCESS ? pykrt_context_create(0, &t_ctx) : st;
}

/* Without a driver or a device, the program falls back to the host. */
static pykrt_status choose_by_fallback(void)
{
    pykrt_status st = pykrt_init();
    if (st != PYKRT_ERROR_NO_DRIVER && st != PYKRT_ERROR_NO_DEVICE)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "pykrt_init gave %s, not the lack of a driver or device",
                       pykrt_status_name(st));
    if ((st = pykrt_context_create(0, &t_ctx)) == PYKRT_SUCCESS)
        return pk_fail(PYKRT_ERROR_INVALID_ARGUMENT, "device 0 opened without a driver");
    if ((st = pykrt_context_create(PYKRT_DEVICE_HOST, &t_ctx)) != PYKRT_SUCCESS)
        return st;
    return pykrt_init(); /* the process's device is the host now */
}

/* The program reports a wrong environment, then may still choose the host. */
static void test_bad_environment(const char *variable)
{
    pykrt_status st = pykrt_init();
    char want[128];
    snprintf(want, sizeof want, "%s is '%s': it takes ", variable, getenv(variable));
    ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, st, want);
    pykrt_context *ctx = NULL;
    if (strcmp(variable, "PYKRT_HOST_THREADS") == 0) {
        ASSERT_ERR(PYKRT_ERROR_INVALID_ARGUMENT, pykrt_context_create(PYKRT_DEVICE_HOST, &ctx), want);
        return;
    }
    ASSERT_OK(pykrt_context_create(PYKRT_DEVICE_HOST, &ctx));
    ASSERT_OK(pykrt_init());
    ASSERT_OK(pykrt_context_destroy(ctx));
}

static int run_all(const char *counts)
{
    int passed = 0, failed = 0;
    t_run_cases(host_tests, sizeof host_tests / sizeof host_tests[0], &passed, &failed);
    t_failed_now = 0;
    pykrt_status st = pykrt_context_destroy(t_ctx);
    if (st != PYKRT_SUCCESS)
        printf("host_tests: the tests left objects behind: %s\n", pykrt_last_error());
    return t_report("host_tests", counts, passed + (st == PYKRT_SUCCESS), failed + (st != PYKRT_SUCCESS));
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: host_tests env|fallback|badenv|badthreads MODULES FIXTURES COUNTS\n");
        return 2;
    }
    const char *mode = argv[1];
    modules = argv[2];
    t_fixtures = argv[3];
    if (strcmp(mode, "badenv") == 0 || strcmp(mode, "badthreads") == 0) {
        t_failed_now = 0;
        test_bad_environment(strcmp(mode, "badenv") == 0 ? "PYKRT_DEVICE" : "PYKRT_HOST_THREADS");
        return t_report("host_tests", argv[4], !t_failed_now, t_failed_now);
    }
    pykrt_status st = strcmp(mode, "env") == 0 ? choose_by_env() : choose_by_fallback();
    if (st != PYKRT_SUCCESS) {
        printf("host_tests %s: the host device was not chosen: %s: %s\n", mode, pykrt_status_name(st),
               pykrt_last_error());
        return t_report("host_tests", argv[4], 0, 1);
    }
    return run_all(argv[4]);
}
