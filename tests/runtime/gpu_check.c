/*
 * gpu_check.c - the runtime against a real GPU and driver.
 *
 *     gpu_check FIXTURES        (run by runtime/check-gpu.sh)
 *
 * The fixture kernels (the .cu files of fixtures/, in pykc's ABI) report what they
 * received, so each check launches one through libpykrt and compares the
 * result with the value computed on the CPU: packing of every scalar dtype
 * and of C, F and A arrays, the target choice, embedded modules, constant
 * memory, dynamic shared memory past the 48 KiB default, a cooperative
 * launch with a grid-wide barrier, xoroshiro128p states used on the
 * device, streams with pinned memory, events, launches from several
 * threads, a module linked with device functions of another file,
 * kernels launching kernels (the device runtime linked), and the error
 * paths that only a real driver can show (the JIT log, a launch the
 * driver refuses). Prints each failure and a summary;
 * exit status 0 when all pass, 2 when there is no GPU.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

#include "rt_test.h"

const char *t_fixtures;
pykrt_context *t_ctx;
static int failed_now;
static pykrt_device_info dev;

void t_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  FAIL %s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failed_now = 1;
}

/* ---- helpers ---- */

static pykrt_module *abi;

static pykrt_kernel *kernel(pykrt_module *m, const char *name)
{
    pykrt_kernel *k = NULL;
    if (pykrt_kernel_get(m, name, &k) != PYKRT_SUCCESS)
        printf("  %s\n", pykrt_last_error());
    return k;
}

static pykrt_status new_array(pykrt_dtype dtype, int64_t n, pykrt_array *a)
{
    return pykrt_array_alloc(t_ctx, dtype, 1, &n, a);
}

/* Runs vadd from module m on n elements (on stream s) and checks it. */
static int vadd_checks(pykrt_module *m, int64_t n, pykrt_stream *s)
{
    pykrt_kernel *k = kernel(m, "vadd");
    float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
    pykrt_array dx = {0}, dy = {0}, dout = {0};
    int ok = k && x && y && out;
    for (int64_t i = 0; ok && i < n; i++) {
        x[i] = (float)i;
        y[i] = (float)(3 * i) + 0.5f;
    }
    ok = ok && new_array(PYKRT_FLOAT32, n, &dx) == PYKRT_SUCCESS && new_array(PYKRT_FLOAT32, n, &dy) == PYKRT_SUCCESS &&
         new_array(PYKRT_FLOAT32, n, &dout) == PYKRT_SUCCESS &&
         pykrt_array_copy_from_host(t_ctx, &dx, x, (size_t)n * 4) == PYKRT_SUCCESS &&
         pykrt_array_copy_from_host(t_ctx, &dy, y, (size_t)n * 4) == PYKRT_SUCCESS;
    pykrt_arg args[3] = {pykrt_arg_array(&dx), pykrt_arg_array(&dy), pykrt_arg_array(&dout)};
    pykrt_launch_config cfg = {{(uint32_t)((n + 127) / 128), 1, 1}, {128, 1, 1}, 0, s};
    ok = ok && pykrt_launch(k, &cfg, args, 3) == PYKRT_SUCCESS &&
         (s ? pykrt_stream_synchronize(s) : pykrt_context_synchronize(t_ctx)) == PYKRT_SUCCESS &&
         pykrt_array_copy_to_host(t_ctx, out, (size_t)n * 4, &dout) == PYKRT_SUCCESS;
    if (!ok)
        printf("  vadd: %s\n", pykrt_last_error());
    for (int64_t i = 0; ok && i < n; i++)
        if (out[i] != x[i] + y[i]) {
            printf("  vadd: out[%lld] = %g, expected %g\n", (long long)i, (double)out[i], (double)(x[i] + y[i]));
            ok = 0;
        }
    pykrt_array_free(t_ctx, &dx);
    pykrt_array_free(t_ctx, &dy);
    pykrt_array_free(t_ctx, &dout);
    free(x);
    free(y);
    free(out);
    return ok;
}

/* ---- checks ---- */

static void check_device(void)
{
    int version = 0;
    ASSERT_OK(pykrt_driver_version(&version));
    printf("  device 0: %s, sm_%d%d, %d SMs, %zu MiB, driver %d.%d, shared %zu/%zu (opt-in) bytes\n", dev.name,
           dev.cc_major, dev.cc_minor, dev.sm_count, dev.total_memory >> 20, version / 1000, version % 1000 / 10,
           dev.max_shared_per_block, dev.max_shared_per_block_optin);
    ASSERT(dev.cc_major >= 7 && dev.sm_count > 0 && dev.warp_size == 32);
    ASSERT(dev.max_threads_per_block >= 1024 && dev.max_grid_dim[0] > 65535);
}

static void check_vadd(void)
{
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    int ok = vadd_checks(m, (1 << 20) + 3, NULL);
    pykrt_module_unload(m);
    ASSERT(ok);
}

static void check_target_choice(void)
{
    pykrt_module *m;
    pykrt_module_info mi;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("multi.yaml"), &m));
    pykrt_module_describe(m, &mi);
    printf("  multi.yaml: loaded %s (%s)\n", mi.arch, mi.cubin ? "cubin" : "ptx");
    int cc = dev.cc_major * 10 + dev.cc_minor;
    const char *want = cc >= 90 ? "sm_90" : dev.cc_major == 8 ? "sm_80" : "sm_75";
    int right = strcmp(mi.arch, want) == 0, ok = vadd_checks(m, 1000, NULL);
    pykrt_module_unload(m);
    ASSERT(right);
    ASSERT(ok);
}

static void check_embedded(void)
{
    size_t mlen = 0, plen = 0;
    char *text = t_read(t_path("vadd.yaml"), &mlen), *ptx = t_read(t_path("vadd.ptx"), &plen);
    ASSERT(text && ptx);
    pykrt_image image = {"vadd.ptx", ptx, plen};
    pykrt_module *m = NULL;
    pykrt_status st = pykrt_module_load_memory(t_ctx, text, mlen, &image, 1, &m);
    int ok = st == PYKRT_SUCCESS && vadd_checks(m, 4099, NULL);
    pykrt_module_unload(m);
    free(text);
    free(ptx);
    ASSERT_OK(st);
    ASSERT(ok);
}

static void check_scalars(void)
{
    pykrt_kernel *k = kernel(abi, "scalars");
    pykrt_array out;
    double got[16];
    ASSERT(k != NULL);
    ASSERT_OK(new_array(PYKRT_FLOAT64, 16, &out));
    uint64_t h = (1ull << 63) + 5;
    pykrt_arg args[15] = {
        pykrt_arg_int8(-5),          pykrt_arg_int16(-300),         pykrt_arg_int32(-70000),
        pykrt_arg_int64(-5000000000000ll), pykrt_arg_uint8(250),    pykrt_arg_uint16(65000),
        pykrt_arg_uint32(4000000000u), pykrt_arg_uint64(h),         pykrt_arg_float16_bits(0x4248),
        pykrt_arg_float32(1.5f),     pykrt_arg_float64(-2.25),      pykrt_arg_bool(true),
        pykrt_arg_complex64(1.5f, -2.5f), pykrt_arg_complex128(3.25, -4.75), pykrt_arg_array(&out),
    };
    pykrt_launch_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL};
    pykrt_status st = pykrt_launch(k, &cfg, args, 15);
    if (st == PYKRT_SUCCESS)
        st = pykrt_array_copy_to_host(t_ctx, got, sizeof got, &out);
    pykrt_array_free(t_ctx, &out);
    ASSERT_OK(st);
    const double want[16] = {-5, -300, -70000, -5000000000000.0, 250, 65000, 4000000000.0, (double)h,
                             3.140625, 1.5, -2.25, 1, 1.5, -2.5, 3.25, -4.75};
    for (int i = 0; i < 16; i++)
        if (got[i] != want[i]) {
            t_fail(__FILE__, __LINE__, "scalars: value %d arrived as %.17g, expected %.17g", i, got[i], want[i]);
            return;
        }
}

static void check_tuples(void)
{
    pykrt_kernel *k = kernel(abi, "tuples");
    pykrt_array out;
    double got[6];
    ASSERT(k != NULL);
    ASSERT_OK(new_array(PYKRT_FLOAT64, 6, &out));
    pykrt_arg members[4] = {pykrt_arg_int32(-7), pykrt_arg_float64(1.25), pykrt_arg_float64(-2.5),
                            pykrt_arg_complex64(3.5f, -4.5f)};
    pykrt_arg args[3] = {pykrt_arg_tuple(members, 4), pykrt_arg_int16(-300), pykrt_arg_array(&out)};
    pykrt_launch_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL};
    pykrt_status st = pykrt_launch(k, &cfg, args, 3);
    if (st == PYKRT_SUCCESS)
        st = pykrt_array_copy_to_host(t_ctx, got, sizeof got, &out);
    pykrt_array_free(t_ctx, &out);
    ASSERT_OK(st);
    const double want[6] = {-7, 1.25, -2.5, 3.5, -4.5, -300};
    for (int i = 0; i < 6; i++)
        if (got[i] != want[i]) {
            t_fail(__FILE__, __LINE__, "tuples: value %d arrived as %.17g, expected %.17g", i, got[i], want[i]);
            return;
        }
}

/* A debug=True kernel on the GPU (fixtures/raises.pyk): the thread that
 * meets the 3 fails its assert, and the launch says so, numba-cuda's way. */
static void check_exceptions(void)
{
    pykrt_module *m;
    pykrt_kernel *k;
    pykrt_array a;
    int64_t values[64];
    for (int i = 0; i < 64; i++)
        values[i] = i == 37 ? 3 : 10;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("raises.yaml"), &m));
    ASSERT_OK(pykrt_kernel_get(m, "checked", &k));
    ASSERT_OK(new_array(PYKRT_INT64, 64, &a));
    ASSERT_OK(pykrt_array_copy_from_host(t_ctx, &a, values, sizeof values));
    pykrt_arg args[1] = {pykrt_arg_array(&a)};
    pykrt_launch_config cfg = {{2, 1, 1}, {32, 1, 1}, 0, NULL};
    pykrt_status st = pykrt_launch(k, &cfg, args, 1);
    printf("  %s\n", pykrt_last_error());
    ASSERT(st == PYKRT_ERROR_KERNEL_EXCEPTION);
    ASSERT_CONTAINS(pykrt_last_error(), "AssertionError: In function 'checked', file raises.pyk, line 11, "
                                        "tid=[0, 0, 5] ctaid=[0, 0, 1]: three");
    values[37] = 10;
    ASSERT_OK(pykrt_array_copy_from_host(t_ctx, &a, values, sizeof values));
    ASSERT_OK(pykrt_launch(k, &cfg, args, 1));
    pykrt_array_free(t_ctx, &a);
    ASSERT_OK(pykrt_module_unload(m));
}

/* A checked kernel on the GPU (fixtures/checks.pyk): the one thread past
 * the end fails its read, ends before its store, and the launch reports
 * it as a diagnostic; a zero divisor is reported the same way. */
static void check_failed_checks(void)
{
    pykrt_module *m;
    pykrt_kernel *k;
    pykrt_array a, out;
    int64_t values[65], got[65];
    for (int i = 0; i < 65; i++)
        values[i] = 2 * i + 1;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("checks.yaml"), &m));
    ASSERT_OK(pykrt_kernel_get(m, "scaled", &k));
    ASSERT_OK(new_array(PYKRT_INT64, 65, &a));
    ASSERT_OK(new_array(PYKRT_INT64, 65, &out));
    ASSERT_OK(pykrt_array_copy_from_host(t_ctx, &a, values, sizeof values));
    ASSERT_OK(pykrt_array_copy_from_host(t_ctx, &out, values, sizeof values));
    pykrt_array a64 = a, out64 = out; /* 64 elements of the 65 */
    a64.shape[0] = out64.shape[0] = 64;
    pykrt_arg args[3] = {pykrt_arg_array(&a64), pykrt_arg_array(&out64), pykrt_arg_int64(2)};
    pykrt_launch_config cfg = {{1, 1, 1}, {65, 1, 1}, 0, NULL};
    pykrt_status st = pykrt_launch(k, &cfg, args, 3);
    printf("  %s\n", pykrt_last_error());
    ASSERT(st == PYKRT_ERROR_KERNEL_EXCEPTION);
    ASSERT_CONTAINS(pykrt_last_error(), "checks.pyk:10:14: error: index 64 out of bounds for axis 0 with size 64 "
                                        "(thread 64 of block 0)");
    ASSERT_OK(pykrt_array_copy_to_host(t_ctx, got, sizeof got, &out));
    for (int i = 0; i < 65; i++)
        ASSERT(got[i] == (i < 64 ? values[i] / 2 : values[i]));
    args[2] = pykrt_arg_int64(0);
    cfg.block.x = 64;
    st = pykrt_launch(k, &cfg, args, 3);
    printf("  %s\n", pykrt_last_error());
    ASSERT(st == PYKRT_ERROR_KERNEL_EXCEPTION);
    ASSERT_CONTAINS(pykrt_last_error(), "checks.pyk:10:14: error: integer division or modulo by zero (thread ");
    args[2] = pykrt_arg_int64(3);
    ASSERT_OK(pykrt_launch(k, &cfg, args, 3));
    pykrt_array_free(t_ctx, &a);
    pykrt_array_free(t_ctx, &out);
    ASSERT_OK(pykrt_module_unload(m));
}

static void check_arrays(void)
{
    pykrt_kernel *k = kernel(abi, "arrays");
    pykrt_array a, b, c, out;
    int64_t sa[2] = {3, 4}, sb[2] = {5, 6}, sc[3] = {2, 3, 4}, got[17];
    ASSERT(k != NULL);
    ASSERT_OK(pykrt_array_alloc(t_ctx, PYKRT_FLOAT64, 2, sa, &a));
    ASSERT_OK(pykrt_array_alloc(t_ctx, PYKRT_FLOAT32, 2, sb, &b));
    ASSERT_OK(pykrt_array_alloc(t_ctx, PYKRT_INT32, 3, sc, &c));
    ASSERT_OK(new_array(PYKRT_INT64, 17, &out));
    pykrt_array bf = b, ca = c;
    pykrt_array_init(&bf, b.data, PYKRT_FLOAT32, 2, sb, PYKRT_LAYOUT_F);
    ca.strides[0] = 4; /* an A-layout view with permuted strides */
    ca.strides[2] = 24;
    pykrt_arg args[4] = {pykrt_arg_array(&a), pykrt_arg_array(&bf), pykrt_arg_array(&ca), pykrt_arg_array(&out)};
    pykrt_launch_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL};
    pykrt_status st = pykrt_launch(k, &cfg, args, 4);
    if (st == PYKRT_SUCCESS)
        st = pykrt_array_copy_to_host(t_ctx, got, sizeof got, &out);
    int64_t want[17] = {(int64_t)a.data,   a.shape[0],  a.shape[1],  a.strides[0], a.strides[1], (int64_t)bf.data,
                        bf.shape[0],       bf.shape[1], bf.strides[0], bf.strides[1], (int64_t)ca.data, ca.shape[0],
                        ca.shape[1],       ca.shape[2], ca.strides[0], ca.strides[1], ca.strides[2]};
    pykrt_array_free(t_ctx, &a);
    pykrt_array_free(t_ctx, &b);
    pykrt_array_free(t_ctx, &c);
    pykrt_array_free(t_ctx, &out);
    ASSERT_OK(st);
    for (int i = 0; i < 17; i++)
        ASSERT_EQ(want[i], got[i]);
}

static void check_constants(void)
{
    pykrt_kernel *k = kernel(abi, "use_const");
    float coeffs[16], back[16], out[16];
    pykrt_array dout;
    ASSERT(k != NULL);
    for (int i = 0; i < 16; i++)
        coeffs[i] = (float)i + 0.5f;
    ASSERT_OK(pykrt_constant_set(abi, "coeffs", coeffs, sizeof coeffs));
    ASSERT_OK(pykrt_constant_get(abi, "coeffs", back, sizeof back));
    ASSERT(memcmp(coeffs, back, sizeof back) == 0);
    ASSERT_OK(new_array(PYKRT_FLOAT32, 16, &dout));
    pykrt_arg arg = pykrt_arg_array(&dout);
    pykrt_launch_config cfg = {{1, 1, 1}, {16, 1, 1}, 0, NULL};
    pykrt_status st = pykrt_launch(k, &cfg, &arg, 1);
    if (st == PYKRT_SUCCESS)
        st = pykrt_array_copy_to_host(t_ctx, out, sizeof out, &dout);
    pykrt_array_free(t_ctx, &dout);
    ASSERT_OK(st);
    for (int i = 0; i < 16; i++)
        ASSERT(out[i] == 2.0f * coeffs[i]);
}

/* The block's slice reversed through dynamic shared memory, once within
 * the default 48 KiB and once asking for 64 KiB (the opt-in path). */
static void check_dynamic_shared(void)
{
    pykrt_kernel *k = kernel(abi, "dynshared");
    enum { N = 1024, B = 256 };
    float x[N], y[N];
    pykrt_array d;
    ASSERT(k != NULL);
    for (int i = 0; i < N; i++)
        x[i] = (float)i;
    ASSERT_OK(new_array(PYKRT_FLOAT32, N, &d));
    pykrt_arg arg = pykrt_arg_array(&d);
    uint32_t sizes[2] = {B * 4, dev.max_shared_per_block_optin >= 65536 ? 65536 : B * 4};
    pykrt_status st = PYKRT_SUCCESS;
    for (int pass = 0; pass < 2 && st == PYKRT_SUCCESS; pass++) {
        pykrt_launch_config cfg = {{N / B, 1, 1}, {B, 1, 1}, sizes[pass], NULL};
        st = pykrt_array_copy_from_host(t_ctx, &d, x, sizeof x);
        if (st == PYKRT_SUCCESS)
            st = pykrt_launch(k, &cfg, &arg, 1);
        if (st == PYKRT_SUCCESS)
            st = pykrt_array_copy_to_host(t_ctx, y, sizeof y, &d);
        for (int i = 0; st == PYKRT_SUCCESS && i < N; i++)
            if (y[i] != x[i / B * B + (B - 1 - i % B)]) {
                pykrt_array_free(t_ctx, &d);
                t_fail(__FILE__, __LINE__, "with %u bytes: x[%d] is %g, expected %g", sizes[pass], i, (double)y[i],
                       (double)x[i / B * B + (B - 1 - i % B)]);
                return;
            }
    }
    pykrt_array_free(t_ctx, &d);
    ASSERT_OK(st);
}

static void check_cooperative(void)
{
    pykrt_kernel *k = kernel(abi, "coop");
    pykrt_array d;
    int32_t x[2] = {0, 0};
    ASSERT(k != NULL);
    ASSERT_OK(new_array(PYKRT_INT32, 2, &d));
    pykrt_arg arg = pykrt_arg_array(&d);
    uint32_t blocks = (uint32_t)dev.sm_count;
    pykrt_launch_config cfg = {{blocks, 1, 1}, {128, 1, 1}, 0, NULL};
    pykrt_status st = pykrt_array_copy_from_host(t_ctx, &d, x, sizeof x);
    if (st == PYKRT_SUCCESS)
        st = pykrt_launch(k, &cfg, &arg, 1);
    if (st == PYKRT_SUCCESS)
        st = pykrt_array_copy_to_host(t_ctx, x, sizeof x, &d);
    pykrt_array_free(t_ctx, &d);
    ASSERT_OK(st);
    ASSERT_EQ(blocks, x[0]);
    ASSERT_EQ(blocks, x[1]); /* block 0 saw every block's add after the barrier */
}

static uint64_t rotl(uint64_t v, int k)
{
    return (v << k) | (v >> (64 - k));
}

static void check_random(void)
{
    pykrt_kernel *k = kernel(abi, "rng");
    enum { N = 1000 };
    pykrt_xoroshiro128p host[N], dev_states[N];
    uint64_t out[N];
    pykrt_array states, dout;
    ASSERT(k != NULL);
    ASSERT_OK(pykrt_random_states_host(host, N, 42, 1));
    ASSERT_OK(pykrt_random_states_create(t_ctx, N, 42, 1, NULL, &states));
    ASSERT_OK(new_array(PYKRT_UINT64, N, &dout));
    pykrt_arg args[2] = {pykrt_arg_array(&states), pykrt_arg_array(&dout)};
    pykrt_launch_config cfg = {{(N + 127) / 128, 1, 1}, {128, 1, 1}, 0, NULL};
    pykrt_status st = pykrt_launch(k, &cfg, args, 2);
    if (st == PYKRT_SUCCESS)
        st = pykrt_array_copy_to_host(t_ctx, out, sizeof out, &dout);
    if (st == PYKRT_SUCCESS)
        st = pykrt_array_copy_to_host(t_ctx, dev_states, sizeof dev_states, &states);
    pykrt_array_free(t_ctx, &states);
    pykrt_array_free(t_ctx, &dout);
    ASSERT_OK(st);
    for (int i = 0; i < N; i++) {
        uint64_t s0 = host[i].s0, s1 = host[i].s1 ^ host[i].s0;
        ASSERT(out[i] == host[i].s0 + host[i].s1);
        ASSERT(dev_states[i].s0 == (rotl(s0, 55) ^ s1 ^ (s1 << 14)) && dev_states[i].s1 == rotl(s1, 36));
    }
}

static void check_streams_and_events(void)
{
    pykrt_stream *s;
    pykrt_event *start, *end;
    float *pinned = NULL, ms = -1;
    pykrt_devptr d;
    ASSERT_OK(pykrt_stream_create(t_ctx, PYKRT_STREAM_NON_BLOCKING, &s));
    ASSERT_OK(pykrt_event_create(t_ctx, &start));
    ASSERT_OK(pykrt_event_create(t_ctx, &end));
    ASSERT_OK(pykrt_host_alloc(t_ctx, 1 << 20, (void **)&pinned));
    ASSERT_OK(pykrt_mem_alloc(t_ctx, 1 << 20, &d));
    for (int i = 0; i < (1 << 18); i++)
        pinned[i] = (float)i;
    ASSERT_OK(pykrt_event_record(start, s));
    ASSERT_OK(pykrt_memcpy_htod_async(t_ctx, d, pinned, 1 << 20, s));
    ASSERT_OK(pykrt_memset_d8_async(t_ctx, d, 0, 4, s));
    ASSERT_OK(pykrt_memcpy_dtoh_async(t_ctx, pinned, d, 1 << 20, s));
    ASSERT_OK(pykrt_event_record(end, s));
    ASSERT_OK(pykrt_event_synchronize(end));
    ASSERT_OK(pykrt_event_elapsed(start, end, &ms));
    printf("  2 MiB of pinned copies on a stream: %.3f ms by events\n", (double)ms);
    ASSERT(ms > 0);
    ASSERT(pinned[0] == 0.0f && pinned[12345] == 12345.0f);
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    int ok = vadd_checks(m, 70000, s);
    pykrt_module_unload(m);
    ASSERT(ok);
    ASSERT_OK(pykrt_mem_free(t_ctx, d));
    ASSERT_OK(pykrt_host_free(t_ctx, pinned));
    ASSERT_OK(pykrt_event_destroy(start));
    ASSERT_OK(pykrt_event_destroy(end));
    ASSERT_OK(pykrt_stream_destroy(s));
}

typedef struct job {
    pykrt_module *m;
    int ok;
} job;

static void *thread_vadd(void *arg)
{
    job *j = arg;
    pykrt_stream *s = NULL;
    j->ok = pykrt_stream_create(t_ctx, PYKRT_STREAM_NON_BLOCKING, &s) == PYKRT_SUCCESS;
    for (int i = 0; j->ok && i < 20; i++)
        j->ok = vadd_checks(j->m, 10000 + i, s);
    pykrt_stream_destroy(s);
    return NULL;
}

static void check_threads(void)
{
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    enum { N = 4 };
    pthread_t t[N];
    job jobs[N];
    for (int i = 0; i < N; i++) {
        jobs[i].m = m;
        pthread_create(&t[i], NULL, thread_vadd, &jobs[i]);
    }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    pykrt_module_unload(m);
    for (int i = 0; i < N; i++)
        ASSERT(jobs[i].ok);
}

/* A module that links other code (fixtures/linked.pyk, its device
 * functions declared with cuda.declare_device and defined in nvcc's
 * linked_dev.ptx): libpykrt links the two with the driver's linker. Each
 * thread computes axpb(x, checked(k)) + cube(x) + total(x); where k is
 * negative, checked's status is an exception, which ends the thread before
 * it writes. */
static void check_linked(void)
{
    enum { N = 64 };
    float x[N];
    int32_t k[N];
    double out[N], sum = 0;
    for (int i = 0; i < N; i++) {
        x[i] = 0.25f * (float)i;
        k[i] = i == 3 ? -1 : i % 5;
        out[i] = -7;
        sum += x[i];
    }
    pykrt_module *m = NULL;
    pykrt_status st = pykrt_module_load(t_ctx, t_path("linked.yaml"), &m);
    if (st != PYKRT_SUCCESS)
        printf("  %s\n", pykrt_last_error());
    ASSERT_OK(st);
    pykrt_array dx = {0}, dk = {0}, dout = {0};
    st = new_array(PYKRT_FLOAT32, N, &dx);
    if (st == PYKRT_SUCCESS && (st = new_array(PYKRT_INT32, N, &dk)) == PYKRT_SUCCESS)
        st = new_array(PYKRT_FLOAT64, N, &dout);
    if (st == PYKRT_SUCCESS && (st = pykrt_array_copy_from_host(t_ctx, &dx, x, sizeof x)) == PYKRT_SUCCESS &&
        (st = pykrt_array_copy_from_host(t_ctx, &dk, k, sizeof k)) == PYKRT_SUCCESS)
        st = pykrt_array_copy_from_host(t_ctx, &dout, out, sizeof out);
    pykrt_arg args[3] = {pykrt_arg_array(&dx), pykrt_arg_array(&dk), pykrt_arg_array(&dout)};
    pykrt_launch_config cfg = {{1, 1, 1}, {N, 1, 1}, 0, NULL};
    if (st == PYKRT_SUCCESS && (st = pykrt_launch(kernel(m, "linked"), &cfg, args, 3)) == PYKRT_SUCCESS &&
        (st = pykrt_context_synchronize(t_ctx)) == PYKRT_SUCCESS)
        st = pykrt_array_copy_to_host(t_ctx, out, sizeof out, &dout);
    pykrt_array_free(t_ctx, &dx);
    pykrt_array_free(t_ctx, &dk);
    pykrt_array_free(t_ctx, &dout);
    pykrt_module_unload(m);
    ASSERT_OK(st);
    for (int i = 0; i < N; i++) {
        double want = i == 3 ? -7 : (double)(2.0f * x[i] + (float)k[i]) + (double)x[i] * x[i] * x[i] + sum;
        if (out[i] != want) {
            t_fail(__FILE__, __LINE__, "linked: out[%d] = %.17g, expected %.17g", i, out[i], want);
            return;
        }
    }
}

/* Kernels launching kernels (fixtures/launches.pyk), linked with CUDA's
 * device runtime when loaded: the child's parameters arrive as the parent
 * passed them, on the grid, blocks and dynamic shared memory it asked
 * for. */
static void check_device_launch(void)
{
    double out[9];
    int32_t counts[2][3] = {{0}};
    for (int i = 0; i < 9; i++)
        out[i] = -1;
    pykrt_module *m = NULL;
    pykrt_status st = pykrt_module_load(t_ctx, t_path("launches.yaml"), &m);
    if (st != PYKRT_SUCCESS)
        printf("  %s\n", pykrt_last_error());
    ASSERT_OK(st);
    pykrt_array dout = {0}, dcounts = {0};
    int64_t shape[2] = {2, 3};
    if ((st = new_array(PYKRT_FLOAT64, 9, &dout)) == PYKRT_SUCCESS &&
        (st = pykrt_array_alloc(t_ctx, PYKRT_INT32, 2, shape, &dcounts)) == PYKRT_SUCCESS &&
        (st = pykrt_array_copy_from_host(t_ctx, &dout, out, sizeof out)) == PYKRT_SUCCESS)
        st = pykrt_array_copy_from_host(t_ctx, &dcounts, counts, sizeof counts);
    pykrt_arg args[3] = {pykrt_arg_array(&dout), pykrt_arg_array(&dcounts), pykrt_arg_float32(1.5f)};
    pykrt_launch_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL};
    if (st == PYKRT_SUCCESS && (st = pykrt_launch(kernel(m, "launch"), &cfg, args, 3)) == PYKRT_SUCCESS &&
        (st = pykrt_context_synchronize(t_ctx)) == PYKRT_SUCCESS &&
        (st = pykrt_array_copy_to_host(t_ctx, out, sizeof out, &dout)) == PYKRT_SUCCESS)
        st = pykrt_array_copy_to_host(t_ctx, counts, sizeof counts, &dcounts);
    pykrt_array_free(t_ctx, &dout);
    pykrt_array_free(t_ctx, &dcounts);
    pykrt_module_unload(m);
    ASSERT_OK(st);
    const double want[9] = {-5, -300, 1, 1.5, 0, 1.5, 3, 32, 48};
    for (int i = 0; i < 9; i++)
        if (out[i] != want[i]) {
            t_fail(__FILE__, __LINE__, "launches: value %d arrived as %.17g, expected %.17g", i, out[i], want[i]);
            return;
        }
    for (int i = 0; i < 6; i++) /* each block's threads add 1 + their index through shared memory */
        if (counts[i / 3][i % 3] != 528) {
            t_fail(__FILE__, __LINE__, "launches: block (%d, %d) counted %d, expected 528", i % 3, i / 3,
                   counts[i / 3][i % 3]);
            return;
        }
}

static int compare_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* samples/quicksort.pyk (fixtures/quicksort.yaml): a recursive sort whose
 * recursion is in launches, on random, sorted and constant input. */
static void check_quicksort(void)
{
    enum { N = 20000 };
    int32_t *a = malloc(N * sizeof *a), *want = malloc(N * sizeof *want);
    pykrt_module *m = NULL;
    pykrt_status st = a && want ? pykrt_module_load(t_ctx, t_path("quicksort.yaml"), &m) : PYKRT_ERROR_OUT_OF_MEMORY;
    pykrt_array da = {0};
    if (st == PYKRT_SUCCESS)
        st = new_array(PYKRT_INT32, N, &da);
    uint64_t x = 88172645463325252ull;
    int wrong = 0;
    for (int kind = 0; kind < 3 && st == PYKRT_SUCCESS && !wrong; kind++) {
        for (int i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            a[i] = kind == 0 ? (int32_t)(x % 200001) - 100000 : kind == 1 ? i : 7;
            want[i] = a[i];
        }
        qsort(want, N, sizeof *want, compare_int32);
        pykrt_arg args[4] = {pykrt_arg_array(&da), pykrt_arg_int64(0), pykrt_arg_int64(N), pykrt_arg_int32(0)};
        pykrt_launch_config one = {{1, 1, 1}, {1, 1, 1}, 0, NULL};
        if ((st = pykrt_array_copy_from_host(t_ctx, &da, a, N * sizeof *a)) == PYKRT_SUCCESS &&
            (st = pykrt_launch(kernel(m, "quicksort"), &one, args, 4)) == PYKRT_SUCCESS &&
            (st = pykrt_context_synchronize(t_ctx)) == PYKRT_SUCCESS)
            st = pykrt_array_copy_to_host(t_ctx, a, N * sizeof *a, &da);
        for (int i = 0; st == PYKRT_SUCCESS && i < N && !wrong; i++)
            if (a[i] != want[i]) {
                printf("  quicksort (input %d): a[%d] = %d, expected %d\n", kind, i, a[i], want[i]);
                wrong = 1;
            }
    }
    if (st != PYKRT_SUCCESS)
        printf("  %s\n", pykrt_last_error());
    pykrt_array_free(t_ctx, &da);
    pykrt_module_unload(m);
    free(a);
    free(want);
    ASSERT_OK(st);
    ASSERT(!wrong);
}

static void check_errors(void)
{
    pykrt_module *m = NULL;
    pykrt_status st = pykrt_module_load(t_ctx, t_path("broken.yaml"), &m);
    printf("  broken.ptx: %s\n", pykrt_last_error());
    ASSERT_EQ(PYKRT_ERROR_MODULE_LOAD, st);
    /* the driver names it INVALID_PTX or, when it cannot tell the text for
     * PTX at all (driver 580), INVALID_IMAGE */
    ASSERT_CONTAINS(pykrt_last_error(), "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_");
    ASSERT_CONTAINS(pykrt_last_error(), "\n"); /* the JIT log follows */
    ASSERT_ERR(PYKRT_ERROR_STALE, pykrt_module_load(t_ctx, t_path("stale.yaml"), &m), "recompile");

    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    pykrt_kernel *k = kernel(m, "vadd");
    pykrt_array x;
    pykrt_status alloc = new_array(PYKRT_FLOAT32, 16, &x);
    pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&x), pykrt_arg_array(&x)};
    pykrt_launch_config huge = {{1, 1, 1}, {2048, 1, 1}, 0, NULL};
    pykrt_status checked = pykrt_launch(k, &huge, args, 3);
    char checked_msg[512];
    snprintf(checked_msg, sizeof checked_msg, "%s", pykrt_last_error());
    pykrt_status raw = pykrt_launch_unchecked(k, &huge, args, 3);
    printf("  a block of 2048 threads: %s\n", pykrt_last_error());
    pykrt_array_free(t_ctx, &x);
    pykrt_module_unload(m);
    ASSERT_OK(alloc);
    ASSERT_EQ(PYKRT_ERROR_BAD_LAUNCH, checked);
    ASSERT_CONTAINS(checked_msg, "pykrt_launch(vadd): block.x is 2048, more than the device's 1024");
    ASSERT_EQ(PYKRT_ERROR_CUDA, raw);
    ASSERT_CONTAINS(pykrt_last_error(), "pykrt_launch_unchecked(vadd): cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE");
    pykrt_launch_config none = {{1, 1, 1}, {1, 1, 1}, 0, NULL};
    ASSERT_OK(pykrt_launch(kernel(abi, "noargs"), &none, NULL, 0));
    ASSERT_OK(pykrt_context_synchronize(t_ctx));
}

/* Stream b copies what a large vadd on stream a wrote, after waiting on an
 * event recorded behind it: without the wait the copy would race it. */
static void check_stream_wait(void)
{
    enum { N = 1 << 24 };
    pykrt_module *m;
    pykrt_stream *a, *b;
    pykrt_event *done;
    pykrt_array dx, dout, dcopy;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    ASSERT_OK(pykrt_stream_create(t_ctx, PYKRT_STREAM_NON_BLOCKING, &a));
    ASSERT_OK(pykrt_stream_create(t_ctx, PYKRT_STREAM_NON_BLOCKING, &b));
    ASSERT_OK(pykrt_event_create(t_ctx, &done));
    ASSERT_OK(new_array(PYKRT_FLOAT32, N, &dx));
    ASSERT_OK(new_array(PYKRT_FLOAT32, N, &dout));
    ASSERT_OK(new_array(PYKRT_FLOAT32, N, &dcopy));
    ASSERT_OK(pykrt_memset_d32(t_ctx, dx.data, 0x3f800000u, N)); /* 1.0f */
    ASSERT_OK(pykrt_memset_d32(t_ctx, dout.data, 0, N));
    ASSERT_OK(pykrt_memset_d32(t_ctx, dcopy.data, 0, N));
    /* the memsets run on the default stream, which non-blocking streams
     * do not wait for */
    ASSERT_OK(pykrt_context_synchronize(t_ctx));
    pykrt_arg args[3] = {pykrt_arg_array(&dx), pykrt_arg_array(&dx), pykrt_arg_array(&dout)};
    pykrt_launch_config cfg = {{N / 256, 1, 1}, {256, 1, 1}, 0, a};
    ASSERT_OK(pykrt_launch(kernel(m, "vadd"), &cfg, args, 3));
    ASSERT_OK(pykrt_event_record(done, a));
    ASSERT_OK(pykrt_stream_wait_event(b, done));
    ASSERT_OK(pykrt_memcpy_dtod_async(t_ctx, dcopy.data, dout.data, (size_t)N * 4, b));
    ASSERT_OK(pykrt_stream_synchronize(b));
    float *out = malloc((size_t)N * 4);
    ASSERT(out != NULL);
    pykrt_status st = pykrt_array_copy_to_host(t_ctx, out, (size_t)N * 4, &dcopy);
    int64_t bad = -1;
    for (int64_t i = 0; st == PYKRT_SUCCESS && bad < 0 && i < N; i++)
        if (out[i] != 2.0f)
            bad = i;
    free(out);
    ASSERT_OK(st);
    if (bad >= 0)
        printf("  copy[%lld] is not 2: the copy ran before the kernel it waited for\n", (long long)bad);
    ASSERT(bad < 0);
    pykrt_array_free(t_ctx, &dx);
    pykrt_array_free(t_ctx, &dout);
    pykrt_array_free(t_ctx, &dcopy);
    ASSERT_OK(pykrt_event_destroy(done));
    ASSERT_OK(pykrt_stream_destroy(a));
    ASSERT_OK(pykrt_stream_destroy(b));
    ASSERT_OK(pykrt_module_unload(m));
}

static void check_occupancy(void)
{
    pykrt_module *m;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    pykrt_kernel *k = kernel(m, "vadd");
    int blocks = 0, threads = 0, grid = 0;
    ASSERT_OK(pykrt_kernel_occupancy(k, 256, 0, &blocks));
    ASSERT_OK(pykrt_kernel_block_size(k, 0, &threads, &grid));
    printf("  vadd: %d blocks of 256 threads per SM; best block %d threads, %d blocks fill the GPU\n", blocks, threads,
           grid);
    ASSERT(blocks > 0 && blocks * 256 <= dev.max_threads_per_sm);
    ASSERT(threads > 0 && threads <= dev.max_threads_per_block && grid >= dev.sm_count);
    ASSERT_OK(pykrt_module_unload(m));
}

/* out = x + out captured once and replayed 3 times gives 3x; a debug=True
 * kernel is refused while the stream captures. */
static void check_graph(void)
{
    enum { N = 100003 };
    pykrt_module *m, *raises;
    pykrt_stream *s;
    pykrt_graph *g;
    pykrt_array dx, dout;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("vadd.yaml"), &m));
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("raises.yaml"), &raises));
    ASSERT_OK(pykrt_stream_create(t_ctx, PYKRT_STREAM_NON_BLOCKING, &s));
    ASSERT_OK(new_array(PYKRT_FLOAT32, N, &dx));
    ASSERT_OK(new_array(PYKRT_FLOAT32, N, &dout));
    float *x = malloc(N * 4), *out = malloc(N * 4);
    ASSERT(x && out);
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 1000) + 0.25f;
    ASSERT_OK(pykrt_array_copy_from_host(t_ctx, &dx, x, N * 4));
    ASSERT_OK(pykrt_memset_d32(t_ctx, dout.data, 0, N));
    pykrt_arg args[3] = {pykrt_arg_array(&dx), pykrt_arg_array(&dout), pykrt_arg_array(&dout)};
    pykrt_launch_config cfg = {{(N + 255) / 256, 1, 1}, {256, 1, 1}, 0, s};
    pykrt_array a;
    ASSERT_OK(new_array(PYKRT_INT64, 64, &a));
    pykrt_arg rargs[1] = {pykrt_arg_array(&a)};
    pykrt_launch_config rcfg = {{2, 1, 1}, {32, 1, 1}, 0, s};
    ASSERT_OK(pykrt_graph_begin(s, PYKRT_CAPTURE_THREAD_LOCAL));
    ASSERT_OK(pykrt_launch(kernel(m, "vadd"), &cfg, args, 3));
    ASSERT_ERR(PYKRT_ERROR_BAD_LAUNCH, pykrt_launch(kernel(raises, "checked"), &rcfg, rargs, 1), "capturing a graph");
    ASSERT_OK(pykrt_graph_end(s, &g));
    for (int r = 0; r < 3; r++)
        ASSERT_OK(pykrt_graph_launch(g, s));
    ASSERT_OK(pykrt_stream_synchronize(s));
    ASSERT_OK(pykrt_array_copy_to_host(t_ctx, out, N * 4, &dout));
    int bad = -1;
    for (int i = 0; bad < 0 && i < N; i++)
        if (out[i] != 3 * x[i])
            bad = i;
    if (bad >= 0)
        printf("  out[%d] = %g, expected %g\n", bad, (double)out[bad], (double)(3 * x[bad]));
    free(x);
    free(out);
    ASSERT(bad < 0);
    ASSERT_OK(pykrt_graph_destroy(g));
    pykrt_array_free(t_ctx, &a);
    pykrt_array_free(t_ctx, &dx);
    pykrt_array_free(t_ctx, &dout);
    ASSERT_OK(pykrt_stream_destroy(s));
    ASSERT_OK(pykrt_module_unload(raises));
    ASSERT_OK(pykrt_module_unload(m));
}

int main(int argc, char **argv)
{
    t_fixtures = argc > 1 ? argv[1] : "tests/runtime/fixtures";
    pykrt_status st = pykrt_context_create(0, &t_ctx);
    if (st == PYKRT_ERROR_NO_DRIVER || st == PYKRT_ERROR_NO_DEVICE) {
        printf("gpu_check: no GPU: %s\n", pykrt_last_error());
        return 2;
    }
    if (st != PYKRT_SUCCESS || pykrt_context_device(t_ctx, &dev) != PYKRT_SUCCESS ||
        pykrt_module_load(t_ctx, t_path("abi.yaml"), &abi) != PYKRT_SUCCESS) {
        printf("gpu_check: %s\n", pykrt_last_error());
        return 1;
    }
    static const t_case checks[] = {
        T(check_device),   T(check_vadd),           T(check_target_choice), T(check_embedded),
        T(check_scalars),  T(check_tuples),  T(check_exceptions), T(check_failed_checks), T(check_arrays),         T(check_constants),     T(check_dynamic_shared),
        T(check_cooperative), T(check_random),      T(check_streams_and_events), T(check_stream_wait),
        T(check_occupancy), T(check_graph), T(check_threads),
        T(check_linked),   T(check_device_launch), T(check_quicksort), T(check_errors),
    };
    int passed = 0, failed = 0;
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        failed_now = 0;
        printf("%s\n", checks[i].name);
        checks[i].fn();
        printf("  %s\n", failed_now ? "FAILED" : "ok");
        passed += !failed_now;
        failed += failed_now;
    }
    pykrt_module_unload(abi);
    pykrt_context_destroy(t_ctx);
    printf("gpu_check: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
